/* sorter_cuda.c: the GPU chunk sorter: CUB radix sort (or our bitonic sort, with
 * --algorithm=bitonic) on every device asked for.
 *
 * A chunk is cut into parts that fit one device's buffers; each device has a host
 * thread that sorts its parts one after another. A part is staged through two pinned
 * buffers: the host copies a slice into one while the other's slice crosses PCIe on
 * its own stream (min and max are taken during that copy). On the device the sort
 * covers only the bits the part's range needs (gk_sort_range: 64-bit parts whose
 * range fits 32 bits go through as 32-bit offsets), or, with --algorithm=bitonic, our
 * bitonic sort in place (gk_bitonic_sort_range); then the part comes back the same
 * way, slice by slice.
 * Where several devices share a chunk, its keys are first dealt by key range into
 * the scratch buffer, a bucket for each device, so that the sorted buckets are the
 * sorted chunk; only where a bucket would not fit its device (many equal keys) are
 * parts sorted and merged on the CPU (pmerge.h) into the scratch buffer. Small
 * chunks are sorted on the CPU, and the devices are set up only at the first chunk
 * that goes to them.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/error.h"
#include "kernels.h"
#include "core/keys.h"
#include "merge/pmerge.h"
#include "store/runs.h"
#include "sorter/sorter.h"
#include "core/stats.h"

/* Bytes of each pinned staging buffer (two per device). */
#define CUDA_STAGE_BYTES ((size_t)64 << 20)
/* The least keys a device's buffers may hold before we give up on it. */
#define CUDA_MIN_KEYS ((size_t)1 << 20)
/* Keys a chunk may take while the devices are being set up, unless --gpu-memory says
 * less: under what a GPU of 2 GiB or more holds. */
#define CUDA_GUESS_KEYS ((size_t)1 << 26)
/* Chunks smaller than this many keys a device are not split across devices. */
#define CUDA_SPLIT_MIN ((size_t)1 << 22)
/* Buffers pinned at once by pin(), at most. */
#define CUDA_MAX_PINS 8

typedef struct sorter_cuda sorter_cuda_t;

typedef struct {
    sorter_cuda_t *owner;
    int dev;
    int width;               /* key bytes */
    int bitonic;             /* --algorithm=bitonic: our bitonic sort, not CUB radix */
    char name[128];          /* the device's name */
    gk_stream_t stream[2];
    gk_event_t staged[2];    /* staging buffer i may be refilled once this fires */
    void *h_stage[2];
    void *d_keys, *d_alt, *d_scratch;
    void *d_tmp;             /* 16 bytes: gk_minmax's */
    size_t scratch_bytes;
    size_t cap;              /* keys per part */
    /* for --stats */
    unsigned long long chunks, bytes_in, bytes_out;
    double xfer_s, sort_s;
    pool_t *pool;            /* copies staging buffers in parallel; NULL: this thread */
    pool_t *own;             /* with several devices: this device's share of the threads */
    /* the current job: parts first, first + stride, ... of keys[0..n) */
    char *keys;
    size_t n, nparts, first, stride;
    int rc;
    int gk;                  /* the GK_E* class of the last failure */
    char err[512];
} gdev_t;

struct sorter_cuda {
    sorter_t base;
    pool_t *pool;
    sorter_t *cpu;           /* for small chunks, and after a fallback */
    int width;
    int bitonic;             /* --algorithm=bitonic */
    int ndev;                /* devices asked for */
    int ready;               /* 0: not set up yet; 1: set up; -1: fell back to the CPU */
    int quiet;               /* --device=auto: fall back to the CPU silently */
    size_t min_keys;         /* smaller chunks go to the CPU */
    size_arg_t gpu_memory;
    int *ids;                /* [ndev] device numbers */
    gdev_t *devs;            /* [ndev] once set up */
    double setup_s;          /* seconds the set-up took (CUDA's start included) */
    double wait_s;           /* seconds the pipeline waited for it */
    int pending;             /* 1: the set-up runs on setup_thread */
    pthread_t setup_thread;
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
    /* the sort aside (sort_begin) */
    int aside;               /* 0: none; 1: on aside_thread; 2: done at sort_begin */
    pthread_t aside_thread;
    pool_t *aside_pool;      /* its staging threads */
    char *a_keys, *a_scratch;
    size_t a_n;
    int a_width, a_rc;
    void *a_out;
};

/* ---- errors ---------------------------------------------------------------------------- */

/* A CUDA failure on device d: the contract's one line, exit 2. */
static int cuda_fail(gdev_t *g, int gk)
{
    g->gk = gk;
    snprintf(g->err, sizeof g->err, "GPU %d: %s", g->dev, gk_error_text());
    return gk == GK_ENOMEM ? GS_ENOMEM : GS_EIO;
}

/* ---- one part on one device --------------------------------------------------------------- */

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
    size_t a = keys * (size_t)t / (size_t)nt, b = keys * (size_t)(t + 1) / (size_t)nt;
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

/* Copy keys[0..n) (width w) to d_keys through the staging buffers; min and max. */
static int cuda_copy_in(gdev_t *g, const char *keys, size_t n, int w, uint64_t *min,
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

/* Copy d_src[0..n) (width w) back to keys through the staging buffers. */
static int cuda_copy_out(gdev_t *g, const void *d_src, char *keys, size_t n, int w)
{
    size_t total = n * (size_t)w;
    size_t prev_off = 0, prev_len = 0;
    int rc, b = 0, prev = -1;
    for (size_t off = 0; off < total; off += CUDA_STAGE_BYTES, b ^= 1) {
        size_t len = total - off < CUDA_STAGE_BYTES ? total - off : CUDA_STAGE_BYTES;
        if ((rc = gk_copy_d2h(g->h_stage[b], (const char *)d_src + off, len, g->stream[0])) ||
            (rc = gk_event_record(g->staged[b], g->stream[0])))
            return cuda_fail(g, rc);
        if (prev >= 0) {   /* drain the slice before while this one crosses */
            if ((rc = gk_event_sync(g->staged[prev])))
                return cuda_fail(g, rc);
            cuda_stage(g, keys + prev_off, g->h_stage[prev], prev_len, 0, NULL, NULL);
        }
        prev = b;
        prev_off = off;
        prev_len = len;
    }
    if (prev >= 0) {
        if ((rc = gk_event_sync(g->staged[prev])))
            return cuda_fail(g, rc);
        cuda_stage(g, keys + prev_off, g->h_stage[prev], prev_len, 0, NULL, NULL);
    }
    return GS_OK;
}

/* 1 if keys[0..bytes) lies in memory pinned by pin(). */
static int cuda_pinned(sorter_cuda_t *c, const char *keys, size_t bytes)
{
    int found = 0;
    pthread_mutex_lock(&c->pin_lock);
    for (int i = 0; i < c->npins && !found; i++)
        found = keys >= c->pins[i].p && bytes <= c->pins[i].bytes &&
                (size_t)(keys - c->pins[i].p) <= c->pins[i].bytes - bytes;
    pthread_mutex_unlock(&c->pin_lock);
    return found;
}

/* Sort keys[0..n) (n <= g->cap) in place on device g. */
static int cuda_sort_part(gdev_t *g, char *keys, size_t n, int w)
{
    if (n < 2)
        return GS_OK;
    double t0 = stats_now();
    uint64_t min, max;
    int rc, gk;
    int direct = cuda_pinned(g->owner, keys, n * (size_t)w);
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

/* ---- a chunk over every device ---------------------------------------------------------------- */

/* A device's thread: sort its parts of the chunk. */
static void *cuda_device_main(void *arg)
{
    gdev_t *g = arg;
    size_t w = (size_t)g->width;
    int gk = gk_set_device(g->dev);
    if (gk) {
        g->rc = cuda_fail(g, gk);
        return NULL;
    }
    for (size_t p = g->first; p < g->nparts && g->rc == GS_OK; p += g->stride) {
        size_t lo = g->n * p / g->nparts, hi = g->n * (p + 1) / g->nparts;
        g->rc = cuda_sort_part(g, g->keys + lo * w, hi - lo, g->width);
        g->chunks++;
    }
    return NULL;
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

static int sorter_cuda_setup(sorter_t *s);

/* ---- a chunk over several devices, by key range ---------------------------------------- */

/* Keys sampled a device to choose the splitters. */
#define CUDA_SAMPLES 4096

/* Dealing a chunk's keys into buckets by key range, bucket b for device b: each
 * pool thread counts its slice's keys of each bucket, then copies them to their
 * places in the destination, so the buckets lie one after another, in key order. */
typedef struct {
    const char *keys;
    char *dst;
    size_t n;
    int w, nb;
    uint64_t split[OPT_MAX_DEVICES];        /* bucket b: keys in [split[b-1], split[b]) */
    size_t (*count)[OPT_MAX_DEVICES];       /* [threads][nb], then each one's first place */
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
    size_t a = j->n * (size_t)t / (size_t)nt, e = j->n * (size_t)(t + 1) / (size_t)nt;
    size_t *c = j->count[t];
    for (int b = 0; b < j->nb; b++)
        c[b] = 0;
    for (size_t i = a; i < e; i++)
        c[cuda_bucket(j, key_get(j->keys, i, j->w))]++;
}

static void cuda_deal_share(void *arg, int t, int nt)
{
    deal_job_t *j = arg;
    size_t a = j->n * (size_t)t / (size_t)nt, e = j->n * (size_t)(t + 1) / (size_t)nt;
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

static int cuda_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
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
    uint64_t *sample = malloc(sizeof *sample * ns);
    int threads = pool_size(pool);
    j.count = calloc((size_t)threads, sizeof *j.count);
    if (!sample || !j.count) {
        free(sample);
        free(j.count);
        *rc = err_set(GS_ENOMEM, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < ns; i++)
        sample[i] = key_get(keys, (size_t)((unsigned __int128)n * i / ns), width);
    qsort(sample, ns, sizeof *sample, cuda_cmp_u64);
    for (int b = 0; b < used - 1; b++)
        j.split[b] = sample[ns * (size_t)(b + 1) / (size_t)used];
    free(sample);
    pool_run(pool, cuda_count_share, &j);
    size_t total[OPT_MAX_DEVICES] = { 0 }, start[OPT_MAX_DEVICES];
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
    size_t at[OPT_MAX_DEVICES];
    memcpy(at, start, sizeof at);
    for (int t = 0; t < threads; t++)
        for (int b = 0; b < used; b++) {
            size_t m = j.count[t][b];
            j.count[t][b] = at[b];
            at[b] += m;
        }
    pool_run(pool, cuda_deal_share, &j);
    free(j.count);
    pthread_t threads_[OPT_MAX_DEVICES];
    int started[OPT_MAX_DEVICES] = { 0 };
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
        started[d] = cleanup_thread_create(&threads_[d], cuda_device_main, g) == 0;
        if (!started[d])
            g->rc = err_set(GS_ENOMEM, "cannot create threads");
    }
    *rc = GS_OK;
    for (int d = 0; d < used; d++) {
        if (started[d])
            pthread_join(threads_[d], NULL);
        if (c->devs[d].rc && *rc == GS_OK)
            *rc = err_set(c->devs[d].rc, "%s", c->devs[d].err);
    }
    return 1;
}


/* Sort keys[0..n) on the devices, set up, with pool's threads for the host's part
 * (staging copies, dealing, merging parts); sorter.h's sort() otherwise. */
static int cuda_sort_on(sorter_cuda_t *c, pool_t *pool, char *keys, char *scratch, size_t n,
                        int width, void **out)
{
    *out = keys;
    /* Devices: split a chunk only where each device gets a good share. */
    int used = c->ndev;
    while (used > 1 && n / (size_t)used < CUDA_SPLIT_MIN)
        used--;
    size_t cap = c->devs[0].cap;
    for (int d = 1; d < used; d++)
        cap = c->devs[d].cap < cap ? c->devs[d].cap : cap;
    int rc = GS_OK;
    if (used > 1 && cuda_sort_dealt(c, pool, keys, scratch, n, width, used, &rc)) {
        if (rc == GS_OK)
            *out = scratch;
        return rc;
    }
    size_t nparts = (n + cap - 1) / cap;
    if (nparts < (size_t)used)
        nparts = (size_t)used;
    pthread_t threads[OPT_MAX_DEVICES];
    int started[OPT_MAX_DEVICES] = { 0 };
    for (int d = 0; d < used; d++) {
        gdev_t *g = &c->devs[d];
        g->keys = keys;
        g->n = n;
        g->nparts = nparts;
        g->first = (size_t)d;
        g->stride = (size_t)used;
        /* One device runs on this thread, and the pool is free to stage its copies;
         * several run on threads of their own, each with its share of the threads. */
        g->pool = used == 1 ? pool : g->own;
        g->rc = GS_OK;
        if (used == 1)
            cuda_device_main(g);
        else
            started[d] = cleanup_thread_create(&threads[d], cuda_device_main, g) == 0;
        if (used > 1 && !started[d])
            g->rc = err_set(GS_ENOMEM, "cannot create threads");
    }
    for (int d = 0; d < used; d++) {
        if (started[d])
            pthread_join(threads[d], NULL);
        if (c->devs[d].rc && rc == GS_OK)
            rc = err_set(c->devs[d].rc, "%s", c->devs[d].err);
    }
    if (rc || nparts == 1)
        return rc;
    /* Several sorted parts: merge them on the CPU into scratch. */
    run_t **runs = calloc(nparts, sizeof *runs);
    if (!runs)
        return err_set(GS_ENOMEM, "out of memory");
    size_t w = (size_t)width;
    for (size_t p = 0; p < nparts && rc == GS_OK; p++) {
        size_t lo = n * p / nparts, hi = n * (p + 1) / nparts;
        rc = run_view(&runs[p], (char *)keys + lo * w, hi - lo, width);
    }
    array_sink_t a = { .dst = scratch };
    pmerge_sink_t sink = { NULL, cuda_sink_append, w, &a, NULL };
    if (rc == GS_OK)
        rc = pmerge_runs(runs, (int)nparts, width, 0, pool, (size_t)256 << 20, &sink);
    for (size_t p = 0; p < nparts; p++)
        run_free(runs[p]);
    free(runs);
    if (rc == GS_OK)
        *out = scratch;
    return rc;
}

/* Where keys[0..n) go: *gpu 1 to the devices (set up first where they are not yet),
 * 0 to the CPU (few keys, or no device); GS_OK or the set-up's error. */
static int cuda_route(sorter_cuda_t *c, size_t n, int *gpu)
{
    *gpu = 0;
    if (n < 2 || n < c->min_keys || c->ready < 0)
        return GS_OK;
    if (c->ready == 0 || c->pending) {
        int rc = sorter_cuda_setup(&c->base);
        if (rc || c->ready < 0)
            return rc;
    }
    *gpu = 1;
    return GS_OK;
}

static int sorter_cuda_sort(sorter_t *s, void *keys, void *scratch, size_t n, int width,
                            void **out)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    *out = keys;
    int gpu, rc = cuda_route(c, n, &gpu);
    if (rc || n < 2)
        return rc;
    if (!gpu)
        return c->cpu->sort(c->cpu, keys, scratch, n, width, out);
    return cuda_sort_on(c, c->pool, keys, scratch, n, width, out);
}

/* ---- a chunk sorted aside ------------------------------------------------------------------ */

static void *cuda_aside_main(void *arg)
{
    sorter_cuda_t *c = arg;
    c->a_rc = cuda_sort_on(c, c->aside_pool, c->a_keys, c->a_scratch, c->a_n, c->a_width,
                           &c->a_out);
    return NULL;
}

/* Begin a sort aside (sorter.h): on a thread of its own, staging through a pool of its
 * own (as many threads as the pipeline's: on the H100, 16 GiB of binary u32 with
 * --gpu-memory=2G took 4.51 s median with 16, 5.18 s with 8, 4.63 s sorting each
 * chunk in turn), so that reading goes on meanwhile. Chunks for
 * the CPU, and any failure to start, sort here and now (0); sort_end() gives the
 * result either way. */
static int sorter_cuda_sort_begin(sorter_t *s, void *keys, void *scratch, size_t n, int width)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    c->a_keys = keys;
    c->a_scratch = scratch;
    c->a_n = n;
    c->a_width = width;
    c->a_out = keys;
    int gpu, rc = cuda_route(c, n, &gpu);
    if (rc == GS_OK && gpu && !c->aside_pool) {
        rc = pool_create(&c->aside_pool, pool_size(c->pool));
        if (rc)
            c->aside_pool = NULL;
    }
    if (rc == GS_OK && gpu &&
        cleanup_thread_create(&c->aside_thread, cuda_aside_main, c) == 0) {
        c->aside = 1;
        return 1;
    }
    c->a_rc = rc ? rc : sorter_cuda_sort(s, keys, scratch, n, width, &c->a_out);
    c->aside = 2;
    return 0;
}

static int sorter_cuda_sort_end(sorter_t *s, void **out)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (c->aside == 1)
        pthread_join(c->aside_thread, NULL);
    c->aside = 0;
    *out = c->a_out;
    return c->a_rc;
}

/* ---- setting up and tearing down -------------------------------------------------------------- */

static void gdev_release(gdev_t *g)
{
    pool_destroy(g->own);
    g->own = NULL;
    if (gk_set_device(g->dev) != GK_OK)
        return;
    gk_free(g->d_keys);
    gk_free(g->d_alt);
    gk_free(g->d_scratch);
    gk_free(g->d_tmp);
    g->d_keys = g->d_alt = g->d_scratch = g->d_tmp = NULL;
    for (int i = 0; i < 2; i++) {
        gk_host_free(g->h_stage[i]);
        gk_stream_destroy(g->stream[i]);
        gk_event_destroy(g->staged[i]);
        g->h_stage[i] = NULL;
        g->stream[i] = NULL;
        g->staged[i] = NULL;
    }
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

static int gdev_init(gdev_t *g, int dev, int width, const size_arg_t *gpu_memory,
                     size_t want_keys)
{
    g->dev = dev;
    g->width = width;
    gk_device_t info;
    int gk = gk_device_info(dev, &info);
    if (gk)
        return cuda_fail(g, gk);
    snprintf(g->name, sizeof g->name, "%s", info.name);
    for (int i = 0; i < 2; i++) {
        if ((gk = gk_stream_create(&g->stream[i])) || (gk = gk_event_create(&g->staged[i])) ||
            (gk = gk_host_alloc(&g->h_stage[i], CUDA_STAGE_BYTES)))
            return cuda_fail(g, gk);
    }
    if ((gk = gk_malloc(&g->d_tmp, 16)))
        return cuda_fail(g, gk);
    /* Default: all but a tenth of what is free (the runtime and CUB want some). */
    size_t budget = (size_t)opt_size_bytes(gpu_memory, info.total_bytes,
                                           info.free_bytes / 10 * 9);
    if (budget > info.free_bytes)
        budget = info.free_bytes;
    size_t w = (size_t)width, a = cuda_alt_bytes(g->bitonic, width);
    if (want_keys && want_keys < budget / (w + a)) {
        /* No more than the input needs: the rest stays free for others (and an
         * input of 400 MB no longer takes 71 GB of an H100). */
        size_t scratch;
        if ((gk = (g->bitonic ? gk_bitonic_scratch : gk_radix_scratch)(want_keys, width,
                                                                        &scratch)))
            return cuda_fail(g, gk);
        /* An eighth to spare: gdev_buffers trims its keys by sixteenths until they
         * and the scratch fit, and a chunk of all the input must still fit. */
        size_t need = want_keys * (w + a) + want_keys * (w + a) / 8 + scratch +
                      ((size_t)16 << 20);
        if (need < budget)
            budget = need;
    }
    /* A --gpu-memory too small to work with is raised to the least that works. */
    size_t least = 2 * CUDA_MIN_KEYS * (size_t)width + ((size_t)64 << 20);
    if (budget < least)
        budget = least;
    return gdev_buffers(g, budget);
}

/* Page-lock buf for DMA (sorter.h): only once the devices are up, and only for one
 * device: several deal a chunk by key range into the scratch first, and stage that,
 * so pinning the chunk costs and saves nothing (on 2 H200s, 32 GiB of u32 with
 * --gpu-memory=8G pinned 22.6 GB in 2.6-3.3 s). A failure leaves buf as it was
 * (its parts are then staged): 0, no error. */
static int sorter_cuda_pin(sorter_t *s, void *buf, size_t bytes)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (c->ready != 1 || c->ndev > 1 || !buf || bytes == 0)
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
    for (int i = 0; i < c->npins; i++)
        if (c->pins[i].p == buf) {
            double t0 = stats_now();
            gk_host_unregister(buf);
            c->pin_s += stats_now() - t0;
            c->pins[i] = c->pins[--c->npins];
            break;
        }
    pthread_mutex_unlock(&c->pin_lock);
}

static void sorter_cuda_destroy(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    if (c->pending)
        pthread_join(c->setup_thread, NULL);   /* an error ended reading meanwhile */
    if (c->aside == 1)
        pthread_join(c->aside_thread, NULL);   /* an error ended reading meanwhile */
    pool_destroy(c->aside_pool);
    while (c->npins > 0)
        sorter_cuda_unpin(s, c->pins[0].p);
    pthread_mutex_destroy(&c->pin_lock);
    if (c->devs)
        for (int d = 0; d < c->ndev; d++)
            if (c->devs[d].stream[0] || c->devs[d].h_stage[0] || c->devs[d].d_keys)
                gdev_release(&c->devs[d]);
    if (c->cpu)
        c->cpu->destroy(c->cpu);
    free(c->devs);
    free(c->ids);
    free(c);
}

/* The devices' part of the set-up, on the set-up thread or on the caller's: with
 * --device=auto the count of devices (CUDA's start), then every device's streams,
 * staging and device buffers. On failure c->err and c->gk say why; nothing the
 * pipeline reads is touched. */
static int cuda_setup_devices(sorter_cuda_t *c)
{
    int rc = GS_OK;
    double t0 = stats_now();
    sigset_t old;
    cleanup_block_signals(&old);   /* CUDA's own threads start here: keep them out */
    if (c->ndev == 0) {
        int count = gk_device_count();
        for (int d = 0; d < count && d < OPT_MAX_DEVICES; d++)
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
    int share = c->ndev ? pool_size(c->pool) / c->ndev : 0;
    for (int d = 0; d < c->ndev && rc == GS_OK; d++) {
        gdev_t *g = &c->devs[d];
        g->owner = c;
        g->bitonic = c->bitonic;
        rc = gdev_init(g, c->ids[d], c->width, &c->gpu_memory, c->base.input_keys);
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
    cleanup_unblock(&old);
    c->setup_s = stats_now() - t0;
    return rc;
}

static void *cuda_setup_main(void *arg)
{
    sorter_cuda_t *c = arg;
    c->setup_rc = cuda_setup_devices(c);
    return NULL;
}

/* The name --stats shows: the algorithm and the devices, or "every GPU found" before
 * --device=auto has counted them. */
static void cuda_name(sorter_cuda_t *c)
{
    const char *algo = c->bitonic ? "bitonic" : "radix";
    if (c->ndev > 0)
        snprintf(c->name, sizeof c->name, "cuda %s, %d GPU%s", algo, c->ndev,
                 c->ndev > 1 ? "s" : "");
    else
        snprintf(c->name, sizeof c->name, "cuda %s, every GPU found", algo);
}

/* The set-up's outcome, on the pipeline's thread. No device, a device that cannot be
 * used, or one with too little memory even for small chunks sends the sort to the
 * CPU: silently with --device=auto, else with one note; any other failure is an
 * error. */
static int cuda_setup_finish(sorter_cuda_t *c, int rc)
{
    if (rc == GS_OK) {
        c->ready = 1;
        size_t cap = c->devs[0].cap;
        for (int i = 1; i < c->ndev; i++)
            cap = c->devs[i].cap < cap ? c->devs[i].cap : cap;
        /* Several devices: a sixteenth of slack, so that the buckets a chunk is dealt
         * into (chosen from a sample, so a little uneven) still fit their devices. */
        c->base.max_keys = cap * (size_t)c->ndev;
        if (c->ndev > 1)
            c->base.max_keys -= c->base.max_keys / 16;
        c->base.merge_by_sort = 1;
        cuda_name(c);
        return GS_OK;
    }
    if (c->gk != GK_ENODEV && c->gk != GK_ENOMEM)
        return err_set(rc, "%s", c->err);
    if (!c->quiet)
        fprintf(stderr, "gpusort: %s; sorting on the CPU\n", c->err);
    for (int i = 0; c->devs && i < c->ndev; i++)
        gdev_release(&c->devs[i]);
    c->ready = -1;
    c->base.max_keys = 0;
    return GS_OK;
}

/* Keys a chunk may take before the set-up is known to be done: three quarters of
 * what --gpu-memory given as a size holds as gdev_buffers shares it (the sort's
 * scratch takes a little of it), else CUDA_GUESS_KEYS; either for one device. A
 * guess too large costs a chunk sorted in parts, never a wrong result. */
static size_t cuda_guess_keys(const sorter_cuda_t *c)
{
    size_t w = (size_t)c->width, a = cuda_alt_bytes(c->bitonic, c->width);
    size_t keys = CUDA_GUESS_KEYS;
    if (c->gpu_memory.set && !c->gpu_memory.percent) {
        size_t k = (size_t)(c->gpu_memory.value / (w + a));
        k -= k / 4;
        if (k < keys)
            keys = k > CUDA_MIN_KEYS ? k : CUDA_MIN_KEYS;
    }
    return keys;
}

/* Begin the set-up on a thread of its own: CUDA's start and the buffers' allocation
 * (0.25 to 0.45 s on the H100) then overlap reading. Until setup() waits for it,
 * chunks are held to a guess of what the devices will take. Where no thread can be
 * had, the set-up is done here. */
static int sorter_cuda_setup_begin(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    s->setup_keys = 0;
    if (c->ready != 0 || c->pending)
        return GS_OK;
    if (cleanup_thread_create(&c->setup_thread, cuda_setup_main, c) != 0)
        return cuda_setup_finish(c, cuda_setup_devices(c));
    c->pending = 1;
    s->setup_wait_keys = cuda_guess_keys(c);
    return GS_OK;
}

/* Set every device up, or wait for the set-up begun in the background. */
static int sorter_cuda_setup(sorter_t *s)
{
    sorter_cuda_t *c = (sorter_cuda_t *)s;
    s->setup_keys = 0;
    s->setup_wait_keys = 0;
    if (c->pending) {
        double t0 = stats_now();
        pthread_join(c->setup_thread, NULL);
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

/* --stats: a line per device: chunks, bytes in and out, transfer and sort time. */
static void sorter_cuda_report(const sorter_t *s)
{
    const sorter_cuda_t *c = (const sorter_cuda_t *)s;
    if (c->ready <= 0) {
        if (c->ready < 0)
            fprintf(stderr, "gpusort: stats: gpus unused: %s; the CPU sorted\n", c->err);
        else
            fprintf(stderr, "gpusort: stats: gpus unused: every chunk was small enough for "
                    "the CPU\n");
        return;
    }
    fprintf(stderr, "gpusort: stats: gpus set up in %.3f s, %.3f s of it waited for\n",
            c->setup_s, c->wait_s);
    if (c->pinned_bytes)
        fprintf(stderr, "gpusort: stats: pinned %llu bytes of host memory for DMA, %.3f s "
                "with unpinning\n", c->pinned_bytes, c->pin_s);
    for (int d = 0; d < c->ndev; d++) {
        const gdev_t *g = &c->devs[d];
        fprintf(stderr, "gpusort: stats: gpu %d (%s): %llu chunks, %llu bytes in, %llu bytes "
                "out, transfer %.3f s, sort %.3f s, %zu keys a chunk\n", g->dev, g->name,
                g->chunks, g->bytes_in, g->bytes_out, g->xfer_s, g->sort_s, g->cap);
    }
}

int sorter_cuda_create(sorter_t **out, pool_t *pool, const int *devs, int ndev, int width,
                       algorithm_t algorithm, const size_arg_t *gpu_memory, size_t min_keys,
                       int quiet)
{
    sorter_cuda_t *c = calloc(1, sizeof *c);
    if (!c || !(c->ids = calloc(OPT_MAX_DEVICES, sizeof *c->ids))) {
        free(c);
        return err_set(GS_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&c->pin_lock, NULL);
    int rc = sorter_cpu_create(&c->cpu, pool);
    if (rc) {
        sorter_cuda_destroy(&c->base);
        return rc;
    }
    c->pool = pool;
    c->width = width;
    c->bitonic = algorithm == ALGO_BITONIC;
    c->ndev = ndev;
    c->quiet = quiet;
    c->min_keys = min_keys;
    c->gpu_memory = *gpu_memory;
    memcpy(c->ids, devs, sizeof *devs * (size_t)ndev);
    cuda_name(c);
    c->base.name = c->name;
    /* The devices are set up when a chunk first grows past min_keys (setup_keys),
     * in the background while reading goes on, or at the first large sort; max_keys
     * then bounds the chunks. */
    c->base.max_keys = 0;
    c->base.sort = sorter_cuda_sort;
    c->base.setup_keys = min_keys;
    c->base.setup = sorter_cuda_setup;
    c->base.setup_begin = sorter_cuda_setup_begin;
    c->base.sort_begin = sorter_cuda_sort_begin;
    c->base.sort_end = sorter_cuda_sort_end;
    c->base.pin = sorter_cuda_pin;
    c->base.unpin = sorter_cuda_unpin;
    c->base.destroy = sorter_cuda_destroy;
    c->base.report = sorter_cuda_report;
    *out = &c->base;
    return GS_OK;
}
