/* SPDX-License-Identifier: MIT */
/* check_suites.h: the Check unit-test suites of gpusort, one per module, and the
 * two small helpers they share: a seeded generator (never rand()) and an oracle for
 * the sort key of a value that is written from the definition of the mapping, not
 * from keys.c, so tests never compute an expected value with the code under test.
 */
#ifndef GS_CHECK_SUITES_H
#define GS_CHECK_SUITES_H

#include <check.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/keys.h"

Suite *make_options_suite(void);
Suite *make_keys_suite(void);
Suite *make_textnum_suite(void);
Suite *make_pool_suite(void);
Suite *make_sorter_cpu_suite(void);
Suite *make_input_suite(void);
Suite *make_output_suite(void);
Suite *make_hand_suite(void);
Suite *make_codec_suite(void);
Suite *make_smerge_suite(void);
Suite *make_cleanup_suite(void);
Suite *make_rkey_suite(void);
Suite *make_ltree_suite(void);
Suite *make_turns_suite(void);
Suite *make_pieces_suite(void);
Suite *make_splitters_suite(void);
Suite *make_rmerge_suite(void);
Suite *make_engine_suite(void);

/* No error recorded: what was, taken and dropped. */
static inline void ck_err_none(void)
{
    gs_error_t e = err_take(GS_OK);
    err_free(&e);
}

/* A test case of the suites: tcase_create, with every test starting from no error
 * recorded. The runners run every test in their own process (check_main.c), and
 * err_set() keeps the first message until it is taken. */
static inline TCase *ck_tcase(const char *name)
{
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, ck_err_none, NULL);
    return tc;
}

/* expr, else the test fails with the message: ck_assert_msg() without its cost when
 * it holds (Check records the place of every assertion that passes, a write each,
 * which in a loop over keys is most of a test's time). */
#define ck_expect(expr, ...)            \
    do {                                \
        if (!(expr))                    \
            ck_abort_msg(__VA_ARGS__);  \
    } while (0)

/* n at GS_TEST_SCALE percent (make check sets it: a quarter under ASan, a tenth
 * under TSan; tests/cli/lib.sh says why), at least lo: for a test's bulk (keys,
 * repetitions), never for the sizes its subject needs. */
static inline size_t ck_scaled(size_t n, size_t lo)
{
    const char *s = getenv("GS_TEST_SCALE");
    long pct = s && *s ? strtol(s, NULL, 10) : 100;
    if (pct <= 0 || pct > 100)
        pct = 100;
    size_t m = n / 100 * (size_t)pct + n % 100 * (size_t)pct / 100;
    return m > lo ? m : lo;
}

/* 1 where case i of a sweep runs, its cases numbered so that i % combos picks its
 * options and i / combos the rest (a size, a seed): every case at GS_TEST_SCALE 25
 * and more (plain, ASan); below (TSan, where a case costs ten times as much and
 * the threads' meeting places are what is tested), every combination of options
 * with every other of the rest (ck_sweep_thinned: 1 there). A skipped case's test
 * passes without a check. */
static inline int ck_sweep_thinned(void)
{
    return ck_scaled(100, 1) < 25;
}

static inline int ck_sweep_runs(int i, int combos)
{
    return !ck_sweep_thinned() || i / combos % 2 == 0;
}

/* ---- the key types ------------------------------------------------------------ */

/* The four types are KEY_I32, KEY_U32, KEY_I64, KEY_U64 = 0..3: (key_type_t)i walks
 * them. Their names and widths, written here, not taken from keys.c. */
static inline const char *ck_type_name(key_type_t t)
{
    static const char *const names[4] = { "i32", "u32", "i64", "u64" };
    return names[t];
}

static inline int ck_type_width(key_type_t t)
{
    return (t == KEY_I32 || t == KEY_U32) ? 4 : 8;
}

/* raw (the value's two's complement bits) as text, by snprintf: the independent
 * oracle of the formatter and the parser. */
static inline int ck_ref_format(uint64_t raw, key_type_t type, char *buf, size_t size)
{
    switch (type) {
    case KEY_I32: return snprintf(buf, size, "%" PRId32, (int32_t)(uint32_t)raw);
    case KEY_U32: return snprintf(buf, size, "%" PRIu32, (uint32_t)raw);
    case KEY_I64: return snprintf(buf, size, "%" PRId64, (int64_t)raw);
    default:      return snprintf(buf, size, "%" PRIu64, raw);
    }
}

/* raw as its width bytes in the byte order, by shifts. */
static inline void ck_put_bytes(unsigned char *dst, uint64_t raw, int width, int big_endian)
{
    for (int b = 0; b < width; b++)
        dst[big_endian ? width - 1 - b : b] = (unsigned char)(raw >> (8 * b));
}

/* Key i of an array of width-byte keys, stored. */
static inline void ck_put_key(void *keys, size_t i, int width, uint64_t v)
{
    if (width == 4)
        ((uint32_t *)keys)[i] = (uint32_t)v;
    else
        ((uint64_t *)keys)[i] = v;
}

/* ---- random data ------------------------------------------------------------------ */

/* splitmix64: the next 64 random bits of the stream whose state is *s. Seed it with
 * a constant so that every run sees the same data. */
static inline uint64_t ck_rng_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A random number in [0, n); 0 when n is 0. The modulo bias does not matter here. */
static inline uint64_t ck_rng_below(uint64_t *s, uint64_t n)
{
    return n ? ck_rng_next(s) % n : 0;
}

/* 64 random bits of a random magnitude: uniform bits shifted right by 0..63 and then
 * negated half of the time, so that short and long numbers, and both signs, occur. */
static inline uint64_t ck_rng_varied(uint64_t *s)
{
    uint64_t v = ck_rng_next(s) >> ck_rng_below(s, 64);
    return (ck_rng_next(s) & 1) ? (uint64_t)0 - v : v;
}

/* Truncate raw to the width of type: the "two's complement bits in the low width
 * bytes" of keys.h (an i32 of -1 is 0xffffffff). */
static inline uint64_t ck_raw(key_type_t type, uint64_t v)
{
    return (type == KEY_I32 || type == KEY_U32) ? (uint32_t)v : v;
}

/* The expected sort key of raw for type and direction, from the definition: the
 * value's rank in its type (value - minimum, as an unsigned number of the type's
 * width), complemented (max - rank) with reverse. */
static inline uint64_t ck_ref_key(key_type_t type, int reverse, uint64_t raw)
{
    uint64_t rank, max;
    switch (type) {
    case KEY_I32:
        rank = (uint64_t)((int64_t)(int32_t)(uint32_t)raw - (int64_t)INT32_MIN);
        max = UINT32_MAX;
        break;
    case KEY_U32:
        rank = (uint32_t)raw;
        max = UINT32_MAX;
        break;
    case KEY_I64:
        /* v - INT64_MIN computed without signed overflow: v + 2^63 modulo 2^64 */
        rank = raw + UINT64_C(0x8000000000000000);
        max = UINT64_MAX;
        break;
    default:
        rank = raw;
        max = UINT64_MAX;
        break;
    }
    return reverse ? max - rank : rank;
}

/* check_tdir.c: make a temporary directory "$TMPDIR/gs-check-TAG-XXXXXX" into dir
 * (len bytes; aborts on failure), and remove a directory with everything in it. */
void ck_tdir_make(char *dir, size_t len, const char *tag);
void ck_remove_tree(const char *dir);

/* A FIFO's reader that keeps the pages it reads, as a reader that splices does (`pv`,
 * tee(1)'s kin): the thread ck_fifo_keep(f) opens f->path and moves what comes into
 * pipes of its own (splice(2), nothing copied), CK_KEEP_PIPES of them, then reads the
 * rest into f->buf as it comes; after it is joined, ck_fifo_kept() reads what the
 * pipes kept into its place in f->buf and returns the bytes (f->len). A page that
 * the writer gave the pipe and then wrote again reads as what it held last. f->err:
 * errno of what failed (EFBIG: more than f->cap - 1 bytes), else 0. */
enum { CK_KEEP_PIPES = 64 };
typedef struct {
    const char *path;
    char *buf;
    size_t cap, len;
    int keep[CK_KEEP_PIPES][2];
    size_t at[CK_KEEP_PIPES];   /* where each pipe's bytes go in buf, */
    size_t kept;                /*   up to here */
    int nkeep;
    int err;
} ck_fifo_t;
void *ck_fifo_keep(void *arg);
size_t ck_fifo_kept(ck_fifo_t *f);
/* The reader joined, what it kept read into place: no error, and want's len bytes. */
void ck_fifo_expect(ck_fifo_t *f, pthread_t reader, const void *want, size_t len);

/* Write data[0..len) to path (created or truncated); a failed step fails the test. */
void ck_write_file(const char *path, const void *data, size_t len);

/* The whole content of path, malloc'ed and NUL-ended; *len its length. */
char *ck_read_file(const char *path, size_t *len);

/* 1 where files in dir can be given space by fallocate(2) (else the output writes
 * laid-out bytes at their offsets, never mapped: io/layout.c). */
int ck_can_fallocate(const char *dir);

#endif
