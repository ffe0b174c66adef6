/* SPDX-License-Identifier: MIT */
/* pairs.h: pairs of a 64-bit key and a 64-bit value sorted stably by key: an LSD
 * radix sort by bytes, only on the bytes where the keys differ. The one sort of
 * pairs of the records' engine: a chunk's wide keys with their lines (order.c),
 * a run of equal words by the words after them (ties.c). */
#ifndef GS_PAIRS_H
#define GS_PAIRS_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"

/* Sort (k[i], v[i]), i < n, stably by k; kt and vt are scratch of n each. Each pass
 * is shared by the pool's threads (pool NULL: the caller's thread alone; counts
 * then on its stack). 0: the result is in k and v; 1: in kt and vt; -1: no memory
 * (nothing moved). */
int rpairs_sort(pool_t *pool, uint64_t *k, uint64_t *v, uint64_t *kt, uint64_t *vt,
                size_t n);

#endif
