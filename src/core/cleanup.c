/* cleanup.c: the temporary-file registry and the signal handlers that empty it.
 *
 * The registry is an array of slots that the signal handler walks with nothing but
 * unlink(2). A slot's `used` flag is set after its path is in place and cleared
 * before the path is freed, so the handler never reads a half-made path. The array
 * grows by doubling into a new array that is published whole; old arrays are never
 * freed, since a handler in another thread may still be walking one (they total
 * less than the last).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"

typedef struct {
    volatile sig_atomic_t used;     /* 1: path names a file to remove */
    char *path;
} slot_t;

static slot_t *volatile slots;       /* [nslots] */
static volatile int nslots;
static int sigpipe_ignored;          /* SIGPIPE was SIG_IGN at start */
static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/* Watched input mappings (cleanup_watch_map): a few at once, each with its message
 * made in advance, so the SIGBUS handler only compares and writes. */
#define CLEANUP_WATCHES 64
typedef struct {
    int taken;                      /* claimed (atomic) */
    volatile sig_atomic_t used;     /* 1: base, len and msg are in place */
    const char *base;
    size_t len;
    char msg[400];
    size_t msglen;
} watch_t;
static watch_t watches[CLEANUP_WATCHES];

static void cleanup_unlink_all(void)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_SEQ_CST);   /* the count first: */
    slot_t *sl = __atomic_load_n(&slots, __ATOMIC_SEQ_CST); /* its array is as large */
    for (int i = 0; i < n; i++)
        if (sl[i].used)
            unlink(sl[i].path);
}

static void cleanup_on_signal(int sig)
{
    int saved = errno;
    cleanup_unlink_all();
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

/* SIGBUS: in a watched input mapping, a read error of that file (exit 2); anywhere
 * else, the temporaries go and the fault, met again on return, takes its default
 * action. */
static void cleanup_on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    const char *addr = si->si_addr;
    cleanup_unlink_all();
    for (int i = 0; i < CLEANUP_WATCHES; i++) {
        watch_t *w = &watches[i];
        if (w->used && addr >= w->base && (size_t)(addr - w->base) < w->len) {
            ssize_t wr = write(STDERR_FILENO, w->msg, w->msglen);
            (void)wr;
            _exit(2);
        }
    }
    signal(sig, SIG_DFL);
}

int cleanup_watch_map(const void *base, size_t len, const char *name)
{
    for (int i = 0; i < CLEANUP_WATCHES; i++) {
        watch_t *w = &watches[i];
        int free_ = 0;
        if (!__atomic_compare_exchange_n(&w->taken, &free_, 1, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED))
            continue;
        w->base = base;
        w->len = len;
        int n = snprintf(w->msg, sizeof w->msg,
                         "gpusort: read error on '%.300s': the file was cut short while "
                         "being read, or a page of it could not be read\n", name);
        w->msglen = n < 0 ? 0 : (size_t)n < sizeof w->msg ? (size_t)n : sizeof w->msg - 1;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        w->used = 1;
        return i;
    }
    return -1;
}

void cleanup_unwatch_map(int watch)
{
    if (watch < 0)
        return;
    watches[watch].used = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&watches[watch].taken, 0, __ATOMIC_RELEASE);
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
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = cleanup_on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, NULL) != 0)
        return err_sys(GS_EIO, errno, "sigaction");
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
    char *copy = strdup(path);
    if (!copy)
        return err_set(GS_ENOMEM, "out of memory"), -1;
    sigset_t old;
    cleanup_block(&old);
    pthread_mutex_lock(&cleanup_lock);
    int slot = -1;
    for (int i = 0; i < nslots; i++) {
        if (!slots[i].used && !slots[i].path) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        int n = nslots ? 2 * nslots : 64;
        slot_t *grown = calloc((size_t)n, sizeof *grown);
        if (grown) {
            for (int i = 0; i < nslots; i++) {
                grown[i].path = slots[i].path;
                grown[i].used = slots[i].used;
            }
            slot = nslots;
            /* The array first, then the count: a handler that reads the count and
             * then the array never walks past the array's end. */
            __atomic_store_n(&slots, grown, __ATOMIC_SEQ_CST);
            __atomic_store_n(&nslots, n, __ATOMIC_SEQ_CST);
        }
    }
    if (slot >= 0) {
        slots[slot].path = copy;
        slots[slot].used = 1;
    }
    pthread_mutex_unlock(&cleanup_lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (slot < 0) {
        free(copy);
        err_set(GS_ENOMEM, "out of memory");
    }
    return slot;
}

/* Clear slot (its file removed first when remove); signals blocked by the caller. */
static void cleanup_clear(int slot, int remove)
{
    pthread_mutex_lock(&cleanup_lock);
    if (slot >= 0 && slot < nslots && slots[slot].path) {
        if (remove && slots[slot].used)
            unlink(slots[slot].path);
        slots[slot].used = 0;
        free(slots[slot].path);
        slots[slot].path = NULL;
    }
    pthread_mutex_unlock(&cleanup_lock);
}

void cleanup_forget(int slot)
{
    sigset_t old;
    cleanup_block(&old);
    cleanup_clear(slot, 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void cleanup_remove(int slot)
{
    sigset_t old;
    cleanup_block(&old);
    cleanup_clear(slot, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void cleanup_remove_all(void)
{
    for (int i = 0; i < nslots; i++)
        cleanup_remove(i);
}

/* The signals only the main thread takes. */
static void cleanup_async_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

void cleanup_block_signals(sigset_t *old)
{
    sigset_t set;
    cleanup_async_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void cleanup_unblock(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

int cleanup_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t old;
    cleanup_block_signals(&old);   /* the new thread inherits the mask */
    int rc = pthread_create(t, NULL, fn, arg);
    cleanup_unblock(&old);
    return rc;
}

int cleanup_mkstemp(char *template, int *slot)
{
    sigset_t old;
    cleanup_block(&old);
    int fd = mkostemp(template, O_CLOEXEC);
    int e = errno;
    *slot = -1;
    if (fd >= 0) {
        *slot = cleanup_register(template);
        if (*slot < 0) {
            unlink(template);
            close(fd);
            fd = -1;
            e = ENOMEM;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return fd;
}

int cleanup_sigpipe_ignored(void)
{
    return sigpipe_ignored;
}
