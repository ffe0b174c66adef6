/* SPDX-License-Identifier: MIT */
/* passes.h: merge passes, the one driver for the sort's runs and -m's inputs.
 *
 * While there are more items (runs, or input files) than one merge takes (fan-in,
 * set by open files and memory), they are merged in rounds, each round merging
 * groups of fan-in items into one new item each, so every key is rewritten about
 * log(items) / log(fan-in) times. A group of one is kept as it is.
 */
#ifndef GS_PASSES_H
#define GS_PASSES_H

#include <stddef.h>

/* Merge the k items at group into one new item, written to *merged (an item of the
 * array's size): GS_OK, the k items released; or an error, the k items as they were
 * and nothing made. */
typedef int (*passes_merge_fn)(void *self, void *group, int k, void *merged);

/* Reduce items[0..*n) (each of size bytes) to at most fan (>= 2) by merge passes.
 * GS_OK; or the first error, items[0..*n) then the items still to be released (new
 * ones and untouched ones). */
int passes_reduce(void *items, size_t size, int *n, int fan, passes_merge_fn merge, void *self);

#endif
