/* SPDX-License-Identifier: MIT */
/* check_reader.c: unit tests of io/reader.[ch]: kreader over temporary files: text
 * across small blocks, line positions, bad tokens (reported after every key before
 * them), binary blocks, partial keys and the carry between inputs.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>
#include "core/error.h"
#include "core/fdio.h"
#include "io/reader.h"
#include "core/keys.h"
#include "core/pool.h"
#include "check_suites.h"


/* ------------------------------------------------------------------------------ */
/* A temporary directory per test case, created and removed by the parent process */

static char tdir[256];

static void tdir_setup(void)
{
    ck_tdir_make(tdir, sizeof tdir, "input");
}

static void tdir_teardown(void)
{
    ck_remove_tree(tdir);
}

/* path of a file named name in the test directory (static buffer per slot) */
static const char *tpath(const char *name, int slot)
{
    static char paths[4][512];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", tdir, name);
    return paths[slot];
}

/* ------------------------------------------------------------------------------ */
/* kreader                                                                         */

/* kreader_open() of the file path names. */
static int open_path(kreader_t **r, const char *path, const kreader_cfg_t *cfg)
{
    source_t src = { .path = path, .fd = -1 };
    return kreader_open(r, &src, cfg);
}

typedef struct {
    uint64_t *keys;   /* mapped keys read */
    uint64_t *pos;    /* kreader_position of each */
    size_t n, cap;
    int rc;           /* the last kreader_next status */
    size_t blocks;    /* non-empty blocks returned */
    uint64_t bytes;   /* kreader_bytes at the end */
    char name[512];   /* kreader_name */
} readall_t;

#define NOT_SAMPLED UINT64_MAX

/* How read_sampled reads: kreader_next (0), kreader_next_into with room always
 * given (1), or refused at every other block (2). */
static int read_mode;

static void read_mode_plain(void) { read_mode = 0; }
static void read_mode_into(void) { read_mode = 1; }
static void read_mode_refused(void) { read_mode = 2; }

/* The room read_sampled gives kreader_next_into. */
typedef struct {
    char *buf;
    size_t cap;      /* bytes */
    size_t asked;    /* keys asked for last */
    unsigned calls;
    int refuse;      /* 1: every other call gets NULL */
} room_t;

static void *test_room(void *arg, size_t m)
{
    room_t *rm = arg;
    rm->calls++;
    ck_assert_uint_gt(m, 0);
    if (rm->refuse && rm->calls % 2 == 0)
        return NULL;
    if (m * 8 > rm->cap) {
        free(rm->buf);
        rm->cap = m * 8;
        rm->buf = malloc(rm->cap);
        ck_assert_ptr_nonnull(rm->buf);
    }
    rm->asked = m;
    return rm->buf;
}

/* Open path and read every block until the end or an error; keep the keys, and the
 * positions of every stride-th key and of the first and last key of each block
 * (NOT_SAMPLED for the others: kreader_position may be slow). */
static void read_sampled(const char *path, const kreader_cfg_t *cfg, readall_t *ra, size_t stride)
{
    room_t rm = { .refuse = read_mode == 2 };
    size_t placed = 0;
    kreader_t *r = NULL;
    memset(ra, 0, sizeof *ra);
    ck_assert_msg(open_path(&r, path, cfg) == GS_OK, "cannot open %s: %s", path,
                  err_message() ? err_message() : "(no message)");
    ck_assert_ptr_nonnull(r);
    snprintf(ra->name, sizeof ra->name, "%s", kreader_name(r));
    for (;;) {
        const void *keys = NULL;
        size_t n = 0;
        if (read_mode == 0) {
            ra->rc = kreader_next(r, &keys, &n);
        } else {
            rm.asked = 0;
            ra->rc = kreader_next_into(r, test_room, &rm, &keys, &n);
            if (ra->rc == GS_OK && n > 0 && !keys) {
                /* placed: at most as many keys as asked room for */
                ck_assert_uint_le(n, rm.asked);
                keys = rm.buf;
                placed++;
            }
        }
        if (ra->rc != GS_OK || n == 0)
            break;
        ra->blocks++;
        if (ra->n + n > ra->cap) {
            ra->cap = (ra->n + n) * 2;
            ra->keys = realloc(ra->keys, ra->cap * sizeof *ra->keys);
            ra->pos = realloc(ra->pos, ra->cap * sizeof *ra->pos);
            ck_assert(ra->keys && ra->pos);
        }
        for (size_t i = 0; i < n; i++) {
            ra->keys[ra->n + i] = key_get(keys, i, cfg->km->width);
            int sample = (ra->n + i) % stride == 0 || i == 0 || i == n - 1;
            ra->pos[ra->n + i] = sample ? kreader_position(r, i) : NOT_SAMPLED;
        }
        ra->n += n;
    }
    ra->bytes = kreader_bytes(r);
    kreader_close(r);
    /* Text that gave keys was placed where room was given, and only there. */
    if (read_mode && !cfg->binary && ra->blocks && ra->rc == GS_OK)
        ck_assert_msg(placed == (read_mode == 1 ? ra->blocks : (rm.calls + 1) / 2),
                      "%zu of %zu blocks placed (%u asked)", placed, ra->blocks, rm.calls);
    free(rm.buf);
}

/* The same, every position kept. */
static void read_all(const char *path, const kreader_cfg_t *cfg, readall_t *ra)
{
    read_sampled(path, cfg, ra, 1);
}

static void readall_free(readall_t *ra)
{
    free(ra->keys);
    free(ra->pos);
}

/* Text of ntok random values of type, with random white space; raw[] and line[]
 * (1-based) of each token. Returns the length; *text is malloc'd. */
static size_t make_text(char **text, size_t ntok, key_type_t type, uint64_t *seed,
                        uint64_t *raw, uint64_t *line)
{
    static const char ws[6] = { ' ', '\t', '\r', '\n', '\v', '\f' };
    char *t = malloc(ntok * 32 + 16);
    ck_assert_ptr_nonnull(t);
    size_t len = 0;
    uint64_t ln = 1;
    for (size_t i = 0; i < ntok; i++) {
        raw[i] = ck_raw(type, ck_rng_varied(seed));
        line[i] = ln;
        len += (size_t)ck_ref_format(raw[i], type, t + len, 32);
        int nsp = 1 + (int)ck_rng_below(seed, 3);
        for (int k = 0; k < nsp; k++) {
            char c = ck_rng_below(seed, 3) == 0 ? '\n' : ws[ck_rng_below(seed, 6)];
            t[len++] = c;
            ln += c == '\n';
        }
    }
    *text = t;
    return len;
}

/* _i = type * 2 + reverse: text split into small blocks (tokens land on block
 * edges), pools of 1 and 3 threads: every key, in order, with its line. */
START_TEST(test_input_text_blocks)
{
    key_type_t type = (key_type_t)(_i / 2);
    int rev = _i % 2;
    uint64_t seed = 0x74657874 + (uint64_t)_i;
    enum { NMAX = 3000 };
    /* scaled (a block of 64 bytes still cuts 500 keys into some 150 blocks) */
    const size_t N = ck_scaled(NMAX, 500);
    static uint64_t raw[NMAX], line[NMAX];
    char *text;
    size_t len = make_text(&text, N, type, &seed, raw, line);
    const char *path = tpath("blocks.txt", 0);
    ck_write_file(path, text, len);

    static const size_t block_sizes[] = { 64, 65, 100, 1000, 4096, 0 };
    keymap_t km;
    key_map_init(&km, type, rev);
    for (int t = 1; t <= 3; t += 2) {
        pool_t *pool;
        ck_assert_int_eq(pool_create(&pool, t), 0);
        for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; b++) {
            kreader_cfg_t cfg = { .km = &km, .binary = 0, .big_endian = 0, .pool = pool,
                                  .block_bytes = block_sizes[b], .carry = NULL };
            readall_t ra;
            read_all(path, &cfg, &ra);
            ck_assert_msg(ra.rc == GS_OK, "block %zu: %s", block_sizes[b],
                          err_message() ? err_message() : "?");
            ck_assert_msg(ra.n == N, "block %zu, %d threads: %zu keys, expected %zu",
                          block_sizes[b], t, ra.n, N);
            if (block_sizes[b] == 64)
                ck_assert_msg(ra.blocks > 1, "block_bytes 64: one block for %zu bytes", len);
            ck_assert_uint_eq(ra.bytes, len);
            ck_assert_str_eq(ra.name, path);
            for (size_t i = 0; i < N; i++) {
                if (ra.keys[i] != ck_ref_key(type, rev, raw[i]))
                    ck_abort_msg("%s rev %d block %zu, %d threads: key %zu is %#" PRIx64
                                 ", expected %#" PRIx64, ck_type_name(type), rev, block_sizes[b],
                                 t, i, ra.keys[i], ck_ref_key(type, rev, raw[i]));
                if (ra.pos[i] != line[i])
                    ck_abort_msg("%s block %zu, %d threads: key %zu at line %" PRIu64
                                 ", expected %" PRIu64, ck_type_name(type), block_sizes[b], t, i,
                                 ra.pos[i], line[i]);
            }
            readall_free(&ra);
        }
        pool_destroy(pool);
    }
    free(text);
}
END_TEST

/* Edge cases of text files: empty, white space only, no final newline, CRLF, -0. */
START_TEST(test_input_text_edges)
{
    keymap_t km;
    pool_t *pool;
    readall_t ra;
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    key_map_init(&km, KEY_U32, 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = 64 };

    ck_write_file(tpath("empty", 0), "", 0);
    read_all(tpath("empty", 0), &cfg, &ra);
    ck_assert_int_eq(ra.rc, GS_OK);
    ck_assert_uint_eq(ra.n, 0);
    readall_free(&ra);

    ck_write_file(tpath("blank", 0), "\n\n \t\r\n\n", 7);
    read_all(tpath("blank", 0), &cfg, &ra);
    ck_assert_int_eq(ra.rc, GS_OK);
    ck_assert_uint_eq(ra.n, 0);
    readall_free(&ra);

    const char *t = "\n\r\n7\r\n-0\r\n\n+4294967295 00012";
    ck_write_file(tpath("edges", 0), t, strlen(t));
    read_all(tpath("edges", 0), &cfg, &ra);
    ck_assert_int_eq(ra.rc, GS_OK);
    ck_assert_uint_eq(ra.n, 4);
    ck_assert_uint_eq(ra.keys[0], 7);
    ck_assert_uint_eq(ra.keys[1], 0);
    ck_assert_uint_eq(ra.keys[2], 4294967295u);
    ck_assert_uint_eq(ra.keys[3], 12);
    ck_assert_uint_eq(ra.pos[0], 3);
    ck_assert_uint_eq(ra.pos[1], 4);
    ck_assert_uint_eq(ra.pos[2], 6);
    ck_assert_uint_eq(ra.pos[3], 6);
    readall_free(&ra);
    pool_destroy(pool);
}
END_TEST

/* A token longer than a block (leading zeros) is still one token. */
START_TEST(test_input_text_token_longer_than_block)
{
    keymap_t km;
    pool_t *pool;
    readall_t ra;
    char text[600];
    size_t len = 0;
    len += (size_t)snprintf(text + len, sizeof text - len, "1\n");
    memset(text + len, '0', 300);
    len += 300;
    len += (size_t)snprintf(text + len, sizeof text - len, "7\n3\n");
    ck_write_file(tpath("long", 0), text, len);

    ck_assert_int_eq(pool_create(&pool, 1), 0);
    key_map_init(&km, KEY_I64, 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = 64 };
    read_all(tpath("long", 0), &cfg, &ra);
    ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
    ck_assert_uint_eq(ra.n, 3);
    ck_assert_uint_eq(ra.keys[0], ck_ref_key(KEY_I64, 0, 1));
    ck_assert_uint_eq(ra.keys[1], ck_ref_key(KEY_I64, 0, 7));
    ck_assert_uint_eq(ra.keys[2], ck_ref_key(KEY_I64, 0, 3));
    ck_assert_uint_eq(ra.pos[1], 2);
    ck_assert_uint_eq(ra.pos[2], 3);
    readall_free(&ra);

    /* the same with 1 MiB blocks and a token of 3 MiB among others (a file this large
     * is read mapped: the block runs on past its size to the token's end) */
    size_t zeros = (size_t)3 << 20;
    char *big = malloc(zeros + 4096);
    ck_assert_ptr_nonnull(big);
    size_t blen = 0;
    for (int i = 0; i < 200; i++)
        blen += (size_t)sprintf(big + blen, "%d\n", -i);
    memset(big + blen, '0', zeros);
    blen += zeros;
    blen += (size_t)sprintf(big + blen, "42\n-5\n");
    ck_write_file(tpath("long2", 0), big, blen);
    cfg.block_bytes = 1u << 20;
    read_all(tpath("long2", 0), &cfg, &ra);
    ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
    ck_assert_uint_eq(ra.n, 202);
    for (int i = 0; i < 200; i++)
        ck_assert_uint_eq(ra.keys[i], ck_ref_key(KEY_I64, 0, (uint64_t)-(int64_t)i));
    ck_assert_uint_eq(ra.keys[200], ck_ref_key(KEY_I64, 0, 42));
    ck_assert_uint_eq(ra.keys[201], ck_ref_key(KEY_I64, 0, (uint64_t)-5));
    ck_assert_uint_eq(ra.pos[200], 201);
    ck_assert_uint_eq(ra.pos[201], 202);
    ck_assert_uint_eq(ra.bytes, blen);
    readall_free(&ra);
    free(big);
    pool_destroy(pool);
}
END_TEST

/* _i: 0 not an integer, 1 out of range; the bad token comes after many good keys in
 * small blocks: GS_EINPUT only after every key before it, and the message names the
 * file and the line. */
START_TEST(test_input_text_bad_token)
{
    enum { N = 700 };
    static uint64_t raw[N + 10], line[N + 10];
    uint64_t seed = 0x626164 + (uint64_t)_i;
    char *good;
    size_t glen = make_text(&good, N, KEY_I32, &seed, raw, line);
    uint64_t bad_line = 1;
    for (size_t i = 0; i < glen; i++)
        bad_line += good[i] == '\n';
    const char *bad = _i == 0 ? "12abc" : "3000000000";
    char *text = malloc(glen + 64);
    ck_assert_ptr_nonnull(text);
    memcpy(text, good, glen);
    size_t len = glen + (size_t)sprintf(text + glen, "%s 5\n6\n", bad);
    const char *path = tpath("bad.txt", 0);
    ck_write_file(path, text, len);

    keymap_t km;
    pool_t *pool;
    readall_t ra;
    key_map_init(&km, KEY_I32, 0);
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = 64 };
    read_all(path, &cfg, &ra);
    ck_assert_int_eq(ra.rc, GS_EINPUT);
    ck_assert_uint_eq(ra.n, N);
    for (size_t i = 0; i < N; i++)
        if (ra.keys[i] != ck_ref_key(KEY_I32, 0, raw[i]) || ra.pos[i] != line[i])
            ck_abort_msg("key %zu before the bad token is wrong", i);

    char want[1024];
    if (_i == 0)
        snprintf(want, sizeof want, "%s:%" PRIu64 ": not an integer: '12abc'", path, bad_line);
    else
        snprintf(want, sizeof want, "%s:%" PRIu64 ": out of range for i32: '3000000000'; it "
                 "fits --type=i64 or --type=u32", path, bad_line);
    ck_assert_ptr_nonnull(err_message());
    ck_assert_str_eq(err_message(), want);
    readall_free(&ra);
    pool_destroy(pool);
    free(good);
    free(text);
}
END_TEST

/* The first bad token is the one reported, even when a later block has one too and
 * several threads parse at once. */
START_TEST(test_input_text_first_bad_token_wins)
{
    char text[4096];
    size_t len = 0;
    for (int i = 0; i < 100; i++)
        len += (size_t)sprintf(text + len, "%d\n", i);
    len += (size_t)sprintf(text + len, "x1\n");                   /* line 101 */
    for (int i = 0; i < 100; i++)
        len += (size_t)sprintf(text + len, "%d\n", i);
    len += (size_t)sprintf(text + len, "y2\n");                   /* line 202 */
    const char *path = tpath("two-bad.txt", 0);
    ck_write_file(path, text, len);

    keymap_t km;
    pool_t *pool;
    readall_t ra;
    key_map_init(&km, KEY_U64, 0);
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = 0 };
    read_all(path, &cfg, &ra);
    ck_assert_int_eq(ra.rc, GS_EINPUT);
    ck_assert_uint_eq(ra.n, 100);
    char want[600];
    snprintf(want, sizeof want, "%s:101: not an integer: 'x1'", path);
    ck_assert_str_eq(err_message(), want);
    readall_free(&ra);
    pool_destroy(pool);
}
END_TEST

/* Blocks big enough that the pool's threads scan pieces of them in parallel (more
 * than 256 KiB each): every key in order and the sampled lines right. _i: 0 for one
 * 16 MiB block (the default), 1 for 1 MiB blocks. */
START_TEST(test_input_text_parallel)
{
    /* scaled, but keys enough for several blocks of 1 MiB */
    const size_t N = ck_scaled(400000, 120000);
    uint64_t *raw = malloc(N * sizeof *raw), *line = malloc(N * sizeof *line);
    ck_assert(raw && line);
    uint64_t seed = 0x706172 + (uint64_t)_i;
    char *text;
    size_t len = make_text(&text, N, KEY_I64, &seed, raw, line);
    const char *path = tpath("parallel.txt", 0);
    ck_write_file(path, text, len);

    keymap_t km;
    key_map_init(&km, KEY_I64, _i);
    for (int t = 2; t <= 4; t++) {
        pool_t *pool;
        ck_assert_int_eq(pool_create(&pool, t), 0);
        kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = _i ? (1u << 20) : 0 };
        readall_t ra;
        read_sampled(path, &cfg, &ra, 4999);
        ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
        ck_assert_msg(ra.n == N, "%d threads: %zu keys, expected %zu", t, ra.n, N);
        for (size_t i = 0; i < N; i++) {
            if (ra.keys[i] != ck_ref_key(KEY_I64, _i, raw[i]))
                ck_abort_msg("%d threads: key %zu is %#" PRIx64 ", expected %#" PRIx64, t, i,
                             ra.keys[i], ck_ref_key(KEY_I64, _i, raw[i]));
            if (ra.pos[i] != NOT_SAMPLED && ra.pos[i] != line[i])
                ck_abort_msg("%d threads: key %zu at line %" PRIu64 ", expected %" PRIu64, t, i,
                             ra.pos[i], line[i]);
        }
        ck_assert_uint_eq(ra.bytes, len);
        readall_free(&ra);
        pool_destroy(pool);
    }
    free(text);
    free(raw);
    free(line);
}
END_TEST

/* A bad token deep in a block that is scanned in parallel, and a second one later:
 * every key before the first is returned, then GS_EINPUT naming its line. _i picks
 * where the first bad token goes. */
START_TEST(test_input_text_parallel_bad_token)
{
    enum { N = 300000 };
    static const size_t at_list[] = { 0, 1, 99999, 150001, 200000, 299999 };
    size_t at = at_list[_i];
    uint64_t *raw = malloc(N * sizeof *raw), *line = malloc(N * sizeof *line);
    ck_assert(raw && line);
    uint64_t seed = 0x70626164 + (uint64_t)_i;
    char *good;
    size_t glen = make_text(&good, N, KEY_U32, &seed, raw, line);
    /* the text with token `at` replaced by "7up" and token at + 5000 by "x" */
    char *text = malloc(glen + 16);
    ck_assert_ptr_nonnull(text);
    size_t len = 0, i = 0, tok = 0;
    while (i < glen) {
        if (strchr(" \t\r\n\v\f", good[i]) != NULL) {
            text[len++] = good[i++];
            continue;
        }
        size_t end = i;
        while (end < glen && strchr(" \t\r\n\v\f", good[end]) == NULL)
            end++;
        if (tok == at) {
            memcpy(text + len, "7up", 3);
            len += 3;
        } else if (tok == at + 5000) {
            text[len++] = 'x';
        } else {
            memcpy(text + len, good + i, end - i);
            len += end - i;
        }
        i = end;
        tok++;
    }
    const char *path = tpath("parallel-bad.txt", 0);
    ck_write_file(path, text, len);

    keymap_t km;
    key_map_init(&km, KEY_U32, 0);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 4), 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = _i % 2 ? (1u << 20) : 0 };
    readall_t ra;
    read_sampled(path, &cfg, &ra, 7001);
    ck_assert_int_eq(ra.rc, GS_EINPUT);
    ck_assert_uint_eq(ra.n, at);
    for (size_t k = 0; k < at; k++) {
        if (ra.keys[k] != ck_ref_key(KEY_U32, 0, raw[k]))
            ck_abort_msg("key %zu before the bad token is wrong", k);
        if (ra.pos[k] != NOT_SAMPLED && ra.pos[k] != line[k])
            ck_abort_msg("key %zu at line %" PRIu64 ", expected %" PRIu64, k, ra.pos[k], line[k]);
    }
    char want[600];
    snprintf(want, sizeof want, "%s:%" PRIu64 ": not an integer: '7up'", path, line[at]);
    ck_assert_str_eq(err_message(), want);
    readall_free(&ra);
    pool_destroy(pool);
    free(good);
    free(text);
    free(raw);
    free(line);
}
END_TEST

/* _i = type * 2 + big_endian: binary files across blocks; positions are 1-based key
 * indexes; bytes read and the name are right. */
START_TEST(test_input_binary_blocks)
{
    key_type_t type = (key_type_t)(_i / 2);
    int big = _i % 2;
    int width = ck_type_width(type);
    uint64_t seed = 0x62696e + (uint64_t)_i;
    enum { N = 2000 };
    static uint64_t raw[N];
    static unsigned char bytes[N * 8];
    for (size_t i = 0; i < N; i++) {
        raw[i] = ck_raw(type, ck_rng_varied(&seed));
        ck_put_bytes(bytes + i * width, raw[i], width, big);
    }
    const char *path = tpath("keys.bin", 0);
    ck_write_file(path, bytes, (size_t)N * width);

    static const size_t block_sizes[] = { 64, 100, 4096, 0 };
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    for (int rev = 0; rev < 2; rev++) {
        keymap_t km;
        key_map_init(&km, type, rev);
        for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; b++) {
            kreader_cfg_t cfg = { .km = &km, .binary = 1, .big_endian = big, .pool = pool,
                                  .block_bytes = block_sizes[b], .carry = NULL };
            readall_t ra;
            read_all(path, &cfg, &ra);
            ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
            ck_assert_msg(ra.n == N, "%s big %d block %zu: %zu keys", ck_type_name(type), big,
                          block_sizes[b], ra.n);
            for (size_t i = 0; i < N; i++) {
                if (ra.keys[i] != ck_ref_key(type, rev, raw[i]))
                    ck_abort_msg("%s big %d rev %d block %zu: key %zu is %#" PRIx64 ", expected %#" PRIx64,
                                 ck_type_name(type), big, rev, block_sizes[b], i, ra.keys[i],
                                 ck_ref_key(type, rev, raw[i]));
                if (ra.pos[i] != i + 1)
                    ck_abort_msg("%s block %zu: key %zu at position %" PRIu64, ck_type_name(type),
                                 block_sizes[b], i, ra.pos[i]);
            }
            readall_free(&ra);
        }
    }

    /* name and bytes */
    keymap_t km;
    key_map_init(&km, type, 0);
    kreader_cfg_t cfg = { .km = &km, .binary = 1, .big_endian = big, .pool = pool, .block_bytes = 64 };
    kreader_t *r;
    const void *keys;
    size_t n;
    ck_assert_int_eq(open_path(&r, path, &cfg), GS_OK);
    ck_assert_str_eq(kreader_name(r), path);
    do
        ck_assert_int_eq(kreader_next(r, &keys, &n), GS_OK);
    while (n > 0);
    ck_assert_uint_eq(kreader_bytes(r), (uint64_t)N * width);
    kreader_close(r);
    kreader_close(NULL);
    pool_destroy(pool);
}
END_TEST

/* Binary files of several 1 MiB blocks (read ahead by a thread of their own), with
 * block sizes that are not a multiple of the key width: every key, every position.
 * _i: 0 for i32 little endian, 1 for i64 big endian. */
START_TEST(test_input_binary_large)
{
    key_type_t type = _i ? KEY_I64 : KEY_I32;
    int big = _i, width = ck_type_width(type);
    enum { N = 1000000 };
    uint64_t *raw = malloc(N * sizeof *raw);
    unsigned char *bytes = malloc((size_t)N * 8);
    ck_assert(raw && bytes);
    uint64_t seed = 0x6c61726765 + (uint64_t)_i;
    for (size_t i = 0; i < N; i++) {
        raw[i] = ck_raw(type, ck_rng_varied(&seed));
        ck_put_bytes(bytes + i * width, raw[i], width, big);
    }
    const char *path = tpath("large.bin", 0);
    ck_write_file(path, bytes, (size_t)N * width);

    static const size_t block_sizes[] = { 1u << 20, (1u << 20) + 3, (1u << 20) + 5, 0 };
    keymap_t km;
    pool_t *pool;
    key_map_init(&km, type, 0);
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    for (size_t b = 0; b < sizeof block_sizes / sizeof block_sizes[0]; b++) {
        kreader_cfg_t cfg = { .km = &km, .binary = 1, .big_endian = big, .pool = pool,
                              .block_bytes = block_sizes[b] };
        readall_t ra;
        read_all(path, &cfg, &ra);
        ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
        ck_assert_msg(ra.n == N, "block %zu: %zu keys", block_sizes[b], ra.n);
        for (size_t i = 0; i < N; i++) {
            if (ra.keys[i] != ck_ref_key(type, 0, raw[i]))
                ck_abort_msg("block %zu: key %zu is %#" PRIx64 ", expected %#" PRIx64,
                             block_sizes[b], i, ra.keys[i], ck_ref_key(type, 0, raw[i]));
            if (ra.pos[i] != i + 1)
                ck_abort_msg("block %zu: key %zu at position %" PRIu64, block_sizes[b], i, ra.pos[i]);
        }
        ck_assert_uint_eq(ra.bytes, (uint64_t)N * width);
        readall_free(&ra);
    }
    pool_destroy(pool);
    free(raw);
    free(bytes);
}
END_TEST

/* A valid file read many times with blocks of at least 1 MiB (read ahead) whose size
 * is not a multiple of the key width, the file ending just past the first block:
 * never an error. (The read-ahead of the last block must not make the reader take
 * the partial key at the end of the current block for the end of the input.) */
START_TEST(test_input_binary_readahead_end)
{
    size_t block = (1u << 20) + 4;
    size_t len = block + 12;               /* 2^20 + 16: a whole number of 8-byte keys */
    unsigned char *bytes = calloc(1, len);
    ck_assert_ptr_nonnull(bytes);
    for (size_t i = 0; i < len / 8; i++)
        ck_put_bytes(bytes + i * 8, i, 8, 0);
    const char *path = tpath("readahead.bin", 0);
    ck_write_file(path, bytes, len);
    free(bytes);

    keymap_t km;
    pool_t *pool;
    key_map_init(&km, KEY_U64, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    kreader_cfg_t cfg = { .km = &km, .binary = 1, .pool = pool, .block_bytes = block };
    /* repeated for the read-ahead's timing (scaled: its threads are the same each time) */
    const int reps = (int)ck_scaled(3000, 300);
    for (int rep = 0; rep < reps; rep++) {
        kreader_t *r;
        const void *keys;
        size_t n, total = 0;
        int rc;
        ck_assert_int_eq(open_path(&r, path, &cfg), GS_OK);
        while ((rc = kreader_next(r, &keys, &n)) == GS_OK && n > 0) {
            if (key_get(keys, 0, 8) != total)
                ck_abort_msg("rep %d: key %zu is %" PRIu64, rep, total, key_get(keys, 0, 8));
            total += n;
        }
        if (rc != GS_OK || total != len / 8)
            ck_abort_msg("rep %d: status %d after %zu of %zu keys: %s", rep, rc, total, len / 8,
                         err_message() ? err_message() : "?");
        kreader_close(r);
    }
    pool_destroy(pool);
}
END_TEST

/* _i: 0 for i32, 1 for u64. A partial key at the end of a binary file with no carry
 * is GS_EINPUT, and the message names the file. */
START_TEST(test_input_binary_partial_key)
{
    key_type_t type = _i ? KEY_U64 : KEY_I32;
    int width = ck_type_width(type);
    unsigned char bytes[10 * 8 + 3];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 37);
    size_t len = 10 * (size_t)width + 3;
    const char *path = tpath("partial.bin", 0);
    ck_write_file(path, bytes, len);

    keymap_t km;
    pool_t *pool;
    readall_t ra;
    key_map_init(&km, type, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    kreader_cfg_t cfg = { .km = &km, .binary = 1, .pool = pool, .block_bytes = 0, .carry = NULL };
    read_all(path, &cfg, &ra);
    ck_assert_int_eq(ra.rc, GS_EINPUT);
    ck_assert_uint_le(ra.n, 10);
    ck_assert_ptr_nonnull(err_message());
    ck_assert_msg(strstr(err_message(), path) != NULL, "message '%s' does not name %s",
                  err_message(), path);
    char count[32];
    snprintf(count, sizeof count, "%zu", len);
    ck_assert_msg(strstr(err_message() + strlen(path), count) != NULL,
                  "message '%s' does not give the byte count %s", err_message(), count);
    readall_free(&ra);
    pool_destroy(pool);
}
END_TEST

/* As with a bad token in text, the whole keys before a partial key come first, so
 * that -c sees a disorder that comes before it (the contract: only a bad input
 * before the first disorder is an error). _i: 0 for i32, 1 for u64. */
START_TEST(test_input_binary_partial_key_after_whole_keys)
{
    key_type_t type = _i ? KEY_U64 : KEY_I32;
    int width = ck_type_width(type);
    unsigned char bytes[10 * 8 + 3];
    uint64_t raw[10];
    uint64_t seed = 0x7061727469616c + (uint64_t)_i;
    for (int i = 0; i < 10; i++) {
        raw[i] = ck_raw(type, ck_rng_next(&seed));
        ck_put_bytes(bytes + i * width, raw[i], width, 0);
    }
    memset(bytes + 10 * width, 0x55, 3);
    const char *path = tpath("partial2.bin", 0);
    ck_write_file(path, bytes, 10 * (size_t)width + 3);

    keymap_t km;
    pool_t *pool;
    readall_t ra;
    key_map_init(&km, type, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    for (int b = 0; b < 2; b++) {
        kreader_cfg_t cfg = { .km = &km, .binary = 1, .pool = pool,
                              .block_bytes = b ? 16 : 0, .carry = NULL };
        read_all(path, &cfg, &ra);
        ck_assert_int_eq(ra.rc, GS_EINPUT);
        ck_assert_msg(ra.n == 10, "block_bytes %d: %zu whole keys returned before the error, expected 10",
                      b ? 16 : 0, ra.n);
        for (int i = 0; i < 10; i++)
            ck_assert_uint_eq(ra.keys[i], ck_ref_key(type, 0, raw[i]));
        readall_free(&ra);
    }
    pool_destroy(pool);
}
END_TEST

/* With a carry_t, the partial key at the end of one input continues in the next:
 * file A holds 3 keys and 1 byte (i32) or 5 bytes (u64) of the 4th, file B the rest
 * of it and 2 more keys. */
START_TEST(test_input_binary_carry)
{
    key_type_t type = _i ? KEY_U64 : KEY_I32;
    int width = ck_type_width(type);
    int big = _i;   /* little endian for i32, big for u64 */
    size_t split = 3 * (size_t)width + (_i ? 5 : 1);
    unsigned char bytes[6 * 8];
    uint64_t raw[6];
    uint64_t seed = 0x6361727279 + (uint64_t)_i;
    for (int i = 0; i < 6; i++) {
        raw[i] = ck_raw(type, ck_rng_next(&seed));
        ck_put_bytes(bytes + i * width, raw[i], width, big);
    }
    ck_write_file(tpath("a.bin", 0), bytes, split);
    ck_write_file(tpath("b.bin", 1), bytes + split, 6 * (size_t)width - split);

    keymap_t km;
    pool_t *pool;
    carry_t carry;
    readall_t ra;
    memset(&carry, 0, sizeof carry);
    key_map_init(&km, type, 0);
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    kreader_cfg_t cfg = { .km = &km, .binary = 1, .big_endian = big, .pool = pool,
                          .block_bytes = 0, .carry = &carry };

    read_all(tpath("a.bin", 0), &cfg, &ra);
    ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
    ck_assert_uint_eq(ra.n, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(ra.keys[i], ck_ref_key(type, 0, raw[i]));
    ck_assert_int_eq(carry.n, (int)(split - 3 * (size_t)width));
    readall_free(&ra);

    read_all(tpath("b.bin", 1), &cfg, &ra);
    ck_assert_msg(ra.rc == GS_OK, "%s", err_message() ? err_message() : "?");
    ck_assert_uint_eq(ra.n, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(ra.keys[i], ck_ref_key(type, 0, raw[3 + i]));
    ck_assert_int_eq(carry.n, 0);
    readall_free(&ra);
    ck_assert_int_eq(kreader_carry_end(&carry, GS_OK), GS_OK);
    pool_destroy(pool);
}
END_TEST

/* Bytes left over after the last input: kreader_carry_end() blames the first input
 * whose own bytes are not whole keys, with the inputs' total where there are
 * several; an error before is returned as it is; a second call finds nothing. */
START_TEST(test_input_binary_carry_end)
{
    static const unsigned char bytes[7] = { 1, 2, 3, 4, 5, 6, 7 };
    ck_write_file(tpath("a.bin", 0), bytes, 5);      /* a key and a byte */
    ck_write_file(tpath("b.bin", 1), bytes + 5, 2);  /* two bytes more: 3 over */
    keymap_t km;
    pool_t *pool;
    readall_t ra;
    key_map_init(&km, KEY_U32, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    for (int inputs = 1; inputs <= 2; inputs++) {
        carry_t carry;
        memset(&carry, 0, sizeof carry);
        kreader_cfg_t cfg = { .km = &km, .binary = 1, .pool = pool, .carry = &carry };
        for (int f = 0; f < inputs; f++) {
            read_all(tpath(f ? "b.bin" : "a.bin", f), &cfg, &ra);
            ck_assert_int_eq(ra.rc, GS_OK);
            readall_free(&ra);
        }
        ck_assert_int_eq(kreader_carry_end(&carry, GS_OK), GS_EINPUT);
        char want[600];
        if (inputs == 1)
            snprintf(want, sizeof want, "%s: 5 bytes: not a whole number of 4-byte keys",
                     tpath("a.bin", 0));
        else
            snprintf(want, sizeof want, "%s: 5 bytes: not a whole number of 4-byte keys "
                     "(the 2 inputs together: 7 bytes)", tpath("a.bin", 0));
        gs_error_t e = err_take(GS_EINPUT);   /* the record emptied for the next */
        ck_assert_str_eq(e.message, want);
        err_free(&e);
        ck_assert_int_eq(kreader_carry_end(&carry, GS_OK), GS_OK);
        memset(&carry, 0, sizeof carry);
        read_all(tpath("a.bin", 0), &cfg, &ra);
        readall_free(&ra);
        ck_assert_int_eq(kreader_carry_end(&carry, GS_EIO), GS_EIO);
    }
    pool_destroy(pool);
}
END_TEST

/* "-" reads standard input and is named "-" in messages. */
START_TEST(test_input_stdin)
{
    const char *t = "5\n-3\n  9";
    const char *path = tpath("stdin.txt", 0);
    ck_write_file(path, t, strlen(t));
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);

    keymap_t km;
    pool_t *pool;
    key_map_init(&km, KEY_I64, 1);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool };
    readall_t ra;
    read_all("-", &cfg, &ra);
    ck_assert_str_eq(ra.name, "-");
    ck_assert_uint_eq(ra.bytes, strlen(t));
    ck_assert_int_eq(ra.rc, GS_OK);
    ck_assert_uint_eq(ra.n, 3);
    ck_assert_uint_eq(ra.keys[0], ck_ref_key(KEY_I64, 1, 5));
    ck_assert_uint_eq(ra.keys[1], ck_ref_key(KEY_I64, 1, (uint64_t)-3));
    ck_assert_uint_eq(ra.keys[2], ck_ref_key(KEY_I64, 1, 9));
    ck_assert_uint_eq(ra.pos[2], 3);
    readall_free(&ra);
    pool_destroy(pool);
}
END_TEST

START_TEST(test_input_open_missing)
{
    keymap_t km;
    pool_t *pool;
    kreader_t *r = NULL;
    key_map_init(&km, KEY_I64, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    kreader_cfg_t cfg = { .km = &km, .pool = pool };
    const char *path = tpath("no-such-file", 0);
    ck_assert_int_eq(open_path(&r, path, &cfg), GS_EIO);
    ck_assert_ptr_nonnull(err_message());
    ck_assert_msg(strstr(err_message(), path) != NULL, "message '%s' does not name the file",
                  err_message());
    pool_destroy(pool);
}
END_TEST

/* source_try_open(): what source_open() opens, quietly: a missing file and a
 * directory fail with no message recorded (source_open() records one); a range of
 * a descriptor opens at its bytes, the file's size beside them. */
START_TEST(test_source_try_open)
{
    gs_error_t e = err_take(0);
    err_free(&e);
    source_file_t f;
    source_t missing = { .path = tpath("no-such-file", 0) };
    ck_assert_int_eq(source_try_open(&missing, &f), -1);
    source_close(&f);
    ck_assert_ptr_null(err_message());
    source_t dir = { .path = tpath("", 1) };
    ck_assert_int_eq(source_try_open(&dir, &f), -1);
    source_close(&f);
    ck_assert_ptr_null(err_message());
    ck_assert_int_eq(source_open(&missing, &f), GS_EIO);
    source_close(&f);
    ck_assert_ptr_nonnull(err_message());
    e = err_take(GS_EIO);
    err_free(&e);
    const char *path = tpath("try.txt", 2);
    FILE *w = fopen(path, "w");
    ck_assert_ptr_nonnull(w);
    fputs("1\n22\n333\n", w);
    ck_assert_int_eq(fclose(w), 0);
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    source_t range = { .fd = fd, .off = 2, .len = 3, .name = path };
    ck_assert_int_eq(source_try_open(&range, &f), 0);
    ck_assert(f.regular);
    ck_assert_uint_eq(f.start, 2);
    ck_assert_uint_eq(f.end, 5);
    ck_assert_uint_eq(f.size, 9);
    ck_assert_int_ne(f.fd, fd);   /* a descriptor of its own */
    source_close(&f);
    source_t whole = { .path = path };
    ck_assert_int_eq(source_try_open(&whole, &f), 0);
    ck_assert_uint_eq(f.start, 0);
    ck_assert_uint_eq(f.end, 9);
    source_close(&f);
    ck_assert_ptr_null(err_message());
    close(fd);
}
END_TEST

/* source_read(): a whole file read at an offset, alone or by a pool's threads in
 * pieces; a range to its end only; a file grown since it was opened read on past
 * its size; one cut short since fails with "cut short", or quietly where opened by
 * source_try_open(); standard input that is a regular file read from where it
 * stands, moved on (a quiet look leaves it). */
START_TEST(test_source_read)
{
    gs_error_t e = err_take(0);
    err_free(&e);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    const char *path = tpath("read.txt", 0);
    char text[10000], buf[12000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + i % 26);
    FILE *w = fopen(path, "w");
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(fwrite(text, 1, sizeof text, w), sizeof text);
    ck_assert_int_eq(fclose(w), 0);
    source_t whole = { .path = path };
    source_file_t f;
    size_t got;
    ck_assert_int_eq(source_open(&whole, &f), GS_OK);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, sizeof buf, 0, &got), GS_OK);
    ck_assert_uint_eq(got, sizeof text);
    ck_assert_mem_eq(buf, text, sizeof text);
    ck_assert_int_eq(source_read(&f, pool, 1000, buf, 5000, 4321, &got), GS_OK);
    ck_assert_uint_eq(got, 5000);
    ck_assert_mem_eq(buf, text + 4321, 5000);
    ck_assert_int_eq(source_read(&f, pool, 1000, buf, 1000, sizeof text, &got), GS_OK);
    ck_assert_uint_eq(got, 0);   /* its end */
    /* Grown since it was opened: read on past the size it had. */
    w = fopen(path, "a");
    ck_assert_ptr_nonnull(w);
    fputs("XYZ", w);
    ck_assert_int_eq(fclose(w), 0);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, 100, sizeof text - 2, &got), GS_OK);
    ck_assert_uint_eq(got, 5);
    ck_assert_mem_eq(buf + 2, "XYZ", 3);
    /* Cut short since: bytes its size promised are missing. */
    ck_assert_int_eq(truncate(path, 6000), 0);
    ck_assert_ptr_null(err_message());
    ck_assert_int_eq(source_read(&f, pool, 1000, buf, 3000, 5000, &got), GS_EIO);
    ck_assert_ptr_nonnull(err_message());
    ck_assert_msg(strstr(err_message(), "the file was cut short while being read") &&
                      strstr(err_message(), path),
                  "message '%s'", err_message());
    e = err_take(GS_EIO);
    err_free(&e);
    source_close(&f);
    ck_assert_int_eq(source_try_open(&whole, &f), 0);
    ck_assert_int_eq(truncate(path, 10), 0);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, 100, 0, &got), GS_EIO);
    ck_assert_uint_eq(got, 10);
    ck_assert_ptr_null(err_message());   /* quiet */
    source_close(&f);
    /* A range: to its end only, even where the file goes on. */
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    source_t range = { .fd = fd, .off = 2, .len = 5, .name = path };
    ck_assert_int_eq(source_open(&range, &f), GS_OK);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, 100, f.start, &got), GS_OK);
    ck_assert_uint_eq(got, 5);
    ck_assert_mem_eq(buf, text + 2, 5);
    source_close(&f);
    /* Standard input, a regular file standing at its byte 3: a quiet look reads
     * from there by offset and leaves it; a reader reads from where it stands and
     * moves it on, as sort does, so that a second '-' finds it at its end. */
    ck_assert_int_eq(lseek(fd, 3, SEEK_SET), 3);
    int saved = dup(STDIN_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    source_t in = { .path = "-" };
    ck_assert_int_eq(source_try_open(&in, &f), 0);
    ck_assert_uint_eq(f.start, 3);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, 4, f.start, &got), GS_OK);
    ck_assert_uint_eq(got, 4);
    ck_assert_mem_eq(buf, text + 3, 4);
    ck_assert_int_eq(lseek(STDIN_FILENO, 0, SEEK_CUR), 3);
    source_close(&f);
    ck_assert_int_eq(source_open(&in, &f), GS_OK);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, 100, f.start, &got), GS_OK);
    ck_assert_uint_eq(got, 7);
    ck_assert_mem_eq(buf, text + 3, 7);
    ck_assert_int_eq(lseek(STDIN_FILENO, 0, SEEK_CUR), 10);
    source_close(&f);
    ck_assert_int_eq(source_open(&in, &f), GS_OK);   /* the second '-' */
    ck_assert_uint_eq(f.start, 10);
    ck_assert_int_eq(source_read(&f, NULL, 0, buf, 100, f.start, &got), GS_OK);
    ck_assert_uint_eq(got, 0);
    source_close(&f);
    ck_assert_int_eq(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    close(fd);
    ck_assert_ptr_null(err_message());
    pool_destroy(pool);
}
END_TEST

/* A source that is a byte range of a descriptor (gpusort-mpi's shares): exactly the
 * keys of its lines, read plainly (a small range) or mapped (READ_MAP_MIN and up),
 * as text and binary; a bad token's message names the file and its line there, not
 * the range's. */
START_TEST(test_input_range)
{
    keymap_t km;
    pool_t *pool;
    key_map_init(&km, KEY_U64, 0);
    ck_assert_int_eq(pool_create(&pool, 3), 0);
    const size_t nl = 400000;   /* lines "i\n": about 2.6 MB, past READ_MAP_MIN */
    const char *path = tpath("range.txt", 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    uint64_t *at = malloc((nl + 1) * sizeof *at);   /* each line's offset */
    ck_assert_ptr_nonnull(at);
    at[0] = 0;
    for (size_t i = 0; i < nl; i++)
        at[i + 1] = at[i] + (uint64_t)fprintf(f, "%zu\n", i == 300001 ? (size_t)0 : i);
    ck_assert_int_eq(fclose(f), 0);
    /* line 300002 (i 300001) reads "x" below: the file patched in place */
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, "x", 1, (off_t)at[300001]), 1);
    static const size_t spans[][2] = { { 0, 10 }, { 17, 1017 }, { 5, 300001 },
                                       { 300002, nl } };
    for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
        size_t a = spans[k][0], b = spans[k][1] < nl ? spans[k][1] : nl;
        source_t src = { .fd = fd, .off = at[a], .len = at[b] - at[a], .name = path };
        kreader_cfg_t cfg = { .km = &km, .pool = pool, .block_bytes = 1 << 16 };
        kreader_t *r;
        ck_assert_int_eq(kreader_open(&r, &src, &cfg), GS_OK);
        size_t i = a;
        for (;;) {
            const void *keys;
            size_t n;
            int rc = kreader_next(r, &keys, &n);
            ck_assert_msg(rc == GS_OK, "span %zu: %s", k, err_message() ? err_message() : "");
            if (n == 0)
                break;
            for (size_t j = 0; j < n; j++, i++) {
                ck_assert_uint_eq(key_map(&km, ((const uint64_t *)keys)[j]), i);
                if (j == 0)
                    ck_assert_uint_eq(kreader_position(r, j), i + 1);   /* the file's line */
            }
        }
        ck_assert_uint_eq(i, b);
        kreader_close(r);
    }
    /* the bad line inside a range: named by the file's line number */
    source_t bad = { .fd = fd, .off = at[299990], .len = at[300010] - at[299990], .name = path };
    kreader_cfg_t cfg = { .km = &km, .pool = pool };
    kreader_t *r;
    ck_assert_int_eq(kreader_open(&r, &bad, &cfg), GS_OK);
    const void *keys;
    size_t n;
    int rc;
    while ((rc = kreader_next(r, &keys, &n)) == GS_OK && n > 0)
        ;
    ck_assert_int_eq(rc, GS_EINPUT);
    char want[600];
    snprintf(want, sizeof want, "%s:300002: not an integer", path);
    ck_assert_msg(strstr(err_message(), want), "message '%s', not '%s'", err_message(), want);
    kreader_close(r);
    gs_error_t e = err_take(GS_EINPUT);
    err_free(&e);
    /* binary keys: a range of whole keys, read straight into memory */
    const char *bpath = tpath("range.bin", 1);
    int bfd = open(bpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(bfd, 0);
    for (uint64_t i = 0; i < 100000; i++)
        ck_assert_int_eq(pwrite(bfd, &i, 8, (off_t)(i * 8)), 8);
    source_t bsrc = { .fd = bfd, .off = 8 * 777, .len = 8 * 50000, .name = bpath };
    kreader_cfg_t bcfg = { .km = &km, .pool = pool, .binary = 1 };
    ck_assert_int_eq(kreader_open(&r, &bsrc, &bcfg), GS_OK);
    ck_assert(kreader_direct(r));
    ck_assert_uint_eq(kreader_left(r), 8 * 50000);
    uint64_t *got = malloc(8 * 60000);
    ck_assert_ptr_nonnull(got);
    size_t total = 0;
    while (kreader_read_keys(r, got + total, 60000 - total, &n) == GS_OK && n > 0)
        total += n;
    ck_assert_uint_eq(total, 50000);
    for (size_t j = 0; j < total; j++)
        ck_assert_uint_eq(key_map(&km, got[j]), 777 + j);
    kreader_close(r);
    free(got);
    close(bfd);
    close(fd);
    free(at);
    pool_destroy(pool);
}
END_TEST

/* The reader's text tests (and one of binary, which kreader_next_into passes on to
 * kreader_next): run with each way of reading. */
static void add_reader_text_tests(TCase *tc)
{
    tcase_add_loop_test(tc, test_input_text_blocks, 0, 8);
    tcase_add_test(tc, test_input_text_edges);
    tcase_add_test(tc, test_input_text_token_longer_than_block);
    tcase_add_loop_test(tc, test_input_text_bad_token, 0, 2);
    tcase_add_test(tc, test_input_text_first_bad_token_wins);
    tcase_add_loop_test(tc, test_input_text_parallel, 0, 2);
    tcase_add_loop_test(tc, test_input_text_parallel_bad_token, 0, 6);
    tcase_add_loop_test(tc, test_input_binary_blocks, 0, 8);
}

/* fdio_read_pool: a file read in pieces by 1 to 4 threads, from offsets inside it,
 * lengths within it and past its end (pieces of 1000 bytes, and of 0: one piece):
 * the bytes in order, *got the file's bytes there; a descriptor not open: its
 * errno, *got 0. _i: the threads - 1. */
START_TEST(test_input_read_pool)
{
    enum { SIZE = 25000 };
    char path[300];
    snprintf(path, sizeof path, "%s/pool-%d", tdir, _i);
    unsigned char *data = malloc(SIZE), *buf = malloc(2 * SIZE);
    ck_assert(data && buf);
    uint64_t seed = 0x706f6f6c + (uint64_t)_i;
    for (size_t i = 0; i < SIZE; i++)
        data[i] = (unsigned char)ck_rng_next(&seed);
    ck_write_file(path, data, SIZE);
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    pool_t *pool;
    ck_assert_int_eq(pool_create(&pool, _i + 1), GS_OK);
    static const size_t offs[] = { 0, 1, 999, 12345, SIZE - 1, SIZE };
    static const size_t lens[] = { 0, 1, 1000, 1001, 7777, SIZE, 2 * SIZE };
    for (size_t a = 0; a < sizeof offs / sizeof *offs; a++)
        for (size_t b = 0; b < sizeof lens / sizeof *lens; b++)
            for (size_t piece = 0; piece <= 1000; piece += 1000) {
                size_t off = offs[a], len = lens[b], got = 12345;
                size_t want = SIZE - off < len ? SIZE - off : len;
                memset(buf, 0xa5, 2 * SIZE);
                ck_assert_int_eq(fdio_read_pool(pool, fd, buf, len, (int64_t)off, piece, &got), 0);
                ck_assert_msg(got == want, "off %zu len %zu piece %zu: got %zu, %zu wanted",
                              off, len, piece, got, want);
                ck_assert(memcmp(buf, data + off, want) == 0);
            }
    size_t got = 1;
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_eq(fdio_read_pool(pool, fd, buf, 5000, 0, 1000, &got), EBADF);
    ck_assert_uint_eq(got, 0);
    pool_destroy(pool);
    free(data);
    free(buf);
}
END_TEST

Suite *make_input_suite(void)
{
    Suite *s = suite_create("input");
    TCase *tc = ck_tcase("decode");
    suite_add_tcase(s, tc);

    tc = ck_tcase("kreader");
    tcase_add_unchecked_fixture(tc, tdir_setup, tdir_teardown);
    add_reader_text_tests(tc);
    tcase_add_loop_test(tc, test_input_binary_large, 0, 2);
    tcase_add_test(tc, test_input_binary_readahead_end);
    tcase_add_loop_test(tc, test_input_binary_partial_key, 0, 2);
    tcase_add_loop_test(tc, test_input_binary_partial_key_after_whole_keys, 0, 2);
    tcase_add_loop_test(tc, test_input_binary_carry, 0, 2);
    tcase_add_test(tc, test_input_binary_carry_end);
    tcase_add_test(tc, test_input_stdin);
    tcase_add_test(tc, test_input_open_missing);
    tcase_add_test(tc, test_source_try_open);
    tcase_add_test(tc, test_source_read);
    tcase_add_test(tc, test_input_range);
    tcase_add_loop_test(tc, test_input_read_pool, 0, 4);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    /* The text read again with its keys placed in the caller's memory
     * (kreader_next_into): room always given, then refused at every other block. */
    static const char *const into_names[2] = { "kreader into", "kreader into, refused" };
    static void (*const into_setup[2])(void) = { read_mode_into, read_mode_refused };
    for (int m = 0; m < 2; m++) {
        tc = ck_tcase(into_names[m]);
        tcase_add_unchecked_fixture(tc, tdir_setup, tdir_teardown);
        tcase_add_checked_fixture(tc, into_setup[m], read_mode_plain);
        add_reader_text_tests(tc);
        tcase_set_timeout(tc, 120);
        suite_add_tcase(s, tc);
    }
    return s;
}
