/* SPDX-License-Identifier: MIT */
/* check_pool.c: unit tests of pool.[ch]: pool_run calls fn exactly once per index
 * with the pool's size, i = 0 on the caller, each index on its own thread, and
 * returns only when all have returned; for sizes 1..8, many times over.
 */
#include <config.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <check.h>
#include "core/pool.h"
#include "check_suites.h"

#define MAXT 8

typedef struct {
    atomic_int calls[MAXT];      /* calls per index */
    atomic_int bad_n;            /* calls whose n was not the pool's size */
    atomic_int bad_i;            /* calls with i outside [0, n) */
    atomic_int done;             /* calls that have finished (after the sleep) */
    int expect_n;
    pthread_t who[MAXT];         /* the thread that ran each index */
    int slow;                    /* index that sleeps a little before finishing, or -1 */
} job_t;

static void job_fn(void *arg, int i, int n)
{
    job_t *j = arg;
    if (n != j->expect_n)
        atomic_fetch_add(&j->bad_n, 1);
    if (i < 0 || i >= n || i >= MAXT) {
        atomic_fetch_add(&j->bad_i, 1);
        return;
    }
    j->who[i] = pthread_self();
    if (i == j->slow) {
        struct timespec ts = { 0, 2000000 };   /* 2 ms */
        nanosleep(&ts, NULL);
    }
    atomic_fetch_add(&j->calls[i], 1);
    atomic_fetch_add(&j->done, 1);
}

static void job_reset(job_t *j, int n, int slow)
{
    for (int i = 0; i < MAXT; i++)
        atomic_store(&j->calls[i], 0);
    atomic_store(&j->bad_n, 0);
    atomic_store(&j->bad_i, 0);
    atomic_store(&j->done, 0);
    j->expect_n = n;
    j->slow = slow;
    memset(j->who, 0, sizeof j->who);
}

/* _i + 1 threads */
START_TEST(test_pool_run_each_index_once)
{
    int nt = _i + 1;
    pool_t *p = NULL;
    job_t j;
    ck_assert_int_eq(pool_create(&p, nt), 0);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(pool_size(p), nt);
    for (int rep = 0; rep < 2000; rep++) {
        /* now and then one index is slow: pool_run must still wait for it */
        int slow = rep % 50 == 0 ? rep / 50 % nt : -1;
        job_reset(&j, nt, slow);
        pool_run(p, job_fn, &j);
        int done = atomic_load(&j.done);
        if (done != nt)
            ck_abort_msg("%d threads, rep %d: %d calls finished when pool_run returned", nt, rep, done);
        if (atomic_load(&j.bad_n) || atomic_load(&j.bad_i))
            ck_abort_msg("%d threads, rep %d: wrong n (%d calls) or i (%d calls)", nt, rep,
                         atomic_load(&j.bad_n), atomic_load(&j.bad_i));
        for (int i = 0; i < nt; i++)
            if (atomic_load(&j.calls[i]) != 1)
                ck_abort_msg("%d threads, rep %d: index %d called %d times", nt, rep, i,
                             atomic_load(&j.calls[i]));
        /* the caller runs i = 0 */
        if (!pthread_equal(j.who[0], pthread_self()))
            ck_abort_msg("%d threads, rep %d: i = 0 did not run on the caller", nt, rep);
        /* each index on its own thread of the pool */
        for (int a = 0; a < nt; a++)
            for (int b = a + 1; b < nt; b++)
                if (pthread_equal(j.who[a], j.who[b]))
                    ck_abort_msg("%d threads, rep %d: indexes %d and %d on one thread", nt, rep, a, b);
    }
    pool_destroy(p);
}
END_TEST

/* Two pools at once, used alternately, and created and destroyed again and again. */
START_TEST(test_pool_create_destroy_repeatedly)
{
    for (int rep = 0; rep < 200; rep++) {
        int na = 1 + rep % MAXT, nb = 1 + (rep * 3) % MAXT;
        pool_t *a = NULL, *b = NULL;
        job_t j;
        ck_assert_int_eq(pool_create(&a, na), 0);
        ck_assert_int_eq(pool_create(&b, nb), 0);
        ck_assert_int_eq(pool_size(a), na);
        ck_assert_int_eq(pool_size(b), nb);
        for (int k = 0; k < 3; k++) {
            job_reset(&j, na, -1);
            pool_run(a, job_fn, &j);
            ck_assert_int_eq(atomic_load(&j.done), na);
            job_reset(&j, nb, -1);
            pool_run(b, job_fn, &j);
            ck_assert_int_eq(atomic_load(&j.done), nb);
            for (int i = 0; i < nb; i++)
                ck_assert_int_eq(atomic_load(&j.calls[i]), 1);
        }
        pool_destroy(a);
        pool_destroy(b);
    }
    pool_destroy(NULL);   /* a no-op */
}
END_TEST

Suite *make_pool_suite(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = ck_tcase("run");
    tcase_add_loop_test(tc, test_pool_run_each_index_once, 0, MAXT);
    tcase_add_test(tc, test_pool_create_destroy_repeatedly);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
