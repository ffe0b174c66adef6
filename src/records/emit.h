/* SPDX-License-Identifier: MIT */
/* emit.h: the records written out, whole, in a given order. */
#ifndef GS_EMIT_H
#define GS_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/pool.h"
#include "io/output.h"
#include "records/order.h"
#include "records/table.h"

/* Write the header (--header) and then the records order[0..n) to out, each whole,
 * its terminator included: by the pool's threads, each at its offset where the
 * output is a file that allows it, else in batches written in order. order[] holds
 * table lines, or where words in the shares sh describes (order.h; sh->n 0 or sh
 * NULL: lines). order[] is used up: its words may be overwritten. GS_OK or the
 * output's error. */
int remit_write(const rtable_t *t, pool_t *pool, uint64_t *order, size_t n,
                const rorder_shares_t *sh, output_t *out);

#endif
