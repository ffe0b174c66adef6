/* SPDX-License-Identifier: MIT */
/* stage.h: a rank's share staged as one file for the engine (gpusort-mpi).
 *
 * The engine sorts whole inputs; a rank's share is pieces of files (share.h). They
 * are copied, in order, into one unnamed scratch file (copy_file_range: inside the
 * kernel, by several threads at once), with a header line (--header) left out and a
 * line's end added after an input that does not end with one, as gpusort ends each
 * input; the engine then reads that file as it reads any regular file, mapped and
 * in parallel. Its messages name the scratch file and a line of it:
 * stage_renumber() gives them the input's name and its own line back, counting
 * lines in the inputs only then.
 */
#ifndef GS_CLUSTER_STAGE_H
#define GS_CLUSTER_STAGE_H

#include "cluster/share.h"
#include "core/settings.h"

typedef struct stage stage_t;

/* Copy sh's spans into a new scratch file in set->tmpdir: *fd. GS_OK or an error
 * (its message set); stage_free() either way. */
int stage_make(stage_t **st, const settings_t *set, const share_t *sh, int *fd);

/* The recorded message of code, where it names name (the path by which the engine
 * read the staged file) and a line of it, made to name the input and the line
 * there. Returns code. */
int stage_renumber(const stage_t *st, const char *name, int code);

void stage_free(stage_t *st);

#endif
