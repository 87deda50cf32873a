/*
 * tracks.c - processes, threads and endpoints of a timeline (see tracks.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "mt_sink.h"
#include "tracks.h"

/* The file whose mapping holds rec: the thread that wrote it. */
static size_t file_of(const struct mt_trace_proc *p, const void *rec)
{
	for (size_t f = 0; f < p->nfiles; f++)
		if (mt_trace_file_owns(p->files[f], rec))
			return f;
	return 0;
}

int mt_sink_tracks_init(struct tracks *k, const struct mt_trace *t)
{
	k->t = t;
	k->nthreads = 0;
	k->first = malloc((t->nprocs + 1) * sizeof(*k->first));
	k->ep_thread = malloc((t->neps + 1) * sizeof(*k->ep_thread));
	if (!k->first || !k->ep_thread) {
		mt_sink_tracks_fini(k);
		return -1;
	}
	for (size_t p = 0; p < t->nprocs; p++) {
		k->first[p] = k->nthreads;
		k->nthreads += t->procs[p].nfiles;
	}
	for (size_t e = 0; e < t->neps; e++) {
		uint32_t p = t->eps[e].proc;

		k->ep_thread[e] = (uint32_t)(k->first[p] +
					     file_of(&t->procs[p], t->eps[e].rec));
	}
	return 0;
}

void mt_sink_tracks_fini(struct tracks *k)
{
	free(k->first);
	free(k->ep_thread);
	k->first = NULL;
	k->ep_thread = NULL;
}

size_t mt_sink_tracks_thread_of_ep(const struct tracks *k, int32_t ep)
{
	if (ep < 0 || (size_t)ep >= k->t->neps)
		return SIZE_MAX;
	return k->ep_thread[ep];
}

void mt_sink_tracks_proc_label(const struct mt_trace *t,
			       const struct mt_trace_proc *p, char *buf, size_t len)
{
	char r[MT_SINK_RANK_LEN];

	if (p->key >= 0)
		snprintf(buf, len, "rank %s", mt_sink_rank(t, p->key, r, sizeof(r)));
	else
		snprintf(buf, len, "%.63s:%u", p->host, p->pid);
}
