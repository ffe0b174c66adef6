/* SPDX-License-Identifier: MIT */
/* bitonic.c: our bitonic sort (gk_bitonic_sort, gk_bitonic_sort_range) against a
 * CPU reference (a test program without Check, like sorter.c). Exits 77 where
 * there is no GPU.
 *
 * Widths 4 and 8. Every n from 0 to 5000 (random keys; the reference grows by
 * insertion); powers of two and their neighbours up to 2^25; all equal, sorted,
 * reversed, few distinct values, and mostly the largest key (the key the sort pads
 * with) at sizes across the tile and pass boundaries; random n up to 2^27; 64-bit keys
 * whose range fits 32 bits (sorted as offsets by gk_bitonic_sort_range). Guard keys
 * after the n keys on the device must come back untouched.
 * Usage: tests/gpu/bitonic [N...]   (only the sizes given, every distribution: small sizes
 * for compute-sanitizer). Prints "gpu/bitonic: N passed, N failed".
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GT_SEED 0x2545F4914F6CDD1Dull
#include "gputest.h"
#include "kernels.h"
#include "core/pool.h"
#include "sorter/sorter.h"

#define GUARD 1024                    /* keys after n that must stay as they were */
#define GUARD_KEY 0x5A5A5A5A5A5A5A5Aull
#define MAX_N ((size_t)1 << 27)

enum { D_RANDOM, D_EQUAL, D_SORTED, D_REVERSED, D_FEW, D_MAXKEY, D_NARROW, D_COUNT };
static const char *const dist_name[D_COUNT] = {
    "random", "equal", "sorted", "reversed", "few", "max-key", "narrow"
};

static uint64_t draw(int dist, int width, size_t i, size_t n)
{
    uint64_t mask = width == 4 ? 0xFFFFFFFFull : ~0ull;
    switch (dist) {
    case D_RANDOM: return splitmix() & mask;
    case D_EQUAL: return 0x1234567ull;
    case D_SORTED: return (uint64_t)i * 7;
    case D_REVERSED: return (uint64_t)(n - i) * 3;
    case D_FEW: return (splitmix() % 3) * 0x10001ull;
    case D_MAXKEY: return splitmix() % 4 ? mask : splitmix() & mask;
    default:   /* a range of 2^32 keys, far from 0 */
        return ((width == 4 ? 0x10000000ull : 0xABCDE00000000ull) +
                (splitmix() & 0xFFFFFFFFull)) & mask;
    }
}

static uint64_t get(const void *a, size_t i, int width)
{
    return width == 4 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}

static void put(void *a, size_t i, int width, uint64_t v)
{
    if (width == 4)
        ((uint32_t *)a)[i] = (uint32_t)v;
    else
        ((uint64_t *)a)[i] = v;
}

/* The test's buffers, sized for MAX_N keys of 8 bytes (plus the guard). */
typedef struct {
    pool_t *pool;
    gk_stream_t stream;
    void *d_keys, *d_alt;
    void *h_in, *h_out, *h_ref, *h_tmp;
    int passed, failed;
} test_t;

/* Sort t->h_in[0..n) on the device (with range: gk_bitonic_sort_range) and compare
 * with want (n sorted keys). */
static void check(test_t *t, size_t n, int width, int range, const void *want, const char *what)
{
    size_t w = (size_t)width, bytes = (n + GUARD) * w;
    for (size_t i = n; i < n + GUARD; i++)
        put(t->h_in, i, width, GUARD_KEY);
    uint64_t min = ~0ull, max = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = get(t->h_in, i, width);
        min = v < min ? v : min;
        max = v > max ? v : max;
    }
    GK(gk_copy_h2d(t->d_keys, t->h_in, bytes, t->stream));
    void *res = t->d_keys;
    int rc = range ? gk_bitonic_sort_range(t->d_keys, t->d_alt, n, width, min, max, NULL, 0,
                                           &res, t->stream)
                   : gk_bitonic_sort(t->d_keys, n, width, NULL, 0, t->stream);
    if (rc == GK_OK)
        rc = gk_copy_d2h(t->h_out, t->d_keys, bytes, t->stream);
    if (rc == GK_OK)
        rc = gk_stream_sync(t->stream);
    size_t bad = n;
    if (rc == GK_OK && res == t->d_keys) {
        for (size_t i = 0; i < n && bad == n; i++)
            if (get(t->h_out, i, width) != get(want, i, width))
                bad = i;
        for (size_t i = n; i < n + GUARD && bad == n; i++)
            if (get(t->h_out, i, width) != (width == 4 ? (uint32_t)GUARD_KEY : GUARD_KEY))
                bad = i;
    }
    if (rc != GK_OK || res != t->d_keys || bad != n) {
        printf("FAIL: u%d, %s, n = %zu%s: ", 8 * width, what, n, range ? " (range)" : "");
        if (rc != GK_OK)
            printf("%s\n", gk_error_text());
        else if (res != t->d_keys)
            printf("result not in d_keys\n");
        else
            printf("key %zu is %llu%s\n", bad, (unsigned long long)get(t->h_out, bad, width),
                   bad >= n ? " (a guard key was written)" : "");
        t->failed++;
        return;
    }
    t->passed++;
}

/* n keys of distribution dist, sorted by the CPU radix sort for the reference. */
static void check_dist(test_t *t, size_t n, int width, int dist, int range)
{
    for (size_t i = 0; i < n; i++)
        put(t->h_in, i, width, draw(dist, width, i, n));
    memcpy(t->h_ref, t->h_in, n * (size_t)width);
    void *want = n ? radix_sort_cpu(t->pool, t->h_ref, t->h_tmp, n, width) : t->h_ref;
    if (!want) {
        printf("FAIL: radix_sort_cpu: out of memory\n");
        exit(1);
    }
    check(t, n, width, range, want, dist_name[dist]);
}

/* Every n from 0 to top: random keys; the reference is the previous one with the new
 * key inserted. */
static void sweep_every(test_t *t, int width, size_t top)
{
    size_t w = (size_t)width;
    char *keys = malloc((top + 1) * w), *ref = malloc((top + 1) * w);
    if (!keys || !ref)
        exit(99);
    for (size_t n = 0; n <= top; n++) {
        if (n > 0) {
            uint64_t v = draw(D_RANDOM, width, 0, 0);
            put(keys, n - 1, width, v);
            size_t at = n - 1;
            while (at > 0 && get(ref, at - 1, width) > v)
                at--;
            memmove(ref + (at + 1) * w, ref + at * w, (n - 1 - at) * w);
            put(ref, at, width, v);
        }
        memcpy(t->h_in, keys, n * w);
        check(t, n, width, 0, ref, "random (every n)");
    }
    free(keys);
    free(ref);
}

int main(int argc, char **argv)
{
    if (gk_device_count() == 0) {
        puts("gpu/bitonic: no GPU here: skipped");
        return 77;
    }
    test_t t = { 0 };
    size_t most = MAX_N;
    if (argc > 1) {
        most = 0;
        for (int i = 1; i < argc; i++) {
            size_t n = strtoull(argv[i], NULL, 10);
            most = n > most ? n : most;
        }
    }
    size_t bytes = (most + GUARD) * 8;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (pool_create(&t.pool, cpus > 1 ? (int)(cpus < 16 ? cpus : 16) : 1))
        return 99;
    GK(gk_set_device(0));
    GK(gk_stream_create(&t.stream));
    GK(gk_malloc(&t.d_keys, bytes));
    GK(gk_malloc(&t.d_alt, (most + GUARD) * 4));
    t.h_in = malloc(bytes);
    t.h_out = malloc(bytes);
    t.h_ref = malloc(bytes);
    t.h_tmp = malloc(bytes);
    if (!t.h_in || !t.h_out || !t.h_ref || !t.h_tmp)
        return 99;
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            for (int width = 4; width <= 8; width += 4)
                for (int dist = 0; dist < D_COUNT; dist++)
                    check_dist(&t, strtoull(argv[i], NULL, 10), width, dist, dist == D_NARROW);
    } else {
        for (int width = 4; width <= 8; width += 4) {
            sweep_every(&t, width, 5000);
            for (int k = 1; k <= 25; k++)
                for (int d = -1; d <= 1; d++)
                    check_dist(&t, ((size_t)1 << k) + (size_t)d, width, D_RANDOM, 0);
            static const size_t sizes[] = { 1000, 8191, 8193, 16384, 16385, 65537, 131071,
                                            1000003, (1u << 21) + 1, 5000011 };
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                for (int dist = 0; dist < D_COUNT; dist++)
                    check_dist(&t, sizes[s], width, dist, dist == D_NARROW);
            for (int r = 0; r < 4; r++)
                check_dist(&t, 1 + splitmix() % MAX_N, width, D_RANDOM, 0);
            check_dist(&t, MAX_N, width, D_RANDOM, 0);
            check_dist(&t, MAX_N - 12345, width, D_NARROW, 1);
        }
    }
    printf("gpu/bitonic: %d passed, %d failed\n", t.passed, t.failed);
    gk_free(t.d_keys);
    gk_free(t.d_alt);
    gk_stream_destroy(t.stream);
    pool_destroy(t.pool);
    free(t.h_in);
    free(t.h_out);
    free(t.h_ref);
    free(t.h_tmp);
    return t.failed ? 1 : 0;
}
