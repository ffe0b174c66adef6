/* SPDX-License-Identifier: MIT */
/* mpinull.c: MPI started and ended and nothing between, as gpusort-mpi starts it
 * (MPI_Init_thread, MPI_THREAD_FUNNELED): mpirun -n N of this is the launch floor
 * under every gpusort-mpi run (tests/bench/mpi.sh times it beside them). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
