/* membw.c: host memory bandwidth, the ceiling of gpusort's CPU stages (a benchmark).
 * T threads each copy their share of a large buffer into another, several times; the
 * best round's bytes read plus bytes written over its time is printed in GB/s.
 * Usage: membw [GIB] [THREADS]   (default 4 GiB, online CPUs)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    return 0;
}
