/* SPDX-License-Identifier: MIT */
/* check_turns.c: unit tests of io/turns.h, the order the merges' pieces go out in.
 *
 * Threads of a pool take pieces in the order they come (an atomic counter, as the
 * merges do), each waiting for its piece's turn before it appends the piece's
 * number to a log, then passing the turn on: the log must be 0, 1, 2, ... whatever
 * the threads' timing. A thread that fails on one piece's turn (its error the first
 * kept) ends every wait: every piece before it is logged and none after,
 * turns_rc() gives that error, and reset, the same turns run again from piece 0.
 * (io/pieces.h's in-order pieces, built on these turns: check_pieces.c.)
 */
#include <config.h>

#include <stdlib.h>

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

Suite *make_turns_suite(void)
{
    Suite *s = suite_create("turns");
    TCase *tc = ck_tcase("order");
    tcase_add_loop_test(tc, test_turns_order, 0, 8);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
