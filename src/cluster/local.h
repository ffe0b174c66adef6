/* SPDX-License-Identifier: MIT */
/* local.h: the engine run on a rank's own data (gpusort-mpi): its share sorted
 * into a scratch file, and, for bare numbers, the parts it received sorted again;
 * with gpusort's settings otherwise (type, format, records, -r, -u, -s, -S, the
 * GPUs).
 */
#ifndef GS_CLUSTER_LOCAL_H
#define GS_CLUSTER_LOCAL_H

#include <stdint.h>

#include "cluster/share.h"
#include "core/settings.h"

/* Sort sh's spans into a new scratch file: *fd, of *size bytes. The engine reads
 * the spans where they are, as byte ranges of the inputs (core/source.h): its
 * messages name the input and its line. GS_OK or an error. */
int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size);

/* The sorted files[0..n) (-1: none) sorted again by the engine as its inputs, in
 * that order, into out from its position (name: what messages call it): what
 * merging them would write, where equal keys are equal bytes (bare numbers;
 * merge.h says when). GS_OK or an error. */
int local_resort(const settings_t *set, const int *files, int n, int out, const char *name);

#endif
