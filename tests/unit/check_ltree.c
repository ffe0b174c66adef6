/* SPDX-License-Identifier: MIT */
/* check_ltree.c: unit tests of merge/ltree.h, the tournament every merge plays.
 *
 * k sources (1 to 300, powers of two and not) of records (key, second key), each
 * source in order by both, merged by the tree with a tie rule that compares the
 * second keys, then the sources (the way records' merges settle equal words), and
 * a source at its end standing as the greatest key (the way every merge marks one):
 * the merged sequence must equal qsort of every record by (key, second, source),
 * written here. Keys are drawn from a few values (long runs of equal keys, so the
 * tie rule decides often), from the whole range, and with UINT64_MAX among them (a
 * live source's greatest key against the mark of a done one). Without a tie rule
 * (bare keys), the keys alone come out in order and every record exactly once.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "merge/ltree.h"

typedef struct {
    uint64_t key, second;
    int src;
} lrec_t;

typedef struct {
    lrec_t *recs;          /* every source's records, source after source */
    size_t *first, *end;   /* source s: recs[first[s] .. end[s]) */
    size_t *at;            /* its next record */
} lsrc_t;

static int lrec_cmp(const void *x, const void *y)
{
    const lrec_t *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->second != b->second)
        return a->second < b->second ? -1 : 1;
    return (a->src > b->src) - (a->src < b->src);
}

static int lsrc_done(const lsrc_t *s, int i)
{
    return s->at[i] >= s->end[i];
}

static uint64_t lsrc_key(const lsrc_t *s, int i)
{
    return lsrc_done(s, i) ? UINT64_MAX : s->recs[s->at[i]].key;
}

/* The tie rule: a live source before a done one, then by second keys, then the
 * lower source. */
static int lsrc_tie(void *ctx, int a, int b)
{
    const lsrc_t *s = ctx;
    int da = lsrc_done(s, a), db = lsrc_done(s, b);
    if (da || db)
        return !da;
    uint64_t x = s->recs[s->at[a]].second, y = s->recs[s->at[b]].second;
    return x != y ? x < y : a < b;
}

/* A key of distribution dist. */
static uint64_t draw_key(uint64_t *rng, int dist)
{
    switch (dist) {
    case 0:
        return ck_rng_below(rng, 4);
    case 1:
        return ck_rng_next(rng);
    default:
        return ck_rng_below(rng, 3) == 0 ? UINT64_MAX : UINT64_MAX - ck_rng_below(rng, 3);
    }
}

START_TEST(test_ltree_merges)
{
    static const int ks[] = { 1, 2, 3, 5, 8, 13, 16, 17, 64, 100, 300 };
    uint64_t rng = 0x5eedu + (uint64_t)_i;
    int k = ks[_i % (int)(sizeof ks / sizeof ks[0])], dist = _i % 3, with_tie = _i % 2 == 0;
    lsrc_t s = { .first = calloc((size_t)k, sizeof(size_t)),
                 .end = calloc((size_t)k, sizeof(size_t)),
                 .at = calloc((size_t)k, sizeof(size_t)) };
    size_t n = 0, cap = 0;
    for (int i = 0; i < k; i++) {
        size_t len = ck_rng_below(&rng, 4) == 0 ? 0 : ck_rng_below(&rng, 200);
        if (n + len > cap) {
            cap = 2 * (n + len);
            s.recs = realloc(s.recs, cap * sizeof *s.recs);
            ck_assert_ptr_nonnull(s.recs);
        }
        s.first[i] = s.at[i] = n;
        for (size_t j = 0; j < len; j++)
            s.recs[n + j] = (lrec_t){ draw_key(&rng, dist), ck_rng_below(&rng, 5), i };
        if (len)   /* s.recs may be NULL still, and qsort's base never may */
            qsort(s.recs + n, len, sizeof *s.recs, lrec_cmp);
        n += len;
        s.end[i] = n;
    }
    lrec_t *want = malloc((n ? n : 1) * sizeof *want), *got = malloc((n ? n : 1) * sizeof *got);
    ck_assert(want && got);
    if (n)
        memcpy(want, s.recs, n * sizeof *want);
    qsort(want, n, sizeof *want, lrec_cmp);

    ltree_t t;
    ck_assert_int_eq(ltree_init(&t, k), 0);
    for (int i = 0; i < k; i++)
        t.key[i] = lsrc_key(&s, i);
    uint64_t key;
    int w = with_tie ? ltree_build(&t, &key, lsrc_tie, &s) : ltree_build(&t, &key, NULL, NULL);
    size_t m = 0;
    int ended = 0;
    while (!ended) {
        if (lsrc_done(&s, w)) {
            /* without a rule, a done source may win a tie of UINT64_MAX: the rest,
             * whatever their order, are the records of that key */
            for (int i = 0; !with_tie && i < k; i++)
                while (!lsrc_done(&s, i)) {
                    ck_assert_uint_eq(s.recs[s.at[i]].key, UINT64_MAX);
                    ck_assert_uint_lt(m, n);
                    got[m++] = s.recs[s.at[i]++];
                }
            ended = 1;
            continue;
        }
        ck_assert_uint_eq(key, s.recs[s.at[w]].key);
        ck_assert_uint_lt(m, n);
        got[m++] = s.recs[s.at[w]++];
        key = lsrc_key(&s, w);
        w = with_tie ? ltree_replay(&t, w, &key, lsrc_tie, &s)
                     : ltree_replay(&t, w, &key, NULL, NULL);
    }
    ck_assert_uint_eq(m, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(got[i].key, want[i].key);
        if (with_tie) {
            ck_assert_uint_eq(got[i].second, want[i].second);
            ck_assert_int_eq(got[i].src, want[i].src);
        }
    }
    if (!with_tie) {   /* every record once: the same multiset, sorted here */
        qsort(got, n, sizeof *got, lrec_cmp);
        for (size_t i = 0; i < n; i++)
            ck_assert(lrec_cmp(&got[i], &want[i]) == 0);
    }
    ltree_free(&t);
    free(want);
    free(got);
    free(s.recs);
    free(s.first);
    free(s.end);
    free(s.at);
}
END_TEST

Suite *make_ltree_suite(void)
{
    Suite *s = suite_create("ltree");
    TCase *tc = ck_tcase("merges");
    tcase_add_loop_test(tc, test_ltree_merges, 0, 66);
    suite_add_tcase(s, tc);
    return s;
}
