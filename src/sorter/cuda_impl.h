/* SPDX-License-Identifier: MIT */
/* cuda_impl.h: the GPU backend's state, shared by its parts: cuda.c (the backend:
 * routing, sorts aside, pinning, --stats), cuda_setup.c (devices and their
 * buffers, set up in the background), cuda_part.c (one part of a chunk on one
 * device), cuda_chunk.c (a chunk over every device) and cuda_index.c (records'
 * wide keys sorted with their indices on one device). Not for other modules:
 * their interface is sorter.h.
 */
#ifndef GS_CUDA_IMPL_H
#define GS_CUDA_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/job.h"
#include "core/tuning.h"
#include "kernels.h"
#include "sorter/backend.h"

/* Buffers pinned at once by pin(), at most. */
#define CUDA_MAX_PINS 8

typedef struct sorter_cuda sorter_cuda_t;

/* One device. */
typedef struct {
    sorter_cuda_t *owner;
    int dev;
    int live;                /* 1: this process has a context on dev (gdev_reset ends it) */
    int width;               /* key bytes */
    int bitonic;             /* --algorithm=bitonic: our bitonic sort, not CUB radix */
    char name[128];          /* the device's name */
    gk_stream_t stream[2];
    gk_event_t staged[2];    /* staging buffer i may be refilled once this fires */
    gk_event_t began[2];     /* the last copy through buffer i began (its time) */
    int timed[2];            /* 1: buffer i's last copy was timed and not yet counted */
    double dma_s;            /* seconds those copies took on the device, counted */
    void *h_stage[2];
    int stage_own[2];        /* 1: h_stage[i] is ours (mem_map), registered; 0: CUDA's */
    void *d_keys, *d_alt, *d_scratch;
    void *d_tmp;             /* 16 bytes: gk_minmax's */
    size_t scratch_bytes;
    size_t cap;              /* keys per part */
    /* A part sorted aside whose way back is left running (cuda_sort_part, defer):
     * the next part crosses in meanwhile, into the device buffer the sort left free
     * (PCIe's two directions at once). Touched by the thread that sorts: the aside
     * job's functions run in turn, and a sort here first waits for them; the
     * waiter of a slot sees only that slot's events. */
    int defer;               /* the part about to be sorted may leave its way back running, */
    int slot;                /* and then fires the events of this slot */
    int tail;                /* 1: a way back is running, from d_last, on stream[0] */
    void *d_last;
    int last_slot;           /* its slot */
    gk_event_t sort_began[2], sort_ended[2], back[2];   /* a slot's sort, and its way back done */
    double back_xfer_s, back_sort_s;   /* those ways back and sorts, timed by the waiter */
    size_t allowed;          /* device bytes the settings allow (--gpu-memory) */
    /* for --stats */
    unsigned long long chunks, bytes_in, bytes_out;
    double xfer_s, sort_s;
    pool_t *pool;            /* copies staging buffers in parallel; NULL: this thread */
    pool_t *own;             /* with several devices: this device's share of the threads */
    job_t job;               /* with several devices: runs its share of a chunk */
    /* the current job: parts first, first + stride, ... of keys[0..n) */
    char *keys;
    size_t n, nparts, first, stride;
    int rc;
    int gk;                  /* the GK_E* class of the last failure */
    char err[512];
} gdev_t;

struct sorter_cuda {
    sorter_t base;
    sorter_cuda_cfg_t cfg;   /* cfg.devices points to ids */
    pool_t *pool;
    sorter_t *cpu;           /* for small chunks, and after a fallback */
    int width;
    int bitonic;             /* --algorithm=bitonic */
    int ndev;                /* devices asked for */
    int ready;               /* 0: not set up yet; 1: set up; -1: fell back to the CPU */
    size_t small;            /* sorts sent to the CPU for their few keys (atomic; --stats) */
    int *ids;                /* [ndev] device numbers */
    gdev_t *devs;            /* [ndev] once set up */
    double setup_s;          /* seconds the set-up took (CUDA's start included), */
    double setup_start_s;    /* of them: the devices' contexts made, */
    double setup_pin_s;      /* the staging buffers pinned, */
    double setup_mem_s;      /* the device buffers allocated */
    double wait_s;           /* seconds the pipeline waited for it */
    /* the devices let go (sorter_release): a job tears their contexts down while
     * the pipeline writes on */
    int released;            /* 1: nothing goes to a device any more (set under pin_lock) */
    job_t release;
    double release_s;        /* the job's seconds; read once the job has returned */
    job_t setup;             /* sets the devices up in the background */
    int pending;             /* 1: the set-up was posted and not yet waited for */
    int setup_rc;            /* what the set-up returned */
    int gk;                  /* its failure: the GK_E* class, */
    char err[512];           /* and the message */
    char name[64];
    /* host memory pinned by pin() */
    pthread_mutex_t pin_lock;
    struct {
        char *p;
        size_t bytes;
    } pins[CUDA_MAX_PINS];
    int npins;
    unsigned long long pinned_bytes;
    double pin_s;            /* seconds pinning and unpinning took */
    /* the sorts aside (submit): at most two, waited for in the order submitted */
    job_t aside;             /* sorts a chunk while the pipeline reads on */
    pool_t *aside_pool;      /* its staging threads */
    struct cuda_aside {
        sorter_cuda_t *c;
        int i;               /* the slot's index */
        sort_job_t *job;     /* the job submitted, */
        int rc;              /* its result, */
        int posted;          /* 1: posted to the job (else sorted at submit) */
        int tail;            /* 1: its way back was left running (gdev_t.back[i]) */
        size_t bytes;        /* its keys' bytes */
    } q[2];
    int q_head, q_n;         /* the oldest slot, and the slots in use */
    /* a chunk streamed (cuda_stream.c): its items on the first device, in d_keys
     * (keys) or d_recs (binary records: rec) */
    size_t stream_n;
    int streamed;            /* 1: stream_n items loaded and not yet sorted */
    sorter_records_t rec;    /* the records' shape (rec.size 0: keys) */
    void *d_recs;            /* the records (memory of their own: cuda_stream.c), */
    char *d_gather;          /* in it: room to gather two slices, */
    char *d_ralt;            /* the keys' alternates, or NULL (in d_alt), */
    char *d_rscratch;        /* and CUB's scratch, or NULL (d_scratch) */
    size_t rscratch_bytes;
    /* for --stats: every chunk streamed, its stages' seconds (wall: the stage from
     * its first slice to its last; busy: each side's own time) */
    unsigned long long streamed_keys, streamed_records, streamed_bytes;
    unsigned long long streamed_text;   /* of them, text's bytes (parsed into keys) */
    double parse_s;          /* the text's parse on the device */
    double in_wall, in_fill, in_dma, sort_s, out_wall, out_drain, out_dma;
    int placed_by;           /* 0, or the threads that placed the way back */
};

/* cuda_part.c: a CUDA failure on device g, its message kept in g->err: GS_ENOMEM
 * or GS_EIO. */
int cuda_fail(gdev_t *g, int gk);

/* cuda_part.c: 1 if keys[0..bytes) lies in memory pinned by pin(). */
int cuda_pinned(sorter_cuda_t *c, const char *keys, size_t bytes);

/* cuda_part.c: copy keys[0..n) (width w) to g->d_keys through the staging
 * buffers, their min and max into *min and *max; copy d_src[0..n) (width w) back
 * to keys the same way. GS_OK, or cuda_fail's code. */
int cuda_copy_in(gdev_t *g, const char *keys, size_t n, int w, uint64_t *min, uint64_t *max);
int cuda_copy_out(gdev_t *g, const void *d_src, char *keys, size_t n, int w);

/* cuda_part.c: a copy through staging buffer b timed: cuda_dma_begin() before it is
 * issued (on stream), cuda_dma_end() once g->staged[b] has fired, adding its time
 * to g->dma_s. */
int cuda_dma_begin(gdev_t *g, int b, gk_stream_t stream);
void cuda_dma_end(gdev_t *g, int b);

/* Records on their way back: each slice gathered on the device, records
 * perm[k..k + m) of recs (size bytes each) into a buffer of its own, before it
 * crosses. */
typedef struct {
    const void *recs;
    size_t size;
    const uint32_t *perm;
} cuda_gather_t;

/* cuda_part.c: d_src[0..n) (items of w bytes) back through the staging buffers, each
 * slice handed to drain (sorter.h's sorter_stream_t.drain) while the next one
 * crosses; where gather is set, d_src is room for two staging buffers' bytes on
 * the device, each slice's records gathered there first. GS_OK, cuda_fail's code,
 * or drain's (its message set, the device idle). */
typedef int (*cuda_drain_fn)(void *self, void *buf, size_t n);
int cuda_copy_back(gdev_t *g, const void *d_src, size_t n, size_t w,
                   const cuda_gather_t *gather, cuda_drain_fn drain, void *self);

/* cuda.c: where n keys go: *gpu 1 to the devices (set up first where they are not
 * yet), 0 to the CPU (few keys, or no device); GS_OK or the set-up's error. */
int cuda_route(sorter_cuda_t *c, size_t n, int *gpu);

/* cuda.c: *g the first device, made the calling thread's, staging on c's pool:
 * GS_OK, or CUDA's error with its message set. */
int cuda_first_device(sorter_cuda_t *c, gdev_t **g);

/* cuda_stream.c: sorter.h's sorter_stream_load and sorter_stream_sort. */
int cuda_stream_load(sorter_t *s, size_t n, const sorter_stream_t *st, size_t *loaded,
                     int *done);
int cuda_stream_sort(sorter_t *s, const sorter_stream_t *st);
/* cuda_stream.c: --stats lines on the chunks streamed, if any. */
void cuda_stream_report(const sorter_cuda_t *c);

/* cuda_index.c: sorter_sort_index on device g (set up, the keys' width 8): *done
 * 0 where the keys do not fit its buffers. */
int cuda_index_on(gdev_t *g, const uint64_t *keys, uint32_t *perm, size_t n, int *done);

/* cuda_part.c: a device's share of the current job (g->keys, parts first, first +
 * stride, ...), on the calling thread; g->rc its result. */
void cuda_device_run(gdev_t *g);

/* cuda_chunk.c: sort job on the devices, set up, with pool's threads for the host's
 * part (staging copies, dealing by key range, merging parts). */
int cuda_sort_on(sorter_cuda_t *c, pool_t *pool, sort_job_t *job);

/* cuda_setup.c: the set-up, on a job or on the caller (sorter.h's grow); waiting
 * for it; its guess of a chunk's keys before it is done. */
int cuda_setup_begin(sorter_cuda_t *c);
int cuda_setup_wait(sorter_cuda_t *c);
size_t cuda_guess_keys(const sorter_cuda_t *c);

/* cuda_setup.c: free a device's buffers, streams and staging. */
void gdev_release(gdev_t *g);

/* cuda_setup.c: tear the device's context down, where this process has one: its
 * buffers, streams, events and everything pinned for it go at once (the staging
 * buffers' own memory unmapped after), as the driver would do it at the process's
 * exit. Only once no thread uses the device; a failed reset frees them one by one
 * (gdev_release). */
void gdev_reset(gdev_t *g);

/* cuda.c: the name --stats shows, from the devices known. */
void cuda_name(sorter_cuda_t *c);

#endif
