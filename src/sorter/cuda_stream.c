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
 * Binary records (sorter_stream_t.rec) go the same way into memory of their own on
 * the device; there their keys are taken out and mapped (gk_record_keys), sorted
 * with their indices (gk_sort_index, stable), and each slice of the way back is
 * gathered on the device in that order before it crosses: the host never touches
 * a record but to read and write it.
 *
 * Text (sorter_stream_t.text) crosses as it is, into d_alt, and is parsed there
 * into keys in d_keys (gk_parse_text), which are then sorted as keys streamed are;
 * a token the parse does not take leaves the text to the host, which names it.
 *
 * Only where one device holds the whole chunk: several devices, or a chunk larger
 * than a device's buffers, are declined before fill() is called, and the caller
 * reads the chunk into memory as ever (chunks.h, or records/table.h).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

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
    uint64_t bytes = c->streamed_bytes, in = c->streamed_text ? c->streamed_text : bytes;
    if (c->streamed_text)
        fprintf(stderr, "gpusort: stats: %llu bytes of text streamed through gpu %d: read "
                "into its pinned buffers as they crossed, parsed there into %llu keys in %.3f "
                "s, sorted there, brought back by every thread\n", c->streamed_text,
                c->devs[0].dev, c->streamed_keys, c->parse_s);
    else if (c->streamed_keys)
        fprintf(stderr, "gpusort: stats: %llu keys streamed through gpu %d: read into its "
                "pinned buffers as they crossed, sorted there, written back as they came\n",
                c->streamed_keys, c->devs[0].dev);
    else if (c->streamed_records)
        fprintf(stderr, "gpusort: stats: %llu records streamed through gpu %d: read into its "
                "pinned buffers as they crossed, their keys sorted there with their indices, "
                "gathered there as they went back\n", c->streamed_records, c->devs[0].dev);
    else
        return;
    cuda_stream_stage("in", c->in_wall, in, "reading", c->in_fill, "PCIe", c->in_dma);
    fprintf(stderr, "gpusort: stats: stream sort %.3f s (%.2f GB/s)\n", c->sort_s,
            c->sort_s > 0 ? bytes / c->sort_s / 1e9 : 0.0);
    if (c->placed_by)   /* each thread its pieces: waited for PCIe, then placed them */
        fprintf(stderr, "gpusort: stats: stream out %.3f s, placed by %d threads, a thread's "
                "mean: %.3f s waiting for PCIe, %.3f s placing (%.2f GB/s all told); bound "
                "by %s\n", c->out_wall, c->placed_by, c->out_dma, c->out_drain,
                c->out_drain > 0 ? bytes / c->out_drain / 1e9 : 0.0,
                c->out_dma >= c->out_drain ? "PCIe" : "placing");
    else
        cuda_stream_stage("out", c->out_wall, bytes, "PCIe", c->out_dma, "writing",
                          c->out_drain);
}

/* 256-byte aligned (cudaMalloc's alignment, kept for every part of one allocation). */
static size_t cuda_align(size_t bytes)
{
    return (bytes + 255) & ~(size_t)255;
}

/* Room on device g for n binary records r streamed: their keys and indices in its
 * buffers, laid out as cuda_index_on() lays them (a key and its index in d_keys,
 * their alternates in d_alt, 12 bytes each); in memory of their own (c->d_recs) the
 * records, room to gather two slices (c->d_gather), and where g's buffers are too
 * small for them (bitonic keeps little in d_alt, and wants no scratch), the
 * alternates (c->d_ralt) and CUB's scratch (c->d_rscratch); all within what
 * --gpu-memory allows: 1, else 0. */
static int cuda_records_room(sorter_cuda_t *c, gdev_t *g, size_t n, const sorter_records_t *r)
{
    size_t scratch, alt = g->cap * (size_t)(g->bitonic ? 4 : 8);
    if (c->width != 8 || n > UINT32_MAX || r->size > CUDA_STREAM_RECORD_MAX ||
        n * 12 > g->cap * 8 || gk_index_scratch(n, &scratch) != GK_OK)
        return 0;
    size_t gather = cuda_align(n * r->size), ralt = gather + 2 * CUDA_STAGE_BYTES;
    size_t rscratch = ralt + (n * 12 > alt ? cuda_align(n * 12) : 0);
    size_t want = rscratch + (scratch > g->scratch_bytes ? scratch : 0);
    size_t used = g->cap * 8 + alt + g->scratch_bytes;
    if (used > g->allowed || want > g->allowed - used)
        return 0;
    if (gk_malloc(&c->d_recs, want) != GK_OK) {   /* no room after all: not streamed */
        c->d_recs = NULL;
        return 0;
    }
    c->d_gather = (char *)c->d_recs + gather;
    c->d_ralt = n * 12 > alt ? (char *)c->d_recs + ralt : NULL;
    c->d_rscratch = scratch > g->scratch_bytes ? (char *)c->d_recs + rscratch : NULL;
    c->rscratch_bytes = scratch;
    return 1;
}

/* Room on device g for len bytes of text and the keys they hold: the text in
 * d_alt (dead once parsed: the sort's alternates), as many keys as the device
 * takes in d_keys (a text of more is found by the parse, which then declines), the
 * parse's scratch in d_scratch; radix sorts only (bitonic keeps little in d_alt).
 * 1, else 0. */
static int cuda_text_room(const sorter_cuda_t *c, const gdev_t *g, size_t len)
{
    size_t scratch;
    return !g->bitonic && len > 0 && len <= g->cap * (size_t)c->width &&
           gk_text_scratch(len, &scratch) == GK_OK && scratch <= g->scratch_bytes;
}

/* The len bytes of text in g's d_alt parsed into keys in d_keys: *keys their count,
 * or SIZE_MAX where a token is not a key of the type (or there are more than d_keys
 * holds): the host parses. GS_OK, or CUDA's error with its message set. */
static int cuda_text_parse(sorter_cuda_t *c, gdev_t *g, size_t len, const sorter_text_t *tx,
                           size_t *keys)
{
    uint64_t *res = g->h_stage[1];   /* pinned, idle between the load and the sort */
    double t0 = stats_now();
    int gk = gk_parse_text(g->d_alt, len, c->width, tx->pos_max, tx->neg_max, tx->mask,
                           g->d_keys, g->cap, g->d_scratch, g->scratch_bytes, res,
                           g->stream[0]);
    if (gk || (gk = gk_stream_sync(g->stream[0])))
        return err_set(cuda_fail(g, gk), "%s", g->err);
    c->parse_s += stats_now() - t0;
    stats_add(ST_PARSE, len, stats_now() - t0);
    *keys = res[1] ? SIZE_MAX : (size_t)res[0];
    return GS_OK;
}

int cuda_stream_load(sorter_t *s, size_t n, const sorter_stream_t *st, size_t *loaded,
                     int *done)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    *loaded = 0;
    *done = 0;
    c->streamed = 0;
    int gpu, rc = cuda_route(c, n, &gpu);
    if (rc || !gpu || c->ndev != 1 || c->q_n ||
        (!st->rec && !st->text && n > c->devs[0].cap))
        return rc;
    gdev_t *g;
    if ((rc = cuda_first_device(c, &g)) != GS_OK)
        return rc;
    if (st->rec && !cuda_records_room(c, g, n, st->rec))
        return GS_OK;
    if (st->text && !cuda_text_room(c, g, n))
        return GS_OK;
    *done = 1;
    c->rec = st->rec ? *st->rec : (sorter_records_t){ 0 };
    /* Keys into d_keys, up to its room; records into d_recs, as many as were
     * counted (a file that grew past them is the caller's to find); text into
     * d_alt, the bytes said. */
    char *dst = st->rec ? c->d_recs : st->text ? g->d_alt : g->d_keys;
    size_t w = st->rec ? st->rec->size : st->text ? 1 : (size_t)c->width;
    size_t room = st->rec || st->text ? n : g->cap;
    size_t slice = CUDA_STAGE_BYTES / w, have = 0;
    double t0 = stats_now(), filling = 0, dma0 = g->dma_s;
    int b = 0, gk;
    while (rc == GS_OK && have < room) {
        size_t max = room - have < slice ? room - have : slice, got;
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
            (gk = gk_copy_h2d(dst + have * w, g->h_stage[b], got * w, g->stream[b])) ||
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
    if (st->text) {
        size_t keys = SIZE_MAX;
        rc = cuda_text_parse(c, g, have, st->text, &keys);
        if (rc || keys == SIZE_MAX) {
            *done = 0;   /* a token the host must see to: it parses the text itself */
            return rc;
        }
        c->streamed_text += have;
        have = keys;
    }
    c->stream_n = have;
    c->streamed = 1;
    *(st->rec ? &c->streamed_records : &c->streamed_keys) += have;
    c->streamed_bytes += have * (st->text ? (size_t)c->width : w);
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

/* ---- the way back placed: every thread a range of ranks of its own ----------------- */

/* Where st->place is set, each of the pool's threads brings its contiguous range of
 * the sorted keys back a piece at a time, through its own part of the staging
 * buffers on a stream of its own, and hands each piece to place(): pieces cross
 * PCIe while other threads put theirs in place, and each thread fills one stretch
 * of the output (handed over slice by slice in order, the threads met at every
 * slice and waited on one another's page faults: doc/perf/RESULTS.md, "Binary keys
 * streamed"). */
typedef struct {
    gdev_t *g;
    const sorter_stream_t *st;
    const char *res;         /* the sorted keys, on the device; records: room to
                                gather two staging buffers' bytes */
    const cuda_gather_t *gather;   /* records: gathered first; NULL: keys */
    size_t n, w;             /* items, and an item's bytes */
    int used, per;           /* the threads that take part, and their pieces in each
                                staging buffer */
    size_t piece;            /* bytes of a thread's piece */
    gk_stream_t *streams;    /* [nt]: one a thread */
    double *waited, *placed; /* [nt]: seconds each waited for PCIe, and placed */
    int *rc;                 /* [nt]: each thread's result (its message set) */
} back_job_t;

static void cuda_back_share(void *arg, int t, int nt)
{
    back_job_t *j = arg;
    gdev_t *g = j->g;
    size_t lo, hi, w = j->w, step = j->piece / w;
    (void)nt;
    if (t >= j->used)
        return;
    pool_share(j->n, t, j->used, &lo, &hi);
    size_t off = (size_t)(t % j->per) * j->piece;
    char *buf = (char *)g->h_stage[t / j->per] + off;
    size_t at = (size_t)(t / j->per) * CUDA_STAGE_BYTES + off;   /* its like on the device */
    const cuda_gather_t *ga = j->gather;
    int gk = gk_set_device(g->dev);
    for (size_t k = lo; k < hi && !gk && j->rc[t] == GS_OK; k += step) {
        size_t m = hi - k < step ? hi - k : step;
        const char *src = ga ? j->res + at : j->res + k * w;
        double t0 = stats_now();
        if ((ga && (gk = gk_gather(ga->recs, ga->size, ga->perm + k, m, (void *)src,
                                   j->streams[t]))) ||
            (gk = gk_copy_d2h(buf, src, m * w, j->streams[t])) ||
            (gk = gk_stream_sync(j->streams[t])))
            break;
        double t1 = stats_now();
        j->rc[t] = j->st->place(j->st->self, k, buf, m);
        j->waited[t] += t1 - t0;
        j->placed[t] += stats_now() - t1;
    }
    if (gk)
        j->rc[t] = err_set(gk == GK_ENOMEM ? GS_ENOMEM : GS_EIO, "GPU %d: %s", g->dev,
                           gk_error_text());
}

/* The way back placed (above), by c->placed_by threads: GS_OK or the first error,
 * its message set; the seconds the threads waited for PCIe and placed, a thread's
 * mean, in *waited and *placed. */
static int cuda_back_placed(sorter_cuda_t *c, gdev_t *g, const void *res, size_t n, size_t w,
                            const cuda_gather_t *gather, const sorter_stream_t *st,
                            double *waited, double *placed)
{
    int nt = pool_size(c->pool), used = nt < CUDA_PLACE_THREADS ? nt : CUDA_PLACE_THREADS;
    c->placed_by = used;
    back_job_t j = { .g = g, .st = st, .res = res, .gather = gather, .n = n, .w = w,
                     .used = used, .per = (used + 1) / 2 };
    j.piece = CUDA_STAGE_BYTES / (size_t)j.per;
    j.piece -= j.piece % 4096;   /* whole pages: aligned for the gather, whole keys */
    j.streams = calloc((size_t)nt, sizeof *j.streams);
    j.waited = calloc((size_t)nt, sizeof *j.waited);
    j.placed = calloc((size_t)nt, sizeof *j.placed);
    j.rc = calloc((size_t)nt, sizeof *j.rc);
    int rc = GS_OK, made = 0, gk = GK_OK;
    if (!j.streams || !j.waited || !j.placed || !j.rc)
        rc = err_set(GS_ENOMEM, "out of memory");
    for (; rc == GS_OK && made < nt && !gk; made++)
        gk = gk_stream_create(&j.streams[made]);
    if (gk) {
        made--;
        rc = err_set(cuda_fail(g, gk), "%s", g->err);
    }
    if (rc == GS_OK)
        pool_run(c->pool, cuda_back_share, &j);
    for (int t = 0; rc == GS_OK && t < nt; t++)
        rc = j.rc[t];
    for (int t = 0; j.waited && j.placed && t < used; t++) {
        *waited += j.waited[t] / used;
        *placed += j.placed[t] / used;
    }
    gk_set_device(g->dev);
    for (int t = 0; t < made; t++)
        gk_stream_destroy(j.streams[t]);
    free(j.streams);
    free(j.waited);
    free(j.placed);
    free(j.rc);
    return rc;
}

/* Records' keys taken out on device g, sorted with their indices: *perm the
 * indices in key order (in g's buffers). */
static int cuda_sort_records(sorter_cuda_t *c, gdev_t *g, size_t n, const uint32_t **perm)
{
    const sorter_records_t *r = &c->rec;
    char *alt = c->d_ralt ? c->d_ralt : g->d_alt;
    char *vals = (char *)g->d_keys + n * 8, *vals_alt = alt + n * 8;
    uint64_t *mm = g->h_stage[1];   /* idle now */
    gk_stream_t s = g->stream[0];
    void *res;
    int gk;
    if ((gk = gk_record_keys(c->d_recs, n, r->size, r->off, r->width, r->big_endian, r->mask,
                             g->d_keys, s)) ||
        (gk = gk_minmax(g->d_keys, n, 8, g->d_tmp, mm, s)) || (gk = gk_stream_sync(s)))
        return err_set(cuda_fail(g, gk), "%s", g->err);
    /* Sorted on the bits the keys' range needs: offsets from the least key where
     * that takes fewer bits than the keys as they are (timestamps, say). */
    uint64_t min = mm[0], max = mm[1];
    int bits = max ? 64 - __builtin_clzll(max) : 0;
    int range = max > min ? 64 - __builtin_clzll(max - min) : 0;
    if (range < bits && (gk = gk_rebase(g->d_keys, 8, g->d_keys, 8, n, min, 1, s)))
        return err_set(cuda_fail(g, gk), "%s", g->err);
    void *scratch = c->d_rscratch ? c->d_rscratch : g->d_scratch;
    size_t scratch_bytes = c->d_rscratch ? c->rscratch_bytes : g->scratch_bytes;
    if ((gk = gk_sort_index(g->d_keys, alt, vals, vals_alt, n, range < bits ? range : bits,
                            scratch, scratch_bytes, &res, s)) ||
        (gk = gk_stream_sync(s)))
        return err_set(cuda_fail(g, gk), "%s", g->err);
    *perm = res;
    return GS_OK;
}

int cuda_stream_sort(sorter_t *s, const sorter_stream_t *st)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (!c->streamed)
        return err_set(GS_EIO, "internal error: a stream sorted before it was loaded");
    c->streamed = 0;
    gdev_t *g;
    size_t n = c->stream_n, w = c->rec.size ? c->rec.size : (size_t)c->width;
    int gk, rc;
    if ((rc = cuda_first_device(c, &g)) != GS_OK)
        return rc;
    double t0 = stats_now();
    void *res = g->d_keys;
    cuda_gather_t gather, *ga = NULL;
    if (c->rec.size) {
        /* The way back gathers each slice into the room after the records. */
        gather = (cuda_gather_t){ .recs = c->d_recs, .size = w };
        ga = &gather;
        res = c->d_gather;
        rc = cuda_sort_records(c, g, n, &gather.perm);
    } else if (n >= 2) {
        /* The least and the greatest key, into a staging buffer (idle now). */
        uint64_t *mm = g->h_stage[1];
        if ((gk = gk_minmax(g->d_keys, n, (int)w, g->d_tmp, mm, g->stream[0])) ||
            (gk = gk_stream_sync(g->stream[0])) ||
            (gk = (g->bitonic ? gk_bitonic_sort_range : gk_sort_range)(
                 g->d_keys, g->d_alt, n, (int)w, mm[0], mm[1], g->d_scratch, g->scratch_bytes,
                 &res, g->stream[0])) ||
            (gk = gk_stream_sync(g->stream[0])))
            rc = err_set(cuda_fail(g, gk), "%s", g->err);
    }
    double t1 = stats_now(), dma0 = g->dma_s;
    g->sort_s += t1 - t0;
    c->sort_s += t1 - t0;
    g->chunks++;
    stats_add(ST_SORT, n * (uint64_t)w, t1 - t0);
    stream_drain_t d = { .st = st };
    if (rc == GS_OK && st->place) {
        double waited = 0;
        rc = cuda_back_placed(c, g, res, n, w, ga, st, &waited, &d.spent);
        g->dma_s += waited;
    } else if (rc == GS_OK) {
        rc = cuda_copy_back(g, res, n, w, ga, cuda_stream_drain, &d);
        if (rc && !d.failed)
            rc = err_set(rc, "%s", g->err);
    }
    double wall = stats_now() - t1;
    c->out_wall += wall;
    c->out_drain += d.spent;
    c->out_dma += g->dma_s - dma0;
    g->bytes_out += n * (uint64_t)w;
    g->xfer_s += wall - d.spent;
    stats_add(ST_TRANSFER, n * (uint64_t)w, wall - d.spent);
    gk_free(c->d_recs);
    c->d_recs = c->d_gather = c->d_ralt = c->d_rscratch = NULL;
    return rc;
}
