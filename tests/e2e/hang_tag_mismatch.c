/*
 * hang_tag_mismatch.c - an application hang that any MPI reproduces, for
 * msgtrace to diagnose where the MPI itself has no defect to show (Open
 * MPI 5, MPICH).
 *
 * Rank 0 sends rank 1 a standard message with tag 1, then a synchronous
 * one with tag 2. Rank 1 receives the first, then waits for tag 3 from
 * rank 0: the MPI_Ssend is never matched, so neither rank returns. With
 * --control rank 1 waits for tag 2 and the program finishes. Every log
 * line is flushed, so the log survives the job being killed.
 *
 *   mpirun -np 2 hang_tag_mismatch [--log DIR] [--control]
 */
#include <stdio.h>
#include <string.h>

#include "mpilog.h"

enum { TAG_PLAIN = 1, TAG_SYNC = 2, TAG_WRONG = 3 };

int main(int argc, char **argv)
{
	int rank, control;
	char buf[64] = "msgtrace";
	MPI_Status st;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	control = argc == 2 && !strcmp(argv[1], "--control");
	if (argc > 2 || (argc == 2 && !control))
		mpilog_fail("usage: hang_tag_mismatch [--log DIR] [--control]");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		mpilog_send(MPILOG_SEND, buf, sizeof(buf), 1, TAG_PLAIN,
			    MPI_COMM_WORLD, NULL);
		mpilog_send(MPILOG_SSEND, buf, sizeof(buf), 1, TAG_SYNC,
			    MPI_COMM_WORLD, NULL);
	} else if (rank == 1) {
		mpilog_recv(buf, sizeof(buf), 0, TAG_PLAIN, MPI_COMM_WORLD, &st);
		mpilog_recv(buf, sizeof(buf), 0, control ? TAG_SYNC : TAG_WRONG,
			    MPI_COMM_WORLD, &st);
	}
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("hang_tag_mismatch: the synchronous send completed\n");
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
