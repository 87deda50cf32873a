/*
 * run_job.c - an MPI job for `msgtrace run`, on any number of ranks, with
 * traffic every MPI and provider carries (no truncation, no probe): each
 * rank sends 8 B, 1 KiB and 64 KiB to its right neighbour (standard,
 * nonblocking and synchronous sends, one MPI_ANY_SOURCE receive), then an
 * allreduce; every message logged through mpilog (mpilog.h). Then
 *   run_job ok         every rank finalizes and exits 0
 *   run_job exit N     rank 1 finalizes and exits with status N
 *   run_job signal S   rank 1 kills itself with signal S before finalizing
 * Rank 0 prints the allreduce's result, which does not depend on timing.
 *
 *   mpirun -np N run_job [--log DIR] ok | exit N | signal S
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpilog.h"

enum { TAG = 5 };

static void ring(int rank, int size)
{
	static const int bytes[] = { 8, 1024, 65536 };
	static char out[65536], in[65536];
	const enum mpilog_send_call call[] = { MPILOG_SEND, MPILOG_ISEND,
		mpilog_no_ssend() ? MPILOG_SEND : MPILOG_SSEND };
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	memset(out, rank, sizeof(out));
	for (int i = 0; i < 3; i++) {
		MPI_Request rr, sr;
		MPI_Status st;

		/* The last receive takes any source: one wildcard receive. */
		mpilog_check(mpilog_irecv(in, bytes[i], i == 2 ? MPI_ANY_SOURCE :
					  left, TAG + i, MPI_COMM_WORLD, &rr), "irecv");
		mpilog_check(mpilog_send(call[i], out, bytes[i], right, TAG + i,
					 MPI_COMM_WORLD, &sr), "send");
		if (call[i] == MPILOG_ISEND)
			mpilog_check(mpilog_wait(&sr, &st), "wait send");
		mpilog_check(mpilog_wait(&rr, &st), "wait recv");
		if (in[0] != (char)left)
			mpilog_fail("rank %d: %d bytes from rank %d hold %d", rank,
				    bytes[i], left, in[0]);
	}
}

int main(int argc, char **argv)
{
	int rank, size, sum = 0, n = 0;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	if (!(argc == 2 && !strcmp(argv[1], "ok")) &&
	    !(argc == 3 && (!strcmp(argv[1], "exit") ||
			    !strcmp(argv[1], "signal"))))
		mpilog_fail("usage: run_job [--log DIR] ok | exit N | signal S");
	if (argc == 3)
		n = atoi(argv[2]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	ring(rank, size);
	mpilog_coll(MPI_COMM_WORLD, "allreduce");
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank)
		printf("run_job: %d ranks, sum of ranks %d\n", size, sum);
	fflush(stdout);
	if (rank == 1 && argc == 3 && !strcmp(argv[1], "signal"))
		raise(n);
	mpilog_finalize();
	MPI_Finalize();
	return rank == 1 && argc == 3 ? n : 0;
}
