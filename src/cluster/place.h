/* SPDX-License-Identifier: MIT */
/* place.h: the ranks' merged ranges written as the output (gpusort-mpi).
 *
 * Rank r's range follows ranks 0 to r-1's, the header (--header) before them all.
 * To -o FILE, a regular file or a new one: rank 0 makes gpusort's temporary beside
 * FILE, every rank writes its range into it at its offset (an exclusive prefix sum
 * of the ranks' byte counts), and rank 0 renames it over FILE once all have
 * written, so that a failed job leaves an existing FILE untouched. To standard
 * output, or a FILE that is a device or FIFO, or one written in place: the ranges
 * go to rank 0, which writes them in order. With --output-parts, rank r writes its
 * range alone into FILE.R (R with as many digits as the highest rank's number), the
 * header into part 0.
 */
#ifndef GS_CLUSTER_PLACE_H
#define GS_CLUSTER_PLACE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/settings.h"

/* Write this rank's range, bytes [0, len) of fd, as above (header: rank 0's, or
 * NULL). Collective; returns agree()'s outcome. */
int place_output(MPI_Comm comm, const settings_t *set, int parts, const char *header,
                 size_t hlen, int fd, uint64_t len);

#endif
