/*
 * payload.c - verifiable message contents (payload.h).
 */
#include "payload.h"

#include <stdlib.h>

#include "mpilog.h"

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
