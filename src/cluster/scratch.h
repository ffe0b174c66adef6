/* SPDX-License-Identifier: MIT */
/* scratch.h: a rank's working files (gpusort-mpi): its sorted share, the parts it
 * receives, its merged range. Unnamed (O_TMPFILE) in the temporary directory, so
 * that they go with the process however it ends, a rank killed by SIGKILL included;
 * where the file system cannot, named, and unlinked at once.
 */
#ifndef GS_CLUSTER_SCRATCH_H
#define GS_CLUSTER_SCRATCH_H

#include <stdint.h>

/* A new empty file in dir, open for reading and writing: its descriptor, or -1 with
 * the message set. */
int scratch_open(const char *dir);

#endif
