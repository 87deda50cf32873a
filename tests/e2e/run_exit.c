/*
 * run_exit.c - an MPI job that ends badly on one rank, for `msgtrace run`'s
 * exit status: every rank exchanges a message with its neighbours, then
 *   run_exit exit N    rank 1 finalizes and exits with status N
 *   run_exit signal S  rank 1 kills itself with signal S before finalizing
 * and the other ranks finalize and exit 0.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, size, in = -1, n;

	if (argc != 3 || (strcmp(argv[1], "exit") && strcmp(argv[1], "signal"))) {
		fprintf(stderr, "usage: run_exit exit N | signal S\n");
		return 2;
	}
	n = atoi(argv[2]);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 7, &in, 1, MPI_INT,
		     (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d got %d\n", rank, in);
	fflush(stdout);
	if (rank == 1 && !strcmp(argv[1], "signal"))
		raise(n);
	MPI_Finalize();
	return rank == 1 ? n : 0;
}
