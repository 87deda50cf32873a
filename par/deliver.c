/*
 * deliver.c - the messages of every rank to rank 0's pass (see mt_par.h):
 * gathered in one step, put into the pass in another, so that the engine
 * gathers a round's messages while every rank is in MPI anyway (right
 * after the exchange of states) and rank 0 puts them after its own
 * matching, not waiting for the slowest rank's. Each rank's messages are
 * in its own order, keyed; rank 0 merges them by key, so the sink sees
 * them as the serial pass gives them. d NULL: rank 0 drops them (the run
 * failed).
 */
#include <stdlib.h>

#include "par_int.h"

#define PUT_BATCH 1024		/* messages per call of the pass */

/* Rank 0: runs [next[r], end[r]) of got merged into d. */
static enum mt_status put(const struct par_buf *got, int n, int *next,
			  const int *end, struct mt_pipe_dest *d, struct mt_err *err)
{
	static struct mt_match_msg batch[PUT_BATCH];
	const struct par_msg *v = got->v;
	enum mt_status s;
	size_t k = 0;

	for (;;) {
		int from = -1;

		for (int r = 0; r < n; r++)
			if (next[r] < end[r] &&
			    (from < 0 || mt_par_key_cmp(&v[next[r]].key,
							&v[next[from]].key) < 0))
				from = r;
		if (from < 0 || k == PUT_BATCH) {
			if (k && (s = mt_pipe_put(d, batch, k, err)))
				return s;
			if (from < 0)
				return MT_OK;
			k = 0;
		}
		batch[k++] = v[next[from]++].msg;
	}
}

int mt_par_deliver_init(struct par_deliver *dv, MPI_Comm comm)
{
	*dv = (struct par_deliver){ .comm = comm };
	MPI_Comm_rank(comm, &dv->rank);
	MPI_Comm_size(comm, &dv->n);
	dv->got.size = sizeof(struct par_msg);
	if (dv->rank)
		return 0;
	dv->next = malloc((size_t)dv->n * sizeof(*dv->next));
	dv->end = malloc((size_t)dv->n * sizeof(*dv->end));
	return dv->next && dv->end ? 0 : -1;
}

void mt_par_deliver_gather(struct par_deliver *dv, struct par_buf *msgs)
{
	const int size = (int)sizeof(struct par_msg);
	int mine = (int)mt_par_buf_len(msgs), *counts = dv->end, *displs = dv->next;

	MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, dv->comm);
	if (dv->rank == 0) {
		int total = 0;

		for (int r = 0; r < dv->n; r++) {
			displs[r] = total * size;
			total += counts[r];
			counts[r] *= size;
		}
		dv->got.head = dv->got.n = 0;
		if (mt_par_buf_reserve(&dv->got, (size_t)total))
			MPI_Abort(dv->comm, MT_ERR_NOMEM);	/* none may wait */
	}
	MPI_Gatherv(mine ? mt_par_buf_at(msgs, 0) : NULL, mine * size, MPI_BYTE,
		    dv->got.v, counts, displs, MPI_BYTE, 0, dv->comm);
	mt_par_buf_drop(msgs, (size_t)mine);
	if (dv->rank == 0)
		for (int r = 0; r < dv->n; r++) {	/* in messages: next, end */
			displs[r] /= size;
			counts[r] = displs[r] + counts[r] / size;
		}
}

enum mt_status mt_par_deliver_put(struct par_deliver *dv, struct mt_pipe_dest *d,
				  struct mt_err *err)
{
	if (dv->rank || !d)
		return MT_OK;
	return put(&dv->got, dv->n, dv->next, dv->end, d, err);
}

void mt_par_deliver_free(struct par_deliver *dv)
{
	mt_par_buf_free(&dv->got);
	free(dv->next);
	free(dv->end);
}
