/* faultfs.c: an LD_PRELOAD shim that makes writes under one directory fail, as a
 * full disk (ENOSPC) or a failing one (EIO) would, for the tests of gpusort's error
 * paths.
 *
 * Environment:
 *   GS_FAULT_DIR=DIR          only files whose path (readlink /proc/self/fd/N) is DIR
 *                             or under it are affected; unset: the shim does nothing
 *   GS_FAULT_WRITE_AFTER=N    after N bytes written in total to such files, write(),
 *                             writev() and pwrite() on them fail (default 0); the
 *                             write that crosses N is cut short at N, as on a disk
 *                             that fills up mid-write
 *   GS_FAULT_ERRNO=ENOSPC|EIO the errno of the failures (default ENOSPC)
 *
 * Every other fd is passed straight through. The byte count is shared by all threads
 * (an atomic), so the limit holds however the program spreads its writes. stdio in
 * glibc calls its own internal write, which this shim does not see; gpusort writes
 * with write(2) everywhere that matters.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);

/* Configuration: written once by the constructor (before any thread of the program
 * exists), read-only afterwards. */
static char fault_dir[PATH_MAX];         /* the resolved directory, no trailing '/' */
static size_t fault_dir_len;             /* 0: the shim is off */
static uint64_t fault_after;             /* GS_FAULT_WRITE_AFTER */
static int fault_errno = ENOSPC;         /* GS_FAULT_ERRNO */

static _Atomic uint64_t fault_written;   /* bytes accounted to affected files */

/* The real functions, resolved on first use (a write may come before the
 * constructor, from another library's constructor). */
static _Atomic(write_fn) real_write_p;
static _Atomic(pwrite_fn) real_pwrite_p;
static _Atomic(pwrite64_fn) real_pwrite64_p;
static _Atomic(writev_fn) real_writev_p;

/* The next definition of name (libc's); a shim that cannot find it stops loudly. */
static void *fault_next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();
    return f;
}

static write_fn real_write(void)
{
    write_fn f = atomic_load(&real_write_p);
    if (!f) {
        f = (write_fn)fault_next("write");
        atomic_store(&real_write_p, f);
    }
    return f;
}

static pwrite_fn real_pwrite(void)
{
    pwrite_fn f = atomic_load(&real_pwrite_p);
    if (!f) {
        f = (pwrite_fn)fault_next("pwrite");
        atomic_store(&real_pwrite_p, f);
    }
    return f;
}

static pwrite64_fn real_pwrite64(void)
{
    pwrite64_fn f = atomic_load(&real_pwrite64_p);
    if (!f) {
        f = (pwrite64_fn)fault_next("pwrite64");
        atomic_store(&real_pwrite64_p, f);
    }
    return f;
}

static writev_fn real_writev(void)
{
    writev_fn f = atomic_load(&real_writev_p);
    if (!f) {
        f = (writev_fn)fault_next("writev");
        atomic_store(&real_writev_p, f);
    }
    return f;
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
    fault_after = after && *after ? strtoull(after, NULL, 10) : 0;
    const char *e = getenv("GS_FAULT_ERRNO");
    if (e && !strcmp(e, "EIO"))
        fault_errno = EIO;
    else
        fault_errno = ENOSPC;
    real_write();
    real_pwrite();
    real_pwrite64();
    real_writev();
    fault_dir_len = len;
}

/* 1 if fd names a file at or under fault_dir. */
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

/* Account len bytes to the affected files; the bytes that may still be written (len,
 * fewer, or 0 for a failure). */
static size_t fault_allow(size_t len)
{
    uint64_t before = atomic_fetch_add(&fault_written, (uint64_t)len);
    if (before >= fault_after)
        return 0;
    uint64_t room = fault_after - before;
    return room < len ? (size_t)room : len;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    if (len == 0 || !fault_affects(fd))
        return real_write()(fd, buf, len);
    size_t ok = fault_allow(len);
    if (ok == 0) {
        errno = fault_errno;
        return -1;
    }
    return real_write()(fd, buf, ok);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    if (len == 0 || !fault_affects(fd))
        return real_pwrite()(fd, buf, len, off);
    size_t ok = fault_allow(len);
    if (ok == 0) {
        errno = fault_errno;
        return -1;
    }
    return real_pwrite()(fd, buf, ok, off);
}

/* Programs built with _FILE_OFFSET_BITS=64 on 32-bit systems call pwrite64. */
ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
    if (len == 0 || !fault_affects(fd))
        return real_pwrite64()(fd, buf, len, off);
    size_t ok = fault_allow(len);
    if (ok == 0) {
        errno = fault_errno;
        return -1;
    }
    return real_pwrite64()(fd, buf, ok, off);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    if (!fault_affects(fd))
        return real_writev()(fd, iov, iovcnt);
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len == 0)
        return real_writev()(fd, iov, iovcnt);
    size_t ok = fault_allow(len);
    if (ok == 0) {
        errno = fault_errno;
        return -1;
    }
    if (ok == len)
        return real_writev()(fd, iov, iovcnt);
    /* Cut short: write the first ok bytes, as the disk filled up there. */
    ssize_t done = 0;
    for (int i = 0; i < iovcnt && ok > 0; i++) {
        size_t k = iov[i].iov_len < ok ? iov[i].iov_len : ok;
        ssize_t w = real_write()(fd, iov[i].iov_base, k);
        if (w < 0)
            return done ? done : -1;
        done += w;
        ok -= (size_t)w;
        if ((size_t)w < k)
            break;
    }
    return done;
}
