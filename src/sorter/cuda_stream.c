/* SPDX-License-Identifier: MIT */
/* cuda_stream.c: a chunk streamed through one device (sorter.h, sorter_stream_t).
 *
 * The chunk never lands in host memory. Its keys come from the caller's fill() a
 * slice at a time into the device's two pinned staging buffers, each slice crossing
 * PCIe on its stream while the caller fills the other (for files: pread straight
 * into pinned memory); then the least and greatest key are taken on the device, the
 * keys sorted there (gk_sort_range, or bitonic), and brought back the same way, a
 * slice crossing while the caller drains the one before (writes it out). Reading
 * and the way in overlap, as do the way back and writing; the sort is between them,
 * since no key may be written before every key is read.
 *
 * Only where one device holds the whole chunk: several devices, or a chunk larger
 * than a device's buffers, are declined before fill() is called, and the caller
 * reads the chunk into memory as ever (chunks.h).
 */
#include <config.h>

#include <stdio.h>

#include "core/error.h"
#include "core/stats.h"
#include "sorter/cuda_impl.h"

/* --stats: one stage of the stream, its two sides' busy seconds against its wall
 * clock, and which side bounds it. */
static void cuda_stream_stage(const char *what, double wall, uint64_t bytes, const char *a,
                              double a_s, const char *b, double b_s)
{
    double both = a_s + b_s - wall;
    fprintf(stderr, "gpusort: stats: stream %s %.3f s: %s %.3f s busy (%.2f GB/s), %s %.3f "
            "s busy (%.2f GB/s), both at once %.3f s; bound by %s\n", what, wall, a, a_s,
            a_s > 0 ? bytes / a_s / 1e9 : 0.0, b, b_s, b_s > 0 ? bytes / b_s / 1e9 : 0.0,
            both > 0 ? both : 0.0, a_s >= b_s ? a : b);
}

void cuda_stream_report(const sorter_cuda_t *c)
{
    if (!c->streamed_keys)
        return;
    uint64_t bytes = c->streamed_keys * (uint64_t)c->width;
    fprintf(stderr, "gpusort: stats: %llu keys streamed through gpu %d: read into its pinned "
            "buffers as they crossed, sorted there, written back as they came\n",
            c->streamed_keys, c->devs[0].dev);
    cuda_stream_stage("in", c->in_wall, bytes, "reading", c->in_fill, "PCIe", c->in_dma);
    fprintf(stderr, "gpusort: stats: stream sort %.3f s (%.2f GB/s)\n", c->sort_s,
            c->sort_s > 0 ? bytes / c->sort_s / 1e9 : 0.0);
    cuda_stream_stage("out", c->out_wall, bytes, "PCIe", c->out_dma, "writing", c->out_drain);
}

int cuda_stream_load(sorter_t *s, size_t n, const sorter_stream_t *st, size_t *loaded,
                     int *done)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    *loaded = 0;
    *done = 0;
    c->streamed = 0;
    int gpu, rc = cuda_route(c, n, &gpu);
    if (rc || !gpu || c->ndev != 1 || c->aside_posted || n > c->devs[0].cap)
        return rc;
    gdev_t *g = &c->devs[0];
    g->pool = c->pool;
    int gk = gk_set_device(g->dev);
    if (gk)
        return err_set(cuda_fail(g, gk), "%s", g->err);
    *done = 1;
    size_t w = (size_t)c->width, slice = CUDA_STAGE_BYTES / w, have = 0;
    double t0 = stats_now(), filling = 0, dma0 = g->dma_s;
    int b = 0;
    while (rc == GS_OK && have < g->cap) {
        size_t max = g->cap - have < slice ? g->cap - have : slice, got;
        if ((gk = gk_event_sync(g->staged[b]))) {
            rc = err_set(cuda_fail(g, gk), "%s", g->err);
            break;
        }
        cuda_dma_end(g, b);
        double t1 = stats_now();
        rc = st->fill(st->self, g->h_stage[b], max, &got);
        filling += stats_now() - t1;
        if (rc || got == 0)
            break;
        if ((gk = cuda_dma_begin(g, b, g->stream[b])) ||
            (gk = gk_copy_h2d((char *)g->d_keys + have * w, g->h_stage[b], got * w,
                              g->stream[b])) ||
            (gk = gk_event_record(g->staged[b], g->stream[b])))
            rc = err_set(cuda_fail(g, gk), "%s", g->err);
        have += got;
        b ^= 1;
    }
    /* Both slices' copies done before anything else uses the staging buffers. */
    int gk0 = gk_stream_sync(g->stream[0]), gk1 = gk_stream_sync(g->stream[1]);
    if (rc == GS_OK && (gk0 || gk1))
        rc = err_set(cuda_fail(g, gk0 ? gk0 : gk1), "%s", g->err);
    cuda_dma_end(g, 0);
    cuda_dma_end(g, 1);
    double wall = stats_now() - t0;
    c->in_wall += wall;
    c->in_fill += filling;
    c->in_dma += g->dma_s - dma0;
    g->bytes_in += have * w;
    g->xfer_s += wall - filling;
    stats_add(ST_TRANSFER, have * w, wall - filling);   /* the time not hidden by fill */
    if (rc)
        return rc;
    c->stream_n = have;
    c->streamed = 1;
    c->streamed_keys += have;
    *loaded = have;
    return GS_OK;
}

/* The caller's drain, timed apart: only the copies' time left in view counts as
 * transfer. */
typedef struct {
    const sorter_stream_t *st;
    double spent;            /* seconds in drain() */
    int failed;              /* 1: drain() failed (its message set) */
} stream_drain_t;

static int cuda_stream_drain(void *self, void *buf, size_t n)
{
    stream_drain_t *d = self;
    double t0 = stats_now();
    int rc = d->st->drain(d->st->self, buf, n);
    d->spent += stats_now() - t0;
    d->failed = rc != GS_OK;
    return rc;
}

int cuda_stream_sort(sorter_t *s, const sorter_stream_t *st)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (!c->streamed)
        return err_set(GS_EIO, "internal error: a stream sorted before it was loaded");
    c->streamed = 0;
    gdev_t *g = &c->devs[0];
    size_t n = c->stream_n;
    int w = c->width, gk;
    if ((gk = gk_set_device(g->dev)))
        return err_set(cuda_fail(g, gk), "%s", g->err);
    double t0 = stats_now();
    void *res = g->d_keys;
    if (n >= 2) {
        /* The least and the greatest key, into a staging buffer (idle now). */
        uint64_t *mm = g->h_stage[1];
        if ((gk = gk_minmax(g->d_keys, n, w, g->d_tmp, mm, g->stream[0])) ||
            (gk = gk_stream_sync(g->stream[0])) ||
            (gk = (g->bitonic ? gk_bitonic_sort_range : gk_sort_range)(
                 g->d_keys, g->d_alt, n, w, mm[0], mm[1], g->d_scratch, g->scratch_bytes,
                 &res, g->stream[0])) ||
            (gk = gk_stream_sync(g->stream[0])))
            return err_set(cuda_fail(g, gk), "%s", g->err);
    }
    double t1 = stats_now(), dma0 = g->dma_s;
    g->sort_s += t1 - t0;
    c->sort_s += t1 - t0;
    g->chunks++;
    stats_add(ST_SORT, n * (uint64_t)w, t1 - t0);
    stream_drain_t d = { .st = st };
    int rc = cuda_copy_back(g, res, n, w, cuda_stream_drain, &d);
    double wall = stats_now() - t1;
    c->out_wall += wall;
    c->out_drain += d.spent;
    c->out_dma += g->dma_s - dma0;
    g->bytes_out += n * (uint64_t)w;
    g->xfer_s += wall - d.spent;
    stats_add(ST_TRANSFER, n * (uint64_t)w, wall - d.spent);
    if (rc && !d.failed)
        return err_set(rc, "%s", g->err);
    return rc;
}
