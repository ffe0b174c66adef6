/* SPDX-License-Identifier: MIT */
/* agree.c: one outcome for every rank (see agree.h). */
#include <config.h>

#include "cluster/agree.h"
#include "core/error.h"

int agree(MPI_Comm comm, int rc)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    int first = rc != GS_OK ? me : n;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == n)
        return GS_OK;
    return first == me ? rc : AGREE_PEER;
}
