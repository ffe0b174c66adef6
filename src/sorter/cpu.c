/* SPDX-License-Identifier: MIT */
/* sorter_cpu.c: the CPU chunk sorter: a parallel radix sort, digits of up to 11 bits.
 *
 * One read pass first finds the bits that vary among the keys (the OR and the AND
 * of them all): the bits above the highest that varies and below the lowest are
 * never sorted on. One parallel MSD pass then scatters on the top 11 varying bits,
 * and each of its 2048 buckets is finished by LSD passes on the varying bits below:
 * a bucket that fits in a core's cache by one thread (the threads take buckets in
 * turn, each sorting through a buffer of its own that stays in its cache), a larger
 * one by all threads together, recursively. The MSD pass goes through small
 * per-bucket buffers of one cache line that are written out whole with streaming
 * stores (software write-combining): out of cache, scattering to 2048 places with
 * plain stores costs far more, most of it reading every destination line before
 * writing it.
 *
 * The MSD digit's counts are taken in the same read pass as the bits that vary,
 * on the digit that a sample of the keys foretells (its highest varying bit); only
 * where the whole disagrees is a second pass made over the keys to count.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/error.h"
#include "core/stats.h"
#include "core/tuning.h"
#include "sorter/backend.h"

/* The tuning (core/tuning.h): digits of RADIX_MIN_BITS to RADIX_MAX_BITS bits
 * (counters of 2^11 buckets and their line buffers stay in a core's second-level
 * cache; fewer bits would mean more passes); an MSD digit that leaves buckets of
 * about 2^RADIX_BUCKET_LOG keys (in the first-level cache); buckets of at most
 * RADIX_BUCKET_CACHE bytes finished by one thread in its cache; the parallel passes'
 * keys in RADIX_SLICES_A_THREAD slices for each thread, taken in turn, so that a
 * thread that shares its CPU holds a pass up by a slice at most. */
#define RADIX_MAX_BUCKETS (1 << RADIX_MAX_BITS)
/* The most LSD digits a sort makes: 64 bits in digits of RADIX_MIN_BITS. */
#define RADIX_MAX_DIGITS 8
/* The write-combining line, in bytes. */
#define RADIX_LINE 64
/* Most threads that take part in one parallel pass (more are left idle). */
#define RADIX_MAX_THREADS 256
#define RADIX_MAX_SLICES (RADIX_MAX_THREADS * RADIX_SLICES_A_THREAD)

_Static_assert(RADIX_MAX_DIGITS * RADIX_MIN_BITS >= 64, "the LSD digits cover 64 bits");
_Static_assert(RADIX_BUCKET_CACHE / 4 <= UINT32_MAX, "in-cache counts fit 32 bits");

/* ---- in cache: LSD passes by one thread ------------------------------------------- */

/* floor(log2(n)) for n >= 1. */
static inline int radix_log2(size_t n)
{
    return 63 - __builtin_clzll((unsigned long long)n);
}

/* Count nd digits of db bits (from bit lo) of keys[0..n) into hist[d * nb + digit];
 * inlined with constant width and nd, so the loop over digits unrolls. */
static inline __attribute__((always_inline)) void
radix_hist_digits(const void *keys, size_t n, int lo, int db, uint64_t dmask, size_t nb,
                  uint32_t *hist, int width, int nd)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
        v >>= lo;
        for (int d = 0; d < nd; d++)
            hist[(size_t)d * nb + ((v >> (d * db)) & dmask)]++;
    }
}

/* radix_hist_digits with a constant count for one, two or three digits (all of
 * u32's, most buckets' after the MSD pass): the general loop over digits costs twice
 * as much. */
static inline __attribute__((always_inline)) void
radix_hist(const void *keys, size_t n, int lo, int db, uint64_t dmask, size_t nb,
           uint32_t *hist, int width, int nd)
{
    switch (nd) {
    case 1: radix_hist_digits(keys, n, lo, db, dmask, nb, hist, width, 1); break;
    case 2: radix_hist_digits(keys, n, lo, db, dmask, nb, hist, width, 2); break;
    case 3: radix_hist_digits(keys, n, lo, db, dmask, nb, hist, width, 3); break;
    default: radix_hist_digits(keys, n, lo, db, dmask, nb, hist, width, nd); break;
    }
}

/* Sort keys[0..n) (width 4 or 8) on bits [lo, hi) by LSD passes of equal digits of
 * 8 to 11 bits (fewer for fewer keys: the counters cost a pass of their own), using tmp (room for n keys); hist has room for RADIX_MAX_DIGITS *
 * RADIX_MAX_BUCKETS counters. A digit the same in every key is skipped. Returns the
 * buffer that holds the result. n must fit 32 bits. */
static inline void *radix_lsd_width(void *keys, void *tmp, size_t n, int lo, int hi,
                                    uint32_t *hist, int width)
{
    int bits = hi - lo;
    if (bits <= 0 || n < 2)
        return keys;
    int maxb = radix_log2(n) - 1;
    maxb = maxb < RADIX_MIN_BITS ? RADIX_MIN_BITS : maxb > RADIX_MAX_BITS ? RADIX_MAX_BITS : maxb;
    int nd = (bits + maxb - 1) / maxb;
    int db = (bits + nd - 1) / nd;
    uint64_t dmask = ((uint64_t)1 << db) - 1;
    size_t nb = (size_t)1 << db;
    memset(hist, 0, sizeof *hist * nb * (size_t)nd);
    if (width == 4)
        radix_hist(keys, n, lo, db, dmask, nb, hist, 4, nd);
    else
        radix_hist(keys, n, lo, db, dmask, nb, hist, 8, nd);
    void *src = keys, *dst = tmp;
    for (int d = 0; d < nd; d++) {
        uint32_t *h = hist + (size_t)d * nb;
        uint32_t run = 0;
        int trivial = 0;
        for (size_t b = 0; b < nb; b++) {
            uint32_t c = h[b];
            trivial |= (c == n);
            h[b] = run;
            run += c;
        }
        if (trivial)
            continue;
        int shift = lo + d * db;
        if (width == 4) {
            const uint32_t *s = src;
            uint32_t *o = dst;
            for (size_t i = 0; i < n; i++) {
                uint32_t v = s[i];
                o[h[(v >> shift) & dmask]++] = v;
            }
        } else {
            const uint64_t *s = src;
            uint64_t *o = dst;
            for (size_t i = 0; i < n; i++) {
                uint64_t v = s[i];
                o[h[(v >> shift) & dmask]++] = v;
            }
        }
        void *t = src;
        src = dst;
        dst = t;
    }
    return src;
}

static void *radix_lsd(void *keys, void *tmp, size_t n, int lo, int hi, uint32_t *hist,
                       int width)
{
    if (width == 4)
        return radix_lsd_width(keys, tmp, n, lo, hi, hist, 4);
    return radix_lsd_width(keys, tmp, n, lo, hi, hist, 8);
}

/* ---- the parallel MSD pass --------------------------------------------------------- */

typedef struct {
    const void *src;
    void *dst;
    size_t n;
    int width;
    int threads;             /* threads that take part */
    int slices;              /* the keys' slices, taken in turn */
    int next;                /* the next slice to take (atomic) */
    int shift, bits;         /* the MSD digit: bits [shift, shift + bits); before the
                                census pass, the digit it counts (bits 0: none) */
    uint64_t or_[RADIX_MAX_SLICES], and_[RADIX_MAX_SLICES];   /* per slice */
    size_t *hist;            /* [slices][buckets]: counts, then scatter offsets */
    size_t *start;           /* [buckets + 1]: where each bucket starts in dst */
    int failed;              /* 1: a thread could not allocate its line buffers */
} radix_job_t;

static void radix_slice(const radix_job_t *j, int s, size_t *lo, size_t *hi)
{
    *lo = j->n * (size_t)s / (size_t)j->slices;
    *hi = j->n * (size_t)(s + 1) / (size_t)j->slices;
}

/* The next slice for a thread to take, or j->slices when none is left. */
static int radix_take(radix_job_t *j)
{
    int s = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    return s < j->slices ? s : j->slices;
}

/* The OR and the AND of keys[lo..hi), and where h is not NULL the counts of the
 * digit (v >> shift) & m into h (zeroed by the caller). Inlined with a constant
 * width and a constant choice of counting. */
static inline __attribute__((always_inline)) void
radix_census_width(const void *keys, size_t lo, size_t hi, int shift, uint64_t m, size_t *h,
                   uint64_t *or_, uint64_t *and_, int width, int count)
{
    uint64_t o = 0, a = ~(uint64_t)0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
        o |= v;
        a &= v;
        if (count)
            h[(v >> shift) & m]++;
    }
    *or_ = o;
    *and_ = width == 4 ? a & UINT32_MAX : a;
}

/* The census of the slices a thread takes: each one's OR and AND, and the counts of
 * the digit j->shift, j->bits where bits is not 0. */
static void radix_census(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    radix_job_t *j = arg;
    size_t nb = (size_t)1 << j->bits;
    uint64_t m = nb - 1;
    for (int s; (s = radix_take(j)) < j->slices;) {
        size_t lo, hi;
        radix_slice(j, s, &lo, &hi);
        size_t *h = j->bits ? j->hist + (size_t)s * nb : NULL;
        uint64_t *o = &j->or_[s], *a = &j->and_[s];
        if (h)
            memset(h, 0, sizeof *h * nb);
        if (j->width == 4 && h)
            radix_census_width(j->src, lo, hi, j->shift, m, h, o, a, 4, 1);
        else if (j->width == 4)
            radix_census_width(j->src, lo, hi, 0, 0, NULL, o, a, 4, 0);
        else if (h)
            radix_census_width(j->src, lo, hi, j->shift, m, h, o, a, 8, 1);
        else
            radix_census_width(j->src, lo, hi, 0, 0, NULL, o, a, 8, 0);
    }
}

/* Write one full line from the buffer to dst (line-aligned) with streaming stores. */
static inline void radix_stream_line(void *dst, const void *line)
{
#ifdef __SSE2__
    const __m128i *s = line;
    __m128i *d = dst;
    _mm_stream_si128(d, s[0]);
    _mm_stream_si128(d + 1, s[1]);
    _mm_stream_si128(d + 2, s[2]);
    _mm_stream_si128(d + 3, s[3]);
#else
    memcpy(dst, line, RADIX_LINE);
#endif
}

/* Scatter src[lo..hi) to dst by the digit (v >> shift) & m; off[b] is where the
 * thread's next key of bucket b goes, beg[b] where its keys of b start. Keys wait in
 * a line buffer per bucket, kept at the slot their destination has in its cache
 * line; a buffer whose line fills is streamed out whole, unless the line starts
 * before the thread's part of the bucket (another thread's, or another bucket's, keys
 * are there): then only the thread's own keys are stored. What is left in the
 * buffers at the end is stored the same way. */
static inline __attribute__((always_inline)) void
radix_scatter_width(const void *src, void *dst, size_t lo, size_t hi, int shift, uint64_t m,
                    size_t *off, const size_t *beg, unsigned char *lines, int width)
{
    const size_t per = RADIX_LINE / (size_t)width;   /* keys a line */
    char *d0 = dst;
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = width == 4 ? ((const uint32_t *)src)[i] : ((const uint64_t *)src)[i];
        size_t b = (size_t)((v >> shift) & m);
        size_t o = off[b]++;
        char *d = d0 + o * (size_t)width;
        size_t slot = ((uintptr_t)d & (RADIX_LINE - 1)) / (size_t)width;
        unsigned char *line = lines + b * RADIX_LINE;
        if (width == 4)
            memcpy(line + slot * 4, &(uint32_t){ (uint32_t)v }, 4);
        else
            memcpy(line + slot * 8, &v, 8);
        if (slot == per - 1) {
            char *ls = d - slot * (size_t)width;
            if (ls >= d0 + beg[b] * (size_t)width) {
                radix_stream_line(ls, line);
            } else {
                size_t mine = o + 1 - beg[b];
                memcpy(d0 + beg[b] * (size_t)width, line + (per - mine) * (size_t)width,
                       mine * (size_t)width);
            }
        }
    }
    for (size_t b = 0; b <= m; b++) {
        size_t e = off[b];
        if (e == beg[b])
            continue;
        size_t slot = ((uintptr_t)(d0 + e * (size_t)width) & (RADIX_LINE - 1)) / (size_t)width;
        size_t k = slot < e - beg[b] ? slot : e - beg[b];
        memcpy(d0 + (e - k) * (size_t)width, lines + b * RADIX_LINE + (slot - k) * (size_t)width,
               k * (size_t)width);
    }
#ifdef __SSE2__
    _mm_sfence();   /* the streamed lines are seen before the pool reports done */
#endif
}

/* Scatter the slices a thread takes, each by its own offsets (its row of hist). */
static void radix_scatter(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    radix_job_t *j = arg;
    size_t nb = (size_t)1 << j->bits;
    size_t *beg = malloc(sizeof *beg * nb);
    unsigned char *lines = aligned_alloc(RADIX_LINE, RADIX_LINE * nb);
    if (!beg || !lines) {
        j->failed = 1;
        free(beg);
        free(lines);
        return;
    }
    for (int s; (s = radix_take(j)) < j->slices;) {
        size_t lo, hi;
        radix_slice(j, s, &lo, &hi);
        size_t *off = j->hist + (size_t)s * nb;
        memcpy(beg, off, sizeof *beg * nb);
        if (j->width == 4)
            radix_scatter_width(j->src, j->dst, lo, hi, j->shift, nb - 1, off, beg, lines, 4);
        else
            radix_scatter_width(j->src, j->dst, lo, hi, j->shift, nb - 1, off, beg, lines, 8);
    }
    free(beg);
    free(lines);
}

/* Run a parallel pass: its slices taken in turn by the pool's threads, or all by
 * this one. */
static void radix_run(pool_t *pool, radix_job_t *j, pool_fn_t fn)
{
    j->next = 0;
    if (j->threads == 1)
        fn(j, 0, 1);
    else
        pool_run(pool, fn, j);
}

/* ---- buckets after the MSD pass ---------------------------------------------------- */

typedef struct {
    char *tmp;               /* after the MSD pass the buckets are in tmp */
    const size_t *start;     /* bucket b is [start[b], start[b+1]) */
    size_t nb;               /* buckets */
    int width;
    int lo, hi;              /* the bits left to sort: [lo, hi) */
    int next;                /* the next bucket to take (atomic) */
    int failed;              /* 1: a thread could not allocate its counters or buffer */
} msd_job_t;

/* The buckets that fit the cache, each by one thread, left in tmp. Each thread
 * sorts through a buffer of its own, which stays in its cache from one bucket to
 * the next: the chunk's other buffer, used instead, would be read from memory
 * before each line is written, and written back after. */
static void msd_small_buckets(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    msd_job_t *m = arg;
    uint32_t *hist = malloc(sizeof *hist * RADIX_MAX_DIGITS * RADIX_MAX_BUCKETS);
    char *own = aligned_alloc(RADIX_LINE, RADIX_BUCKET_CACHE);
    if (!hist || !own) {
        m->failed = 1;
        free(hist);
        free(own);
        return;
    }
    size_t w = (size_t)m->width;
    for (;;) {
        size_t b = (size_t)__atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
        if (b >= m->nb)
            break;
        size_t lo = m->start[b], n = m->start[b + 1] - lo;
        if (n < 2 || n * w > RADIX_BUCKET_CACHE)
            continue;
        void *res = radix_lsd(m->tmp + lo * w, own, n, m->lo, m->hi, hist, m->width);
        if (res != m->tmp + lo * w)
            memcpy(m->tmp + lo * w, res, n * w);
    }
    free(hist);
    free(own);
}

/* ---- the sort ------------------------------------------------------------------------ */

/* The varying bits of a sample of keys[0..n): RADIX_SAMPLE keys evenly spaced. */
static uint64_t radix_sample_diff(const void *keys, size_t n, int width)
{
    uint64_t o = 0, a = ~(uint64_t)0;
    for (size_t s = 0; s < RADIX_SAMPLE; s++) {
        size_t i = n / RADIX_SAMPLE * s;
        uint64_t v = width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
        o |= v;
        a &= v;
    }
    return o ^ a;
}

void *radix_sort_cpu(pool_t *pool, void *keys, void *tmp, size_t n, int width)
{
    return radix_sort_cpu_from(pool, keys, tmp, n, width, 0);
}

void *radix_sort_cpu_from(pool_t *pool, void *keys, void *tmp, size_t n, int width, int from)
{
    if (n < 2)
        return keys;
    /* Bits below from are never sorted on, as bits that do not vary are not: each
     * pass is stable, so keys that agree above them keep their order. */
    uint64_t above = from >= 64 ? 0 : ~(uint64_t)0 << from;
    radix_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    *j = (radix_job_t){ .src = keys, .dst = tmp, .n = n, .width = width };
    j->threads = n < RADIX_PARALLEL_MIN ? 1 : pool_size(pool);
    if (j->threads > RADIX_MAX_THREADS)
        j->threads = RADIX_MAX_THREADS;
    j->slices = j->threads > 1 ? j->threads * RADIX_SLICES_A_THREAD : 1;
    void *res = NULL;
    /* The MSD digit's width: buckets of about 2^RADIX_BUCKET_LOG keys. */
    int mb = radix_log2(n) - RADIX_BUCKET_LOG;
    mb = mb < 1 ? 1 : mb > RADIX_MAX_BITS ? RADIX_MAX_BITS : mb;
    int big = (size_t)width * n > RADIX_BUCKET_CACHE;
    if (big) {
        j->hist = malloc(sizeof *j->hist * ((size_t)1 << mb) * (size_t)j->slices);
        j->start = malloc(sizeof *j->start * (((size_t)1 << mb) + 1));
        if (!j->hist || !j->start)
            goto out;
        /* Count, in the census pass, the digit the sample foretells: the top mb
         * bits under its highest varying bit. */
        uint64_t sd = radix_sample_diff(keys, n, width) & above;
        if (sd && 64 - __builtin_clzll(sd) - __builtin_ctzll(sd) >= mb) {
            j->bits = mb;
            j->shift = 64 - __builtin_clzll(sd) - mb;
        }
    }
    int counted_shift = j->shift, counted_bits = j->bits;
    radix_run(pool, j, radix_census);
    uint64_t o = 0, a = ~(uint64_t)0;
    for (int s = 0; s < j->slices; s++) {
        o |= j->or_[s];
        a &= j->and_[s];
    }
    uint64_t diff = (o ^ a) & above;   /* the bits that vary, and are sorted on */
    if (diff == 0) {
        res = keys;
        goto out;
    }
    int hi = 64 - __builtin_clzll(diff), lo = __builtin_ctzll(diff);
    if (!big) {
        uint32_t *hist = malloc(sizeof *hist * RADIX_MAX_DIGITS * RADIX_MAX_BUCKETS);
        if (hist)
            res = radix_lsd(keys, tmp, n, lo, hi, hist, width);
        free(hist);
        goto out;
    }
    /* One parallel MSD pass on the top varying bits, keys -> tmp; counted again
     * only where the sample foretold another digit. */
    j->bits = hi - lo < mb ? hi - lo : mb;
    j->shift = hi - j->bits;
    if (j->bits != counted_bits || j->shift != counted_shift)
        radix_run(pool, j, radix_census);   /* the OR and AND again, the same */
    size_t nb = (size_t)1 << j->bits;
    size_t run = 0;
    for (size_t b = 0; b < nb; b++) {
        j->start[b] = run;
        for (int s = 0; s < j->slices; s++) {
            size_t c = j->hist[(size_t)s * nb + b];
            j->hist[(size_t)s * nb + b] = run;
            run += c;
        }
    }
    j->start[nb] = n;
    radix_run(pool, j, radix_scatter);
    if (j->failed)
        goto out;
    if (j->shift > lo) {
        /* Large buckets one at a time with every thread, then the small ones with
         * one thread each. */
        size_t w = (size_t)width;
        for (size_t b = 0; b < nb; b++) {
            size_t blo = j->start[b], bn = j->start[b + 1] - blo;
            if (bn * w <= RADIX_BUCKET_CACHE)
                continue;
            char *bk = (char *)tmp + blo * w;
            void *r = radix_sort_cpu_from(pool, bk, (char *)keys + blo * w, bn, width, from);
            if (!r)
                goto out;
            if (r != bk)
                memcpy(bk, r, bn * w);
        }
        msd_job_t m = { .tmp = tmp, .start = j->start, .nb = nb, .width = width,
                        .lo = lo, .hi = j->shift };
        if (j->threads == 1)
            msd_small_buckets(&m, 0, 1);
        else
            pool_run(pool, msd_small_buckets, &m);
        if (m.failed)
            goto out;
    }
    res = tmp;
out:
    free(j->hist);
    free(j->start);
    free(j);
    return res;
}

/* ---- the backend -------------------------------------------------------------------- */

typedef struct {
    sorter_t base;
    pool_t *pool;
} sorter_cpu_t;

static int sorter_cpu_sort(sorter_t *s, sort_job_t *job)
{
    sorter_cpu_t *c = (sorter_cpu_t *)s;
    double t0 = stats_now();
    void *res = radix_sort_cpu(c->pool, job->keys, job->scratch, job->n, job->width);
    if (!res)
        return err_set(GS_ENOMEM, "out of memory");
    job->in_scratch = res == job->scratch && res != job->keys;
    stats_add(ST_SORT, (uint64_t)job->n * (uint64_t)job->width, stats_now() - t0);
    return GS_OK;
}

static void sorter_cpu_destroy(sorter_t *s)
{
    free(s);
}

static const sorter_ops_t sorter_cpu_ops = {
    .sort = sorter_cpu_sort,
    .destroy = sorter_cpu_destroy,
};

int sorter_cpu_create(sorter_t **out, pool_t *pool)
{
    sorter_cpu_t *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(GS_ENOMEM, "out of memory");
    c->base.ops = &sorter_cpu_ops;
    c->base.name = "cpu radix";
    c->pool = pool;
    *out = &c->base;
    return GS_OK;
}
