/* SPDX-License-Identifier: MIT */
/* pmerge.c: the parallel merge of sorted runs by key range (see pmerge.h).
 *
 * Pieces: keys in [split[j-1], split[j]), the first from 0 and the last to the end.
 * Repeats of a key never straddle two pieces, so -u is done inside each piece. Each
 * thread's window (io/pieces.h) takes its pieces: in order, it holds a piece's
 * bytes until the piece's turn (memory stays bounded, and the thread holding the
 * turn never waits); laid out (pmerge.h), piece p fills bytes [off[p], off[p + 1])
 * of the output.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/keys.h"
#include "core/stats.h"
#include "merge/pmerge_impl.h"
#include "merge/splitters.h"

size_t pmerge_cursor_bytes(int nruns, int width)
{
    return (size_t)nruns * run_cursor_bytes(width);
}

/* The batch into the thread's window (io/pieces.h): the piece's stretch of the
 * output where laid out, else the thread's hold, handed on on the piece's turn. */
int pm_flush(pm_thread_t *t)
{
    pm_job_t *j = t->j;
    size_t w = (size_t)j->width, n = t->nb;
    t->nb = 0;
    if (n == 0)
        return GS_OK;
    stats_note_merge(n, 0);
    if (j->unique) {
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = key_get(t->batch, i, j->width);
            if (t->have_last && k == t->last_key)
                continue;
            t->last_key = k;
            t->have_last = 1;
            if (w == 4)
                ((uint32_t *)t->batch)[o++] = (uint32_t)k;
            else
                ((uint64_t *)t->batch)[o++] = k;
        }
        n = o;
    }
    double t0 = stats_now();
    int rc = piece_keys(&t->w, t->batch, n);
    if (pieces_laid_out(&j->P))   /* the bytes: the window counts them */
        stats_add(ST_WRITE, 0, stats_now() - t0);
    return rc;
}

/* Source i's next batch (cut at hi when has_hi): *key its first key, or PM_SENT
 * and done[i] when the source has no more keys below hi. */
int pm_refill(pm_thread_t *t, int i, int has_hi, uint64_t hi, uint64_t *key)
{
    int width = t->j->width;
    for (;;) {
        run_batch_t b = { NULL, 0 };
        if (!t->last[i]) {
            int rc = run_cursor_next(t->cur_run[i], &b);
            if (rc)
                return rc;
        }
        const void *keys = b.keys;
        size_t n = b.n;
        if (n == 0) {
            t->done[i] = 1;
            *key = PM_SENT;
            return GS_OK;
        }
        if (has_hi) {
            size_t m = key_lower_bound(keys, n, width, hi);
            if (m < n) {
                n = m;
                t->last[i] = 1;
            }
        }
        if (n > 0) {
            t->cur[i] = keys;
            t->end[i] = (const char *)keys + n * (size_t)width;
            *key = key_get(keys, 0, width);
            return GS_OK;
        }
    }
}

static int pm_piece(pm_thread_t *t, size_t p)
{
    pm_job_t *j = t->j;
    int k = j->nruns, rc = GS_OK;
    uint64_t lo = p > 0 ? j->split[p - 1] : 0;
    int has_hi = p + 1 < j->npieces;
    uint64_t hi = has_hi ? j->split[p] : 0;
    t->have_last = 0;
    for (int i = 0; i < k; i++) {
        t->cur_run[i] = NULL;
        t->done[i] = t->last[i] = 0;
    }
    for (int i = 0; i < k && rc == GS_OK; i++) {
        uint64_t first;
        rc = run_cursor_open(&t->cur_run[i], j->runs[i], lo);
        if (rc == GS_OK)
            rc = pm_refill(t, i, has_hi, hi, &first);
    }
    piece_start(&t->w, p, j->off ? j->off[p] : 0, j->off ? j->off[p + 1] - j->off[p] : 0);
    if (rc == GS_OK)
        rc = pm_merge_piece(t, has_hi, hi);
    int failed = pieces_failed(&j->P);
    if (rc == GS_OK && !failed)
        rc = pm_flush(t);
    /* laid out, the piece must fill its stretch (else an internal error); in order,
     * on its turn, then the next piece's */
    int rc2 = piece_end(&t->w, rc == GS_OK && !failed);
    rc = rc ? rc : rc2;
    for (int i = 0; i < k; i++)
        run_cursor_close(t->cur_run[i]);
    return rc;
}

static void pm_worker(void *arg, int ti, int nt)
{
    (void)ti;
    (void)nt;
    pm_job_t *j = arg;
    pm_thread_t t = { .j = j };
    size_t k = (size_t)j->nruns;
    t.cur_run = calloc(k, sizeof *t.cur_run);
    t.cur = calloc(k, sizeof *t.cur);
    t.end = calloc(k, sizeof *t.end);
    t.last = calloc(k, 1);
    t.done = calloc(k, 1);
    int tree_ok = ltree_init(&t.tree, (int)k) == 0;
    t.batch = malloc(PM_BATCH * (size_t)j->width);
    int hold_ok = piece_init(&j->P, j->hold, &t.w) == GS_OK;
    if (k <= PM_TREE_MAX) {
        for (t.K = 2; (size_t)t.K < k; t.K *= 2)
            ;
        t.hd = calloc(2 * (size_t)t.K, sizeof *t.hd);
        t.tl = calloc(2 * (size_t)t.K, sizeof *t.tl);
        t.fin = calloc(2 * (size_t)t.K, 1);
        t.nodes = malloc((size_t)t.K * PM_NODE_KEYS * (size_t)j->width);
        tree_ok = tree_ok && t.hd && t.tl && t.fin && t.nodes;
    }
    if (!t.cur_run || !t.cur || !t.end || !t.last || !t.done || !t.batch ||
        !hold_ok || !tree_ok) {
        pieces_fail(&j->P, err_set(GS_ENOMEM, "out of memory"));
    } else {
        for (;;) {
            size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
            if (p >= j->npieces || pieces_failed(&j->P))
                break;
            int rc = pm_piece(&t, p);
            if (rc) {
                pieces_fail(&j->P, rc);
                break;
            }
        }
    }
    free(t.cur_run);
    free(t.cur);
    free(t.end);
    free(t.last);
    free(t.done);
    ltree_free(&t.tree);
    free(t.batch);
    piece_free(&t.w);
    free(t.hd);
    free(t.tl);
    free(t.fin);
    free(t.nodes);
}

/* Choose splitters so that pieces hold about piece_keys keys each (total keys in
 * all): samples of every run, each standing for the keys around it. */
static int pm_split(pm_job_t *j, uint64_t total, size_t piece_keys)
{
    size_t cap = (size_t)j->nruns * PM_SAMPLES + 1, m = 0;
    sample_t *smp = malloc(sizeof *smp * cap);
    uint64_t *val = malloc(sizeof *val * PM_SAMPLES);
    j->split = malloc(sizeof *j->split * cap);
    int rc = GS_OK;
    if (!smp || !val || !j->split) {
        rc = err_set(GS_ENOMEM, "out of memory");
        goto out;
    }
    for (int r = 0; r < j->nruns; r++) {
        size_t weight, got = run_sample(j->runs[r], val, PM_SAMPLES, &weight);
        for (size_t i = 0; i < got; i++)
            smp[m++] = (sample_t){ val[i], (double)weight };
    }
    uint64_t pieces = (total + piece_keys - 1) / piece_keys;
    j->npieces = splitters_choose(smp, m, pieces < cap ? (size_t)pieces : cap, 1, j->split) + 1;
out:
    free(smp);
    free(val);
    return rc;
}

int pmerge_runs(run_t **runs, int nruns, int width, int unique, pool_t *pool,
                size_t budget, const pmerge_sink_t *sink)
{
    double t0 = stats_now();
    int threads = pool_size(pool);
    pm_job_t j = { .runs = runs, .nruns = nruns, .width = width, .unique = unique,
                   .sink = sink };
    uint64_t total = 0;
    for (int r = 0; r < nruns; r++)
        total += run_keys(runs[r]);
    /* What each thread may hold: the budget left after cursors, shared out; at least
     * a few batches. Pieces: a few per thread, each fitting what a thread holds. */
    size_t cursors = (size_t)threads * pmerge_cursor_bytes(nruns, width);
    size_t left = budget > cursors ? budget - cursors : 0;
    j.hold = left / (size_t)threads;
    if (j.hold > PM_HOLD_MAX)   /* a huge -S must not mean huge allocations */
        j.hold = PM_HOLD_MAX;
    size_t key_bytes = sink->out ? output_max_bytes(sink->out) : (size_t)width;
    if (j.hold < 4 * PM_BATCH * key_bytes)
        j.hold = 4 * PM_BATCH * key_bytes;
    /* Into an output, without -u, the bytes of every piece are known (pm_layout):
     * the output may take them laid out. */
    int placing = sink->out && !unique;
    size_t piece_keys = (size_t)(total / ((uint64_t)threads * 4) + 1);
    size_t most = placing ? PM_PLACED_PIECE_MAX : j.hold / key_bytes;
    if (piece_keys > most)
        piece_keys = most;
    int rc = pm_split(&j, total, piece_keys);
    if (rc == GS_OK && placing)
        rc = pm_layout(&j, pool);
    int begun = rc == GS_OK;
    if (begun && sink->out)
        rc = pieces_begin(&j.P, sink->out, placing ? j.off[j.npieces] : 0, NULL, 0);
    else if (begun)
        pieces_begin_put(&j.P, sink->append, sink->ctx, (size_t)width);
    if (rc == GS_OK) {
        stats_note_merge(0, total);
        pool_run(pool, pm_worker, &j);
    }
    if (begun)
        rc = pieces_end(&j.P, rc);
    free(j.split);
    free(j.off);
    stats_add(ST_MERGE, total * (uint64_t)width, stats_now() - t0);
    return rc;
}
