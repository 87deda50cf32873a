/*
 * ring_hang.c - a long run that ends in a hang, for the flight recorder
 * (ring mode): 2 ranks exchange 4-byte ping-pongs (tag 5 there, tag 6
 * back) for SECONDS and at least MIN_TRIPS round trips (default 0), then
 * rank 0 waits in MPI_Recv for tag 99, which rank 1 never sends, while
 * rank 1 waits for rank 0 in MPI_Barrier.
 *
 *   mpirun -np 2 ring_hang READYDIR SECONDS [MIN_TRIPS]
 *
 * Each rank prints its round trips ("ring_hang: rank R round trips N",
 * flushed) and creates READYDIR/ready.RANK just before its blocking call.
 */
#include "mpilog.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_PING = 5, TAG_PONG = 6, TAG_NEVER = 99 };

int main(int argc, char **argv)
{
	int rank, size, x = 0, more = 1;
	long long trips = 0, min_trips;
	double end;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || argc > 4 || size != 2 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: mpirun -np 2 ring_hang READYDIR SECONDS [MIN_TRIPS]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	min_trips = argc == 4 ? atoll(argv[3]) : 0;
	end = MPI_Wtime() + atof(argv[2]);
	/* Rank 0 says in each ping whether another follows. */
	while (more) {
		if (rank == 0) {
			more = MPI_Wtime() < end || trips + 1 < min_trips;
			MPI_Send(&more, 1, MPI_INT, 1, TAG_PING, MPI_COMM_WORLD);
			MPI_Recv(&x, 1, MPI_INT, 1, TAG_PONG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&more, 1, MPI_INT, 0, TAG_PING, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(&x, 1, MPI_INT, 0, TAG_PONG, MPI_COMM_WORLD);
		}
		trips++;
	}
	printf("ring_hang: rank %d round trips %lld\n", rank, trips);
	fflush(stdout);
	mpilog_ready(argv[1], rank);
	if (rank == 0)
		MPI_Recv(&x, 1, MPI_INT, 1, TAG_NEVER, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
