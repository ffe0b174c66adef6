/* SPDX-License-Identifier: MIT */
/* cuda.c: the GPU chunk sorter (sorter.h): CUB's radix sort, or our bitonic sort
 * with --algorithm=bitonic, on every device asked for.
 *
 * This file is the backend the pipeline sees: where each chunk goes (small ones to
 * the CPU, the others to the devices, set up first where they are not yet), sorts
 * aside on a job of their own, memory pinned for DMA, and --stats. The devices are
 * set up by cuda_setup.c, a chunk is spread over them by cuda_chunk.c, and one part
 * of it sorted on one device by cuda_part.c.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/stats.h"
#include "sorter/cuda_impl.h"

void cuda_name(sorter_cuda_t *c)
{
    const char *algo = c->bitonic ? "bitonic" : "radix";
    if (c->ndev > 0)
        snprintf(c->name, sizeof c->name, "cuda %s, %d GPU%s", algo, c->ndev,
                 c->ndev > 1 ? "s" : "");
    else
        snprintf(c->name, sizeof c->name, "cuda %s, every GPU found", algo);
}

/* ---- where a chunk goes ------------------------------------------------------------------ */

int cuda_route(sorter_cuda_t *c, size_t n, int *gpu)
{
    *gpu = 0;
    if (n < 2 || c->ready < 0 || c->released)
        return GS_OK;
    if (n < c->cfg.min_keys) {
        __atomic_add_fetch(&c->small, 1, __ATOMIC_RELAXED);
        return GS_OK;
    }
    if (c->ready == 0 || c->pending) {
        int rc = cuda_setup_wait(c);
        if (rc || c->ready < 0)
            return rc;
    }
    *gpu = 1;
    return GS_OK;
}

static int sorter_cuda_sort(sorter_t *s, sort_job_t *job)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    job->in_scratch = 0;
    int gpu, rc = cuda_route(c, job->n, &gpu);
    if (rc || job->n < 2)
        return rc;
    if (!gpu)
        return sorter_sort(c->cpu, job);
    return cuda_sort_on(c, c->pool, job);
}

int cuda_first_device(sorter_cuda_t *c, gdev_t **g)
{
    *g = &c->devs[0];
    (*g)->pool = c->pool;
    int gk = gk_set_device((*g)->dev);
    return gk ? err_set(cuda_fail(*g, gk), "%s", (*g)->err) : GS_OK;
}

/* Records' wide keys with their indices, on the first device: where the devices
 * are set up (or get set up now) and no sort runs aside. */
static int sorter_cuda_sort_index(sorter_t *s, const uint64_t *keys, uint32_t *perm, size_t n,
                                  int *done)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    *done = 0;
    int gpu, rc = cuda_route(c, n, &gpu);
    if (rc || !gpu || c->q_n || c->width != 8 || n > UINT32_MAX)
        return rc;
    gdev_t *g;
    if ((rc = cuda_first_device(c, &g)) != GS_OK)
        return rc;
    if ((rc = cuda_index_on(g, keys, perm, n, done)) != GS_OK)
        return err_set(rc, "%s", g->err);
    g->chunks += (unsigned long long)*done;
    return GS_OK;
}

static int sorter_cuda_grow(sorter_t *s, size_t keys)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    int rc = GS_OK;
    while (rc == GS_OK && s->caps.grow_at && keys > s->caps.grow_at)
        rc = c->pending ? cuda_setup_wait(c) : cuda_setup_begin(c);
    return rc;
}

/* ---- chunks sorted aside ------------------------------------------------------------------ */

static void cuda_aside_job(void *arg)
{
    struct cuda_aside *a = arg;
    sorter_cuda_t *c = a->c;
    c->devs[0].defer = c->ndev == 1;   /* cuda_sort_on keeps it only for one part */
    c->devs[0].slot = a->i;
    a->rc = cuda_sort_on(c, c->aside_pool, a->job);
    a->tail = c->devs[0].defer && c->devs[0].tail && c->devs[0].last_slot == a->i;
    c->devs[0].defer = 0;
}

/* Begin a sort aside: on a job of its own, staging through a pool of its own (as
 * many threads as the pipeline's), so that reading goes on meanwhile. Chunks for
 * the CPU, and any failure to start, sort here and now (0); sorter_wait() gives the
 * result either way. A second may be submitted before the first is waited for
 * (caps.aside_depth): it is posted once the first's function returns, which, for a
 * part on one device, is before its way back ends (cuda_sort_part: the second
 * crosses in while the first crosses back). */
static int sorter_cuda_submit(sorter_t *s, sort_job_t *job)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    int i = (c->q_head + c->q_n) % 2;
    struct cuda_aside *a = &c->q[i];
    *a = (struct cuda_aside){ .c = c, .i = i, .job = job,
                              .bytes = job->n * (size_t)job->width };
    c->q_n++;
    int gpu, rc = cuda_route(c, job->n, &gpu);
    if (rc == GS_OK && gpu && !c->aside_pool) {
        rc = pool_create(&c->aside_pool, pool_size(c->pool));
        if (rc)
            c->aside_pool = NULL;
    }
    if (rc == GS_OK && gpu && job_try_post(&c->aside, cuda_aside_job, a)) {
        a->posted = 1;
        return 1;
    }
    job_wait(&c->aside);   /* a sort here uses the device the job may still hold */
    a->rc = rc ? rc : sorter_cuda_sort(s, job);
    return 0;
}

/* The oldest sort aside: its function returned, its way back (if left running)
 * done and timed. */
static int sorter_cuda_wait(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (c->q_n == 0)
        return GS_OK;
    struct cuda_aside *a = &c->q[c->q_head];
    c->q_head = (c->q_head + 1) % 2;
    c->q_n--;
    if (a->posted)
        job_wait(&c->aside);   /* every function posted has returned */
    int rc = a->rc;
    if (a->tail) {
        gdev_t *g = &c->devs[0];
        float sort_ms = 0, back_ms = 0;
        int gk = gk_event_sync(g->back[a->i]);
        if (gk == GK_OK) {
            gk_event_ms(g->sort_began[a->i], g->sort_ended[a->i], &sort_ms);
            gk_event_ms(g->sort_ended[a->i], g->back[a->i], &back_ms);
            g->back_sort_s += sort_ms / 1e3;
            g->back_xfer_s += back_ms / 1e3;
            stats_add(ST_SORT, a->bytes, sort_ms / 1e3);
            stats_add(ST_TRANSFER, 0, back_ms / 1e3);
        } else if (rc == GS_OK) {
            rc = err_set(gk == GK_ENOMEM ? GS_ENOMEM : GS_EIO, "GPU %d: %s", g->dev,
                         gk_error_text());
        }
    }
    return rc;
}

/* ---- memory pinned for DMA ---------------------------------------------------------------- */

/* Page-lock buf for DMA: only once the devices are up, and only for one device:
 * several deal a chunk by key range into the scratch first, and stage that, so
 * pinning the chunk costs and saves nothing. A failure leaves buf as it was (its
 * parts are then staged): 0, no error. */
static int sorter_cuda_pin(sorter_t *s, void *buf, size_t bytes)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (c->ready != 1 || c->released || c->ndev > 1 || !buf || bytes == 0)
        return 0;
    int done = 0;
    pthread_mutex_lock(&c->pin_lock);
    if (c->npins < CUDA_MAX_PINS) {
        double t0 = stats_now();
        if (gk_host_register(buf, bytes) == GK_OK) {
            c->pins[c->npins].p = buf;
            c->pins[c->npins].bytes = bytes;
            c->npins++;
            c->pinned_bytes += bytes;
            done = 1;
        }
        c->pin_s += stats_now() - t0;
    }
    pthread_mutex_unlock(&c->pin_lock);
    return done;
}

static void sorter_cuda_unpin(sorter_t *s, void *buf)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    pthread_mutex_lock(&c->pin_lock);
    for (int i = 0; !c->released && i < c->npins; i++)   /* released: the reset unpins */
        if (c->pins[i].p == buf) {
            double t0 = stats_now();
            gk_host_unregister(buf);
            c->pin_s += stats_now() - t0;
            c->pins[i] = c->pins[--c->npins];
            break;
        }
    pthread_mutex_unlock(&c->pin_lock);
}

/* ---- the devices let go ---------------------------------------------------------------- */

/* Every device's context torn down, with all it held and pinned (gdev_reset), after
 * a set-up still under way that nobody waited for. On the release job, or on the
 * caller where no thread can be had. */
static void cuda_release_job(void *arg)
{
    sorter_cuda_t *c = arg;
    double t0 = stats_now();
    job_wait(&c->setup);
    for (int d = 0; c->devs && d < c->ndev; d++)
        gdev_reset(&c->devs[d]);
    c->d_recs = NULL;   /* records loaded and never sorted: gone with the context */
    c->npins = 0;
    c->release_s = stats_now() - t0;
}

/* sorter.h's sorter_release. The sorts aside have all been waited for (their ways
 * back too: sorter_wait), so no thread uses a device now; from here on none does:
 * cuda_route sends everything to the CPU, pin() declines and unpin() has nothing to
 * undo. */
static void sorter_cuda_release(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (c->released)
        return;
    pthread_mutex_lock(&c->pin_lock);
    c->released = 1;
    pthread_mutex_unlock(&c->pin_lock);
    s->caps = (sorter_caps_t){ 0 };   /* the CPU's */
    if (!c->pending && !c->devs)   /* (devs is the set-up job's while it is pending) */
        return;   /* never set up: no device to let go */
    if (!job_try_post(&c->release, cuda_release_job, c))
        cuda_release_job(c);
}

/* ---- the rest of the backend ------------------------------------------------------------- */

/* --stats: a line per device: chunks, bytes in and out, transfer and sort time;
 * how long letting them go took. */
static void sorter_cuda_report(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    job_wait(&c->release);
    if (c->ready <= 0)
        return;   /* never set up, or fell back: the device line says why */
    fprintf(stderr, "gpusort: stats: gpus set up in %.3f s, %.3f s of it waited for (CUDA's "
            "start %.3f s, staging buffers pinned %.3f s, device buffers %.3f s)\n",
            c->setup_s, c->wait_s, c->setup_start_s, c->setup_pin_s, c->setup_mem_s);
    if (c->pinned_bytes)
        fprintf(stderr, "gpusort: stats: pinned %llu bytes of host memory for DMA, %.3f s "
                "with unpinning\n", c->pinned_bytes, c->pin_s);
    cuda_stream_report(c);
    for (int d = 0; d < c->ndev; d++) {
        const gdev_t *g = &c->devs[d];
        fprintf(stderr, "gpusort: stats: gpu %d (%s): %llu chunks, %llu bytes in, %llu bytes "
                "out, transfer %.3f s, sort %.3f s, %zu keys a chunk\n", g->dev, g->name,
                g->chunks, g->bytes_in, g->bytes_out, g->xfer_s + g->back_xfer_s,
                g->sort_s + g->back_sort_s, g->cap);
    }
    if (c->released)
        fprintf(stderr, "gpusort: stats: gpus let go in %.3f s, on a thread of their own "
                "once the last sort was done\n", c->release_s);
}

/* sorter.h's sorter_use: the devices that sorted anything; whether any were found
 * (counted here where nothing looked for them), and why they were not used. */
static int sorter_cuda_use(sorter_t *s, sorter_use_t *u)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    job_wait(&c->release);
    job_wait(&c->setup);   /* a set-up begun in the background, never waited for */
    u->small = __atomic_load_n(&c->small, __ATOMIC_RELAXED);
    u->min_keys = c->cfg.min_keys;
    int streamed = c->streamed_keys || c->streamed_records;
    for (int d = 0; c->devs && d < c->ndev; d++)
        u->gpus_used += c->devs[d].chunks > 0 || (d == 0 && streamed);
    if (c->ready != 0 || c->pending) {   /* the set-up ran: it counted them */
        int failed = c->ready != 0 ? c->ready < 0 : c->setup_rc != GS_OK;
        u->gpus_found = failed && c->gk == GK_ENODEV ? 0 : c->ndev;
        u->failed = failed ? c->err : NULL;
    } else if (c->cfg.ndevices > 0) {
        u->gpus_found = c->cfg.ndevices;   /* asked for by number: checked to exist */
    } else {
        u->gpus_found = gk_device_count();
    }
    return 1;
}

static void sorter_cuda_destroy(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    job_end(&c->setup);   /* a set-up or a sort still under way: an error ended reading */
    job_end(&c->aside);
    pool_destroy(c->aside_pool);
    /* Not let go before (an error, or a mode that never knew its last sort): here,
     * which costs less than the driver's teardown at the process's exit. */
    if (!c->released) {
        c->released = 1;
        cuda_release_job(c);
    }
    job_end(&c->release);
    pthread_mutex_destroy(&c->pin_lock);
    if (c->devs)
        for (int d = 0; d < c->ndev; d++)
            job_end(&c->devs[d].job);
    sorter_destroy(c->cpu);
    free(c->devs);
    free(c->ids);
    free(c);
}

static const sorter_ops_t sorter_cuda_ops = {
    .sort = sorter_cuda_sort,
    .submit = sorter_cuda_submit,
    .wait = sorter_cuda_wait,
    .grow = sorter_cuda_grow,
    .sort_index = sorter_cuda_sort_index,
    .stream_load = cuda_stream_load,
    .stream_sort = cuda_stream_sort,
    .pin = sorter_cuda_pin,
    .unpin = sorter_cuda_unpin,
    .release = sorter_cuda_release,
    .report = sorter_cuda_report,
    .use = sorter_cuda_use,
    .destroy = sorter_cuda_destroy,
};

int sorter_cuda_create(sorter_t **out, pool_t *pool, const sorter_cuda_cfg_t *cfg)
{
    sorter_cuda_t *c = calloc(1, sizeof *c);
    if (!c || !(c->ids = calloc(GS_MAX_DEVICES, sizeof *c->ids))) {
        free(c);
        return err_set(GS_ENOMEM, "out of memory");
    }
    c->base.ops = &sorter_cuda_ops;
    pthread_mutex_init(&c->pin_lock, NULL);
    job_init(&c->setup);
    job_init(&c->aside);
    job_init(&c->release);
    int rc = sorter_cpu_create(&c->cpu, pool);
    if (rc) {
        sorter_cuda_destroy(&c->base);
        return rc;
    }
    c->cfg = *cfg;
    c->pool = pool;
    c->width = cfg->width;
    c->bitonic = cfg->algorithm == ALGO_BITONIC;
    c->ndev = cfg->ndevices;
    if (cfg->ndevices > 0)
        memcpy(c->ids, cfg->devices, sizeof *c->ids * (size_t)cfg->ndevices);
    c->cfg.devices = c->ids;
    cuda_name(c);
    c->base.name = c->name;
    /* The devices are set up when a chunk first grows past min_keys (grow_at), in
     * the background while reading goes on, or at the first large sort; max_keys
     * then bounds the chunks. */
    c->base.caps = (sorter_caps_t){ .grow_at = cfg->min_keys, .aside = 1, .aside_depth = 2,
                                    .pins = 1, .streams = 1 };
    *out = &c->base;
    return GS_OK;
}
