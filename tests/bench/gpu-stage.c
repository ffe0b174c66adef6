/* SPDX-License-Identifier: MIT */
/* gpu-stage.c: gpusort's GPU sort stage (gk_sort_range) against bare CUB SortKeys on
 * the same keys, side by side (a benchmark, never a test).
 *
 * For each case, keys are made once on the host, copied to a pristine device buffer,
 * and before every timed run restored into the working buffer (not timed). Each
 * round times bare CUB (all bits of the key) and then our stage, with CUDA events;
 * the medians of ROUNDS rounds are printed with their ratio. Cases: the full range of
 * u32 (2^30 keys) and u64 (2^29 keys), where both must do the same work, and narrow
 * ranges, where the stage sorts fewer bits (and 64-bit keys as 32-bit offsets).
 * Usage: gpu-stage [ROUNDS]   (default 7)
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#define CHECK(x)                                                                     \
    do {                                                                             \
        if ((x) != GK_OK) {                                                          \
            fprintf(stderr, "gpu-stage: %s\n", gk_error_text());                     \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static uint64_t sm_state = 12345;

static uint64_t splitmix(void)
{
    uint64_t z = (sm_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    const char *name;
    int width;
    int log2n;
    uint64_t base, span;   /* keys in [base, base + span); span 0: the full range */
} bench_case_t;

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (gk_device_count() == 0) {
        puts("gpu-stage: no GPU");
        return 77;
    }
    gk_device_t info;
    CHECK(gk_device_info(0, &info));
    printf("device: %s, %d SMs\n", info.name, info.sms);
    static const bench_case_t cases[] = {
        { "u32 full range", 4, 30, 0, 0 },
        { "u64 full range", 8, 29, 0, 0 },
        { "u32 range 2^24", 4, 30, 1u << 30, 1u << 24 },
        { "u64 range 2^32", 8, 29, 1ull << 40, 1ull << 32 },
    };
    printf("%-16s %12s %12s %12s %9s %12s\n", "keys", "n", "CUB ms", "stage ms", "stage/CUB",
           "Gkeys/s");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const bench_case_t *k = &cases[c];
        size_t n = (size_t)1 << k->log2n, bytes = n * (size_t)k->width;
        void *h = malloc(bytes);
        uint64_t min = ~0ull, max = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = splitmix();
            if (k->span)
                v = k->base + v % k->span;
            if (k->width == 4) {
                v &= 0xFFFFFFFFull;
                ((uint32_t *)h)[i] = (uint32_t)v;
            } else {
                ((uint64_t *)h)[i] = v;
            }
            min = v < min ? v : min;
            max = v > max ? v : max;
        }
        void *d_pristine, *d_keys, *d_alt, *d_scratch, *h_pin;
        size_t scratch;
        gk_stream_t s;
        gk_event_t e0, e1;
        CHECK(gk_stream_create(&s));
        CHECK(gk_event_create(&e0));
        CHECK(gk_event_create(&e1));
        CHECK(gk_radix_scratch(n, k->width, &scratch));
        CHECK(gk_malloc(&d_pristine, bytes));
        CHECK(gk_malloc(&d_keys, bytes));
        CHECK(gk_malloc(&d_alt, bytes));
        CHECK(gk_malloc(&d_scratch, scratch));
        CHECK(gk_host_alloc(&h_pin, (size_t)64 << 20));
        for (size_t off = 0; off < bytes; off += (size_t)64 << 20) {
            size_t len = bytes - off < ((size_t)64 << 20) ? bytes - off : ((size_t)64 << 20);
            memcpy(h_pin, (char *)h + off, len);
            CHECK(gk_copy_h2d((char *)d_pristine + off, h_pin, len, s));
            CHECK(gk_stream_sync(s));
        }
        float *cub = calloc((size_t)rounds, sizeof *cub), *ours = calloc((size_t)rounds, sizeof *ours);
        for (int r = -1; r < rounds; r++) {   /* round -1 warms up */
            int in_alt;
            void *res;
            float ms;
            CHECK(gk_copy_d2d(d_keys, d_pristine, bytes, s));
            CHECK(gk_event_record(e0, s));
            CHECK(gk_radix_sort(d_keys, d_alt, n, k->width, 0, 8 * k->width, d_scratch, scratch,
                                &in_alt, s));
            CHECK(gk_event_record(e1, s));
            CHECK(gk_event_sync(e1));
            CHECK(gk_event_ms(e0, e1, &ms));
            if (r >= 0)
                cub[r] = ms;
            CHECK(gk_copy_d2d(d_keys, d_pristine, bytes, s));
            CHECK(gk_event_record(e0, s));
            CHECK(gk_sort_range(d_keys, d_alt, n, k->width, min, max, d_scratch, scratch, &res, s));
            CHECK(gk_event_record(e1, s));
            CHECK(gk_event_sync(e1));
            CHECK(gk_event_ms(e0, e1, &ms));
            if (r >= 0)
                ours[r] = ms;
            if (r == rounds - 1) {   /* the stage's result is sorted and whole */
                size_t check = bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20);
                CHECK(gk_copy_d2h(h_pin, res, check, s));
                CHECK(gk_stream_sync(s));
                for (size_t i = 1; i < check / (size_t)k->width; i++) {
                    uint64_t a = k->width == 4 ? ((uint32_t *)h_pin)[i - 1] : ((uint64_t *)h_pin)[i - 1];
                    uint64_t b = k->width == 4 ? ((uint32_t *)h_pin)[i] : ((uint64_t *)h_pin)[i];
                    if (a > b || a < min) {
                        printf("gpu-stage: %s: result not sorted at %zu\n", k->name, i);
                        return 1;
                    }
                }
            }
        }
        qsort(cub, (size_t)rounds, sizeof *cub, cmp_float);
        qsort(ours, (size_t)rounds, sizeof *ours, cmp_float);
        float mc = cub[rounds / 2], mo = ours[rounds / 2];
        printf("%-16s %12zu %12.2f %12.2f %9.3f %12.2f\n", k->name, n, mc, mo, mo / mc,
               n / (mo * 1e6));
        free(cub);
        free(ours);
        free(h);
        gk_free(d_pristine);
        gk_free(d_keys);
        gk_free(d_alt);
        gk_free(d_scratch);
        gk_host_free(h_pin);
        gk_event_destroy(e0);
        gk_event_destroy(e1);
        gk_stream_destroy(s);
    }
    return 0;
}
