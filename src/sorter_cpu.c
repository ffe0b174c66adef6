/* sorter_cpu.c: the CPU chunk sorter: a parallel radix sort, 8-bit digits.
 *
 * One read pass first counts every digit of every key (per thread), which tells
 * which digits are the same in all keys: those are never sorted on. Then one
 * parallel MSD pass scatters on the most significant digit that varies, and each
 * of its 256 buckets is finished by LSD passes on the lower digits: a bucket that
 * fits in a core's cache by one thread (the threads take buckets in turn), a larger
 * one by all threads together, recursively. An LSD pass counts its digit per thread
 * over the thread's slice, turns the counts into per-thread offsets and scatters;
 * it is stable, so the passes compose.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sorter.h"
#include "stats.h"

#define RADIX_BITS 8
#define RADIX_BUCKETS (1 << RADIX_BITS)
/* Below this many keys one thread sorts: the hand-offs would cost more. */
#define RADIX_PARALLEL_MIN (1u << 16)

typedef size_t hist_t[RADIX_BUCKETS];

typedef struct {
    const void *src;
    void *dst;
    size_t n;
    int width;
    int threads;             /* threads that take part (others return at once) */
    int digit;               /* the digit of this pass (0 = least significant) */
    hist_t *hist;            /* [threads * ndigits]: counts per thread and digit */
    hist_t *offs;            /* [threads]: scatter offsets per thread */
} radix_job_t;

static void radix_slice(const radix_job_t *j, int t, size_t *lo, size_t *hi)
{
    *lo = j->n * (size_t)t / (size_t)j->threads;
    *hi = j->n * (size_t)(t + 1) / (size_t)j->threads;
}

/* Count every digit of the thread's slice. */
static void radix_count_all(void *arg, int t, int nt)
{
    (void)nt;
    radix_job_t *j = arg;
    if (t >= j->threads)
        return;
    size_t lo, hi;
    radix_slice(j, t, &lo, &hi);
    int nd = j->width;
    hist_t *h = j->hist + (size_t)t * nd;
    memset(h, 0, sizeof(hist_t) * nd);
    if (j->width == 4) {
        const uint32_t *k = j->src;
        for (size_t i = lo; i < hi; i++) {
            uint32_t v = k[i];
            h[0][v & 0xFF]++;
            h[1][(v >> 8) & 0xFF]++;
            h[2][(v >> 16) & 0xFF]++;
            h[3][v >> 24]++;
        }
    } else {
        const uint64_t *k = j->src;
        for (size_t i = lo; i < hi; i++) {
            uint64_t v = k[i];
            for (int d = 0; d < 8; d++)
                h[d][(v >> (8 * d)) & 0xFF]++;
        }
    }
}

/* Count one digit of the thread's slice. */
static void radix_count_one(void *arg, int t, int nt)
{
    (void)nt;
    radix_job_t *j = arg;
    if (t >= j->threads)
        return;
    size_t lo, hi;
    radix_slice(j, t, &lo, &hi);
    size_t *h = j->hist[(size_t)t * j->width + j->digit];
    memset(h, 0, sizeof(hist_t));
    int shift = 8 * j->digit;
    if (j->width == 4) {
        const uint32_t *k = j->src;
        for (size_t i = lo; i < hi; i++)
            h[(k[i] >> shift) & 0xFF]++;
    } else {
        const uint64_t *k = j->src;
        for (size_t i = lo; i < hi; i++)
            h[(k[i] >> shift) & 0xFF]++;
    }
}

/* Scatter the thread's slice by the pass's digit. */
static void radix_scatter(void *arg, int t, int nt)
{
    (void)nt;
    radix_job_t *j = arg;
    if (t >= j->threads)
        return;
    size_t lo, hi;
    radix_slice(j, t, &lo, &hi);
    size_t *o = j->offs[t];
    int shift = 8 * j->digit;
    if (j->width == 4) {
        const uint32_t *s = j->src;
        uint32_t *d = j->dst;
        for (size_t i = lo; i < hi; i++) {
            uint32_t v = s[i];
            d[o[(v >> shift) & 0xFF]++] = v;
        }
    } else {
        const uint64_t *s = j->src;
        uint64_t *d = j->dst;
        for (size_t i = lo; i < hi; i++) {
            uint64_t v = s[i];
            d[o[(v >> shift) & 0xFF]++] = v;
        }
    }
}

/* 1 if one bucket of digit d holds every key (the pass would change nothing). */
static int radix_trivial(const radix_job_t *j, int d)
{
    for (int b = 0; b < RADIX_BUCKETS; b++) {
        size_t sum = 0;
        for (int t = 0; t < j->threads; t++)
            sum += j->hist[(size_t)t * j->width + d][b];
        if (sum == j->n)
            return 1;
        if (sum)
            return 0;
    }
    return 0;
}

static void radix_run(pool_t *pool, radix_job_t *j, pool_fn_t fn)
{
    if (j->threads == 1)
        fn(j, 0, 1);
    else
        pool_run(pool, fn, j);
}

/* Per-thread scatter offsets for digit d: bucket by bucket, thread by thread. */
static void radix_offsets(radix_job_t *j, int d)
{
    size_t run = 0;
    for (int b = 0; b < RADIX_BUCKETS; b++) {
        for (int t = 0; t < j->threads; t++) {
            j->offs[t][b] = run;
            run += j->hist[(size_t)t * j->width + d][b];
        }
    }
}

/* LSD passes over digits [0, ndigits) of j->src, whose counts for every digit are
 * in j->hist (fresh). Returns the buffer that holds the result. */
static void *radix_lsd(pool_t *pool, radix_job_t *j, int ndigits)
{
    int fresh = 1;   /* the counts in hist are those of the current src */
    for (int d = 0; d < ndigits; d++) {
        if (radix_trivial(j, d))
            continue;
        j->digit = d;
        if (!fresh)
            radix_run(pool, j, radix_count_one);
        radix_offsets(j, d);
        radix_run(pool, j, radix_scatter);
        const void *s = j->src;
        j->src = j->dst;
        j->dst = (void *)s;
        fresh = 0;
    }
    return (void *)j->src;
}

/* ---- MSD first, then LSD inside the cache -------------------------------------------- */

/* Buckets of at most this many bytes are sorted by one thread, in its cache. */
#define RADIX_BUCKET_CACHE (1u << 20)

typedef struct {
    pool_t *pool;
    char *keys, *tmp;        /* after the MSD pass the buckets are in tmp */
    size_t start[RADIX_BUCKETS + 1];   /* bucket b is [start[b], start[b+1]) */
    int width;
    int digits;              /* LSD digits below the MSD digit */
    volatile int next;       /* the next small bucket to take (atomic) */
    int failed;              /* 1: a thread could not allocate its counters */
} msd_job_t;

/* Sort bucket b (in tmp) on the low digits with one thread; leave it in tmp. */
static int msd_sort_bucket(msd_job_t *m, int b, hist_t *hist, hist_t *offs)
{
    size_t lo = m->start[b], n = m->start[b + 1] - lo, w = (size_t)m->width;
    if (n < 2)
        return 0;
    radix_job_t j = { .src = m->tmp + lo * w, .dst = m->keys + lo * w, .n = n,
                      .width = m->width, .threads = 1, .hist = hist, .offs = offs };
    radix_count_all(&j, 0, 1);
    void *res = radix_lsd(NULL, &j, m->digits);
    if (res != m->tmp + lo * w)
        memcpy(m->tmp + lo * w, res, n * w);
    return 0;
}

static void msd_small_buckets(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    msd_job_t *m = arg;
    hist_t *hist = malloc(sizeof(hist_t) * (size_t)m->width);
    hist_t *offs = malloc(sizeof(hist_t));
    if (!hist || !offs) {
        m->failed = 1;
    } else {
        for (;;) {
            int b = __atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
            if (b >= RADIX_BUCKETS)
                break;
            if ((m->start[b + 1] - m->start[b]) * (size_t)m->width <= RADIX_BUCKET_CACHE)
                msd_sort_bucket(m, b, hist, offs);
        }
    }
    free(hist);
    free(offs);
}

void *radix_sort_cpu(pool_t *pool, void *keys, void *tmp, size_t n, int width)
{
    if (n < 2)
        return keys;
    radix_job_t j = { .src = keys, .dst = tmp, .n = n, .width = width };
    j.threads = n < RADIX_PARALLEL_MIN ? 1 : pool_size(pool);
    j.hist = malloc(sizeof(hist_t) * (size_t)j.threads * (size_t)width);
    j.offs = malloc(sizeof(hist_t) * (size_t)j.threads);
    void *res = NULL;
    if (!j.hist || !j.offs)
        goto out;
    radix_run(pool, &j, radix_count_all);
    if ((size_t)width * n <= RADIX_BUCKET_CACHE) {
        res = radix_lsd(pool, &j, width);
        goto out;
    }
    /* The most significant digit that is not the same in every key. */
    int top = width - 1;
    while (top >= 0 && radix_trivial(&j, top))
        top--;
    if (top < 0) {
        res = keys;
        goto out;
    }
    /* One parallel MSD pass on digit top, keys -> tmp. */
    msd_job_t m = { .pool = pool, .keys = keys, .tmp = tmp, .width = width, .digits = top };
    j.digit = top;
    radix_offsets(&j, top);
    for (int b = 0; b < RADIX_BUCKETS; b++)   /* thread 0's offset: the bucket's start */
        m.start[b] = j.offs[0][b];
    m.start[RADIX_BUCKETS] = n;
    radix_run(pool, &j, radix_scatter);
    if (top > 0) {
        /* Large buckets one at a time with every thread, then the small ones with
         * one thread each. */
        for (int b = 0; b < RADIX_BUCKETS; b++) {
            size_t lo = m.start[b], bn = m.start[b + 1] - lo;
            if (bn * (size_t)width <= RADIX_BUCKET_CACHE)
                continue;
            char *bk = (char *)tmp + lo * (size_t)width;
            void *r = radix_sort_cpu(pool, bk, (char *)keys + lo * (size_t)width, bn, width);
            if (!r)
                goto out;
            if (r != bk)
                memcpy(bk, r, bn * (size_t)width);
        }
        if (j.threads == 1)
            msd_small_buckets(&m, 0, 1);
        else
            pool_run(pool, msd_small_buckets, &m);
        if (m.failed)
            goto out;
    }
    res = tmp;
out:
    free(j.hist);
    free(j.offs);
    return res;
}

/* ---- the sorter_t wrapper ------------------------------------------------------------ */

typedef struct {
    sorter_t base;
    pool_t *pool;
} sorter_cpu_t;

static int sorter_cpu_sort(sorter_t *s, void *keys, void *scratch, size_t n, int width,
                           void **out)
{
    sorter_cpu_t *c = (sorter_cpu_t *)s;
    double t0 = stats_now();
    void *res = radix_sort_cpu(c->pool, keys, scratch, n, width);
    if (!res)
        return err_set(GS_ENOMEM, "out of memory");
    *out = res;
    stats_add(ST_SORT, (uint64_t)n * (uint64_t)width, stats_now() - t0);
    return GS_OK;
}

static void sorter_cpu_destroy(sorter_t *s)
{
    free(s);
}

int sorter_cpu_create(sorter_t **out, pool_t *pool)
{
    sorter_cpu_t *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(GS_ENOMEM, "out of memory");
    c->base.name = "cpu radix";
    c->base.sort = sorter_cpu_sort;
    c->base.destroy = sorter_cpu_destroy;
    c->pool = pool;
    *out = &c->base;
    return GS_OK;
}
