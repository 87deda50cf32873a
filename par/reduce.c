/*
 * reduce.c - the summary of every rank's matcher as one matcher would have
 * it (see mt_par.h): counts summed, each warning's first examples by their
 * keys (each rank's first ones are among the first of all), the pending
 * operations in the matcher's own order.
 */
#include <stdlib.h>
#include <string.h>

#include "par_int.h"

void mt_par_examples(struct par_local *l, const struct mt_match *m,
		     unsigned phase, const struct mt_pipe_at *at, uint64_t *sub)
{
	const struct mt_match_summary *s = mt_match_summary(m);

	if (s->n_examples == l->n_seen)
		return;
	l->n_seen = s->n_examples;
	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++)
		for (; l->n_keyed[w] < s->warn[w].n_examples; l->n_keyed[w]++) {
			struct par_example *e = &l->ex[w][l->n_keyed[w]];

			e->msg = s->warn[w].example[l->n_keyed[w]];
			e->key = phase ? mt_par_end_key(phase, &e->msg, *sub) :
				(struct par_key){ 0, at->key, at->where, *sub };
			++*sub;
		}
}

/* What a rank sends rank 0 besides its pending operations. */
struct fixed {
	struct mt_match_summary sum;	/* pending: not sent */
	struct par_example ex[MT_MATCH_W_COUNT][MT_MATCH_EXAMPLES];
	uint64_t events, skipped;
};

/* Adds w's examples of f to out, keeping the first MT_MATCH_EXAMPLES by
 * key (keys[] beside out's). */
static void add_examples(struct mt_match_warn *out, struct par_key *keys,
			 const struct fixed *f, unsigned w)
{
	for (unsigned i = 0; i < f->sum.warn[w].n_examples; i++) {
		const struct par_example *e = &f->ex[w][i];
		unsigned at = out->n_examples;

		while (at && mt_par_key_cmp(&e->key, &keys[at - 1]) < 0)
			at--;
		if (at >= MT_MATCH_EXAMPLES)
			continue;
		unsigned last = out->n_examples < MT_MATCH_EXAMPLES ?
			out->n_examples : MT_MATCH_EXAMPLES - 1;

		memmove(&out->example[at + 1], &out->example[at],
			(last - at) * sizeof(out->example[0]));
		memmove(&keys[at + 1], &keys[at], (last - at) * sizeof(keys[0]));
		out->example[at] = e->msg;
		keys[at] = e->key;
		if (out->n_examples < MT_MATCH_EXAMPLES)
			out->n_examples++;
	}
}

/* Sums f into out (rank 0). */
static void add(struct mt_match_summary *out,
		struct par_key keys[][MT_MATCH_EXAMPLES], const struct fixed *f)
{
	const struct mt_match_summary *s = &f->sum;

	out->ops += s->ops;
	out->cqes += s->cqes;
	out->messages += s->messages;
	for (unsigned i = 0; i < MT_MATCH_ST_COUNT; i++)
		out->by_status[i] += s->by_status[i];
	out->probes += s->probes;
	out->probe_hits += s->probe_hits;
	out->probe_misses += s->probe_misses;
	out->claims += s->claims;
	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++) {
		out->warn[w].count += s->warn[w].count;
		add_examples(&out->warn[w], keys[w], f, w);
	}
	out->n_pending += s->n_pending;
	out->abandoned_at_close += s->abandoned_at_close;
	out->pending_delivered_sends += s->pending_delivered_sends;
	out->before_window += s->before_window;
}

void mt_par_reduce(MPI_Comm comm, const struct mt_match *m,
			     const struct par_local *l,
			     struct mt_match_summary *out, uint64_t *events,
			     uint64_t *skipped)
{
	struct fixed mine, *all = NULL;
	struct par_key keys[MT_MATCH_W_COUNT][MT_MATCH_EXAMPLES];
	int rank, n, *counts = NULL, *displs = NULL;
	const struct mt_match_summary *s = mt_match_summary(m);
	size_t psize = sizeof(*s->pending);

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	memset(&mine, 0, sizeof(mine));
	mine.sum = *s;
	mine.sum.pending = NULL;
	memcpy(mine.ex, l->ex, sizeof(mine.ex));
	mine.events = l->events;
	mine.skipped = l->skipped;
	memset(out, 0, sizeof(*out));
	if (rank == 0) {
		all = malloc((size_t)n * sizeof(*all));
		counts = malloc((size_t)n * sizeof(*counts));
		displs = malloc((size_t)n * sizeof(*displs));
		if (!all || !counts || !displs)
			MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	}
	MPI_Gather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, 0,
		   comm);
	if (rank == 0) {
		int off = 0;

		*events = *skipped = 0;
		for (int r = 0; r < n; r++) {
			add(out, keys, &all[r]);
			*events += all[r].events;
			*skipped += all[r].skipped;
			counts[r] = (int)(all[r].sum.n_pending * psize);
			displs[r] = off;
			off += counts[r];
		}
		if (!(out->pending = malloc(out->n_pending ? out->n_pending * psize : 1)))
			MPI_Abort(comm, MT_ERR_NOMEM);
	}
	MPI_Gatherv(s->pending, (int)(s->n_pending * psize), MPI_BYTE,
		    out->pending, counts, displs, MPI_BYTE, 0, comm);
	if (rank == 0 && out->n_pending)
		qsort(out->pending, out->n_pending, psize, mt_match_pending_cmp);
	free(all);
	free(counts);
	free(displs);
}

void mt_par_summary_free(struct mt_match_summary *s)
{
	free(s->pending);
	s->pending = NULL;
	s->n_pending = 0;
}
