/* SPDX-License-Identifier: MIT */
/* emit.c: the records written out, whole, in a given order (see emit.h).
 *
 * Every thread measures its share of the records, and the output takes them as
 * pieces (io/pieces.h): where the file can be mapped, each thread copies its share
 * straight into the file's pages at its offset (ext4 takes one write(2) at a time
 * per file, but page faults on a mapping of reserved blocks run in parallel:
 * doc/perf/RESULTS.md); where it can be written at offsets, each thread gathers its
 * share into a buffer of its own and writes it at its offset (pwrite). Elsewhere (a
 * pipe), the threads take pieces of EMIT_BATCH records in turn, each held by its
 * thread and handed on on the piece's turn. The copies are the same either way.
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
#include "io/pieces.h"
#include "records/emit.h"

/* ---- the copies: records into a thread's window, either way ---------------------- */

typedef struct {
    const rtable_t *t;
    uint64_t *order;        /* table lines, made where words by the measure (where) */
    int where;
    size_t n;
    const size_t *cut;      /* laid out: the shares of a measured order; NULL: even */
    uint64_t *bytes;        /* laid out: nthreads + 1, each share's bytes, then their
                               offsets */
    uint64_t skip;          /* the header's bytes, before the records */
    pieces_t *P;            /* where the bytes go (io/pieces.h) */
    size_t hold;            /* in order: bytes a thread holds before its piece's turn */
    size_t npieces;         /* in order: pieces of EMIT_BATCH records */
    size_t next;            /* in order: the next piece to take (atomic) */
} emit_job_t;

/* Records longer than this are put through the window a room at a time rather
 * than made in place (which would grow a thread's buffer to hold one whole). */
#define EMIT_LONG (WINDOW_BUF / 4)

/* Records [lo, hi) of the order copied through w, the piece started. */
static int emit_records(const emit_job_t *j, piece_t *w, size_t lo, size_t hi)
{
    const rtable_t *t = j->t;
    size_t len;
    int rc = GS_OK;
    if (j->where) {
        /* Where words: one random read a record, asked for ahead. The arrays are held
         * in locals: a copy's stores through char * could change the table's fields,
         * so they would be read again after every copy. */
        const uint64_t *order = j->order;
        const char *arena = t->arena;
        for (size_t r = lo; r < hi && rc == GS_OK; r++) {
            rtable_where_ahead(arena, order, r, hi);
            const char *s = rtable_record(t, order, 1, r, &len);
            if (len > EMIT_LONG)
                rc = piece_put(w, s, len);
            else if ((rc = piece_need(w, len)) == GS_OK) {
                rtable_copy(t, w->p, w->end, s, len);
                w->p += len;
            }
        }
    } else {   /* binary records, or an arena too large for where words */
        for (size_t r = lo; r < hi && rc == GS_OK; r++) {
            rtable_record_ahead(t, j->order, 0, r, hi);
            const char *s = rtable_record(t, j->order, 0, r, &len);
            if (len > EMIT_LONG)
                rc = piece_put(w, s, len);
            else if ((rc = piece_need(w, len)) == GS_OK) {
                rtable_copy(t, w->p, w->end, s, len);
                w->p += len;
            }
        }
    }
    return rc;
}

/* ---- laid out: every thread writes its share at its offset ------------------------- */

/* Thread i's share of the records. */
static void emit_share(const emit_job_t *j, int i, int n, size_t *lo, size_t *hi)
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
    emit_job_t *j = arg;
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

/* Thread i's share written at its offset through its window (io/pieces.h): the
 * file's pages, or a buffer of the thread's written at the offset as it fills. */
static void emit_share_thread(void *arg, int i, int n)
{
    emit_job_t *j = arg;
    size_t lo, hi;
    emit_share(j, i, n, &lo, &hi);
    piece_t w;
    int rc = piece_init(j->P, 0, &w);
    if (rc == GS_OK) {
        piece_start(&w, (size_t)i, j->bytes[i], j->bytes[i + 1] - j->bytes[i]);
        rc = emit_records(j, &w, lo, hi);
        int rc2 = piece_end(&w, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    if (rc)
        pieces_fail(j->P, rc);
    piece_free(&w);
}

/* The records measured for the output to lay them out, where it may pay (two
 * threads or more, EMIT_SPREAD_MIN records or more): *total the header's and their
 * bytes, j->bytes each share's offset; *total 0 where they are not measured.
 * *where 1 where order[] now holds where words (table.h). */
static int emit_measure_all(pool_t *pool, emit_job_t *j, const rorder_shares_t *sh,
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
    if (!(j->bytes = calloc((size_t)nt + 1, sizeof(uint64_t))))
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

/* ---- in order: pieces of records, each held by its thread until its turn ---------- */

static void emit_piece_thread(void *arg, int i, int nt)
{
    (void)i;
    (void)nt;
    emit_job_t *j = arg;
    piece_t w;
    int rc = piece_init(j->P, j->hold, &w);
    for (;;) {
        size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (rc || p >= j->npieces || pieces_failed(j->P))
            break;
        size_t lo = p * EMIT_BATCH, hi = j->n - lo > EMIT_BATCH ? lo + EMIT_BATCH : j->n;
        piece_start(&w, p, 0, 0);
        rc = emit_records(j, &w, lo, hi);
        int rc2 = piece_end(&w, rc == GS_OK);   /* on its turn, then the next piece's */
        rc = rc ? rc : rc2;
    }
    if (rc)
        pieces_fail(j->P, rc);   /* the first failure's is kept */
    piece_free(&w);
}

int remit_write(const rtable_t *t, pool_t *pool, uint64_t *order, size_t n,
                const rorder_shares_t *sh, output_t *out)
{
    size_t hlen = 0;
    const char *h = rtable_header(t, &hlen);
    hlen = h ? hlen : 0;
    progress_phase("writing");
    pieces_t P;
    emit_job_t j = { .t = t, .order = order, .n = n, .skip = hlen, .P = &P };
    uint64_t total;
    int rc = emit_measure_all(pool, &j, sh, &total, &j.where);
    int begun = rc == GS_OK;
    if (begun)
        rc = pieces_begin(&P, out, total, h, hlen);
    double t0 = stats_now();
    if (rc == GS_OK && pieces_laid_out(&P)) {
        /* Every thread's share at its offset, mapped or at offsets. */
        pool_run(pool, emit_share_thread, &j);
        if (P.how == PIECES_MAPPED)   /* the bytes counted as placed; at offsets, as written */
            stats_add(ST_WRITE, 0, stats_now() - t0);
    } else if (rc == GS_OK) {
        /* In order, by the pool's threads, a piece each at a time (the writes count
         * as such). */
        j.npieces = (n + EMIT_BATCH - 1) / EMIT_BATCH;
        j.hold = t->bytes + RTABLE_SLACK < EMIT_HOLD ? t->bytes + RTABLE_SLACK : EMIT_HOLD;
        if (j.npieces > 1 && pool_size(pool) > 1)
            pool_run(pool, emit_piece_thread, &j);
        else if (j.npieces > 0)
            emit_piece_thread(&j, 0, 1);
    }
    if (begun)
        rc = pieces_end(&P, rc);
    free(j.bytes);
    return rc;
}
