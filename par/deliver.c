/*
 * deliver.c - the messages of every rank to rank 0's pass (see mt_par.h):
 * each rank's are in its own order, keyed; rank 0 merges them by key, so
 * the sink sees them as the serial pass gives them. d NULL: rank 0 drops
 * them (the run failed).
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

enum mt_status mt_par_deliver(MPI_Comm comm, struct par_buf *msgs,
			      struct par_buf *got, struct mt_pipe_dest *d,
			      struct mt_err *err)
{
	const int size = (int)sizeof(struct par_msg);
	int rank, n, mine = (int)mt_par_buf_len(msgs), *counts = NULL, *displs = NULL;
	enum mt_status s = MT_OK;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	if (rank == 0) {
		counts = malloc((size_t)n * sizeof(*counts));
		displs = malloc((size_t)n * sizeof(*displs));
		if (!counts || !displs)
			MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	}
	MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
	if (rank == 0) {
		int total = 0;

		for (int r = 0; r < n; r++) {
			displs[r] = total * size;
			total += counts[r];
			counts[r] *= size;
		}
		if (mt_par_buf_reserve(got, (size_t)total))
			MPI_Abort(comm, MT_ERR_NOMEM);
	}
	MPI_Gatherv(mine ? mt_par_buf_at(msgs, 0) : NULL, mine * size, MPI_BYTE,
		    got->v, counts, displs, MPI_BYTE, 0, comm);
	mt_par_buf_drop(msgs, (size_t)mine);
	if (rank == 0) {
		for (int r = 0; r < n; r++) {	/* in messages: next, end */
			displs[r] /= size;
			counts[r] = displs[r] + counts[r] / size;
		}
		s = d ? put(got, n, displs, counts, d, err) : MT_OK;
	}
	free(counts);
	free(displs);
	return s;
}
