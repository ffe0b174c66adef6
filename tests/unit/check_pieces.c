/* SPDX-License-Identifier: MIT */
/* check_pieces.c: unit tests of io/pieces.h's pieces in order, through a put.
 *
 * Threads of a pool take pieces in the order they come (an atomic counter, as the
 * merges do); each puts its piece's records (of many lengths, some longer than its
 * hold, some made in place after piece_need as the merges make them, some by
 * piece_put) through its window. The bytes handed on must be every piece's, in
 * piece order, whatever the threads' timing; where every record is made in place
 * after piece_need, every hand-on ends at a record's end (a run being written
 * counts whole records); a put that fails stops every thread with its error. Into
 * a FIFO (an output's) on WRITE_GIVE_MIN_THREADS threads, the windows' pages are
 * given to the pipe: a reader that keeps them reads every piece's bytes in order.
 * (Pieces laid out in a file: check_output.c and check_smerge.c, through the
 * output and the merge.)
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_suites.h"
#include "core/error.h"
#include "core/pool.h"
#include "core/tuning.h"
#include "io/output_impl.h"   /* output_bytes() */
#include "io/pieces.h"

#define HOLD_CAP 1024
#define RECS 200   /* records a piece: about five holds */

/* Record r of piece p: its length (some longer than the hold) and its bytes. */
static size_t rec_len(size_t p, size_t r)
{
    return (p * 31 + r * 7) % 97 == 0 ? 3000 : (p * 31 + r * 7) % 50 + 1;
}

static void rec_make(size_t p, size_t r, char *dst)
{
    for (size_t i = 0, n = rec_len(p, r); i < n; i++)
        dst[i] = (char)(p * 13 + r * 5 + i);
}

typedef struct {
    pieces_t P;
    size_t npieces, next;
    int in_place;            /* 1: every record made in place after piece_need */
    char *out;               /* the bytes handed on, in their order */
    size_t len, fail_at;     /* a put that would pass fail_at bytes fails */
    const unsigned char *ends;   /* [total + 1] 1 where a record ends */
    int cut;                 /* 1: a hand-on ended inside a record */
} pjob_t;

static int pj_put(void *ctx, const void *bytes, size_t len)
{
    pjob_t *j = ctx;
    if (j->len + len > j->fail_at)
        return GS_EIO;
    memcpy(j->out + j->len, bytes, len);
    j->len += len;
    j->cut |= !j->ends[j->len];
    return GS_OK;
}

static void pj_worker(void *arg, int i, int nt)
{
    (void)nt;
    pjob_t *j = arg;
    piece_t w;
    char rec[3000];
    int rc = piece_init(&j->P, HOLD_CAP, &w);
    for (;;) {
        size_t p = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (rc || p >= j->npieces || pieces_failed(&j->P))
            break;
        piece_start(&w, p, 0, 0);
        for (size_t r = 0; r < RECS && rc == GS_OK; r++) {
            size_t n = rec_len(p, r);
            if (j->in_place || (r + (size_t)i) % 2) {   /* made in place, as the merges */
                if ((rc = piece_need(&w, n)) == GS_OK) {
                    rec_make(p, r, w.p);
                    w.p += n;
                }
            } else {
                rec_make(p, r, rec);
                rc = piece_put(&w, rec, n);
            }
        }
        int rc2 = piece_end(&w, rc == GS_OK);
        rc = rc ? rc : rc2;
    }
    if (rc)
        pieces_fail(&j->P, rc);
    piece_free(&w);
}

/* _i: the pool's threads (1 to 4) by _i % 4; by _i / 4, records made both ways,
 * the same with a put that fails, every record made in place. */
START_TEST(test_pieces_in_order)
{
    int threads = 1 + _i % 4, failing = _i / 4 == 1;
    pjob_t j = { .npieces = 300, .in_place = _i / 4 == 2 };
    size_t total = 0;
    for (size_t p = 0; p < j.npieces; p++)
        for (size_t r = 0; r < RECS; r++)
            total += rec_len(p, r);
    char *want = malloc(total);
    unsigned char *ends = calloc(total + 1, 1);
    j.out = malloc(total);
    ck_assert(want && ends && j.out);
    for (size_t p = 0, at = 0; p < j.npieces; p++)
        for (size_t r = 0; r < RECS; r++) {
            rec_make(p, r, want + at);
            at += rec_len(p, r);
            ends[at] = 1;
        }
    j.ends = ends;
    j.fail_at = failing ? total / 3 : total;
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, threads), 0);
    pieces_begin_put(&j.P, pj_put, &j, 1);
    ck_assert(!pieces_laid_out(&j.P));
    pool_run(pool, pj_worker, &j);
    ck_assert_int_eq(pieces_end(&j.P, GS_OK), failing ? GS_EIO : GS_OK);
    if (failing)
        ck_assert_uint_le(j.len, j.fail_at);
    else
        ck_assert_uint_eq(j.len, total);
    ck_assert_mem_eq(j.out, want, j.len);   /* what went out, in order */
    if (j.in_place)
        ck_assert_msg(!j.cut, "a hand-on ended inside a record");
    pool_destroy(pool);
    free(want);
    free(ends);
    free(j.out);
}
END_TEST

/* Pieces in order into a FIFO, the output's, on WRITE_GIVE_MIN_THREADS threads: each
 * window fresh pages given to the pipe (more than one mapping a thread: about 1.5
 * WRITE_GIVE_PIECEs each), read by a reader that keeps them (ck_fifo_keep) until
 * everything is written: the header, then every piece's records, in order. _i 0:
 * records made both ways; 1: every record in place. */
START_TEST(test_pieces_given)
{
    static const char header[] = "a header\n";
    pjob_t j = { .npieces = (size_t)WRITE_GIVE_MIN_THREADS * 3 / 2 * (WRITE_GIVE_PIECE / (RECS * 50)),
                 .in_place = _i };
    size_t total = sizeof header - 1;
    for (size_t p = 0; p < j.npieces; p++)
        for (size_t r = 0; r < RECS; r++)
            total += rec_len(p, r);
    char *want = malloc(total), *got = malloc(total + 1);
    ck_assert(want && got);
    memcpy(want, header, sizeof header - 1);
    for (size_t p = 0, at = sizeof header - 1; p < j.npieces; p++)
        for (size_t r = 0; r < RECS; r++) {
            rec_make(p, r, want + at);
            at += rec_len(p, r);
        }
    char dir[256], path[300];
    ck_tdir_make(dir, sizeof dir, "pieces");
    snprintf(path, sizeof path, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    static ck_fifo_t f;
    f = (ck_fifo_t){ .path = path, .buf = got, .cap = total + 1 };
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, ck_fifo_keep, &f), 0);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, WRITE_GIVE_MIN_THREADS), 0);
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    output_cfg_t cfg = { .path = path, .km = &km, .pool = pool };
    output_t *o;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(pieces_begin(&j.P, o, 0, header, sizeof header - 1), GS_OK);
    ck_assert(!pieces_laid_out(&j.P));
    ck_assert_int_eq(j.P.give, 1);
    pool_run(pool, pj_worker, &j);
    ck_assert_int_eq(pieces_end(&j.P, GS_OK), GS_OK);
    ck_assert_uint_eq(output_bytes(o), total);
    ck_assert_int_eq(output_commit(o), GS_OK);
    ck_fifo_expect(&f, reader, want, total);
    pool_destroy(pool);
    ck_remove_tree(dir);
    free(want);
    free(got);
}
END_TEST

/* The producer's own error is the one pieces_end() reports, before any thread's. */
START_TEST(test_pieces_end_rc)
{
    pjob_t j = { 0 };
    pieces_begin_put(&j.P, pj_put, &j, 1);
    pieces_fail(&j.P, GS_ENOMEM);
    ck_assert(pieces_failed(&j.P));
    ck_assert_int_eq(pieces_end(&j.P, GS_EIO), GS_EIO);
    pieces_begin_put(&j.P, pj_put, &j, 1);
    pieces_fail(&j.P, GS_ENOMEM);
    ck_assert_int_eq(pieces_end(&j.P, GS_OK), GS_ENOMEM);
}
END_TEST

Suite *make_pieces_suite(void)
{
    Suite *s = suite_create("pieces");
    TCase *tc = ck_tcase("in order");
    tcase_add_loop_test(tc, test_pieces_in_order, 0, 12);
    tcase_add_test(tc, test_pieces_end_rc);
    tcase_add_loop_test(tc, test_pieces_given, 0, 2);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
