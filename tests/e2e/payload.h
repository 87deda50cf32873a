/*
 * payload.h - message contents the e2e test programs can check.
 *
 * A payload's bytes depend on (sender's rank in the communicator, tag,
 * position), so a receiver can tell a message that arrived intact and
 * whole from one that was mixed up with another. The send and receive
 * helpers go through mpilog (mpilog.h), so every message is logged.
 */
#ifndef PAYLOAD_H
#define PAYLOAD_H

#include "mpilog.h"

/* A new buffer of bytes bytes (at least 1) holding the payload for
 * (src, tag); free() it. Exits the job when out of memory. */
unsigned char *payload_new(int bytes, int src, int tag);
/* Checks the first bytes bytes of buf against the payload for (src, tag)
 * and returns their sum; fails the job naming what when they differ. */
long payload_check(const unsigned char *buf, int bytes, int src, int tag,
		   const char *what);

/* Sends bytes bytes of the caller's payload for tag to dst in comm
 * (blocking calls only: send, ssend, bsend, rsend). */
void payload_send(enum mpilog_send_call call, int bytes, int dst, int tag,
		  MPI_Comm comm);
/* Receives one message (buffer of bytes bytes) and checks it against the
 * payload of the source and tag its status names; returns its checksum. */
long payload_recv(int bytes, int src, int tag, MPI_Comm comm);
/* Checks a received message against its status's source and tag; returns
 * its checksum. */
long payload_check_status(const unsigned char *buf, MPI_Status *st,
			  const char *what);

#endif /* PAYLOAD_H */
