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
#include "io/output.h"

#define PLACE_PIECE ((size_t)8 << 20)   /* bytes copied or sent at a time */

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

/* Bytes [0, len) of fd written into the file path at off. */
static int place_at(const char *path, int fd, uint64_t len, uint64_t off, char *buf,
                    const char *name)
{
    int out = open(path, O_WRONLY | O_CLOEXEC);
    if (out < 0)
        return err_sys(GS_EIO, errno, "cannot write '%s'", name);
    int rc = GS_OK;
    for (uint64_t at = 0; at < len && rc == GS_OK;) {
        size_t want = len - at < PLACE_PIECE ? (size_t)(len - at) : PLACE_PIECE, got;
        int e = fdio_read(fd, buf, want, (int64_t)at, &got);
        if (e || got != want)
            rc = err_sys(GS_EIO, e ? e : EIO, "read error on a temporary file");
        else if ((e = fdio_write(out, buf, got, (int64_t)(off + at), NULL)) != 0)
            rc = err_sys(GS_EIO, e, "write error on '%s'", name);
        at += got;
    }
    if (close(out) != 0 && rc == GS_OK)
        rc = err_sys(GS_EIO, errno, "write error on '%s'", name);
    return rc;
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

int place_output(MPI_Comm comm, const settings_t *set, int parts, const char *header,
                 size_t hlen, int fd, uint64_t len)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    pool_t *pool = NULL;
    output_t *o = NULL;
    keymap_t km;
    char *buf = malloc(PLACE_PIECE), *part = NULL, *temp = NULL, *name = NULL;
    int settled = 0;   /* 1: an agreement failed already, on every rank */
    int rc = buf ? pool_create(&pool, 1) : err_set(GS_ENOMEM, "out of memory");
    if (rc == GS_OK && !(name = err_escaped(set->output ? set->output : "standard output")))
        rc = err_set(GS_ENOMEM, "out of memory");
    if (parts) {
        int digits = 1;
        for (int k = n - 1; k >= 10; k /= 10)
            digits++;
        size_t room = strlen(set->output) + 16;
        if (rc == GS_OK && !(part = malloc(room)))
            rc = err_set(GS_ENOMEM, "out of memory");
        if (rc == GS_OK) {
            snprintf(part, room, "%s.%0*d", set->output, digits, me);
            rc = place_open(&o, set, part, pool, &km);
        }
        if (rc == GS_OK && me == 0 && hlen)
            rc = output_write_bytes(o, header, hlen);
        if (rc == GS_OK)
            rc = place_copy(o, fd, len, buf);
    } else {
        /* Rank 0 opens the output and says where the others write: its temporary's
         * path, or nothing where they send to rank 0. */
        unsigned long long plen = 0;
        if (me == 0 && rc == GS_OK)
            rc = place_open(&o, set, set->output, pool, &km);
        if (me == 0 && rc == GS_OK && (temp = output_temp_path(o)))
            plen = strlen(temp);
        settled = (rc = agree(comm, rc)) != GS_OK;
        if (!settled) {
            MPI_Bcast(&plen, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
            if (me != 0 && plen && !(temp = calloc(plen + 1, 1)))
                rc = err_set(GS_ENOMEM, "out of memory");
            if (plen)
                MPI_Bcast(temp ? temp : buf, (int)plen, MPI_CHAR, 0, comm);
            settled = (rc = agree(comm, rc)) != GS_OK;
        }
        if (!settled && plen) {
            unsigned long long mine = len + (me == 0 ? hlen : 0), off = 0;
            MPI_Exscan(&mine, &off, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
            if (me == 0) {
                rc = hlen ? output_write_bytes(o, header, hlen) : GS_OK;
                if (rc == GS_OK)
                    rc = place_copy(o, fd, len, buf);
            } else {
                rc = place_at(temp, fd, len, off, buf, name);
            }
        } else if (!settled) {
            if (me == 0 && hlen)
                rc = output_write_bytes(o, header, hlen);
            rc = place_gather(comm, o, fd, len, buf, rc);
        }
    }
    /* All written: then, and only then, the output is committed. */
    if (!settled)
        rc = agree(comm, rc);
    if (rc == GS_OK) {
        int c = o ? output_commit(o) : GS_OK;
        o = NULL;
        rc = agree(comm, c);
    }
    output_abort(o);
    if (pool)
        pool_destroy(pool);
    free(buf);
    free(part);
    free(temp);
    free(name);
    return rc;
}
