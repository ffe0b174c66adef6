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
#include "core/job.h"

/* A round's bytes written into the parts' files on a job of their own (job.h), while
 * the next round's come in: what is written, and the first error. */
typedef struct {
    const char *from;   /* part j's bytes of the round, */
    size_t len;         /* how many (0: none), */
    int64_t at;         /* and where they go in its file */
} slice_t;

typedef struct {
    const int *files;
    int n;
    slice_t *slice;     /* [n] */
    int *err;           /* errno of the first write that failed (the job's alone
                           until it has ended) */
} round_write_t;

static void round_write(void *arg)
{
    round_write_t *w = arg;
    for (int j = 0; j < w->n && !*w->err; j++)
        if (w->slice[j].len)
            *w->err = fdio_write(w->files[j], w->slice[j].from, w->slice[j].len,
                                w->slice[j].at, NULL);
}

int exchange_parts(MPI_Comm comm, const char *base, const uint64_t *cuts, size_t round,
                   const char *tmpdir, int *files, uint64_t *got)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    uint64_t *send = malloc((size_t)n * sizeof *send);
    MPI_Request *req = malloc(2 * (size_t)n * sizeof *req);
    /* two rounds' buffers: one filled by MPI while the job writes the other */
    char *in = malloc(2 * (size_t)n * round);
    round_write_t w[2];   /* the rounds in turn */
    slice_t *slices = calloc(2 * (size_t)n, sizeof *slices);
    int rc = send && req && in && slices ? GS_OK : err_set(GS_ENOMEM, "out of memory");
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
        free(slices);
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
        if (got[j] && j != me && (files[j] = scratch_open(tmpdir)) < 0)
            rc = GS_EIO;
    int err = 0;
    for (int k = 0; k < 2; k++)   /* where a file could not be made, nothing written */
        w[k] = (round_write_t){ .files = files, .n = rc == GS_OK ? n : 0, .err = &err,
                                .slice = slices + (size_t)k * (size_t)n };
    job_t job;
    job_init(&job);
    uint64_t self = got[me];   /* the rank's own part: not sent, not copied */
    got[me] = 0;
    for (uint64_t r = 0; r < rounds; r++) {
        int nreq = 0;
        uint64_t at = r * (uint64_t)round;
        round_write_t *rw = &w[r % 2];   /* its write, two rounds ago, has returned */
        char *buf = in + (size_t)(r % 2) * (size_t)n * round;
        for (int j = 0; j < n; j++) {
            uint64_t left = got[j] > at ? got[j] - at : 0;
            int len = (int)(left < round ? left : round);
            rw->slice[j] = (slice_t){ .from = buf + (size_t)j * round, .len = (size_t)len,
                                      .at = (int64_t)at };
            if (len)
                MPI_Irecv(buf + (size_t)j * round, len, MPI_BYTE, j, 0, comm, &req[nreq++]);
        }
        for (int j = 0; j < n; j++) {
            uint64_t left = j != me && send[j] > at ? send[j] - at : 0;
            int len = (int)(left < round ? left : round);
            if (len)
                MPI_Isend(base + cuts[j] + at, len, MPI_BYTE, j, 0, comm, &req[nreq++]);
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        job_post(&job, round_write, rw);   /* after the round before's write returned */
    }
    job_end(&job);
    got[me] = self;
    if (rc == GS_OK && err)
        rc = err_sys(GS_EIO, err, "write error on a temporary file in '%s'", tmpdir);
    free(slices);
    free(in);
    free(req);
    free(send);
    return rc;
}
