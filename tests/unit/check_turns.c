/* SPDX-License-Identifier: MIT */
/* check_turns.c: unit tests of io/turns.h, the order the merges' pieces go out in.
 *
 * Threads of a pool take pieces in the order they come (an atomic counter, as the
 * merges do), each waiting for its piece's turn before it appends the piece's
 * number to a log, then passing the turn on: the log must be 0, 1, 2, ... whatever
 * the threads' timing. A thread that fails on one piece's turn (its error the first
 * kept) ends every wait: every piece before it is logged and none after,
 * turns_rc() gives that error, and reset, the same turns run again from piece 0.
 *
 * Holds: each thread puts its piece's records (of many lengths, some longer than
 * the hold, some through room and added as the merges format into it) into its
 * hold; the bytes handed on must be every piece's, in piece order, whatever the
 * threads' timing; a put that fails stops every thread with its error.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "core/error.h"
#include "core/pool.h"
#include "io/turns.h"

typedef struct {
    turns_t turns;
    size_t npieces;
    size_t next;             /* the next piece to take (atomic) */
    size_t fail_at;          /* the piece whose thread fails (SIZE_MAX: none) */
    size_t *log, nlog;       /* the pieces out, in their order (under the turn) */
} tjob_t;

static void turns_worker(void *arg, int i, int nt)
{
    (void)i;
    (void)nt;
    tjob_t *j = arg;
    for (;;) {
        size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (p >= j->npieces || turns_failed(&j->turns))
            return;
        if (p == j->fail_at) {   /* fails on its turn, as a write would */
            if (turns_wait(&j->turns, p) == 0) {
                turns_fail(&j->turns, GS_EIO);
                turns_fail(&j->turns, GS_ENOMEM);   /* not the first: not kept */
            }
            return;
        }
        for (volatile int spin = (int)(p * 7919 % 2000); spin > 0; spin--)
            ;   /* pieces of different lengths: threads finish out of order */
        if (turns_wait(&j->turns, p))
            return;   /* a later piece than the failed one */
        j->log[j->nlog++] = p;
        turns_pass(&j->turns, p);
    }
}

/* _i: the pool's threads (1 to 4) and whether a piece fails. */
START_TEST(test_turns_order)
{
    int threads = 1 + _i % 4, failing = _i >= 4;
    tjob_t j = { .npieces = 2000, .fail_at = failing ? 1234 : SIZE_MAX };
    j.log = malloc(sizeof *j.log * j.npieces);
    ck_assert_ptr_nonnull(j.log);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, threads), 0);
    turns_init(&j.turns);
    for (int round = 0; round < 2; round++) {
        j.next = j.nlog = 0;
        turns_reset(&j.turns);
        pool_run(pool, turns_worker, &j);
        size_t want = failing ? j.fail_at : j.npieces;
        ck_assert_uint_eq(j.nlog, want);
        for (size_t k = 0; k < j.nlog; k++)
            ck_assert_uint_eq(j.log[k], k);
        ck_assert_int_eq(turns_rc(&j.turns), failing ? GS_EIO : GS_OK);
        ck_assert_int_eq(turns_failed(&j.turns), failing);
    }
    turns_destroy(&j.turns);
    pool_destroy(pool);
    free(j.log);
}
END_TEST

/* ---- holds ------------------------------------------------------------------------ */

#define HOLD_CAP 1024

/* Record r of piece p: its length (some longer than the hold) and its bytes. */
static size_t hold_rec_len(size_t p, size_t r)
{
    return (p * 31 + r * 7) % 97 == 0 ? 3000 : (p * 31 + r * 7) % 50 + 1;
}

static void hold_rec(size_t p, size_t r, char *dst)
{
    for (size_t i = 0, n = hold_rec_len(p, r); i < n; i++)
        dst[i] = (char)(p * 13 + r * 5 + i);
}

#define HOLD_RECS 40   /* records a piece */

typedef struct {
    turns_t turns;
    size_t npieces, next;
    char *out;               /* the bytes handed on, in their order */
    size_t len, fail_at;     /* a put that would pass fail_at bytes fails */
} hjob_t;

static int hold_put(void *ctx, const void *bytes, size_t len)
{
    hjob_t *j = ctx;
    if (j->len + len > j->fail_at)
        return GS_EIO;
    memcpy(j->out + j->len, bytes, len);
    j->len += len;
    return GS_OK;
}

static void hold_worker(void *arg, int i, int nt)
{
    (void)nt;
    hjob_t *j = arg;
    turns_hold_t h;
    char rec[3000];
    int rc = turns_hold_init(&h, &j->turns, HOLD_CAP, hold_put, j);
    for (;;) {
        size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (rc || p >= j->npieces || turns_failed(&j->turns))
            break;
        turns_hold_start(&h, p);
        for (size_t r = 0; r < HOLD_RECS && rc == GS_OK; r++) {
            size_t n = hold_rec_len(p, r);
            if ((r + (size_t)i) % 2 && n <= HOLD_CAP) {   /* made in place, as pmerge */
                if ((rc = turns_hold_room(&h, n)) == GS_OK) {
                    hold_rec(p, r, h.buf + h.len);
                    rc = turns_hold_added(&h, n);
                }
            } else {
                hold_rec(p, r, rec);
                rc = turns_hold_put(&h, rec, n);
            }
        }
        if (rc == GS_OK)
            rc = turns_hold_end(&h);
    }
    if (rc)
        turns_fail(&j->turns, rc);
    turns_hold_free(&h);
}

/* _i: the pool's threads (1 to 4) and whether a put fails. */
START_TEST(test_turns_hold)
{
    int threads = 1 + _i % 4, failing = _i >= 4;
    hjob_t j = { .npieces = 300 };
    size_t total = 0;
    for (size_t p = 0; p < j.npieces; p++)
        for (size_t r = 0; r < HOLD_RECS; r++)
            total += hold_rec_len(p, r);
    char *want = malloc(total);
    j.out = malloc(total);
    ck_assert(want && j.out);
    for (size_t p = 0, at = 0; p < j.npieces; p++)
        for (size_t r = 0; r < HOLD_RECS; at += hold_rec_len(p, r), r++)
            hold_rec(p, r, want + at);
    j.fail_at = failing ? total / 3 : total;
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, threads), 0);
    turns_init(&j.turns);
    pool_run(pool, hold_worker, &j);
    ck_assert_int_eq(turns_rc(&j.turns), failing ? GS_EIO : GS_OK);
    if (failing)
        ck_assert_uint_le(j.len, j.fail_at);
    else
        ck_assert_uint_eq(j.len, total);
    ck_assert_mem_eq(j.out, want, j.len);   /* what went out, in order */
    turns_destroy(&j.turns);
    pool_destroy(pool);
    free(want);
    free(j.out);
}
END_TEST

Suite *make_turns_suite(void)
{
    Suite *s = suite_create("turns");
    TCase *tc = ck_tcase("order");
    tcase_add_loop_test(tc, test_turns_order, 0, 8);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = ck_tcase("hold");
    tcase_add_loop_test(tc, test_turns_hold, 0, 8);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
