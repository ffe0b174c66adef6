/* SPDX-License-Identifier: MIT */
/* emit.c: the records written out, whole, in a given order (see emit.h).
 *
 * Every thread measures its share of the records, and the output lays them out
 * (output_layout_begin): where the file can be mapped, each thread copies its share
 * straight into the file's pages at its offset (ext4 takes one write(2) at a time
 * per file, but page faults on a mapping of reserved blocks run in parallel:
 * doc/perf/RESULTS.md); where it can be written at offsets, each thread gathers its
 * share into a buffer of its own and writes it at its offset (pwrite). Elsewhere (a
 * pipe), the threads copy batches into buffers of their own that the calling thread
 * writes in order.
 *
 * The measure turns order[] (the caller's, used up) into where words for text: each
 * line's offset and length, so that the copies read each line alone, with no second
 * random read of the table's starts, and no array of their own (fresh pages). Where
 * the order comes measured (order.h: the pass that settled equal keys made them),
 * the threads take its shares, and there is no measure.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/progress.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "records/emit.h"

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} emit_buf_t;

typedef struct {
    const rtable_t *t;
    const uint64_t *order;
    int where;              /* 1: order[] holds where words */
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
        if (!j->where)
            rtable_ahead_start(j->t, j->order, r, hi);
        rtable_record(j->t, j->order, j->where, r, &len);
        need += len;
    }
    b->len = 0;
    if (need + RTABLE_SLACK > b->cap) {
        char *p = realloc(b->buf, need + RTABLE_SLACK);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->buf = p;
        b->cap = need + RTABLE_SLACK;
    }
    char *d = b->buf;
    for (size_t r = lo; r < hi; r++) {
        rtable_record_ahead(j->t, j->order, j->where, r, hi);
        const char *s = rtable_record(j->t, j->order, j->where, r, &len);
        rtable_copy(j->t, d, b->buf + b->cap, s, len);
        d += len;
    }
    b->len = need;
}

/* ---- spread: every thread writes its share at its offset of the output file ------- */

typedef struct {
    const rtable_t *t;
    uint64_t *order;        /* table lines, made where words by the measure (where) */
    int where;
    size_t n;
    const size_t *cut;      /* the shares of a measured order; NULL: even shares */
    output_t *out;
    const output_layout_t *L;   /* how the output laid them out */
    uint64_t *bytes;        /* nthreads + 1: each share's bytes, then their offsets */
    uint64_t skip;          /* the header's bytes, before the records */
    int *rc;                /* nthreads: each thread's result */
} spread_job_t;

/* Thread i's share of the records. */
static void spread_share(const spread_job_t *j, int i, int n, size_t *lo, size_t *hi)
{
    if (j->cut) {
        *lo = j->cut[i];
        *hi = j->cut[i + 1];
    } else {
        pool_share(j->n, i, n, lo, hi);
    }
}

static void emit_measure(void *arg, int i, int n)
{
    spread_job_t *j = arg;
    size_t lo, hi, len;
    pool_share(j->n, i, n, &lo, &hi);
    if (j->t->rsize) {   /* records of one size */
        j->bytes[i] = (uint64_t)(hi - lo) * j->t->rsize;
        return;
    }
    /* The arrays in locals: the stores into order[] could change the table's fields
     * of its type (its sizes), so they would be read again after every store. */
    uint64_t sum = 0, *order = j->order;
    const uint64_t *start = j->t->start;
    for (size_t r = lo; r < hi; r++) {
        rtable_start_ahead(start, order, r, hi);
        size_t l = (size_t)order[r];
        len = (size_t)(start[l + 1] - start[l]);
        if (j->where)
            order[r] = rtable_where_at(start[l], len);
        sum += len;
    }
    j->bytes[i] = sum;
}

/* Thread i's share written at its offset through a window (output.h): the file's
 * pages, or a buffer of the thread's written at the offset as it fills. */
static void emit_window(void *arg, int i, int n)
{
    spread_job_t *j = arg;
    size_t lo, hi, len;
    spread_share(j, i, n, &lo, &hi);
    const rtable_t *t = j->t;
    output_window_t w;
    int rc = output_window_open(j->out, j->L, j->bytes[i], j->bytes[i + 1] - j->bytes[i], 0,
                                &w);
    if (rc) {
        j->rc[i] = rc;
        return;
    }
    if (j->where) {
        /* Where words: one random read a record, asked for ahead. The arrays are held
         * in locals: a copy's stores through char * could change the table's fields,
         * so they would be read again after every copy. */
        const uint64_t *order = j->order;
        const char *arena = t->arena;
        for (size_t r = lo; r < hi && rc == GS_OK; r++) {
            rtable_where_ahead(arena, order, r, hi);
            const char *s = rtable_record(t, order, 1, r, &len);
            if ((rc = output_window_need(j->out, &w, len)) == GS_OK) {
                rtable_copy(t, w.p, w.end, s, len);
                w.p += len;
            }
        }
    } else {   /* binary records, or an arena too large for where words */
        for (size_t r = lo; r < hi && rc == GS_OK; r++) {
            rtable_record_ahead(t, j->order, 0, r, hi);
            const char *s = rtable_record(t, j->order, 0, r, &len);
            if ((rc = output_window_need(j->out, &w, len)) == GS_OK) {
                rtable_copy(t, w.p, w.end, s, len);
                w.p += len;
            }
        }
    }
    int rc2 = output_window_close(j->out, &w, rc == GS_OK);
    j->rc[i] = rc ? rc : rc2;
}

/* The records measured for the output to lay them out, where it may pay (two
 * threads or more, EMIT_SPREAD_MIN records or more): *total the header's and their
 * bytes, j->bytes each share's offset; *total 0 where they are not measured.
 * *where 1 where order[] now holds where words (table.h). */
static int emit_measure_all(pool_t *pool, spread_job_t *j, const rorder_shares_t *sh,
                            uint64_t *total, int *where)
{
    int nt = pool_size(pool), measured = sh && sh->n > 0;
    *total = 0;
    *where = measured;   /* a measured order is where words already */
    if (measured && sh->n != nt)   /* order.h made them with this pool */
        return err_set(GS_EIO, "internal error: records measured in %d shares for %d threads",
                       sh->n, nt);
    if (nt < 2 || j->n < EMIT_SPREAD_MIN)
        return GS_OK;
    /* Text: the measure notes where each record's line lies, so that the copy reads
     * the line alone, one random read a record where it took two (the line's start,
     * then its bytes). */
    j->where = measured || rtable_can_where(j->t);
    j->cut = measured ? sh->cut : NULL;
    j->bytes = calloc((size_t)nt + 1, sizeof(uint64_t));
    j->rc = calloc((size_t)nt, sizeof(int));
    if (!j->bytes || !j->rc)
        return err_set(GS_ENOMEM, "out of memory");
    if (measured)
        memcpy(j->bytes, sh->bytes, sizeof(uint64_t) * (size_t)nt);
    else
        pool_run(pool, emit_measure, j);
    *where = j->where;
    uint64_t at = 0;
    for (int i = 0; i < nt; i++) {   /* the shares' bytes into their offsets */
        uint64_t b = j->bytes[i];
        j->bytes[i] = at;
        at += b;
    }
    j->bytes[nt] = at;
    *total = j->skip + at;
    return GS_OK;
}

/* Every thread's share written at its offset, as the output laid them out (mapped,
 * or at offsets): the first error. */
static int emit_shares(pool_t *pool, spread_job_t *j, const output_layout_t *L)
{
    double t0 = stats_now();
    j->L = L;
    pool_run(pool, emit_window, j);
    if (L->how == LAYOUT_MAPPED)   /* the bytes counted as placed; at offsets, as written */
        stats_add(ST_WRITE, 0, stats_now() - t0);
    int rc = GS_OK;
    for (int i = 0; i < pool_size(pool) && rc == GS_OK; i++)
        rc = j->rc[i];
    return rc;
}

/* ---- in order: batches copied by the threads, written by the caller ----------------- */

int remit_write(const rtable_t *t, pool_t *pool, uint64_t *order, size_t n,
                const rorder_shares_t *sh, output_t *out)
{
    size_t hlen = 0;
    const char *h = rtable_header(t, &hlen);
    hlen = h ? hlen : 0;
    progress_phase("writing");
    spread_job_t sj = { .t = t, .order = order, .n = n, .out = out, .skip = hlen };
    uint64_t total;
    int where;
    int rc = emit_measure_all(pool, &sj, sh, &total, &where);
    output_layout_t L = { .how = LAYOUT_IN_ORDER };
    if (rc == GS_OK)
        rc = output_layout_begin(out, total, h, hlen, &L);
    if (L.how != LAYOUT_IN_ORDER) {
        if (rc == GS_OK)
            rc = emit_shares(pool, &sj, &L);
        int rc2 = output_layout_end(out, &L, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    free(sj.bytes);
    free(sj.rc);
    if (rc || L.how != LAYOUT_IN_ORDER)
        return rc;
    int nt = pool_size(pool);
    emit_job_t j = { .t = t, .order = order, .where = where,
                     .bufs = calloc((size_t)nt, sizeof(emit_buf_t)) };
    if (!j.bufs)
        return err_set(GS_ENOMEM, "out of memory");
    for (size_t lo = 0; rc == GS_OK && lo < n; lo += EMIT_BATCH * (size_t)nt) {
        j.lo = lo;
        j.hi = n - lo > EMIT_BATCH * (size_t)nt ? lo + EMIT_BATCH * (size_t)nt : n;
        double t0 = stats_now();
        if (nt > 1 && j.hi - j.lo > 4096)
            pool_run(pool, emit_gather, &j);
        else
            for (int i = 0; i < nt; i++)
                emit_gather(&j, i, nt);
        uint64_t gathered = 0;
        for (int i = 0; i < nt; i++)
            gathered += j.bufs[i].len;
        stats_add(ST_FORMAT, gathered, stats_now() - t0);   /* the records' copy */
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
