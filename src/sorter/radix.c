/* SPDX-License-Identifier: MIT */
/* radix.c: the CPU's radix sort (see sorter.h): keys of 4 or 8 bytes, with or without
 * a 64-bit value beside each (a record's line, say), stably, in parallel; digits of
 * up to 11 bits. The one sort of keys on the CPU: the chunk sorter's (cpu.c), the
 * records' packed words and their pairs of a wide word and a line (records/order.c,
 * records/ties.c).
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
 * writing it. Values move with their keys, through buffers of their own.
 *
 * The MSD digit's counts are taken in the same read pass as the bits that vary,
 * on the digit that a sample of the keys foretells (its highest varying bit); only
 * where the whole disagrees is a second pass made over the keys to count. A few keys
 * (a run of equal words, ties.c) are sorted by insertion; a bucket's worth by one
 * thread, its counters on its stack where the digits are small.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sorter/radix_impl.h"
#include "sorter/sorter.h"

/* ---- the parallel MSD pass --------------------------------------------------------- */

typedef struct {
    const void *src;
    void *dst;
    const uint64_t *vsrc;    /* the values beside src, or NULL; */
    uint64_t *vdst;          /*   and beside dst */
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
        uint64_t v = radix_key(keys, i, width);
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

/* Element o of d0 (w bytes each, the bucket's part of the thread from beg on) is
 * *x: it waits in the bucket's line buffer at the slot its destination has in its
 * cache line; a buffer whose line fills is streamed out whole, unless the line
 * starts before the thread's part of the bucket (another thread's, or another
 * bucket's, elements are there): then only the thread's own are stored. */
static inline __attribute__((always_inline)) void
radix_wc_put(char *d0, unsigned char *line, size_t o, size_t beg, const void *x, size_t w)
{
    const size_t per = RADIX_LINE / w;
    char *d = d0 + o * w;
    size_t slot = ((uintptr_t)d & (RADIX_LINE - 1)) / w;
    memcpy(line + slot * w, x, w);
    if (slot == per - 1) {
        char *ls = d - slot * w;
        if (ls >= d0 + beg * w) {
            radix_stream_line(ls, line);
        } else {
            size_t mine = o + 1 - beg;
            memcpy(d0 + beg * w, line + (per - mine) * w, mine * w);
        }
    }
}

/* What is left in a bucket's line buffer, its elements [beg, e) of d0, stored as
 * radix_wc_put() stores a line that starts before the thread's part. */
static inline __attribute__((always_inline)) void
radix_wc_end(char *d0, const unsigned char *line, size_t beg, size_t e, size_t w)
{
    if (e == beg)
        return;
    size_t slot = ((uintptr_t)(d0 + e * w) & (RADIX_LINE - 1)) / w;
    size_t k = slot < e - beg ? slot : e - beg;
    memcpy(d0 + (e - k) * w, line + (slot - k) * w, k * w);
}

/* Scatter src[lo..hi) (and vsrc's values, where not NULL) to dst by the digit
 * (v >> shift) & m; off[b] is where the thread's next key of bucket b goes, beg[b]
 * where its keys of b start; lines and vlines the buckets' line buffers. */
static inline __attribute__((always_inline)) void
radix_scatter_width(const void *src, void *dst, const uint64_t *vsrc, uint64_t *vdst, size_t lo,
                    size_t hi, int shift, uint64_t m, size_t *off, const size_t *beg,
                    unsigned char *lines, unsigned char *vlines, int width)
{
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = radix_key(src, i, width);
        size_t b = (size_t)((v >> shift) & m);
        size_t o = off[b]++;
        if (width == 4)
            radix_wc_put(dst, lines + b * RADIX_LINE, o, beg[b], &(uint32_t){ (uint32_t)v }, 4);
        else
            radix_wc_put(dst, lines + b * RADIX_LINE, o, beg[b], &v, 8);
        if (vsrc)
            radix_wc_put((char *)vdst, vlines + b * RADIX_LINE, o, beg[b], &vsrc[i], RADIX_VAL);
    }
    for (size_t b = 0; b <= m; b++) {
        radix_wc_end(dst, lines + b * RADIX_LINE, beg[b], off[b], (size_t)width);
        if (vsrc)
            radix_wc_end((char *)vdst, vlines + b * RADIX_LINE, beg[b], off[b], RADIX_VAL);
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
    unsigned char *lines = aligned_alloc(RADIX_LINE, RADIX_LINE * nb * (j->vsrc ? 2 : 1));
    if (!beg || !lines) {
        j->failed = 1;
        free(beg);
        free(lines);
        return;
    }
    unsigned char *vlines = lines + RADIX_LINE * nb;
    for (int s; (s = radix_take(j)) < j->slices;) {
        size_t lo, hi;
        radix_slice(j, s, &lo, &hi);
        size_t *off = j->hist + (size_t)s * nb;
        memcpy(beg, off, sizeof *beg * nb);
        if (j->width == 4 && j->vsrc)
            radix_scatter_width(j->src, j->dst, j->vsrc, j->vdst, lo, hi, j->shift, nb - 1, off,
                                beg, lines, vlines, 4);
        else if (j->width == 4)
            radix_scatter_width(j->src, j->dst, NULL, NULL, lo, hi, j->shift, nb - 1, off, beg,
                                lines, NULL, 4);
        else if (j->vsrc)
            radix_scatter_width(j->src, j->dst, j->vsrc, j->vdst, lo, hi, j->shift, nb - 1, off,
                                beg, lines, vlines, 8);
        else
            radix_scatter_width(j->src, j->dst, NULL, NULL, lo, hi, j->shift, nb - 1, off, beg,
                                lines, NULL, 8);
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
    char *tmp;               /* after the MSD pass the buckets are in tmp, */
    uint64_t *vtmp;          /*   their values (or NULL) in vtmp; */
    char *scr;               /* the keys' first place, free now: scratch, */
    uint64_t *vscr;          /*   and the values' */
    const size_t *start;     /* bucket b is [start[b], start[b+1]) */
    size_t nb;               /* buckets */
    size_t alone_max;        /* buckets of this many keys or fewer: by one thread */
    int width;
    int lo, hi;              /* the bits left to sort: [lo, hi) */
    int next;                /* the next bucket to take (atomic) */
    int failed;              /* 1: a thread could not allocate its counters or buffer */
} msd_job_t;

/* The buckets of at most m->alone_max keys, each by one thread, left in tmp. One
 * that fits the cache the thread sorts through a buffer of its own, which stays in
 * its cache from one bucket to the next: the chunk's other buffer, used instead,
 * would be read from memory before each line is written, and written back after.
 * A larger one it sorts alone, MSD first again, through the scratch: where there
 * are many (keys whose top bits vary little, as words of text do), all threads on
 * each in turn would wait for one another on every pass of every bucket. */
static void msd_small_buckets(void *arg, int t, int nt)
{
    (void)t;
    (void)nt;
    msd_job_t *m = arg;
    size_t w = (size_t)m->width, ew = w + (m->vtmp ? RADIX_VAL : 0);   /* a key's, an element's */
    size_t cap = RADIX_BUCKET_CACHE / ew & ~(size_t)1;   /* even: the values aligned */
    uint32_t *hist = malloc(sizeof *hist * RADIX_MAX_DIGITS * RADIX_MAX_BUCKETS);
    char *own = aligned_alloc(RADIX_LINE, RADIX_BUCKET_CACHE);
    if (!hist || !own) {
        m->failed = 1;
        free(hist);
        free(own);
        return;
    }
    uint64_t *vown = m->vtmp ? (uint64_t *)(own + cap * w) : NULL;
    for (;;) {
        size_t b = (size_t)__atomic_fetch_add(&m->next, 1, __ATOMIC_RELAXED);
        if (b >= m->nb)
            break;
        size_t lo = m->start[b], n = m->start[b + 1] - lo;
        if (n < 2 || n > m->alone_max)
            continue;
        uint64_t *vals = m->vtmp ? m->vtmp + lo : NULL, *vres = vown;
        void *res;
        if (n <= cap) {
            res = radix_lsd(m->tmp + lo * w, vals, own, vown, n, m->lo, m->hi, hist, m->width);
        } else {
            vres = vals ? m->vscr + lo : NULL;
            res = radix_sort_cpu_pairs(NULL, m->tmp + lo * w, vals, m->scr + lo * w, vres, n,
                                       m->width, m->lo);
            if (!res) {
                m->failed = 1;
                break;
            }
        }
        if (res != m->tmp + lo * w) {
            memcpy(m->tmp + lo * w, res, n * w);
            if (vals)
                memcpy(vals, vres, n * RADIX_VAL);
        }
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
        uint64_t v = radix_key(keys, n / RADIX_SAMPLE * s, width);
        o |= v;
        a &= v;
    }
    return o ^ a;
}

void *radix_sort_cpu(pool_t *pool, void *keys, void *tmp, size_t n, int width)
{
    return radix_sort_cpu_pairs(pool, keys, NULL, tmp, NULL, n, width, 0);
}

void *radix_sort_cpu_from(pool_t *pool, void *keys, void *tmp, size_t n, int width, int from)
{
    return radix_sort_cpu_pairs(pool, keys, NULL, tmp, NULL, n, width, from);
}

void *radix_sort_cpu_pairs(pool_t *pool, void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp,
                           size_t n, int width, int from)
{
    /* Bits below from are never sorted on, as bits that do not vary are not: each
     * pass is stable, so keys that agree above them keep their order. */
    uint64_t above = from >= 64 ? 0 : ~(uint64_t)0 << from;
    size_t w = (size_t)width, ew = w + (vals ? RADIX_VAL : 0);   /* a key's, an element's bytes */
    if (ew * n <= RADIX_BUCKET_CACHE)
        return radix_small(keys, vals, tmp, vtmp, n, width, above);
    radix_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    *j = (radix_job_t){ .src = keys, .dst = tmp, .vsrc = vals, .vdst = vtmp, .n = n,
                        .width = width };
    j->threads = n < RADIX_PARALLEL_MIN || !pool ? 1 : pool_size(pool);
    if (j->threads > RADIX_MAX_THREADS)
        j->threads = RADIX_MAX_THREADS;
    j->slices = j->threads > 1 ? j->threads * RADIX_SLICES_A_THREAD : 1;
    void *res = NULL;
    /* The MSD digit's width: buckets of about 2^RADIX_BUCKET_LOG keys. */
    int mb = radix_log2(n) - RADIX_BUCKET_LOG;
    mb = mb < 1 ? 1 : mb > RADIX_MAX_BITS ? RADIX_MAX_BITS : mb;
    j->hist = malloc(sizeof *j->hist * ((size_t)1 << mb) * (size_t)j->slices);
    j->start = malloc(sizeof *j->start * (((size_t)1 << mb) + 1));
    if (!j->hist || !j->start)
        goto out;
    /* Count, in the census pass, the digit the sample foretells: the top mb bits
     * under its highest varying bit. */
    uint64_t sd = radix_sample_diff(keys, n, width) & above;
    if (sd && 64 - __builtin_clzll(sd) - __builtin_ctzll(sd) >= mb) {
        j->bits = mb;
        j->shift = 64 - __builtin_clzll(sd) - mb;
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
        /* Large buckets one at a time with every thread (those past the cache that
         * hold more than a RADIX_ALONE_SHARE-th of a thread's share), then the
         * others with one thread each. */
        size_t alone_max = j->threads > 1 ? n / (RADIX_ALONE_SHARE * (size_t)j->threads) : n;
        if (alone_max < RADIX_BUCKET_CACHE / ew)
            alone_max = RADIX_BUCKET_CACHE / ew;
        for (size_t b = 0; b < nb; b++) {
            size_t blo = j->start[b], bn = j->start[b + 1] - blo;
            if (bn <= alone_max)
                continue;
            char *bk = (char *)tmp + blo * w;
            uint64_t *bv = vals ? vtmp + blo : NULL;
            void *r = radix_sort_cpu_pairs(pool, bk, bv, (char *)keys + blo * w,
                                           vals ? vals + blo : NULL, bn, width, from);
            if (!r)
                goto out;
            if (r != bk) {
                memcpy(bk, r, bn * w);
                if (bv)
                    memcpy(bv, vals + blo, bn * RADIX_VAL);
            }
        }
        msd_job_t m = { .tmp = tmp, .vtmp = vals ? vtmp : NULL, .scr = keys, .vscr = vals,
                        .start = j->start, .nb = nb, .alone_max = alone_max, .width = width,
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
