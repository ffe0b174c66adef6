/* SPDX-License-Identifier: MIT */
/* cuda_chunk.c: a chunk sorted on the devices (see cuda_impl.h).
 *
 * A chunk is cut into parts that fit one device's buffers; each device sorts its
 * parts one after another (cuda_part.c), several devices at once on jobs of their
 * own, and sorted parts are merged on the CPU (pmerge.h) into the scratch buffer.
 * Where several devices share a chunk, its keys are first dealt by key range into
 * the scratch buffer, a bucket for each device, so that the sorted buckets are the
 * sorted chunk; only where a bucket would not fit its device (many equal keys) are
 * parts sorted and merged.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/keys.h"
#include "merge/pmerge.h"
#include "merge/splitters.h"
#include "sorter/cuda_impl.h"
#include "store/runs.h"

/* A device's job: its share of the current chunk. */
static void cuda_device_job(void *arg)
{
    cuda_device_run(arg);
}

/* Wait for devices 0..used-1 (those on jobs); the first one's error. */
static int cuda_join_devices(sorter_cuda_t *c, int used)
{
    int rc = GS_OK;
    for (int d = 0; d < used; d++) {
        job_wait(&c->devs[d].job);
        if (c->devs[d].rc && rc == GS_OK)
            rc = err_set(c->devs[d].rc, "%s", c->devs[d].err);
    }
    return rc;
}

/* Merging sorted parts into one array: the keys as they are, appended. */
typedef struct {
    char *dst;
    size_t off;
} array_sink_t;

static int cuda_sink_append(void *self, const void *bytes, size_t len)
{
    array_sink_t *a = self;
    memcpy(a->dst + a->off, bytes, len);
    a->off += len;
    return GS_OK;
}

/* Dealing a chunk's keys into buckets by key range, bucket b for device b: each
 * pool thread counts its slice's keys of each bucket, then copies them to their
 * places in the destination, so the buckets lie one after another, in key order. */
typedef struct {
    const char *keys;
    char *dst;
    size_t n;
    int w, nb;
    uint64_t split[GS_MAX_DEVICES];        /* bucket b: keys in [split[b-1], split[b]) */
    size_t (*count)[GS_MAX_DEVICES];       /* [threads][nb], then each one's first place */
} deal_job_t;

static inline int cuda_bucket(const deal_job_t *j, uint64_t k)
{
    int b = 0;
    while (b < j->nb - 1 && k >= j->split[b])
        b++;
    return b;
}

static void cuda_count_share(void *arg, int t, int nt)
{
    deal_job_t *j = arg;
    size_t a, e;
    pool_share(j->n, t, nt, &a, &e);
    size_t *c = j->count[t];
    for (int b = 0; b < j->nb; b++)
        c[b] = 0;
    for (size_t i = a; i < e; i++)
        c[cuda_bucket(j, key_get(j->keys, i, j->w))]++;
}

static void cuda_deal_share(void *arg, int t, int nt)
{
    deal_job_t *j = arg;
    size_t a, e;
    pool_share(j->n, t, nt, &a, &e);
    size_t *at = j->count[t];
    if (j->w == 4) {
        const uint32_t *k = (const uint32_t *)j->keys;
        uint32_t *d = (uint32_t *)j->dst;
        for (size_t i = a; i < e; i++)
            d[at[cuda_bucket(j, k[i])]++] = k[i];
    } else {
        const uint64_t *k = (const uint64_t *)j->keys;
        uint64_t *d = (uint64_t *)j->dst;
        for (size_t i = a; i < e; i++)
            d[at[cuda_bucket(j, k[i])]++] = k[i];
    }
}

/* Sort keys[0..n) on devices 0..used-1 at once: dealt by key range into scratch,
 * a bucket for each device, each bucket then sorted on its device, so that scratch
 * holds the sorted keys with no merge after. Splitters come from a sample. 1 if the
 * keys were sorted so (rc set), 0 if a bucket would not fit its device (many equal
 * keys): then nothing was done. */
static int cuda_sort_dealt(sorter_cuda_t *c, pool_t *pool, char *keys, char *scratch, size_t n,
                           int width, int used, int *rc)
{
    deal_job_t j = { .keys = keys, .dst = scratch, .n = n, .w = width, .nb = used };
    size_t ns = (size_t)CUDA_SAMPLES * (size_t)used;
    sample_t *sample = malloc(sizeof *sample * ns);
    int threads = pool_size(pool);
    j.count = calloc((size_t)threads, sizeof *j.count);
    if (!sample || !j.count) {
        free(sample);
        free(j.count);
        *rc = err_set(GS_ENOMEM, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < ns; i++)
        sample[i] = (sample_t){ key_get(keys, (size_t)((unsigned __int128)n * i / ns), width), 1 };
    splitters_choose(sample, ns, (size_t)used, 0, j.split);   /* used - 1 of them */
    free(sample);
    pool_run(pool, cuda_count_share, &j);
    size_t total[GS_MAX_DEVICES] = { 0 }, start[GS_MAX_DEVICES] = { 0 };
    for (int t = 0; t < threads; t++)
        for (int b = 0; b < used; b++)
            total[b] += j.count[t][b];
    for (int b = 0; b < used; b++) {
        if (total[b] > c->devs[b].cap) {
            free(j.count);
            return 0;
        }
        start[b] = b ? start[b - 1] + total[b - 1] : 0;
    }
    size_t at[GS_MAX_DEVICES];
    memcpy(at, start, sizeof at);
    for (int t = 0; t < threads; t++)
        for (int b = 0; b < used; b++) {
            size_t m = j.count[t][b];
            j.count[t][b] = at[b];
            at[b] += m;
        }
    pool_run(pool, cuda_deal_share, &j);
    free(j.count);
    size_t w = (size_t)width;
    for (int d = 0; d < used; d++) {
        gdev_t *g = &c->devs[d];
        g->keys = scratch + start[d] * w;
        g->n = total[d];
        g->nparts = 1;
        g->first = 0;
        g->stride = 1;
        g->pool = g->own;
        g->rc = GS_OK;
        job_post(&g->job, cuda_device_job, g);
    }
    *rc = cuda_join_devices(c, used);
    return 1;
}


int cuda_sort_on(sorter_cuda_t *c, pool_t *pool, sort_job_t *job)
{
    char *keys = job->keys, *scratch = job->scratch;
    size_t n = job->n;
    int width = job->width;
    job->in_scratch = 0;
    /* Devices: split a chunk only where each device gets a good share. */
    int used = c->ndev;
    while (used > 1 && n / (size_t)used < CUDA_SPLIT_MIN)
        used--;
    size_t cap = c->devs[0].cap;
    for (int d = 1; d < used; d++)
        cap = c->devs[d].cap < cap ? c->devs[d].cap : cap;
    /* A way back left running (cuda_sort_part) only for one part on one device. */
    if (used > 1)
        c->devs[0].defer = 0;
    int rc = GS_OK;
    if (used > 1 && cuda_sort_dealt(c, pool, keys, scratch, n, width, used, &rc)) {
        job->in_scratch = rc == GS_OK;
        return rc;
    }
    size_t nparts = (n + cap - 1) / cap;
    if (nparts < (size_t)used)
        nparts = (size_t)used;
    if (nparts > 1)
        c->devs[0].defer = 0;
    for (int d = 0; d < used; d++) {
        gdev_t *g = &c->devs[d];
        g->keys = keys;
        g->n = n;
        g->nparts = nparts;
        g->first = (size_t)d;
        g->stride = (size_t)used;
        /* One device runs on this thread, and the pool is free to stage its copies;
         * several run on jobs of their own, each with its share of the threads. */
        g->pool = used == 1 ? pool : g->own;
        g->rc = GS_OK;
        if (used == 1)
            cuda_device_run(g);
        else
            job_post(&g->job, cuda_device_job, g);
    }
    rc = cuda_join_devices(c, used);
    if (rc || nparts == 1)
        return rc;
    /* Several sorted parts: merge them on the CPU into scratch. */
    run_t **runs = calloc(nparts, sizeof *runs);
    if (!runs)
        return err_set(GS_ENOMEM, "out of memory");
    size_t w = (size_t)width;
    for (size_t p = 0; p < nparts && rc == GS_OK; p++) {
        size_t lo = n * p / nparts, hi = n * (p + 1) / nparts;
        rc = run_view(&runs[p], keys + lo * w, hi - lo, width);
    }
    array_sink_t a = { .dst = scratch };
    pmerge_sink_t sink = { NULL, cuda_sink_append, &a };
    if (rc == GS_OK)
        rc = pmerge_runs(runs, (int)nparts, width, 0, pool, CUDA_MERGE_BUDGET, &sink);
    for (size_t p = 0; p < nparts; p++)
        run_free(runs[p]);
    free(runs);
    job->in_scratch = rc == GS_OK;
    return rc;
}
