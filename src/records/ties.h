/* SPDX-License-Identifier: MIT */
/* ties.h: records whose first words are equal, put in order by the words after
 * them.
 *
 * A chunk's records are sorted by one 64-bit word each (rkey.h): the whole
 * normalized key where it is exact, else its first 8 bytes. A run of equal words
 * is then put in rkey_order()'s order, input order last, the way an MSD radix
 * sort goes on: each record's next word is made (the key's bytes 8 to 15, then 16
 * to 23, ...: rkey_word_at()), the run sorted stably by it (radix_sort_cpu_pairs), and
 * each run of equal next words taken further, until the keys end. Where sort's
 * last resort applies, equal keys go on the same way by the lines themselves, 7
 * bytes a word above a byte that says how many of them the line has (8: it goes
 * on), so that a line that is a prefix of another goes first; the word inverted
 * for a global -r. A run whose words all agree goes on to the next in a loop, and
 * a run of lines straight past the bytes they all share. A run of at most
 * TIES_COMPARE_MAX records, one more than TIES_DEPTH_MAX words into its keys, or
 * one inside TIES_DEPTH_MAX others, is sorted by comparisons (rorder_tie()).
 *
 * So a run of a million records costs a few passes over it, not a million
 * comparisons of keys read again from their lines; and a run too long for one
 * thread (rties_shared_min()) is refined by every thread of the pool, as are its runs
 * of next words that are long again.
 */
#ifndef GS_TIES_H
#define GS_TIES_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "records/table.h"

/* How the order's entries name their records. */
typedef struct {
    const rtable_t *t;
    uint64_t mask;          /* an entry's table line: entry & mask */
} rties_t;

/* One thread's scratch, grown as its runs need (start it zeroed). */
typedef struct {
    uint64_t *w, *wt, *et;
    size_t cap;
} rties_mem_t;

/* Entries e[0..n) of equal first words, in input order, put in order by the
 * caller's thread. GS_OK or GS_ENOMEM. */
int rties_settle(const rties_t *c, rties_mem_t *mem, uint64_t *e, size_t n);

/* How long a run of a chunk of whole records must be to be settled by the pool:
 * TIES_SHARED_MIN, or a TIES_SHARES-th of a thread's share where that is more. */
size_t rties_shared_min(const pool_t *pool, size_t whole);

/* The same as rties_settle(), by every thread of pool: a run of
 * rties_shared_min(pool, whole) entries or more of a chunk of whole records. */
int rties_settle_shared(const rties_t *c, pool_t *pool, uint64_t *e, size_t n, size_t whole);

void rties_mem_free(rties_mem_t *mem);

#endif
