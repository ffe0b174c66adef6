/* SPDX-License-Identifier: MIT */
/* emit.c: the records written out, whole, in a given order (see emit.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/stats.h"
#include "records/emit.h"

#define EMIT_BATCH ((size_t)1 << 18)   /* records a thread copies between two writes */

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} emit_buf_t;

typedef struct {
    const rtable_t *t;
    const uint64_t *order;
    size_t lo, hi;          /* the records of this round */
    emit_buf_t *bufs;       /* one a thread */
} emit_job_t;

/* Thread i's share of the round: its records copied into its buffer. */
static void emit_gather(void *arg, int i, int n)
{
    emit_job_t *j = arg;
    emit_buf_t *b = &j->bufs[i];
    size_t lo, hi;
    pool_share(j->hi - j->lo, i, n, &lo, &hi);
    lo += j->lo;
    hi += j->lo;
    size_t need = 0, len;
    for (size_t r = lo; r < hi; r++) {
        rtable_line(j->t, (size_t)j->order[r], &len);
        need += len;
    }
    b->len = 0;
    if (need > b->cap) {
        char *p = realloc(b->buf, need);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->buf = p;
        b->cap = need;
    }
    char *d = b->buf;
    for (size_t r = lo; r < hi; r++) {
        const char *s = rtable_line(j->t, (size_t)j->order[r], &len);
        memcpy(d, s, len);
        d += len;
    }
    b->len = need;
}

int remit_write(const rtable_t *t, pool_t *pool, const uint64_t *order, size_t n,
                output_t *out)
{
    size_t hlen;
    const char *h = rtable_header(t, &hlen);
    int rc = h ? output_write_bytes(out, h, hlen) : GS_OK;
    int nt = pool_size(pool);
    emit_job_t j = { .t = t, .order = order, .bufs = calloc((size_t)nt, sizeof(emit_buf_t)) };
    if (!j.bufs)
        return err_set(GS_ENOMEM, "out of memory");
    progress_phase("writing");
    for (size_t lo = 0; rc == GS_OK && lo < n; lo += EMIT_BATCH * (size_t)nt) {
        j.lo = lo;
        j.hi = n - lo > EMIT_BATCH * (size_t)nt ? lo + EMIT_BATCH * (size_t)nt : n;
        double t0 = stats_now();
        if (nt > 1 && j.hi - j.lo > 4096)
            pool_run(pool, emit_gather, &j);
        else
            for (int i = 0; i < nt; i++)
                emit_gather(&j, i, nt);
        stats_add(ST_FORMAT, 0, stats_now() - t0);
        for (int i = 0; i < nt && rc == GS_OK; i++) {
            if (j.bufs[i].failed)
                rc = err_set(GS_ENOMEM, "out of memory");
            else if (j.bufs[i].len)
                rc = output_write_bytes(out, j.bufs[i].buf, j.bufs[i].len);
        }
    }
    for (int i = 0; i < nt; i++)
        free(j.bufs[i].buf);
    free(j.bufs);
    return rc;
}
