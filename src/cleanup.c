/* cleanup.c: the temporary-file registry and the signal handlers that empty it.
 *
 * The registry is a fixed array of path buffers so that the signal handler can walk
 * it with nothing but unlink(2). A slot's `used` flag is written last when a path is
 * registered and first when it is forgotten, so the handler never reads a half-made
 * path.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"

#define CLEANUP_SLOTS 1024

typedef struct {
    volatile sig_atomic_t used;     /* 1: path names a file to remove */
    char path[PATH_MAX];
} slot_t;

static slot_t slots[CLEANUP_SLOTS];
static int sigpipe_ignored;          /* SIGPIPE was SIG_IGN at start */
static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void cleanup_on_signal(int sig)
{
    int saved = errno;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (slots[i].used)
            unlink(slots[i].path);
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

int cleanup_init(void)
{
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction old;
        if (sigaction(handled[i], NULL, &old) != 0)
            return err_sys(GS_EIO, errno, "sigaction");
        if (old.sa_handler == SIG_IGN) {
            if (handled[i] == SIGPIPE)
                sigpipe_ignored = 1;
            continue;   /* ignored by our parent: keep it so, as sort does */
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = cleanup_on_signal;
        sigfillset(&sa.sa_mask);
        if (sigaction(handled[i], &sa, NULL) != 0)
            return err_sys(GS_EIO, errno, "sigaction");
    }
    return GS_OK;
}

/* Block the handled signals around registry changes so a handler never sees a slot
 * mid-update from this thread. */
static void cleanup_block(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++)
        sigaddset(&set, handled[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static pthread_mutex_t cleanup_lock = PTHREAD_MUTEX_INITIALIZER;

int cleanup_register(const char *path)
{
    if (strlen(path) >= PATH_MAX)
        return err_set(GS_EIO, "%s: path too long", path), -1;
    sigset_t old;
    cleanup_block(&old);
    pthread_mutex_lock(&cleanup_lock);
    int slot = -1;
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        if (!slots[i].used) {
            strcpy(slots[i].path, path);
            slots[i].used = 1;
            slot = i;
            break;
        }
    }
    pthread_mutex_unlock(&cleanup_lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (slot < 0)
        err_set(GS_EIO, "too many temporary files");
    return slot;
}

void cleanup_forget(int slot)
{
    if (slot >= 0 && slot < CLEANUP_SLOTS)
        slots[slot].used = 0;
}

void cleanup_remove(int slot)
{
    if (slot < 0 || slot >= CLEANUP_SLOTS || !slots[slot].used)
        return;
    sigset_t old;
    cleanup_block(&old);
    unlink(slots[slot].path);
    slots[slot].used = 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void cleanup_remove_all(void)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        cleanup_remove(i);
}

int cleanup_sigpipe_ignored(void)
{
    return sigpipe_ignored;
}
