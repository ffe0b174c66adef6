/* SPDX-License-Identifier: MIT */
/* cleanup.c: the temporary-file registry and the signals that empty it (see
 * cleanup.h).
 *
 * The registry is an array of slots, each a directory descriptor and a name, changed
 * under cleanup_lock. The signal thread takes that lock too, so it never sees a file
 * created and not yet registered; the asynchronous signals' handler, which runs on
 * the signal thread (SIGPIPE and SIGXFSZ on the thread that wrote, which may be
 * inside cleanup_create()), only hands the signal to it through a pipe. The fault
 * handlers cannot take the lock (the faulting thread may hold it): they walk the
 * array with nothing but unlinkat(2), which is why a slot's `used` flag is set after
 * its name is in place and cleared before the name is freed, and why the array
 * grows by doubling into a new array published whole, the old ones never freed
 * (they total less than the last).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/error.h"

typedef struct {
    volatile sig_atomic_t used;     /* 1: name (relative to dirfd) is a file to remove */
    int dirfd;
    char *name;
} slot_t;

static slot_t *volatile slots;       /* [nslots] */
static volatile int nslots;
static pthread_mutex_t cleanup_lock = PTHREAD_MUTEX_INITIALIZER;
static int sigpipe_ignored;          /* SIGPIPE was SIG_IGN at start */
static int sigxfsz_handled;          /* SIGXFSZ has our handler (not ignored at start) */
static int signal_pipe[2] = { -1, -1 };  /* the handler writes a signal, the thread reads */
static uint64_t name_state;          /* random names (under cleanup_lock) */

/* The asynchronous signals whose default action ends the process (besides the
 * real-time ones, added in cleanup_init). */
static const int async_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU,
    SIGXFSZ, SIGVTALRM, SIGPROF,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
#ifdef SIGIO
    SIGIO,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
};

/* The faults: raised by the thread that faulted, so never blocked. A sanitizer build
 * leaves those it reports itself to it. */
static const int fault_signals[] = {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    SIGSEGV, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
#endif
    SIGSYS,
};

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

/* ---- removing ------------------------------------------------------------------------ */

/* Unlink every registered file: with only async-signal-safe calls, so that a fault
 * handler may call it (the lock held or not). */
static void cleanup_unlink_all(void)
{
    int n = __atomic_load_n(&nslots, __ATOMIC_SEQ_CST);   /* the count first: */
    slot_t *sl = __atomic_load_n(&slots, __ATOMIC_SEQ_CST); /* its array is as large */
    for (int i = 0; i < n; i++)
        if (sl[i].used)
            unlinkat(sl[i].dirfd, sl[i].name, 0);
}

void cleanup_die(int sig)
{
    pthread_mutex_lock(&cleanup_lock);   /* kept: nothing is registered any more */
    cleanup_unlink_all();
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig);   /* where its default action did not end the process */
}

/* The signal thread: each asynchronous signal handed to it ends the process, the
 * files removed. */
static void *cleanup_signal_main(void *arg)
{
    (void)arg;
    for (;;) {
        unsigned char sig;
        ssize_t n = read(signal_pipe[0], &sig, 1);
        if (n == 1)
            cleanup_die(sig);
        if (n == 0 || (n < 0 && errno != EINTR))
            return NULL;   /* cannot happen: the write end is never closed */
    }
}

/* An asynchronous signal, on the signal thread (or, for SIGPIPE and SIGXFSZ, on the
 * thread that wrote): handed to the signal thread. */
static void cleanup_on_signal(int sig)
{
    int saved = errno;
    unsigned char c = (unsigned char)sig;
    ssize_t n = write(signal_pipe[1], &c, 1);
    (void)n;
    errno = saved;
}

/* A fault: the registered files go, and the fault, raised again on return (or still
 * pending, where kill(2) sent it), takes its default action. */
static void cleanup_on_fault(int sig)
{
    int saved = errno;
    cleanup_unlink_all();
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

/* SIGBUS: in a watched input mapping, a read error of that file (exit 2); anywhere
 * else, as any fault. */
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

/* ---- the signals ------------------------------------------------------------------- */

/* 1 if sig was ignored when gpusort started. */
static int cleanup_ignored(int sig)
{
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

static int cleanup_handle(int sig, void (*fn)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = flags;
    sigfillset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL) == 0 ? GS_OK : err_sys(GS_EIO, errno, "sigaction");
}

/* The flags of the asynchronous signals' handler. SA_RESTART, so that a signal never
 * turns into an EINTR error in a thread that meets it before the signal thread ends
 * the process. Not under ThreadSanitizer: its runtime runs a handler only when the
 * intercepted call it arrived in returns, and a read(2) restarted on an idle pipe
 * never returns; without SA_RESTART the read fails with EINTR (fdio retries it)
 * and the handler runs then. */
#if defined(__SANITIZE_THREAD__)
#define CLEANUP_ASYNC_FLAGS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CLEANUP_ASYNC_FLAGS 0
#endif
#endif
#ifndef CLEANUP_ASYNC_FLAGS
#define CLEANUP_ASYNC_FLAGS SA_RESTART
#endif

int cleanup_init(void)
{
    if (pipe2(signal_pipe, O_CLOEXEC) != 0)
        return err_sys(GS_EIO, errno, "pipe");
    pthread_t t;
    int e = cleanup_thread_create(&t, cleanup_signal_main, NULL);
    if (e)
        return err_sys(GS_EIO, e, "cannot create threads");
    pthread_detach(t);
    name_state = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL) ^ (uintptr_t)&t;
    sigset_t block;
    sigemptyset(&block);
    int nasync = (int)(sizeof async_signals / sizeof async_signals[0]);
    for (int i = 0; i < nasync + (SIGRTMAX - SIGRTMIN + 1); i++) {
        int sig = i < nasync ? async_signals[i] : SIGRTMIN + (i - nasync);
        if (cleanup_ignored(sig)) {
            if (sig == SIGPIPE)
                sigpipe_ignored = 1;
            continue;   /* ignored by our parent: kept so, as sort does */
        }
        if (sig == SIGXFSZ)
            sigxfsz_handled = 1;
        int rc = cleanup_handle(sig, cleanup_on_signal, CLEANUP_ASYNC_FLAGS);
        if (rc)
            return rc;
        if (sig != SIGPIPE && sig != SIGXFSZ)
            sigaddset(&block, sig);
    }
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++) {
        int rc = cleanup_ignored(fault_signals[i]) ? GS_OK
                                                    : cleanup_handle(fault_signals[i],
                                                                     cleanup_on_fault, 0);
        if (rc)
            return rc;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = cleanup_on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigfillset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, NULL) != 0)
        return err_sys(GS_EIO, errno, "sigaction");
    /* Blocked in this thread and so in every thread it starts from now on: a signal
     * sent to the process goes to the signal thread, the one thread that takes it.
     * Left to any thread, it may meet one in a long loop, and a sanitizer's runtime
     * defers a handler there until the thread's next intercepted call. SIGPIPE and
     * SIGXFSZ stay open: the kernel sends them to the thread whose write failed. */
    e = pthread_sigmask(SIG_BLOCK, &block, NULL);
    if (e)
        return err_sys(GS_EIO, e, "pthread_sigmask");
    return GS_OK;
}

int cleanup_sigpipe_ignored(void)
{
    return sigpipe_ignored;
}

void cleanup_file_too_large(void)
{
    struct rlimit rl;
    if (sigxfsz_handled && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        cleanup_die(SIGXFSZ);
}

/* The threads' stack: small, since gpusort keeps its buffers on the heap (and many
 * threads of the default 8 MiB would take much of an address space that `ulimit -v`
 * bounds). */
#define CLEANUP_STACK ((size_t)1 << 20)

int cleanup_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int e = pthread_attr_init(&attr);
    if (e)
        return e;
    pthread_attr_setstacksize(&attr, CLEANUP_STACK);
    e = pthread_create(t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return e;
}

/* ---- the registry -------------------------------------------------------------------- */

/* A free slot, the array grown where there is none; -1 when out of memory. Under
 * cleanup_lock. */
static int cleanup_free_slot(void)
{
    for (int i = 0; i < nslots; i++)
        if (!slots[i].used && !slots[i].name)
            return i;
    int n = nslots ? 2 * nslots : 64;
    slot_t *grown = calloc((size_t)n, sizeof *grown);
    if (!grown)
        return -1;
    for (int i = 0; i < nslots; i++) {
        grown[i].dirfd = slots[i].dirfd;
        grown[i].name = slots[i].name;
        grown[i].used = slots[i].used;
    }
    int slot = nslots;
    /* The array first, then the count: a fault handler that reads the count and then
     * the array never walks past the array's end. */
    __atomic_store_n(&slots, grown, __ATOMIC_SEQ_CST);
    __atomic_store_n(&nslots, n, __ATOMIC_SEQ_CST);
    return slot;
}

/* prefix followed by 12 random letters and digits, malloc'ed; NULL when out of
 * memory. Under cleanup_lock. */
static char *cleanup_name(const char *prefix)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    size_t len = strlen(prefix);
    char *name = malloc(len + 13);
    if (!name)
        return NULL;
    memcpy(name, prefix, len);
    uint64_t z = (name_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (int i = 0; i < 12; i++, z /= 62)
        name[len + i] = abc[z % 62];
    name[len + 12] = '\0';
    return name;
}

int cleanup_create(int dirfd, const char *prefix, char **name, int *slot)
{
    *name = NULL;
    *slot = -1;
    int fd = -1, e = ENOMEM;
    pthread_mutex_lock(&cleanup_lock);
    int s = cleanup_free_slot();
    for (int tries = 0; s >= 0 && tries < 100; tries++) {
        char *n = cleanup_name(prefix);
        if (!n)
            break;
        fd = openat(dirfd, n, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0 && !(*name = strdup(n))) {   /* the caller's copy */
            unlinkat(dirfd, n, 0);
            close(fd);
            fd = -1;
            free(n);
            break;
        }
        if (fd >= 0) {
            slots[s].dirfd = dirfd;
            slots[s].name = n;
            slots[s].used = 1;
            *slot = s;
            break;
        }
        e = errno;
        free(n);
        if (e != EEXIST)
            break;
    }
    pthread_mutex_unlock(&cleanup_lock);
    if (fd < 0)
        errno = e;
    return fd;
}

/* Clear slot, its file removed first when remove. */
static void cleanup_clear(int slot, int remove)
{
    pthread_mutex_lock(&cleanup_lock);
    if (slot >= 0 && slot < nslots && slots[slot].name) {
        if (remove && slots[slot].used)
            unlinkat(slots[slot].dirfd, slots[slot].name, 0);
        slots[slot].used = 0;
        free(slots[slot].name);
        slots[slot].name = NULL;
    }
    pthread_mutex_unlock(&cleanup_lock);
}

/* Where name (relative to dirfd) is a regular file, swap it with from in one step
 * (renameat2 with RENAME_EXCHANGE): name is the old file or the new one at every
 * moment, as with rename(), and ext4 does not write the new file out first, which it
 * does when a rename replaces a file (its auto_da_alloc). 1 when swapped; 0 where
 * name does not exist or the call is not supported. */
static int cleanup_exchange(int dirfd, const char *from, const char *name)
{
#if defined(SYS_renameat2) && defined(RENAME_EXCHANGE)
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return 0;
    return syscall(SYS_renameat2, dirfd, from, dirfd, name, RENAME_EXCHANGE) == 0;
#else
    (void)dirfd, (void)from, (void)name;
    return 0;
#endif
}

int cleanup_rename_over(int slot, const char *name)
{
    int e = 0;
    pthread_mutex_lock(&cleanup_lock);
    if (slot < 0 || slot >= nslots || !slots[slot].used) {
        e = EINVAL;
    } else if (cleanup_exchange(slots[slot].dirfd, slots[slot].name, name)) {
        /* The old file now has the slot's name: removed with it. */
        unlinkat(slots[slot].dirfd, slots[slot].name, 0);
    } else if (renameat(slots[slot].dirfd, slots[slot].name, slots[slot].dirfd, name) != 0) {
        e = errno;
    }
    if (e == 0) {
        slots[slot].used = 0;
        free(slots[slot].name);
        slots[slot].name = NULL;
    }
    pthread_mutex_unlock(&cleanup_lock);
    return e;
}

void cleanup_forget(int slot)
{
    cleanup_clear(slot, 0);
}

void cleanup_remove(int slot)
{
    cleanup_clear(slot, 1);
}

void cleanup_remove_all(void)
{
    for (int i = 0; i < nslots; i++)
        cleanup_remove(i);
}
