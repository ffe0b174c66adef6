/* SPDX-License-Identifier: MIT */
/* pmerge.h: the parallel merge of sorted runs, by key range.
 *
 * Splitter keys drawn from samples of the runs cut the key space into pieces of
 * about the same number of keys. The pool's threads take pieces in order; each
 * merges its piece of every run (through a tree of two-way merges where the runs are
 * few, a loser tree where they are many), formats it in parallel with the others,
 * and hands it on in key order (io/pieces.h): the thread whose piece is next streams
 * directly, the others hold their piece's bytes (at most a bounded amount, then
 * they wait for their turn).
 *
 * Where the sink is an output that takes its bytes laid out (a file), the merge
 * first lays them out: a key's bytes depend on its value alone, as steps over the
 * keys (output_line_steps), so the bytes of every piece follow from the ranks of
 * the steps and of the splitters in each run, without reading the keys. Each
 * thread then puts its pieces at their offsets through windows of the output,
 * all at once, with no turn to wait for and nothing held.
 */
#ifndef GS_PMERGE_H
#define GS_PMERGE_H

#include <stddef.h>
#include <stdint.h>
#include "core/pool.h"
#include "io/output.h"
#include "io/turns.h"
#include "store/runs.h"

/* Where merged keys go: an output, in its format (laid out where it takes them so
 * and the bytes are known: not with -u), or else append(ctx, keys, bytes), the
 * keys as they are, whole, in order, from one thread at a time (a run being
 * written). */
typedef struct {
    output_t *out;
    turns_put_fn append;
    void *ctx;
} pmerge_sink_t;

/* Merge runs[0..nruns) (keys of width bytes, each run ascending) into sink, with
 * unique dropping repeats. Spilled runs must be open (run_open). budget bounds the
 * bytes the merge holds (cursor buffers and pieces waiting for their turn). */
int pmerge_runs(run_t **runs, int nruns, int width, int unique, pool_t *pool,
                size_t budget, const pmerge_sink_t *sink);

/* Bytes one thread's cursors over nruns spilled runs take: for sizing fan-in. */
size_t pmerge_cursor_bytes(int nruns, int width);

#endif
