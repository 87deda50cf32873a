/*
 * p2p_mix.c - a 4-rank mix of point-to-point traffic for the trace tests.
 *
 * Each phase below exercises one thing a fabric-level tracer must get
 * right: sends below and above the providers' inject (64 B rxm, 255 B
 * sockets) and eager (16 KiB rxm) limits, blocking and nonblocking;
 * MPI_ANY_SOURCE/MPI_ANY_TAG receives; synchronous sends; probes and
 * matched probes; a cancelled receive; a truncated receive; collectives;
 * and traffic on a communicator from MPI_Comm_split. Every message is
 * logged through mpilog (mpilog.h) and its contents checked (payload.h).
 *
 * Only rank 0 prints, after gathering every rank's results, and nothing it
 * prints depends on timing: runs with and without the msgtrace hook must
 * print the same thing.
 *
 *   mpirun -np 4 p2p_mix [--log DIR] [--no-ssend]
 *
 * --no-ssend turns the synchronous sends into standard ones: Open MPI 4.1.4
 * hangs on MPI_Ssend in ofi_tag_1/ofi_tag_2 (see TAG-LAYOUTS.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpilog.h"
#include "payload.h"

#define NSIZES 4
static const int sizes[NSIZES] = { 8, 1024, 65536, 1048576 };

enum {
	TAG_RING = 100, TAG_PAIR = 200, TAG_WILD_SMALL = 300,
	TAG_WILD_LARGE = 310, TAG_SYNC = 400, TAG_PROBE = 500,
	TAG_NEVER = 501, TAG_MPROBE = 510, TAG_CANCEL = 999,
	TAG_TRUNC = 700, TAG_SPLIT = 900
};

/* What each rank reports to rank 0 at the end. */
enum { R_RECVS, R_SUM, R_PROBES, R_CANCELLED, R_TRUNCATED, R_SPLIT_SUM,
       R_ALLREDUCE, R_COUNT };
static long result[R_COUNT];

/* Receives and checks one message, counting it in the results. */
static void recv_payload(int bytes, int src, int tag, MPI_Comm comm)
{
	result[R_SUM] += payload_recv(bytes, src, tag, comm);
	result[R_RECVS]++;
}

/* Blocking ring 0->1->2->3->0 for every size; even ranks send first so
 * that rendezvous-sized blocking sends cannot deadlock. */
static void phase_ring(int rank)
{
	for (int i = 0; i < NSIZES; i++) {
		if (rank % 2 == 0)
			payload_send(MPILOG_SEND, sizes[i], (rank + 1) % 4,
				     TAG_RING + i, MPI_COMM_WORLD);
		recv_payload(sizes[i], (rank + 3) % 4, TAG_RING + i,
			     MPI_COMM_WORLD);
		if (rank % 2 == 1)
			payload_send(MPILOG_SEND, sizes[i], (rank + 1) % 4,
				     TAG_RING + i, MPI_COMM_WORLD);
	}
}

/* Nonblocking exchange of every size with the opposite rank, all posted
 * before any completes. */
static void phase_pairs(int rank)
{
	int peer = (rank + 2) % 4;
	unsigned char *in[NSIZES], *out[NSIZES];
	MPI_Request req[2 * NSIZES];

	for (int i = 0; i < NSIZES; i++) {
		in[i] = payload_new(sizes[i], 0, 0);
		out[i] = payload_new(sizes[i], rank, TAG_PAIR + i);
		mpilog_check(mpilog_irecv(in[i], sizes[i], peer, TAG_PAIR + i,
				      MPI_COMM_WORLD, &req[2 * i]), "irecv");
		mpilog_check(mpilog_send(MPILOG_ISEND, out[i], sizes[i], peer,
				     TAG_PAIR + i, MPI_COMM_WORLD,
				     &req[2 * i + 1]), "isend");
	}
	mpilog_check(mpilog_waitall(2 * NSIZES, req), "waitall");
	for (int i = 0; i < NSIZES; i++) {
		result[R_SUM] += payload_check(in[i], sizes[i], peer,
					       TAG_PAIR + i, "irecv");
		result[R_RECVS]++;
		free(in[i]);
		free(out[i]);
	}
}

/* Ranks 1-3 each send rank 0 a small blocking and a larger nonblocking
 * message; rank 0 takes all six with MPI_ANY_SOURCE/MPI_ANY_TAG. The
 * barrier keeps later messages away from those wildcards. */
static void phase_wildcards(int rank)
{
	if (rank == 0) {
		for (int i = 0; i < 6; i++)
			recv_payload(sizes[1], MPI_ANY_SOURCE, MPI_ANY_TAG,
				     MPI_COMM_WORLD);
	} else {
		unsigned char *buf = payload_new(sizes[1], rank,
						 TAG_WILD_LARGE);
		MPI_Request req;

		payload_send(MPILOG_SEND, sizes[0], 0, TAG_WILD_SMALL + rank,
			     MPI_COMM_WORLD);
		mpilog_check(mpilog_send(MPILOG_ISEND, buf, sizes[1], 0,
				     TAG_WILD_LARGE, MPI_COMM_WORLD, &req),
			 "isend");
		mpilog_check(mpilog_wait(&req, MPI_STATUS_IGNORE), "wait");
		free(buf);
	}
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
}

/* Synchronous sends: 1->3 blocking, 2->0 blocking, 0->2 nonblocking at a
 * rendezvous size. */
static void phase_sync(int rank)
{
	MPI_Request req;
	unsigned char *buf;

	switch (rank) {
	case 0:
		buf = payload_new(sizes[2], 0, TAG_SYNC + 2);
		mpilog_check(mpilog_send(MPILOG_ISSEND, buf, sizes[2],
				     2, TAG_SYNC + 2, MPI_COMM_WORLD, &req),
			 "issend");
		recv_payload(sizes[0], 2, TAG_SYNC + 1, MPI_COMM_WORLD);
		mpilog_check(mpilog_wait(&req, MPI_STATUS_IGNORE), "wait");
		free(buf);
		break;
	case 1:
		payload_send(MPILOG_SSEND, sizes[1], 3, TAG_SYNC,
			     MPI_COMM_WORLD);
		break;
	case 2:
		payload_send(MPILOG_SSEND, sizes[0], 0,
			     TAG_SYNC + 1, MPI_COMM_WORLD);
		recv_payload(sizes[2], 0, TAG_SYNC + 2, MPI_COMM_WORLD);
		break;
	case 3:
		recv_payload(sizes[1], 1, TAG_SYNC, MPI_COMM_WORLD);
		break;
	}
}

/* Rank 1: an MPI_Iprobe that finds nothing, an MPI_Probe and an MPI_Iprobe
 * that find rank 3's message, then its receive. Rank 2: MPI_Probe, then
 * MPI_Improbe + MPI_Mrecv of rank 0's plain send. */
static void phase_probes(int rank)
{
	MPI_Status st;
	MPI_Message msg;
	unsigned char *buf;
	int flag = 0;

	switch (rank) {
	case 0:
		payload_send(MPILOG_SEND, sizes[1], 2, TAG_MPROBE,
			     MPI_COMM_WORLD);
		break;
	case 1:
		mpilog_check(mpilog_iprobe(3, TAG_NEVER, MPI_COMM_WORLD, &flag,
				       &st), "iprobe");
		result[R_PROBES] += flag;
		mpilog_check(mpilog_probe(3, TAG_PROBE, MPI_COMM_WORLD, &st),
			 "probe");
		mpilog_check(mpilog_iprobe(3, TAG_PROBE, MPI_COMM_WORLD, &flag,
				       &st), "iprobe");
		result[R_PROBES] += 1 + flag;
		recv_payload(sizes[2], 3, TAG_PROBE, MPI_COMM_WORLD);
		break;
	case 2:
		mpilog_check(mpilog_probe(MPI_ANY_SOURCE, TAG_MPROBE,
				      MPI_COMM_WORLD, &st), "probe");
		/* The message is there: MPI_Probe saw it. */
		mpilog_check(mpilog_improbe(MPI_ANY_SOURCE, TAG_MPROBE,
					MPI_COMM_WORLD, &flag, &msg, &st),
			 "improbe");
		if (!flag)
			mpilog_fail("MPI_Improbe missed a message MPI_Probe saw");
		result[R_PROBES] += 2;
		buf = payload_new(sizes[1], 0, 0);
		mpilog_check(mpilog_mrecv(buf, sizes[1], &msg, &st), "mrecv");
		result[R_SUM] += payload_check_status(buf, &st, "mrecv");
		result[R_RECVS]++;
		free(buf);
		break;
	case 3:
		payload_send(MPILOG_SEND, sizes[2], 1, TAG_PROBE,
			     MPI_COMM_WORLD);
		break;
	}
}

/*
 * Rank 2 cancels a receive nothing matches; rank 3 receives rank 0's 64 KiB
 * message into 256 bytes, which must fail with MPI_ERR_TRUNCATE. The
 * message is rendezvous-sized on purpose: on this machine (libfabric 1.17)
 * an rxm *eager* message truncated into an already posted receive stalls
 * the endpoint, and the next collective hangs.
 */
static void phase_cancel_truncate(int rank)
{
	unsigned char buf[256];
	MPI_Request req;
	MPI_Status st;
	int rc, eclass;

	if (rank == 0)
		payload_send(MPILOG_SEND, sizes[2], 3, TAG_TRUNC,
			     MPI_COMM_WORLD);
	if (rank == 2) {
		int cancelled;

		mpilog_check(mpilog_irecv(buf, sizeof(buf), MPI_ANY_SOURCE,
				      TAG_CANCEL, MPI_COMM_WORLD, &req),
			 "irecv");
		mpilog_check(mpilog_cancel_recv(&req, &cancelled), "cancel");
		result[R_CANCELLED] = cancelled;
	}
	if (rank == 3) {
		rc = mpilog_recv(buf, sizeof(buf), 0, TAG_TRUNC,
				 MPI_COMM_WORLD, &st);
		if (rc == MPI_SUCCESS)
			mpilog_fail("a 64 KiB message fit a 256-byte buffer");
		MPI_Error_class(rc, &eclass);
		result[R_TRUNCATED] = eclass == MPI_ERR_TRUNCATE;
	}
}

static void phase_collectives(void)
{
	long sum;

	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	mpilog_coll(MPI_COMM_WORLD, "allreduce");
	MPI_Allreduce(&result[R_SUM], &sum, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	result[R_ALLREDUCE] = sum;
}

/* Even and odd world ranks form two communicators; in each, rank 0 sends
 * rank 1 a small message (received with MPI_ANY_SOURCE) and a large one. */
static void phase_split(int rank)
{
	MPI_Comm split;
	long sum;
	int me;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
	mpilog_comm(split, rank % 2 ? "odd" : "even");
	MPI_Comm_rank(split, &me);
	if (me == 0) {
		payload_send(MPILOG_SEND, sizes[0], 1, TAG_SPLIT, split);
		payload_send(MPILOG_SEND, sizes[2], 1, TAG_SPLIT + 1, split);
	} else {
		long before = result[R_SUM];

		recv_payload(sizes[0], MPI_ANY_SOURCE, TAG_SPLIT, split);
		recv_payload(sizes[2], 0, TAG_SPLIT + 1, split);
		result[R_SPLIT_SUM] = result[R_SUM] - before;
	}
	mpilog_coll(split, "allreduce");
	MPI_Allreduce(&result[R_SPLIT_SUM], &sum, 1, MPI_LONG, MPI_SUM, split);
	result[R_SPLIT_SUM] = sum;
	MPI_Comm_free(&split);
}

static void print_results(int rank)
{
	static const char *const names[R_COUNT] = {
		"receives", "checksum", "probes found", "cancelled",
		"truncated", "split checksum", "allreduce"
	};
	long all[4][R_COUNT];

	MPI_Gather(result, R_COUNT, MPI_LONG, all, R_COUNT, MPI_LONG, 0,
		   MPI_COMM_WORLD);
	if (rank != 0)
		return;
	printf("p2p_mix: 4 ranks, sizes 8 1024 65536 1048576%s\n",
	       mpilog_no_ssend() ? ", no synchronous sends" : "");
	for (int r = 0; r < 4; r++) {
		printf("rank %d:", r);
		for (int i = 0; i < R_COUNT; i++)
			printf(" %s=%ld%s", names[i], all[r][i],
			       i + 1 < R_COUNT ? "," : "\n");
	}
}

int main(int argc, char **argv)
{
	int rank, size;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	if (argc > 1)
		mpilog_fail("unknown option %s (usage: p2p_mix [--log DIR] "
			    "[--no-ssend])", argv[1]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 4)
		mpilog_fail("p2p_mix needs exactly 4 ranks, not %d", size);
	/* Truncation must come back as an error code, not abort the job. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	phase_ring(rank);
	phase_pairs(rank);
	phase_wildcards(rank);
	phase_sync(rank);
	phase_probes(rank);
	phase_cancel_truncate(rank);
	phase_collectives();
	phase_split(rank);
	print_results(rank);

	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
