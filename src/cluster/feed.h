/* SPDX-License-Identifier: MIT */
/* feed.h: a rank's share, fed to the engine as its standard input (gpusort-mpi).
 *
 * The engine sorts what it reads; a rank's share is pieces of files (share.h). A
 * thread of its own writes them, in order, into a pipe that becomes the engine's
 * standard input: spliced from the files where the kernel can, a header line
 * (--header) left out, and a line's end added after an input that does not end
 * with one, as gpusort ends each input. The engine's messages then name "-" and a
 * line of the pipe: feed_renumber() gives them the input's name and its own line
 * back, counting lines in the files only then.
 */
#ifndef GS_CLUSTER_FEED_H
#define GS_CLUSTER_FEED_H

#include "cluster/share.h"
#include "core/settings.h"

typedef struct feed feed_t;

/* Start writing sh's spans into a new pipe, whose read end is *fd (the caller's to
 * close). GS_OK or an error. */
int feed_start(feed_t **f, const settings_t *set, const share_t *sh, int *fd);

/* Wait for the writer (the pipe's read end closed first, where the reader stopped
 * early) and free f. GS_OK, or the error that stopped it (a read error on an input,
 * its message set). */
int feed_end(feed_t *f);

/* The recorded message of code, where it names "-" and a line of the pipe, made to
 * name the input and the line there. Returns code. Call before feed_end(). */
int feed_renumber(feed_t *f, int code);

#endif
