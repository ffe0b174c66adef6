/* SPDX-License-Identifier: MIT */
/* readbw.c: how fast a file in the page cache can be read, the ceiling of gpusort's
 * read stage (a benchmark, never a test).
 * T threads pread(2) the file in blocks of B MiB, each its share of the blocks in
 * turn into a buffer of its own, for each T and B given; then the file mapped with
 * mmap(2) and every page read by T threads (a sum, so that the reads are not
 * optimised away); then the ceilings of reading into memory the process has never
 * touched, as gpusort reads a chunk: the file pread by T threads in 1 MiB pieces into
 * one fresh anonymous mapping (with huge pages asked for by madvise, and without),
 * and such a mapping only faulted in (a byte written a page). Prints GB/s of the best
 * of three rounds, one line each. Read the
 * file once first (cat FILE >/dev/null) so that it is in the page cache.
 * Usage: readbw FILE THREADS,... MIB,...   (e.g. readbw big 1,4,8,16 1,4,16)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    const unsigned char *map;
    unsigned char *fresh;     /* the fresh modes: the mapping read into or touched */
    size_t size, block;
    int t, nt;
    uint64_t sum;
    int err;
} job_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *read_share(void *arg)
{
    job_t *j = arg;
    char *buf = malloc(j->block);
    if (!buf) {
        j->err = 1;
        return NULL;
    }
    memset(buf, 0, j->block);   /* touched before timing starts matters little */
    for (size_t off = (size_t)j->t * j->block; off < j->size; off += (size_t)j->nt * j->block) {
        size_t want = j->size - off < j->block ? j->size - off : j->block;
        if (pread(j->fd, buf, want, (off_t)off) != (ssize_t)want) {
            j->err = 1;
            break;
        }
        j->sum += (unsigned char)buf[want - 1];
    }
    free(buf);
    return NULL;
}

static void *map_share(void *arg)
{
    job_t *j = arg;
    size_t a = j->size / 4096 * (size_t)j->t / (size_t)j->nt * 4096;
    size_t b = j->t + 1 == j->nt ? j->size : j->size / 4096 * (size_t)(j->t + 1) / (size_t)j->nt * 4096;
    uint64_t s = 0;
    for (size_t i = a; i < b; i += 4096)
        s += j->map[i];
    j->sum = s;
    return NULL;
}

/* The file's blocks (this thread's share, in turn) pread into the fresh mapping at
 * their own offsets. */
static void *fresh_share(void *arg)
{
    job_t *j = arg;
    for (size_t off = (size_t)j->t * j->block; off < j->size; off += (size_t)j->nt * j->block) {
        size_t want = j->size - off < j->block ? j->size - off : j->block;
        if (pread(j->fd, j->fresh + off, want, (off_t)off) != (ssize_t)want) {
            j->err = 1;
            break;
        }
    }
    return NULL;
}

/* The fresh mapping faulted in: this thread's share of it, a byte written a page. */
static void *touch_share(void *arg)
{
    job_t *j = arg;
    size_t a = j->size / 4096 * (size_t)j->t / (size_t)j->nt * 4096;
    size_t b = j->t + 1 == j->nt ? j->size : j->size / 4096 * (size_t)(j->t + 1) / (size_t)j->nt * 4096;
    for (size_t i = a; i < b; i += 4096)
        j->fresh[i] = 1;
    return NULL;
}

/* GB/s of the best of three rounds of nt threads running fn; with map, each round
 * maps the file afresh (its page tables are what costs) and unmaps it after; with
 * huge 0 or 1 (not -1), each round maps size bytes of fresh anonymous memory (huge
 * pages asked for where huge is 1), its mapping and unmapping timed with it. */
static double rounds_fresh(void *(*fn)(void *), int fd, int map, int huge, size_t size,
                           size_t block, int nt)
{
    double best = 0;
    for (int r = 0; r < 3; r++) {
        pthread_t th[256];
        job_t j[256];
        double t0 = now();
        const unsigned char *m = NULL;
        if (map && (m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0)) == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        unsigned char *f = NULL;
        if (huge >= 0) {
            f = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (f == MAP_FAILED) {
                perror("mmap");
                exit(1);
            }
#ifdef MADV_HUGEPAGE
            if (huge)
                madvise(f, size, MADV_HUGEPAGE);
#endif
        }
        for (int t = 0; t < nt; t++) {
            j[t] = (job_t){ .fd = fd, .map = m, .fresh = f, .size = size, .block = block,
                            .t = t, .nt = nt };
            if (pthread_create(&th[t], NULL, fn, &j[t]) != 0) {
                fputs("readbw: cannot create threads\n", stderr);
                exit(1);
            }
        }
        for (int t = 0; t < nt; t++) {
            pthread_join(th[t], NULL);
            if (j[t].err) {
                fputs("readbw: read failed\n", stderr);
                exit(1);
            }
        }
        if (f)
            munmap(f, size);
        double gbs = size / (now() - t0) / 1e9;
        if (m)
            munmap((void *)m, size);
        best = gbs > best ? gbs : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("Usage: readbw FILE THREADS,... MIB,...\n", stderr);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
        perror(argv[1]);
        return 2;
    }
    size_t size = (size_t)st.st_size;
    for (char *ts = argv[2]; *ts;) {
        int nt = (int)strtol(ts, &ts, 10);
        if (*ts == ',')
            ts++;
        if (nt < 1 || nt > 256)
            continue;
        for (char *bs = argv[3]; *bs;) {
            size_t mib = strtoul(bs, &bs, 10);
            if (*bs == ',')
                bs++;
            if (mib == 0)
                continue;
            printf("readbw: pread %d threads, %zu MiB blocks: %.2f GB/s\n", nt, mib,
                   rounds_fresh(read_share, fd, 0, -1, size, mib << 20, nt));
            fflush(stdout);
        }
        printf("readbw: mmap %d threads, every page read once: %.2f GB/s\n", nt,
               rounds_fresh(map_share, fd, 1, -1, size, 0, nt));
        for (int huge = 1; huge >= 0; huge--) {
            printf("readbw: pread %d threads, 1 MiB blocks, into fresh memory%s: %.2f GB/s\n",
                   nt, huge ? " (huge pages asked)" : "",
                   rounds_fresh(fresh_share, fd, 0, huge, size, (size_t)1 << 20, nt));
            printf("readbw: fresh memory faulted in by %d threads%s: %.2f GB/s\n", nt,
                   huge ? " (huge pages asked)" : "",
                   rounds_fresh(touch_share, -1, 0, huge, size, 0, nt));
        }
        fflush(stdout);
    }
    close(fd);
    return 0;
}
