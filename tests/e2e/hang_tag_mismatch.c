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
 * With --deadline the same mismatch is made with MPI_Issend and MPI_Irecv,
 * each polled with MPI_Test for DEADLINE_S seconds; each rank then prints
 * whether its request completed and finalizes with it still posted: the
 * hang a deadline ends, which tracers that write their trace in
 * MPI_Finalize (EZTrace) can record. The MPI_Irecv is not logged (the log
 * holds finished receives); the printed line says what became of it.
 *
 *   mpirun -np 2 hang_tag_mismatch [--log DIR] [--control | --deadline]
 */
#include <stdio.h>
#include <string.h>

#include "mpilog.h"

enum { TAG_PLAIN = 1, TAG_SYNC = 2, TAG_WRONG = 3 };
#define DEADLINE_S 2.0

/* Polls req for DEADLINE_S seconds; prints what became of it. */
static void poll_until_deadline(int rank, MPI_Request *req)
{
	double t0 = MPI_Wtime();
	int done = 0;

	while (!done && MPI_Wtime() - t0 < DEADLINE_S)
		mpilog_check(MPI_Test(req, &done, MPI_STATUS_IGNORE), "MPI_Test");
	printf("hang_tag_mismatch: rank %d: %s %s after %.0f s\n", rank,
	       rank == 0 ? "MPI_Issend tag 2" : "MPI_Irecv tag 3",
	       done ? "completed" : "still pending", DEADLINE_S);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int rank, control, deadline;
	char buf[64] = "msgtrace", rbuf[64];
	MPI_Request req;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	control = argc == 2 && !strcmp(argv[1], "--control");
	deadline = argc == 2 && !strcmp(argv[1], "--deadline");
	if (argc > 2 || (argc == 2 && !control && !deadline))
		mpilog_fail("usage: hang_tag_mismatch [--log DIR] [--control | --deadline]");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		mpilog_send(MPILOG_SEND, buf, sizeof(buf), 1, TAG_PLAIN,
			    MPI_COMM_WORLD, NULL);
		mpilog_blocks();	/* where it hangs */
		mpilog_send(deadline ? MPILOG_ISSEND : MPILOG_SSEND, buf, sizeof(buf),
			    1, TAG_SYNC, MPI_COMM_WORLD, &req);
	} else if (rank == 1) {
		mpilog_recv(buf, sizeof(buf), 0, TAG_PLAIN, MPI_COMM_WORLD, &st);
		if (deadline)
			mpilog_check(MPI_Irecv(rbuf, sizeof(rbuf), MPI_BYTE, 0, TAG_WRONG,
					       MPI_COMM_WORLD, &req), "MPI_Irecv");
		else
			mpilog_blocks(), mpilog_recv(buf, sizeof(buf), 0,
						     control ? TAG_SYNC : TAG_WRONG,
						     MPI_COMM_WORLD, &st);
	}
	if (deadline && rank < 2)
		poll_until_deadline(rank, &req);
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && !deadline)
		printf("hang_tag_mismatch: the synchronous send completed\n");
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
