/* SPDX-License-Identifier: MIT */
/* ties.c: runs of equal words put in order (see ties.h). */
#include <config.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/tuning.h"
#include "records/order.h"
#include "records/ties.h"
#include "sorter/sorter.h"

/* Where a run stands: the key's words (KEYS) from word depth on, or the lines'
 * (LINES, the last resort) from 7 * depth bytes on. */
enum { KEYS, LINES };

/* The word of entry x at (phase, depth); for KEYS, *more: the key goes on. */
static uint64_t ties_word(const rties_t *c, uint64_t x, int phase, size_t depth, int *more)
{
    const rtable_t *t = c->t;
    size_t len;
    const char *p = rtable_line(t, (size_t)(x & c->mask), &len);
    if (!t->rsize)
        len--;   /* the terminator is no part of the line */
    uint64_t w = 0;
    if (phase == KEYS) {
        *more = rkey_word_at(&t->rk, p, len, depth, &w);
        return w;
    }
    size_t off = 7 * depth, have = len > off ? len - off : 0;
    size_t take = have > 7 ? 7 : have;
    for (size_t i = 0; i < take; i++)
        w |= (uint64_t)(unsigned char)p[off + i] << (8 * (7 - i));
    w |= have > 7 ? 8 : have;
    return t->rk.last_reverse ? ~w : w;
}

/* Ask for what entry r + RTABLE_AHEAD's word will read (a line's start twice as
 * far ahead), as table.h's gathers do: the words are made in an order that is
 * random in the table. */
static inline void ties_ahead(const rties_t *c, const uint64_t *e, size_t r, size_t end)
{
    const rtable_t *t = c->t;
    if (t->rsize) {
        if (r + RTABLE_AHEAD < end)
            __builtin_prefetch(t->arena + (e[r + RTABLE_AHEAD] & c->mask) * t->rsize);
        return;
    }
    if (r + 2 * RTABLE_AHEAD < end)
        __builtin_prefetch(&t->start[e[r + 2 * RTABLE_AHEAD] & c->mask]);
    if (r + RTABLE_AHEAD < end)
        __builtin_prefetch(t->arena + t->start[e[r + RTABLE_AHEAD] & c->mask]);
}

/* What follows a run of equal words at (phase, depth), its first entry x: 1 and
 * the next (phase, depth), or 0 where its records are in order already (equal
 * keys and no last resort, or equal lines). */
static int ties_next(const rties_t *c, uint64_t x, uint64_t w, int *phase, size_t *depth)
{
    if (*phase == KEYS) {
        int more;
        ties_word(c, x, KEYS, *depth, &more);
        if (more) {
            (*depth)++;
            return 1;
        }
        if (!c->t->rk.last_resort)
            return 0;
        *phase = LINES;
        *depth = 0;
        return 1;
    }
    uint64_t said = (c->t->rk.last_reverse ? ~w : w) & 0xFF;
    if (said != 8)
        return 0;   /* the lines end here, equal */
    (*depth)++;
    return 1;
}

/* Entries of equal words compared in full (the last resort included), then by
 * their lines: qsort_r is not stable. */
static int ties_cmp(const void *x, const void *y, void *arg)
{
    const rties_t *c = arg;
    size_t a = (size_t)(*(const uint64_t *)x & c->mask), b = (size_t)(*(const uint64_t *)y & c->mask);
    int r = rorder_tie(c->t, a, b);
    return r ? r : (a > b) - (a < b);
}

/* Where a run starts: its first (phase, depth), its first words being equal. */
static void ties_start(const rties_t *c, int *phase, size_t *depth)
{
    *phase = c->t->rk.exact ? LINES : KEYS;
    *depth = c->t->rk.exact ? 0 : 1;
}

/* How many bytes from byte 7 * depth on the lines of e[lo..hi) all share with line
 * e[0] (the shortest's rest at most): a run of equal lines so far goes on past
 * them at once, not a word at a time. */
static size_t ties_common(const rties_t *c, const uint64_t *e, size_t lo, size_t hi,
                          size_t depth)
{
    const rtable_t *t = c->t;
    size_t off = 7 * depth, len0;
    const char *l0 = rtable_line(t, (size_t)(e[0] & c->mask), &len0);
    size_t common = len0 - 1 > off ? len0 - 1 - off : 0;
    for (size_t r = lo; r < hi && common; r++) {
        ties_ahead(c, e, r, hi);
        size_t len;
        const char *p = rtable_line(t, (size_t)(e[r] & c->mask), &len);
        size_t have = len - 1 > off ? len - 1 - off : 0, k = 0;
        if (have < common)
            common = have;
        while (k < common && p[off + k] == l0[off + k])
            k++;
        common = k;
    }
    return common;
}

/* The depth a run of lines goes on at, past the words they all share: its words
 * at depth - 1 were equal, and from byte 7 * from on they share common bytes
 * (ties_common()); every word wholly inside those, and with lines going on past
 * it, is equal too. */
static size_t ties_past(size_t depth, size_t from, size_t common)
{
    size_t end = 7 * from + common;   /* the bytes every line has, alike */
    size_t past = end ? (end - 1) / 7 : 0;
    return past > depth ? past : depth;
}

static int ties_room(rties_mem_t *mem, size_t n)
{
    if (n <= mem->cap)
        return GS_OK;
    rties_mem_free(mem);
    mem->w = malloc(sizeof(uint64_t) * n);
    mem->wt = malloc(sizeof(uint64_t) * n);
    mem->et = malloc(sizeof(uint64_t) * n);
    if (!mem->w || !mem->wt || !mem->et) {
        rties_mem_free(mem);
        return GS_ENOMEM;
    }
    mem->cap = n;
    return GS_OK;
}

/* e[0..n) of equal words up to (phase, depth), by one thread; w, wt, et: scratch
 * beside e; nest: the runs this one is inside. */
static void ties_run(const rties_t *c, uint64_t *e, uint64_t *w, uint64_t *wt, uint64_t *et,
                     size_t n, int phase, size_t depth, size_t nest)
{
    for (;;) {
        if (n < 2)
            return;
        if (n <= TIES_COMPARE_MAX || nest > TIES_DEPTH_MAX ||
            (phase == KEYS && depth > TIES_DEPTH_MAX)) {
            qsort_r(e, n, sizeof *e, ties_cmp, (void *)c);
            return;
        }
        int more;
        uint64_t differ = 0;
        for (size_t i = 0; i < n; i++) {
            ties_ahead(c, e, i, n);
            w[i] = ties_word(c, e[i], phase, depth, &more);
            differ |= w[i] ^ w[0];
        }
        if (!differ) {   /* one run still: on to the next words, in this loop */
            int was = phase;
            size_t from = depth;
            if (!ties_next(c, e[0], w[0], &phase, &depth))
                return;
            if (was == LINES)
                depth = ties_past(depth, from, ties_common(c, e, 1, n, from));
            continue;
        }
        void *res = radix_sort_cpu_pairs(NULL, w, e, wt, et, n, 8, 0);
        if (!res) {   /* no memory for its counters: comparisons need none */
            qsort_r(e, n, sizeof *e, ties_cmp, (void *)c);
            return;
        }
        if (res == wt) {
            memcpy(w, wt, sizeof *w * n);
            memcpy(e, et, sizeof *e * n);
        }
        for (size_t x = 0, y; x < n; x = y) {
            for (y = x + 1; y < n && w[y] == w[x]; y++)
                ;
            int ph = phase;
            size_t d = depth;
            if (y - x > 1 && ties_next(c, e[x], w[x], &ph, &d))
                ties_run(c, e + x, w + x, wt + x, et + x, y - x, ph, d, nest + 1);
        }
        return;
    }
}

int rties_settle(const rties_t *c, rties_mem_t *mem, uint64_t *e, size_t n)
{
    if (n > TIES_COMPARE_MAX && ties_room(mem, n) != GS_OK)
        return err_set(GS_ENOMEM, "out of memory");
    int phase;
    size_t depth;
    ties_start(c, &phase, &depth);
    ties_run(c, e, mem->w, mem->wt, mem->et, n, phase, depth, 0);
    return GS_OK;
}

void rties_mem_free(rties_mem_t *mem)
{
    free(mem->w);
    free(mem->wt);
    free(mem->et);
    *mem = (rties_mem_t){ 0 };
}

/* ---- a long run, by every thread ------------------------------------------------------ */

typedef struct {
    const rties_t *c;
    uint64_t *e, *w, *wt, *et;
    size_t n;
    int phase;
    size_t depth;
    size_t shared_min;         /* runs this long are the pool's */
    size_t nest;               /* the runs this one is inside */
    uint64_t *differ;          /* a thread's words' difference from w[0]; or the bytes
                                  its lines share with e[0]'s */
    size_t *start;             /* nt + 1: thread i's runs start in [start[i], start[i + 1]) */
    size_t (*longer)[2];       /* runs left for the pool: [start, end) */
    atomic_size_t nlonger;
} shared_job_t;

static void shared_words(void *arg, int i, int nt)
{
    shared_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    uint64_t differ = 0, first = 0;
    int more;
    if (j->n)
        first = ties_word(j->c, j->e[0], j->phase, j->depth, &more);
    for (size_t r = lo; r < hi; r++) {
        ties_ahead(j->c, j->e, r, hi);
        j->w[r] = ties_word(j->c, j->e[r], j->phase, j->depth, &more);
        differ |= j->w[r] ^ first;
    }
    j->differ[i] = differ;
}

/* Where thread i's runs start: at its even share's start, moved past the run that
 * started before it (the words are sorted: a binary search), found before any
 * thread moves a word. */
static void shared_starts(void *arg, int i, int nt)
{
    shared_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    if (lo > 0 && lo < j->n && j->w[lo] == j->w[lo - 1]) {
        uint64_t v = j->w[lo - 1];
        size_t a = lo, b = j->n;   /* the first word above v is in [a, b] */
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (j->w[m] == v)
                a = m + 1;
            else
                b = m;
        }
        lo = a;
    }
    j->start[i] = lo;
}

/* Thread i's runs of equal words: a run of shared_min or more is left for the
 * pool, the others settled here. */
static void shared_runs(void *arg, int i, int nt)
{
    shared_job_t *j = arg;
    (void)nt;
    size_t lo = j->start[i], hi = j->start[i + 1];
    /* Runs end by hi (a run's start): w[hi] on is the next thread's, moving. */
    for (size_t x = lo, y; x < hi; x = y) {
        for (y = x + 1; y < hi && j->w[y] == j->w[x]; y++)
            ;
        int ph = j->phase;
        size_t d = j->depth;
        if (y - x < 2 || !ties_next(j->c, j->e[x], j->w[x], &ph, &d))
            continue;
        if (y - x >= j->shared_min && j->nest + 1 <= TIES_DEPTH_MAX &&
            (ph == LINES || d <= TIES_DEPTH_MAX)) {
            size_t at = atomic_fetch_add(&j->nlonger, 1);
            j->longer[at][0] = x;
            j->longer[at][1] = y;
            continue;
        }
        /* The words' scratch beside the run is the run's own. */
        ties_run(j->c, j->e + x, j->w + x, j->wt + x, j->et + x, y - x, ph, d, j->nest + 1);
    }
}

/* Thread i's share: the bytes its lines share with e[0]'s (ties_common()). */
static void shared_common(void *arg, int i, int nt)
{
    shared_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    j->differ[i] = ties_common(j->c, j->e, lo, hi, j->depth);
}

size_t rties_shared_min(const pool_t *pool, size_t whole)
{
    size_t share = whole / ((size_t)pool_size(pool) * TIES_SHARES);
    return share > TIES_SHARED_MIN ? share : TIES_SHARED_MIN;
}

static int shared_run(const rties_t *c, pool_t *pool, uint64_t *e, uint64_t *w, uint64_t *wt,
                      uint64_t *et, size_t n, int phase, size_t depth, size_t shared_min,
                      size_t nest)
{
    int nt = pool_size(pool);
    shared_job_t j = { .c = c, .e = e, .w = w, .wt = wt, .et = et, .n = n,
                       .shared_min = shared_min, .nest = nest,
                       .differ = calloc((size_t)nt, sizeof(uint64_t)),
                       .start = malloc(sizeof(size_t) * ((size_t)nt + 1)),
                       .longer = malloc(sizeof *j.longer * (n / shared_min + 1)) };
    if (!j.differ || !j.start || !j.longer) {
        free(j.differ);
        free(j.start);
        free(j.longer);
        return err_set(GS_ENOMEM, "out of memory");
    }
    atomic_init(&j.nlonger, 0);
    int rc = GS_OK;
    for (;;) {
        if (phase == KEYS && depth > TIES_DEPTH_MAX) {   /* comparisons, on this thread */
            ties_run(c, e, w, wt, et, n, phase, depth, nest);
            break;
        }
        j.phase = phase;
        j.depth = depth;
        pool_run(pool, shared_words, &j);
        uint64_t differ = 0;
        for (int i = 0; i < nt; i++)
            differ |= j.differ[i];
        if (!differ) {   /* one run still: on to the next words, in this loop */
            int was = phase;
            size_t from = depth;
            if (!ties_next(c, e[0], w[0], &phase, &depth))
                break;
            if (was == LINES) {
                pool_run(pool, shared_common, &j);
                size_t common = SIZE_MAX;
                for (int i = 0; i < nt; i++)
                    common = j.differ[i] < common ? j.differ[i] : common;
                depth = ties_past(depth, from, common);
            }
            continue;
        }
        void *res = radix_sort_cpu_pairs(pool, w, e, wt, et, n, 8, 0);
        if (!res) {
            rc = err_set(GS_ENOMEM, "out of memory");
            break;
        }
        if (res == wt) {
            mem_copy(pool, w, wt, sizeof *w * n);
            mem_copy(pool, e, et, sizeof *e * n);
        }
        pool_run(pool, shared_starts, &j);
        j.start[nt] = n;
        pool_run(pool, shared_runs, &j);
        for (size_t k = 0; k < j.nlonger && rc == GS_OK; k++) {
            size_t x = j.longer[k][0], y = j.longer[k][1];
            int ph = phase;
            size_t d = depth;
            ties_next(c, e[x], w[x], &ph, &d);
            rc = shared_run(c, pool, e + x, w + x, wt + x, et + x, y - x, ph, d, shared_min,
                            nest + 1);
        }
        break;
    }
    free(j.differ);
    free(j.start);
    free(j.longer);
    return rc;
}

int rties_settle_shared(const rties_t *c, pool_t *pool, uint64_t *e, size_t n, size_t whole)
{
    uint64_t *w = mem_alloc(sizeof *w * n * 3);
    if (!w)
        return err_set(GS_ENOMEM, "out of memory");
    int phase;
    size_t depth;
    ties_start(c, &phase, &depth);
    int rc = shared_run(c, pool, e, w, w + n, w + 2 * n, n, phase, depth,
                        rties_shared_min(pool, whole), 0);
    free(w);
    return rc;
}
