/* SPDX-License-Identifier: MIT */
/* sorter.h: the chunk sorter: what the pipeline asks of a backend.
 *
 * A chunk is n mapped keys (keys.h), 4 or 8 bytes each, to be sorted ascending. Two
 * backends fill in the same object: the CPU's radix sort (cpu.c over radix.c), always
 * there, and the GPUs' (cuda*.c), which sorts small chunks on the CPU too. The pipeline sees
 * only this: sort a chunk here and now, or submit it to be sorted aside while it
 * reads the next and wait for it; tell the backend how large a chunk is growing, so
 * that it gets ready for it (the GPUs set themselves up, in the background, at the
 * first chunk that needs them); tell it when the last sort is done, so that it lets
 * its devices go while the output is written; and what the backend can do
 * (sorter_caps_t), which changes only inside those calls, on the caller's thread.
 */
#ifndef GS_SORTER_H
#define GS_SORTER_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "core/settings.h"

typedef struct sorter sorter_t;

/* One sort: the chunk and the room beside it. The sorted keys end in keys or in
 * scratch, as suits the backend (a radix sort goes back and forth); in_scratch says
 * which. */
typedef struct {
    void *keys;              /* n mapped keys of width bytes */
    void *scratch;           /* room for n keys, the backend's to use */
    size_t n;
    int width;               /* 4 or 8 */
    int in_scratch;          /* set by the sort: 1 where the sorted keys are in scratch */
} sort_job_t;

/* The sorted keys of a job that is done. */
static inline void *sort_job_result(const sort_job_t *j)
{
    return j->in_scratch ? j->scratch : j->keys;
}

/* What a backend can do now. */
typedef struct {
    size_t max_keys;         /* most keys one sort takes (0: any number) */
    size_t grow_at;          /* 0, or call sorter_grow() before a chunk grows past
                                this many keys: the backend gets ready for larger */
    int aside;               /* 1: sorter_submit() sorts on threads and engines of the
                                backend's own, so the caller may read on meanwhile */
    int aside_depth;         /* jobs that may be aside at once (2: the second's keys
                                may cross in while the first's cross back); 0 or 1:
                                one */
    int pins;                /* 1: sorter_pin() may make buffers faster to sort in */
    int merge_by_sort;       /* 1: sorting a merge's key ranges beats a CPU merge */
    int streams;             /* 1: sorter_stream_load() may take a chunk (it may still
                                decline one); 0: it never does */
} sorter_caps_t;

/* The backend's name, for --stats ("cpu radix", "cuda radix, 1 GPU"). */
const char *sorter_name(const sorter_t *s);

/* What the backend can do now; valid until the next call on s. */
const sorter_caps_t *sorter_caps(const sorter_t *s);

/* A chunk is about to hold keys keys (past caps->grow_at): the backend gets ready
 * for it, which may take a while (a GPU's set-up is begun in the background, or
 * waited for once the chunk passes what the backend guessed it takes), and updates
 * its caps. GS_OK, or the set-up's error. */
int sorter_grow(sorter_t *s, size_t keys);

/* Sort job->keys[0..n) now, using job->scratch; sets job->in_scratch. GS_OK or an
 * error code with its message set. */
int sorter_sort(sorter_t *s, sort_job_t *job);

/* Records' wide keys: the indices 0..n-1 of keys[0..n) (mapped 64-bit keys) sorted
 * by key, stably, into perm[0..n) (the j-th index in key order), where the backend
 * sorts that many here and now (a GPU's does, by CUB's SortPairs with the indices
 * made on the device): *done 1. Else *done 0 and nothing was done: the caller sorts
 * them itself. GS_OK, or an error with its message set. */
int sorter_sort_index(sorter_t *s, const uint64_t *keys, uint32_t *perm, size_t n, int *done);

/* Binary records streamed (sorter_stream_t.rec): each is size bytes, its key the
 * width (4 or 8) bytes at off, in their byte order, mapped by XOR with mask
 * (keys.h). */
typedef struct {
    size_t size, off;
    int width;
    int big_endian;
    uint64_t mask;
} sorter_records_t;

/* Text streamed (sorter_stream_t.text): the bytes fill() gives are text, parsed
 * where the backend holds them into keys of its width: tokens separated by white
 * space, each an optional sign and decimal digits whose value lies in [-neg_max,
 * pos_max], mapped by XOR with mask (keys.h), as io/textscan.c parses them. */
typedef struct {
    uint64_t pos_max, neg_max, mask;
} sorter_text_t;

/* A chunk streamed through the backend, never whole in host memory: the backend
 * takes its items (mapped keys, or binary records where rec is set) a slice at a
 * time from fill() into buffers of its own (a GPU's pinned staging buffers, each
 * slice crossing PCIe while the next is filled), sorts them where it holds them
 * (records stably by key), and hands them back a slice at a time, in order, to
 * drain(). Both are called on the caller's thread and may use the pool. */
typedef struct {
    const sorter_records_t *rec;   /* NULL: the items are mapped keys */
    const sorter_text_t *text;     /* or, where set, bytes of text (rec NULL) */
    /* Put up to max more items at buf: *n of them, 0 at the inputs' end. */
    int (*fill)(void *self, void *buf, size_t max, size_t *n);
    /* The next n sorted items, at buf; buf is the drain's to change (-u) until it
     * returns. */
    int (*drain)(void *self, void *buf, size_t n);
    /* NULL, or instead of drain: the n sorted items from rank first on, at buf,
     * handed over in any order and from any of the pool's threads at once (a
     * contiguous range of ranks to each), for the caller to put in their place. */
    int (*place)(void *self, size_t first, const void *buf, size_t n);
    void *self;
} sorter_stream_t;

/* Take a chunk of about n items through st->fill, where the backend holds them all
 * at once (a GPU's memory, one device): fill() is called until it gives no item or
 * the backend's room is full; *loaded says how many came, *done 1. Else *done 0 and
 * fill() was never called: the caller reads the chunk itself. GS_OK, or an error
 * (fill's, or the device's) with its message set. Text (st->text): n is exactly
 * the bytes fill() will give, and *loaded the keys parsed from them; where a token
 * is not such a key, *done is 0 though fill() was called, and no message is set:
 * the caller parses the text itself. */
int sorter_stream_load(sorter_t *s, size_t n, const sorter_stream_t *st, size_t *loaded,
                       int *done);

/* Sort the items sorter_stream_load() took and hand them to st->place where it is
 * set, else in order to st->drain (st as it was given to the load). */
int sorter_stream_sort(sorter_t *s, const sorter_stream_t *st);

/* Begin sorting job aside and return at once: 1; or, where the backend sorts these
 * keys here (on the CPU, or failing to start), sort them now: 0. Either way
 * sorter_wait() gives the result of the oldest job submitted and settles its
 * in_scratch. One job aside at a time, or caps->aside_depth where that is 2 (each
 * with buffers of its own, scratch included); meanwhile the caller may use the
 * pool, but calls nothing of the sorter but sorter_submit() (within the depth),
 * sorter_wait(), sorter_pin() and sorter_unpin(); each job and its buffers stay the
 * sorter's until it is waited for. */
int sorter_submit(sorter_t *s, sort_job_t *job);
int sorter_wait(sorter_t *s);

/* Make buf[0..bytes) (the caller's) quicker to sort in: a GPU backend page-locks it,
 * so that its keys cross PCIe by DMA with no staging copy. Worth it for buffers
 * sorted in again and again (chunk buffers, a merge's pieces). 1 where it did; 0
 * where nothing was done (not ready, the memory not lockable), which is no error.
 * sorter_unpin() before buf is freed (a buffer never pinned is ignored). */
int sorter_pin(sorter_t *s, void *buf, size_t bytes);
void sorter_unpin(sorter_t *s, void *buf);

/* The pipeline is done with the sorter's devices: the last sort of the run has
 * been waited for, and no sort, load, submit or pin will be asked of it again. A GPU
 * backend lets its devices go on a job of its own: each device's context torn down
 * (gk_device_reset), its buffers and the memory pinned for it with it, beside the
 * work that follows (the writing), where the driver would otherwise do it as the
 * process exits, after all of it. Memory the caller had pinned stays the caller's,
 * only no longer pinned (sorter_unpin then does nothing). Anything asked of the
 * sorter after it goes to the CPU. Called once a run knows its last sort; a second
 * call does nothing. */
void sorter_release(sorter_t *s);

/* --stats lines about the backend (after a release, once its job is done). */
void sorter_report(sorter_t *s);

/* What a GPU backend did, for --stats' device line. */
typedef struct {
    int gpus_used;           /* GPUs that sorted anything (a chunk, an index, a stream) */
    int gpus_found;          /* GPUs there are (-1: not known) */
    const char *failed;      /* NULL, or why the GPUs found could not be used */
    size_t small;            /* sorts sent to the CPU for their few keys */
    size_t min_keys;         /* fewer keys than this go to the CPU */
} sorter_use_t;

/* For --stats, once the last sort is done: 1 and *u where s is a GPU backend, 0 for
 * the CPU's. A GPU backend that never looked for its GPUs counts them now (CUDA's
 * start: a cost paid only where --stats asks). */
int sorter_use(sorter_t *s, sorter_use_t *u);

/* Wait for what runs aside and free s, its devices let go as sorter_release does
 * (here and now, where it was not called); NULL is a no-op. */
void sorter_destroy(sorter_t *s);

/* ---- the backends --------------------------------------------------------------- */

/* The CPU backend: the radix sort over the pool's threads. */
int sorter_cpu_create(sorter_t **s, pool_t *pool);

/* The CPU radix sort itself (radix.c), also the reference the GPU tests compare
 * with: sorts keys[0..n) (width 4 or 8 bytes) ascending using tmp (room for n keys),
 * in parallel on the pool's threads (NULL: this thread alone); returns keys or tmp,
 * whichever holds the result, or NULL if its small counters cannot be allocated.
 * Digits of 8 to 11 bits; bits that are the same in every key are never sorted on. */
void *radix_sort_cpu(pool_t *pool, void *keys, void *tmp, size_t n, int width);

/* The same on the bits from `from` up alone, stably: keys that agree on them keep
 * their order (keys already in order by the bits below come out wholly sorted). */
void *radix_sort_cpu_from(pool_t *pool, void *keys, void *tmp, size_t n, int width, int from);

/* The same with a 64-bit value beside each key (vals NULL: none), moved with it:
 * vals[i] goes where keys[i] goes, into vtmp where the keys go into tmp (room for
 * n values). The one sort of pairs: records' wide words and their lines. */
void *radix_sort_cpu_pairs(pool_t *pool, void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp,
                           size_t n, int width, int from);

/* The GPU backend's settings. */
typedef struct {
    const int *devices;      /* the GPUs to use, */
    int ndevices;            /* 0: every GPU found, counted when a chunk first needs them */
    int quiet;               /* no GPU to be had sends the sort to the CPU silently
                                (--device=auto); else with one note on stderr */
    int width;               /* key bytes */
    algorithm_t algorithm;   /* CUB's radix sort or our bitonic sort */
    uint64_t gpu_memory;     /* settings_t's gpu_memory and gpu_memory_percent */
    int gpu_memory_percent;
    size_t min_keys;         /* smaller chunks are sorted on the CPU */
    size_t input_keys;       /* 0, or the most keys the input can hold: no GPU memory
                                is taken for more */
} sorter_cuda_cfg_t;

/* The GPU backend (sorter/cuda*.c, built only with CUDA): the devices are set up in
 * the background when a chunk first grows past min_keys; no device, or one that
 * cannot be used or lacks memory even for small chunks, sends every sort to the
 * CPU. */
int sorter_cuda_create(sorter_t **s, pool_t *pool, const sorter_cuda_cfg_t *cfg);

/* ---- the GPUs this machine shows (gpus.c) ------------------------------------------ */

/* GPUs this process can use: 0 with no driver, no device, or no CUDA built in.
 * Starts CUDA (a signal landing on one of its threads is handled as on ours:
 * cleanup.h). */
int sorter_gpu_count(void);

/* For --version, on stdout, lines indented by two spaces: what GPU support this build
 * has (the CUDA runtime, the compute capabilities, the kernels). Probes no GPU. */
void sorter_describe_build(void);

#endif
