/* SPDX-License-Identifier: MIT */
/* local.h: the engine run on a rank's own data (gpusort-mpi): its share sorted,
 * then the parts it received put together, each into a scratch file, with gpusort's
 * settings otherwise (type, format, records, -r, -u, -s, -S, the GPUs).
 */
#ifndef GS_CLUSTER_LOCAL_H
#define GS_CLUSTER_LOCAL_H

#include <stdint.h>

#include "cluster/share.h"
#include "core/settings.h"

/* Sort sh's spans (staged as one file, stage.h) into a new scratch file: *fd, of
 * *size bytes; *read_s the seconds the staging took (the share's reading). GS_OK
 * or an error, its message naming the input and line. */
int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size,
               double *read_s);

/* The sorted files[0..n) (-1: none) as one sorted run, equal keys in that order
 * (or, without -s, by sort's last resort, as in each file): sorted again by the
 * engine, whose sort uses every thread (and the GPUs asked for) where its merge of
 * files (-m) takes one; the result is a merge's. Into out
 * from its position (*size the bytes written), or, where out is -1, into a scratch
 * file (*fd, of *size bytes). GS_OK or an error. */
int local_merge(const settings_t *set, const int *files, int n, int out, int *fd,
                uint64_t *size);

#endif
