/* SPDX-License-Identifier: MIT */
/* streams.h: -m (merge inputs that are sorted already) and -c/-C (check one input).
 *
 * Both stream: keys are read block by block and never held whole. The merge is a
 * loser tree over the inputs; an input found out of order is an error naming its
 * file and position.
 */
#ifndef GS_STREAMS_H
#define GS_STREAMS_H

#include "io/reader.h"
#include "io/output.h"

/* Called once every reader has returned its first block, before anything is
 * written (where -m's header goes out): GS_OK, or an error that ends the merge. */
typedef int (*merge_start_fn)(void *arg);

/* Merge the n open readers (each sorted ascending, in mapped order) into out; with
 * unique, write only the first of equal keys. start (NULL: none) is called with arg
 * before the first write. An input out of order is GS_EINPUT with "FILE:N:
 * disorder: VALUE" (km formats VALUE). GS_OK or an error code. */
int merge_readers(kreader_t **readers, int n, int unique, const keymap_t *km,
                  output_t *out, merge_start_fn start, void *arg);

/* Check that r (keys of width bytes) is sorted ascending (strictly with strict).
 * GS_OK if sorted;
 * GS_EDISORDER with *pos (1-based line or key index) and *key (mapped) of the first
 * key out of order; or an input error code. */
int merge_check(kreader_t *r, int width, int strict, uint64_t *pos, uint64_t *key);

#endif
