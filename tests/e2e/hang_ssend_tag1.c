/*
 * hang_ssend_tag1.c - a real hang for msgtrace to diagnose: Open MPI 4.1.4
 * in ofi_tag_1 or ofi_tag_2 never completes a blocking MPI_Ssend to a
 * destination whose fi_addr is not 0 (the sender posts the receive for the
 * acknowledgement with the wrong source, see TAG-LAYOUTS.md).
 *
 * Rank 0 sends rank 2 (fi_addr 2: the address vector holds every rank in
 * world order) one standard message, which completes, then one synchronous
 * message: rank 2 receives both, rank 0 waits for an ACK that never
 * matches. Every line of the mpilog log is flushed as it is written, so the
 * log survives the job being killed. In ofi_tag_full the program finishes.
 *
 *   mpirun -np 3 --mca mtl_ofi_tag_mode ofi_tag_1 hang_ssend_tag1 [--log DIR]
 */
#include <stdio.h>

#include "mpilog.h"

enum { TAG_PLAIN = 1, TAG_SYNC = 2, DST = 2 };

int main(int argc, char **argv)
{
	int rank, size;
	char buf[64] = "msgtrace";
	MPI_Status st;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	if (argc > 1)
		mpilog_fail("usage: hang_ssend_tag1 [--log DIR]");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 3)
		mpilog_fail("hang_ssend_tag1 needs 3 ranks or more, not %d",
			    size);
	if (rank == 0) {
		mpilog_send(MPILOG_SEND, buf, sizeof(buf), DST, TAG_PLAIN,
			    MPI_COMM_WORLD, NULL);
		mpilog_blocks();	/* where it hangs */
		mpilog_send(MPILOG_SSEND, buf, sizeof(buf), DST, TAG_SYNC,
			    MPI_COMM_WORLD, NULL);
	} else if (rank == DST) {
		mpilog_recv(buf, sizeof(buf), 0, TAG_PLAIN, MPI_COMM_WORLD, &st);
		mpilog_recv(buf, sizeof(buf), 0, TAG_SYNC, MPI_COMM_WORLD, &st);
	}
	mpilog_blocks();		/* the others hang here */
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("hang_ssend_tag1: the synchronous send completed\n");
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
