/*
 * hang_recv_barrier.c - a hang whose cause is a cycle: rank 0 waits in
 * MPI_Recv (tag 99) for a message rank 1 never sends, rank 1 waits for rank
 * 0 in MPI_Barrier, and every other rank waits in the barrier too.
 *
 *   mpirun -np 16 hang_recv_barrier READYDIR
 *
 * Each rank creates READYDIR/ready.RANK just before its blocking call, so a
 * test knows when the whole job is about to hang.
 */
#include "mpilog.h"

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, x = 0;

	MPI_Init(&argc, &argv);
	if (argc != 2) {
		fprintf(stderr, "usage: hang_recv_barrier READYDIR\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	mpilog_ready(argv[1], rank);
	if (rank == 0)
		MPI_Recv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
