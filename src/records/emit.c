/* SPDX-License-Identifier: MIT */
/* emit.c: the records written out, whole, in a given order (see emit.h).
 *
 * Every thread measures its share of the records, and the output lays them out
 * (output_layout_begin): where the file can be mapped, each thread copies its share
 * straight into the file's pages at its offset (ext4 takes one write(2) at a time
 * per file, but page faults on a mapping of reserved blocks run in parallel:
 * doc/perf/RESULTS.md); where it can be written at offsets, each thread gathers its
 * share into a buffer of its own and writes it at its offset (pwrite). Elsewhere (a
 * pipe), the threads take pieces of records in turn, each copied into the thread's
 * hold and handed on on the piece's turn (io/turns.h, as the merges do).
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
#include "io/turns.h"
#include "records/emit.h"

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

/* ---- in order: pieces of records, each held by its thread until its turn ---------- */

typedef struct {
    const rtable_t *t;
    const uint64_t *order;
    int where;              /* 1: order[] holds where words */
    size_t n, npieces;      /* the records, in pieces of EMIT_BATCH */
    size_t next;            /* the next piece to take (atomic) */
    size_t hold;            /* bytes a thread holds before its piece's turn */
    output_t *out;
    turns_t turns;          /* the piece whose bytes go out now; the first error */
} emit_job_t;

static int emit_put(void *ctx, const void *bytes, size_t len)
{
    return output_write_bytes(ctx, bytes, len);
}

/* Piece p's records copied into the thread's hold (io/turns.h), handed on on the
 * piece's turn. */
static int emit_piece(emit_job_t *j, turns_hold_t *h, size_t p)
{
    size_t lo = p * EMIT_BATCH, hi = j->n - lo > EMIT_BATCH ? lo + EMIT_BATCH : j->n, len;
    int rc = GS_OK;
    turns_hold_start(h, p);
    for (size_t r = lo; r < hi && rc == GS_OK; r++) {
        rtable_record_ahead(j->t, j->order, j->where, r, hi);
        const char *s = rtable_record(j->t, j->order, j->where, r, &len);
        if (len + RTABLE_SLACK > h->cap) {   /* longer than the hold: as it is */
            rc = turns_hold_put(h, s, len);
        } else if ((rc = turns_hold_room(h, len + RTABLE_SLACK)) == GS_OK) {
            rtable_copy(j->t, h->buf + h->len, h->buf + h->cap, s, len);
            rc = turns_hold_added(h, len);
        }
    }
    return rc ? rc : turns_hold_end(h);
}

static void emit_thread(void *arg, int i, int nt)
{
    (void)i;
    (void)nt;
    emit_job_t *j = arg;
    turns_hold_t h;
    int rc = turns_hold_init(&h, &j->turns, j->hold, emit_put, j->out);
    for (;;) {
        size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (rc || p >= j->npieces || turns_failed(&j->turns))
            break;
        rc = emit_piece(j, &h, p);
    }
    if (rc)
        turns_fail(&j->turns, rc);   /* the first failure's is kept */
    turns_hold_free(&h);
}

/* The records in order, by the pool's threads, a piece each at a time: the first
 * error. */
static int emit_in_order(const rtable_t *t, pool_t *pool, const uint64_t *order, size_t n,
                         int where, output_t *out)
{
    emit_job_t j = { .t = t, .order = order, .where = where, .n = n, .out = out,
                     .npieces = (n + EMIT_BATCH - 1) / EMIT_BATCH,
                     .hold = t->bytes + RTABLE_SLACK < EMIT_HOLD ? t->bytes + RTABLE_SLACK
                                                                 : EMIT_HOLD };
    turns_init(&j.turns);
    if (j.npieces > 1 && pool_size(pool) > 1)
        pool_run(pool, emit_thread, &j);
    else if (j.npieces > 0)
        emit_thread(&j, 0, 1);
    int rc = turns_rc(&j.turns);
    turns_destroy(&j.turns);
    return rc;
}

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
    } else if (rc == GS_OK) {
        rc = emit_in_order(t, pool, order, n, where, out);   /* the writes count as such */
    }
    free(sj.bytes);
    free(sj.rc);
    return rc;
}
