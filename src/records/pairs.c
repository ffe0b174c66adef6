/* SPDX-License-Identifier: MIT */
/* pairs.c: pairs sorted by key, stably (see pairs.h).
 *
 * A radix sort by bytes, only on the bytes where the keys differ, MSD first and LSD
 * in cache, as the CPU chunk sorter sorts bare keys (sorter/cpu.c): one parallel
 * pass scatters the pairs by the highest byte where keys differ, into 256 buckets;
 * each bucket is then finished by one thread (the threads take them in turn) where
 * it fits in a core's cache (RADIX_BUCKET_CACHE), by LSD passes on the bytes below
 * that differ in it, their counts taken in one read; a larger bucket is scattered
 * again by its own highest such byte, by one thread, or by all where it holds a
 * good part of the pairs. Out of cache, each pass of a plain LSD sort reads and
 * writes every pair from memory, and eight of them did for words of text.
 * A few pairs (a run of equal words, ties.c) are sorted by insertion. Every step
 * keeps the order of pairs of equal keys: the sort is stable.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/tuning.h"
#include "records/pairs.h"

#define PAIR_BYTES (2 * sizeof(uint64_t))

/* ---- one thread ------------------------------------------------------------------- */

/* The pairs of a, of n, scattered stably into b by the byte at shift, whose counts
 * are cnt[256]; *off[256] each bucket's start in b. */
static void pairs_scatter1(const uint64_t *ak, const uint64_t *av, uint64_t *bk, uint64_t *bv,
                           size_t n, int shift, const size_t *cnt, size_t *off)
{
    size_t at[256], place = 0;
    for (int d = 0; d < 256; d++) {
        off[d] = at[d] = place;
        place += cnt[d];
    }
    for (size_t r = 0; r < n; r++) {
        size_t d = at[(ak[r] >> shift) & 0xFF]++;
        bk[d] = ak[r];
        bv[d] = av[r];
    }
}

/* Sort the n pairs of a stably by their bytes below limit (a shift, 8 to 64), b
 * scratch of n: 0 where the result is in a, 1 where in b. */
static int pairs_sort1(uint64_t *ak, uint64_t *av, uint64_t *bk, uint64_t *bv, size_t n,
                       int limit)
{
    if (n <= PAIRS_INSERTION) {   /* a few (runs of equal words, mostly): in place */
        for (size_t r = 1; r < n; r++) {
            uint64_t k = ak[r], v = av[r];
            size_t i = r;
            for (; i > 0 && ak[i - 1] > k; i--) {   /* equal keys stay behind: stable */
                ak[i] = ak[i - 1];
                av[i] = av[i - 1];
            }
            ak[i] = k;
            av[i] = v;
        }
        return 0;
    }
    size_t cnt[8][256];
    int nb = limit / 8;
    memset(cnt, 0, sizeof cnt[0] * (size_t)nb);
    for (size_t r = 0; r < n; r++) {
        uint64_t x = ak[r];
        for (int b = 0; b < nb; b++)
            cnt[b][(x >> (8 * b)) & 0xFF]++;
    }
    /* a byte where every key agrees has one count of n */
    int vary[8], nv = 0;
    for (int b = 0; b < nb; b++)
        if (cnt[b][(ak[0] >> (8 * b)) & 0xFF] != n)
            vary[nv++] = b;
    if (nv == 0)
        return 0;
    size_t off[256];
    if (n * PAIR_BYTES <= RADIX_BUCKET_CACHE) {   /* LSD, in cache */
        int where = 0;
        for (int i = 0; i < nv; i++) {
            if (where)
                pairs_scatter1(bk, bv, ak, av, n, 8 * vary[i], cnt[vary[i]], off);
            else
                pairs_scatter1(ak, av, bk, bv, n, 8 * vary[i], cnt[vary[i]], off);
            where ^= 1;
        }
        return where;
    }
    /* MSD: by the highest byte that differs, then each bucket by the bytes below */
    int top = vary[nv - 1];
    pairs_scatter1(ak, av, bk, bv, n, 8 * top, cnt[top], off);
    for (int d = 0; d < 256; d++) {
        size_t len = cnt[top][d], o = off[d];
        if (pairs_sort1(bk + o, bv + o, ak + o, av + o, len, 8 * top) == 1) {
            memcpy(bk + o, ak + o, len * sizeof *bk);
            memcpy(bv + o, av + o, len * sizeof *bv);
        }
    }
    return 1;
}

/* ---- all the pool's threads ------------------------------------------------------- */

typedef struct {
    uint64_t *k, *v, *kt, *vt;   /* the pairs, and where the scatter writes them */
    size_t n;
    int shift;                   /* the scatter's byte */
    size_t (*count)[256];        /* a thread's counts, then its places */
    uint64_t *any, *all;         /* a thread's OR and AND of its keys */
    size_t bucket[257];          /* after the scatter: bucket d at [bucket[d], bucket[d+1]) */
    size_t next;                 /* the next bucket to take (atomic) */
    size_t big;                  /* buckets above this many pairs: all the threads */
} pairs_job_t;

static void pairs_bits(void *arg, int i, int nt)
{
    pairs_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    uint64_t any = 0, all = ~0ull;
    for (size_t r = lo; r < hi; r++) {
        any |= j->k[r];
        all &= j->k[r];
    }
    j->any[i] = any;
    j->all[i] = all;
}

/* Each thread counts its slice, then scatters it to its own places in every
 * bucket. */
static void pairs_count(void *arg, int i, int nt)
{
    pairs_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    size_t *c = j->count[i];
    memset(c, 0, sizeof j->count[i]);
    for (size_t r = lo; r < hi; r++)
        c[(j->k[r] >> j->shift) & 0xFF]++;
}

static void pairs_scatter(void *arg, int i, int nt)
{
    pairs_job_t *j = arg;
    size_t lo, hi;
    pool_share(j->n, i, nt, &lo, &hi);
    size_t *at = j->count[i];
    for (size_t r = lo; r < hi; r++) {
        size_t d = at[(j->k[r] >> j->shift) & 0xFF]++;
        j->kt[d] = j->k[r];
        j->vt[d] = j->v[r];
    }
}

/* The buckets of at most j->big pairs, each by the thread that takes it, into kt
 * and vt (k and v their scratch). */
static void pairs_buckets(void *arg, int i, int nt)
{
    (void)i;
    (void)nt;
    pairs_job_t *j = arg;
    for (;;) {
        size_t d = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (d >= 256)
            return;
        size_t o = j->bucket[d], len = j->bucket[d + 1] - o;
        if (len > j->big)
            continue;
        if (pairs_sort1(j->kt + o, j->vt + o, j->k + o, j->v + o, len, j->shift) == 1) {
            memcpy(j->kt + o, j->k + o, len * sizeof *j->k);
            memcpy(j->vt + o, j->v + o, len * sizeof *j->v);
        }
    }
}

static void pairs_run(pool_t *pool, int nt, pool_fn_t fn, void *arg)
{
    if (nt > 1)
        pool_run(pool, fn, arg);
    else
        fn(arg, 0, 1);
}

/* rpairs_sort() on the pool's nt threads; limit: the bytes below this shift alone
 * may differ. */
static int pairs_sort(pool_t *pool, int nt, uint64_t *k, uint64_t *v, uint64_t *kt,
                      uint64_t *vt, size_t n, int limit)
{
    if (nt < 2 || n * PAIR_BYTES <= RADIX_BUCKET_CACHE)
        return pairs_sort1(k, v, kt, vt, n, limit);
    pairs_job_t *j = malloc(sizeof *j);
    size_t (*count)[256] = malloc(sizeof *count * (size_t)nt);
    uint64_t *bits = malloc(sizeof *bits * 2 * (size_t)nt);
    if (!j || !count || !bits) {
        free(j);
        free(count);
        free(bits);
        return -1;
    }
    *j = (pairs_job_t){ .k = k, .v = v, .kt = kt, .vt = vt, .n = n, .count = count,
                        .any = bits, .all = bits + nt, .big = n / (size_t)nt / 2 };
    pairs_run(pool, nt, pairs_bits, j);
    uint64_t any = 0, all = ~0ull;
    for (int i = 0; i < nt; i++) {
        any |= j->any[i];
        all &= j->all[i];
    }
    uint64_t diff = limit < 64 ? (any ^ all) & ((1ull << limit) - 1) : any ^ all;
    int where = 0;
    if (diff) {
        j->shift = (63 - __builtin_clzll(diff)) & ~7;   /* the highest byte that differs */
        pairs_run(pool, nt, pairs_count, j);
        size_t place = 0;
        for (int d = 0; d < 256; d++) {
            j->bucket[d] = place;
            for (int i = 0; i < nt; i++) {
                size_t c = j->count[i][d];
                j->count[i][d] = place;
                place += c;
            }
        }
        j->bucket[256] = place;
        pairs_run(pool, nt, pairs_scatter, j);
        /* the largest buckets by every thread, one after another; then the rest */
        for (int d = 0; d < 256 && where == 0; d++) {
            size_t o = j->bucket[d], len = j->bucket[d + 1] - o;
            if (len <= j->big)
                continue;
            int w = pairs_sort(pool, nt, kt + o, vt + o, k + o, v + o, len, j->shift);
            if (w < 0)
                where = -1;
            else if (w == 1) {
                memcpy(kt + o, k + o, len * sizeof *k);
                memcpy(vt + o, v + o, len * sizeof *v);
            }
        }
        if (where == 0) {
            pairs_run(pool, nt, pairs_buckets, j);
            where = 1;
        }
    }
    free(j);
    free(count);
    free(bits);
    return where;
}

int rpairs_sort(pool_t *pool, uint64_t *k, uint64_t *v, uint64_t *kt, uint64_t *vt,
                size_t n)
{
    return pairs_sort(pool, pool ? pool_size(pool) : 1, k, v, kt, vt, n, 64);
}
