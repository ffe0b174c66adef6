/* SPDX-License-Identifier: MIT */
/* spill.h: sorted runs of records on disk, and their merge.
 *
 * Where the records do not fit in memory, each chunk (table.h), once ordered, is
 * appended to one temporary file as a run: blocks of whole records, each block
 * compressed with LZ4 (unless --compress-temp=none) and checked by a checksum when
 * read back, so a damaged temporary file is an error, never wrong output. One file
 * holds every run, read at each run's own offset: the merge needs one descriptor,
 * whatever the number of runs.
 *
 * The merge reads every run a block at a time, takes each record's key again from
 * its bytes, and writes the records in order: by key, then (as order.h) by sort's
 * last resort, or, with -s and -u, by run, which is input order; -u keeps the first
 * record of each run of equal keys. The pool's threads share it by ranges of keys
 * (spill_merge.c; each run read back by spill_cursor.c).
 */
#ifndef GS_SPILL_H
#define GS_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "core/settings.h"
#include "io/output.h"
#include "records/table.h"

typedef struct rspill rspill_t;

/* A new, empty file of runs in set->tmpdir. GS_OK or an error. */
int rspill_open(rspill_t **s, const settings_t *set, pool_t *pool);

/* Append a run: the records order[0..n) of t (table lines), in that order. order[]
 * is used up: its words may be overwritten. */
int rspill_add(rspill_t *s, const rtable_t *t, uint64_t *order, size_t n);

/* Merge every run into out, after the header (NULL: none) of hlen bytes. */
int rspill_merge(rspill_t *s, const char *header, size_t hlen, output_t *out);

/* Bytes written to the file so far. */
uint64_t rspill_bytes(const rspill_t *s);

/* Remove the file. NULL is a no-op. */
void rspill_close(rspill_t *s);

#endif
