/* SPDX-License-Identifier: MIT */
/* radix_cache.c: the CPU's radix sort (radix.c) of keys that fit a core's cache, by
 * one thread: a few by insertion; more by LSD passes of equal digits of 8 to 11
 * bits, on the bits that vary alone, every digit's counters taken in one read. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "sorter/radix_impl.h"

/* Insertion, stably: equal keys stay behind one another. */
static void radix_insertion(void *keys, uint64_t *vals, size_t n, int width, uint64_t above)
{
    for (size_t r = 1; r < n; r++) {
        uint64_t k = radix_key(keys, r, width), v = vals ? vals[r] : 0;
        size_t i = r;
        for (; i > 0 && (radix_key(keys, i - 1, width) & above) > (k & above); i--) {
            radix_put(keys, i, radix_key(keys, i - 1, width), width);
            if (vals)
                vals[i] = vals[i - 1];
        }
        radix_put(keys, i, k, width);
        if (vals)
            vals[i] = v;
    }
}

/* Count nd digits of db bits (from bit lo) of keys[0..n) into hist[d * nb + digit];
 * inlined with constant width and nd, so the loop over digits unrolls. */
static inline __attribute__((always_inline)) void
radix_hist_digits(const void *keys, size_t n, int lo, int db, uint64_t dmask, size_t nb,
                  uint32_t *hist, int width, int nd)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = radix_key(keys, i, width) >> lo;
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

/* The digits' width and count for n keys on bits [lo, hi): equal digits of 8 to 11
 * bits, fewer for fewer keys (the counters cost a pass of their own). */
static inline void radix_digits(size_t n, int lo, int hi, int *db, int *nd)
{
    int maxb = radix_log2(n) - 1;
    maxb = maxb < RADIX_MIN_BITS ? RADIX_MIN_BITS : maxb > RADIX_MAX_BITS ? RADIX_MAX_BITS : maxb;
    *nd = (hi - lo + maxb - 1) / maxb;
    *db = (hi - lo + *nd - 1) / *nd;
}

/* Sort keys[0..n) (width 4 or 8), vals beside them where not NULL, on bits [lo, hi)
 * by LSD passes of radix_digits(), using tmp and vtmp (room for n each); hist has
 * room for the digits' counters. A digit the same in every key is skipped. Returns
 * the buffer that holds the keys (the values in its fellow). n must fit 32 bits. */
static inline __attribute__((always_inline)) void *
radix_lsd_width(void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp, size_t n, int lo, int hi,
                uint32_t *hist, int width)
{
    if (hi - lo <= 0 || n < 2)
        return keys;
    int db, nd;
    radix_digits(n, lo, hi, &db, &nd);
    uint64_t dmask = ((uint64_t)1 << db) - 1;
    size_t nb = (size_t)1 << db;
    memset(hist, 0, sizeof *hist * nb * (size_t)nd);
    radix_hist(keys, n, lo, db, dmask, nb, hist, width, nd);
    void *src = keys, *dst = tmp;
    uint64_t *vsrc = vals, *vdst = vtmp;
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
        if (vals) {
            for (size_t i = 0; i < n; i++) {
                uint64_t v = radix_key(src, i, width);
                uint32_t o = h[(v >> shift) & dmask]++;
                radix_put(dst, o, v, width);
                vdst[o] = vsrc[i];
            }
        } else {
            for (size_t i = 0; i < n; i++) {
                uint64_t v = radix_key(src, i, width);
                radix_put(dst, h[(v >> shift) & dmask]++, v, width);
            }
        }
        void *t = src;
        src = dst;
        dst = t;
        uint64_t *vt = vsrc;
        vsrc = vdst;
        vdst = vt;
    }
    return src;
}

void *radix_lsd(void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp, size_t n, int lo, int hi,
                uint32_t *hist, int width)
{
    if (width == 4)
        return radix_lsd_width(keys, vals, tmp, vtmp, n, lo, hi, hist, 4);
    return radix_lsd_width(keys, vals, tmp, vtmp, n, lo, hi, hist, 8);
}

/* Keys that fit a core's cache, by this thread: a few by insertion; else their
 * varying bits above `above`'s found, then LSD passes on them, the counters on the stack where the digits are
 * RADIX_MIN_BITS. Returns keys or tmp, or NULL: no memory. */
void *radix_small(void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp, size_t n, int width,
                  uint64_t above)
{
    if (n <= RADIX_INSERTION) {
        radix_insertion(keys, vals, n, width, above);
        return keys;
    }
    uint64_t o = 0, a = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = radix_key(keys, i, width);
        o |= v;
        a &= v;
    }
    uint64_t diff = (o ^ a) & above;
    if (diff == 0)
        return keys;
    int hi = 64 - __builtin_clzll(diff), lo = __builtin_ctzll(diff), db, nd;
    radix_digits(n, lo, hi, &db, &nd);
    uint32_t stack[RADIX_MAX_DIGITS << RADIX_MIN_BITS];
    uint32_t *hist = db == RADIX_MIN_BITS ? stack
                                          : malloc(sizeof *hist * ((size_t)nd << db));
    if (!hist)
        return NULL;
    void *res = radix_lsd(keys, vals, tmp, vtmp, n, lo, hi, hist, width);
    if (hist != stack)
        free(hist);
    return res;
}
