/* SPDX-License-Identifier: MIT */
/* spill_merge.c: the runs of records merged into the output, by the pool's threads
 * (see spill.h; the file's layout: spill_impl.h).
 *
 * The keys are cut into pieces, [split[p-1], split[p]), at quantiles of the blocks'
 * first keys; every record of a key is in one piece, so the ties (order.h) and -u
 * are settled inside it. A piece starts, in each run, at the last block whose first
 * key is below the piece's (the index says which), skips the records below it and
 * stops at the next piece's key. Each thread takes the next piece not yet taken and
 * merges it into a buffer of its own. Where the output is a file written from a
 * position and each piece's length is known (without -u: the bytes of its records,
 * which the index and one block a run and piece measure), every piece is written
 * at its offset. Otherwise a piece's bytes go out only on its turn, a buffer that
 * fills before then waiting for it, so memory stays bounded, and the thread
 * holding the turn, the lowest piece not yet out, never waits. Each run is read by a
 * cursor of spill_cursor.c; the cursors, the threads and the merge: spill_impl.h.
 */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/keys.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "merge/splitters.h"
#include "records/ends.h"
#include "records/field.h"
#include "records/order.h"
#include "records/spill_impl.h"

/* ---- the output: a piece's bytes on its turn ---------------------------------------- */

static void merge_fail(smerge_t *m, int rc)
{
    pthread_mutex_lock(&m->lock);
    if (!m->failed) {
        m->rc = rc;
        __atomic_store_n(&m->failed, 1, __ATOMIC_RELEASE);   /* read without the lock */
    }
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->lock);
}

/* Write buf[0..len) out, not placed: at the thread's offset, or in order (it holds
 * the turn). */
static int merge_write(sthread_t *t, const char *buf, size_t len)
{
    smerge_t *m = t->m;
    if (m->fd < 0)
        return output_write_bytes(m->out, buf, len);
    if (t->at + len > m->at[t->piece + 1])
        return err_set(GS_EIO, "internal error: a merged piece longer than measured");
    int rc = output_spread_write(m->out, m->fd, buf, len, t->at);
    t->at += len;
    return rc;
}

/* Write what the thread holds: at its offset, or on its piece's turn; placed, count
 * what was copied in place. */
static int merge_deliver(sthread_t *t)
{
    smerge_t *m = t->m;
    if (m->map) {
        output_placed(m->out, &t->mark, m->map + (t->at - m->map_pos), m->map + m->map_len,
                      &t->released);
        return GS_OK;
    }
    if (m->fd >= 0) {
        int rc = t->olen ? merge_write(t, t->obuf, t->olen) : GS_OK;
        t->olen = 0;
        return rc;
    }
    pthread_mutex_lock(&m->lock);
    while (m->turn != t->piece && !m->failed)
        pthread_cond_wait(&m->cond, &m->lock);
    int failed = m->failed;
    pthread_mutex_unlock(&m->lock);
    if (failed)
        return GS_EIO;   /* another thread's error is the one reported */
    int rc = t->olen ? merge_write(t, t->obuf, t->olen) : GS_OK;
    t->olen = 0;
    return rc;
}

/* Append rec[0..len) to the thread's output: placed, straight into the file's
 * pages (counted, and let go of, a buffer's worth at a time); else to its buffer. */
static int merge_put(sthread_t *t, const char *rec, size_t len)
{
    smerge_t *m = t->m;
    if (m->map) {
        if (t->at + len > m->at[t->piece + 1])
            return err_set(GS_EIO, "internal error: a merged piece longer than measured");
        char *p = m->map + (t->at - m->map_pos);
        memcpy(p, rec, len);
        t->at += len;
        return (size_t)(p + len - t->mark) >= m->outcap ? merge_deliver(t) : GS_OK;
    }
    if (t->olen + len > m->outcap && t->olen > 0) {
        int rc = merge_deliver(t);
        if (rc)
            return rc;
    }
    if (len > m->outcap) {   /* a record longer than the buffer: as it is */
        int rc = merge_deliver(t);
        return rc ? rc : merge_write(t, rec, len);
    }
    memcpy(t->obuf + t->olen, rec, len);
    t->olen += len;
    return GS_OK;
}

/* ---- merging a piece ---------------------------------------------------------------- */

/* A cursor's record's length as rkey.h takes it: text without its terminator. */
static inline size_t spill_keylen(const smerge_t *m, size_t len)
{
    return m->s->set->record_size ? len : len - 1;
}

/* 1 where cursor a's record goes before b's. */
static int spill_before(const smerge_t *m, const scur_t *a, const scur_t *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    int c = rkey_order(&m->rk, a->rec, spill_keylen(m, a->len), b->rec,
                       spill_keylen(m, b->len));
    return c ? c < 0 : a->run < b->run;
}

/* -u: 1 where cursor c's record has the keys of the last one written (key: its
 * word). */
static int spill_repeats(sthread_t *t, const scur_t *c, uint64_t last)
{
    if (c->key != last)
        return 0;
    if (t->m->rk.exact)
        return 1;
    return rkey_cmp(&t->m->rk, t->last, t->last_len, c->rec, spill_keylen(t->m, c->len)) == 0;
}

/* -u where words are not whole keys: keep the record written, for spill_repeats(). */
static int spill_keep_last(sthread_t *t, const scur_t *c)
{
    size_t len = spill_keylen(t->m, c->len);
    if (len > t->last_cap) {
        char *x = realloc(t->last, len);
        if (!x)
            return err_set(GS_ENOMEM, "out of memory");
        t->last = x;
        t->last_cap = len;
    }
    memcpy(t->last, c->rec, len);
    t->last_len = len;
    return GS_OK;
}

/* The tie rule of the loser tree over a thread's cursors (merge/ltree.h): cursor a
 * before cursor b, their words equal. A cursor whose part is done has the greatest
 * word (spill_cursor.c), and goes after a record of that word. */
static int spill_tie(void *ctx, int a, int b)
{
    const sthread_t *t = ctx;
    const scur_t *x = &t->cur[a], *y = &t->cur[b];
    if (!x->rec || !y->rec)
        return x->rec ? 1 : y->rec ? 0 : a < b;
    return spill_before(t->m, x, y);
}

/* Merge piece p of every run into the output, on its turn; then pass the turn. */
static int merge_piece(sthread_t *t, size_t p)
{
    smerge_t *m = t->m;
    rspill_t *s = m->s;
    uint64_t lo = p > 0 ? m->split[p - 1] : 0;
    t->piece = p;
    t->has_hi = p + 1 < m->npieces;
    t->hi = t->has_hi ? m->split[p] : 0;
    t->at = m->fd >= 0 ? m->at[p] : 0;
    t->released = t->mark = m->map ? m->map + (t->at - m->map_pos) : NULL;
    size_t k = s->nruns;
    int rc = GS_OK;
    for (size_t r = 0; r < k && rc == GS_OK; r++) {
        rc = spill_seek(t, &t->cur[r], r, lo, p > 0, NULL);
        t->tree.key[r] = t->cur[r].key;
    }
    uint64_t wkey;
    int w = rc == GS_OK ? ltree_build(&t->tree, &wkey, spill_tie, t) : 0;
    const ltree_t tree = t->tree;   /* in registers (see pmerge_loops.c) */
    int any = 0;
    uint64_t last = 0;
    while (rc == GS_OK && k > 0 && t->cur[w].rec) {
        scur_t *c = &t->cur[w];
        if (!(s->set->unique && any && spill_repeats(t, c, last))) {
            if (s->set->unique && !m->rk.exact)
                rc = spill_keep_last(t, c);
            if (rc == GS_OK)
                rc = merge_put(t, c->rec, c->len);
            any = 1;
            last = c->key;
        }
        if (rc == GS_OK)
            rc = spill_advance(t, c);
        wkey = c->key;
        if (rc == GS_OK)
            w = ltree_replay(&tree, w, &wkey, spill_tie, t);
    }
    if (rc == GS_OK)
        rc = merge_deliver(t);
    if (rc == GS_OK && m->fd >= 0 && t->at != m->at[p + 1])
        rc = err_set(GS_EIO, "internal error: a merged piece shorter than measured");
    if (rc == GS_OK) {
        pthread_mutex_lock(&m->lock);
        m->turn = p + 1;
        pthread_cond_broadcast(&m->cond);
        pthread_mutex_unlock(&m->lock);
    }
    return rc;
}

/* A thread: pieces, the next not yet taken, until none is left. */
static void merge_thread(void *arg, int i, int nt)
{
    (void)nt;
    smerge_t *m = arg;
    rspill_t *s = m->s;
    if (i >= m->nthreads)
        return;
    sthread_t t = { .m = m, .cur = calloc(s->nruns ? s->nruns : 1, sizeof *t.cur),
                    .obuf = m->map ? NULL : malloc(m->outcap) };   /* placed: none */
    int tree = ltree_init(&t.tree, (int)s->nruns);
    int rc = t.cur && tree == 0 && (t.obuf || m->map) ? GS_OK
                                                      : err_set(GS_ENOMEM, "out of memory");
    for (;;) {
        size_t p = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
        if (rc || p >= m->npieces || __atomic_load_n(&m->failed, __ATOMIC_ACQUIRE))
            break;
        rc = merge_piece(&t, p);
    }
    if (rc)
        merge_fail(m, rc);   /* the first failure's is kept */
    for (size_t r = 0; t.cur && r < s->nruns; r++)
        free(t.cur[r].raw);
    free(t.cur);
    ltree_free(&t.tree);
    free(t.obuf);
    free(t.last);
    free(t.comp);
}

/* ---- the pieces --------------------------------------------------------------------- */

/* The threads the merge may use (m->nthreads) and their output buffers (m->outcap):
 * the pool's, as far as their buffers (a block and its stored form a run, and the
 * output buffer, a quarter of -S shared by the pool at most) fit in -S. */
static void merge_threads(smerge_t *m)
{
    const rspill_t *s = m->s;
    int nt = pool_size(s->pool);
    size_t out = s->set->buffer_bytes / 4 / (size_t)nt;
    m->outcap = out < MERGE_OUT_MIN ? MERGE_OUT_MIN : out > MERGE_OUT_MAX ? MERGE_OUT_MAX : out;
    m->nthreads = 1;
    if (s->bytes < MERGE_PARALLEL_MIN)
        return;
    size_t each = s->nruns * 2 * (SPILL_BLOCK + SPILL_BLOCK / 8) + m->outcap;
    size_t fit = s->set->buffer_bytes / each;
    m->nthreads = fit < 1 ? 1 : fit < (size_t)nt ? (int)fit : nt;
}

/* m->split and m->npieces: for nt threads, up to MERGE_PIECES pieces a thread, cut
 * at quantiles of the blocks' first keys (splitters.h: each block a sample, all of
 * about one size). */
static int merge_cut(smerge_t *m, int nt)
{
    rspill_t *s = m->s;
    m->npieces = 1;
    size_t want = (size_t)nt * MERGE_PIECES;
    if (nt < 2 || s->nblocks < 2)
        return GS_OK;
    sample_t *smp = malloc(s->nblocks * sizeof *smp);
    m->split = malloc(want * sizeof *m->split);
    if (!smp || !m->split) {
        free(smp);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < s->nblocks; i++)
        smp[i] = (sample_t){ s->blocks[i].key, 1 };
    m->npieces = splitters_choose(smp, s->nblocks, want, 1, m->split) + 1;
    free(smp);
    return GS_OK;
}

/* ---- written at offsets: each piece's length ------------------------------------- */

typedef struct {
    smerge_t *m;
    uint64_t *pos;         /* [p * nruns + r]: run r's bytes before piece p */
    int failed;
} smeasure_t;

/* Thread i's boundaries (every m->nthreads'th): where each run's part of the piece
 * starts. */
static void merge_measure_thread(void *arg, int i, int nt)
{
    (void)nt;
    smeasure_t *x = arg;
    smerge_t *m = x->m;
    rspill_t *s = m->s;
    if (i >= m->nthreads)
        return;
    sthread_t t = { .m = m };
    scur_t c = { 0 };
    int rc = GS_OK;
    for (size_t p = 1 + (size_t)i; p < m->npieces && rc == GS_OK; p += (size_t)m->nthreads)
        for (size_t r = 0; r < s->nruns && rc == GS_OK; r++)
            rc = spill_seek(&t, &c, r, m->split[p - 1], 1, &x->pos[p * s->nruns + r]);
    if (rc)
        __atomic_store_n(&x->failed, rc, __ATOMIC_RELAXED);
    free(c.raw);
    free(t.comp);
}

/* Where the output allows it (a file written from a position) and the pieces'
 * lengths are known (no -u): m->fd and m->at, the header written first; the file
 * mapped (m->map) where it can be, as placed text is, else written with pwrite.
 * *done: 1 where so (the header written), else 0 (the merge goes in order). */
static int merge_place(smerge_t *m, const char *header, size_t hlen, uint64_t *base,
                       uint64_t *total, int *done)
{
    rspill_t *s = m->s;
    *done = 0;
    if (s->set->unique || m->npieces < 2)
        return GS_OK;
    size_t np = m->npieces, nr = s->nruns;
    smeasure_t x = { .m = m, .pos = calloc((np + 1) * nr, sizeof *x.pos) };
    m->at = malloc((np + 1) * sizeof *m->at);
    if (!x.pos || !m->at) {
        free(x.pos);
        return err_set(GS_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < nr; r++)
        x.pos[np * nr + r] = s->runs[r].raw;   /* the last piece ends at each run's end */
    pool_run(s->pool, merge_measure_thread, &x);
    int rc = x.failed;
    *total = hlen;
    for (size_t r = 0; r < nr; r++)
        *total += s->runs[r].raw;
    if (rc == GS_OK)
        rc = output_spread_begin(m->out, *total, &m->fd, base);
    if (rc == GS_OK && m->fd >= 0 && (rc = output_place_begin(m->out, *total, &m->map)) == GS_OK &&
        m->map) {
        m->map_pos = *base;
        m->map_len = *total;
    }
    if (rc == GS_OK && m->fd >= 0) {
        m->at[0] = *base + hlen;
        for (size_t p = 0; p < np; p++) {
            uint64_t len = 0;
            for (size_t r = 0; r < nr; r++)
                len += x.pos[(p + 1) * nr + r] - x.pos[p * nr + r];
            m->at[p + 1] = m->at[p] + len;
        }
        if (hlen && m->map) {
            output_place_copy(m->out, m->map, header, hlen, m->map + *total);
        } else if (hlen) {
            rc = output_spread_write(m->out, m->fd, header, hlen, *base);
        }
        *done = 1;
    }
    free(x.pos);
    return rc;
}

int rspill_merge(rspill_t *s, const char *header, size_t hlen, output_t *out)
{
    smerge_t m = { .s = s, .out = out, .term = s->set->zero_terminated ? '\0' : '\n',
                   .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER,
                   .cond = PTHREAD_COND_INITIALIZER };
    rkey_init(&m.rk, s->set);
    m.by_masks = m.rk.quick && s->set->field_sep >= 0 && (char)s->set->field_sep != m.term;
    m.pos_max = field_pos_max(m.rk.km.type);
    merge_threads(&m);
    int nt = m.nthreads, placed = 0;
    uint64_t base = 0, total = 0;
    int rc = merge_cut(&m, nt);
    if (rc == GS_OK)
        rc = merge_place(&m, header, hlen, &base, &total, &placed);
    if (rc == GS_OK && header && !placed)
        rc = output_write_bytes(out, header, hlen);
    double t0 = stats_now();
    if (rc == GS_OK && nt > 1 && m.npieces > 1)
        pool_run(s->pool, merge_thread, &m);
    else if (rc == GS_OK)
        merge_thread(&m, 0, 1);
    if (rc == GS_OK && m.failed)
        rc = m.rc;
    if (placed) {
        int rc2 = m.map ? output_place_end(out, m.map, total, rc == GS_OK)
                        : output_spread_end(out, base, total, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    stats_add(ST_MERGE, s->bytes, stats_now() - t0);
    free(m.split);
    free(m.at);
    return rc;
}
