/* SPDX-License-Identifier: MIT */
/* exchange.c: the all-to-all of key ranges, in rounds (see exchange.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/exchange.h"
#include "cluster/scratch.h"
#include "core/error.h"
#include "core/fdio.h"

int exchange_parts(MPI_Comm comm, const char *base, const uint64_t *cuts, size_t round,
                   const char *tmpdir, int *files, uint64_t *got)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    uint64_t *send = malloc((size_t)n * sizeof *send);
    MPI_Request *req = malloc(2 * (size_t)n * sizeof *req);
    char *in = malloc((size_t)n * round);
    int rc = send && req && in ? GS_OK : err_set(GS_ENOMEM, "out of memory");
    for (int j = 0; j < n; j++) {
        files[j] = -1;
        got[j] = 0;
        if (send)
            send[j] = cuts[j + 1] - cuts[j];
    }
    /* Where a rank has no memory for the rounds, none begins: that rank returns its
     * error, the others nothing (the caller's agreement ends the run). */
    int short_of = rc != GS_OK;
    MPI_Allreduce(MPI_IN_PLACE, &short_of, 1, MPI_INT, MPI_MAX, comm);
    if (short_of) {
        free(in);
        free(req);
        free(send);
        return rc;
    }
    /* Who sends what to whom; the rounds: the largest part over the round. */
    MPI_Alltoall(send, 1, MPI_UINT64_T, got, 1, MPI_UINT64_T, comm);
    uint64_t most = 0, rounds;
    for (int j = 0; j < n; j++)
        if (send[j] > most)
            most = send[j];
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
    rounds = (most + round - 1) / round;
    for (int j = 0; j < n && rc == GS_OK; j++)
        if (got[j] && (files[j] = scratch_open(tmpdir)) < 0)
            rc = GS_EIO;
    uint64_t self = got[me];   /* this rank's own part: written from the mapping, below */
    got[me] = 0;
    for (uint64_t r = 0; r < rounds; r++) {
        int nreq = 0;
        uint64_t at = r * (uint64_t)round;
        for (int j = 0; j < n; j++) {
            uint64_t left = got[j] > at ? got[j] - at : 0;
            int len = (int)(left < round ? left : round);
            if (len)
                MPI_Irecv(in + (size_t)j * round, len, MPI_BYTE, j, 0, comm, &req[nreq++]);
        }
        for (int j = 0; j < n; j++) {
            uint64_t left = j != me && send[j] > at ? send[j] - at : 0;
            int len = (int)(left < round ? left : round);
            if (len)
                MPI_Isend(base + cuts[j] + at, len, MPI_BYTE, j, 0, comm, &req[nreq++]);
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int j = 0; j < n && rc == GS_OK; j++) {
            uint64_t left = got[j] > at ? got[j] - at : 0;
            size_t len = left < round ? (size_t)left : round;
            int e = len ? fdio_write(files[j], in + (size_t)j * round, len, (int64_t)at, NULL) : 0;
            if (e)
                rc = err_sys(GS_EIO, e, "write error on a temporary file in '%s'", tmpdir);
        }
    }
    got[me] = self;
    if (rc == GS_OK && self) {
        int e = fdio_write(files[me], base + cuts[me], (size_t)self, 0, NULL);
        if (e)
            rc = err_sys(GS_EIO, e, "write error on a temporary file in '%s'", tmpdir);
    }
    free(in);
    free(req);
    free(send);
    return rc;
}
