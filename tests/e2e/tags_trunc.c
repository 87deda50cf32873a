/*
 * tags_trunc.c - two MPI_ERR_TRUNCATE errors with different causes, for
 * `msgtrace tags`.
 *
 * Wildcard: rank 0 sends rank 1 a 1024-byte message with tag 2 (stream B),
 * then an 8-byte one with tag 1 (stream A). Rank 1 waits until both have
 * arrived, then posts MPI_Recv(64 bytes, MPI_ANY_SOURCE, MPI_ANY_TAG)
 * meant for stream A: it matches the stream-B message and fails with
 * MPI_ERR_TRUNCATE. The receive for tag 1 follows.
 * Buffer too small: rank 2 sends rank 3 512 bytes with tag 5; rank 3
 * receives from rank 2, tag 5, into 100 bytes.
 * Both receives are posted after their message arrived: an rxm eager
 * message truncated into an already posted receive stalls the endpoint
 * (tests/e2e/README.md).
 *
 *   mpirun -np 4 tags_trunc [--log DIR]
 *
 * Truncated receives are logged with status=truncated (mpilog.h).
 */
#include <stdlib.h>
#include <string.h>

#include "mpilog.h"

enum { TAG_A = 1, TAG_B = 2, TAG_SMALL = 5 };
enum { A_BYTES = 8, B_BYTES = 1024, WILD_BUF = 64, SMALL_SEND = 512,
       SMALL_BUF = 100 };

static void check_rc(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		mpilog_fail("%s failed with MPI error %d", what, rc);
}

/* A receive that must fail with MPI_ERR_TRUNCATE. */
static void recv_truncated(int bytes, int src, int tag)
{
	char *buf = malloc(bytes);
	MPI_Status st;
	int rc, cls;

	if (!buf)
		mpilog_fail("out of memory");
	rc = mpilog_recv(buf, bytes, src, tag, MPI_COMM_WORLD, &st);
	MPI_Error_class(rc, &cls);
	if (cls != MPI_ERR_TRUNCATE)
		mpilog_fail("expected MPI_ERR_TRUNCATE, got error class %d", cls);
	free(buf);
}

static void recv_ok(int bytes, int src, int tag)
{
	char *buf = malloc(bytes);
	MPI_Status st;

	if (!buf)
		mpilog_fail("out of memory");
	check_rc(mpilog_recv(buf, bytes, src, tag, MPI_COMM_WORLD, &st), "recv");
	free(buf);
}

/* Returns once a message from src with tag has arrived. */
static void wait_arrived(int src, int tag)
{
	MPI_Status st;
	int flag;

	do
		check_rc(MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, &st), "iprobe");
	while (!flag);
}

static void send_bytes(int bytes, int dst, int tag)
{
	char *buf = calloc(1, bytes);

	if (!buf)
		mpilog_fail("out of memory");
	check_rc(mpilog_send(MPILOG_SEND, buf, bytes, dst, tag, MPI_COMM_WORLD,
			     NULL), "send");
	free(buf);
}

int main(int argc, char **argv)
{
	int me, np;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (np != 4)
		mpilog_fail("run on 4 ranks");
	if (me == 0) {
		send_bytes(B_BYTES, 1, TAG_B);
		send_bytes(A_BYTES, 1, TAG_A);
	} else if (me == 1) {
		/* Both messages must be there before the wildcard is posted:
		 * MPI's order from one sender puts B before A. */
		wait_arrived(0, TAG_A);
		recv_truncated(WILD_BUF, MPI_ANY_SOURCE, MPI_ANY_TAG);
		recv_ok(A_BYTES, 0, TAG_A);
	} else if (me == 2) {
		send_bytes(SMALL_SEND, 3, TAG_SMALL);
	} else {
		wait_arrived(2, TAG_SMALL);
		recv_truncated(SMALL_BUF, 2, TAG_SMALL);
	}
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
