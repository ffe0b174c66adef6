/* SPDX-License-Identifier: MIT */
/* check_sorter_cpu.c: unit tests of the CPU's radix sort (sorter/radix.c) and the
 * chunk sorter it backs (sorter/cpu.c): radix_sort_cpu, radix_sort_cpu_from and the
 * sorter_t against qsort, radix_sort_cpu_pairs against a stable sort of (key, input
 * position), for widths 4 and 8, pools of 1, 2 and 3 threads (and none, for pairs),
 * a sweep of sizes and the key distributions below.
 */
#include <config.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "core/error.h"
#include "core/pool.h"
#include "sorter/sorter.h"
#include "check_suites.h"

enum { D_RANDOM, D_EQUAL, D_SORTED, D_REVERSED, D_FEW, D_TOP_BYTE, D_BOTTOM_BYTE, D_SKEWED,
       D_OUTLIERS, D_MIDDLE, D_TOP_11, D_STRADDLE_12, D_TWO_BITS, D_HIDDEN_TOP, D_COUNT };
static const char *dist_names[D_COUNT] = { "random", "all equal", "sorted", "reversed",
                                           "3 distinct", "top byte only", "bottom byte only",
                                           "90% one top byte", "all but 1/5000 one top byte",
                                           "middle bytes only", "top 11 bits only",
                                           "bits 5..16 only", "the top and bottom bits only",
                                           "24 low bits, the last key's top bit" };

/* The sizes: 0..3, 2^k - 1 / 2^k / 2^k + 1 around 256, 1024 and 65536 (where the
 * sorter goes parallel), three random odd sizes up to 300000 (drawn in the test from
 * the index; past 1 MiB of keys it sorts MSD first) and 10^6. */
#define RANDOM_ODD (-1)
static const long sizes[] = { 0, 1, 2, 3, 7, 255, 256, 257, 1023, 1024, 1025, 65535, 65536,
                              65537, RANDOM_ODD, RANDOM_ODD, RANDOM_ODD, 1000000 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int cmp32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void put(void *keys, size_t i, int width, uint64_t v)
{
    if (width == 4)
        ((uint32_t *)keys)[i] = (uint32_t)v;
    else
        ((uint64_t *)keys)[i] = v;
}

/* Fill keys[0..n) with the distribution. */
static void generate(void *keys, size_t n, int width, int dist, uint64_t *seed)
{
    int shift = width * 8 - 8;
    uint64_t mask = width == 4 ? UINT32_MAX : UINT64_MAX;
    uint64_t base = ck_rng_next(seed) & mask;
    uint64_t few[3] = { ck_rng_next(seed) & mask, ck_rng_next(seed) & mask, ck_rng_next(seed) & mask };
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        switch (dist) {
        case D_EQUAL:       v = base; break;
        case D_FEW:         v = few[ck_rng_below(seed, 3)]; break;
        case D_TOP_BYTE:    v = (base & ~((uint64_t)0xff << shift)) | (ck_rng_next(seed) & 0xff) << shift; break;
        case D_BOTTOM_BYTE: v = (base & ~(uint64_t)0xff) | (ck_rng_next(seed) & 0xff); break;
        case D_SKEWED:      /* one huge bucket of the top digit, a few keys elsewhere */
            v = ck_rng_next(seed) & mask;
            if (ck_rng_below(seed, 10) != 0)
                v = (v & ~((uint64_t)0xff << shift)) | (base & ((uint64_t)0xff << shift));
            break;
        case D_OUTLIERS:    /* one huge bucket; the other buckets hold 0, 1, 2, ... keys */
            v = ck_rng_next(seed) & mask;
            if (ck_rng_below(seed, 5000) != 0)
                v = (v & ~((uint64_t)0xff << shift)) | (base & ((uint64_t)0xff << shift));
            break;
        case D_MIDDLE:      /* the top and bottom bytes fixed, the ones between random */
            v = (base & ((uint64_t)0xff << shift | 0xff)) | (ck_rng_next(seed) & (mask >> 8) & ~(uint64_t)0xff);
            break;
        case D_TOP_11:      /* exactly one MSD digit of 11 bits varies */
            v = (base & ~((uint64_t)0x7ff << (shift - 3))) |
                (ck_rng_next(seed) & 0x7ff) << (shift - 3);
            break;
        case D_STRADDLE_12: /* 12 bits across the 8-bit and 11-bit digit boundaries */
            v = (base & ~((uint64_t)0xfff << 5)) | (ck_rng_next(seed) & 0xfff) << 5;
            break;
        case D_TWO_BITS:    /* only the top and the bottom bit vary */
            v = (base & (mask >> 1) & ~(uint64_t)1) | (ck_rng_next(seed) & 1) |
                (ck_rng_next(seed) & 1) << (shift + 7);
            break;
        case D_HIDDEN_TOP:  /* a sample of evenly spaced keys misses the one high key */
            v = ck_rng_next(seed) & 0xffffff;
            if (i == n - 1)
                v |= (uint64_t)1 << (width * 8 - 1);
            break;
        default:            v = ck_rng_next(seed) & mask; break;
        }
        put(keys, i, width, v);
    }
    if (dist == D_SORTED || dist == D_REVERSED)
        qsort(keys, n, (size_t)width, width == 4 ? cmp32 : cmp64);
    if (dist == D_REVERSED) {
        unsigned char tmp[8], *k = keys;
        for (size_t i = 0; i < n / 2; i++) {
            memcpy(tmp, k + i * width, (size_t)width);
            memcpy(k + i * width, k + (n - 1 - i) * width, (size_t)width);
            memcpy(k + (n - 1 - i) * width, tmp, (size_t)width);
        }
    }
}

/* The first index where got and want differ, for the failure message. */
static size_t first_diff(const void *got, const void *want, size_t n, int width)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp((const char *)got + i * width, (const char *)want + i * width, (size_t)width))
            return i;
    return n;
}

static void check_result(const char *who, void *res, void *keys, void *tmp, const void *want,
                         size_t n, int width, int dist, int threads)
{
    ck_assert_msg(res == keys || res == tmp, "%s: result is neither keys nor tmp", who);
    if (n > 0 && memcmp(res, want, n * (size_t)width) != 0) {
        size_t i = first_diff(res, want, n, width);
        uint64_t g = width == 4 ? ((uint32_t *)res)[i] : ((uint64_t *)res)[i];
        uint64_t w = width == 4 ? ((const uint32_t *)want)[i] : ((const uint64_t *)want)[i];
        ck_abort_msg("%s: width %d, n %zu, %s, %d threads: key %zu is %#" PRIx64
                     ", expected %#" PRIx64, who, width, n, dist_names[dist], threads, i, g, w);
    }
}

/* The sweep's case _i (size index * D_COUNT + distribution): its distribution, its
 * seed (from seed0), pools of 1, 2 and 3 threads, and its size. */
static size_t sweep_case(int i, uint64_t seed0, int *dist, uint64_t *seed, pool_t *pools[3])
{
    int si = i / D_COUNT;
    *dist = i % D_COUNT;
    *seed = seed0 + (uint64_t)i * 7919;
    for (int t = 0; t < 3; t++)
        ck_assert_int_eq(pool_create(&pools[t], t + 1), 0);
    /* the large sizes scaled (ck_scaled); 10^6 never below where it sorts MSD first */
    return sizes[si] == RANDOM_ODD ? (size_t)(ck_rng_below(seed, ck_scaled(300000, 140000)) | 1)
           : sizes[si] > 65537     ? ck_scaled((size_t)sizes[si], 300000)
                                   : (size_t)sizes[si];
}

/* _i = size index * D_COUNT + distribution. For each width and pool size: sort a copy
 * with radix_sort_cpu and with the sorter, compare with the qsorted copy. */
START_TEST(test_sorter_cpu_matches_qsort)
{
    if (!ck_sweep_runs(_i, D_COUNT))   /* _i % D_COUNT: the distribution */
        return;
    int dist;
    uint64_t seed;
    pool_t *pools[3];
    size_t n = sweep_case(_i, 0x736f7274, &dist, &seed, pools);

    for (int width = 4; width <= 8; width += 4) {
        size_t bytes = (n + 1) * (size_t)width;
        void *input = malloc(bytes), *want = malloc(bytes);
        void *keys = malloc(bytes), *tmp = malloc(bytes);
        ck_assert(input && want && keys && tmp);
        generate(input, n, width, dist, &seed);
        memcpy(want, input, n * (size_t)width);
        qsort(want, n, (size_t)width, width == 4 ? cmp32 : cmp64);

        for (int t = 0; t < 3; t++) {
            memcpy(keys, input, n * (size_t)width);
            memset(tmp, 0xee, n * (size_t)width);
            void *res = radix_sort_cpu(pools[t], keys, tmp, n, width);
            check_result("radix_sort_cpu", res, keys, tmp, want, n, width, dist, t + 1);

            sorter_t *s = NULL;
            ck_assert_int_eq(sorter_cpu_create(&s, pools[t]), GS_OK);
            ck_assert_ptr_nonnull(s);
            ck_assert_ptr_nonnull(sorter_name(s));
            memcpy(keys, input, n * (size_t)width);
            memset(tmp, 0xee, n * (size_t)width);
            sort_job_t job = { .keys = keys, .scratch = tmp, .n = n, .width = width };
            ck_assert_int_eq(sorter_sort(s, &job), GS_OK);
            check_result("sorter_cpu", sort_job_result(&job), keys, tmp, want, n, width, dist,
                         t + 1);
            sorter_destroy(s);
        }
        free(input);
        free(want);
        free(keys);
        free(tmp);
    }
    for (int t = 0; t < 3; t++)
        pool_destroy(pools[t]);
}
END_TEST

/* radix_sort_cpu_from on the records' packed words: each key's bits from FROM up, its
 * index in the input below them (ascending, as the words are made in line order).
 * Sorted on the bits from FROM alone, stably, they must come out as sorted whole: the
 * qsorted copy. _i as above (but for 10^6 keys); width 8, FROM 21 (room for the
 * 10^6 keys' indices) and 40 (the key then shares its bits with nothing but the
 * index's top). */
START_TEST(test_radix_from_matches_qsort)
{
    if (!ck_sweep_runs(_i, D_COUNT))   /* _i % D_COUNT: the distribution */
        return;
    int dist;
    uint64_t seed;
    pool_t *pools[3];
    size_t n = sweep_case(_i, 0x66726f6d, &dist, &seed, pools);
    size_t bytes = (n + 1) * 8;
    uint64_t *input = malloc(bytes), *want = malloc(bytes), *keys = malloc(bytes),
             *tmp = malloc(bytes);
    ck_assert(input && want && keys && tmp);
    static const int froms[] = { 21, 40 };
    for (int fi = 0; fi < 2; fi++) {
        int from = froms[fi];
        uint64_t low = ((uint64_t)1 << from) - 1;
        generate(input, n, 8, dist, &seed);
        for (size_t i = 0; i < n; i++)
            input[i] = (input[i] & ~low) | (uint64_t)i;
        memcpy(want, input, n * 8);
        qsort(want, n, 8, cmp64);
        for (int t = 0; t < 3; t++) {
            memcpy(keys, input, n * 8);
            memset(tmp, 0xee, n * 8);
            void *res = radix_sort_cpu_from(pools[t], keys, tmp, n, 8, from);
            check_result("radix_sort_cpu_from", res, keys, tmp, want, n, 8, dist, t + 1);
        }
    }
    free(input);
    free(want);
    free(keys);
    free(tmp);
    for (int t = 0; t < 3; t++)
        pool_destroy(pools[t]);
}
END_TEST


/* radix_sort_cpu_pairs: each key with its input position as its value, sorted on the
 * key's bits from FROM up, must come out as a stable sort of (key's bits from FROM,
 * position) puts them, keys and values alike. _i as above (but for 10^6 keys);
 * widths 4 and 8; FROM 0 and half the key's bits; no pool (this thread alone) and
 * pools of 1 to 3 threads. */
typedef struct {
    uint64_t k, v, above;
} pair_ref_t;

static int pair_ref_cmp(const void *x, const void *y)
{
    const pair_ref_t *a = x, *b = y;
    uint64_t ka = a->k & a->above, kb = b->k & b->above;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

START_TEST(test_radix_pairs_stable)
{
    if (!ck_sweep_runs(_i, D_COUNT))   /* _i % D_COUNT: the distribution */
        return;
    int dist;
    uint64_t seed;
    pool_t *pools[3];
    size_t n = sweep_case(_i, 0x70616972, &dist, &seed, pools);
    void *input = malloc((n + 1) * 8), *keys = malloc((n + 1) * 8), *tmp = malloc((n + 1) * 8);
    uint64_t *vals = malloc((n + 1) * 8), *vtmp = malloc((n + 1) * 8);
    pair_ref_t *ref = malloc((n + 1) * sizeof *ref);
    ck_assert(input && keys && tmp && vals && vtmp && ref);
    for (int width = 4; width <= 8; width += 4) {
        generate(input, n, width, dist, &seed);
        for (int from = 0; from <= width * 4; from += width * 4) {
            uint64_t above = ~(uint64_t)0 << from;
            for (size_t i = 0; i < n; i++)
                ref[i] = (pair_ref_t){ width == 4 ? ((uint32_t *)input)[i] : ((uint64_t *)input)[i],
                                       i, above };
            qsort(ref, n, sizeof *ref, pair_ref_cmp);
            for (int t = -1; t < 3; t++) {
                memcpy(keys, input, n * (size_t)width);
                for (size_t i = 0; i < n; i++)
                    vals[i] = i;
                void *res = radix_sort_cpu_pairs(t < 0 ? NULL : pools[t], keys, vals, tmp, vtmp,
                                                 n, width, from);
                ck_assert_msg(res == keys || res == tmp, "the result is neither keys nor tmp");
                const uint64_t *gv = res == keys ? vals : vtmp;
                for (size_t i = 0; i < n; i++) {
                    uint64_t gk = width == 4 ? ((uint32_t *)res)[i] : ((uint64_t *)res)[i];
                    if (gk != ref[i].k || gv[i] != ref[i].v)
                        ck_abort_msg("width %d, from %d, n %zu, %s, %d threads: pair %zu is "
                                     "(%#" PRIx64 ", %" PRIu64 "), expected (%#" PRIx64
                                     ", %" PRIu64 ")", width, from, n, dist_names[dist], t + 1,
                                     i, gk, gv[i], ref[i].k, ref[i].v);
                }
            }
        }
    }
    free(input);
    free(keys);
    free(tmp);
    free(vals);
    free(vtmp);
    free(ref);
    for (int t = 0; t < 3; t++)
        pool_destroy(pools[t]);
}
END_TEST

/* One sorter sorts many chunks in a row (state must not leak between calls). */
START_TEST(test_sorter_cpu_reuse)
{
    uint64_t seed = 0x7265757365;
    pool_t *pool;
    sorter_t *s;
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    ck_assert_int_eq(sorter_cpu_create(&s, pool), GS_OK);
    /* The CPU sorts everything here, at once, in any size, and pins nothing. */
    const sorter_caps_t *caps = sorter_caps(s);
    ck_assert(caps->max_keys == 0 && caps->grow_at == 0 && !caps->aside && !caps->pins &&
              !caps->merge_by_sort);
    ck_assert_int_eq(sorter_grow(s, (size_t)1 << 40), GS_OK);
    ck_assert_int_eq(sorter_pin(s, &seed, sizeof seed), 0);
    sorter_unpin(s, &seed);
    for (int rep = 0; rep < 60; rep++) {
        int width = rep % 2 ? 8 : 4;
        int dist = (int)ck_rng_below(&seed, D_COUNT);
        size_t n = (size_t)ck_rng_below(&seed, 40000);
        size_t bytes = (n + 1) * (size_t)width;
        void *keys = malloc(bytes), *tmp = malloc(bytes), *want = malloc(bytes);
        ck_assert(keys && tmp && want);
        generate(keys, n, width, dist, &seed);
        memcpy(want, keys, n * (size_t)width);
        qsort(want, n, (size_t)width, width == 4 ? cmp32 : cmp64);
        /* Every other chunk submitted: sorted here, its result kept for the wait. */
        sort_job_t job = { .keys = keys, .scratch = tmp, .n = n, .width = width };
        if (rep % 4 < 2) {
            ck_assert_int_eq(sorter_sort(s, &job), GS_OK);
        } else {
            ck_assert_int_eq(sorter_submit(s, &job), 0);
            ck_assert_int_eq(sorter_wait(s), GS_OK);
        }
        check_result("sorter_cpu reused", sort_job_result(&job), keys, tmp, want, n, width,
                     dist, 3);
        free(keys);
        free(tmp);
        free(want);
    }
    sorter_destroy(s);
    pool_destroy(pool);
}
END_TEST

Suite *make_sorter_cpu_suite(void)
{
    Suite *s = suite_create("sorter_cpu");
    TCase *tc = ck_tcase("sweep");
    tcase_add_loop_test(tc, test_sorter_cpu_matches_qsort, 0, NSIZES * D_COUNT);
    /* All sizes but the last, 10^6: the sanitizers' builds run this too. */
    tcase_add_loop_test(tc, test_radix_from_matches_qsort, 0, (NSIZES - 1) * D_COUNT);
    tcase_add_loop_test(tc, test_radix_pairs_stable, 0, (NSIZES - 1) * D_COUNT);
    tcase_add_test(tc, test_sorter_cpu_reuse);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    return s;
}
