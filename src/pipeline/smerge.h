/* SPDX-License-Identifier: MIT */
/* smerge.h: the merge by sorting key ranges, for a chunk sorter faster than any CPU
 * merge (a GPU).
 *
 * The runs are cut into pieces by rank: piece j holds the next keys of every run up
 * to a cut key chosen so that the piece fills the sorter's chunk. A piece's keys are
 * contiguous in every run, so they are gathered into one buffer with plain copies
 * (in parallel), sorted by the chunk sorter as one chunk, and written. Sorting the
 * concatenation of sorted pieces is a merge: it costs a GPU a few milliseconds per
 * gigabyte, against seconds for a loser tree on the CPU. A value repeated more
 * often than a piece holds fills pieces of its own, which need no sort.
 */
#ifndef GS_SMERGE_H
#define GS_SMERGE_H

#include <stddef.h>

#include "core/pool.h"
#include "io/output.h"
#include "sorter/sorter.h"
#include "store/runs.h"

/* Buffers pinned by the sorter (sorter_pin()) that the caller lends the merge as piece
 * buffers where they hold a piece: n of bytes each. The merge neither frees nor
 * unpins them. */
typedef struct {
    char *buf[2];
    int n;
    size_t bytes;
} smerge_lent_t;

/* Merge runs[0..nruns) (keys of width bytes, in memory or spilled; opened and
 * closed here) into out, dropping repeats with unique, sorting each piece with
 * sorter (its caps' max_keys, where set, bounds a piece). budget bounds the piece
 * buffers: two, or three where out writes a piece while the next is gathered and
 * sorted (output_hands().held); one more where the sorter sorts a
 * piece aside (sorter_submit(), into pinned buffers) while the next is gathered and
 * the budget holds it at the same piece size. lent (or NULL): pinned buffers
 * taken first, where they hold a piece and out does not take the pieces' pages. */
int smerge_runs(run_t **runs, int nruns, int width, int unique, sorter_t *sorter,
                pool_t *pool, size_t budget, const smerge_lent_t *lent, output_t *out);

/* The cut of the next piece: given each run's start pos[r] (keys before it already
 * taken), set end[r] so that the keys in [pos[r], end[r]) of every run are the
 * next at most cap keys (cap >= 1) in key order. Returns the keys taken; *same is 1
 * when they are all one value (then no sort is needed). Pure, for the tests. */
size_t smerge_cut(const void *const *keys, const size_t *n, int nruns, int width,
                  const size_t *pos, size_t cap, size_t *end, int *same);

#endif
