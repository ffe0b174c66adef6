/* SPDX-License-Identifier: MIT */
/* gatherbw.c: the ceiling of the records' gather (records/emit.c): N records of
 * SIZE bytes in one buffer, copied out in a random order by T threads, each into
 * a buffer of its own (as emit.c's threads do), and how the rate moves with the
 * buffer's pages (transparent huge pages asked for, or refused) and with the
 * records asked for ahead of their copy (prefetch).
 *
 *   gatherbw [-n RECORDS] [-s SIZE] [-t THREADS] [-r ROUNDS]
 *
 * Built on demand (make tests/bench/gatherbw). For each set-up it prints the
 * median of the rounds: seconds, ns a record a thread, GB/s of records, and the
 * buffer's AnonHugePages (from /proc/self/smaps).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define OUTBUF ((size_t)4 << 20)

static size_t n_rec = (size_t)1 << 28, rsize = 16;
static int nthreads = 16, rounds = 3;
static char *arena;
static uint32_t *order;
static int ahead;          /* records prefetched ahead, 0: none */
static volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void *worker(void *arg)
{
    long i = (long)arg;
    size_t lo = n_rec * (size_t)i / (size_t)nthreads, hi = n_rec * (size_t)(i + 1) / (size_t)nthreads;
    char *buf = malloc(OUTBUF);
    size_t fill = 0;
    uint64_t x = 0;
    for (size_t r = lo; r < hi; r++) {
        if (ahead && r + (size_t)ahead < hi)
            __builtin_prefetch(arena + (size_t)order[r + ahead] * rsize);
        if (fill + rsize > OUTBUF) {
            x += (unsigned char)buf[fill / 2];
            fill = 0;
        }
        memcpy(buf + fill, arena + (size_t)order[r] * rsize, rsize);
        fill += rsize;
    }
    x += (unsigned char)buf[0];
    sink += x;
    free(buf);
    return NULL;
}

static double run(void)
{
    pthread_t th[256];
    double t0 = now();
    for (long i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    return now() - t0;
}

static long anon_huge_kb(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[256];
    unsigned long lo = 0, hi = 0;
    long kb = 0, in = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && strchr(line, ' ') > strchr(line, '-')) {
            lo = a;
            hi = b;
            in = (uintptr_t)arena >= lo && (uintptr_t)arena < hi;
        } else if (in && strncmp(line, "AnonHugePages:", 14) == 0) {
            kb += atol(line + 14);
        }
    }
    if (f)
        fclose(f);
    return kb;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void setup(int huge)
{
    size_t len = n_rec * rsize;
    if (arena)
        munmap(arena, len);
    arena = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    madvise(arena, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    for (size_t i = 0; i < len; i += 4096)
        arena[i] = (char)i;
}

int main(int argc, char **argv)
{
    int c;
    while ((c = getopt(argc, argv, "n:s:t:r:")) != -1) {
        if (c == 'n')
            n_rec = strtoull(optarg, NULL, 0);
        else if (c == 's')
            rsize = strtoull(optarg, NULL, 0);
        else if (c == 't')
            nthreads = atoi(optarg);
        else if (c == 'r')
            rounds = atoi(optarg);
        else
            return 2;
    }
    if (nthreads < 1 || nthreads > 256 || n_rec > UINT32_MAX || rounds < 1 || rounds > 15)
        return 2;
    order = malloc(n_rec * sizeof *order);
    for (size_t i = 0; i < n_rec; i++)
        order[i] = (uint32_t)i;
    uint64_t s = 7;
    for (size_t i = n_rec - 1; i > 0; i--) {   /* Fisher-Yates */
        size_t j = rng(&s) % (i + 1);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    printf("records %zu of %zu bytes (%.2f GiB), threads %d, rounds %d\n", n_rec, rsize,
           (double)(n_rec * rsize) / (1 << 30), nthreads, rounds);
    static const int aheads[] = { 0, 8, 32 };
    for (int huge = 1; huge >= 0; huge--) {
        setup(huge);
        long kb = anon_huge_kb();
        for (int a = 0; a < 3; a++) {
            ahead = aheads[a];
            double t[16];
            for (int r = 0; r < rounds; r++)
                t[r] = run();
            qsort(t, (size_t)rounds, sizeof t[0], cmp_d);
            double m = t[rounds / 2];
            printf("huge %-3s ahead %2d: %.3f s, %.1f ns a record a thread, %.2f GB/s "
                   "(AnonHugePages %ld MiB)\n", huge ? "yes" : "no", ahead, m,
                   m * 1e9 * nthreads / (double)n_rec, (double)(n_rec * rsize) / m / 1e9,
                   kb >> 10);
        }
    }
    return 0;
}
