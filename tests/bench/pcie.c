/* SPDX-License-Identifier: MIT */
/* pcie.c: the bandwidth between pinned host memory and a GPU, the ceiling of
 * gpusort's transfer stage (a benchmark, never a test).
 * Copies a MIB-MiB pinned buffer to device 0 and back, ROUNDS times each after a
 * warm-up, timed with CUDA events, then both directions at once on two streams
 * (timed on the host clock); prints the best round of each in GB/s, one line each,
 * in the form tests/bench/stages.sh reads. Then what pinning costs and what copies
 * from pageable memory give: cudaHostAlloc of the buffer, cudaHostRegister of a
 * malloc'd buffer already touched (and its unregistering), and each direction's copy
 * to and from that buffer unpinned (the driver stages it). Exits 77 where there is
 * no GPU.
 * Usage: pcie [MIB] [ROUNDS]   (default 1024 MiB, 5 rounds)
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"

#define CHECK(x)                                                                     \
    do {                                                                             \
        if ((x) != GK_OK) {                                                          \
            fprintf(stderr, "pcie: %s\n", gk_error_text());                          \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* GB/s of the best of rounds single-direction copies (after one warm-up): h2d when
 * to_device, else d2h, of bytes between h_buf and d_buf on stream s. */
static double pcie_one_way(int to_device, void *h_buf, void *d_buf, size_t bytes, int rounds,
                           gk_stream_t s, gk_event_t e0, gk_event_t e1)
{
    double best = 0;
    for (int r = -1; r < rounds; r++) {
        float ms;
        CHECK(gk_event_record(e0, s));
        if (to_device)
            CHECK(gk_copy_h2d(d_buf, h_buf, bytes, s));
        else
            CHECK(gk_copy_d2h(h_buf, d_buf, bytes, s));
        CHECK(gk_event_record(e1, s));
        CHECK(gk_event_sync(e1));
        CHECK(gk_event_ms(e0, e1, &ms));
        double gbs = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
        if (r >= 0 && gbs > best)
            best = gbs;
    }
    return best;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (mib == 0 || rounds < 1) {
        fputs("Usage: pcie [MIB] [ROUNDS]\n", stderr);
        return 2;
    }
    if (gk_device_count() == 0) {
        puts("pcie: no GPU");
        return 77;
    }
    gk_device_t info;
    CHECK(gk_device_info(0, &info));
    printf("device: %s\n", info.name);
    size_t bytes = mib << 20;
    void *h_a, *h_b, *d_a, *d_b;
    gk_stream_t s1, s2;
    gk_event_t e0, e1;
    double ta = now();
    CHECK(gk_host_alloc(&h_a, bytes));
    ta = now() - ta;
    CHECK(gk_host_alloc(&h_b, bytes));
    CHECK(gk_malloc(&d_a, bytes));
    CHECK(gk_malloc(&d_b, bytes));
    memset(h_a, 1, bytes);
    memset(h_b, 2, bytes);
    CHECK(gk_stream_create(&s1));
    CHECK(gk_stream_create(&s2));
    CHECK(gk_event_create(&e0));
    CHECK(gk_event_create(&e1));

    double h2d = pcie_one_way(1, h_a, d_a, bytes, rounds, s1, e0, e1);
    double d2h = pcie_one_way(0, h_b, d_b, bytes, rounds, s1, e0, e1);
    /* Both at once: h_a -> d_a on one stream, d_b -> h_b on the other. */
    double both = 0;
    for (int r = -1; r < rounds; r++) {
        double t0 = now();
        CHECK(gk_copy_h2d(d_a, h_a, bytes, s1));
        CHECK(gk_copy_d2h(h_b, d_b, bytes, s2));
        CHECK(gk_stream_sync(s1));
        CHECK(gk_stream_sync(s2));
        double gbs = 2.0 * bytes / (now() - t0) / 1e9;
        if (r >= 0 && gbs > both)
            both = gbs;
    }
    printf("pcie: host->device pinned %zu MiB: %.1f GB/s (best of %d)\n", mib, h2d, rounds);
    printf("pcie: device->host pinned %zu MiB: %.1f GB/s (best of %d)\n", mib, d2h, rounds);
    printf("pcie: both ways at once pinned %zu MiB: %.1f GB/s (sum, best of %d)\n", mib, both,
           rounds);

    printf("pcie: pinning: cudaHostAlloc %zu MiB: %.3f s (%.1f GB/s)\n", mib, ta,
           bytes / ta / 1e9);
    char *p = malloc(bytes);
    if (!p) {
        fputs("pcie: out of memory\n", stderr);
        return 1;
    }
    memset(p, 3, bytes);
    double tr = now();
    CHECK(gk_host_register(p, bytes));
    tr = now() - tr;
    double tu = now();
    gk_host_unregister(p);
    tu = now() - tu;
    printf("pcie: pinning: cudaHostRegister %zu MiB touched: %.3f s (%.1f GB/s), "
           "unregister %.3f s\n", mib, tr, bytes / tr / 1e9, tu);
    double ph2d = pcie_one_way(1, p, d_a, bytes, rounds, s1, e0, e1);
    double pd2h = pcie_one_way(0, p, d_b, bytes, rounds, s1, e0, e1);
    printf("pcie: pageable host->device %zu MiB: %.1f GB/s, device->host %.1f GB/s "
           "(best of %d)\n", mib, ph2d, pd2h, rounds);
    free(p);

    gk_event_destroy(e0);
    gk_event_destroy(e1);
    gk_stream_destroy(s1);
    gk_stream_destroy(s2);
    gk_free(d_a);
    gk_free(d_b);
    gk_host_free(h_a);
    gk_host_free(h_b);
    return 0;
}
