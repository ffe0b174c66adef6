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

/* 1 where the parts a rank receives are sorted again by the engine rather than
 * merged (merge.h says when): bare numbers, every key kept (no -u). */
int local_resorts(const settings_t *set);

/* The settings a rank's scratch files are written and read with: set's, but where
 * local_resorts(), binary keys whatever the output's format (scratch->out_format),
 * so that the ranks send a third to a half of their text's bytes (u32: 4 bytes a
 * key against 11 on average) and the engine sorts them again without a parse.
 * Else the output's own format: the merge writes what the parts hold. */
void local_scratch(const settings_t *set, settings_t *scratch);

/* Sort sh's spans into a new scratch file: *fd, of *size bytes, in local_scratch()'s
 * format. The engine reads
 * the spans where they are, as byte ranges of the inputs (core/source.h): its
 * messages name the input and its line. GS_OK or an error. */
int local_sort(const settings_t *set, const share_t *sh, int *fd, uint64_t *size);

/* The sorted parts n (part j: bytes [offs[j], offs[j] + sizes[j]) of files[j], -1:
 * none; local_scratch()'s format) sorted again by the engine as its inputs, in
 * that order, into out from its position in the output's format (name: what
 * messages call it): what merging them would write, where equal keys are equal
 * bytes (local_resorts()). GS_OK or an error. */
int local_resort(const settings_t *set, const int *files, const uint64_t *offs,
                 const uint64_t *sizes, int n, int out, const char *name);

#endif
