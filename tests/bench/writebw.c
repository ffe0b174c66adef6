/* SPDX-License-Identifier: MIT */
/* writebw.c: how fast a new file can be written into the page cache, the ceiling of
 * gpusort's write stage (a benchmark, never a test).
 * For each way below and each thread count T given, a file of MIB MiB is made anew
 * in DIR from a buffer already in memory, timed from open(2) to close(2), and
 * removed; the best of three rounds is printed, one line each, in GB/s:
 *   write      one thread, write(2) in 4 MiB pieces (what a single writer can do)
 *   pwrite     T threads, each pwrite(2) of its own contiguous share in 4 MiB pieces
 *   mmap       ftruncate(2), the file mapped shared, T threads copying their shares
 *   falloc     the same with fallocate(2) first (blocks reserved, as a full disk
 *              must be found before a page fault can meet it)
 *   release    falloc, copying 4 MiB at a time and letting go of each 4 MiB after
 *              (madvise MADV_DONTNEED), as gpusort does to keep its RSS down
 *   populate   release, each 4 MiB faulted in at once first (MADV_POPULATE_WRITE)
 *   files      T threads, each write(2) of its share into a file of its own (one
 *              inode's lock no longer shared: the ceiling of a spill over T files)
 * Usage: writebw DIR MIB THREADS,...   (e.g. writebw /tmp 1024 1,4,16)
 * WRITEBW_PAUSE=S sleeps S seconds before each round. Without it, each round reuses
 * the pages of the file the round before removed. A VM whose host takes back its
 * guest's free memory (free page reporting) gives a file written after a pause pages
 * new to the host, as a run of gpusort meets them after another program's.
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

#define PIECE ((size_t)4 << 20)

typedef struct {
    int fd;
    const char *path;       /* files: the stem of the thread's own file */
    char *dst;              /* mmap modes: the file mapped */
    const char *src;
    size_t size;
    int t, nt;
    int err;
} job_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void share(const job_t *j, size_t *lo, size_t *hi)
{
    /* page-aligned shares, so that no two threads write one page */
    size_t pages = (j->size + 4095) / 4096;
    *lo = pages * (size_t)j->t / (size_t)j->nt * 4096;
    *hi = pages * (size_t)(j->t + 1) / (size_t)j->nt * 4096;
    if (*hi > j->size)
        *hi = j->size;
    if (*lo > *hi)
        *lo = *hi;
}

static void *pwrite_share(void *arg)
{
    job_t *j = arg;
    size_t lo, hi;
    share(j, &lo, &hi);
    for (size_t off = lo; off < hi; off += PIECE) {
        size_t want = hi - off < PIECE ? hi - off : PIECE;
        if (pwrite(j->fd, j->src + off, want, (off_t)off) != (ssize_t)want) {
            j->err = 1;
            break;
        }
    }
    return NULL;
}

static void *file_share(void *arg)
{
    job_t *j = arg;
    size_t lo, hi;
    char path[4200];
    share(j, &lo, &hi);
    snprintf(path, sizeof path, "%s.%d", j->path, j->t);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        j->err = 1;
        return NULL;
    }
    for (size_t off = lo; off < hi && !j->err; off += PIECE) {
        size_t want = hi - off < PIECE ? hi - off : PIECE;
        j->err = write(fd, j->src + off, want) != (ssize_t)want;
    }
    if (close(fd) != 0)
        j->err = 1;
    return NULL;
}

static void *copy_share(void *arg)
{
    job_t *j = arg;
    size_t lo, hi;
    share(j, &lo, &hi);
    memcpy(j->dst + lo, j->src + lo, hi - lo);
    return NULL;
}

/* release and populate: 4 MiB at a time, let go after, faulted in first or not. */
static void *piece_share(job_t *j, int populate)
{
    size_t lo, hi;
    share(j, &lo, &hi);
    for (size_t off = lo; off < hi; off += PIECE) {
        size_t want = hi - off < PIECE ? hi - off : PIECE;
#ifdef MADV_POPULATE_WRITE
        if (populate && madvise(j->dst + off, want, MADV_POPULATE_WRITE) != 0) {
            j->err = 1;
            break;
        }
#else
        if (populate) {
            j->err = 1;
            break;
        }
#endif
        memcpy(j->dst + off, j->src + off, want);
        madvise(j->dst + off, want, MADV_DONTNEED);
    }
    return NULL;
}

static void *release_share(void *arg)
{
    return piece_share(arg, 0);
}

static void *populate_share(void *arg)
{
    return piece_share(arg, 1);
}

enum { W_WRITE, W_PWRITE, W_MMAP, W_FALLOC, W_RELEASE, W_POPULATE, W_FILES };
static const char *const names[] = { "write", "pwrite", "mmap", "falloc", "release", "populate",
                                     "files" };
static void *(*const shares[])(void *) = { NULL, pwrite_share, copy_share, copy_share,
                                           release_share, populate_share, file_share };

/* One round: seconds, or a negative number on failure. */
static double round_once(const char *path, int way, const char *src, size_t size, int nt)
{
    double t0 = now();
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    int bad = 0;
    if (way == W_WRITE) {
        for (size_t off = 0; off < size && !bad; off += PIECE) {
            size_t want = size - off < PIECE ? size - off : PIECE;
            bad = write(fd, src + off, want) != (ssize_t)want;
        }
    } else {
        char *map = NULL;
        if (way >= W_FALLOC && way <= W_POPULATE && fallocate(fd, 0, 0, (off_t)size) != 0)
            bad = 1;
        if (!bad && way != W_PWRITE && way != W_FILES) {
            if (way == W_MMAP && ftruncate(fd, (off_t)size) != 0)
                bad = 1;
            map = bad ? MAP_FAILED : mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED)
                bad = 1;
        }
        job_t jobs[256];
        pthread_t tid[256];
        for (int t = 0; t < nt && !bad; t++) {
            jobs[t] = (job_t){ fd, path, map, src, size, t, nt, 0 };
            pthread_create(&tid[t], NULL, shares[way], &jobs[t]);
        }
        for (int t = 0; t < nt && !bad; t++) {
            pthread_join(tid[t], NULL);
            bad |= jobs[t].err;
        }
        if (map && map != MAP_FAILED)
            munmap(map, size);
    }
    if (close(fd) != 0)
        bad = 1;
    double s = now() - t0;
    unlink(path);
    for (int t = 0; way == W_FILES && t < nt; t++) {
        char one[4200];
        snprintf(one, sizeof one, "%s.%d", path, t);
        unlink(one);
    }
    return bad ? -1 : s;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: writebw DIR MIB THREADS,...\n");
        return 2;
    }
    size_t size = (size_t)strtoull(argv[2], NULL, 10) << 20;
    const char *ps = getenv("WRITEBW_PAUSE");
    unsigned pause = ps ? (unsigned)strtoul(ps, NULL, 10) : 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/writebw.%ld", argv[1], (long)getpid());
    char *src = malloc(size);
    if (!src) {
        fprintf(stderr, "writebw: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < size; i++)
        src[i] = (char)('0' + i % 10);
    for (int way = W_WRITE; way <= W_FILES; way++) {
        char list[256];
        snprintf(list, sizeof list, "%s", way == W_WRITE ? "1" : argv[3]);
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
            int nt = atoi(tok);
            if (nt < 1 || nt > 256)
                continue;
            double best = 0;
            for (int r = 0; r < 3; r++) {
                if (pause > 0)
                    sleep(pause);
                double s = round_once(path, way, src, size, nt);
                if (s < 0) {
                    fprintf(stderr, "writebw: %s with %d threads failed\n", names[way], nt);
                    return 2;
                }
                if (best == 0 || s < best)
                    best = s;
            }
            printf("%-6s %3d threads %8.3f s %7.2f GB/s\n", names[way], nt, best, size / best / 1e9);
            fflush(stdout);
        }
    }
    free(src);
    return 0;
}
