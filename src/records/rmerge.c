/* SPDX-License-Identifier: MIT */
/* rmerge.c: sorted runs of records merged into the output by pieces of keys (see
 * rmerge.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "io/pieces.h"
#include "merge/ltree.h"
#include "records/rmerge.h"

struct rmerge {
    rmerge_cfg_t c;
    uint64_t *split;       /* npieces - 1 words */
    int ties;              /* equal words ordered by rkey_order() */
    int cmp_keys;          /* -u: equal words compared in full (rkey_cmp()) */
    uint64_t *at;          /* known: piece p's bytes at [at[p], at[p + 1]) from the
                              merge's first byte (the header's after it); else NULL */
    uint64_t *seen;        /* measuring: [p * nsrc + j] source j's bytes before piece p */
    pieces_t *P;           /* writing: where the pieces go (io/pieces.h) */
    int count;             /* 1: counting (no output): at[p + 1] each piece's bytes */
    size_t next;           /* the next piece to take (atomic) */
    size_t stretch;        /* laid out, pieces a thread takes at a time, merged as
                              one range through one window (pieces as small as in
                              order would cost a window and a seek a source each):
                              nthreads x MERGE_PIECES stretches; the measure notes
                              only their bounds */
    size_t group;          /* pieces a thread takes now: stretch or 1 */
    turns_t turns;         /* planning (measured, counted): the first error */
};

/* Where the threads' first error is kept: writing, the pieces'. */
static turns_t *rm_turns(rmerge_t *m)
{
    return m->P ? &m->P->turns : &m->turns;
}

/* A thread's part of the merge. */
typedef struct {
    rmerge_t *m;
    char *cur;             /* nsrc cursors of cur_size bytes */
    void *own;             /* the source's state of this thread */
    ltree_t tree;
    uint64_t hi;           /* the piece's words are below hi, */
    int has_hi;            /* where it has one */
    uint64_t at;           /* counting: the piece's bytes so far */
    piece_t w;             /* writing: the thread's window on the pieces */
    char *last;            /* -u compared in full: the last record kept */
    size_t last_len, last_cap;
} rthread_t;

static inline rcur_t *rm_cur(const rthread_t *t, size_t j)
{
    return (rcur_t *)(t->cur + j * t->m->c.src->cur_size);
}

/* ---- the output of a thread -------------------------------------------------------- */

#define RM_QUICK 64   /* a record this short copied as RM_QUICK bytes, without branches */

/* Record c's bytes through the thread's window, whole (a run being written counts
 * records), never past a laid-out piece's stretch (laid out wrong: an error);
 * counting, only counted. */
static inline int rm_put(rthread_t *t, const rcur_t *c)
{
    size_t len = c->len;
    if (t->m->count) {
        t->at += len;
        return GS_OK;
    }
    piece_t *w = &t->w;
    int rc = piece_need(w, len);
    if (rc)
        return rc;
    if (len <= RM_QUICK && (size_t)(w->end - w->p) >= RM_QUICK && c->rec + RM_QUICK <= c->end)
        memcpy(w->p, c->rec, RM_QUICK);
    else
        memcpy(w->p, c->rec, len);
    w->p += len;
    return GS_OK;
}

/* ---- one piece --------------------------------------------------------------------- */

/* The loser tree's tie rule (merge/ltree.h): source a's record before source b's,
 * their words equal. A source whose part is done has the greatest word and goes
 * after a record of that word. */
static int rm_tie(void *ctx, int a, int b)
{
    const rthread_t *t = ctx;
    const rmerge_t *m = t->m;
    const rcur_t *x = rm_cur(t, (size_t)a), *y = rm_cur(t, (size_t)b);
    if (!x->rec || !y->rec)
        return x->rec ? 1 : y->rec ? 0 : a < b;
    if (m->ties) {
        size_t tx = (size_t)m->c.text;
        int o = rkey_order(m->c.rk, x->rec, x->len - tx, y->rec, y->len - tx);
        if (o)
            return o < 0;
    }
    return a < b;   /* the earlier source */
}

/* A cursor past the piece's end, or done: done. */
static inline void rm_bound(const rthread_t *t, rcur_t *c)
{
    if (!c->rec || (t->has_hi && c->key >= t->hi)) {
        c->rec = NULL;
        c->key = UINT64_MAX;
    }
}

/* -u: 1 where c's record has the keys of the last one kept (word last). */
static inline int rm_repeats(const rthread_t *t, const rcur_t *c, uint64_t last)
{
    if (c->key != last)
        return 0;
    if (!t->m->cmp_keys)
        return 1;
    return rkey_cmp(t->m->c.rk, t->last, t->last_len, c->rec,
                    c->len - (size_t)t->m->c.text) == 0;
}

/* -u where words are not whole keys: keep c's record for rm_repeats(). */
static int rm_keep_last(rthread_t *t, const rcur_t *c)
{
    size_t len = c->len - (size_t)t->m->c.text;
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

/* Merge pieces [p, end) of every source, as one range, through the thread's window
 * (its piece started). */
static int rm_piece(rthread_t *t, size_t p, size_t end)
{
    rmerge_t *m = t->m;
    const rmerge_src_t *src = m->c.src;
    size_t k = m->c.nsrc;
    uint64_t lo = p > 0 ? m->split[p - 1] : 0;
    t->has_hi = end < m->c.npieces;
    t->hi = t->has_hi ? m->split[end - 1] : 0;
    t->at = 0;
    int rc = GS_OK;
    for (size_t j = 0; j < k && rc == GS_OK; j++) {
        rcur_t *c = rm_cur(t, j);
        rc = src->seek(m->c.ctx, t->own, c, j, lo, p > 0, NULL);
        rm_bound(t, c);
        t->tree.key[j] = c->key;
    }
    uint64_t wkey;
    int w = rc == GS_OK && k > 0 ? ltree_build(&t->tree, &wkey, rm_tie, t) : 0;
    const ltree_t tree = t->tree;   /* in registers (see merge/pmerge_loops.c) */
    int any = 0, unique = m->c.unique;
    uint64_t last = 0;
    while (rc == GS_OK && k > 0 && rm_cur(t, (size_t)w)->rec) {
        rcur_t *c = rm_cur(t, (size_t)w);
        if (!(unique && any && rm_repeats(t, c, last))) {
            if (unique && m->cmp_keys)
                rc = rm_keep_last(t, c);
            if (rc == GS_OK)
                rc = rm_put(t, c);
            any = 1;
            last = c->key;
        }
        if (rc == GS_OK)
            rc = src->advance(m->c.ctx, t->own, c);
        rm_bound(t, c);
        wkey = c->key;
        if (rc == GS_OK)
            w = ltree_replay(&tree, w, &wkey, rm_tie, t);
    }
    if (m->count)
        m->at[end] = t->at;
    return rc;
}

/* A thread's cursors and state (writing, its window): GS_OK or GS_ENOMEM. */
static int rm_thread_init(rthread_t *t, rmerge_t *m, int writing)
{
    const rmerge_src_t *src = m->c.src;
    size_t k = m->c.nsrc ? m->c.nsrc : 1;
    *t = (rthread_t){ .m = m, .cur = calloc(k, src->cur_size),
                      .own = src->own_size ? calloc(1, src->own_size) : NULL };
    int tree = ltree_init(&t->tree, (int)m->c.nsrc);
    if (!t->cur || (src->own_size && !t->own) || tree)
        return err_set(GS_ENOMEM, "out of memory");
    return writing ? piece_init(m->P, m->c.outcap, &t->w) : GS_OK;
}

static void rm_thread_free(rthread_t *t)
{
    const rmerge_src_t *src = t->m->c.src;
    for (size_t j = 0; t->cur && src->cur_free && j < t->m->c.nsrc; j++)
        src->cur_free(rm_cur(t, j));
    if (t->own && src->own_free)
        src->own_free(t->own);
    free(t->cur);
    free(t->own);
    ltree_free(&t->tree);
    piece_free(&t->w);
    free(t->last);
}

/* A thread: pieces, the next not yet taken, until none is left. */
static void rm_thread(void *arg, int i, int nt)
{
    (void)nt;
    rmerge_t *m = arg;
    if (i >= m->c.nthreads)
        return;
    rthread_t t;
    int writing = !m->count, rc = rm_thread_init(&t, m, writing);
    for (;;) {
        size_t p = __atomic_fetch_add(&m->next, m->group, __ATOMIC_RELAXED);
        if (rc || p >= m->c.npieces || turns_failed(rm_turns(m)))
            break;
        /* A group of pieces (laid out: a stretch) as one range, through one window. */
        size_t end = m->c.npieces - p > m->group ? p + m->group : m->c.npieces;
        int laid = writing && pieces_laid_out(m->P);
        if (writing)
            piece_start(&t.w, p, laid ? m->at[p] : 0, laid ? m->at[end] - m->at[p] : 0);
        rc = rm_piece(&t, p, end);
        if (writing) {   /* laid out, the stretch whole; in order, on its turn */
            int rc2 = piece_end(&t.w, rc == GS_OK);
            rc = rc ? rc : rc2;
        }
    }
    if (rc)
        turns_fail(rm_turns(m), rc);   /* the first failure's is kept */
    rm_thread_free(&t);
}

/* Every piece, on the pool's threads (or the caller's alone): the first error. */
static int rm_run(rmerge_t *m)
{
    m->next = 0;
    turns_reset(&m->turns);
    if (m->c.nthreads > 1 && m->c.npieces > 1)
        pool_run(m->c.pool, rm_thread, m);
    else
        rm_thread(m, 0, 1);
    return turns_rc(rm_turns(m));
}

/* ---- the plan ---------------------------------------------------------------------- */

/* Thread i's stretches' bounds (every nthreads'th from the first after 0): each
 * source's bytes before the bound's piece, into m->seen as [p * nsrc + j]. */
static void rm_measure_thread(void *arg, int i, int nt)
{
    (void)nt;
    rmerge_t *m = arg;
    if (i >= m->c.nthreads)
        return;
    size_t k = m->c.nsrc, s = m->stretch, step = s * (size_t)m->c.nthreads;
    rthread_t t;
    int rc = rm_thread_init(&t, m, 0);
    rcur_t *c = rm_cur(&t, 0);
    for (size_t p = s * (1 + (size_t)i); p < m->c.npieces && rc == GS_OK; p += step)
        for (size_t j = 0; j < k && rc == GS_OK; j++)
            rc = m->c.src->seek(m->c.ctx, t.own, c, j, m->split[p - 1], 1, &m->seen[p * k + j]);
    if (rc)
        turns_fail(&m->turns, rc);
    rm_thread_free(&t);
}

/* m->at at the stretches' bounds (and the end): the bytes before them, measured by
 * seeks. Laid out, a thread writes a stretch at a time (rm_write_pieces); in order
 * nothing but the total is needed. */
static int rm_measure(rmerge_t *m)
{
    size_t np = m->c.npieces, k = m->c.nsrc, s = m->stretch;
    uint64_t *pos = m->seen = calloc((np + 1) * (k ? k : 1), sizeof *pos);
    if (!pos)
        return err_set(GS_ENOMEM, "out of memory");
    for (size_t j = 0; j < k; j++)
        pos[np * k + j] = m->c.size[j];   /* the last piece ends at each source's end */
    if (np > s && k > 0) {
        if (m->c.nthreads > 1)
            pool_run(m->c.pool, rm_measure_thread, m);
        else
            rm_measure_thread(m, 0, 1);
    }
    m->seen = NULL;
    int rc = turns_rc(&m->turns);
    m->at[0] = 0;
    for (size_t p = 0, q; p < np && rc == GS_OK; p = q) {
        q = np - p > s ? p + s : np;
        uint64_t len = 0;
        for (size_t j = 0; j < k; j++)
            len += pos[q * k + j] - pos[p * k + j];
        m->at[q] = m->at[p] + len;
    }
    free(pos);
    return rc;
}

/* m->at: each piece's bytes counted by a merge that writes nothing. */
static int rm_count(rmerge_t *m)
{
    m->count = 1;
    int rc = rm_run(m);
    m->count = 0;
    m->at[0] = 0;
    for (size_t p = 0; p < m->c.npieces; p++)
        m->at[p + 1] += m->at[p];
    return rc;
}

size_t rmerge_pieces(int nthreads, uint64_t bytes, size_t outcap)
{
    if (nthreads < 2)
        return 1;
    uint64_t want = (uint64_t)nthreads * MERGE_PIECES, half = outcap / 2 ? outcap / 2 : 1;
    if (bytes / half + 1 > want)
        want = bytes / half + 1;
    return want < MERGE_PIECES_MAX ? (size_t)want : MERGE_PIECES_MAX;
}

int rmerge_plan(const rmerge_cfg_t *cfg, int how, rmerge_t **mp, uint64_t *bytes)
{
    *bytes = 0;
    rmerge_t *m = *mp = calloc(1, sizeof *m);
    if (!m)
        return err_set(GS_ENOMEM, "out of memory");
    m->c = *cfg;
    m->group = 1;
    turns_init(&m->turns);
    if (m->c.npieces < 1)
        m->c.npieces = 1;
    if (m->c.nthreads < 1 || !m->c.pool)
        m->c.nthreads = 1;
    size_t stretches = (size_t)m->c.nthreads * MERGE_PIECES;
    m->stretch = (m->c.npieces + stretches - 1) / stretches;
    if (cfg->rk) {
        m->ties = !cfg->rk->exact || cfg->rk->last_resort;
        m->cmp_keys = cfg->unique && !cfg->rk->exact;
    }
    size_t ns = m->c.npieces - 1;
    m->split = malloc((ns ? ns : 1) * sizeof *m->split);
    if (!m->split)
        return err_set(GS_ENOMEM, "out of memory");
    if (ns)
        memcpy(m->split, cfg->split, ns * sizeof *m->split);
    m->c.split = m->split;
    if (how == RMERGE_IN_ORDER || (how == RMERGE_MEASURE && cfg->unique))
        return GS_OK;
    if (!(m->at = calloc(m->c.npieces + 1, sizeof *m->at)))
        return err_set(GS_ENOMEM, "out of memory");
    int rc = how == RMERGE_COUNT ? rm_count(m) : rm_measure(m);
    if (rc == GS_OK)
        *bytes = m->at[m->c.npieces];
    return rc;
}

/* ---- the writing ------------------------------------------------------------------- */

/* The merge written through P's pieces: a stretch of consecutive pieces at a time
 * a thread where laid out, else one piece at a time, each on its turn. The first
 * error. */
static int rm_write_pieces(rmerge_t *m, pieces_t *P, int rc)
{
    m->P = P;
    int laid = pieces_laid_out(P);
    m->group = laid ? m->stretch : 1;
    if (P->out)   /* into the output, not a pass's run */
        stats_note_records_merge(m->c.npieces, m->c.nthreads, laid, m->group);
    if (rc == GS_OK)
        rc = rm_run(m);
    rc = pieces_end(P, rc);
    m->P = NULL;
    m->group = 1;
    return rc;
}

int rmerge_write(rmerge_t *m, output_t *out, const char *header, size_t hlen)
{
    /* Pieces of known bytes: the output chooses where they go (mapped, at offsets);
     * else in order, each on its turn. */
    pieces_t P;
    int rc = pieces_begin(&P, out, m->at ? hlen + m->at[m->c.npieces] : 0, header, hlen);
    return rm_write_pieces(m, &P, rc);
}

int rmerge_write_to(rmerge_t *m, turns_put_fn put, void *ctx)
{
    pieces_t P;
    pieces_begin_put(&P, put, ctx, 1);
    return rm_write_pieces(m, &P, GS_OK);
}

void rmerge_free(rmerge_t *m)
{
    if (!m)
        return;
    turns_destroy(&m->turns);
    free(m->split);
    free(m->at);
    free(m);
}
