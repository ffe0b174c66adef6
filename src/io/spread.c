/* SPDX-License-Identifier: MIT */
/* spread.c: bytes written at their offsets by many threads, with pwrite(2) (see
 * output.h).
 *
 * For output that is already laid out (records: each thread knows where its share
 * goes) and too large to map well: a shared mapping of a file takes a page fault,
 * and on ext4 a journal handle, for every page written, which bounds gigabytes of
 * output; pwrite(2) copies into the page cache without them.
 */
#include <config.h>

#include <errno.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fdio.h"
#include "core/stats.h"
#include "io/output_impl.h"

int output_spread_begin(output_t *o, uint64_t total, int *fd, uint64_t *pos)
{
    *fd = -1;
    *pos = 0;
    if (!(o->tmp_path || o->map_fd >= 0) || total == 0)
        return GS_OK;   /* not a file written from a position: in order instead */
    int rc = output_settle(o);
    if (rc)
        return rc;
    if (o->ahead_used)
        return GS_OK;   /* zeros written ahead: the placed path knows them */
    off_t p = lseek(o->fd, 0, SEEK_CUR);
    if (p < 0)
        return GS_OK;
    *fd = o->fd;
    *pos = (uint64_t)p;
    return GS_OK;
}

int output_spread_write(const output_t *o, int fd, const void *buf, size_t len, uint64_t off)
{
    double t0 = stats_now();
    int e = fdio_write(fd, buf, len, (int64_t)off, NULL);
    if (e == EPIPE)
        return GS_EPIPE;
    if (e)
        return err_sys(GS_EIO, e, "write error on '%s'", o->name);
    stats_add(ST_WRITE, len, stats_now() - t0);
    return GS_OK;
}

int output_spread_end(output_t *o, uint64_t pos, uint64_t total, int ok)
{
    if (!ok)
        return GS_OK;
    if (lseek(o->fd, (off_t)(pos + total), SEEK_SET) < 0)
        return err_sys(GS_EIO, errno, "write error on '%s'", o->name);
    o->bytes += total;
    stats_note_laid(0, total, o->threads);
    return GS_OK;
}
