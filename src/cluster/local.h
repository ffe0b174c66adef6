/* SPDX-License-Identifier: MIT */
/* local.h: the engine run on a rank's own data (gpusort-mpi): its share sorted,
 * then the parts it received merged, each into a scratch file, with gpusort's
 * settings otherwise (type, format, records, -r, -u, -s, -S, the GPUs).
 */
#ifndef GS_CLUSTER_LOCAL_H
#define GS_CLUSTER_LOCAL_H

#include <stdint.h>

#include "cluster/share.h"
#include "core/settings.h"

/* Sort sh's spans (fed as standard input, feed.h) into a new scratch file: *fd, of
 * *size bytes. GS_OK or an error, its message naming the input and line. */
int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size);

/* Merge the sorted files[0..n) (-1: none), in that order for equal keys: into out
 * from its position (*size the bytes written), or, where out is -1, into a scratch
 * file (*fd, of *size bytes). GS_OK or an error. */
int local_merge(const settings_t *set, const int *files, int n, int out, int *fd,
                uint64_t *size);

#endif
