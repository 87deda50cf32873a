/*
 * own.c - which analysis rank owns which traced process (see mt_par.h):
 * whole processes, the largest (bytes of its files) first to the least
 * loaded rank, ties to the lower index. Every rank computes the same.
 * Rank 0 starts loaded with 1/10 of the trace's bytes when it has
 * company: it alone takes every message into the clock stage and the
 * sink (a spill file, and 40 bytes a message where times move), so its
 * own share is the smaller one. The rounds wait for the slowest reader, so
 * the smaller the head start the sooner they end, and the more rank 0
 * holds at its peak. bench/par.sh measures both. On its 10^8 events at
 * N=2, one run each: 0/10 49.8 s (the ranks' peaks 5.8 and 4.7 GB),
 * 1/10 50.1 s (5.4, 5.1), 2/10 54.2 s (5.0, 5.6), 3/10 53.4 s (4.5, 6.0),
 * N=1 81.7 s (10.2 GB); on 10^6 messages among 64 processes 1/10 kept
 * the larger rank at 0.59 of N=1's memory, 3/10 at 0.60. A clock stage
 * that moves times (several hosts) holds more on rank 0: about 160
 * bytes a message while it solves.
 */
#include <stdlib.h>

#include "par_int.h"

enum mt_status mt_par_own(const struct mt_trace *t, int rank, int n,
			  struct par_owners *o)
{
	size_t np = t->nprocs;
	uint64_t *bytes = calloc(np ? np : 1, sizeof(*bytes));
	uint64_t *load = calloc((size_t)n, sizeof(*load));
	uint32_t *order = malloc((np ? np : 1) * sizeof(*order));
	int *owner = malloc((np ? np : 1) * sizeof(*owner));
	enum mt_status rc = MT_ERR_NOMEM;

	o->keep = calloc(np ? np : 1, 1);
	o->ep_owner = malloc((t->neps ? t->neps : 1) * sizeof(*o->ep_owner));
	o->ep_proc = malloc((t->neps ? t->neps : 1) * sizeof(*o->ep_proc));
	if (!bytes || !load || !order || !owner || !o->keep || !o->ep_owner ||
	    !o->ep_proc)
		goto out;
	for (size_t p = 0; p < np; p++) {
		order[p] = (uint32_t)p;
		for (size_t f = 0; f < t->procs[p].nfiles; f++)
			bytes[p] += t->procs[p].files[f]->map_len;
		if (n > 1)
			load[0] += bytes[p] / 10;
	}
	/* Insertion sort by bytes, descending, stable: processes are few
	 * next to their records. */
	for (size_t i = 1; i < np; i++) {
		uint32_t x = order[i];
		size_t j = i;

		for (; j && bytes[order[j - 1]] < bytes[x]; j--)
			order[j] = order[j - 1];
		order[j] = x;
	}
	for (size_t i = 0; i < np; i++) {
		int best = 0;

		for (int r = 1; r < n; r++)
			if (load[r] < load[best])
				best = r;
		owner[order[i]] = best;
		load[best] += bytes[order[i]];
		o->keep[order[i]] = best == rank;
	}
	for (size_t i = 0; i < t->neps; i++) {
		o->ep_proc[i] = t->eps[i].proc;
		o->ep_owner[i] = owner[t->eps[i].proc];
	}
	rc = MT_OK;
out:
	free(bytes);
	free(load);
	free(order);
	free(owner);
	return rc;
}

void mt_par_owners_free(struct par_owners *o)
{
	free(o->keep);
	free(o->ep_owner);
	free(o->ep_proc);
}
