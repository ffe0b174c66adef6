/* SPDX-License-Identifier: MIT */
/* sorter.c: the GPU chunk sorter against the CPU radix sort (a test program; it
 * needs no Check, since the GPU machine has none). Exits 77 where there is no GPU.
 *
 * Sweeps both algorithms (radix, bitonic) and widths 4 and 8; sizes from 0 up to
 * several device parts (a small --gpu-memory makes parts of about 1 Mi keys), each
 * sorted here (sorter_sort) and aside (sorter_submit, sorter_wait); distributions
 * that take every path of sorter/cuda*.c: the full range, a narrow range
 * far from 0 (rebased; 64-bit keys as 32-bit offsets), a range just over 2^32 (64-bit,
 * not narrowed), the top of the range (what -r makes of small numbers), all equal,
 * sorted, reversed, few distinct values.
 * Then two sorts aside at once (caps.aside_depth 2) in pinned buffers, each
 * crossing in while the one before crosses back, mixed with a chunk of several
 * parts and a sort here; then sorter_sort_index (records' wide keys with their
 * indices) against a stable sort on the CPU. Then the devices let go
 * (sorter_release): after a sort in a pinned buffer, while the set-up is still
 * under way, and before any set-up; the buffer the caller pinned still its own,
 * every later sort right (on the CPU), and a new sorter after it sorting on the
 * device again. Prints "N passed, N failed". GS_MAX_N=N in the environment skips
 * sizes over N (for runs under compute-sanitizer, which slows the kernels many
 * times over).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GT_SEED 0x9E3779B97F4A7C15ull
#include "gputest.h"
#include "kernels.h"
#include "core/pool.h"
#include "sorter/sorter.h"

enum { D_FULL, D_NARROW, D_OVER32, D_TOP, D_EQUAL, D_SORTED, D_REVERSED, D_FEW, D_COUNT };
static const char *const dist_name[D_COUNT] = {
    "full", "narrow", "over32", "top", "equal", "sorted", "reversed", "few"
};

static uint64_t draw(int dist, int width, size_t i, size_t n)
{
    uint64_t mask = width == 4 ? 0xFFFFFFFFull : ~0ull;
    switch (dist) {
    case D_FULL: return splitmix() & mask;
    case D_NARROW: return ((width == 4 ? 0x40000000ull : 0x123456789ABull) + splitmix() % 1000003) & mask;
    case D_OVER32: return width == 4 ? splitmix() & mask : 0x100000000ull * 7 + splitmix() % 0x300000000ull;
    case D_TOP: return mask - splitmix() % 100000;
    case D_EQUAL: return 42;
    case D_SORTED: return (uint64_t)i * 3;
    case D_REVERSED: return (uint64_t)(n - i) * 5;
    default: return (splitmix() % 5) * 0x10001ull;
    }
}

static void put(void *a, size_t i, int width, uint64_t v)
{
    if (width == 4)
        ((uint32_t *)a)[i] = (uint32_t)v;
    else
        ((uint64_t *)a)[i] = v;
}

/* Every algorithm, width, distribution and size of sizes[] on devices devs[0..ndev),
 * each with mem bytes; counts into *passed and *failed. 1 if a sorter could not be
 * made. */
static int gs_run(pool_t *pool, const int *devs, int ndev, uint64_t mem,
                  const size_t *sizes, size_t nsizes, size_t max_n, int *passed, int *failed)
{
    for (int algo = ALGO_RADIX; algo <= ALGO_BITONIC; algo++) {
        for (int width = 4; width <= 8; width += 4) {
            sorter_t *gpu;
            /* min_keys 0: every size goes to the devices. */
            sorter_cuda_cfg_t cfg = { .devices = devs, .ndevices = ndev, .width = width,
                                      .algorithm = (algorithm_t)algo, .gpu_memory = mem,
                                      .gpu_memory_percent = -1 };
            if (sorter_cuda_create(&gpu, pool, &cfg)) {
                printf("FAIL: sorter_cuda_create(%s, width %d, %d devices)\n",
                       algo ? "bitonic" : "radix", width, ndev);
                return 1;
            }
            for (int dist = 0; dist < D_COUNT; dist++) {
                for (size_t si = 0; si < 2 * nsizes; si++) {
                    int aside = si >= nsizes;
                    size_t n = sizes[aside ? si - nsizes : si], bytes = n * (size_t)width + 8;
                    if (n > max_n)
                        continue;
                    void *a = malloc(bytes), *b = malloc(bytes), *ref = malloc(bytes),
                         *tmp = malloc(bytes);
                    if (!a || !b || !ref || !tmp)
                        exit(99);
                    for (size_t i = 0; i < n; i++)
                        put(a, i, width, draw(dist, width, i, n));
                    memcpy(ref, a, n * (size_t)width);
                    void *want = radix_sort_cpu(pool, ref, tmp, n, width);
                    sort_job_t job = { .keys = a, .scratch = b, .n = n, .width = width };
                    int rc;
                    if (aside) {
                        sorter_submit(gpu, &job);
                        rc = sorter_wait(gpu);
                    } else {
                        rc = sorter_sort(gpu, &job);
                    }
                    if (rc || memcmp(sort_job_result(&job), want, n * (size_t)width) != 0) {
                        printf("FAIL: %s, width %d, %s, n = %zu, %d devices%s (rc %d)\n",
                               algo ? "bitonic" : "radix", width, dist_name[dist], n, ndev,
                               aside ? ", aside" : "", rc);
                        (*failed)++;
                    } else {
                        (*passed)++;
                    }
                    free(a);
                    free(b);
                    free(ref);
                    free(tmp);
                }
            }
            sorter_report(gpu);
            sorter_destroy(gpu);
        }
    }
    return 0;
}

/* Two sorts aside at once, in pinned buffers (a part's way back left running while
 * the next part crosses in: cuda_part.c), in the order a merge submits them: the
 * next submitted before the oldest is waited for. Sizes of one part and of several
 * (those not left running), then a sort here after them. */
static int gs_pipe_run(pool_t *pool, uint64_t mem, size_t max_n, int *passed, int *failed)
{
    static const size_t seq[] = { 1000003, 65537, 2500000, 1000003, 3, 700001, 1000003 };
    const size_t nseq = sizeof seq / sizeof seq[0], most = 2500000;
    for (int algo = ALGO_RADIX; algo <= ALGO_BITONIC; algo++) {
        for (int width = 4; width <= 8; width += 4) {
            sorter_t *gpu;
            int dev = 0;
            sorter_cuda_cfg_t cfg = { .devices = &dev, .ndevices = 1, .width = width,
                                      .algorithm = (algorithm_t)algo, .gpu_memory = mem,
                                      .gpu_memory_percent = -1 };
            if (sorter_cuda_create(&gpu, pool, &cfg)) {
                printf("FAIL: sorter_cuda_create (two aside)\n");
                return 1;
            }
            size_t bytes = most * (size_t)width + 8;
            char *keys[2], *scr[2], *ref = malloc(bytes), *tmp = malloc(bytes);
            void *want[2];
            for (int i = 0; i < 2; i++) {
                keys[i] = malloc(bytes);
                scr[i] = malloc(bytes);
                want[i] = malloc(bytes);
                if (!keys[i] || !scr[i] || !want[i])
                    exit(99);
            }
            if (!ref || !tmp)
                exit(99);
            /* Set up by a first sort; then pin the key buffers. */
            for (size_t i = 0; i < 4096; i++)
                put(keys[0], i, width, splitmix());
            sort_job_t warm = { .keys = keys[0], .scratch = scr[0], .n = 4096, .width = width };
            int pinned = sorter_sort(gpu, &warm) == 0 && sorter_pin(gpu, keys[0], bytes) &&
                         sorter_pin(gpu, keys[1], bytes);
            if (!pinned || sorter_caps(gpu)->aside_depth < 2) {
                printf("FAIL: two aside, %s, width %d: pinned %d, depth %d\n",
                       algo ? "bitonic" : "radix", width, pinned, sorter_caps(gpu)->aside_depth);
                (*failed)++;
            }
            for (int dist = 0; pinned && dist < D_COUNT; dist++) {
                sort_job_t job[2];
                int rc = 0;
                for (size_t j = 0; j <= nseq; j++) {
                    if (j < nseq && seq[j] <= max_n) {   /* the next one in */
                        int b = (int)(j % 2);
                        size_t n = seq[j];
                        for (size_t i = 0; i < n; i++)
                            put(keys[b], i, width, draw(dist, width, i, n));
                        memcpy(ref, keys[b], n * (size_t)width);
                        memcpy(want[b], radix_sort_cpu(pool, ref, tmp, n, width),
                               n * (size_t)width);
                        job[b] = (sort_job_t){ .keys = keys[b], .scratch = scr[b], .n = n,
                                               .width = width };
                        sorter_submit(gpu, &job[b]);
                    }
                    if (j == 0 || seq[j - 1] > max_n)
                        continue;
                    int b = (int)((j - 1) % 2);   /* the one before out */
                    rc = sorter_wait(gpu);
                    size_t n = job[b].n;
                    if (rc || memcmp(sort_job_result(&job[b]), want[b], n * (size_t)width)) {
                        printf("FAIL: two aside, %s, width %d, %s, job %zu, n = %zu (rc %d)\n",
                               algo ? "bitonic" : "radix", width, dist_name[dist], j - 1, n,
                               rc);
                        (*failed)++;
                    } else {
                        (*passed)++;
                    }
                }
                /* A sort here after them, in a pinned buffer. */
                size_t n = 1000003 <= max_n ? 1000003 : 3;
                for (size_t i = 0; i < n; i++)
                    put(keys[0], i, width, draw(dist, width, i, n));
                memcpy(ref, keys[0], n * (size_t)width);
                void *w = radix_sort_cpu(pool, ref, tmp, n, width);
                sort_job_t here = { .keys = keys[0], .scratch = scr[0], .n = n, .width = width };
                rc = sorter_sort(gpu, &here);
                if (rc || memcmp(sort_job_result(&here), w, n * (size_t)width)) {
                    printf("FAIL: two aside, then here, %s, width %d, %s (rc %d)\n",
                           algo ? "bitonic" : "radix", width, dist_name[dist], rc);
                    (*failed)++;
                } else {
                    (*passed)++;
                }
            }
            if (pinned) {
                sorter_unpin(gpu, keys[0]);
                sorter_unpin(gpu, keys[1]);
            }
            sorter_report(gpu);
            sorter_destroy(gpu);
            for (int i = 0; i < 2; i++) {
                free(keys[i]);
                free(scr[i]);
                free(want[i]);
            }
            free(ref);
            free(tmp);
        }
    }
    return 0;
}

/* sorter_sort_index (records' wide keys) against a stable sort of (key, index) on
 * the CPU, for both algorithms, on one device with mem bytes: where it takes the
 * keys, the same indices; it must take them wherever must_take (radix, and n
 * within its buffers, which hold two thirds of a part's 8-byte keys). */
typedef struct {
    uint64_t key;
    uint32_t idx;
} kv_t;

static int kv_cmp(const void *x, const void *y)
{
    const kv_t *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int gs_index_run(pool_t *pool, uint64_t mem, const size_t *sizes, size_t nsizes,
                        size_t max_n, size_t take_max, int *passed, int *failed)
{
    for (int algo = ALGO_RADIX; algo <= ALGO_BITONIC; algo++) {
        sorter_t *gpu;
        int dev = 0;
        sorter_cuda_cfg_t cfg = { .devices = &dev, .ndevices = 1, .width = 8,
                                  .algorithm = (algorithm_t)algo, .gpu_memory = mem,
                                  .gpu_memory_percent = -1 };
        if (sorter_cuda_create(&gpu, pool, &cfg)) {
            printf("FAIL: sorter_cuda_create (index sort)\n");
            return 1;
        }
        for (int dist = 0; dist < D_COUNT; dist++) {
            for (size_t si = 0; si < nsizes; si++) {
                size_t n = sizes[si];
                if (n > max_n)
                    continue;
                uint64_t *keys = malloc(sizeof *keys * (n + 1));
                uint32_t *perm = malloc(sizeof *perm * (n + 1));
                kv_t *ref = malloc(sizeof *ref * (n + 1));
                if (!keys || !perm || !ref)
                    exit(99);
                for (size_t i = 0; i < n; i++) {
                    keys[i] = draw(dist, 8, i, n);
                    ref[i].key = keys[i];
                    ref[i].idx = (uint32_t)i;
                }
                qsort(ref, n, sizeof *ref, kv_cmp);
                int done = 0, rc = sorter_sort_index(gpu, keys, perm, n, &done);
                int bad = rc != 0 || (algo == ALGO_RADIX && n >= 2 && n <= take_max && !done);
                for (size_t i = 0; done && !bad && i < n; i++)
                    bad = perm[i] != ref[i].idx;
                if (bad) {
                    printf("FAIL: index sort, %s, %s, n = %zu (rc %d, done %d)\n",
                           algo ? "bitonic" : "radix", dist_name[dist], n, rc, done);
                    (*failed)++;
                } else {
                    (*passed)++;
                }
                free(keys);
                free(perm);
                free(ref);
            }
        }
        sorter_report(gpu);
        sorter_destroy(gpu);
    }
    return 0;
}

/* n full-range keys of width 8 at a (room for n), sorted by gpu here, checked against
 * the CPU's sort: 1 where right. */
static int gs_sort_check(pool_t *pool, sorter_t *gpu, uint64_t *a, size_t n)
{
    uint64_t *b = malloc(sizeof *b * (n + 1)), *ref = malloc(sizeof *ref * (n + 1)),
             *tmp = malloc(sizeof *tmp * (n + 1));
    if (!b || !ref || !tmp)
        exit(99);
    for (size_t i = 0; i < n; i++)
        a[i] = ref[i] = splitmix();
    void *want = radix_sort_cpu(pool, ref, tmp, n, 8);
    sort_job_t job = { .keys = a, .scratch = b, .n = n, .width = 8 };
    int ok = sorter_sort(gpu, &job) == 0 &&
             memcmp(sort_job_result(&job), want, n * sizeof *a) == 0;
    if (ok && sort_job_result(&job) != a)
        memcpy(a, b, n * sizeof *a);
    free(b);
    free(ref);
    free(tmp);
    return ok;
}

static void gs_count(int ok, const char *what, int *passed, int *failed)
{
    if (ok) {
        (*passed)++;
    } else {
        printf("FAIL: release: %s\n", what);
        (*failed)++;
    }
}

/* sorter_release: when = 0 after a sort on the device in a buffer pinned through
 * the sorter, 1 while the set-up begun by sorter_grow may still run, 2 before any
 * set-up; then sorts (here and aside), pins and index sorts go to the CPU, right. */
static int gs_release_run(pool_t *pool, uint64_t mem, int *passed, int *failed)
{
    const size_t n = 2500000;
    for (int when = 0; when < 3; when++) {
        sorter_t *gpu;
        int dev = 0;
        sorter_cuda_cfg_t cfg = { .devices = &dev, .ndevices = 1, .width = 8,
                                  .gpu_memory = mem, .gpu_memory_percent = -1,
                                  .min_keys = 1 << 20 };
        if (sorter_cuda_create(&gpu, pool, &cfg)) {
            printf("FAIL: sorter_cuda_create (release)\n");
            return 1;
        }
        uint64_t *a = malloc(sizeof *a * (n + 1)), *p = malloc(sizeof *p * (n + 1));
        if (!a || !p)
            exit(99);
        if (when == 0) {
            gs_count(gs_sort_check(pool, gpu, a, n), "a sort before", passed, failed);
            gs_count(sorter_pin(gpu, p, n * sizeof *p) == 1, "pinned before", passed, failed);
            gs_count(gs_sort_check(pool, gpu, p, n), "a sort in pinned memory", passed, failed);
        } else if (when == 1) {
            gs_count(sorter_grow(gpu, (size_t)1 << 21) == 0, "grow", passed, failed);
        }
        sorter_release(gpu);
        sorter_release(gpu);   /* a second call does nothing */
        const sorter_caps_t *caps = sorter_caps(gpu);
        gs_count(caps->max_keys == 0 && caps->grow_at == 0 && !caps->merge_by_sort &&
                 !caps->streams, "the CPU's caps", passed, failed);
        if (when == 0) {   /* the caller's pinned memory: still its own, as it was */
            int sorted = 1;
            for (size_t i = 1; i < n && sorted; i++)
                sorted = p[i - 1] <= p[i];
            gs_count(sorted, "pinned memory kept", passed, failed);
            p[0] = 7;
            gs_count(p[0] == 7, "pinned memory written", passed, failed);
        }
        gs_count(sorter_pin(gpu, a, n * sizeof *a) == 0, "no pin after", passed, failed);
        gs_count(gs_sort_check(pool, gpu, a, n), "a sort after", passed, failed);
        gs_count(gs_sort_check(pool, gpu, p, n), "a sort after, in what was pinned", passed,
                 failed);
        uint32_t *perm = malloc(sizeof *perm * (n + 1));
        int done = 1;
        gs_count(perm && sorter_sort_index(gpu, a, perm, n, &done) == 0 && !done,
                 "the index sort declined after", passed, failed);
        free(perm);
        sort_job_t job = { .keys = a, .scratch = p, .n = n, .width = 8 };
        for (size_t i = 0; i < n; i++)
            a[i] = n - i;
        int aside = sorter_submit(gpu, &job);
        int ok = sorter_wait(gpu) == 0 && !aside;
        const uint64_t *r = sort_job_result(&job);
        for (size_t i = 0; ok && i < n; i++)
            ok = r[i] == i + 1;
        gs_count(ok, "a sort submitted after", passed, failed);
        sorter_unpin(gpu, p);   /* nothing to undo */
        sorter_report(gpu);
        sorter_destroy(gpu);
        free(a);
        free(p);
    }
    /* The device again, in the same process, for a sorter made after the resets. */
    sorter_t *gpu;
    int dev = 0;
    sorter_cuda_cfg_t cfg = { .devices = &dev, .ndevices = 1, .width = 8, .gpu_memory = mem,
                              .gpu_memory_percent = -1 };
    uint64_t *a = malloc(sizeof *a * (n + 1));
    if (!a || sorter_cuda_create(&gpu, pool, &cfg))
        exit(99);
    gs_count(gs_sort_check(pool, gpu, a, n), "a new sorter's sort", passed, failed);
    sorter_report(gpu);   /* "gpu 0 ...: 1 chunks": it sorted on the device */
    sorter_destroy(gpu);
    free(a);
    return 0;
}

int main(void)
{
    if (gk_device_count() == 0) {
        puts("gpu/sorter: no GPU here: skipped");
        return 77;
    }
    pool_t *pool;
    if (pool_create(&pool, 4))
        return 99;
    static const size_t sizes[] = { 0, 1, 2, 3, 255, 256, 257, 4095, 65536, 65537,
                                    1000003, (1u << 20) - 1, 1u << 20, (1u << 20) + 1,
                                    2500000, 3 * (1u << 20) + 7 };
    const char *max_env = getenv("GS_MAX_N");
    size_t max_n = max_env ? (size_t)strtoull(max_env, NULL, 10) : SIZE_MAX;
    /* 24 MiB a device: about 1 Mi keys of 8 bytes a part, so the larger sizes take
     * several parts and the CPU merge of parts. */
    uint64_t small = (uint64_t)24 << 20;
    int devs[8] = { 0 }, ndev = gk_device_count() < 8 ? gk_device_count() : 8;
    for (int d = 0; d < ndev; d++)
        devs[d] = d;
    int passed = 0, failed = 0;
    if (gs_run(pool, devs, 1, small, sizes, sizeof sizes / sizeof sizes[0], max_n, &passed,
               &failed))
        return 1;
    if (ndev > 1) {
        /* Every device: chunks of 4 Mi keys a device and more are dealt by key range
         * (or, where a bucket would not fit, in parts merged on the CPU). */
        static const size_t multi[] = { 3 * (1u << 20) + 7, (1u << 23) + 3, 12000007 };
        uint64_t big = (uint64_t)512 << 20;
        if (gs_run(pool, devs, ndev, big, multi, sizeof multi / sizeof multi[0], max_n,
                   &passed, &failed) ||
            gs_run(pool, devs, ndev, small, multi, sizeof multi / sizeof multi[0], max_n,
                   &passed, &failed))
            return 1;
    }
    if (gs_pipe_run(pool, small, max_n, &passed, &failed))
        return 1;
    /* The index sort: 24 MiB take about 650 Ki keys (declined above: sorted by the
     * caller); 256 MiB take every size here. */
    static const size_t isizes[] = { 0, 1, 2, 3, 255, 65537, 600000, 1000003, 2500000,
                                      3 * (1u << 20) + 7 };
    if (gs_index_run(pool, small, isizes, sizeof isizes / sizeof isizes[0], max_n, 600000,
                     &passed, &failed) ||
        gs_index_run(pool, (uint64_t)256 << 20, isizes, sizeof isizes / sizeof isizes[0], max_n,
                     SIZE_MAX, &passed, &failed))
        return 1;
    if (gs_release_run(pool, (uint64_t)256 << 20, &passed, &failed))
        return 1;
    pool_destroy(pool);
    printf("gpu/sorter: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
