/* SPDX-License-Identifier: MIT */
/* teardown.c: what a GPU costs a process before its first copy and after its last
 * one: CUDA's start, and the driver's teardown of the context, which otherwise
 * comes as the process exits, after all its work; and whether that teardown can be
 * done early, by gk_device_reset on a thread of its own, beside the CPU work that
 * follows a GPU's last use (a benchmark, never a test; tests/bench/teardown.sh runs
 * it).
 *
 * The process sets device 0 up as gpusort does for a large sort: DEV_MIB of device
 * memory written, PIN_MIB of host memory pinned and copied both ways, two streams,
 * a radix sort on the device. Then THREADS threads write WORK_MIB of fresh memory
 * (the output's pages, as a writing phase does), and the process returns from main:
 *   cpu    no CUDA at all: the work alone
 *   exit   the context left to the process's exit
 *   reset  the context reset on the main thread, then the work
 *   bg     the reset on a thread of its own, beside the work
 * It prints "t NAME SECONDS" (CLOCK_REALTIME) at each step, so that the caller, who
 * notes the time before it starts and after it has exited, sees how long the start
 * and the exit took. Exits 77 where there is no GPU.
 * Usage: teardown MODE DEV_MIB PIN_MIB WORK_MIB THREADS
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kernels.h"

#define MIB ((size_t)1 << 20)

static void check(int rc, const char *what)
{
    if (rc != GK_OK) {
        fprintf(stderr, "teardown: %s: %s\n", what, gk_error_text());
        exit(rc == GK_ENODEV ? 77 : 1);
    }
}

static void mark(const char *name)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    printf("t %s %.6f\n", name, (double)t.tv_sec + t.tv_nsec * 1e-9);
}

typedef struct {
    char *base;
    size_t bytes;
    int i, n;
} work_t;

/* Thread i of n writes its share of fresh pages. */
static void *work_share(void *arg)
{
    work_t *w = arg;
    size_t lo = w->bytes / (size_t)w->n * (size_t)w->i;
    size_t hi = w->i == w->n - 1 ? w->bytes : w->bytes / (size_t)w->n * (size_t)(w->i + 1);
    memset(w->base + lo, 0x5a, hi - lo);
    return NULL;
}

static void work(size_t bytes, int n)
{
    if (bytes == 0)
        return;
    char *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("teardown: mmap");
        exit(1);
    }
    pthread_t th[256];
    work_t w[256];
    for (int i = 0; i < n; i++) {
        w[i] = (work_t){ base, bytes, i, n };
        if (pthread_create(&th[i], NULL, work_share, &w[i]) != 0) {
            perror("teardown: pthread_create");
            exit(1);
        }
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    munmap(base, bytes);
}

static void *reset(void *arg)
{
    (void)arg;
    mark("reset-begun");
    check(gk_device_reset(0), "reset");
    mark("reset-done");
    return NULL;
}

int main(int argc, char **argv)
{
    mark("main");
    if (argc != 6) {
        fprintf(stderr, "usage: teardown cpu|exit|reset|bg DEV_MIB PIN_MIB WORK_MIB THREADS\n");
        return 2;
    }
    const char *mode = argv[1];
    size_t dev = strtoull(argv[2], NULL, 10) * MIB, pin = strtoull(argv[3], NULL, 10) * MIB;
    size_t wbytes = strtoull(argv[4], NULL, 10) * MIB;
    int threads = atoi(argv[5]);
    if (threads < 1 || threads > 256)
        threads = 1;
    if (strcmp(mode, "cpu") == 0) {
        work(wbytes, threads);
        mark("end");
        return 0;
    }
    if (gk_device_count() < 1) {
        fprintf(stderr, "teardown: no GPU\n");
        return 77;
    }
    check(gk_set_device(0), "set device");
    void *d = NULL;
    check(gk_malloc(&d, dev < 64 * MIB ? 64 * MIB : dev), "device memory");
    mark("context");
    gk_stream_t s[2];
    check(gk_stream_create(&s[0]), "stream");
    check(gk_stream_create(&s[1]), "stream");
    char *h = NULL;
    if (pin) {
        h = malloc(pin);
        if (!h) {
            fprintf(stderr, "teardown: out of memory\n");
            return 1;
        }
        memset(h, 1, pin);
        check(gk_host_register(h, pin), "pin");
        size_t half = pin / 2 < dev / 2 ? pin / 2 : dev / 2;
        check(gk_copy_h2d(d, h, half, s[0]), "copy in");
        check(gk_copy_d2h(h + half, (char *)d + half, half, s[1]), "copy back");
    }
    /* A radix sort of 16M keys at the buffer's start, its module loaded. */
    size_t n = (size_t)16 << 20, scratch;
    check(gk_radix_scratch(n, 4, &scratch), "scratch");
    void *alt = NULL, *sc = NULL;
    check(gk_malloc(&alt, n * 4), "alt");
    check(gk_malloc(&sc, scratch), "scratch");
    int in_alt;
    check(gk_radix_sort(d, alt, n, 4, 0, 32, sc, scratch, &in_alt, s[0]), "sort");
    check(gk_stream_sync(s[0]), "sync");
    check(gk_stream_sync(s[1]), "sync");
    mark("ready");
    pthread_t th;
    if (strcmp(mode, "reset") == 0) {
        reset(NULL);
    } else if (strcmp(mode, "bg") == 0) {
        if (pthread_create(&th, NULL, reset, NULL) != 0) {
            perror("teardown: pthread_create");
            return 1;
        }
    } else if (strcmp(mode, "exit") != 0) {
        fprintf(stderr, "teardown: no mode %s\n", mode);
        return 2;
    }
    mark("work-begun");
    work(wbytes, threads);
    mark("work-done");
    if (strcmp(mode, "bg") == 0)
        pthread_join(th, NULL);
    if (h && strcmp(mode, "exit") != 0)   /* unpinned by the reset: now plain memory */
        free(h);
    mark("end");
    return 0;
}
