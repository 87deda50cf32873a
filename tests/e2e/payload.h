/*
 * payload.h - message contents the e2e test programs can check.
 *
 * A payload's bytes depend on (sender's rank in the communicator, tag,
 * position), so a receiver can tell a message that arrived intact and
 * whole from one that was mixed up with another.
 */
#ifndef PAYLOAD_H
#define PAYLOAD_H

/* A new buffer of bytes bytes (at least 1) holding the payload for
 * (src, tag); free() it. Exits the job when out of memory. */
unsigned char *payload_new(int bytes, int src, int tag);
/* Checks the first bytes bytes of buf against the payload for (src, tag)
 * and returns their sum; fails the job naming what when they differ. */
long payload_check(const unsigned char *buf, int bytes, int src, int tag,
		   const char *what);

#endif /* PAYLOAD_H */
