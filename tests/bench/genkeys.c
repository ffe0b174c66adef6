/* SPDX-License-Identifier: MIT */
/* genkeys.c: random binary u32 or u64 keys, fast, for the big benchmarks.
 *
 * Key i of seed s is the splitmix64 finaliser of s * 2^32 + i (truncated to the
 * width), so threads make any stretch of the stream independently and the same
 * seed always gives the same keys. With --sum nothing is written: "COUNT SUM" is
 * printed, SUM the keys added mod 2^64, the arithmetic of tests/tools/gscheck, so a
 * sort piped into gscheck can be checked against the generator without a file.
 * Usage: genkeys [-t u32|u64] [-n COUNT] [-s SEED] [--sum]   (to standard output)
 * Into a pipe the keys go by vmsplice(2), which hands the pipe our pages instead of
 * copying them: a pipe carries about half as much again (tests/bench/pipebw). A
 * buffer is made anew only once a pipe's worth of later keys went in after it, so it
 * has left the pipe by then; that holds where the reader read(2)s the pipe (a reader
 * that splice(2)s the pages on into another pipe could see them change).
 */
#define _GNU_SOURCE   /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define GK_BLOCK_KEYS ((size_t)1 << 20)   /* keys a thread makes at a time */
#define GK_MAX_THREADS 64
#define GK_PIPE_BYTES (1 << 20)            /* pipe buffer asked for */

static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

typedef struct {
    int width, threads, sum_only;
    uint64_t seed, count;
    /* a round: thread t makes keys [first + t * GK_BLOCK_KEYS, ...) into buf[set][t];
     * while one set is written, the threads fill the other */
    unsigned char *buf[2][GK_MAX_THREADS];
    size_t len[2][GK_MAX_THREADS];
    uint64_t sum[GK_MAX_THREADS];
} gen_t;

typedef struct {
    gen_t *g;
    int t, set;
    uint64_t first;
} share_t;

static void *gen_share(void *arg)
{
    share_t *s = arg;
    gen_t *g = s->g;
    uint64_t a = s->first + (uint64_t)s->t * GK_BLOCK_KEYS;
    uint64_t b = a + GK_BLOCK_KEYS < g->count ? a + GK_BLOCK_KEYS : g->count;
    uint64_t base = g->seed << 32, sum = 0;
    size_t n = a < b ? (size_t)(b - a) : 0;
    if (g->width == 4) {
        uint32_t *k = (uint32_t *)g->buf[s->set][s->t];
        for (size_t i = 0; i < n; i++) {
            uint32_t v = (uint32_t)mix(base + a + i);
            sum += v;
            if (!g->sum_only)
                k[i] = v;
        }
    } else {
        uint64_t *k = (uint64_t *)g->buf[s->set][s->t];
        for (size_t i = 0; i < n; i++) {
            uint64_t v = mix(base + a + i);
            sum += v;
            if (!g->sum_only)
                k[i] = v;
        }
    }
    g->len[s->set][s->t] = n * (size_t)g->width;
    g->sum[s->t] += sum;
    return NULL;
}

static void die(const char *msg)
{
    fprintf(stderr, "genkeys: %s\n", msg);
    exit(2);
}

static int use_vmsplice;   /* standard output is a pipe of at most a block's bytes */

static void write_all(const unsigned char *p, size_t len)
{
    size_t off = 0;
    while (off < len) {
        struct iovec iov = { (void *)(p + off), len - off };
        ssize_t n = use_vmsplice ? vmsplice(STDOUT_FILENO, &iov, 1, 0)
                                 : write(STDOUT_FILENO, p + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die(strerror(errno));
        off += (size_t)n;
    }
}

int main(int argc, char **argv)
{
    gen_t g = { .width = 4, .count = 1000000, .seed = 1 };
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sum"))
            g.sum_only = 1;
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            g.width = !strcmp(argv[++i], "u64") ? 8 : !strcmp(argv[i], "u32") ? 4 : 0;
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            g.count = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            g.seed = strtoull(argv[++i], NULL, 10);
        else
            die("usage: genkeys [-t u32|u64] [-n COUNT] [-s SEED] [--sum]");
    }
    if (!g.width)
        die("-t: u32 or u64");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    g.threads = cpus < 1 ? 1 : cpus > GK_MAX_THREADS ? GK_MAX_THREADS : (int)cpus;
    for (int set = 0; set < 2; set++)
        for (int t = 0; t < g.threads; t++)
            if (!(g.buf[set][t] = aligned_alloc(4096, GK_BLOCK_KEYS * (size_t)g.width)))
                die("out of memory");
    (void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, GK_PIPE_BYTES);   /* a file ignores it */
    int pipe_bytes = fcntl(STDOUT_FILENO, F_GETPIPE_SZ);
    use_vmsplice = pipe_bytes > 0 && (size_t)pipe_bytes <= GK_BLOCK_KEYS * (size_t)g.width;
    pthread_t th[GK_MAX_THREADS];
    share_t sh[GK_MAX_THREADS];
    uint64_t round = GK_BLOCK_KEYS * (uint64_t)g.threads;
    int set = 0, written = -1;   /* written: the set the last round filled */
    for (uint64_t first = 0;; first += round, set ^= 1) {
        int more = first < g.count, t0 = 0;
        /* The set about to be made anew went into the pipe last round: a block of
         * the round before it (a block holds at least a pipe's worth where there is
         * a next round) pushes it out before it is overwritten. */
        if (written >= 0 && !g.sum_only) {
            write_all(g.buf[written][0], g.len[written][0]);
            t0 = 1;
        }
        for (int t = 0; t < g.threads && more; t++) {
            sh[t] = (share_t){ &g, t, set, first };
            if (pthread_create(&th[t], NULL, gen_share, &sh[t]))
                die("cannot create threads");
        }
        /* The round before is written while this one is made. */
        for (int t = t0; written >= 0 && t < g.threads && !g.sum_only; t++)
            write_all(g.buf[written][t], g.len[written][t]);
        for (int t = 0; t < g.threads && more; t++)
            pthread_join(th[t], NULL);
        if (!more)
            break;
        written = set;
    }
    if (g.sum_only) {
        uint64_t sum = 0;
        for (int t = 0; t < g.threads; t++)
            sum += g.sum[t];
        printf("%llu %llu\n", (unsigned long long)g.count, (unsigned long long)sum);
    }
    return 0;
}
