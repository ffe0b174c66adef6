/* SPDX-License-Identifier: MIT */
/* hand.c: sorted pieces handed over in the producer's buffers (output_hand(),
 * output.h), in order, from one thread.
 *
 * Binary pieces are written by a job of the output's while the producer gathers and
 * sorts the next: encoding needs no pool then (the output is solo from the first piece
 * on, see writer.c), so the producer keeps the pool. Into a pipe, keys that are their
 * own encoding go as the buffer's pages themselves (vmsplice(2)), which the reader
 * takes faster than copies: the pipe holds them until they are read, however long
 * after, and since nothing maps them any more, nothing can change them first. Such keys
 * written from buffers of the caller's (output_write()), and bytes (output_write_bytes(),
 * WRITE_GIVE_MIN_BYTES or more), are copied into fresh pages a piece at a time and given
 * so: the reader then copies them once, not twice. Text needs
 * the pool to be formatted: written before output_hand() returns.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>   /* vmsplice */
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/output_impl.h"

/* 1 where the output is a pipe (asked once: fstat). */
static int output_pipe(output_t *o)
{
    if (!o->pipe_known) {
        o->pipe_known = 1;
#ifdef __linux__
        struct stat st;
        o->pipe = o->fd >= 0 && fstat(o->fd, &st) == 0 && S_ISFIFO(st.st_mode);
#endif
    }
    return o->pipe;
}

int output_gives(output_t *o)
{
    return o->threads >= WRITE_GIVE_MIN_THREADS && output_pipe(o);
}

output_hands_t output_hands(output_t *o)
{
    return (output_hands_t){ .held = o->cfg.binary, .kept = output_identity(o) && output_pipe(o) };
}

int output_splice(output_t *o, const void *buf, size_t len)
{
    int rc = GS_OK;
    const char *p = buf;
    double t0 = stats_now();
#ifdef __linux__
    while (rc == GS_OK && len > 0) {
        struct iovec iov = { (void *)p, len };
        ssize_t m = vmsplice(o->fd, &iov, 1, 0);
        if (m < 0 && errno == EINTR)
            continue;
        if (m < 0 && errno == EPIPE)
            rc = GS_EPIPE;     /* SIGPIPE was ignored: end quietly */
        else if (m < 0 && (errno == EINVAL || errno == ENOSYS))
            break;             /* no vmsplice here: write() the rest */
        else if (m < 0)
            rc = err_sys(GS_EIO, errno, "write error on '%s'", o->name);
        else {
            p += m;
            len -= (size_t)m;
            stats_add(ST_WRITE, (uint64_t)m, 0);   /* as the pipe takes them */
        }
    }
#endif
    stats_add(ST_WRITE, 0, stats_now() - t0);
    return rc == GS_OK && len > 0 ? output_write_all(o, p, len) : rc;
}

int output_give(output_t *o, void *map, size_t map_bytes, const void *buf, size_t len)
{
    output_ahead_end(o);
    int rc = output_drain(o);   /* what output_write() handed the writer goes first */
    if (rc == GS_OK)
        rc = output_target_fd(o);
    if (rc == GS_OK) {
        o->bytes += len;
        rc = output_splice(o, buf, len);
    }
    mem_unmap(map, map_bytes);   /* the pipe keeps the pages it holds, unchanged */
    return rc;
}

int output_give_copy(output_t *o, const void *buf, size_t len)
{
    int rc = GS_OK;
    const char *p = buf;
    for (size_t m; rc == GS_OK && len > 0; p += m, len -= m) {
        m = len < WRITE_GIVE_PIECE ? len : WRITE_GIVE_PIECE;
        double t0 = stats_now();
        char *map = mem_map(m);
        if (!map) {   /* no memory to spare: copies */
            o->bytes += len;
            return output_write_all(o, p, len);
        }
        /* by the pool's threads, the fresh pages faulted in on all of them */
        mem_copy(o->solo ? NULL : o->cfg.pool, map, p, m);
        stats_add(ST_WRITE, 0, stats_now() - t0);
        rc = output_give(o, map, m, map, m);
    }
    return rc;
}

/* The job: the piece handed over last, after an error only let go of. */
static void output_hand_job(void *arg)
{
    output_t *o = arg;
    if (o->hand_rc == GS_OK)
        o->hand_rc = output_hands(o).kept ? output_give(o, o->hand_buf, o->hand_bytes, o->hand_keys,
                                                 o->hand_n * (size_t)o->cfg.km->width)
                                   : output_write(o, o->hand_keys, o->hand_n, 0);
    else if (output_hands(o).kept)
        mem_unmap(o->hand_buf, o->hand_bytes);
}

int output_hand(output_t *o, void *buf, size_t bytes, const void *keys, size_t n)
{
    if (!keys) {   /* every piece written: by the job, and what it left the writer
                      (waited for after an error too: the jobs are done with it) */
        job_wait(&o->hand);
        int drc = output_drain(o);
        return o->hand_rc ? o->hand_rc : drc;
    }
    output_hands_t h = output_hands(o);
    if (!o->cfg.binary)
        return output_write(o, keys, n, 0);
    o->solo = 1;
    job_wait(&o->hand);   /* the piece before is written (or failed) */
    int rc = o->hand_rc;
    if (rc) {
        if (h.kept)
            mem_unmap(buf, bytes);
        return rc;
    }
    o->hand_buf = buf;
    o->hand_bytes = bytes;
    o->hand_keys = keys;
    o->hand_n = n;
    job_post(&o->hand, output_hand_job, o);
    return GS_OK;
}
