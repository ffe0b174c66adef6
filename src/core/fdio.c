/* SPDX-License-Identifier: MIT */
/* fdio.c: whole reads and writes on a descriptor, a read shared among a pool's
 * threads (see fdio.h). */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/fdio.h"
#include "core/tuning.h"

int fdio_write(int fd, const void *buf, size_t len, int64_t off, size_t *done)
{
    const char *p = buf;
    size_t got = 0;
    int e = 0;
    while (got < len) {
        ssize_t n = off < 0 ? write(fd, p + got, len - got)
                            : pwrite(fd, p + got, len - got, (off_t)(off + (int64_t)got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = errno;
            break;
        }
        got += (size_t)n;
    }
    if (done)
        *done = got;
    return e;
}

/* One fdio_read_pool(): the pieces, and the first that came short. */
typedef struct {
    int fd;
    char *dst;
    size_t len, piece, npieces;
    int64_t off;
    pthread_mutex_t lock;    /* over the two below: short pieces are rare (one a
                                thread at most) */
    size_t short_p;          /* the first piece that came short (npieces: none), */
    size_t short_got;        /* and its bytes */
    int err;                 /* errno of the first failed read, or 0 */
} pread_job_t;

static void fdio_read_pieces(void *arg, int t, int nt)
{
    pread_job_t *j = arg;
    for (size_t p = (size_t)t; p < j->npieces; p += (size_t)nt) {
        size_t a = p * j->piece, len = j->len - a < j->piece ? j->len - a : j->piece;
        size_t got;
        int e = fdio_read(j->fd, j->dst + a, len, j->off + (int64_t)a, &got);
        if (got == len && !e)
            continue;
        pthread_mutex_lock(&j->lock);
        if (e && !j->err)
            j->err = e;
        if (p < j->short_p) {
            j->short_p = p;
            j->short_got = got;
        }
        pthread_mutex_unlock(&j->lock);
        return;   /* the end of the file (or an error): later pieces are void */
    }
}

int fdio_read_pool(pool_t *pool, int fd, void *buf, size_t len, int64_t off, size_t piece,
                   size_t *got)
{
    if (piece == 0 || piece > len)
        piece = len ? len : 1;   /* one piece */
    size_t npieces = (len + piece - 1) / piece;
    pread_job_t j = { .fd = fd, .dst = buf, .len = len, .piece = piece, .npieces = npieces,
                      .off = off, .short_p = npieces };
    pthread_mutex_init(&j.lock, NULL);
    if (npieces > 1 && pool && pool_size(pool) > 1)
        pool_run(pool, fdio_read_pieces, &j);
    else
        fdio_read_pieces(&j, 0, 1);
    pthread_mutex_destroy(&j.lock);
    *got = j.short_p < npieces ? j.short_p * piece + j.short_got : len;
    return j.err;
}

int fdio_read(int fd, void *buf, size_t len, int64_t off, size_t *got)
{
    char *p = buf;
    *got = 0;
    while (*got < len) {
        ssize_t n = off < 0 ? read(fd, p + *got, len - *got)
                            : pread(fd, p + *got, len - *got, (off_t)(off + (int64_t)*got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break;   /* the end of the file */
        *got += (size_t)n;
    }
    return 0;
}

int fdio_copy(int in, uint64_t in_off, int out, int64_t out_off, uint64_t len)
{
#ifdef __linux__
    off_t ia = (off_t)in_off, oa = (off_t)out_off;
    while (len > 0) {
        size_t want = len < ((size_t)1 << 30) ? (size_t)len : (size_t)1 << 30;
        ssize_t n = copy_file_range(in, &ia, out, out_off >= 0 ? &oa : NULL, want, 0);
        if (n > 0) {
            len -= (uint64_t)n;
            continue;
        }
        if (n == 0)
            return EIO;
        if (errno == EINTR)
            continue;
        /* Not between these two files (another file system, an appending or
         * special descriptor, an old kernel): the buffer below, from here on. */
        if (errno != EXDEV && errno != EINVAL && errno != EBADF && errno != ENOSYS &&
            errno != EOPNOTSUPP)
            return errno;
        break;
    }
    in_off = (uint64_t)ia;
    if (out_off >= 0)
        out_off = (int64_t)oa;
#endif
    if (len == 0)
        return 0;
    char *buf = malloc(FDIO_COPY_BUF);
    if (!buf)
        return ENOMEM;
    int e = 0;
    while (len > 0 && e == 0) {
        size_t want = len < FDIO_COPY_BUF ? (size_t)len : FDIO_COPY_BUF, got;
        e = fdio_read(in, buf, want, (int64_t)in_off, &got);
        if (e == 0 && got < want)
            e = EIO;
        if (e == 0)
            e = fdio_write(out, buf, got, out_off, NULL);
        in_off += got;
        if (out_off >= 0)
            out_off += (int64_t)got;
        len -= got;
    }
    free(buf);
    return e;
}
