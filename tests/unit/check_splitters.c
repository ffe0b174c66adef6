/* SPDX-License-Identifier: MIT */
/* check_splitters.c: unit tests of merge/splitters.h, the partitioner's choice.
 *
 * Samples of random weights (1, or 1 to 100), keys from a few values, from the
 * whole range, or all one key; 1 to 300 pieces. Every splitter is a sample's key;
 * without distinct there are exactly pieces - 1, in order; with it they increase
 * strictly, all above the least sample's key. And the pieces are even: the weight
 * of the samples below each splitter, counted here, is within the largest weight
 * and the key's own samples of its share (p / pieces of the whole); where every key
 * differs and weighs 1, within one sample.
 */
#include <config.h>

#include <stdlib.h>

#include "check_suites.h"
#include "merge/splitters.h"

START_TEST(test_splitters_even)
{
    static const size_t pieces_of[] = { 1, 2, 3, 4, 7, 16, 64, 300 };
    uint64_t rng = 0x51177e5u + (uint64_t)_i;
    size_t pieces = pieces_of[_i % 8];
    int dist = _i / 8 % 3, weighted = _i / 24 % 2, distinct = _i / 48 % 2;
    size_t n = ck_rng_below(&rng, 3000);
    sample_t *s = malloc((n + 1) * sizeof *s), *copy = malloc((n + 1) * sizeof *s);
    uint64_t *split = malloc(pieces * sizeof *split);
    ck_assert(s && copy && split);
    double total = 0, heaviest = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = dist == 0 ? ck_rng_below(&rng, 5) : dist == 1 ? ck_rng_next(&rng) : 42;
        double w = weighted ? (double)(1 + ck_rng_below(&rng, 100)) : 1;
        copy[i] = s[i] = (sample_t){ key, w };
        total += w;
        heaviest = w > heaviest ? w : heaviest;
    }
    size_t ns = splitters_choose(s, n, pieces, distinct, split);
    if (n == 0 || pieces < 2) {
        ck_assert_uint_eq(ns, 0);
    } else if (!distinct) {
        ck_assert_uint_eq(ns, pieces - 1);
    } else {
        ck_assert_uint_le(ns, pieces - 1);
    }
    uint64_t least = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        least = copy[i].key < least ? copy[i].key : least;
    for (size_t q = 0; q < ns; q++) {
        int found = 0;
        double below = 0, at = 0;   /* the weight of samples below split[q], and at it */
        for (size_t i = 0; i < n; i++) {
            found |= copy[i].key == split[q];
            below += copy[i].key < split[q] ? copy[i].weight : 0;
            at += copy[i].key == split[q] ? copy[i].weight : 0;
        }
        ck_assert(found);
        if (q > 0)
            ck_assert(distinct ? split[q] > split[q - 1] : split[q] >= split[q - 1]);
        if (distinct)
            ck_assert_uint_gt(split[q], least);
        else {
            /* splitter q is the (q+1)-th: its share of the weight lies within its
             * key's samples, give or take the heaviest */
            double share = total * (double)(q + 1) / (double)pieces;
            ck_assert(below <= share + heaviest);
            ck_assert(below + at >= share - heaviest);
            if (dist == 1 && !weighted)
                ck_assert(below >= share - 1 && below <= share + 1);
        }
    }
    if (distinct && dist == 2)
        ck_assert_uint_eq(ns, 0);   /* one key: no cut leaves both sides keys */
    free(s);
    free(copy);
    free(split);
}
END_TEST

Suite *make_splitters_suite(void)
{
    Suite *s = suite_create("splitters");
    TCase *tc = ck_tcase("even");
    tcase_add_loop_test(tc, test_splitters_even, 0, 96);
    suite_add_tcase(s, tc);
    return s;
}
