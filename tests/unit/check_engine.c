/* SPDX-License-Identifier: MIT */
/* check_engine.c: the engine called in-process (pipeline/run.h), as gpusort-mpi
 * calls it: settings from a command line (cli/options.h), the inputs byte ranges
 * of a descriptor (core/source.h), the output a descriptor; the outcome a value,
 * nothing left recorded after it. Expected outputs are computed here, from the
 * numbers the test wrote (qsort), never by the engine.
 */
#include <config.h>

#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <check.h>

#include "check_suites.h"
#include "cli/options.h"
#include "core/error.h"
#include "pipeline/run.h"

static char tdir[256];

static void tdir_setup(void)
{
    ck_tdir_make(tdir, sizeof tdir, "engine");
}

static void tdir_teardown(void)
{
    ck_remove_tree(tdir);
}

/* Settings from the words of a command line (NULL-ended), the program's name first. */
static void settings_from(opts_t *o, settings_t *s, ...)
{
    static char *argv[32];
    int argc = 0;
    va_list ap;
    argv[argc++] = (char *)"gpusort";
    va_start(ap, s);
    for (char *a = va_arg(ap, char *); a; a = va_arg(ap, char *))
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    memset(o, 0, sizeof *o);
    optind = 0;
    ck_assert_int_eq(opt_parse(argc, argv, o), GS_OK);
    ck_assert_int_eq(opt_settings(o, s), GS_OK);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The whole of file fd (from its start), malloc'ed and NUL-ended: *len bytes. */
static char *slurp(int fd, size_t *len)
{
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    char *b = malloc((size_t)st.st_size + 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(pread(fd, b, (size_t)st.st_size, 0), st.st_size);
    b[st.st_size] = '\0';
    *len = (size_t)st.st_size;
    return b;
}

/* Numbers, one a line, in a file; two byte ranges of it, out of file order, sorted
 * into a descriptor at its position: exactly those ranges' numbers, in order, after
 * what the descriptor held. */
START_TEST(test_engine_ranges)
{
    char path[300];
    snprintf(path, sizeof path, "%s/in.txt", tdir);
    const size_t n = 20000;
    int64_t *v = malloc(n * sizeof *v);
    uint64_t *at = malloc((n + 1) * sizeof *at);
    ck_assert(v && at);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    at[0] = 0;
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = (int64_t)(x % 2000001) - 1000000;
        at[i + 1] = at[i] + (uint64_t)fprintf(f, "%" PRId64 "\n", v[i]);
    }
    ck_assert_int_eq(fclose(f), 0);
    int in = open(path, O_RDONLY);
    char opath[300];
    snprintf(opath, sizeof opath, "%s/out.txt", tdir);
    int out = open(opath, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ck_assert(in >= 0 && out >= 0);
    ck_assert_int_eq(write(out, "before\n", 7), 7);
    opts_t o;
    settings_t s;
    settings_from(&o, &s, "--device=cpu", "--parallel=2", NULL);
    source_t *own = (source_t *)s.sources;
    const size_t a0 = 15000, a1 = 19000, b0 = 10, b1 = 5000;
    source_t src[2] = {
        { .fd = in, .off = at[a0], .len = at[a1] - at[a0], .name = path },
        { .fd = in, .off = at[b0], .len = at[b1] - at[b0], .name = path },
    };
    s.sources = src;
    s.nsources = 2;
    s.output_fd = out;
    gs_error_t e = run(&s);
    ck_assert_int_eq(e.code, GS_OK);
    ck_assert_ptr_null(e.message);
    /* the expected text: the two ranges' numbers sorted */
    size_t m = 0;
    int64_t *w = malloc(n * sizeof *w);
    ck_assert_ptr_nonnull(w);
    for (size_t i = a0; i < a1; i++)
        w[m++] = v[i];
    for (size_t i = b0; i < b1; i++)
        w[m++] = v[i];
    qsort(w, m, sizeof *w, cmp_i64);
    size_t cap = m * 24 + 16, len = 0, got_len;
    char *want = malloc(cap);
    ck_assert_ptr_nonnull(want);
    len += (size_t)snprintf(want, cap, "before\n");
    for (size_t i = 0; i < m; i++)
        len += (size_t)snprintf(want + len, cap - len, "%" PRId64 "\n", w[i]);
    char *got = slurp(out, &got_len);
    ck_assert_uint_eq(got_len, len);
    ck_assert(memcmp(got, want, len) == 0);
    s.sources = own;
    opt_settings_free(&s);
    free(got);
    free(want);
    free(w);
    free(v);
    free(at);
    close(in);
    close(out);
}
END_TEST

/* A bad line inside a range: the outcome is the error as a value, its message the
 * file's name and the line's number in the file; nothing stays recorded, so the
 * next run's outcome is its own (a success, no message). Records (-t, -k2,2n) and
 * bare numbers alike. */
START_TEST(test_engine_error_value)
{
    char path[300], want[400];
    snprintf(path, sizeof path, "%s/bad.csv", tdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    uint64_t at700 = 0, at900 = 0;
    long pos = 0;
    for (int i = 1; i <= 1000; i++) {
        if (i == 700)
            at700 = (uint64_t)pos;
        if (i == 900)
            at900 = (uint64_t)pos;
        pos += i == 800 ? fprintf(f, "%d,12x\n", i) : fprintf(f, "%d,%d\n", i, (i * 37) % 101);
    }
    ck_assert_int_eq(fclose(f), 0);
    int in = open(path, O_RDONLY);
    int out = open("/dev/null", O_WRONLY);
    ck_assert(in >= 0 && out >= 0);
    for (int records = 1; records >= 0; records--) {
        opts_t o;
        settings_t s;
        if (records)
            settings_from(&o, &s, "--device=cpu", "-t,", "-k2,2n", NULL);
        else
            settings_from(&o, &s, "--device=cpu", NULL);
        source_t src = { .fd = in, .off = at700, .len = at900 - at700, .name = path };
        source_t *own = (source_t *)s.sources;
        s.sources = &src;
        s.nsources = 1;
        s.output_fd = out;
        gs_error_t e = run(&s);
        ck_assert_int_eq(e.code, GS_EINPUT);
        ck_assert_ptr_nonnull(e.message);
        snprintf(want, sizeof want, records ? "%s:800: field 2: not an integer: '12x'"
                                            : "%s:700: not an integer: '700,", path);
        ck_assert_msg(strncmp(e.message, want, strlen(want)) == 0, "message '%s', not '%s'",
                      e.message, want);
        err_free(&e);
        ck_assert_ptr_null(err_message());
        /* the same settings on a good range: its own outcome */
        src.off = 0;
        src.len = at700;
        e = run(&s);
        if (records) {
            ck_assert_int_eq(e.code, GS_OK);
            ck_assert_ptr_null(e.message);
        } else {   /* "1,37" is not a bare number either: line 1, of the file */
            ck_assert_int_eq(e.code, GS_EINPUT);
            snprintf(want, sizeof want, "%s:1: not an integer: '1,37'", path);
            ck_assert_msg(strncmp(e.message, want, strlen(want)) == 0,
                          "message '%s', not '%s'", e.message, want);
            err_free(&e);
        }
        s.sources = own;
        opt_settings_free(&s);
    }
    close(in);
    close(out);
}
END_TEST

Suite *make_engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = ck_tcase("run");
    tcase_add_unchecked_fixture(tc, tdir_setup, tdir_teardown);
    tcase_add_test(tc, test_engine_ranges);
    tcase_add_test(tc, test_engine_error_value);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}
