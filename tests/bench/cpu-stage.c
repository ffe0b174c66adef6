/* SPDX-License-Identifier: MIT */
/* cpu-stage.c: gpusort's CPU stages alone, on keys in memory (a benchmark, never a
 * test): the radix chunk sort (radix_sort_cpu) against the C library's qsort on the
 * same keys, and the text scan (tn_scan) and format (tn_format_keys) of those keys,
 * one thread each.
 *
 * N random u32 keys (a seeded generator) are made once; before every timed sort a
 * copy of them is restored into the working buffer, and the scratch buffer is one
 * already written (no page faults are timed). Every result is checked. Prints the
 * median of ROUNDS rounds of each, and the sort's ratio to qsort.
 * Usage: cpu-stage [N [ROUNDS [THREADS]]]   (defaults 10000000, 5, online CPUs)
 */
#include <config.h>

#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/keys.h"
#include "core/pool.h"
#include "sorter/sorter.h"
#include "io/textnum.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what)
{
    fprintf(stderr, "cpu-stage: %s\n", what);
    exit(1);
}

static void check_sorted(const uint32_t *k, size_t n, const char *who)
{
    for (size_t i = 1; i < n; i++)
        if (k[i - 1] > k[i]) {
            fprintf(stderr, "cpu-stage: %s: keys %zu and %zu out of order\n", who, i - 1, i);
            exit(1);
        }
}

/* The text is the keys' lines as the C library prints them. */
static void check_text(const char *text, size_t len, const uint32_t *k, size_t n)
{
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        char line[16];
        int l = snprintf(line, sizeof line, "%" PRIu32 "\n", k[i]);
        if (off + (size_t)l > len || memcmp(text + off, line, (size_t)l) != 0)
            die("tn_format_keys: a line differs from printf's");
        off += (size_t)l;
    }
    if (off != len)
        die("tn_format_keys: the text is longer than the keys' lines");
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = argc > 3 ? atoi(argv[3]) : (cpus > 0 ? (int)cpus : 1);
    if (n < 2 || rounds < 1 || rounds > 1000 || threads < 1)
        die("usage: cpu-stage [N >= 2 [ROUNDS 1..1000 [THREADS >= 1]]]");

    uint32_t *orig = malloc(n * 4), *keys = malloc(n * 4), *tmp = malloc(n * 4);
    char *text = malloc(n * TN_MAX_LINE);
    double *t_radix = malloc(sizeof(double) * (size_t)rounds);
    double *t_qsort = malloc(sizeof(double) * (size_t)rounds);
    double *t_scan = malloc(sizeof(double) * (size_t)rounds);
    double *t_words = malloc(sizeof(double) * (size_t)rounds);
    double *t_fmt = malloc(sizeof(double) * (size_t)rounds);
    double *t_fmts = malloc(sizeof(double) * (size_t)rounds);
    if (!orig || !keys || !tmp || !text || !t_radix || !t_qsort || !t_scan || !t_words || !t_fmt || !t_fmts)
        die("out of memory");
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        orig[i] = (uint32_t)(s >> 16);
    }
    memset(tmp, 0, n * 4);
    pool_t *pool;
    if (pool_create(&pool, threads) != 0)
        die("cannot start the threads");
    keymap_t km;
    key_map_init(&km, KEY_U32, 0);

    size_t text_len = 0;
    for (int r = 0; r < rounds; r++) {
        memcpy(keys, orig, n * 4);
        double t0 = now();
        uint32_t *res = radix_sort_cpu(pool, keys, tmp, n, 4);
        t_radix[r] = now() - t0;
        if (!res)
            die("radix_sort_cpu: out of memory");
        check_sorted(res, n, "radix_sort_cpu");

        memcpy(keys, orig, n * 4);
        t0 = now();
        qsort(keys, n, 4, cmp_u32);
        t_qsort[r] = now() - t0;
        check_sorted(keys, n, "qsort");

        /* Format the sorted keys, as the output does. */
        t0 = now();
        size_t sorted_len = tn_format_keys(keys, n, &km, text);
        t_fmts[r] = now() - t0;
        if (r == 0)
            check_text(text, sorted_len, keys, n);

        /* Format the unsorted keys (a text file as gsgen writes it), then scan it. */
        t0 = now();
        text_len = tn_format_keys(orig, n, &km, text);
        t_fmt[r] = now() - t0;
        tn_scan_t sc;
        t0 = now();
        tn_scan(text, text_len, &km, keys, &sc);
        t_scan[r] = now() - t0;
        if (sc.status != TN_OK || sc.nkeys != n || memcmp(keys, orig, n * 4) != 0)
            die("tn_scan did not give back the formatted keys");
        /* The same scan a word at a time, as where the line scan is not supported. */
        memset(keys, 0, n * 4);
        t0 = now();
        tn_scan_with(text, text_len, &km, keys, &sc, 0);
        t_words[r] = now() - t0;
        if (sc.status != TN_OK || sc.nkeys != n || memcmp(keys, orig, n * 4) != 0)
            die("tn_scan_with(words) did not give back the formatted keys");
    }

    double mr = median(t_radix, rounds), mq = median(t_qsort, rounds);
    double ms = median(t_scan, rounds), mf = median(t_fmt, rounds);
    double mw = median(t_words, rounds), mfs = median(t_fmts, rounds);
    printf("%zu random u32 keys, %zu bytes as text; medians of %d rounds\n", n, text_len,
           rounds);
    printf("%-34s %10s %12s\n", "stage", "ms", "Mkeys/s");
    char what[64];
    snprintf(what, sizeof what, "radix_sort_cpu (%d threads)", threads);
    printf("%-34s %10.1f %12.1f\n", what, mr * 1e3, (double)n / mr / 1e6);
    printf("%-34s %10.1f %12.1f\n", "qsort (1 thread)", mq * 1e3, (double)n / mq / 1e6);
    printf("%-34s %10.1f %12.1f   %.0f MB/s\n",
           tn_lines_supported() ? "tn_scan, lines (1 thread)" : "tn_scan (1 thread)", ms * 1e3,
           (double)n / ms / 1e6, (double)text_len / ms / 1e6);
    printf("%-34s %10.1f %12.1f   %.0f MB/s\n", "tn_scan, words (1 thread)", mw * 1e3,
           (double)n / mw / 1e6, (double)text_len / mw / 1e6);
    printf("%-34s %10.1f %12.1f   %.0f MB/s\n", "tn_format_keys, sorted (1 thread)",
           mfs * 1e3, (double)n / mfs / 1e6, (double)text_len / mfs / 1e6);
    printf("%-34s %10.1f %12.1f   %.0f MB/s\n", "tn_format_keys, random (1 thread)",
           mf * 1e3, (double)n / mf / 1e6, (double)text_len / mf / 1e6);
    printf("radix_sort_cpu against qsort: %.1fx\n", mq / mr);
    pool_destroy(pool);
    free(orig);
    free(keys);
    free(tmp);
    free(text);
    free(t_radix);
    free(t_qsort);
    free(t_scan);
    free(t_words);
    free(t_fmt);
    free(t_fmts);
    return 0;
}
