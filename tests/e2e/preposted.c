/*
 * preposted.c - long-lived wildcard receives through heavy traffic: rank 0
 * posts K MPI_Irecv(MPI_ANY_SOURCE, tag 999) and keeps them posted during
 * N ping-pongs (tag 1) with rank 1; rank 1 then sends the K messages that
 * satisfy them. Applications prepost receives like these for termination
 * or control messages; a matcher must pair everything else as fast as
 * without them (bench/preposted.sh times `msgtrace report` on both).
 * Ranks past 1 only take part in MPI_Init and MPI_Finalize.
 *
 *   mpirun -np 2 preposted [--log DIR] [--pingpongs N] [--preposted K]
 *
 * Defaults N = 2000, K = 200. Rank 0 prints a summary that does not depend
 * on timing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpilog.h"

#define TAG_PINGPONG 1
#define TAG_LATE 999

static long arg(int argc, char **argv, const char *name, long dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 10);
	return dflt;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	long n = arg(argc, argv, "--pingpongs", 2000);
	long k = arg(argc, argv, "--preposted", 200);
	int rank = mpilog_world_rank(), size;
	char buf[8] = { 0 };
	MPI_Status st;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2 || n < 0 || k < 0)
		mpilog_fail("needs 2 ranks or more, N >= 0, K >= 0");
	MPI_Request *req = calloc((size_t)k + 1, sizeof(*req));
	char (*late)[8] = calloc((size_t)k + 1, sizeof(*late));

	if (!req || !late)
		mpilog_fail("out of memory");
	if (rank == 0) {
		for (long i = 0; i < k; i++)
			mpilog_check(mpilog_irecv(late[i], 8, MPI_ANY_SOURCE, TAG_LATE,
						  MPI_COMM_WORLD, &req[i]), "irecv");
		for (long i = 0; i < n; i++) {
			mpilog_check(mpilog_send(MPILOG_SEND, buf, 8, 1, TAG_PINGPONG,
						 MPI_COMM_WORLD, NULL), "send");
			mpilog_check(mpilog_recv(buf, 8, 1, TAG_PINGPONG,
						 MPI_COMM_WORLD, &st), "recv");
		}
		mpilog_check(mpilog_waitall((int)k, req), "waitall");
		printf("rank 0: %ld ping-pongs with %ld receives preposted, all "
		       "satisfied\n", n, k);
	} else if (rank == 1) {
		for (long i = 0; i < n; i++) {
			mpilog_check(mpilog_recv(buf, 8, 0, TAG_PINGPONG,
						 MPI_COMM_WORLD, &st), "recv");
			mpilog_check(mpilog_send(MPILOG_SEND, buf, 8, 0, TAG_PINGPONG,
						 MPI_COMM_WORLD, NULL), "send");
		}
		for (long i = 0; i < k; i++)
			mpilog_check(mpilog_send(MPILOG_SEND, buf, 8, 0, TAG_LATE,
						 MPI_COMM_WORLD, NULL), "send");
	}
	free(req);
	free(late);
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
