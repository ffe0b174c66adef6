/* SPDX-License-Identifier: MIT */
/* membw.c: host memory bandwidth, the ceiling of gpusort's CPU stages (a benchmark).
 * T threads each copy their share of a large buffer into another, several times; the
 * best round's bytes read plus bytes written over its time is printed in GB/s.
 * Then the cost of new memory: 1 and T threads writing pages never touched before
 * (each page faults in, zeroed by the kernel; huge pages asked for, as gpusort
 * does), in GB/s: the ceiling of any stage that fills fresh buffers. The same again
 * with small pages ("new memory, small pages"): what a buffer below MEM_HUGE_MIN
 * pays, a fault a 4 KiB page (under some hypervisors, an exit to the host each).
 * Usage: membw [GIB] [THREADS]   (default 4 GiB, online CPUs)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char *src, *dst;
    size_t len;
} share_t;

static void *copy_share(void *arg)
{
    share_t *s = arg;
    memcpy(s->dst, s->src, s->len);
    return NULL;
}

static void *touch_share(void *arg)
{
    share_t *s = arg;
    memset(s->dst, 3, s->len);
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t gib = argc > 1 ? strtoul(argv[1], NULL, 10) : 4;
    int threads = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    size_t bytes = gib << 30;
    char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b || threads < 1 || threads > 1024)
        return 1;
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    pthread_t t[1024];
    share_t s[1024];
    double best = 0;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int i = 0; i < threads; i++) {
            size_t lo = bytes / threads * i, hi = i == threads - 1 ? bytes : bytes / threads * (i + 1);
            s[i] = (share_t){ a + lo, b + lo, hi - lo };
            pthread_create(&t[i], NULL, copy_share, &s[i]);
        }
        for (int i = 0; i < threads; i++)
            pthread_join(t[i], NULL);
        double gbs = 2.0 * bytes / (now() - t0) / 1e9;
        best = gbs > best ? gbs : best;
    }
    printf("host memory: %d threads copy %zu GiB: %.1f GB/s (read + write, best of 5)\n",
           threads, gib, best);
    free(a);
    free(b);
    int tcounts[2] = { 1, threads };
    for (int k = 0; k < 4; k++) {
        int nt = tcounts[k % 2], huge = k < 2;
        char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return 1;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
        madvise(m, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
        double t0 = now();
        for (int i = 0; i < nt; i++) {
            size_t lo = bytes / nt * i, hi = i == nt - 1 ? bytes : bytes / nt * (i + 1);
            s[i] = (share_t){ NULL, m + lo, hi - lo };
            pthread_create(&t[i], NULL, touch_share, &s[i]);
        }
        for (int i = 0; i < nt; i++)
            pthread_join(t[i], NULL);
        printf("new memory%s: %d threads first-touch %zu GiB: %.1f GB/s\n",
               huge ? "" : ", small pages", nt, gib, bytes / (now() - t0) / 1e9);
        munmap(m, bytes);
    }
    return 0;
}
