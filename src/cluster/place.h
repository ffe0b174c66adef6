/* SPDX-License-Identifier: MIT */
/* place.h: the ranks' merged ranges written as the output (gpusort-mpi).
 *
 * Rank r's range follows ranks 0 to r-1's, the header (--header) before them all.
 * To -o FILE, a regular file or a new one: rank 0 makes gpusort's temporary beside
 * FILE, every rank writes its range into it at its offset (an exclusive prefix sum
 * of the ranks' byte counts), and rank 0 renames it over FILE once all have
 * written, so that a failed job leaves an existing FILE untouched. The counts
 * are known before the merge (merge.h), so the offsets are too, and each rank's
 * merge writes into the temporary itself. To standard output, or a FILE that is a
 * device or FIFO, or one written in place: the ranges go to rank 0, which writes
 * them in order. With --output-parts, rank r writes its range alone into FILE.R (R
 * with as many digits as the highest rank's number), the header into part 0.
 */
#ifndef GS_CLUSTER_PLACE_H
#define GS_CLUSTER_PLACE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/settings.h"

typedef struct place place_t;

/* Open the output (collective); mine: the bytes this rank will write. Where the
 * output is a file the ranks can write at offsets, *fd is this rank's descriptor
 * on it, positioned at its offset, the header written before rank 0's: the rank
 * writes its range there. Else *fd is -1, and the rank hands its range to
 * place_write(). Returns
 * agree()'s outcome; *p is for place_end() either way. */
int place_begin(MPI_Comm comm, const settings_t *set, int parts, const char *header,
                size_t hlen, uint64_t mine, place_t **p, int *fd);

/* Where place_begin() gave no descriptor: this rank's range, bytes [0, len) of
 * fd, written after the header and ranks 0 to r-1's (collective). GS_OK or an
 * error, not agreed. */
int place_write(place_t *p, int fd, uint64_t len);

/* The end: rc agreed among the ranks (unless settled: agreed already), then the
 * output committed where all went well, else removed; frees p. Returns the
 * agreed outcome. */
int place_end(place_t *p, int rc, int settled);

#endif
