/*
 * defect_trunc.c - the truncated receive after which Open MPI 5.0.7 over
 * libfabric 2.1's tcp;ofi_rxm crashes, with or without any hook (README
 * "Known MPI defects"; mpi_defects.sh shows it and what the trace keeps).
 *
 * 2 ranks. Rank 1 sends rank 0 WARMUP messages of 64 bytes (tag 1), then
 * one rendezvous-sized message of TRUNC_SEND bytes (tag 7), which rank 0
 * receives into TRUNC_BUF bytes under MPI_ERRORS_RETURN: MPI_ERR_TRUNCATE.
 * Then both ranks exchange AFTER messages of 64 bytes each way (tag 2) and
 * enter a barrier. Each step is logged (mpilog.h) before the next, and each
 * rank prints "rank R: done" at the end: where a run stops shows how far it
 * got.
 *
 *   mpirun -np 2 defect_trunc [--log DIR]
 */
#include <stdio.h>
#include <string.h>

#include "mpilog.h"

enum { WARMUP = 4, AFTER = 4, SMALL = 64, TRUNC_SEND = 16385, TRUNC_BUF = 256 };
enum { TAG_WARM = 1, TAG_AFTER = 2, TAG_TRUNC = 7 };

static unsigned char big[TRUNC_SEND];

int main(int argc, char **argv)
{
	unsigned char buf[TRUNC_BUF], small[SMALL];
	MPI_Status st;
	int rank, size, rc, cls, i;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2)
		mpilog_fail("run on 2 ranks, not %d", size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	memset(small, rank + 1, sizeof(small));
	memset(big, 0x5a, sizeof(big));

	for (i = 0; i < WARMUP; i++) {
		if (rank == 1)
			mpilog_check(mpilog_send(MPILOG_SEND, small, SMALL, 0,
						 TAG_WARM, MPI_COMM_WORLD, NULL),
				     "warm-up send");
		else
			mpilog_check(mpilog_recv(small, SMALL, 1, TAG_WARM,
						 MPI_COMM_WORLD, &st),
				     "warm-up recv");
	}
	if (rank == 1) {
		mpilog_check(mpilog_send(MPILOG_SEND, big, TRUNC_SEND, 0,
					 TAG_TRUNC, MPI_COMM_WORLD, NULL),
			     "rendezvous send");
	} else {
		rc = mpilog_recv(buf, TRUNC_BUF, 1, TAG_TRUNC, MPI_COMM_WORLD,
				 &st);
		MPI_Error_class(rc, &cls);
		if (cls != MPI_ERR_TRUNCATE)
			mpilog_fail("expected MPI_ERR_TRUNCATE, got error class %d", cls);
	}
	for (i = 0; i < AFTER; i++) {
		MPI_Request req;

		mpilog_check(mpilog_irecv(small, SMALL, 1 - rank, TAG_AFTER,
					  MPI_COMM_WORLD, &req), "irecv");
		mpilog_check(mpilog_send(MPILOG_SEND, small, SMALL, 1 - rank,
					 TAG_AFTER, MPI_COMM_WORLD, NULL), "send");
		mpilog_check(mpilog_wait(&req, &st), "wait");
	}
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d: done\n", rank);
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
