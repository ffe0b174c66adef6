/* SPDX-License-Identifier: MIT */
/* check_smerge.c: unit tests of pipeline/smerge.h, the merge by sorting key ranges.
 *
 * smerge_cut: over random runs (few distinct values, long repeats, the largest key
 * of the width), every piece holds between 1 and cap keys, no key of a piece is
 * greater than a key left for later, "same" pieces are one value, and the pieces
 * use up every run. smerge_runs with the CPU sorter, through a binary output file:
 * the file equals qsort of all the keys (with -u, qsort then adjacent repeats
 * dropped by a loop written here), for small caps that force many pieces, with
 * some runs spilled to files (read back by rank, block by block), and through a
 * FIFO, where the pieces' pages go into the pipe themselves (output_hand); and with
 * a sorter that sorts aside (submit, on a thread and pool of its own, as a GPU
 * does; one at a time, or two, the next submitted before the oldest is waited for)
 * and asks for its buffers pinned, some lent by the caller: the same results,
 * every buffer pinned is unpinned, lent ones are left alone, the sorter is never
 * called while a sort is aside nor given more than its depth, and pieces do go
 * aside (two at once at depth 2), but never where pinning fails. run_ranks, the
 * runs' ranks the merges lay out and cut by, against a binary search of the keys.
 * pmerge_runs, the parallel merge, through a sink that keeps the keys as delivered
 * and one that places them: 1 to 20 runs (a tree of two-way merges up to 16, the
 * loser tree past it), some spilled, every distribution of make_runs, with and
 * without -u, against qsort.
 */
#include <config.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include "core/error.h"
#include "io/output.h"
#include "io/output_impl.h"   /* output_bytes_mapped() */
#include "merge/pmerge.h"
#include "pipeline/smerge.h"
#include "sorter/backend.h"
#include "check_suites.h"

#define MAXRUNS 9

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t get(const void *k, size_t i, int w)
{
    return w == 4 ? ((const uint32_t *)k)[i] : ((const uint64_t *)k)[i];
}

static void put(void *k, size_t i, int w, uint64_t v)
{
    if (w == 4)
        ((uint32_t *)k)[i] = (uint32_t)v;
    else
        ((uint64_t *)k)[i] = v;
}

/* nruns sorted runs of random sizes (some empty) with values from one of several
 * distributions; also all their keys as u64 in *all (count in *total). */
static void make_runs(uint64_t *seed, int w, int nruns, void **runs, size_t *n, size_t maxn,
                      uint64_t **all, size_t *total)
{
    int dist = (int)ck_rng_below(seed, 4);
    uint64_t top = w == 4 ? UINT32_MAX : UINT64_MAX;
    *total = 0;
    for (int r = 0; r < nruns; r++)
        *total += (n[r] = (size_t)ck_rng_below(seed, maxn + 1));
    *all = malloc(sizeof **all * (*total + 1));
    ck_assert_ptr_nonnull(*all);
    size_t at = 0;
    for (int r = 0; r < nruns; r++) {
        uint64_t *tmp = malloc(sizeof *tmp * (n[r] + 1));
        runs[r] = malloc((size_t)w * (n[r] + 1));
        ck_assert(tmp && runs[r]);
        for (size_t i = 0; i < n[r]; i++) {
            uint64_t v = ck_rng_next(seed);
            switch (dist) {
            case 0: v &= top; break;                               /* uniform */
            case 1: v = ck_rng_below(seed, 5); break;              /* few values */
            case 2: v = ck_rng_below(seed, 4) ? 7 : v & top; break; /* one long repeat */
            default: v = ck_rng_below(seed, 3) ? top : v & top; break; /* the top key */
            }
            tmp[i] = v;
        }
        qsort(tmp, n[r], sizeof *tmp, cmp_u64);
        for (size_t i = 0; i < n[r]; i++) {
            put(runs[r], i, w, tmp[i]);
            (*all)[at++] = tmp[i];
        }
        free(tmp);
    }
    qsort(*all, *total, sizeof **all, cmp_u64);
}

/* The runs of make_runs's keys (theirs from now on); with spill, two in three of
 * them spilled under dir, each with LZ4 or raw blocks. */
static void make_store(uint64_t *seed, int w, int nruns, void **keys, const size_t *n,
                       int spill, const char *dir, pool_t *pool, run_t **runs)
{
    for (int r = 0; r < nruns; r++) {
        ck_assert_int_eq(run_from_memory(&runs[r], keys[r], n[r], w), GS_OK);
        if (spill && ck_rng_below(seed, 3) > 0) {
            runcfg_t rc = { .tmpdirs = &dir, .ntmpdirs = 1, .width = w, .pool = pool,
                            .compress = ck_rng_below(seed, 2) ? COMPRESS_LZ4 : COMPRESS_NONE };
            ck_assert_int_eq(run_spill(runs[r], &rc), GS_OK);
            ck_assert(!run_in_memory(runs[r]) || n[r] == 0);
        }
    }
}

/* _i: width 4 or 8 by parity */
START_TEST(test_smerge_cut_pieces)
{
    int w = _i % 2 ? 8 : 4;
    uint64_t seed = 0x5c0f + (uint64_t)_i;
    for (int rep = 0; rep < 150; rep++) {
        int nruns = 1 + (int)ck_rng_below(&seed, MAXRUNS);
        void *runs[MAXRUNS];
        size_t n[MAXRUNS], pos[MAXRUNS] = { 0 }, end[MAXRUNS];
        uint64_t *all;
        size_t total;
        make_runs(&seed, w, nruns, runs, n, 300, &all, &total);
        size_t cap = 1 + (size_t)ck_rng_below(&seed, 120), taken = 0;
        while (taken < total) {
            int same;
            size_t m = smerge_cut((const void *const *)runs, n, nruns, w, pos, cap, end, &same);
            ck_assert_uint_ge(m, 1);
            ck_assert_uint_le(m, cap);
            uint64_t piece_max = 0, first = 0;
            int have = 0;
            size_t sum = 0;
            for (int r = 0; r < nruns; r++) {
                ck_assert_uint_ge(end[r], pos[r]);
                ck_assert_uint_le(end[r], n[r]);
                sum += end[r] - pos[r];
                for (size_t i = pos[r]; i < end[r]; i++) {
                    uint64_t v = get(runs[r], i, w);
                    if (!have)
                        first = v;
                    have = 1;
                    if (same)
                        ck_assert_uint_eq(v, first);
                    piece_max = v > piece_max ? v : piece_max;
                }
            }
            ck_assert_uint_eq(sum, m);
            /* The piece's keys are exactly the next m keys of the sorted whole. */
            ck_assert_uint_eq(piece_max, all[taken + m - 1]);
            for (int r = 0; r < nruns; r++)
                if (end[r] < n[r])
                    ck_assert_uint_ge(get(runs[r], end[r], w), piece_max);
            memcpy(pos, end, sizeof pos);
            taken += m;
        }
        for (int r = 0; r < nruns; r++) {
            ck_assert_uint_eq(pos[r], n[r]);
            free(runs[r]);
        }
        free(all);
    }
}
END_TEST

/* A FIFO's reader: everything written to path, into buf (cap bytes); len set. */
typedef struct {
    const char *path;
    unsigned char *buf;
    size_t cap, len;
} fifo_reader_t;

static void *fifo_read_all(void *arg)
{
    fifo_reader_t *f = arg;
    int fd = open(f->path, O_RDONLY);
    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t n = read(fd, f->buf + f->len, f->cap - f->len);
        if (n <= 0)
            break;
        f->len += (size_t)n;
    }
    close(fd);
    return NULL;
}

/* A sorter that sorts aside as the GPU's does (sorter/backend.h): the CPU radix
 * sort on a thread and pool of its own, pieces of at most max_keys; with depth 2,
 * two sorts aside at once (each on a thread, pool and CPU sorter of its own), waited
 * for in the order submitted. It counts what smerge does with it; a sort here while
 * one is aside, or a submit past the depth, is counted as misuse. */
typedef struct {
    pthread_t thread;
    pool_t *pool;
    sorter_t *cpu;
    sort_job_t *job;
    int rc, busy;
} aside_slot_t;

typedef struct {
    sorter_t base;
    aside_slot_t slot[2];
    int head, n, depth, most;   /* the oldest slot, the slots in use, the most at once */
    int pins, asides, misuse;
    int pin_ret;             /* what pin() returns: 1 pinned, 0 could not */
} aside_sorter_t;

static int as_sort(sorter_t *s, sort_job_t *job)
{
    aside_sorter_t *a = (aside_sorter_t *)s;
    a->misuse += a->n > 0;
    return sorter_sort(a->slot[0].cpu, job);
}

static void *as_main(void *arg)
{
    aside_slot_t *t = arg;
    t->rc = sorter_sort(t->cpu, t->job);
    return NULL;
}

static int as_submit(sorter_t *s, sort_job_t *job)
{
    aside_sorter_t *a = (aside_sorter_t *)s;
    a->misuse += a->n >= a->depth;
    aside_slot_t *t = &a->slot[(a->head + a->n) % 2];
    a->n++;
    a->most = a->n > a->most ? a->n : a->most;
    t->job = job;
    t->busy = 0;
    if (pthread_create(&t->thread, NULL, as_main, t) != 0) {
        t->rc = sorter_sort(t->cpu, job);
        return 0;
    }
    t->busy = 1;
    a->asides++;
    return 1;
}

static int as_wait(sorter_t *s)
{
    aside_sorter_t *a = (aside_sorter_t *)s;
    if (a->n == 0) {
        a->misuse++;
        return GS_OK;
    }
    aside_slot_t *t = &a->slot[a->head];
    a->head = (a->head + 1) % 2;
    a->n--;
    if (t->busy)
        pthread_join(t->thread, NULL);
    t->busy = 0;
    return t->rc;
}

static int as_pin(sorter_t *s, void *buf, size_t bytes)
{
    (void)buf;
    (void)bytes;
    aside_sorter_t *a = (aside_sorter_t *)s;
    a->pins += a->pin_ret;
    return a->pin_ret;
}

static void as_unpin(sorter_t *s, void *buf)
{
    (void)buf;
    ((aside_sorter_t *)s)->pins--;   /* a buffer never pinned goes negative */
}

static void as_destroy(sorter_t *s)
{
    (void)s;   /* embedded in the test's frame: aside_sorter_free() */
}

static const sorter_ops_t as_ops = {
    .sort = as_sort, .submit = as_submit, .wait = as_wait,
    .pin = as_pin, .unpin = as_unpin, .destroy = as_destroy,
};

static void aside_sorter_init(aside_sorter_t *a, size_t max_keys, int depth)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pool_create(&a->slot[i].pool, 2), 0);
        ck_assert_int_eq(sorter_cpu_create(&a->slot[i].cpu, a->slot[i].pool), GS_OK);
    }
    a->depth = depth;
    a->base.ops = &as_ops;
    a->base.name = "aside";
    a->base.caps = (sorter_caps_t){ .max_keys = max_keys, .aside = 1, .aside_depth = depth,
                                    .pins = 1 };
    a->pin_ret = 1;
}

static void aside_sorter_free(aside_sorter_t *a)
{
    for (int i = 0; i < 2; i++) {
        sorter_destroy(a->slot[i].cpu);
        pool_destroy(a->slot[i].pool);
    }
}

/* _i: width by parity, unique by _i / 2, some runs spilled (each with LZ4 or raw
 * blocks) by _i / 4, and by _i / 8 the output is a FIFO (read by a thread here),
 * which keeps the pieces' buffers (output_hands()): their pages into the pipe; from
 * _i 16 the sorter sorts aside (pieces of at most 2^16 keys, so that larger budgets
 * hold the buffer more; never into a FIFO, whose buffers are not pinned), from 32
 * two at once (aside_depth 2; no FIFO). */
START_TEST(test_smerge_runs_cpu)
{
    /* Under TSan (ck_sweep_thinned), the cases with a FIFO or a sorter aside, where
     * threads meet: the plain ones (_i < 8) and those with both (24 to 31) left to
     * the other builds. */
    if (ck_sweep_thinned() && (_i < 8 || (_i >= 24 && _i < 32)))
        return;
    int w = _i % 2 ? 8 : 4, unique = _i / 2 % 2, spill = _i / 4 % 2;
    int fifo = _i < 32 && _i / 8 % 2, aside = _i >= 16, depth = _i >= 32 ? 2 : 1;
    uint64_t seed = 0x5e11 + (uint64_t)_i;
    char dir[256], path[300];
    ck_tdir_make(dir, sizeof dir, "smerge");
    snprintf(path, sizeof path, "%s/out", dir);
    pool_t *pool;
    sorter_t *cpu;
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    ck_assert_int_eq(sorter_cpu_create(&cpu, pool), GS_OK);
    aside_sorter_t as;
    aside_sorter_init(&as, (size_t)1 << 16, depth);
    sorter_t *sorter = aside ? &as.base : cpu;
    keymap_t km;
    key_map_init(&km, w == 4 ? KEY_U32 : KEY_U64, 0);
    /* Spilled runs and FIFOs cost system calls and decoding (many times over under
     * the sanitizers): fewer and smaller runs there, still several blocks each. */
    /* Fewer rounds at a smaller GS_TEST_SCALE (the sanitizers'), never smaller runs:
     * the largest budget must still take several pieces, some of them aside; and
     * never fewer than 4 (5 spilled): the cases with two aside reach two at once
     * only in one of their later rounds. */
    int reps = spill || fifo ? 5 : (int)ck_scaled(12, 4);
    size_t maxn = spill || fifo ? 60000 : 150000;
    for (int rep = 0; rep < reps; rep++) {
        /* Two aside: the first round with every run and the largest budget, so that
         * pieces do go two at once. */
        int first2 = depth == 2 && rep == 0;
        int nruns = first2 ? MAXRUNS : 1 + (int)ck_rng_below(&seed, MAXRUNS);
        void *keys[MAXRUNS];
        size_t n[MAXRUNS];
        uint64_t *all;
        size_t total;
        make_runs(&seed, w, nruns, keys, n, maxn, &all, &total);
        run_t *runs[MAXRUNS];
        make_store(&seed, w, nruns, keys, n, spill, dir, pool, runs);
        /* budget: pieces of 2^16 keys (the least smerge makes) up to all of them */
        size_t budget = (2 * (size_t)w) << (16 + (first2 ? 4 : ck_rng_below(&seed, 5)));
        output_t *o;
        output_cfg_t cfg = { .path = path, .km = &km, .binary = 1, .pool = pool };
        fifo_reader_t fr = { .path = path, .cap = (size_t)w * (total + 1) };
        pthread_t reader;
        if (fifo) {
            unlink(path);
            ck_assert_int_eq(mkfifo(path, 0600), 0);
            fr.buf = malloc(fr.cap);
            ck_assert_ptr_nonnull(fr.buf);
            ck_assert_int_eq(pthread_create(&reader, NULL, fifo_read_all, &fr), 0);
        }
        ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
        ck_assert_int_eq(output_hands(o).kept, fifo);
        /* With the sorter aside, every other time two buffers are lent (as if pinned
         * by it): half the budget each, so that they hold any piece. */
        smerge_lent_t lent = { { NULL, NULL }, 0, budget / 2 };
        if (aside && rep % 2) {
            lent.n = 2;
            for (int i = 0; i < 2; i++)
                ck_assert_ptr_nonnull(lent.buf[i] = malloc(lent.bytes));
        }
        ck_assert_int_eq(smerge_runs(runs, nruns, w, unique, sorter, pool, budget, &lent, o),
                         GS_OK);
        for (int i = 0; i < lent.n; i++)
            free(lent.buf[i]);   /* still ours: a double free if the merge had freed it */
        ck_assert_int_eq(as.pins, 0);
        ck_assert_int_eq(as.misuse, 0);
        ck_assert_int_eq(as.n, 0);
        ck_assert_int_eq(output_commit(o), GS_OK);
        size_t expect = total;
        if (unique && total > 0) {
            expect = 1;
            for (size_t i = 1; i < total; i++)
                if (all[i] != all[expect - 1])
                    all[expect++] = all[i];
        }
        unsigned char *got;
        if (fifo) {
            pthread_join(reader, NULL);
            unlink(path);
            got = fr.buf;
            ck_assert_uint_eq(fr.len, (size_t)w * expect);
        } else {
            FILE *f = fopen(path, "rb");
            ck_assert_ptr_nonnull(f);
            got = malloc((size_t)w * (expect + 1));
            ck_assert_ptr_nonnull(got);
            ck_assert_uint_eq(fread(got, (size_t)w, expect + 1, f), expect);
            fclose(f);
        }
        size_t i = 0;   /* the first key that differs (an assertion a key is slow) */
        while (i < expect && get(got, i, w) == all[i])
            i++;
        ck_assert_msg(i == expect, "key %zu of %zu: %llu, expected %llu", i, expect,
                      i < expect ? (unsigned long long)get(got, i, w) : 0ULL,
                      i < expect ? (unsigned long long)all[i] : 0ULL);
        free(got);
        free(all);
        for (int r = 0; r < nruns; r++)
            run_free(runs[r]);
    }
    /* The largest budgets hold the buffer more: some pieces went aside, two at once
     * at depth 2. */
    ck_assert(!aside || fifo || as.asides > 0);
    ck_assert(!aside || fifo || as.most == depth);
    aside_sorter_free(&as);
    sorter_destroy(cpu);
    pool_destroy(pool);
    ck_remove_tree(dir);
}
END_TEST

/* run_ranks (runs by rank, as the merge's layout and smerge use them) against
 * key_lower_bound on the run's keys kept aside: runs of several blocks, in memory
 * and spilled (LZ4 and not), every distribution of make_runs; ascending values that
 * fall below, inside (each key of the run, and one more) and above the run, many in
 * one block and in many blocks. _i: width 4 or 8 by parity, spilled by _i / 2. */
START_TEST(test_runs_ranks)
{
    int w = _i % 2 ? 8 : 4, spill = _i / 2 % 2;
    uint64_t seed = 0x72616e6b + (uint64_t)_i;
    uint64_t top = w == 4 ? UINT32_MAX : UINT64_MAX;
    char dir[256];
    ck_tdir_make(dir, sizeof dir, "ranks");
    const char *dirs[1] = { dir };
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    void *buffers = malloc(run_cursor_bytes(w));
    ck_assert_ptr_nonnull(buffers);
    for (int rep = 0; rep < 6; rep++) {
        void *keys[1];
        size_t n[1];
        uint64_t *all;
        size_t total;
        make_runs(&seed, w, 1, keys, n, 70000, &all, &total);
        run_t *run;
        ck_assert_int_eq(run_from_memory(&run, keys[0], n[0], w), GS_OK);
        if (spill) {
            runcfg_t rc = { .tmpdirs = dirs, .ntmpdirs = 1, .width = w, .pool = pool,
                            .compress = rep % 2 ? COMPRESS_LZ4 : COMPRESS_NONE };
            ck_assert_int_eq(run_spill(run, &rc), GS_OK);
            ck_assert(!run_in_memory(run) || total == 0);
        }
        ck_assert_int_eq(run_open(run), GS_OK);
        /* values: 0, the top, random ones, and a sample of keys and key + 1 */
        size_t m = 0, cap = 2 * (total / 7 + 1) + 1000;
        uint64_t *v = malloc(sizeof *v * cap);
        size_t *idx = malloc(sizeof *idx * cap);
        ck_assert(v && idx);
        v[m++] = 0;
        v[m++] = top;
        for (int i = 0; i < 500; i++)
            v[m++] = ck_rng_next(&seed) & top;
        for (size_t i = 0; i < total && m + 2 <= cap; i += 1 + ck_rng_below(&seed, 13)) {
            v[m++] = all[i];
            if (all[i] < top)
                v[m++] = all[i] + 1;
        }
        qsort(v, m, sizeof *v, cmp_u64);
        ck_assert_int_eq(run_ranks(run, v, m, idx, buffers), GS_OK);
        for (size_t i = 0; i < m; i++) {
            size_t a = 0, b = total;   /* lower bound in all, the run's keys */
            while (a < b) {
                size_t mid = a + (b - a) / 2;
                if (all[mid] < v[i])
                    a = mid + 1;
                else
                    b = mid;
            }
            ck_assert_msg(idx[i] == a, "w %d spill %d: rank of %llu is %zu, %zu expected", w,
                          spill, (unsigned long long)v[i], idx[i], a);
        }
        run_close(run);
        run_free(run);
        free(v);
        free(idx);
        free(all);
    }
    free(buffers);
    pool_destroy(pool);
    ck_remove_tree(dir);
}
END_TEST

/* Pieces go aside only where the buffers could be pinned (staged, a piece aside
 * would only slow the gathering): the same runs merged with pinning refused, then
 * granted; both outputs in order with every key. */
START_TEST(test_smerge_aside_needs_pins)
{
    uint64_t seed = 0xa51de;
    char dir[256], path[300];
    ck_tdir_make(dir, sizeof dir, "smerge");
    snprintf(path, sizeof path, "%s/out", dir);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    aside_sorter_t as;
    aside_sorter_init(&as, (size_t)1 << 16, 1);
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    void *keys[4];
    size_t n[4];
    uint64_t *all;
    size_t total;
    for (;;) {   /* more keys than two pieces */
        make_runs(&seed, 4, 4, keys, n, 150000, &all, &total);
        if (total > (size_t)1 << 17)
            break;
        free(all);
        for (int r = 0; r < 4; r++)
            free(keys[r]);
    }
    for (int pins = 0; pins < 2; pins++) {
        run_t *runs[4];
        for (int r = 0; r < 4; r++)
            ck_assert_int_eq(run_view(&runs[r], keys[r], n[r], 4), GS_OK);
        as.pin_ret = pins;
        int before = as.asides;
        output_t *o;
        output_cfg_t cfg = { .path = path, .km = &km, .binary = 1, .pool = pool };
        ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
        /* room for four buffers of 2^16 keys: pieces of 2^16, one aside at a time */
        ck_assert_int_eq(smerge_runs(runs, 4, 4, 0, &as.base, pool, (size_t)16 << 16, NULL, o),
                         GS_OK);
        ck_assert_int_eq(output_commit(o), GS_OK);
        ck_assert_int_eq(as.pins, 0);
        if (pins)
            ck_assert_int_gt(as.asides, before);
        else
            ck_assert_int_eq(as.asides, before);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        uint32_t *got = malloc(4 * (total + 1));
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_eq(fread(got, 4, total + 1, f), total);
        fclose(f);
        size_t i = 0;   /* the first key that differs (an assertion a key is slow) */
        while (i < total && got[i] == all[i])
            i++;
        ck_assert_msg(i == total, "key %zu of %zu: %u, expected %llu", i, total,
                      i < total ? got[i] : 0u, i < total ? (unsigned long long)all[i] : 0ULL);
        free(got);
        for (int r = 0; r < 4; r++)
            run_free(runs[r]);
    }
    free(all);
    for (int r = 0; r < 4; r++)
        free(keys[r]);
    aside_sorter_free(&as);
    pool_destroy(pool);
    ck_remove_tree(dir);
}
END_TEST

/* ---- pmerge_runs ---------------------------------------------------------------- */

#define PM_TEST_RUNS 20

/* A sink keeping the bytes delivered, in order: whole keys each call (a run counts
 * them). */
typedef struct {
    unsigned char *buf;
    size_t len, cap, width;
} keep_sink_t;

static int keep_deliver(void *self, const void *bytes, size_t len)
{
    keep_sink_t *k = self;
    ck_assert_uint_le(k->len + len, k->cap);
    ck_assert_uint_eq(len % k->width, 0);
    memcpy(k->buf + k->len, bytes, len);
    k->len += len;
    return GS_OK;
}

/* _i: width by parity, unique by _i / 2, some runs spilled by _i / 4, into a file by
 * _i / 8 (laid out there and placed by the threads, all of it mapped where the file
 * system has fallocate; with -u delivered in order). Run counts: each of
 * 1..PM_TEST_RUNS, then random ones. */
START_TEST(test_pmerge_runs)
{
    int w = _i % 2 ? 8 : 4, unique = _i / 2 % 2, spill = _i / 4 % 2, placed = _i / 8 % 2;
    uint64_t seed = 0x93e6 + (uint64_t)_i;
    char dir[256];
    ck_tdir_make(dir, sizeof dir, "pmerge");
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    keymap_t km;
    key_map_init(&km, w == 4 ? KEY_U32 : KEY_U64, 0);
    char path[300];
    snprintf(path, sizeof path, "%s/out", dir);
    output_cfg_t ocfg = { .path = path, .km = &km, .binary = 1, .pool = pool };
    int reps = spill ? PM_TEST_RUNS : PM_TEST_RUNS + 6;
    for (int rep = 0; rep < reps; rep++) {
        int nruns = rep < PM_TEST_RUNS ? rep + 1 : 1 + (int)ck_rng_below(&seed, PM_TEST_RUNS);
        void *keys[PM_TEST_RUNS];
        size_t n[PM_TEST_RUNS];
        uint64_t *all;
        size_t total;
        /* runs in memory scaled (the least budget still cuts 20 of them into pieces);
         * spilled ones not: several blocks each */
        make_runs(&seed, w, nruns, keys, n, spill ? 24000 : ck_scaled(16000, 4000), &all, &total);
        run_t *runs[PM_TEST_RUNS];
        make_store(&seed, w, nruns, keys, n, spill, dir, pool, runs);
        for (int r = 0; r < nruns; r++)
            ck_assert_int_eq(run_open(runs[r]), GS_OK);
        keep_sink_t k = { .cap = (size_t)w * (total + 1), .width = (size_t)w };
        pmerge_sink_t sink = { NULL, keep_deliver, &k };
        output_t *o = NULL;
        if (placed) {
            ck_assert_int_eq(output_open(&o, &ocfg), GS_OK);
            sink = (pmerge_sink_t){ o, NULL, NULL };
        } else {
            ck_assert_ptr_nonnull(k.buf = malloc(k.cap));
        }
        /* budget: from the least (pieces held to a few batches) to plenty */
        size_t budget = (size_t)1 << (16 + ck_rng_below(&seed, 10));
        ck_assert_int_eq(pmerge_runs(runs, nruns, w, unique, pool, budget, &sink), GS_OK);
        if (placed) {
            ck_assert_uint_eq(output_bytes_mapped(o),
                              !unique && ck_can_fallocate(dir) ? (size_t)w * total : 0);
            ck_assert_int_eq(output_commit(o), GS_OK);
            k.buf = (unsigned char *)ck_read_file(path, &k.len);
        }
        size_t expect = total;
        if (unique && total > 0) {
            expect = 1;
            for (size_t i = 1; i < total; i++)
                if (all[i] != all[expect - 1])
                    all[expect++] = all[i];
        }
        ck_assert_uint_eq(k.len, (size_t)w * expect);
        size_t i = 0;   /* the first key that differs (an assertion a key is slow) */
        while (i < expect && get(k.buf, i, w) == all[i])
            i++;
        ck_assert_msg(i == expect, "key %zu of %zu: %llu, expected %llu", i, expect,
                      i < expect ? (unsigned long long)get(k.buf, i, w) : 0ULL,
                      i < expect ? (unsigned long long)all[i] : 0ULL);
        free(k.buf);
        free(all);
        for (int r = 0; r < nruns; r++) {
            run_close(runs[r]);
            run_free(runs[r]);
        }
    }
    pool_destroy(pool);
    ck_remove_tree(dir);
}
END_TEST

Suite *make_smerge_suite(void)
{
    Suite *s = suite_create("smerge");
    TCase *tc = ck_tcase("cut");
    tcase_add_loop_test(tc, test_smerge_cut_pieces, 0, 4);
    suite_add_tcase(s, tc);
    tc = ck_tcase("runs");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_smerge_runs_cpu, 0, 40);
    tcase_add_test(tc, test_smerge_aside_needs_pins);
    tcase_add_loop_test(tc, test_runs_ranks, 0, 4);
    suite_add_tcase(s, tc);
    tc = ck_tcase("pmerge");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_pmerge_runs, 0, 16);
    suite_add_tcase(s, tc);
    return s;
}
