/*
 * tracks.h - where a message's events go in a timeline output (private to
 * sink/): processes become ranks, trace files become threads, and an
 * endpoint's operations belong to the thread that enabled it (Open MPI
 * opens one endpoint per thread when it uses several).
 */
#ifndef MT_TRACKS_H
#define MT_TRACKS_H

#include <stddef.h>
#include <stdint.h>

#include "mt_trace.h"

struct tracks {
	const struct mt_trace *t;
	size_t *first;		/* per process: its first thread's number */
	size_t nthreads;	/* threads (trace files) of the whole trace */
	uint32_t *ep_thread;	/* per endpoint: global thread number */
};

int mt_sink_tracks_init(struct tracks *k, const struct mt_trace *t);
void mt_sink_tracks_fini(struct tracks *k);
/* Global thread number of endpoint ep (index in t->eps), or SIZE_MAX. */
size_t mt_sink_tracks_thread_of_ep(const struct tracks *k, int32_t ep);
/* "rank 3", or "host:pid" when the launcher gave no rank. */
void mt_sink_tracks_proc_label(const struct mt_trace *t,
			       const struct mt_trace_proc *p, char *buf, size_t len);

#endif /* MT_TRACKS_H */
