/* SPDX-License-Identifier: MIT */
/* order.h: the order in which the records of a table are written.
 *
 * By key (the table's mapping: descending where -r or the key's r asks), then, for
 * equal keys: with -s or -u, input order; otherwise, as sort's last resort, the
 * whole lines bytewise (descending with -r), binary records in input order. With
 * -u, only the first record, in input order, of each run of equal keys.
 *
 * The keys and their line numbers are sorted together as one 64-bit word, the key
 * less the least key above the line number's bits, wherever the keys' range leaves
 * room for the line numbers (always for 32-bit keys): by the sorter the caller
 * names (a GPU's), else by the CPU's radix sort on the keys' bits alone; else as
 * keys and indices: by the chunk sorter where it takes them (a GPU's:
 * sorter_sort_index), else by a radix sort of pairs of their own. One pass then
 * settles equal keys (below) and, where the caller writes the records out at once,
 * makes the lines where words (table.h) and measures each thread's share of them,
 * which spares the writing a pass of its own (records/emit.h).
 */
#ifndef GS_ORDER_H
#define GS_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "records/table.h"
#include "sorter/sorter.h"

/* The order made where words, measured: n shares, share i order[cut[i]..cut[i+1])
 * of bytes[i] bytes. n == 0: order[] holds table lines. */
typedef struct {
    int n;
    size_t *cut;
    uint64_t *bytes;
} rorder_shares_t;

/* The memory of a chunk's order and its sort's scratch, kept from one chunk to the
 * next (their pages faulted in once): start it zeroed, rorder_mem_free() it. */
typedef struct {
    uint64_t *a, *b;
    size_t cap;
} rorder_mem_t;

/* The table's records in output order: *order (in mem's memory) holds *n of them,
 * table lines; or, where sh is not NULL, the records are text, two or more, and the
 * arena allows (rtable_can_where()), where words in the pool's shares, which *sh
 * then describes (rorder_shares_free() it). words: the chunk sorter (its width 8)
 * for the packed words, or NULL for the CPU's radix sort on their keys' bits;
 * pairs: the chunk sorter for wide keys with their indices, or NULL for the CPU's
 * sort of pairs. GS_OK or an error (no memory; the sorter's). */
int rorder_sort(const rtable_t *t, pool_t *pool, sorter_t *words, sorter_t *pairs,
                rorder_mem_t *mem, uint64_t **order, size_t *n, rorder_shares_t *sh);

void rorder_shares_free(rorder_shares_t *sh);

/* Free mem's memory but for order, where no chunk follows (a sort after this would
 * make its memory anew, order's with it). */
void rorder_mem_keep(rorder_mem_t *mem, const uint64_t *order);

void rorder_mem_free(rorder_mem_t *mem);

/* -1, 0 or 1 as table line a goes before, with or after line b when both have
 * equal words: rkey_order() (their keys in full, then the last resort where it
 * applies); 0 where neither decides. */
int rorder_tie(const rtable_t *t, size_t a, size_t b);

#endif
