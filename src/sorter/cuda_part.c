/* SPDX-License-Identifier: MIT */
/* cuda_part.c: one part of a chunk sorted on one device (see cuda_impl.h).
 *
 * A part is staged through the device's two pinned buffers: the host copies a slice
 * into one while the other's slice crosses PCIe on its own stream (min and max are
 * taken during that copy). On the device the sort covers only the bits the part's
 * range needs (gk_sort_range: 64-bit parts whose range fits 32 bits go through as
 * 32-bit offsets), or, with --algorithm=bitonic, our bitonic sort in place
 * (gk_bitonic_sort_range); then the part comes back the same way, slice by slice.
 * A part in memory pinned by pin() crosses by DMA in one copy each way, its min and
 * max taken on the device; sorted aside, alone in its job on one device, its way
 * back is left running (cuda_sort_deferred) so that the next part crosses in
 * meanwhile.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/stats.h"
#include "sorter/cuda_impl.h"

/* A CUDA failure on device d: the contract's one line, exit 2. */
int cuda_fail(gdev_t *g, int gk)
{
    g->gk = gk;
    snprintf(g->err, sizeof g->err, "GPU %d: %s", g->dev, gk_error_text());
    return gk == GK_ENOMEM ? GS_ENOMEM : GS_EIO;
}

/* A staging copy, shared among the pool's threads: memcpy, and min and max of the
 * keys on the way in. */
typedef struct {
    char *dst;
    const char *src;
    size_t len;
    int w;                   /* key width; 0: copy only */
    uint64_t lo[256], hi[256];
} stage_job_t;

static void cuda_stage_share(void *arg, int t, int nt)
{
    stage_job_t *j = arg;
    size_t keys = j->w ? j->len / (size_t)j->w : j->len, unit = j->w ? (size_t)j->w : 1;
    size_t a, b;
    pool_share(keys, t, nt, &a, &b);
    memcpy(j->dst + a * unit, j->src + a * unit, (b - a) * unit);
    if (!j->w || t >= 256)
        return;
    uint64_t lo = ~0ull, hi = 0;
    if (j->w == 4) {
        const uint32_t *k = (const uint32_t *)(j->dst) + a;
        for (size_t i = 0; i < b - a; i++) {
            lo = k[i] < lo ? k[i] : lo;
            hi = k[i] > hi ? k[i] : hi;
        }
    } else {
        const uint64_t *k = (const uint64_t *)(j->dst) + a;
        for (size_t i = 0; i < b - a; i++) {
            lo = k[i] < lo ? k[i] : lo;
            hi = k[i] > hi ? k[i] : hi;
        }
    }
    j->lo[t] = lo;
    j->hi[t] = hi;
}

/* Copy len bytes src -> dst (with w: keys, folding their min and max into *lo, *hi),
 * on the pool where the device has one. */
static void cuda_stage(gdev_t *g, char *dst, const char *src, size_t len, int w, uint64_t *lo,
                       uint64_t *hi)
{
    stage_job_t j = { .dst = dst, .src = src, .len = len, .w = w };
    int nt = g->pool ? pool_size(g->pool) : 1;
    if (nt > 256)
        nt = 256;
    for (int t = 0; t < nt; t++) {
        j.lo[t] = ~0ull;
        j.hi[t] = 0;
    }
    if (g->pool && nt > 1)
        pool_run(g->pool, cuda_stage_share, &j);
    else
        cuda_stage_share(&j, 0, 1);
    if (!w)
        return;
    for (int t = 0; t < nt; t++) {
        *lo = j.lo[t] < *lo ? j.lo[t] : *lo;
        *hi = j.hi[t] > *hi ? j.hi[t] : *hi;
    }
}

int cuda_copy_in(gdev_t *g, const char *keys, size_t n, int w, uint64_t *min,
                        uint64_t *max)
{
    uint64_t lo = ~0ull, hi = 0;
    size_t total = n * (size_t)w;
    int rc, b = 0;
    for (size_t off = 0; off < total; off += CUDA_STAGE_BYTES, b ^= 1) {
        size_t len = total - off < CUDA_STAGE_BYTES ? total - off : CUDA_STAGE_BYTES;
        if ((rc = gk_event_sync(g->staged[b])))
            return cuda_fail(g, rc);
        cuda_stage(g, g->h_stage[b], keys + off, len, w, &lo, &hi);
        if ((rc = gk_copy_h2d((char *)g->d_keys + off, g->h_stage[b], len, g->stream[b])) ||
            (rc = gk_event_record(g->staged[b], g->stream[b])))
            return cuda_fail(g, rc);
    }
    *min = lo;
    *max = hi;
    return GS_OK;
}

int cuda_dma_begin(gdev_t *g, int b, gk_stream_t stream)
{
    int gk = gk_event_record(g->began[b], stream);
    g->timed[b] = gk == GK_OK;
    return gk;
}

void cuda_dma_end(gdev_t *g, int b)
{
    float ms;
    if (g->timed[b] && gk_event_ms(g->began[b], g->staged[b], &ms) == GK_OK)
        g->dma_s += ms / 1e3;
    g->timed[b] = 0;
}

/* A drain's failure: its message stands; the device waits for what it was doing. */
static int cuda_drained(gdev_t *g, int rc)
{
    gk_stream_sync(g->stream[0]);
    gk_stream_sync(g->stream[1]);
    return rc;
}

/* Staging buffer b's copy back done: waited for, timed, its n keys drained. */
static int cuda_copy_took(gdev_t *g, int b, size_t n, cuda_drain_fn drain, void *self)
{
    int rc = gk_event_sync(g->staged[b]);
    if (rc)
        return cuda_fail(g, rc);
    cuda_dma_end(g, b);
    if ((rc = drain(self, g->h_stage[b], n)) != GS_OK)
        return cuda_drained(g, rc);
    return GS_OK;
}

int cuda_copy_back(gdev_t *g, const void *d_src, size_t n, size_t w,
                   const cuda_gather_t *gather, cuda_drain_fn drain, void *self)
{
    size_t per = CUDA_STAGE_BYTES / w, prev_n = 0;
    int rc, b = 0, prev = -1;
    for (size_t k = 0; k < n; k += per, b ^= 1) {
        size_t m = n - k < per ? n - k : per;
        const char *src = (const char *)d_src + k * w;
        if (gather) {
            /* In stream order after the slice that last used this buffer crossed. */
            src = (const char *)d_src + (size_t)b * CUDA_STAGE_BYTES;
            if ((rc = gk_gather(gather->recs, gather->size, gather->perm + k, m, (void *)src,
                                g->stream[0])))
                return cuda_fail(g, rc);
        }
        if ((rc = cuda_dma_begin(g, b, g->stream[0])) ||
            (rc = gk_copy_d2h(g->h_stage[b], src, m * w, g->stream[0])) ||
            (rc = gk_event_record(g->staged[b], g->stream[0])))
            return cuda_fail(g, rc);
        /* drain the slice before while this one crosses */
        if (prev >= 0 && (rc = cuda_copy_took(g, prev, prev_n, drain, self)))
            return rc;
        prev = b;
        prev_n = m;
    }
    return prev >= 0 ? cuda_copy_took(g, prev, prev_n, drain, self) : GS_OK;
}

/* cuda_copy_out's drain: each slice copied on by the pool, to dst and on. */
typedef struct {
    gdev_t *g;
    char *dst;
    int w;
} copy_drain_t;

static int cuda_copy_drain(void *self, void *buf, size_t n)
{
    copy_drain_t *d = self;
    size_t len = n * (size_t)d->w;
    cuda_stage(d->g, d->dst, buf, len, 0, NULL, NULL);
    d->dst += len;
    return GS_OK;
}

int cuda_copy_out(gdev_t *g, const void *d_src, char *keys, size_t n, int w)
{
    copy_drain_t d = { g, keys, w };
    return cuda_copy_back(g, d_src, n, (size_t)w, NULL, cuda_copy_drain, &d);
}

/* 1 if keys[0..bytes) lies in memory pinned by pin(). */
int cuda_pinned(sorter_cuda_t *c, const char *keys, size_t bytes)
{
    int found = 0;
    pthread_mutex_lock(&c->pin_lock);
    for (int i = 0; i < c->npins && !found; i++)
        found = keys >= c->pins[i].p && bytes <= c->pins[i].bytes &&
                (size_t)(keys - c->pins[i].p) <= c->pins[i].bytes - bytes;
    pthread_mutex_unlock(&c->pin_lock);
    return found;
}

/* The way back left running by the part before, if any, waited for: the device's
 * buffers are the caller's again. */
static int cuda_tail_end(gdev_t *g)
{
    if (!g->tail)
        return GS_OK;
    g->tail = 0;
    int gk = gk_stream_sync(g->stream[0]);
    return gk ? cuda_fail(g, gk) : GS_OK;
}

/* A part in memory pinned by pin(), with g->defer: sorted, and its way back left
 * running. It crosses in on stream 1 into the device buffer the part before left
 * free (once that part's sort has ended), while the part before still crosses back
 * on stream 0 from the other; its sort follows that way back on stream 0, its own
 * way back after it, and the events of g->slot mark both (the waiter's:
 * sorter_wait). */
static int cuda_sort_deferred(gdev_t *g, char *keys, size_t n, int w)
{
    double t0 = stats_now();
    int s = g->slot, gk;
    void *in = g->d_keys, *alt = g->d_alt;
    if (g->tail) {
        in = g->d_last == g->d_keys ? g->d_alt : g->d_keys;
        alt = g->d_last;
        if ((gk = gk_stream_wait(g->stream[1], g->sort_ended[g->last_slot])))
            return cuda_fail(g, gk);
    }
    uint64_t *mm = g->h_stage[1];
    if ((gk = gk_copy_h2d(in, keys, n * (size_t)w, g->stream[1])) ||
        (gk = gk_minmax(in, n, w, g->d_tmp, mm, g->stream[1])) ||
        (gk = gk_stream_sync(g->stream[1])))
        return cuda_fail(g, gk);
    uint64_t min = mm[0], max = mm[1];
    double t1 = stats_now();
    void *res;
    if ((gk = gk_event_record(g->sort_began[s], g->stream[0])) ||
        (gk = gk_sort_range(in, alt, n, w, min, max, g->d_scratch, g->scratch_bytes, &res,
                            g->stream[0])) ||
        (gk = gk_event_record(g->sort_ended[s], g->stream[0])) ||
        (gk = gk_copy_d2h(keys, res, n * (size_t)w, g->stream[0])) ||
        (gk = gk_event_record(g->back[s], g->stream[0])))
        return cuda_fail(g, gk);
    g->tail = 1;
    g->d_last = res;
    g->last_slot = s;
    g->bytes_in += n * (uint64_t)w;
    g->bytes_out += n * (uint64_t)w;
    g->xfer_s += t1 - t0;
    stats_add(ST_TRANSFER, 2 * n * (uint64_t)w, t1 - t0);   /* the way back: the waiter's */
    return GS_OK;
}

/* Sort keys[0..n) (n <= g->cap) in place on device g. */
static int cuda_sort_part(gdev_t *g, char *keys, size_t n, int w)
{
    if (n < 2)
        return GS_OK;
    int direct = cuda_pinned(g->owner, keys, n * (size_t)w);
    if (direct && g->defer && !g->bitonic)
        return cuda_sort_deferred(g, keys, n, w);
    int rc = cuda_tail_end(g);
    if (rc)
        return rc;
    double t0 = stats_now();
    uint64_t min, max;
    int gk;
    if (direct) {
        /* Pinned: one DMA in, min and max on the device (into the pinned staging
         * buffer, free on this path). */
        uint64_t *mm = g->h_stage[1];
        if ((gk = gk_copy_h2d(g->d_keys, keys, n * (size_t)w, g->stream[0])) ||
            (gk = gk_minmax(g->d_keys, n, w, g->d_tmp, mm, g->stream[0])) ||
            (gk = gk_stream_sync(g->stream[0])))
            return cuda_fail(g, gk);
        min = mm[0];
        max = mm[1];
    } else {
        if ((rc = cuda_copy_in(g, keys, n, w, &min, &max)))
            return rc;
        /* The sort runs on stream 0, after both copy streams. */
        if ((gk = gk_stream_sync(g->stream[0])) || (gk = gk_stream_sync(g->stream[1])))
            return cuda_fail(g, gk);
    }
    double t1 = stats_now();
    void *res;
    if ((gk = (g->bitonic ? gk_bitonic_sort_range : gk_sort_range)(
             g->d_keys, g->d_alt, n, w, min, max, g->d_scratch, g->scratch_bytes, &res,
             g->stream[0])))
        return cuda_fail(g, gk);
    if ((gk = gk_stream_sync(g->stream[0])))
        return cuda_fail(g, gk);
    double t2 = stats_now();
    if (direct) {
        rc = GS_OK;
        if ((gk = gk_copy_d2h(keys, res, n * (size_t)w, g->stream[0])) ||
            (gk = gk_stream_sync(g->stream[0])))
            rc = cuda_fail(g, gk);
    } else {
        rc = cuda_copy_out(g, res, keys, n, w);
    }
    double t3 = stats_now();
    g->bytes_in += n * (uint64_t)w;
    g->bytes_out += n * (uint64_t)w;
    g->xfer_s += (t1 - t0) + (t3 - t2);
    g->sort_s += t2 - t1;
    stats_add(ST_TRANSFER, 2 * n * (uint64_t)w, (t1 - t0) + (t3 - t2));
    stats_add(ST_SORT, n * (uint64_t)w, t2 - t1);
    return rc;
}

void cuda_device_run(gdev_t *g)
{
    size_t w = (size_t)g->width;
    int gk = gk_set_device(g->dev);
    if (gk) {
        g->rc = cuda_fail(g, gk);
        return;
    }
    for (size_t p = g->first; p < g->nparts && g->rc == GS_OK; p += g->stride) {
        size_t lo = g->n * p / g->nparts, hi = g->n * (p + 1) / g->nparts;
        g->rc = cuda_sort_part(g, g->keys + lo * w, hi - lo, g->width);
        g->chunks++;
    }
}
