/* SPDX-License-Identifier: MIT */
/* merge.h: the parts a rank received, merged into its range (gpusort-mpi).
 *
 * Part j is rank j's records whose keys fall in this rank's range, sorted by the
 * engine and written in local_scratch()'s format (local.h); rank j's share of the
 * inputs comes before rank j+1's, so part j's records come first among equal keys
 * wherever the input's order decides (-s, -u, binary records). The parts are mapped and the
 * range cut into pieces, one a thread, by order keys: regular samples of the parts,
 * weighted by their bytes, choose the cuts, and all the records of one key fall in
 * one piece (many equal keys make one piece large). Each thread merges its piece's
 * slices of the parts straight into the output's pages at the piece's offset: equal
 * keys as the engine orders them (sort's last resort, the lines bytewise, unless
 * -s or -u; then the earlier part first, and -u keeps only the first record of a
 * key). No anonymous memory beyond a few small arrays: the parts are read where
 * they lie, in the page cache.
 *
 * Bare numbers with every key kept (no -u) are sorted again by the engine instead
 * (local.h): equal keys are equal bytes there, so its order is the merge's, and
 * its radix sort beats a merge that reads one key at a time. Their parts are
 * binary keys (local_scratch()): what the rank will write as text is counted from
 * the parts' keys by binary search (the lines' lengths step with the keys,
 * textnum.h), without a pass over them. Records, whose sort gathers lines from
 * random places, merge far faster than the engine sorts them again
 * (doc/perf/RESULTS.md, 2026-11-26).
 */
#ifndef GS_CLUSTER_MERGE_H
#define GS_CLUSTER_MERGE_H

#include <stdint.h>

#include "core/settings.h"

typedef struct merge merge_t;

/* Plan the merge of the sorted parts n: part j bytes [offs[j], offs[j] + sizes[j])
 * of the file files[j] (-1: none; the rank's own part lies in its sorted share,
 * the others each in a file of its own): *m, and *bytes, what the merge will
 * write (under -u fewer than the parts hold, counted by a merge that writes
 * nothing). GS_OK or an error; *m is for merge_free() either way. */
int merge_plan(const settings_t *set, const int *files, const uint64_t *offs,
               const uint64_t *sizes, int n, merge_t **m, uint64_t *bytes);

/* Write the merge into out from its position (which moves past it); where out is
 * -1, into a new scratch file instead, *fd (a part's own descriptor again where it
 * alone holds records: nothing to merge). GS_OK or an error. */
int merge_write(merge_t *m, int out, int *fd);

void merge_free(merge_t *m);

#endif
