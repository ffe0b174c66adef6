/* SPDX-License-Identifier: MIT */
/* radix_impl.h: what the CPU's radix sort's two files share (radix.c: the
 * parallel passes and the driver; radix_cache.c: keys that fit a core's cache, by
 * one thread). */
#ifndef GS_RADIX_IMPL_H
#define GS_RADIX_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tuning.h"

/* The tuning (core/tuning.h): digits of RADIX_MIN_BITS to RADIX_MAX_BITS bits
 * (counters of 2^11 buckets and their line buffers stay in a core's second-level
 * cache; fewer bits would mean more passes); an MSD digit that leaves buckets of
 * about 2^RADIX_BUCKET_LOG keys (in the first-level cache); buckets of at most
 * RADIX_BUCKET_CACHE bytes (keys and values) finished by one thread in its cache;
 * the parallel passes' keys in RADIX_SLICES_A_THREAD slices for each thread, taken
 * in turn, so that a thread that shares its CPU holds a pass up by a slice at most. */
#define RADIX_MAX_BUCKETS (1 << RADIX_MAX_BITS)
/* The most LSD digits a sort makes: 64 bits in digits of RADIX_MIN_BITS. */
#define RADIX_MAX_DIGITS 8
/* The write-combining line, in bytes. */
#define RADIX_LINE 64
/* Most threads that take part in one parallel pass (more are left idle). */
#define RADIX_MAX_THREADS 256
#define RADIX_MAX_SLICES (RADIX_MAX_THREADS * RADIX_SLICES_A_THREAD)
/* A value's bytes. */
#define RADIX_VAL 8

_Static_assert(RADIX_MAX_DIGITS * RADIX_MIN_BITS >= 64, "the LSD digits cover 64 bits");
_Static_assert(RADIX_BUCKET_CACHE / 4 <= UINT32_MAX, "in-cache counts fit 32 bits");

/* floor(log2(n)) for n >= 1. */
static inline int radix_log2(size_t n)
{
    return 63 - __builtin_clzll((unsigned long long)n);
}

/* Key i of keys (width 4 or 8). */
static inline __attribute__((always_inline)) uint64_t radix_key(const void *keys, size_t i,
                                                                int width)
{
    return width == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

/* Store v as key i of keys (width 4 or 8). */
static inline __attribute__((always_inline)) void radix_put(void *keys, size_t i, uint64_t v,
                                                            int width)
{
    if (width == 4)
        ((uint32_t *)keys)[i] = (uint32_t)v;
    else
        ((uint64_t *)keys)[i] = v;
}

/* Sort keys[0..n) (width 4 or 8), vals beside them where not NULL, on bits [lo,
 * hi) by LSD passes, using tmp and vtmp (room for n each); hist has room for
 * RADIX_MAX_DIGITS * RADIX_MAX_BUCKETS counters. Returns the buffer that holds the
 * keys (the values in its fellow). n must fit 32 bits. */
void *radix_lsd(void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp, size_t n, int lo, int hi,
                uint32_t *hist, int width);

/* Keys that fit a core's cache, by this thread (a few by insertion), on their bits
 * in `above` that vary. Returns keys or tmp, or NULL: no memory. */
void *radix_small(void *keys, uint64_t *vals, void *tmp, uint64_t *vtmp, size_t n, int width,
                  uint64_t above);

#endif
