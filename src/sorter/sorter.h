/* sorter.h: the chunk-sorter interface that every backend implements.
 *
 * A chunk is an array of mapped keys (keys.h): unsigned, 4 or 8 bytes, to be sorted
 * ascending. The CPU backend (sorter_cpu.c) is always there; a GPU backend fills in
 * the same struct. Nothing outside a backend knows how it sorts.
 */
#ifndef GS_SORTER_H
#define GS_SORTER_H

#include <stddef.h>
#include "core/pool.h"

typedef struct sorter sorter_t;
struct sorter {
    const char *name;    /* shown by --stats, e.g. "cpu radix" */
    size_t max_keys;     /* the most keys one sort() takes (0: no limit); the
                            pipeline sizes chunks to it */
    int merge_by_sort;   /* 1: sorting a merge's key ranges as chunks beats a CPU
                            merge (a GPU backend, once its devices are up) */
    size_t setup_keys;   /* 0, or: set up before a chunk grows past this many keys
                            (a backend that sets itself up lazily; max_keys is known
                            after setup()): by setup_begin() where there is one, else
                            by setup() */
    size_t input_keys;   /* 0, or the most keys the input can hold (its files' sizes),
                            set before the first sort: a backend need not take room
                            for more */
    size_t setup_wait_keys;   /* after setup_begin(): call setup(), which waits for
                                 the set-up, before a chunk grows past this many keys
                                 (what the backend guesses it will take at once) */
    /* Sort keys[0..n) (width 4 or 8) ascending. scratch has room for n keys; the
     * sorter may use it and sets *out to whichever of keys and scratch holds the
     * result. Returns GS_OK or an error code with its message set. */
    int (*sort)(sorter_t *s, void *keys, void *scratch, size_t n, int width, void **out);
    /* NULL, or: begin sort() aside, on threads of the backend's own (none of the
     * pool's), and return at once: 1; or, where it sorts these keys here (on the CPU,
     * or failing to start), sort them now: 0. Either way sort_end() returns what
     * sort() would have, *out included (waiting for the sort aside). One sort aside
     * at a time: meanwhile the caller may use the pool, but calls nothing of the
     * sorter but pin() and unpin(). */
    int (*sort_begin)(sorter_t *s, void *keys, void *scratch, size_t n, int width);
    int (*sort_end)(sorter_t *s, void **out);
    int (*setup)(sorter_t *s);      /* see setup_keys; GS_OK or an error */
    int (*setup_begin)(sorter_t *s);   /* NULL, or: begin setting up in the background
                                          (the pipeline reads on); GS_OK or an error */
    /* NULL, or: make buf[0..bytes) (the caller's) quicker to sort in: a GPU backend
     * page-locks it, so that its keys cross PCIe by DMA with no staging copy. Worth
     * it for buffers sorted in again and again (chunk buffers, a merge's pieces).
     * Returns 1 where it did; 0 where nothing is done (the backend not set up, the
     * memory not lockable), which is no error. unpin() before buf is freed (a buffer
     * never pinned is ignored). */
    int (*pin)(sorter_t *s, void *buf, size_t bytes);
    void (*unpin)(sorter_t *s, void *buf);
    void (*destroy)(sorter_t *s);   /* frees s */
    void (*report)(const sorter_t *s);  /* --stats lines about the backend, or NULL */
};

/* The CPU backend: a parallel LSD radix sort over the pool's threads. */
int sorter_cpu_create(sorter_t **s, pool_t *pool);

#ifdef HAVE_CUDA
#include "cli/options.h"
/* The GPU backend (sorter_cuda.c): CUB radix sort (ALGO_RADIX) or our bitonic sort
 * (ALGO_BITONIC) on the devices devs[0..ndev) (ndev 0: every device found, counted at
 * the set-up, so that CUDA starts only where a chunk needs it), keys of width bytes,
 * at most gpu_memory (--gpu-memory; unset: most of the free memory) on each. Chunks
 * under min_keys keys are sorted on the CPU (the copies would cost more than the
 * sort); devices are set up, in the background, when the first chunk grows past
 * min_keys, their buffers halving on out-of-memory; no device, or one that cannot be
 * used or lacks memory even for small chunks, sends every sort to the CPU, with one
 * note on stderr unless quiet (--device=auto). */
int sorter_cuda_create(sorter_t **s, pool_t *pool, const int *devs, int ndev, int width,
                       algorithm_t algorithm, const size_arg_t *gpu_memory, size_t min_keys,
                       int quiet);
#endif

/* The CPU radix sort itself, also the reference the GPU tests compare with: sorts
 * keys[0..n) ascending using tmp (room for n keys); returns keys or tmp, whichever
 * holds the result, or NULL if its small counters cannot be allocated. Digits of 8 to
 * 11 bits; bits that are the same in every key are never sorted on. */
void *radix_sort_cpu(pool_t *pool, void *keys, void *tmp, size_t n, int width);

#endif
