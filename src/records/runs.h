/* SPDX-License-Identifier: MIT */
/* runs.h: -m: a chunk's parts of the inputs, each in order already (checked as the
 * chunk was read), taken as they are for runs: merged straight into the output
 * where the chunk holds everything (the one merge of records' runs, rmerge.h, over
 * the table's lines), else spilled as a run, to be merged with the others
 * (spill.h). -m merges, as sort -m does (pipeline/records.c sorts a chunk that
 * holds several inputs' parts among many chunks into one run instead: the runs
 * stay as few as the chunks).
 *
 * A part is one input's lines in one chunk, its header left out; the parts are in
 * input order (the chunks are read input after input), so the merge's tie between
 * equal keys, the earlier run, is the earlier input, as sort -m's.
 */
#ifndef GS_RUNS_H
#define GS_RUNS_H

#include <stddef.h>

#include "core/pool.h"
#include "io/output.h"
#include "records/spill.h"
#include "records/table.h"

/* Merge the parts of t (every input in it) into out, after the header (NULL:
 * none) of hlen bytes, on pool's threads. GS_OK or an error. */
int rruns_merge(const rtable_t *t, pool_t *pool, const char *header, size_t hlen,
                output_t *out);

/* The parts of t that hold records. */
size_t rruns_count(const rtable_t *t);

/* Spill each part of t as a run of s. GS_OK or an error. */
int rruns_spill(rspill_t *s, const rtable_t *t);

#endif
