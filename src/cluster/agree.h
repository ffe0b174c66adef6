/* SPDX-License-Identifier: MIT */
/* agree.h: one outcome for every rank (gpusort-mpi).
 *
 * After each step every rank says how it went; where one failed, all stop, and
 * only the lowest rank that failed keeps its error to report, so that the job
 * prints one line whatever the number of ranks, and the first error in input order
 * where the shares' errors compete.
 */
#ifndef GS_CLUSTER_AGREE_H
#define GS_CLUSTER_AGREE_H

#include <mpi.h>

/* agree(): another rank failed; this one stops without a word (exit status 2). */
#define AGREE_PEER 100

/* rc (GS_OK or an error code) of every rank of comm combined: GS_OK where all are
 * GS_OK; this rank's rc where it is the lowest that failed; else AGREE_PEER.
 * Collective. */
int agree(MPI_Comm comm, int rc);

#endif
