/* SPDX-License-Identifier: MIT */
/* place.c: the ranks' ranges into one output, or one part each (see place.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/agree.h"
#include "cluster/place.h"
#include "core/error.h"
#include "core/fdio.h"
#include "core/pool.h"
#include "core/tuning.h"
#include "io/output.h"

/* Open path (NULL: standard output) as gpusort opens its output. */
static int place_open(output_t **o, const settings_t *set, const char *path, pool_t *pool,
                      keymap_t *km)
{
    key_map_init(km, set->type, 0);
    output_cfg_t cfg = { .path = path, .km = km, .binary = set->out_format == FMT_BINARY,
                         .big_endian = set->big_endian,
                         .zero_terminated = set->zero_terminated, .pool = pool };
    return output_open(o, &cfg);
}

/* Bytes [0, len) of fd appended to o (through buf, PLACE_PIECE bytes). */
static int place_copy(output_t *o, int fd, uint64_t len, char *buf)
{
    for (uint64_t at = 0; at < len;) {
        size_t want = len - at < PLACE_PIECE ? (size_t)(len - at) : PLACE_PIECE, got;
        int e = fdio_read(fd, buf, want, (int64_t)at, &got);
        if (e || got != want)
            return err_sys(GS_EIO, e ? e : EIO, "read error on a temporary file");
        int rc = output_write_bytes(o, buf, got);
        if (rc)
            return rc;
        at += got;
    }
    return GS_OK;
}

/* Rank 0 takes every range in rank order and writes it to o; the others send
 * theirs in pieces, an empty piece last. Every piece is taken, whatever fails. */
static int place_gather(MPI_Comm comm, output_t *o, int fd, uint64_t len, char *buf, int rc)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    if (me != 0) {
        for (uint64_t at = 0;; ) {
            size_t want = len - at < PLACE_PIECE ? (size_t)(len - at) : PLACE_PIECE, got = 0;
            if (rc == GS_OK && want) {
                int e = fdio_read(fd, buf, want, (int64_t)at, &got);
                if (e || got != want)
                    rc = err_sys(GS_EIO, e ? e : EIO, "read error on a temporary file");
            }
            if (rc)
                got = 0;   /* the end: the agreement after says why */
            MPI_Send(buf, (int)got, MPI_BYTE, 0, 1, comm);
            if (got == 0)
                return rc;
            at += got;
        }
    }
    if (rc == GS_OK)
        rc = place_copy(o, fd, len, buf);
    for (int r = 1; r < n; r++)
        for (;;) {
            MPI_Status st;
            int got;
            MPI_Recv(buf, (int)PLACE_PIECE, MPI_BYTE, r, 1, comm, &st);
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (got == 0)
                break;
            if (rc == GS_OK)
                rc = output_write_bytes(o, buf, (size_t)got);
        }
    return rc;
}

struct place {
    MPI_Comm comm;
    int me, n;
    const settings_t *set;
    int parts;               /* --output-parts: a file a rank */
    const char *header;      /* rank 0's, or NULL */
    size_t hlen;
    pool_t *pool;            /* output_open() wants one */
    output_t *o;             /* rank 0's output, or this rank's part */
    keymap_t km;
    char *temp;              /* the temporary the ranks write at offsets (shared
                                output) or this rank's part's, or NULL */
    char *name;              /* the output's name, escaped, for messages */
    char *buf;               /* PLACE_PIECE bytes */
    int fd;                  /* the rank's descriptor on temp at its offset, or -1 */
};

/* The output opened, and, where the ranks write in place, each rank's descriptor
 * at its offset. */
static int place_start(place_t *p, uint64_t mine)
{
    int rc = GS_OK, me = p->me;
    const settings_t *set = p->set;
    if (!(p->buf = malloc(PLACE_PIECE)) ||
        !(p->name = err_escaped(set->output ? set->output : "standard output")))
        rc = err_set(GS_ENOMEM, "out of memory");
    if (rc == GS_OK)
        rc = pool_create(&p->pool, 1);
    if (p->parts) {
        int digits = 1;
        for (int k = p->n - 1; k >= 10; k /= 10)
            digits++;
        size_t room = strlen(set->output) + 16;
        char *part = rc == GS_OK ? malloc(room) : NULL;
        if (rc == GS_OK && !part)
            rc = err_set(GS_ENOMEM, "out of memory");
        if (rc == GS_OK) {
            snprintf(part, room, "%s.%0*d", set->output, digits, me);
            rc = place_open(&p->o, set, part, p->pool, &p->km);
        }
        free(part);
        if (rc == GS_OK)
            p->temp = output_temp_path(p->o);
        if (rc == GS_OK && p->temp && (p->fd = open(p->temp, O_RDWR | O_CLOEXEC)) < 0)
            rc = err_sys(GS_EIO, errno, "cannot write '%s'", p->name);
        if (rc == GS_OK && p->fd >= 0 && me == 0 && p->hlen &&
            lseek(p->fd, (off_t)p->hlen, SEEK_SET) < 0)
            rc = err_sys(GS_EIO, errno, "cannot write '%s'", p->name);
        if (rc == GS_OK && me == 0 && p->hlen)
            rc = output_write_bytes(p->o, p->header, p->hlen);
        return agree(p->comm, rc);
    }
    /* Rank 0 opens the output and says where the others write: its temporary's
     * path, or nothing where they send to rank 0. */
    unsigned long long plen = 0;
    if (me == 0 && rc == GS_OK)
        rc = place_open(&p->o, set, set->output, p->pool, &p->km);
    if (me == 0 && rc == GS_OK && (p->temp = output_temp_path(p->o)))
        plen = strlen(p->temp);
    if ((rc = agree(p->comm, rc)) != GS_OK)
        return rc;
    MPI_Bcast(&plen, 1, MPI_UNSIGNED_LONG_LONG, 0, p->comm);
    if (me != 0 && plen && !(p->temp = calloc(plen + 1, 1)))
        rc = err_set(GS_ENOMEM, "out of memory");
    if (plen)
        MPI_Bcast(p->temp ? p->temp : p->buf, (int)plen, MPI_CHAR, 0, p->comm);
    if ((rc = agree(p->comm, rc)) != GS_OK || !plen)
        return rc;
    /* In place: every rank at its offset, the header first. */
    unsigned long long bytes = mine + p->hlen, off = 0;
    MPI_Exscan(&bytes, &off, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, p->comm);
    if (me == 0)
        off = p->hlen;
    if ((p->fd = open(p->temp, O_RDWR | O_CLOEXEC)) < 0 || lseek(p->fd, (off_t)off, SEEK_SET) < 0)
        rc = err_sys(GS_EIO, errno, "cannot write '%s'", p->name);
    if (rc == GS_OK && me == 0 && p->hlen)
        rc = output_write_bytes(p->o, p->header, p->hlen);
    return agree(p->comm, rc);
}

int place_begin(MPI_Comm comm, const settings_t *set, int parts, const char *header,
                size_t hlen, uint64_t mine, place_t **out, int *fd)
{
    place_t *p = calloc(1, sizeof *p);
    int rc = p ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    *out = p;
    *fd = -1;
    if (p) {
        p->comm = comm;
        MPI_Comm_size(comm, &p->n);
        MPI_Comm_rank(comm, &p->me);
        p->set = set;
        p->parts = parts;
        p->header = header;
        p->hlen = p->me == 0 ? hlen : 0;
        p->fd = -1;
    }
    /* a rank without memory for p still agrees, then stops with the others */
    rc = p ? place_start(p, mine) : agree(comm, rc);
    if (rc == GS_OK)
        *fd = p->fd;
    return rc;
}

int place_write(place_t *p, int fd, uint64_t len)
{
    if (p->parts)   /* the header, rank 0's, written already */
        return place_copy(p->o, fd, len, p->buf);
    int rc = p->me == 0 && p->hlen ? output_write_bytes(p->o, p->header, p->hlen) : GS_OK;
    return place_gather(p->comm, p->o, fd, len, p->buf, rc);
}

int place_end(place_t *p, int rc, int settled)
{
    if (p && p->fd >= 0 && close(p->fd) != 0 && rc == GS_OK)
        rc = err_sys(GS_EIO, errno, "write error on '%s'", p->name);
    if (!settled)
        rc = agree(p ? p->comm : MPI_COMM_WORLD, rc);
    /* All written: then, and only then, the output is committed. */
    if (rc == GS_OK) {
        int c = p->o ? output_commit(p->o) : GS_OK;
        p->o = NULL;
        rc = agree(p->comm, c);
    }
    if (p) {
        output_abort(p->o);
        if (p->pool)
            pool_destroy(p->pool);
        free(p->buf);
        free(p->temp);
        free(p->name);
        free(p);
    }
    return rc;
}
