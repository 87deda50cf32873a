/*
 * payload.c - verifiable message contents (payload.h).
 */
#include "payload.h"

#include <stdlib.h>

static unsigned char byte_at(int src, int tag, int i)
{
	return (unsigned char)(src * 31 + tag * 7 + i * 13 + (i >> 8));
}

unsigned char *payload_new(int bytes, int src, int tag)
{
	unsigned char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);

	if (!buf)
		mpilog_fail("out of memory for a %d-byte payload", bytes);
	for (int i = 0; i < bytes; i++)
		buf[i] = byte_at(src, tag, i);
	return buf;
}

long payload_check(const unsigned char *buf, int bytes, int src, int tag,
		   const char *what)
{
	long sum = 0;

	for (int i = 0; i < bytes; i++) {
		if (buf[i] != byte_at(src, tag, i))
			mpilog_fail("%s: byte %d of %d from source %d tag %d "
				    "is %u, expected %u", what, i, bytes, src,
				    tag, buf[i], byte_at(src, tag, i));
		sum += buf[i];
	}
	return sum;
}

void payload_send(enum mpilog_send_call call, int bytes, int dst, int tag,
		  MPI_Comm comm)
{
	int me;
	unsigned char *buf;

	MPI_Comm_rank(comm, &me);
	buf = payload_new(bytes, me, tag);
	mpilog_check(mpilog_send(call, buf, bytes, dst, tag, comm, NULL),
		     "send");
	free(buf);
}

long payload_check_status(const unsigned char *buf, MPI_Status *st,
			  const char *what)
{
	int n;

	MPI_Get_count(st, MPI_BYTE, &n);
	return payload_check(buf, n, st->MPI_SOURCE, st->MPI_TAG, what);
}

long payload_recv(int bytes, int src, int tag, MPI_Comm comm)
{
	unsigned char *buf = payload_new(bytes, 0, 0);
	MPI_Status st;
	long sum;

	mpilog_check(mpilog_recv(buf, bytes, src, tag, comm, &st), "recv");
	sum = payload_check_status(buf, &st, "recv");
	free(buf);
	return sum;
}
