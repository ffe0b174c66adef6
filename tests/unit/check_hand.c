/* SPDX-License-Identifier: MIT */
/* check_hand.c: unit tests of io/hand.c, through io/output.h: sorted pieces handed
 * over (output_hand) from a ring of buffers, a full disk under them, and the pages
 * given to a pipe (vmsplice): by a reader that reads them at once, late, or not at
 * all until the output is done (it keeps them, moved into pipes of its own), the
 * bytes are what was written, though the buffers they came from were used again.
 */
#include <config.h>

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include "core/error.h"
#include "core/keys.h"
#include "io/output.h"
#include "core/pool.h"
#include "core/tuning.h"
#include "check_suites.h"

static char tdir[256];

static void tdir_setup(void)
{
    ck_tdir_make(tdir, sizeof tdir, "hand");
}

static void tdir_teardown(void)
{
    ck_remove_tree(tdir);
}

/* Pieces handed over (output_hand) from a ring of two buffers, as a merge hands them:
 * _i 0 text, 1 binary keys that are their own encoding, 2 big-endian binary (encoded
 * by the output alone, while the caller fills the next). The bytes match what
 * output_write() makes of all the keys at once, in order, though each buffer is
 * filled again as soon as output_hand() returns for the next. */
START_TEST(test_output_hand_pieces)
{
    enum { PIECE = 70001, PIECES = 9 };
    char got_path[600], want_path[600];
    snprintf(got_path, sizeof got_path, "%s/hand-got", tdir);
    snprintf(want_path, sizeof want_path, "%s/hand-want", tdir);
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    uint32_t *all = malloc(sizeof *all * PIECE * PIECES);
    ck_assert_ptr_nonnull(all);
    for (size_t k = 0; k < (size_t)PIECE * PIECES; k++)
        all[k] = (uint32_t)(k * 2654435761u);
    output_cfg_t cfg = { .km = &km, .binary = _i > 0, .big_endian = _i == 2, .pool = pool };
    output_t *o;
    cfg.path = want_path;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_write(o, all, (size_t)PIECE * PIECES, 0), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);

    cfg.path = got_path;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    output_hands_t h = output_hands(o);
    ck_assert_int_eq(h.held, _i > 0);
    ck_assert_int_eq(h.kept, 0);   /* a file, not a pipe */
    uint32_t *buf[2];
    for (int b = 0; b < 2; b++)
        ck_assert_ptr_nonnull(buf[b] = malloc(sizeof **buf * PIECE));
    for (int p = 0; p < PIECES; p++) {
        uint32_t *x = buf[p % 2];   /* the output let go of it at the last hand-over */
        memcpy(x, all + (size_t)p * PIECE, sizeof *x * PIECE);
        ck_assert_int_eq(output_hand(o, x, sizeof *x * PIECE, x, PIECE), GS_OK);
    }
    ck_assert_int_eq(output_hand(o, NULL, 0, NULL, 0), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);
    size_t glen, wlen;
    char *got = ck_read_file(got_path, &glen), *want = ck_read_file(want_path, &wlen);
    ck_assert_uint_eq(glen, wlen);
    if (_i)
        ck_assert_uint_eq(wlen, sizeof *all * PIECE * PIECES);
    ck_assert(memcmp(got, want, wlen) == 0);
    free(got);
    free(want);
    for (int b = 0; b < 2; b++)
        free(buf[b]);
    free(all);
    pool_destroy(pool);
}
END_TEST

/* A full disk under pieces handed over: the error comes back, from the hand-over
 * after the piece that failed where a job writes them, or from the wait, and from
 * every later call; _i as test_output_hand_pieces. */
START_TEST(test_output_hand_full)
{
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0)
        return;   /* no /dev/full here */
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    enum { N = 1 << 16 };
    uint32_t *keys = calloc(N, sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    output_cfg_t cfg = { .fd = fd, .name = "full", .km = &km, .binary = _i > 0,
                         .big_endian = _i == 2, .pool = pool };
    output_t *o;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    int first = GS_OK;
    for (int p = 0; p < 4; p++) {
        int rc = output_hand(o, keys, sizeof *keys * N, keys, N);
        if (first == GS_OK)
            first = rc;
        else
            ck_assert_int_eq(rc, first);   /* once failed, always */
    }
    int rc = output_hand(o, NULL, 0, NULL, 0);
    if (first == GS_OK)
        first = rc;
    ck_assert_int_eq(rc, first);
    ck_assert_int_eq(first, GS_EIO);
    ck_assert_msg(strstr(err_message(), "write error on 'full'") != NULL, "message '%s'",
                  err_message());
    output_abort(o);
    close(fd);
    free(keys);
    pool_destroy(pool);
}
END_TEST

/* A FIFO's reader: opens it, waits for go (where set) before reading, reads to its
 * end. */
typedef struct {
    const char *path;
    volatile int *go;
    char *buf;
    size_t cap, len;
} fifo_in_t;

static void *fifo_in(void *arg)
{
    fifo_in_t *f = arg;
    int fd = open(f->path, O_RDONLY);
    if (fd < 0)
        return NULL;
    while (f->go && !__atomic_load_n(f->go, __ATOMIC_ACQUIRE))
        usleep(1000);
    for (ssize_t n; (n = read(fd, f->buf + f->len, f->cap - f->len)) > 0;)
        f->len += (size_t)n;
    close(fd);
    return NULL;
}

/* Binary keys that are their own encoding, written (output_write) into a FIFO: the
 * output keeps pieces (output_hands().kept) and copies the caller's keys into
 * pages it gives the pipe. _i 0: keys that fit in the pipe, the caller's buffer
 * overwritten before the reader reads a byte: the reader must still get the keys
 * (given pages of the caller's own would show the overwrite); _i 1: several
 * WRITE_GIVE_PIECEs and a part. */
START_TEST(test_output_write_fifo)
{
    char path[600];
    snprintf(path, sizeof path, "%s/fifo-%d", tdir, _i);
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    size_t n = _i ? WRITE_GIVE_PIECE / 4 * 2 + 12345 : 4096;   /* 16 KiB: in the pipe */
    uint32_t *keys = malloc(n * sizeof *keys), *want = malloc(n * sizeof *keys);
    ck_assert_ptr_nonnull(keys);
    ck_assert_ptr_nonnull(want);
    for (size_t k = 0; k < n; k++)
        want[k] = keys[k] = (uint32_t)(k * 2654435761u + 7);
    volatile int go = 0;
    fifo_in_t f = { .path = path, .go = _i ? NULL : &go, .cap = n * sizeof *keys + 1 };
    ck_assert_ptr_nonnull(f.buf = malloc(f.cap));
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, fifo_in, &f), 0);
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    pool_t *pool;   /* enough threads for the copies given (WRITE_GIVE_MIN_THREADS) */
    ck_assert_int_eq(pool_create(&pool, WRITE_GIVE_MIN_THREADS), 0);
    output_cfg_t cfg = { .path = path, .km = &km, .binary = 1, .pool = pool };
    output_t *o;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_hands(o).kept, 1);
    ck_assert_int_eq(output_write(o, keys, n, 0), GS_OK);
    memset(keys, 0xab, n * sizeof *keys);   /* the caller's again */
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    ck_assert_int_eq(output_commit(o), GS_OK);
    pthread_join(reader, NULL);
    ck_assert_uint_eq(f.len, n * sizeof *keys);
    ck_assert(memcmp(f.buf, want, f.len) == 0);
    free(f.buf);
    free(keys);
    free(want);
    pool_destroy(pool);
    unlink(path);
}
END_TEST

/* Keys written (output_write) into a FIFO whose reader keeps the pages (ck_fifo_keep),
 * on WRITE_GIVE_MIN_THREADS threads: _i 0 text of several batches (each formatted
 * into fresh pages given to the pipe: batch buffers of the output's own, used again
 * two batches on, would show the later keys), 1 binary keys that are their own
 * encoding (copied into fresh pages, a WRITE_GIVE_PIECE and a part), 2 the same
 * bytes written (output_write_bytes) a part at a time from one buffer, filled again
 * for each. The bytes kept are the keys, formatted here with printf. */
START_TEST(test_output_fifo_kept)
{
    char path[600];
    snprintf(path, sizeof path, "%s/kept-%d", tdir, _i);
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    size_t n = _i ? WRITE_GIVE_PIECE / 4 + 4321 : WRITE_KEYS_A_THREAD * WRITE_GIVE_MIN_THREADS * 4 + 99;
    uint32_t *keys = malloc(n * sizeof *keys);
    size_t cap = n * 12 + 1, wlen = 0;
    char *want = malloc(cap), *got = malloc(cap);
    ck_assert_ptr_nonnull(keys);
    ck_assert_ptr_nonnull(want);
    ck_assert_ptr_nonnull(got);
    for (size_t k = 0; k < n; k++) {
        keys[k] = (uint32_t)(k * 2654435761u) % 100000u;   /* batches tell apart */
        if (_i) {   /* binary, this host's order */
            memcpy(want + wlen, &keys[k], sizeof keys[k]);
            wlen += sizeof keys[k];
        } else {
            wlen += (size_t)snprintf(want + wlen, cap - wlen, "%" PRIu32 "\n", keys[k]);
        }
    }
    static ck_fifo_t f;
    f = (ck_fifo_t){ .path = path, .buf = got, .cap = cap };
    pthread_t reader;
    ck_assert_int_eq(pthread_create(&reader, NULL, ck_fifo_keep, &f), 0);
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, WRITE_GIVE_MIN_THREADS), 0);
    output_cfg_t cfg = { .path = path, .km = &km, .binary = _i > 0, .pool = pool };
    output_t *o;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    if (_i < 2) {
        ck_assert_int_eq(output_write(o, keys, n, 0), GS_OK);
    } else {   /* parts of WRITE_GIVE_MIN_BYTES and more, one buffer for all */
        size_t part = WRITE_GIVE_MIN_BYTES * 3 + 5;
        char *one = malloc(part);
        ck_assert_ptr_nonnull(one);
        for (size_t at = 0, m; at < wlen; at += m) {
            m = wlen - at < part ? wlen - at : part;
            memcpy(one, want + at, m);
            ck_assert_int_eq(output_write_bytes(o, one, m), GS_OK);
        }
        free(one);
    }
    ck_assert_int_eq(output_commit(o), GS_OK);
    ck_fifo_expect(&f, reader, want, wlen);
    free(got);
    free(want);
    free(keys);
    pool_destroy(pool);
    unlink(path);
}
END_TEST

Suite *make_hand_suite(void)
{
    Suite *s = suite_create("hand");
    TCase *tc = ck_tcase("hand");
    tcase_add_unchecked_fixture(tc, tdir_setup, tdir_teardown);
    tcase_add_loop_test(tc, test_output_hand_pieces, 0, 3);
    tcase_add_loop_test(tc, test_output_hand_full, 0, 3);
    tcase_add_loop_test(tc, test_output_write_fifo, 0, 2);
    tcase_add_loop_test(tc, test_output_fifo_kept, 0, 3);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
