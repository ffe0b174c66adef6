/* SPDX-License-Identifier: MIT */
/* exchange.h: the all-to-all of key ranges (gpusort-mpi).
 *
 * Each rank sends part j of its sorted share to rank j and receives one part from
 * every rank, in rounds of at most a given number of bytes from each rank to each
 * (so that memory stays bounded whatever the parts' sizes), each part written to a
 * scratch file of its own as it comes: a round's bytes by a job of their own while
 * the next round's come into a second buffer. The rank's own part is neither sent
 * nor copied: it stays where it lies in the sorted share. Every rank takes
 * part in every round, an error or not, so that none waits forever: an error is
 * returned at the end.
 */
#ifndef GS_CLUSTER_EXCHANGE_H
#define GS_CLUSTER_EXCHANGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Send base[cuts[j] .. cuts[j+1]) to rank j, for every j, and receive the part
 * from rank i into files[i] (new scratch files in tmpdir; -1 where it brought
 * nothing, and for this rank's own part, which stays at base[cuts[me]..]), got[i]
 * bytes (the own part's too). round: bytes from one rank to another a round (two
 * rounds' buffers, 2 * ranks * round bytes, are allocated). GS_OK or
 * an error (its message set); files made are the caller's to close either way. */
int exchange_parts(MPI_Comm comm, const char *base, const uint64_t *cuts, size_t round,
                   const char *tmpdir, int *files, uint64_t *got);

#endif
