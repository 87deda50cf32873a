/*
 * hang_mprobe_ssend.c - a real hang for msgtrace to diagnose: Open MPI
 * 4.1.4 sends no acknowledgement for an MPI_Ssend that the receiver takes
 * with MPI_Improbe + MPI_Mrecv (fixed in 5.0), so the sender never returns.
 *
 * Rank 0 sends rank 1 one standard message, then one synchronous message;
 * rank 1 receives the first with MPI_Recv and finds the second with
 * MPI_Improbe, then receives it with MPI_Mrecv. With --plain-recv rank 1
 * uses MPI_Recv for both and the program finishes (the control run).
 * Every log line is flushed, so the log survives the job being killed.
 *
 *   mpirun -np 2 hang_mprobe_ssend [--log DIR] [--plain-recv]
 */
#include <stdio.h>
#include <string.h>

#include "mpilog.h"

enum { TAG_PLAIN = 1, TAG_SYNC = 2 };

int main(int argc, char **argv)
{
	int rank, size, flag = 0, plain;
	char buf[64] = "msgtrace";
	MPI_Message msg;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	plain = argc == 2 && !strcmp(argv[1], "--plain-recv");
	if (argc > 2 || (argc == 2 && !plain))
		mpilog_fail("usage: hang_mprobe_ssend [--log DIR] [--plain-recv]");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2)
		mpilog_fail("hang_mprobe_ssend needs 2 ranks or more");
	if (rank == 0) {
		mpilog_send(MPILOG_SEND, buf, sizeof(buf), 1, TAG_PLAIN,
			    MPI_COMM_WORLD, NULL);
		mpilog_blocks();	/* where it hangs */
		mpilog_send(MPILOG_SSEND, buf, sizeof(buf), 1, TAG_SYNC,
			    MPI_COMM_WORLD, NULL);
	} else if (rank == 1) {
		mpilog_recv(buf, sizeof(buf), 0, TAG_PLAIN, MPI_COMM_WORLD, &st);
		if (plain) {
			mpilog_recv(buf, sizeof(buf), 0, TAG_SYNC,
				    MPI_COMM_WORLD, &st);
		} else {
			/* Probe first, so that the one MPI_Improbe finds it. */
			mpilog_probe(0, TAG_SYNC, MPI_COMM_WORLD, &st);
			mpilog_improbe(0, TAG_SYNC, MPI_COMM_WORLD, &flag,
				       &msg, &st);
			if (!flag)
				mpilog_fail("MPI_Improbe missed a message "
					    "MPI_Probe saw");
			mpilog_mrecv(buf, sizeof(buf), &msg, &st);
		}
	}
	mpilog_blocks();		/* the others hang here */
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("hang_mprobe_ssend: the synchronous send completed\n");
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
