/* SPDX-License-Identifier: MIT */
/* faultfs.c: an LD_PRELOAD shim that makes the file system fail under one directory,
 * as a full disk (ENOSPC), a failing one (EIO) or a process out of descriptors
 * (EMFILE) would; that cuts reads short, down to one byte at a time, as a slow pipe
 * does; or that signals the process the moment it creates a file there: for the
 * tests of gpusort's error and cleanup paths.
 *
 * Environment:
 *   GS_FAULT_DIR=DIR          only files whose path (readlink /proc/self/fd/N, or
 *                             the path given to open) is DIR or under it are
 *                             affected; unset: the shim does nothing to files
 * Writes (write, writev, pwrite; and fallocate, whose bytes count as written):
 *   GS_FAULT_WRITE_AFTER=N    after N bytes written in total to such files, writes
 *                             to them fail; the write that crosses N is cut short at
 *                             N, as on a disk that fills up mid-write, and an
 *                             fallocate that crosses it fails whole (unset: writes
 *                             never fail)
 *   GS_FAULT_ERRNO=ENOSPC|EIO the errno of the failures (default ENOSPC)
 *   GS_FAULT_NO_FALLOCATE=1   fallocate of such files fails with EOPNOTSUPP, as on
 *                             a file system without it (gpusort then writes bytes
 *                             laid out ahead at their offsets, not mapped)
 * Reads (read, readv, pread):
 *   GS_FAULT_READ_PIPES=1     pipes and FIFOs (standard input from a pipe, say) are
 *                             affected too, wherever they are
 *   GS_FAULT_READ_MAX=N       each read returns at most N bytes (1: one at a time)
 *   GS_FAULT_READ_AFTER=N     after N bytes read in total from such files, reads
 *                             from them fail; the read that crosses N is cut short
 *   GS_FAULT_READ_ERRNO=EIO|ENOSPC|EMFILE  their errno (default EIO)
 *   GS_FAULT_READ_CUT=N       right before the first read from such a file (read,
 *                             pread; not a pipe), the file is cut to N bytes
 *                             (truncate(2)), once: as when another program cuts it
 *                             short after the reader measured its size
 * Mappings (mmap of such a file for reading, as gpusort reads a large text input, or
 * any private mapping of it):
 *   with any read setting above, or GS_FAULT_REPORT, they fail (ENODEV), so that
 *                             the program reads the file with read(2) or pread(2)
 *                             and the settings apply
 *   GS_FAULT_MAP_CUT=N        else, right after such a mapping is made, the file is
 *                             cut to N bytes (truncate(2)): a touch of the mapping
 *                             past it raises SIGBUS, as when another program cuts
 *                             the file short or a disk fails under a mapping
 * Opens and creations:
 *   GS_FAULT_OPEN_AT=K        the K'th open of an existing file under DIR (open or
 *                             openat without O_CREAT), and every later one, fails
 *   GS_FAULT_CREATE_AT=K      the K'th creation of a file under DIR (mkstemp,
 *                             mkostemp, mkstemps, mkostemps, or open/openat with
 *                             O_CREAT), and every later one, fails
 *   GS_FAULT_OPEN_ERRNO=EMFILE|ENFILE|EIO|ENOSPC  their errno (default EMFILE)
 * Signals:
 *   GS_FAULT_SIGNAL=INT|TERM|HUP|PIPE|N
 *                             send this signal to the process (kill(getpid(), ...))
 *                             right after it creates its GS_FAULT_SIGNAL_AT'th file
 *                             under DIR, before the call returns: the file exists
 *                             and the program has not yet seen its name
 *   GS_FAULT_SIGNAL_AT=K      which creation (default 1, the first); once only
 *   GS_FAULT_SIGNAL_WAIT=MS   then wait MS milliseconds before the call returns
 *                             (a slow creation: the signal's other handlers, on
 *                             other threads, have all the time they need)
 * Removals (unlink, unlinkat):
 *   GS_FAULT_UNLINK_WAIT=MS   after each file removed under DIR, wait MS
 *                             milliseconds before the call returns (a slow removal:
 *                             what other threads do while a cleanup removes its
 *                             files one after another is seen)
 * Counts:
 *   GS_FAULT_REPORT=FILE      at exit (a normal one), append to FILE one line
 *                             "creates C opens O read R written W": the creations
 *                             and opens tried under DIR, the bytes read from and
 *                             written to affected files; a test measures a clean run
 *                             with it to aim a fault at its last creation, say
 *
 * Every other fd is passed straight through. The counts are shared by all threads
 * (atomics), so the limits hold however the program spreads its work. stdio in glibc
 * calls its own internal read, write and open, which this shim does not see;
 * gpusort uses the system calls everywhere that matters. Built without sanitizers;
 * in a sanitizer build with a shared runtime, that runtime is preloaded first
 * (tests/cli/extlib.sh), and its interceptors call these.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Configuration: written once by the constructor (before any thread of the program
 * exists), read-only afterwards. */
static char fault_dir[PATH_MAX];         /* the resolved directory, no trailing '/' */
static size_t fault_dir_len;             /* 0: the shim is off */
static uint64_t fault_after = UINT64_MAX;/* GS_FAULT_WRITE_AFTER */
static int fault_errno = ENOSPC;         /* GS_FAULT_ERRNO */
static int fault_no_fallocate;           /* GS_FAULT_NO_FALLOCATE */
static int fault_signal;                 /* GS_FAULT_SIGNAL, or 0 */
static uint64_t fault_signal_at = 1;     /* GS_FAULT_SIGNAL_AT */
static long fault_signal_wait;           /* GS_FAULT_SIGNAL_WAIT, milliseconds */
static long fault_unlink_wait;           /* GS_FAULT_UNLINK_WAIT, milliseconds */
static int fault_read_pipes;             /* GS_FAULT_READ_PIPES */
static uint64_t fault_read_max;          /* GS_FAULT_READ_MAX, or 0 */
static uint64_t fault_read_after = UINT64_MAX; /* GS_FAULT_READ_AFTER */
static int fault_read_errno = EIO;       /* GS_FAULT_READ_ERRNO */
static uint64_t fault_open_at;           /* GS_FAULT_OPEN_AT, or 0 */
static uint64_t fault_create_at;         /* GS_FAULT_CREATE_AT, or 0 */
static int fault_open_errno = EMFILE;    /* GS_FAULT_OPEN_ERRNO */
static int fault_counting;               /* GS_FAULT_REPORT is set: count everything */
static uint64_t fault_map_cut = UINT64_MAX; /* GS_FAULT_MAP_CUT */
static uint64_t fault_read_cut = UINT64_MAX; /* GS_FAULT_READ_CUT */
static atomic_int fault_read_cut_done;

static _Atomic uint64_t fault_written;   /* bytes accounted to affected files */
static _Atomic uint64_t fault_creates;   /* files created under fault_dir */
static _Atomic uint64_t fault_read_bytes;/* bytes read from affected files */
static _Atomic uint64_t fault_opens;     /* opens of existing files under fault_dir */
static _Atomic uint64_t fault_create_tries; /* creations tried under fault_dir */

/* ------------------------------------------------------------------------------ */
/* The real functions                                                              */
/* ------------------------------------------------------------------------------ */

/* The next definition of name (libc's), cached in *cache: resolved on first use,
 * since a call may come before the constructor (from another library's). A shim
 * that cannot find it stops loudly. */
static void *fault_real(const char *name, void *_Atomic *cache)
{
    void *f = atomic_load(cache);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        if (!f)
            abort();
        atomic_store(cache, f);
    }
    return f;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pread64_fn)(int, void *, size_t, off64_t);
typedef ssize_t (*readv_fn)(int, const struct iovec *, int);
typedef ssize_t (*read_chk_fn)(int, void *, size_t, size_t);
typedef int (*fallocate_fn)(int, int, off_t, off_t);
typedef int (*fallocate64_fn)(int, int, off64_t, off64_t);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*mkstemp_fn)(char *);
typedef int (*mkostemp_fn)(char *, int);
typedef int (*mkstemps_fn)(char *, int);
typedef int (*mkostemps_fn)(char *, int, int);

static void *_Atomic real_fallocate_p, *_Atomic real_fallocate64_p;
static void *_Atomic real_write_p, *_Atomic real_pwrite_p, *_Atomic real_pwrite64_p,
    *_Atomic real_writev_p, *_Atomic real_open_p, *_Atomic real_open64_p,
    *_Atomic real_openat_p, *_Atomic real_openat64_p, *_Atomic real_mkstemp_p,
    *_Atomic real_mkostemp_p, *_Atomic real_mkstemps_p, *_Atomic real_mkostemps_p,
    *_Atomic real_read_p, *_Atomic real_pread_p, *_Atomic real_pread64_p,
    *_Atomic real_readv_p, *_Atomic real_read_chk_p;

/* ------------------------------------------------------------------------------ */
/* Configuration and the decisions                                                 */
/* ------------------------------------------------------------------------------ */

static int fault_parse_signal(const char *s)
{
    if (!strcmp(s, "INT")) return SIGINT;
    if (!strcmp(s, "TERM")) return SIGTERM;
    if (!strcmp(s, "HUP")) return SIGHUP;
    if (!strcmp(s, "PIPE")) return SIGPIPE;
    return atoi(s);
}

static int fault_parse_errno(const char *s, int dflt)
{
    if (!s || !*s) return dflt;
    if (!strcmp(s, "EIO")) return EIO;
    if (!strcmp(s, "ENOSPC")) return ENOSPC;
    if (!strcmp(s, "EMFILE")) return EMFILE;
    if (!strcmp(s, "ENFILE")) return ENFILE;
    return dflt;
}

static uint64_t fault_env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

__attribute__((constructor)) static void fault_init(void)
{
    const char *pipes = getenv("GS_FAULT_READ_PIPES");
    fault_read_pipes = pipes && !strcmp(pipes, "1");
    fault_read_max = fault_env_u64("GS_FAULT_READ_MAX", 0);
    fault_read_after = fault_env_u64("GS_FAULT_READ_AFTER", UINT64_MAX);
    fault_read_errno = fault_parse_errno(getenv("GS_FAULT_READ_ERRNO"), EIO);
    fault_open_at = fault_env_u64("GS_FAULT_OPEN_AT", 0);
    fault_create_at = fault_env_u64("GS_FAULT_CREATE_AT", 0);
    fault_open_errno = fault_parse_errno(getenv("GS_FAULT_OPEN_ERRNO"), EMFILE);
    fault_map_cut = fault_env_u64("GS_FAULT_MAP_CUT", UINT64_MAX);
    fault_read_cut = fault_env_u64("GS_FAULT_READ_CUT", UINT64_MAX);
    const char *report = getenv("GS_FAULT_REPORT");
    fault_counting = report && *report;
    const char *dir = getenv("GS_FAULT_DIR");
    if (!dir || !*dir)
        return;
    /* /proc/self/fd links hold resolved paths: compare with the resolved directory */
    if (!realpath(dir, fault_dir))
        snprintf(fault_dir, sizeof fault_dir, "%s", dir);
    size_t len = strlen(fault_dir);
    while (len > 1 && fault_dir[len - 1] == '/')
        fault_dir[--len] = '\0';
    const char *after = getenv("GS_FAULT_WRITE_AFTER");
    if (after && *after)
        fault_after = strtoull(after, NULL, 10);
    fault_errno = fault_parse_errno(getenv("GS_FAULT_ERRNO"), ENOSPC);
    const char *nofa = getenv("GS_FAULT_NO_FALLOCATE");
    fault_no_fallocate = nofa && !strcmp(nofa, "1");
    const char *sig = getenv("GS_FAULT_SIGNAL");
    if (sig && *sig)
        fault_signal = fault_parse_signal(sig);
    const char *at = getenv("GS_FAULT_SIGNAL_AT");
    if (at && *at)
        fault_signal_at = strtoull(at, NULL, 10);
    const char *wait = getenv("GS_FAULT_SIGNAL_WAIT");
    if (wait && *wait)
        fault_signal_wait = strtol(wait, NULL, 10);
    const char *uwait = getenv("GS_FAULT_UNLINK_WAIT");
    if (uwait && *uwait)
        fault_unlink_wait = strtol(uwait, NULL, 10);
    fault_dir_len = len;
}

/* 1 if the resolved path is fault_dir or under it. */
static int fault_under(const char *path)
{
    if (fault_dir_len == 0 || strncmp(path, fault_dir, fault_dir_len) != 0)
        return 0;
    if (fault_dir_len == 1)      /* "/": everything is under it */
        return 1;
    return path[fault_dir_len] == '/' || path[fault_dir_len] == '\0';
}

/* GS_FAULT_REPORT: the counts, at a normal exit. */
__attribute__((destructor)) static void fault_report(void)
{
    const char *path = getenv("GS_FAULT_REPORT");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    fprintf(f, "creates %llu opens %llu read %llu written %llu\n",
            (unsigned long long)atomic_load(&fault_create_tries),
            (unsigned long long)atomic_load(&fault_opens),
            (unsigned long long)atomic_load(&fault_read_bytes),
            (unsigned long long)atomic_load(&fault_written));
    fclose(f);
}

/* The path fd names (readlink of /proc/self/fd/N) into path[PATH_MAX]: 1, or 0
 * where it has none. Keeps errno. */
static int fault_fd_path(int fd, char *path)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int saved = errno;
    ssize_t n = readlink(link, path, PATH_MAX - 1);
    errno = saved;
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return 1;
}

/* 1 if fd names a file at or under fault_dir. Keeps errno. */
static int fault_affects(int fd)
{
    if (fault_dir_len == 0 || fd < 0)
        return 0;
    char path[PATH_MAX];
    return fault_fd_path(fd, path) && fault_under(path);
}

/* 1 if path (relative to dirfd, AT_FDCWD for the working directory) names a file
 * at or under fault_dir: the file itself resolved where it exists, else its
 * directory (a file about to be created). Keeps errno. */
static int fault_path_affects(int dirfd, const char *path)
{
    if (fault_dir_len == 0 || !path)
        return 0;
    int saved = errno;
    char full[PATH_MAX], res[PATH_MAX];
    if (path[0] != '/' && dirfd != AT_FDCWD)
        snprintf(full, sizeof full, "/proc/self/fd/%d/%s", dirfd, path);
    else
        snprintf(full, sizeof full, "%s", path);
    int hit = 0;
    if (realpath(full, res)) {
        hit = fault_under(res);
    } else {
        char *slash = strrchr(full, '/');
        if (!slash)
            hit = realpath(".", res) && fault_under(res);
        else if (slash == full)
            hit = fault_under(strcpy(res, "/"));
        else {
            *slash = '\0';
            hit = realpath(full, res) && fault_under(res);
        }
    }
    errno = saved;
    return hit;
}

/* 1 if reads from fd are affected: a file under fault_dir, or with
 * GS_FAULT_READ_PIPES a pipe or FIFO. Keeps errno. */
static int fault_read_affects(int fd)
{
    if (fault_read_pipes) {
        struct stat st;
        int saved = errno;
        int fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
        errno = saved;
        if (fifo)
            return 1;
    }
    return fault_affects(fd);
}

/* How many of len bytes a read from fd may ask for: len, fewer (GS_FAULT_READ_MAX,
 * or GS_FAULT_READ_AFTER's limit near), or 0 for a failure. Under the limit the
 * bytes are reserved before the read (*held), so that reads in several threads at
 * once cannot pass it together; fault_read_done() gives back what was not read. */
static size_t fault_read_allow(int fd, size_t len, uint64_t *held)
{
    *held = 0;
    if (fault_read_cut != UINT64_MAX && len > 0 && fault_affects(fd)) {
        char path[PATH_MAX];
        int saved = errno;
        if (!atomic_exchange(&fault_read_cut_done, 1) && fault_fd_path(fd, path) &&
            truncate(path, (off_t)fault_read_cut) != 0)
            abort();   /* the test would not test what it says */
        errno = saved;
    }
    if ((fault_read_max == 0 && fault_read_after == UINT64_MAX) || len == 0 ||
        !fault_read_affects(fd))
        return len;
    if (fault_read_max && len > fault_read_max)
        len = (size_t)fault_read_max;
    if (fault_read_after != UINT64_MAX) {
        uint64_t before = atomic_load(&fault_read_bytes), take;
        do {
            if (before >= fault_read_after)
                return 0;
            take = fault_read_after - before < len ? fault_read_after - before : len;
        } while (!atomic_compare_exchange_weak(&fault_read_bytes, &before, before + take));
        *held = take;
        return (size_t)take;
    }
    return len;
}

/* A read from fd returned got: give back what was held and not read; without a
 * limit, count it for GS_FAULT_REPORT (affected files only). Keeps errno. */
static void fault_read_done(int fd, uint64_t held, ssize_t got)
{
    uint64_t n = got > 0 ? (uint64_t)got : 0;
    if (held) {
        if (n < held)
            atomic_fetch_sub(&fault_read_bytes, held - n);
        return;
    }
    if (n && fault_counting && fault_read_after == UINT64_MAX) {
        int saved = errno;
        if (fault_read_affects(fd))
            atomic_fetch_add(&fault_read_bytes, n);
        errno = saved;
    }
}

/* 1 if this open (of an existing file: create == 0) or creation under fault_dir
 * must fail, as GS_FAULT_OPEN_AT / GS_FAULT_CREATE_AT say; then errno is set. */
static int fault_open_fails(int dirfd, const char *path, int create)
{
    uint64_t at = create ? fault_create_at : fault_open_at;
    if ((at == 0 && !fault_counting) || !fault_path_affects(dirfd, path))
        return 0;
    _Atomic uint64_t *count = create ? &fault_create_tries : &fault_opens;
    if (atomic_fetch_add(count, 1) + 1 < at || at == 0)
        return 0;
    errno = fault_open_errno;
    return 1;
}

/* Account len bytes written to fd; the bytes that may be written (len, fewer, or 0
 * for a failure). Files outside fault_dir are not counted. */
static size_t fault_allow(int fd, size_t len)
{
    if ((fault_after == UINT64_MAX && !fault_counting) || len == 0 || !fault_affects(fd))
        return len;
    uint64_t before = atomic_fetch_add(&fault_written, (uint64_t)len);
    if (before >= fault_after)
        return 0;
    uint64_t room = fault_after - before;
    return room < len ? (size_t)room : len;
}

/* Sleep ms milliseconds, whatever signals come. Keeps errno. */
static void fault_sleep(long ms)
{
    int saved = errno;
    struct timespec left = {ms / 1000, ms % 1000 * 1000000};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
    errno = saved;
}

/* fd was just created: signal the process if it is the one GS_FAULT_SIGNAL_AT names.
 * Returns fd; keeps errno. */
static int fault_created(int fd)
{
    if (fd < 0 || !fault_signal || !fault_affects(fd))
        return fd;
    if (atomic_fetch_add(&fault_creates, 1) + 1 == fault_signal_at) {
        int saved = errno;
        kill(getpid(), fault_signal);
        errno = saved;
        fault_sleep(fault_signal_wait);
    }
    return fd;
}

/* ------------------------------------------------------------------------------ */
/* Writes                                                                          */
/* ------------------------------------------------------------------------------ */

ssize_t write(int fd, const void *buf, size_t len)
{
    write_fn real = (write_fn)fault_real("write", &real_write_p);
    size_t ok = fault_allow(fd, len);
    if (ok == 0 && len > 0) {
        errno = fault_errno;
        return -1;
    }
    return real(fd, buf, ok);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    pwrite_fn real = (pwrite_fn)fault_real("pwrite", &real_pwrite_p);
    size_t ok = fault_allow(fd, len);
    if (ok == 0 && len > 0) {
        errno = fault_errno;
        return -1;
    }
    return real(fd, buf, ok, off);
}

/* Programs built with _FILE_OFFSET_BITS=64 on 32-bit systems call pwrite64. */
ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
    pwrite64_fn real = (pwrite64_fn)fault_real("pwrite64", &real_pwrite64_p);
    size_t ok = fault_allow(fd, len);
    if (ok == 0 && len > 0) {
        errno = fault_errno;
        return -1;
    }
    return real(fd, buf, ok, off);
}

/* Space given to a file counts as written: a full disk refuses it whole; none is
 * given where the file system "has no fallocate". */
int fallocate(int fd, int mode, off_t off, off_t len)
{
    fallocate_fn real = (fallocate_fn)fault_real("fallocate", &real_fallocate_p);
    if (fault_no_fallocate && fault_affects(fd)) {
        errno = EOPNOTSUPP;
        return -1;
    }
    if (len > 0 && fault_allow(fd, (size_t)len) < (size_t)len) {
        errno = fault_errno;
        return -1;
    }
    return real(fd, mode, off, len);
}

int fallocate64(int fd, int mode, off64_t off, off64_t len)
{
    fallocate64_fn real = (fallocate64_fn)fault_real("fallocate64", &real_fallocate64_p);
    if (fault_no_fallocate && fault_affects(fd)) {
        errno = EOPNOTSUPP;
        return -1;
    }
    if (len > 0 && fault_allow(fd, (size_t)len) < (size_t)len) {
        errno = fault_errno;
        return -1;
    }
    return real(fd, mode, off, len);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    writev_fn real = (writev_fn)fault_real("writev", &real_writev_p);
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    size_t ok = fault_allow(fd, len);
    if (ok == len)
        return real(fd, iov, iovcnt);
    if (ok == 0) {
        errno = fault_errno;
        return -1;
    }
    /* Cut short: write the first ok bytes, as the disk filled up there. */
    write_fn w1 = (write_fn)fault_real("write", &real_write_p);
    ssize_t done = 0;
    for (int i = 0; i < iovcnt && ok > 0; i++) {
        size_t k = iov[i].iov_len < ok ? iov[i].iov_len : ok;
        ssize_t w = w1(fd, iov[i].iov_base, k);
        if (w < 0)
            return done ? done : -1;
        done += w;
        ok -= (size_t)w;
        if ((size_t)w < k)
            break;
    }
    return done;
}

/* ------------------------------------------------------------------------------ */
/* Reads                                                                           */
/* ------------------------------------------------------------------------------ */

ssize_t read(int fd, void *buf, size_t len)
{
    read_fn real = (read_fn)fault_real("read", &real_read_p);
    uint64_t held;
    size_t ok = fault_read_allow(fd, len, &held);
    if (ok == 0 && len > 0) {
        errno = fault_read_errno;
        return -1;
    }
    ssize_t got = real(fd, buf, ok);
    fault_read_done(fd, held, got);
    return got;
}

/* A fortified build's read (_FORTIFY_SOURCE) comes here. */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
    read_chk_fn real = (read_chk_fn)fault_real("__read_chk", &real_read_chk_p);
    uint64_t held;
    size_t ok = fault_read_allow(fd, len, &held);
    if (ok == 0 && len > 0) {
        errno = fault_read_errno;
        return -1;
    }
    ssize_t got = real(fd, buf, ok, buflen);
    fault_read_done(fd, held, got);
    return got;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
    pread_fn real = (pread_fn)fault_real("pread", &real_pread_p);
    uint64_t held;
    size_t ok = fault_read_allow(fd, len, &held);
    if (ok == 0 && len > 0) {
        errno = fault_read_errno;
        return -1;
    }
    ssize_t got = real(fd, buf, ok, off);
    fault_read_done(fd, held, got);
    return got;
}

ssize_t pread64(int fd, void *buf, size_t len, off64_t off)
{
    pread64_fn real = (pread64_fn)fault_real("pread64", &real_pread64_p);
    uint64_t held;
    size_t ok = fault_read_allow(fd, len, &held);
    if (ok == 0 && len > 0) {
        errno = fault_read_errno;
        return -1;
    }
    ssize_t got = real(fd, buf, ok, off);
    fault_read_done(fd, held, got);
    return got;
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
    readv_fn real = (readv_fn)fault_real("readv", &real_readv_p);
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    uint64_t held;
    size_t ok = fault_read_allow(fd, len, &held);
    ssize_t got;
    if (ok == len) {
        got = real(fd, iov, iovcnt);
    } else if (ok == 0) {
        errno = fault_read_errno;
        return -1;
    } else {
        /* Cut short: read into the first buffer only, at most ok bytes. */
        read_fn r1 = (read_fn)fault_real("read", &real_read_p);
        int i = 0;
        while (i < iovcnt && iov[i].iov_len == 0)
            i++;
        size_t k = iov[i].iov_len < ok ? iov[i].iov_len : ok;
        got = r1(fd, iov[i].iov_base, k);
    }
    fault_read_done(fd, held, got);
    return got;
}

/* ------------------------------------------------------------------------------ */
/* Creations                                                                       */
/* ------------------------------------------------------------------------------ */

/* 1 if open(2) with flags takes a mode argument: with O_CREAT or O_TMPFILE. */
static int fault_needs_mode(int flags)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int open(const char *path, int flags, ...)
{
    open_fn real = (open_fn)fault_real("open", &real_open_p);
    int mode = 0;
    if (fault_needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    if (fault_open_fails(AT_FDCWD, path, (flags & O_CREAT) != 0))
        return -1;
    int fd = real(path, flags, mode);
    return flags & O_CREAT ? fault_created(fd) : fd;
}

int open64(const char *path, int flags, ...)
{
    open_fn real = (open_fn)fault_real("open64", &real_open64_p);
    int mode = 0;
    if (fault_needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    if (fault_open_fails(AT_FDCWD, path, (flags & O_CREAT) != 0))
        return -1;
    int fd = real(path, flags, mode);
    return flags & O_CREAT ? fault_created(fd) : fd;
}

int openat(int dirfd, const char *path, int flags, ...)
{
    openat_fn real = (openat_fn)fault_real("openat", &real_openat_p);
    int mode = 0;
    if (fault_needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    if (fault_open_fails(dirfd, path, (flags & O_CREAT) != 0))
        return -1;
    int fd = real(dirfd, path, flags, mode);
    return flags & O_CREAT ? fault_created(fd) : fd;
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    openat_fn real = (openat_fn)fault_real("openat64", &real_openat64_p);
    int mode = 0;
    if (fault_needs_mode(flags)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, int);
        va_end(ap);
    }
    if (fault_open_fails(dirfd, path, (flags & O_CREAT) != 0))
        return -1;
    int fd = real(dirfd, path, flags, mode);
    return flags & O_CREAT ? fault_created(fd) : fd;
}

int mkstemp(char *tmpl)
{
    mkstemp_fn real = (mkstemp_fn)fault_real("mkstemp", &real_mkstemp_p);
    if (fault_open_fails(AT_FDCWD, tmpl, 1))
        return -1;
    return fault_created(real(tmpl));
}

int mkostemp(char *tmpl, int flags)
{
    mkostemp_fn real = (mkostemp_fn)fault_real("mkostemp", &real_mkostemp_p);
    if (fault_open_fails(AT_FDCWD, tmpl, 1))
        return -1;
    return fault_created(real(tmpl, flags));
}

int mkstemps(char *tmpl, int suffixlen)
{
    mkstemps_fn real = (mkstemps_fn)fault_real("mkstemps", &real_mkstemps_p);
    if (fault_open_fails(AT_FDCWD, tmpl, 1))
        return -1;
    return fault_created(real(tmpl, suffixlen));
}

int mkostemps(char *tmpl, int suffixlen, int flags)
{
    mkostemps_fn real = (mkostemps_fn)fault_real("mkostemps", &real_mkostemps_p);
    if (fault_open_fails(AT_FDCWD, tmpl, 1))
        return -1;
    return fault_created(real(tmpl, suffixlen, flags));
}

/* ------------------------------------------------------------------------------ */
/* Removals                                                                        */
/* ------------------------------------------------------------------------------ */

typedef int (*unlink_fn)(const char *);
typedef int (*unlinkat_fn)(int, const char *, int);
static void *_Atomic real_unlink_p;
static void *_Atomic real_unlinkat_p;

/* path (relative to dirfd) was just removed (rc 0): GS_FAULT_UNLINK_WAIT. */
static int fault_removed(int dirfd, const char *path, int rc)
{
    if (rc == 0 && fault_unlink_wait > 0 && fault_path_affects(dirfd, path))
        fault_sleep(fault_unlink_wait);
    return rc;
}

int unlink(const char *path)
{
    unlink_fn real = (unlink_fn)fault_real("unlink", &real_unlink_p);
    return fault_removed(AT_FDCWD, path, real(path));
}

int unlinkat(int dirfd, const char *path, int flags)
{
    unlinkat_fn real = (unlinkat_fn)fault_real("unlinkat", &real_unlinkat_p);
    return fault_removed(dirfd, path, real(dirfd, path, flags));
}

/* ------------------------------------------------------------------------------ */
/* Mappings                                                                        */
/* ------------------------------------------------------------------------------ */

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
static void *_Atomic real_mmap_p;
static void *_Atomic real_mmap64_p;

/* A mapping for reading of an affected file: refused where reads are faulted or
 * counted, or made and the file then cut short (GS_FAULT_MAP_CUT). */
static void *fault_mmap(mmap_fn real, void *addr, size_t len, int prot, int flags, int fd,
                        off_t off)
{
    /* A shared writable mapping writes the file (placed output); a private one,
     * writable or not, only reads it (a records input, mapped as its table's arena). */
    if (fd < 0 || ((prot & PROT_WRITE) && (flags & MAP_SHARED)) || !fault_affects(fd))
        return real(addr, len, prot, flags, fd, off);
    if (fault_read_max || fault_read_after != UINT64_MAX || fault_read_cut != UINT64_MAX ||
        fault_counting) {
        errno = ENODEV;
        return MAP_FAILED;
    }
    void *m = real(addr, len, prot, flags, fd, off);
    char path[PATH_MAX];
    if (m != MAP_FAILED && fault_map_cut != UINT64_MAX && fault_fd_path(fd, path)) {
        int saved = errno;
        if (truncate(path, (off_t)fault_map_cut) != 0)
            abort();   /* the test would not test what it says */
        errno = saved;
    }
    return m;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return fault_mmap((mmap_fn)fault_real("mmap", &real_mmap_p), addr, len, prot, flags, fd,
                      off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    return fault_mmap((mmap_fn)fault_real("mmap64", &real_mmap64_p), addr, len, prot, flags,
                      fd, (off_t)off);
}
