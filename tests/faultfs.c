/* faultfs.c: an LD_PRELOAD shim that makes writes under one directory fail, as a
 * full disk (ENOSPC) or a failing one (EIO) would, or that signals the process the
 * moment it creates a file there: for the tests of gpusort's error and cleanup paths.
 *
 * Environment:
 *   GS_FAULT_DIR=DIR          only files whose path (readlink /proc/self/fd/N) is DIR
 *                             or under it are affected; unset: the shim does nothing
 *   GS_FAULT_WRITE_AFTER=N    after N bytes written in total to such files, write(),
 *                             writev() and pwrite() on them fail; the write that
 *                             crosses N is cut short at N, as on a disk that fills up
 *                             mid-write (unset: writes never fail)
 *   GS_FAULT_ERRNO=ENOSPC|EIO the errno of the failures (default ENOSPC)
 *   GS_FAULT_SIGNAL=INT|TERM|HUP|PIPE|N
 *                             send this signal to the process (kill(getpid(), ...))
 *                             right after it creates its GS_FAULT_SIGNAL_AT'th file
 *                             under DIR (mkstemp, mkostemp, mkstemps, mkostemps, or
 *                             open/openat with O_CREAT), before the call returns: the
 *                             file exists and the program has not yet seen its name
 *   GS_FAULT_SIGNAL_AT=K      which creation (default 1, the first); once only
 *
 * Every other fd is passed straight through. The counts are shared by all threads
 * (atomics), so the limits hold however the program spreads its work. stdio in glibc
 * calls its own internal write, which this shim does not see; gpusort writes with
 * write(2) everywhere that matters.
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
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Configuration: written once by the constructor (before any thread of the program
 * exists), read-only afterwards. */
static char fault_dir[PATH_MAX];         /* the resolved directory, no trailing '/' */
static size_t fault_dir_len;             /* 0: the shim is off */
static uint64_t fault_after = UINT64_MAX;/* GS_FAULT_WRITE_AFTER */
static int fault_errno = ENOSPC;         /* GS_FAULT_ERRNO */
static int fault_signal;                 /* GS_FAULT_SIGNAL, or 0 */
static uint64_t fault_signal_at = 1;     /* GS_FAULT_SIGNAL_AT */

static _Atomic uint64_t fault_written;   /* bytes accounted to affected files */
static _Atomic uint64_t fault_creates;   /* files created under fault_dir */

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
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*mkstemp_fn)(char *);
typedef int (*mkostemp_fn)(char *, int);
typedef int (*mkstemps_fn)(char *, int);
typedef int (*mkostemps_fn)(char *, int, int);

static void *_Atomic real_write_p, *_Atomic real_pwrite_p, *_Atomic real_pwrite64_p,
    *_Atomic real_writev_p, *_Atomic real_open_p, *_Atomic real_open64_p,
    *_Atomic real_openat_p, *_Atomic real_openat64_p, *_Atomic real_mkstemp_p,
    *_Atomic real_mkostemp_p, *_Atomic real_mkstemps_p, *_Atomic real_mkostemps_p;

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

__attribute__((constructor)) static void fault_init(void)
{
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
    const char *e = getenv("GS_FAULT_ERRNO");
    fault_errno = e && !strcmp(e, "EIO") ? EIO : ENOSPC;
    const char *sig = getenv("GS_FAULT_SIGNAL");
    if (sig && *sig)
        fault_signal = fault_parse_signal(sig);
    const char *at = getenv("GS_FAULT_SIGNAL_AT");
    if (at && *at)
        fault_signal_at = strtoull(at, NULL, 10);
    fault_dir_len = len;
}

/* 1 if fd names a file at or under fault_dir. Keeps errno. */
static int fault_affects(int fd)
{
    if (fault_dir_len == 0 || fd < 0)
        return 0;
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    int saved = errno;
    ssize_t n = readlink(link, path, sizeof path - 1);
    errno = saved;
    if (n <= 0)
        return 0;
    path[n] = '\0';
    if (strncmp(path, fault_dir, fault_dir_len) != 0)
        return 0;
    if (fault_dir_len == 1)      /* "/": everything is under it */
        return 1;
    return path[fault_dir_len] == '/' || path[fault_dir_len] == '\0';
}

/* Account len bytes written to fd; the bytes that may be written (len, fewer, or 0
 * for a failure). Files outside fault_dir are not counted. */
static size_t fault_allow(int fd, size_t len)
{
    if (fault_after == UINT64_MAX || len == 0 || !fault_affects(fd))
        return len;
    uint64_t before = atomic_fetch_add(&fault_written, (uint64_t)len);
    if (before >= fault_after)
        return 0;
    uint64_t room = fault_after - before;
    return room < len ? (size_t)room : len;
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
    int fd = real(dirfd, path, flags, mode);
    return flags & O_CREAT ? fault_created(fd) : fd;
}

int mkstemp(char *tmpl)
{
    mkstemp_fn real = (mkstemp_fn)fault_real("mkstemp", &real_mkstemp_p);
    return fault_created(real(tmpl));
}

int mkostemp(char *tmpl, int flags)
{
    mkostemp_fn real = (mkostemp_fn)fault_real("mkostemp", &real_mkostemp_p);
    return fault_created(real(tmpl, flags));
}

int mkstemps(char *tmpl, int suffixlen)
{
    mkstemps_fn real = (mkstemps_fn)fault_real("mkstemps", &real_mkstemps_p);
    return fault_created(real(tmpl, suffixlen));
}

int mkostemps(char *tmpl, int suffixlen, int flags)
{
    mkostemps_fn real = (mkostemps_fn)fault_real("mkostemps", &real_mkostemps_p);
    return fault_created(real(tmpl, suffixlen, flags));
}
