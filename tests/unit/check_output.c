/* SPDX-License-Identifier: MIT */
/* check_output.c: unit tests of io/output.h: the writer to -o FILE (text and
 * binary, committed atomically, nothing else left in the directory), output_abort
 * (an existing FILE untouched, no temporary left), keys in order laid out by ranks
 * (output_write of sorted keys), zeros written ahead (the file holds exactly the output
 * whichever way it was written) and standard output.
 */
#include <config.h>

#include <dirent.h>
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
#include "io/reader.h"
#include "core/keys.h"
#include "io/output.h"
#include "io/output_impl.h"   /* output_bytes(), output_bytes_mapped() */
#include "core/pool.h"
#include "core/tuning.h"
#include "check_suites.h"


/* ------------------------------------------------------------------------------ */
/* A temporary directory per test case (made and removed by the parent process)    */

static char tdir[256];

static void tdir_setup(void)
{
    ck_tdir_make(tdir, sizeof tdir, "output");
}

static void tdir_teardown(void)
{
    ck_remove_tree(tdir);
}

/* A fresh empty subdirectory of the test directory, for one test's files. */
static void make_subdir(char *dir, size_t size)
{
    snprintf(dir, size, "%s/t-XXXXXX", tdir);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* The number of entries in dir (but . and ..); their names, space-separated in
 * readdir order, in only (enough to compare with a single expected name). */
static int count_entries(const char *dir, char *only, size_t size)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    only[0] = '\0';
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == 0)
            snprintf(only, size, "%s", e->d_name);
        else
            snprintf(only + strlen(only), size - strlen(only), " %s", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

/* ------------------------------------------------------------------------------ */
/* The writer                                                                      */

/* n random mapped keys of type/rev into keys; the expected text (snprintf) or bytes
 * into want; returns the expected length. */
static size_t make_keys(void *keys, size_t n, key_type_t type, int rev, int binary, int big,
                        char *want, uint64_t *seed)
{
    int width = ck_type_width(type);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t raw = ck_raw(type, ck_rng_varied(seed));
        ck_put_key(keys, i, width, ck_ref_key(type, rev, raw));
        if (binary) {
            ck_put_bytes((unsigned char *)want + len, raw, width, big);
            len += (size_t)width;
        } else {
            len += (size_t)ck_ref_format(raw, type, want + len, 32);
            want[len++] = '\n';
        }
    }
    return len;
}

/* Write keys[0..n) in random pieces. */
static void write_pieces(output_t *o, const void *keys, size_t n, int width, uint64_t *seed)
{
    size_t i = 0;
    while (i < n) {
        size_t piece = 1 + (size_t)ck_rng_below(seed, n / 3 + 1);
        if (piece > n - i)
            piece = n - i;
        ck_assert_int_eq(output_write(o, (const char *)keys + i * (size_t)width, piece, 0), GS_OK);
        i += piece;
    }
}

/* _i = type * 4 + binary * 2 + reverse: -o FILE gets exactly the expected text or
 * bytes, and nothing else is left in its directory. */
START_TEST(test_output_file_commit)
{
    key_type_t type = (key_type_t)(_i / 4);
    int binary = _i / 2 % 2, rev = _i % 2;
    int width = ck_type_width(type);
    uint64_t seed = 0x636f6d6d6974 + (uint64_t)_i;
    enum { N = 20000 };
    void *keys = malloc((size_t)N * 8);
    char *want = malloc((size_t)N * 24);
    ck_assert(keys && want);

    for (int t = 1; t <= 3; t += 2) {
        for (int big = 0; big <= binary; big++) {
            char dir[512], path[600], names[1024];
            make_subdir(dir, sizeof dir);
            snprintf(path, sizeof path, "%s/out", dir);
            size_t wlen = make_keys(keys, N, type, rev, binary, big, want, &seed);

            keymap_t km;
            pool_t *pool;
            output_t *o = NULL;
            key_map_init(&km, type, rev);
            ck_assert_int_eq(pool_create(&pool, t), 0);
            output_cfg_t cfg = { .path = path, .km = &km, .binary = binary, .big_endian = big,
                                 .pool = pool };
            ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
            ck_assert_ptr_nonnull(o);
            write_pieces(o, keys, N, width, &seed);
            ck_assert_int_eq(output_write(o, keys, 0, 0), GS_OK);   /* nothing: a no-op */
            ck_assert_uint_eq(output_bytes(o), wlen);
            ck_assert_int_eq(output_commit(o), GS_OK);

            size_t glen;
            char *got = ck_read_file(path, &glen);
            ck_assert_uint_eq(glen, wlen);
            ck_assert_msg(memcmp(got, want, wlen) == 0, "%s binary %d big %d rev %d, %d threads: content differs",
                          ck_type_name(type), binary, big, rev, t);
            free(got);
            ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
            ck_assert_str_eq(names, "out");
            pool_destroy(pool);
        }
    }
    free(keys);
    free(want);
}
END_TEST

/* One output_write of more keys than one formatting batch of every thread holds
 * (64 Ki keys each): text and binary, 1 and 3 threads. _i = binary * 2 + (threads > 1). */
START_TEST(test_output_file_large_write)
{
    int binary = _i / 2, threads = _i % 2 ? 3 : 1;
    enum { N = 700000 };
    uint64_t seed = 0x6c61726765 + (uint64_t)_i;
    uint64_t *keys = malloc(N * sizeof *keys);
    char *want = malloc((size_t)N * 24);
    ck_assert(keys && want);
    size_t wlen = make_keys(keys, N, KEY_I64, 1, binary, 1, want, &seed);

    char dir[512], path[600], names[1024];
    make_subdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/big", dir);
    keymap_t km;
    pool_t *pool;
    output_t *o;
    key_map_init(&km, KEY_I64, 1);
    ck_assert_int_eq(pool_create(&pool, threads), 0);
    output_cfg_t cfg = { .path = path, .km = &km, .binary = binary, .big_endian = 1, .pool = pool };
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_write(o, keys, N, 0), GS_OK);
    ck_assert_uint_eq(output_bytes(o), wlen);
    ck_assert_int_eq(output_commit(o), GS_OK);
    size_t glen;
    char *got = ck_read_file(path, &glen);
    ck_assert_uint_eq(glen, wlen);
    ck_assert_msg(memcmp(got, want, wlen) == 0, "binary %d, %d threads: content differs", binary, threads);
    free(got);
    ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
    pool_destroy(pool);
    free(keys);
    free(want);
}
END_TEST

/* Text in pieces that take the mapped path and the batched one, mixed in one file,
 * on 2 to 4 threads: 2048 lines "9\n" (too few keys: batched) fill one page, so
 * the next large piece is mapped at 4096; a key (batched), then a large piece
 * starting within a page (mapped from there), then a few keys. The mapped pieces'
 * threads let go of the pages they filled every 64 KiB. The file is exactly the
 * keys' text, and the large pieces' bytes were written mapped. _i = type * 2 +
 * reverse. */
START_TEST(test_output_file_mapped_pieces)
{
    key_type_t type = (key_type_t)(_i / 2);
    int rev = _i % 2;
    int width = ck_type_width(type);
    uint64_t seed = 0x6d6170706564 + (uint64_t)_i;
    enum { BIG = 300000, NINES = 2048 };
    const size_t pieces[] = { NINES, BIG, 1, BIG, 5 };
    size_t n = 0;
    for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++)
        n += pieces[p];
    void *keys = malloc(n * 8);
    char *want = malloc(n * 24);
    ck_assert(keys && want);

    for (int t = 2; t <= 4; t++) {
        size_t wlen = 0, at = 0;
        for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
            if (pieces[p] != NINES) {
                wlen += make_keys((char *)keys + at * (size_t)width, pieces[p], type, rev, 0, 0,
                                  want + wlen, &seed);
            } else {
                for (size_t i = 0; i < NINES; i++) {
                    ck_put_key(keys, at + i, width, ck_ref_key(type, rev, 9));
                    memcpy(want + wlen, "9\n", 2);
                    wlen += 2;
                }
            }
            at += pieces[p];
        }
        char dir[512], path[600], names[1024];
        make_subdir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/mapped", dir);
        keymap_t km;
        pool_t *pool;
        output_t *o;
        key_map_init(&km, type, rev);
        ck_assert_int_eq(pool_create(&pool, t), 0);
        /* the pages filled let go every 64 KiB of a thread's share */
        output_cfg_t cfg = { .path = path, .km = &km, .pool = pool, .map_release = 65536 };
        ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
        at = 0;
        unsigned long long mapped = 0;
        for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
            unsigned long long before = output_bytes(o);
            ck_assert_int_eq(output_write(o, (char *)keys + at * (size_t)width, pieces[p], 0), GS_OK);
            if (p == 1 || p == 3)
                mapped += output_bytes(o) - before;
            at += pieces[p];
        }
        ck_assert_uint_eq(output_bytes_mapped(o), ck_can_fallocate(dir) ? mapped : 0);
        ck_assert_uint_eq(output_bytes(o), wlen);
        ck_assert_int_eq(output_commit(o), GS_OK);
        size_t glen;
        char *got = ck_read_file(path, &glen);
        ck_assert_uint_eq(glen, wlen);
        ck_assert_msg(memcmp(got, want, wlen) == 0, "%s rev %d, %d threads: content differs",
                      ck_type_name(type), rev, t);
        free(got);
        ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
        pool_destroy(pool);
    }
    free(keys);
    free(want);
}
END_TEST

static int cmp_key4(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_key8(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* output_write(sorted): keys in order laid out by ranks (no pass over them), in one
 * write placed by 2 and 3 threads, and after a piece written in order: the file is
 * the keys' lines, and was written mapped where the file system has fallocate.
 * Keys of every magnitude (ck_rng_varied) and runs of one value, so that every
 * step of the line lengths has keys, some none. _i = type * 2 + reverse. */
START_TEST(test_output_write_sorted)
{
    key_type_t type = (key_type_t)(_i / 2);
    int rev = _i % 2;
    size_t width = (size_t)ck_type_width(type);
    uint64_t seed = 0x736f72746564 + (uint64_t)_i;
    enum { N = 300000, HEAD = 1000 };
    char *keys = malloc((size_t)N * 8);
    char *want = malloc((size_t)N * 24);
    ck_assert(keys && want);
    keymap_t km;
    key_map_init(&km, type, rev);
    make_keys(keys, N, type, rev, 0, 0, want, &seed);
    for (size_t i = 0; i < N / 10; i++)   /* a run of one value */
        memcpy(keys + (N / 2 + i) * width, keys + (N / 2) * width, width);
    qsort(keys, N, width, width == 4 ? cmp_key4 : cmp_key8);
    size_t wlen = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t mapped = width == 4 ? ((uint32_t *)keys)[i] : ((uint64_t *)keys)[i];
        uint64_t raw = key_map(&km, mapped);
        if (width == 4)
            raw &= UINT32_MAX;
        wlen += (size_t)ck_ref_format(raw, type, want + wlen, 32);
        want[wlen++] = '\n';
    }
    for (int t = 2; t <= 3; t++) {
        for (int split = 0; split < 2; split++) {
            char dir[512], path[600];
            make_subdir(dir, sizeof dir);
            snprintf(path, sizeof path, "%s/sorted", dir);
            pool_t *pool;
            output_t *o;
            ck_assert_int_eq(pool_create(&pool, t), 0);
            output_cfg_t cfg = { .path = path, .km = &km, .pool = pool };
            ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
            size_t first = split ? HEAD : 0;
            if (first)
                ck_assert_int_eq(output_write(o, keys, first, 1), GS_OK);
            unsigned long long head = output_bytes(o);
            ck_assert_int_eq(output_write(o, keys + first * width, N - first, 1), GS_OK);
            ck_assert_uint_eq(output_bytes(o), wlen);
            /* after a piece in order (too few keys to place), the rest placed from
             * inside a page */
            ck_assert_uint_eq(output_bytes_mapped(o), ck_can_fallocate(dir) ? wlen - head : 0);
            ck_assert_int_eq(output_commit(o), GS_OK);
            size_t glen;
            char *got = ck_read_file(path, &glen);
            ck_assert_uint_eq(glen, wlen);
            ck_assert_msg(memcmp(got, want, wlen) == 0, "%s rev %d, %d threads, split %d: "
                          "content differs", ck_type_name(type), rev, t, split);
            free(got);
            pool_destroy(pool);
        }
    }
    free(keys);
    free(want);
}
END_TEST

/* No keys at all: an empty file (created, or an existing one emptied). */
START_TEST(test_output_file_empty)
{
    char dir[512], path[600], names[1024];
    make_subdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/empty", dir);
    keymap_t km;
    pool_t *pool;
    output_t *o;
    key_map_init(&km, KEY_I64, 0);
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    output_cfg_t cfg = { .path = path, .km = &km, .pool = pool };

    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);
    size_t len;
    free(ck_read_file(path, &len));
    ck_assert_uint_eq(len, 0);

    ck_write_file(path, "old\n", 4);
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);
    free(ck_read_file(path, &len));
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
    pool_destroy(pool);
}
END_TEST

/* output_commit replaces an existing FILE (which may have been an input). */
START_TEST(test_output_file_replaces)
{
    char dir[512], path[600], names[1024];
    make_subdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/data", dir);
    ck_write_file(path, "3\n1\n2\n", 6);

    keymap_t km;
    pool_t *pool;
    output_t *o;
    key_map_init(&km, KEY_U32, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    output_cfg_t cfg = { .path = path, .km = &km, .pool = pool };
    uint32_t keys[3] = { 1, 2, 3 };
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_write(o, keys, 3, 0), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);
    size_t len;
    char *got = ck_read_file(path, &len);
    ck_assert_uint_eq(len, 6);
    ck_assert_mem_eq(got, "1\n2\n3\n", 6);
    free(got);
    ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
    ck_assert_str_eq(names, "data");
    pool_destroy(pool);
}
END_TEST

/* As with sort -o: a new FILE gets mode 0666 less the umask (not mkstemp's 0600); a
 * replaced FILE keeps its mode. */
START_TEST(test_output_file_mode)
{
    char dir[512], fresh[600], old[600];
    make_subdir(dir, sizeof dir);
    snprintf(fresh, sizeof fresh, "%s/fresh", dir);
    snprintf(old, sizeof old, "%s/old", dir);
    ck_write_file(old, "9\n", 2);
    ck_assert_int_eq(chmod(old, 0640), 0);
    umask(022);

    keymap_t km;
    pool_t *pool;
    output_t *o;
    uint32_t keys[2] = { 1, 2 };
    struct stat st;
    key_map_init(&km, KEY_U32, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    output_cfg_t cfg = { .path = fresh, .km = &km, .pool = pool };
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_write(o, keys, 2, 0), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);
    ck_assert_int_eq(stat(fresh, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0644);

    cfg.path = old;
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    ck_assert_int_eq(output_write(o, keys, 2, 0), GS_OK);
    ck_assert_int_eq(output_commit(o), GS_OK);
    ck_assert_int_eq(stat(old, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    pool_destroy(pool);
}
END_TEST

/* output_abort: an existing FILE keeps its content; a new FILE is not created; no
 * temporary is left either way, whether keys were written or not. */
START_TEST(test_output_abort)
{
    char dir[512], path[600], fresh[600], names[1024];
    make_subdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/target", dir);
    snprintf(fresh, sizeof fresh, "%s/fresh", dir);
    static const char old[] = "the old content\n";
    ck_write_file(path, old, sizeof old - 1);

    keymap_t km;
    pool_t *pool;
    output_t *o;
    uint64_t seed = 0x61626f7274;
    enum { N = 50000 };   /* enough that some of it may have reached the temporary */
    uint64_t *keys = malloc(N * sizeof *keys);
    char *want = malloc((size_t)N * 24);
    ck_assert(keys && want);
    make_keys(keys, N, KEY_I64, 0, 0, 0, want, &seed);
    key_map_init(&km, KEY_I64, 0);
    ck_assert_int_eq(pool_create(&pool, 3), 0);

    for (int written = 0; written < 2; written++) {
        output_cfg_t cfg = { .path = path, .km = &km, .pool = pool };
        ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
        if (written)
            ck_assert_int_eq(output_write(o, keys, N, 0), GS_OK);
        output_abort(o);
        size_t len;
        char *got = ck_read_file(path, &len);
        ck_assert_uint_eq(len, sizeof old - 1);
        ck_assert_mem_eq(got, old, len);
        free(got);
        ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
        ck_assert_str_eq(names, "target");

        cfg.path = fresh;
        ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
        if (written)
            ck_assert_int_eq(output_write(o, keys, N, 0), GS_OK);
        output_abort(o);
        ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
        ck_assert_str_eq(names, "target");
    }
    output_abort(NULL);   /* a no-op */
    pool_destroy(pool);
    free(keys);
    free(want);
}
END_TEST

/* Wait (up to 10 s) until the one file in dir (the temporary) has bytes bytes. */
static void wait_ahead(const char *dir, uint64_t bytes)
{
    for (int i = 0; i < 10000; i++) {
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        struct dirent *e;
        off_t size = -1;
        while ((e = readdir(d)) != NULL) {
            char p[1024];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (e->d_name[0] == '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
                size = st.st_size;
        }
        closedir(d);
        if (size >= 0 && (uint64_t)size >= bytes)
            return;
        usleep(1000);
    }
    ck_abort_msg("the zeros written ahead never reached %llu bytes", (unsigned long long)bytes);
}

/* output_cfg_t.ahead_keys: zeros written ahead into the temporary (16 threads, 1.1M
 * keys: text that would be placed), then the output written one way or another;
 * the file holds exactly the output, whatever the bound, and nothing else is left.
 * _i: 0 placed (output_write), bound past the output; 1 placed, bound short of it
 * (the rest reserved then); 2 written in order (output_write_bytes: the zeros past
 * the output are cut at the commit); 3 nothing written (an empty file); 4 aborted
 * (no file at all); 5 aborted while the zeros are still being written (a bound of
 * 256 MiB, not waited for: the thread is stopped before the file goes). */
START_TEST(test_output_write_ahead)
{
    enum { N = 1100000 };
    char dir[512], path[600], names[1024];
    make_subdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out", dir);
    uint32_t *keys = malloc((size_t)N * sizeof *keys);
    char *want = malloc((size_t)N * 12);
    ck_assert(keys && want);
    uint64_t seed = 0x6168656164 + (uint64_t)_i;
    size_t wlen = make_keys(keys, N, KEY_U32, 0, 0, 0, want, &seed);
    keymap_t km;
    pool_t *pool;
    output_t *o;
    key_map_init(&km, KEY_U32, 0);
    ck_assert_int_eq(pool_create(&pool, 16), 0);
    uint64_t bound = _i == 1 ? wlen / 2 : _i == 5 ? (uint64_t)256 << 20 : wlen + 100000;
    output_cfg_t cfg = { .path = path, .km = &km, .pool = pool, .ahead_keys = N,
                         .ahead_bytes = bound };
    ck_assert_int_eq(output_open(&o, &cfg), GS_OK);
    if (_i != 5)
        wait_ahead(dir, bound);   /* all of it written: each case meets every zero */
    if (_i <= 1)
        ck_assert_int_eq(output_write(o, keys, N, 0), GS_OK);
    else if (_i == 2)
        ck_assert_int_eq(output_write_bytes(o, want, wlen), GS_OK);
    if (_i >= 4) {
        output_abort(o);
        ck_assert_int_eq(count_entries(dir, names, sizeof names), 0);
    } else {
        ck_assert_int_eq(output_commit(o), GS_OK);
        size_t glen;
        char *got = ck_read_file(path, &glen);
        size_t expect = _i == 3 ? 0 : wlen;
        ck_assert_uint_eq(glen, expect);
        ck_assert_msg(memcmp(got, want, expect) == 0, "case %d: content differs", _i);
        free(got);
        ck_assert_int_eq(count_entries(dir, names, sizeof names), 1);
        ck_assert_str_eq(names, "out");
    }
    pool_destroy(pool);
    free(keys);
    free(want);
}
END_TEST

/* path NULL: standard output (redirected here to a file). */
START_TEST(test_output_stdout)
{
    char dir[512], path[600];
    make_subdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/stdout", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
    close(fd);

    keymap_t km;
    pool_t *pool;
    output_t *o;
    key_map_init(&km, KEY_I32, 1);
    ck_assert_int_eq(pool_create(&pool, 2), 0);
    output_cfg_t cfg = { .path = NULL, .km = &km, .pool = pool };
    uint32_t keys[4];
    keys[0] = (uint32_t)ck_ref_key(KEY_I32, 1, 100);
    keys[1] = (uint32_t)ck_ref_key(KEY_I32, 1, 0);
    keys[2] = (uint32_t)ck_ref_key(KEY_I32, 1, 0xffffffff);              /* -1 */
    keys[3] = (uint32_t)ck_ref_key(KEY_I32, 1, 0x80000000);              /* INT32_MIN */
    int rc_open = output_open(&o, &cfg);
    int rc_write = rc_open == GS_OK ? output_write(o, keys, 4, 0) : -1;
    int rc_commit = rc_open == GS_OK ? output_commit(o) : -1;
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ck_assert_int_eq(rc_open, GS_OK);
    ck_assert_int_eq(rc_write, GS_OK);
    ck_assert_int_eq(rc_commit, GS_OK);

    static const char want[] = "100\n0\n-1\n-2147483648\n";
    size_t len;
    char *got = ck_read_file(path, &len);
    ck_assert_uint_eq(len, sizeof want - 1);
    ck_assert_mem_eq(got, want, len);
    free(got);
    pool_destroy(pool);
}
END_TEST

/* A directory that does not exist: GS_EIO from output_open, naming the file. */
START_TEST(test_output_open_bad_dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/no-such-dir/out", tdir);
    keymap_t km;
    pool_t *pool;
    output_t *o = NULL;
    key_map_init(&km, KEY_I64, 0);
    ck_assert_int_eq(pool_create(&pool, 1), 0);
    output_cfg_t cfg = { .path = path, .km = &km, .pool = pool };
    ck_assert_int_eq(output_open(&o, &cfg), GS_EIO);
    ck_assert_ptr_nonnull(err_message());
    ck_assert_msg(strstr(err_message(), "no-such-dir") != NULL, "message '%s' does not name the file",
                  err_message());
    pool_destroy(pool);
}
END_TEST

Suite *make_output_suite(void)
{
    Suite *s = suite_create("output");
    TCase *tc = ck_tcase("encode");
    suite_add_tcase(s, tc);

    tc = ck_tcase("writer");
    tcase_add_unchecked_fixture(tc, tdir_setup, tdir_teardown);
    tcase_add_loop_test(tc, test_output_file_commit, 0, 16);
    tcase_add_loop_test(tc, test_output_file_large_write, 0, 4);
    tcase_add_loop_test(tc, test_output_file_mapped_pieces, 0, 8);
    tcase_add_loop_test(tc, test_output_write_sorted, 0, 8);
    tcase_add_test(tc, test_output_file_empty);
    tcase_add_test(tc, test_output_file_replaces);
    tcase_add_test(tc, test_output_file_mode);
    tcase_add_test(tc, test_output_abort);
    tcase_add_loop_test(tc, test_output_write_ahead, 0, 6);
    tcase_add_test(tc, test_output_stdout);
    tcase_add_test(tc, test_output_open_bad_dir);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
