/* SPDX-License-Identifier: MIT */
/* cuda_setup.c: the devices set up (see cuda_impl.h): every device's streams,
 * pinned staging buffers and device buffers, the latter as large as --gpu-memory
 * (or most of the free memory) allows, halving on out-of-memory. The set-up runs in
 * the background while the pipeline reads on, begun when the first chunk grows
 * past what the CPU sorts faster.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/mem.h"
#include "core/progress.h"
#include "core/stats.h"
#include "sorter/cuda_impl.h"

/* ---- a device -------------------------------------------------------------------------- */

/* The device's own threads stopped (several devices: its share of the pool, its
 * job), before its CUDA objects go. */
static void gdev_stop_threads(gdev_t *g)
{
    pool_destroy(g->own);
    g->own = NULL;
    job_end(&g->job);
    job_init(&g->job);   /* as it was: the backend's destroy ends it again */
}

/* What the device held, forgotten once it is freed. */
static void gdev_forget(gdev_t *g)
{
    g->tail = 0;
    g->d_keys = g->d_alt = g->d_scratch = g->d_tmp = NULL;
    for (int i = 0; i < 2; i++) {
        g->stage_own[i] = 0;
        g->h_stage[i] = NULL;
        g->stream[i] = NULL;
        g->staged[i] = g->began[i] = NULL;
        g->sort_began[i] = g->sort_ended[i] = g->back[i] = NULL;
    }
}

void gdev_release(gdev_t *g)
{
    gdev_stop_threads(g);
    if (gk_set_device(g->dev) != GK_OK)
        return;
    if (g->tail && g->stream[0])
        gk_stream_sync(g->stream[0]);   /* a way back left running: done before its buffers go */
    gk_free(g->d_keys);
    gk_free(g->d_alt);
    gk_free(g->d_scratch);
    gk_free(g->d_tmp);
    for (int i = 0; i < 2; i++) {
        if (g->stage_own[i]) {
            gk_host_unregister(g->h_stage[i]);
            mem_unmap(g->h_stage[i], CUDA_STAGE_BYTES);
        } else {
            gk_host_free(g->h_stage[i]);
        }
        gk_stream_destroy(g->stream[i]);
        gk_event_destroy(g->staged[i]);
        gk_event_destroy(g->began[i]);
        gk_event_destroy(g->sort_began[i]);
        gk_event_destroy(g->sort_ended[i]);
        gk_event_destroy(g->back[i]);
    }
    gdev_forget(g);
}

void gdev_reset(gdev_t *g)
{
    if (!g->live)
        return;
    gdev_stop_threads(g);
    if (g->tail && g->stream[0] && gk_set_device(g->dev) == GK_OK)
        gk_stream_sync(g->stream[0]);   /* a way back left running ends first */
    g->tail = 0;
    if (gk_device_reset(g->dev) != GK_OK) {
        gdev_release(g);   /* the context stays, for the process's exit */
        return;
    }
    g->live = 0;
    for (int i = 0; i < 2; i++)
        if (g->stage_own[i])   /* unpinned by the reset; CUDA's own went with it */
            mem_unmap(g->h_stage[i], CUDA_STAGE_BYTES);
    gdev_forget(g);
}

/* Bytes of d_alt a key: radix sorts between d_keys and d_alt; bitonic sorts in place
 * (keys past a part's end are virtual, never stored) and wants d_alt only for 64-bit
 * keys narrowed to 32-bit offsets, 4 bytes a key. */
static size_t cuda_alt_bytes(int bitonic, int width)
{
    return !bitonic ? (size_t)width : width == 8 ? 4 : 0;
}

/* Device buffers for as many keys as budget bytes allow, halving on out-of-memory. */
static int gdev_buffers(gdev_t *g, size_t budget)
{
    size_t w = (size_t)g->width, a = cuda_alt_bytes(g->bitonic, g->width);
    size_t cap = budget / (w + a);
    int gk;
    while (cap >= CUDA_MIN_KEYS) {
        size_t scratch;
        if ((gk = (g->bitonic ? gk_bitonic_scratch : gk_radix_scratch)(cap, g->width,
                                                                        &scratch)))
            return cuda_fail(g, gk);
        if (cap * (w + a) + scratch > budget) {
            cap -= cap / 16 + 1;
            continue;
        }
        if ((gk = gk_malloc(&g->d_keys, cap * w)) == GK_OK &&
            (gk = gk_malloc(&g->d_alt, cap * a)) == GK_OK &&
            (gk = gk_malloc(&g->d_scratch, scratch)) == GK_OK) {
            g->cap = cap;
            g->scratch_bytes = scratch;
            return GS_OK;
        }
        gk_free(g->d_keys);
        gk_free(g->d_alt);
        g->d_keys = g->d_alt = NULL;
        if (gk != GK_ENOMEM)
            return cuda_fail(g, gk);
        budget /= 2;          /* out of memory: retry with smaller chunks */
        cap = budget / (w + a);
    }
    snprintf(g->err, sizeof g->err, "GPU %d: out of memory", g->dev);
    g->gk = GK_ENOMEM;
    return GS_ENOMEM;
}

/* The device memory to take on a device of info: --gpu-memory as bytes or as a
 * share of the device's memory, else most of what is free (the runtime and CUB want
 * some); never more than is free. */
static size_t gdev_budget(const sorter_cuda_cfg_t *cfg, const gk_device_t *info)
{
    size_t budget;
    if (cfg->gpu_memory_percent >= 0)
        budget = (size_t)((unsigned __int128)info->total_bytes *
                          (unsigned)cfg->gpu_memory_percent / 100);
    else if (cfg->gpu_memory != GS_GPU_MEMORY_FREE)
        budget = cfg->gpu_memory > SIZE_MAX ? SIZE_MAX : (size_t)cfg->gpu_memory;
    else
        budget = info->free_bytes / 10 * CUDA_FREE_TENTHS;
    return budget > info->free_bytes ? info->free_bytes : budget;
}

/* Staging buffer i: memory of our own, page-locked by registering it (CUDA pins
 * memory it allocates itself at a tenth of that rate: doc/perf/RESULTS.md, "The
 * host's ceilings"), else CUDA's pinned allocation. */
static int gdev_stage_alloc(gdev_t *g, int i)
{
    void *p = mem_map(CUDA_STAGE_BYTES);
    if (p && gk_host_register(p, CUDA_STAGE_BYTES) == GK_OK) {
        g->h_stage[i] = p;
        g->stage_own[i] = 1;
        return GK_OK;
    }
    mem_unmap(p, CUDA_STAGE_BYTES);
    return gk_host_alloc(&g->h_stage[i], CUDA_STAGE_BYTES);
}

static int gdev_init(gdev_t *g, int dev, int width, const sorter_cuda_cfg_t *cfg)
{
    g->dev = dev;
    g->width = width;
    gk_device_t info;
    double t0 = stats_now();
    int gk = gk_device_info(dev, &info);   /* the device's context made: CUDA's start */
    if (gk)
        return cuda_fail(g, gk);
    g->live = 1;
    double t1 = stats_now();
    g->owner->setup_start_s += t1 - t0;
    snprintf(g->name, sizeof g->name, "%s", info.name);
    for (int i = 0; i < 2; i++) {
        if ((gk = gk_stream_create(&g->stream[i])) || (gk = gk_event_create(&g->staged[i])) ||
            (gk = gk_event_create(&g->began[i])) ||
            (gk = gk_event_create(&g->sort_began[i])) ||
            (gk = gk_event_create(&g->sort_ended[i])) || (gk = gk_event_create(&g->back[i])) ||
            (gk = gdev_stage_alloc(g, i)))
            return cuda_fail(g, gk);
    }
    double t2 = stats_now();
    g->owner->setup_pin_s += t2 - t1;
    if ((gk = gk_malloc(&g->d_tmp, 16)))
        return cuda_fail(g, gk);
    size_t budget = gdev_budget(cfg, &info), want_keys = cfg->input_keys;
    g->allowed = budget;
    size_t w = (size_t)width, a = cuda_alt_bytes(g->bitonic, width);
    if (want_keys && want_keys < budget / (w + a)) {
        /* No more than the input needs: the rest stays free for others. */
        size_t scratch;
        if ((gk = (g->bitonic ? gk_bitonic_scratch : gk_radix_scratch)(want_keys, width,
                                                                        &scratch)))
            return cuda_fail(g, gk);
        /* An eighth to spare: gdev_buffers trims its keys by sixteenths until they
         * and the scratch fit, and a chunk of all the input must still fit. */
        size_t need = want_keys * (w + a) + want_keys * (w + a) / 8 + scratch +
                      CUDA_SLACK_BYTES;
        if (need < budget)
            budget = need;
    }
    /* A --gpu-memory too small to work with is raised to the least that works. */
    size_t least = 2 * CUDA_MIN_KEYS * (size_t)width + ((size_t)64 << 20);
    if (budget < least)
        budget = least;
    int rc = gdev_buffers(g, budget);
    g->owner->setup_mem_s += stats_now() - t2;
    return rc;
}

/* ---- every device ----------------------------------------------------------------------- */

/* The devices' part of the set-up, on the set-up job or on the caller: with
 * --device=auto the count of devices (CUDA's start), then every device's streams,
 * staging and device buffers. On failure c->err and c->gk say why; nothing the
 * pipeline reads is touched. */
static int cuda_setup_devices(sorter_cuda_t *c)
{
    int rc = GS_OK;
    double t0 = stats_now();
    if (c->ndev == 0) {
        int count = gk_device_count();
        for (int d = 0; d < count && d < GS_MAX_DEVICES; d++)
            c->ids[c->ndev++] = d;
    }
    if (c->ndev == 0) {
        c->gk = GK_ENODEV;
        snprintf(c->err, sizeof c->err, "no usable GPU");
        rc = GS_EUSAGE;
    } else if (!(c->devs = calloc((size_t)c->ndev, sizeof *c->devs))) {
        c->gk = GK_EFAIL;
        snprintf(c->err, sizeof c->err, "out of memory");
        rc = GS_ENOMEM;
    }
    for (int d = 0; c->devs && d < c->ndev; d++)
        job_init(&c->devs[d].job);
    int share = c->ndev ? pool_size(c->pool) / c->ndev : 0;
    for (int d = 0; d < c->ndev && rc == GS_OK; d++) {
        gdev_t *g = &c->devs[d];
        g->owner = c;
        g->bitonic = c->bitonic;
        rc = gdev_init(g, c->ids[d], c->width, &c->cfg);
        /* Several devices stage at once: each gets its share of the pool's threads
         * as a pool of its own (pools take one job at a time). */
        if (rc == GS_OK && c->ndev > 1 && share > 1 && pool_create(&g->own, share) != 0) {
            g->gk = GK_EFAIL;
            snprintf(g->err, sizeof g->err, "cannot create threads");
            rc = GS_ENOMEM;
        }
        if (rc != GS_OK) {
            c->gk = g->gk;
            snprintf(c->err, sizeof c->err, "%s", g->err);
        }
    }
    c->setup_s = stats_now() - t0;
    return rc;
}

static void cuda_setup_job(void *arg)
{
    sorter_cuda_t *c = arg;
    c->setup_rc = cuda_setup_devices(c);
}

/* The set-up's outcome, on the pipeline's thread. No device, a device that cannot be
 * used, or one with too little memory even for small chunks sends the sort to the
 * CPU: silently with --device=auto, else with one note; any other failure is an
 * error. */
static int cuda_setup_finish(sorter_cuda_t *c, int rc)
{
    c->base.caps.grow_at = 0;
    if (rc == GS_OK) {
        c->ready = 1;
        size_t cap = c->devs[0].cap;
        for (int i = 1; i < c->ndev; i++)
            cap = c->devs[i].cap < cap ? c->devs[i].cap : cap;
        /* Several devices: a sixteenth of slack, so that the buckets a chunk is dealt
         * into (chosen from a sample, so a little uneven) still fit their devices. */
        c->base.caps.max_keys = cap * (size_t)c->ndev;
        if (c->ndev > 1)
            c->base.caps.max_keys -= c->base.caps.max_keys / 16;
        c->base.caps.merge_by_sort = 1;
        cuda_name(c);
        return GS_OK;
    }
    if (c->gk != GK_ENODEV && c->gk != GK_ENOMEM)
        return err_set(rc, "%s", c->err);
    if (!c->cfg.quiet)   /* set up while the input is read: --progress may be drawn */
        progress_print("%s; sorting on the CPU", c->err);
    for (int i = 0; c->devs && i < c->ndev; i++)
        gdev_release(&c->devs[i]);
    c->ready = -1;
    c->base.caps.max_keys = 0;
    return GS_OK;
}

/* Keys a chunk may take before the set-up is known to be done: three quarters of
 * what --gpu-memory given as a size holds as gdev_buffers shares it (the sort's
 * scratch takes a little of it), else CUDA_GUESS_KEYS; either for one device. A
 * guess too large costs a chunk sorted in parts, never a wrong result. */
size_t cuda_guess_keys(const sorter_cuda_t *c)
{
    size_t w = (size_t)c->width, a = cuda_alt_bytes(c->bitonic, c->width);
    size_t keys = CUDA_GUESS_KEYS;
    if (c->cfg.gpu_memory_percent < 0 && c->cfg.gpu_memory != GS_GPU_MEMORY_FREE) {
        size_t k = (size_t)(c->cfg.gpu_memory / (w + a));
        k -= k / 4;
        if (k < keys)
            keys = k > CUDA_MIN_KEYS ? k : CUDA_MIN_KEYS;
    }
    return keys;
}

/* Begin the set-up on a job of its own: CUDA's start and the buffers' allocation
 * then overlap reading. Until cuda_setup_wait() waits for it, chunks are held to a
 * guess of what the devices will take (caps.grow_at). Where no thread can be had,
 * the set-up is done here. */
int cuda_setup_begin(sorter_cuda_t *c)
{
    if (c->ready != 0 || c->pending)
        return GS_OK;
    if (!job_try_post(&c->setup, cuda_setup_job, c))
        return cuda_setup_finish(c, cuda_setup_devices(c));
    c->pending = 1;
    c->base.caps.grow_at = cuda_guess_keys(c);
    return GS_OK;
}

/* Set every device up here, or wait for the set-up begun in the background; its
 * outcome. */
int cuda_setup_wait(sorter_cuda_t *c)
{
    if (c->pending) {
        double t0 = stats_now();
        job_wait(&c->setup);
        c->pending = 0;
        c->wait_s += stats_now() - t0;
        return cuda_setup_finish(c, c->setup_rc);
    }
    if (c->ready != 0)
        return GS_OK;
    double t0 = stats_now();
    int rc = cuda_setup_devices(c);
    c->wait_s += stats_now() - t0;
    return cuda_setup_finish(c, rc);
}
