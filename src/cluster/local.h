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

/* Sort sh's spans (staged as one file, stage.h) into a new scratch file: *fd, of
 * *size bytes; *read_s the seconds the staging took (the share's reading). GS_OK
 * or an error, its message naming the input and line. */
int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size,
               double *read_s);

/* The sorted files[0..n) (-1: none) sorted again by the engine as its inputs, in
 * that order, into out from its position (name: what messages call it): what
 * merging them would write, where equal keys are equal bytes (bare numbers;
 * merge.h says when). GS_OK or an error. */
int local_resort(const settings_t *set, const int *files, int n, int out, const char *name);

/* Standard output made out, where the engine's output (io/output.h) writes: *save
 * what it was, for local_stdout_back(). GS_OK or an error. */
int local_stdout(int out, int *save);
void local_stdout_back(int save);

#endif
