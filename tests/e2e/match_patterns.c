/*
 * match_patterns.c - the message patterns a matcher must pair correctly,
 * on 2 to 4 ranks, every message logged through mpilog (mpilog.h).
 *
 *   wildcards     MPI_ANY_SOURCE and MPI_ANY_TAG receives
 *   out of order  two receives with the same source and tag, a large one
 *                 posted first: the small message completes first, yet it
 *                 belongs to the second receive (posting order decides)
 *   probes        MPI_Iprobe (miss and hit), MPI_Probe, MPI_Mprobe and
 *                 MPI_Improbe each followed by MPI_Mrecv
 *   cancel        a receive nothing matches, cancelled
 *   truncation    64 KiB into 256 bytes, under MPI_ERRORS_RETURN
 *   send modes    MPI_Ssend, MPI_Issend, MPI_Bsend, MPI_Rsend, MPI_Sendrecv
 *   communicators MPI_Comm_split (ranks reversed), MPI_Comm_dup (same tags
 *                 as on world) and MPI_Comm_create (first and last rank),
 *                 with traffic on each
 *   collectives   bcast, reduce, allreduce, alltoall, gather, scatter,
 *                 allgather and barrier, on world and on the sub-communicators
 *
 * Rank 0 prints a summary that does not depend on timing.
 *
 *   mpirun -np 2..4 match_patterns [--log DIR] [--no-ssend]
 *
 * --no-ssend turns synchronous sends into standard ones (Open MPI 4.1.4
 * hangs on MPI_Ssend in ofi_tag_1/ofi_tag_2, see TAG-LAYOUTS.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpilog.h"
#include "payload.h"

enum { SMALL = 8, MEDIUM = 1024, LARGE = 65536, BIG = 1048576 };
enum {
	TAG_WILD = 10, TAG_REPLY = 20, TAG_ORDER = 30, TAG_PROBE = 40,
	TAG_MPROBE = 41, TAG_IMPROBE = 42, TAG_NEVER = 43, TAG_CANCEL = 99,
	TAG_TRUNC = 50, TAG_SYNC = 60, TAG_BUFFERED = 61, TAG_READY = 62,
	TAG_RING = 63, TAG_COMM = 70
};

static int rank, size;
static long recvs, checksum;

static void account(const unsigned char *buf, MPI_Status *st, const char *what)
{
	checksum += payload_check_status(buf, st, what);
	recvs++;
}

static void recv_payload(int bytes, int src, int tag, MPI_Comm comm)
{
	checksum += payload_recv(bytes, src, tag, comm);
	recvs++;
}

static void barrier(MPI_Comm comm)
{
	mpilog_coll(comm, "barrier");
	MPI_Barrier(comm);
}

/* Everybody reports to rank 0 (any source, any tag), then rank 0 answers
 * everybody, who receives from any source. */
static void wildcards(void)
{
	if (rank == 0) {
		for (int i = 1; i < size; i++)
			recv_payload(MEDIUM, MPI_ANY_SOURCE, MPI_ANY_TAG,
				     MPI_COMM_WORLD);
		for (int i = 1; i < size; i++)
			payload_send(MPILOG_SEND, MEDIUM, i, TAG_REPLY,
				     MPI_COMM_WORLD);
	} else {
		payload_send(MPILOG_SEND, SMALL * rank, 0, TAG_WILD + rank,
			     MPI_COMM_WORLD);
		recv_payload(MEDIUM, MPI_ANY_SOURCE, TAG_REPLY,
			     MPI_COMM_WORLD);
	}
	/* Keeps later messages to rank 0 away from its MPI_ANY_TAG. */
	barrier(MPI_COMM_WORLD);
}

/* Rank 1 posts two receives for (0, TAG_ORDER), 1 MiB buffers both; rank 0
 * starts a 1 MiB send, then sends 8 bytes. The small message completes
 * first but belongs to the second receive. */
static void out_of_order(void)
{
	if (rank == 0) {
		unsigned char *big = payload_new(BIG, 0, TAG_ORDER);
		MPI_Request req;

		mpilog_check(mpilog_send(MPILOG_ISEND, big, BIG, 1, TAG_ORDER,
				     MPI_COMM_WORLD, &req), "isend");
		payload_send(MPILOG_SEND, SMALL, 1, TAG_ORDER, MPI_COMM_WORLD);
		mpilog_check(mpilog_wait(&req, MPI_STATUS_IGNORE), "wait");
		free(big);
	} else if (rank == 1) {
		unsigned char *buf[2];
		MPI_Request req[2];
		MPI_Status st;

		for (int i = 0; i < 2; i++) {
			buf[i] = payload_new(BIG, 0, 0);
			mpilog_check(mpilog_irecv(buf[i], BIG, 0, TAG_ORDER,
					      MPI_COMM_WORLD, &req[i]),
				 "irecv");
		}
		mpilog_check(mpilog_wait(&req[1], &st), "wait");
		account(buf[1], &st, "second receive");
		mpilog_check(mpilog_wait(&req[0], &st), "wait");
		account(buf[0], &st, "first receive");
		free(buf[0]);
		free(buf[1]);
	}
}

/* Last rank sends rank 0 three messages; rank 0 finds them with each kind
 * of probe. A Probe before each Iprobe/Improbe makes their result certain. */
static void probes(void)
{
	int last = size - 1, flag;
	unsigned char *buf;
	MPI_Message msg;
	MPI_Status st;

	if (rank == last) {
		payload_send(MPILOG_SEND, LARGE, 0, TAG_PROBE, MPI_COMM_WORLD);
		payload_send(MPILOG_SEND, MEDIUM, 0, TAG_MPROBE,
			     MPI_COMM_WORLD);
		payload_send(MPILOG_SEND, SMALL, 0, TAG_IMPROBE,
			     MPI_COMM_WORLD);
	}
	if (rank != 0)
		return;
	mpilog_check(mpilog_iprobe(last, TAG_NEVER, MPI_COMM_WORLD, &flag, &st),
		 "iprobe");
	if (flag)
		mpilog_fail("MPI_Iprobe found a message nobody sent");
	mpilog_check(mpilog_probe(last, TAG_PROBE, MPI_COMM_WORLD, &st), "probe");
	mpilog_check(mpilog_iprobe(MPI_ANY_SOURCE, TAG_PROBE, MPI_COMM_WORLD, &flag,
			       &st), "iprobe");
	if (!flag)
		mpilog_fail("MPI_Iprobe missed a message MPI_Probe saw");
	recv_payload(LARGE, last, TAG_PROBE, MPI_COMM_WORLD);

	buf = payload_new(MEDIUM, 0, 0);
	mpilog_check(mpilog_mprobe(MPI_ANY_SOURCE, TAG_MPROBE, MPI_COMM_WORLD,
			       &msg, &st), "mprobe");
	mpilog_check(mpilog_mrecv(buf, MEDIUM, &msg, &st), "mrecv");
	account(buf, &st, "mrecv");

	mpilog_check(mpilog_probe(last, TAG_IMPROBE, MPI_COMM_WORLD, &st), "probe");
	mpilog_check(mpilog_improbe(last, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg,
				&st), "improbe");
	if (!flag)
		mpilog_fail("MPI_Improbe missed a message MPI_Probe saw");
	mpilog_check(mpilog_mrecv(buf, MEDIUM, &msg, &st), "mrecv");
	account(buf, &st, "mrecv");
	free(buf);
}

/* Rank 0 cancels a receive; the last rank's 64 KiB message is truncated
 * into 256 bytes at rank 0 (rendezvous size: see p2p_mix.c for why). */
static void cancel_and_truncate(void)
{
	unsigned char buf[256];
	MPI_Request req;
	MPI_Status st;
	int cancelled, rc, eclass;

	if (rank == size - 1)
		payload_send(MPILOG_SEND, LARGE, 0, TAG_TRUNC, MPI_COMM_WORLD);
	if (rank != 0)
		return;
	mpilog_check(mpilog_irecv(buf, sizeof(buf), MPI_ANY_SOURCE, TAG_CANCEL,
			      MPI_COMM_WORLD, &req), "irecv");
	mpilog_check(mpilog_cancel_recv(&req, &cancelled), "cancel");
	if (!cancelled)
		mpilog_fail("a receive nothing matches was not cancelled");
	rc = mpilog_recv(buf, sizeof(buf), size - 1, TAG_TRUNC,
			 MPI_COMM_WORLD, &st);
	MPI_Error_class(rc, &eclass);
	if (eclass != MPI_ERR_TRUNCATE)
		mpilog_fail("truncated receive: error class %d, expected "
			    "MPI_ERR_TRUNCATE", eclass);
}

/* 0 -> 1: MPI_Ssend, MPI_Issend, MPI_Bsend; 1 -> 0: MPI_Rsend (the receive
 * is posted before the barrier that precedes it); a ring of MPI_Sendrecv. */
static void send_modes(void)
{
	static unsigned char bsend_space[SMALL + MPI_BSEND_OVERHEAD];
	unsigned char *buf = payload_new(MEDIUM, 0, 0), *out;
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Status st;
	void *detached;
	int bytes;

	if (rank == 0) {
		payload_send(MPILOG_SSEND, MEDIUM, 1, TAG_SYNC, MPI_COMM_WORLD);
		out = payload_new(LARGE, 0, TAG_SYNC);
		mpilog_check(mpilog_send(MPILOG_ISSEND,
				     out, LARGE, 1, TAG_SYNC, MPI_COMM_WORLD,
				     &req), "issend");
		mpilog_check(mpilog_wait(&req, MPI_STATUS_IGNORE), "wait");
		free(out);
		MPI_Buffer_attach(bsend_space, sizeof(bsend_space));
		payload_send(MPILOG_BSEND, SMALL, 1, TAG_BUFFERED,
			     MPI_COMM_WORLD);
		MPI_Buffer_detach(&detached, &bytes);
		mpilog_check(mpilog_irecv(buf, MEDIUM, 1, TAG_READY,
				      MPI_COMM_WORLD, &req), "irecv");
	} else if (rank == 1) {
		recv_payload(MEDIUM, 0, TAG_SYNC, MPI_COMM_WORLD);
		recv_payload(LARGE, 0, TAG_SYNC, MPI_COMM_WORLD);
		recv_payload(SMALL, 0, TAG_BUFFERED, MPI_COMM_WORLD);
	}
	barrier(MPI_COMM_WORLD);
	if (rank == 1)
		payload_send(MPILOG_RSEND, MEDIUM, 0, TAG_READY,
			     MPI_COMM_WORLD);
	if (rank == 0) {
		mpilog_check(mpilog_wait(&req, &st), "wait");
		account(buf, &st, "rsend");
	}
	out = payload_new(SMALL, rank, TAG_RING);
	mpilog_check(mpilog_sendrecv(out, SMALL, (rank + 1) % size, TAG_RING, buf,
				 MEDIUM, (rank + size - 1) % size, TAG_RING,
				 MPI_COMM_WORLD, &st), "sendrecv");
	account(buf, &st, "sendrecv");
	free(out);
	free(buf);
}

/* Comm rank 0 sends comm rank 1 a message, received with MPI_ANY_SOURCE,
 * then everybody joins a bcast and an allreduce on comm. */
static void comm_traffic(MPI_Comm comm)
{
	int me, n;
	long mine = rank, sum;

	MPI_Comm_rank(comm, &me);
	MPI_Comm_size(comm, &n);
	if (me == 0)
		payload_send(MPILOG_SEND, MEDIUM, 1, TAG_COMM, comm);
	else if (me == 1)
		recv_payload(MEDIUM, MPI_ANY_SOURCE, TAG_COMM, comm);
	mpilog_coll(comm, "bcast");
	MPI_Bcast(&mine, 1, MPI_LONG, n - 1, comm);
	mpilog_coll(comm, "allreduce");
	MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
	checksum += sum;
}

static void communicators(void)
{
	MPI_Comm reversed, dup, pair = MPI_COMM_NULL;
	MPI_Group world, ends;
	int members[2] = { 0, size - 1 };

	/* Ranks in reverse order: comm ranks differ from world ranks. */
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
	mpilog_comm(reversed, "reversed");
	comm_traffic(reversed);
	/* Same ranks and tags as world: only the communicator id differs. */
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	mpilog_comm(dup, "dup");
	comm_traffic(dup);
	/* MPI_Comm_create, not MPI_Comm_create_group: Open MPI 4.1 builds the
	 * latter with point-to-point messages on the parent communicator that
	 * carry the caller's tag (here 3 of 4 bytes each way between the two
	 * members), indistinguishable from the program's own messages. */
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 2, members, &ends);
	MPI_Comm_create(MPI_COMM_WORLD, ends, &pair);
	if (pair != MPI_COMM_NULL) {
		mpilog_comm(pair, "ends");
		comm_traffic(pair);
		MPI_Comm_free(&pair);
	}
	MPI_Group_free(&ends);
	MPI_Group_free(&world);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&reversed);
}

static void collectives(void)
{
	long one = rank + 1, sum = 0, all[4], each[4], back[4];

	mpilog_coll(MPI_COMM_WORLD, "bcast");
	MPI_Bcast(&one, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	one = rank + 1;
	mpilog_coll(MPI_COMM_WORLD, "reduce");
	MPI_Reduce(&one, &sum, 1, MPI_LONG, MPI_SUM, size - 1, MPI_COMM_WORLD);
	mpilog_coll(MPI_COMM_WORLD, "allreduce");
	MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
	for (int i = 0; i < size; i++)
		each[i] = rank * 10 + i;
	mpilog_coll(MPI_COMM_WORLD, "alltoall");
	MPI_Alltoall(each, 1, MPI_LONG, back, 1, MPI_LONG, MPI_COMM_WORLD);
	mpilog_coll(MPI_COMM_WORLD, "gather");
	MPI_Gather(&one, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	mpilog_coll(MPI_COMM_WORLD, "scatter");
	MPI_Scatter(each, 1, MPI_LONG, &one, 1, MPI_LONG, size - 1,
		    MPI_COMM_WORLD);
	mpilog_coll(MPI_COMM_WORLD, "allgather");
	MPI_Allgather(&one, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
	barrier(MPI_COMM_WORLD);
	checksum += sum + back[0] + all[size - 1];
}

static void print_summary(void)
{
	long mine[2] = { recvs, checksum }, all[8];

	MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
	if (rank != 0)
		return;
	printf("match_patterns: %d ranks%s\n", size,
	       mpilog_no_ssend() ? ", no synchronous sends" : "");
	for (int r = 0; r < size; r++)
		printf("rank %d: receives=%ld checksum=%ld\n", r, all[2 * r],
		       all[2 * r + 1]);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	if (argc > 1)
		mpilog_fail("unknown option %s (usage: match_patterns "
			    "[--log DIR] [--no-ssend])", argv[1]);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2 || size > 4)
		mpilog_fail("match_patterns runs on 2 to 4 ranks, not %d",
			    size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	wildcards();
	out_of_order();
	probes();
	cancel_and_truncate();
	send_modes();
	communicators();
	collectives();
	print_summary();

	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
