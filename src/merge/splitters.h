/* SPDX-License-Identifier: MIT */
/* splitters.h: the one partitioner's choice: from samples of the keys, each
 * standing for a weight of what is cut (keys, bytes, blocks), the keys that cut it
 * into pieces of about equal weight. Every cut of keys into ranges chooses so: the
 * merges' pieces (pmerge.c, records' spill_merge.c, gpusort-mpi's merge), a chunk
 * dealt over the GPUs (cuda_chunk.c), gpusort-mpi's parts of the ranks. Which side
 * of a splitter its own key falls on, and where each run's part of a piece starts
 * (a lower bound by rank, by a spilled run's index, in a sorted file), is the
 * caller's.
 */
#ifndef GS_SPLITTERS_H
#define GS_SPLITTERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;
    double weight;         /* what the sample stands for */
} sample_t;

/* Up to pieces - 1 splitters of samples s[0..n) (sorted here, by key) into
 * split[]: the p-th, the key of the sample at which p / pieces of the samples'
 * weight has gone before it. distinct: splitters strictly increasing and above the
 * least sample (repeats dropped, so a key's records are in one piece and no piece
 * is empty for want of keys), fewer where keys repeat; else exactly pieces - 1 of
 * them, equal where a key is heavy. Returns how many (0 without samples). */
size_t splitters_choose(sample_t *s, size_t n, size_t pieces, int distinct, uint64_t *split);

#endif
