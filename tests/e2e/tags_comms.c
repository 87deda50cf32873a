/*
 * tags_comms.c - communicators and tags that strain the OFI MTL's tag
 * fields, for `msgtrace tags`.
 *
 * Rank 0 duplicates MPI_COMM_WORLD --dups N times (never freeing, so Open
 * MPI 4.1 hands out communicator ids 3, 4, 5, ... in order) and, on every
 * --every K-th duplicate and on the last one, sends rank 1 one message
 * whose tag is the duplicate's index. On MPI_COMM_WORLD it then sends the
 * tags 7, 7 + 2^20 (which ofi_tag_2 would truncate to 7) and MPI_TAG_UB,
 * MPI_TAG_UB - 1, each only when MPI_TAG_UB allows it.
 *
 * --dups -1 duplicates until MPI_Comm_dup fails (MPI_ERRORS_RETURN): the
 * communicator-id field is then full. The program prints how many it got.
 *
 *   mpirun -np 2 tags_comms [--log DIR] [--dups N] [--every K]
 *
 * Every message goes through mpilog (label dup<i> for duplicate i).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpilog.h"

#define TAG_LOW 7
#define TAG_WRAP (TAG_LOW + (1 << 20))	/* 20-bit tag field: aliases TAG_LOW */

static void check_rc(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		mpilog_fail("%s failed with MPI error %d", what, rc);
}

/* One 8-byte message from rank 0 to rank 1. */
static void message(MPI_Comm comm, int tag)
{
	char buf[8] = "tagsmsg";
	MPI_Status st;

	if (mpilog_world_rank() == 0)
		check_rc(mpilog_send(MPILOG_SEND, buf, sizeof(buf), 1, tag, comm,
				     NULL), "send");
	else if (mpilog_world_rank() == 1)
		check_rc(mpilog_recv(buf, sizeof(buf), 0, tag, comm, &st), "recv");
}

/* Duplicates MPI_COMM_WORLD up to max times (max < 0: until it fails) and
 * returns how many it made; messages on every every-th and the last. */
static int dup_loop(int max, int every, MPI_Comm **out)
{
	int cap = max >= 0 ? max : 1024, n = 0;
	MPI_Comm *c = malloc((size_t)(cap ? cap : 1) * sizeof(*c));

	if (!c)
		mpilog_fail("out of memory");
	while (max < 0 || n < max) {
		if (n == cap && !(c = realloc(c, (size_t)(cap *= 2) * sizeof(*c))))
			mpilog_fail("out of memory");
		if (MPI_Comm_dup(MPI_COMM_WORLD, &c[n]) != MPI_SUCCESS)
			break;
		n++;
	}
	for (int i = 0; i < n; i++) {
		char label[32];

		if (i % every && i != n - 1)
			continue;
		snprintf(label, sizeof(label), "dup%d", i);
		mpilog_comm(c[i], label);
		message(c[i], i);
	}
	*out = c;
	return n;
}

int main(int argc, char **argv)
{
	int dups = 300, every = 10, *ub, flag, n;
	MPI_Comm *c;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--dups"))
			dups = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--every"))
			every = atoi(argv[i + 1]);
		else
			mpilog_fail("unknown option %s", argv[i]);
	}
	if (every < 1)
		mpilog_fail("--every must be at least 1");
	/* A refused MPI_Comm_dup must return, not abort the job. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
	if (!flag)
		mpilog_fail("no MPI_TAG_UB attribute");

	n = dup_loop(dups, every, &c);
	message(MPI_COMM_WORLD, TAG_LOW);
	if (*ub >= TAG_WRAP)
		message(MPI_COMM_WORLD, TAG_WRAP);
	message(MPI_COMM_WORLD, *ub - 1);
	message(MPI_COMM_WORLD, *ub);
	if (mpilog_world_rank() == 0)
		printf("communicators duplicated: %d; MPI_TAG_UB %d\n", n, *ub);
	mpilog_finalize();
	free(c);
	MPI_Finalize();
	return 0;
}
