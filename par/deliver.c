/*
 * deliver.c - the messages of every rank to rank 0's pass (see mt_par.h):
 * each rank's are in its own order, keyed; rank 0 merges them by key, so
 * the sink sees them as the serial pass gives them. d NULL: rank 0 drops
 * them (the run failed).
 */
#include <stdlib.h>

#include "par_int.h"

#define PUT_BATCH 1024		/* messages per call of the pass */

/* Rank 0: the runs run[r][0..left[r]) merged by key into d (each run's
 * start and length advance as it is taken). */
static enum mt_status put(const struct par_msg **run, int *left, int n,
			  struct mt_pipe_dest *d, struct mt_err *err)
{
	static struct mt_match_msg batch[PUT_BATCH];
	size_t k = 0;

	for (;;) {
		int from = -1;

		for (int r = 0; r < n; r++)
			if (left[r] && (from < 0 || mt_par_key_cmp(&run[r]->key,
								   &run[from]->key) < 0))
				from = r;
		if (from < 0 || k == PUT_BATCH) {
			enum mt_status s;

			if (k && (s = mt_pipe_put(d, batch, k, err)))
				return s;
			if (from < 0)
				return MT_OK;
			k = 0;
		}
		batch[k++] = run[from]++->msg;
		left[from]--;
	}
}

/* Rank 0's own messages stay where they are (it sends none); the others'
 * come into got. */
enum mt_status mt_par_deliver(MPI_Comm comm, struct par_buf *msgs,
			      struct par_buf *got, struct mt_pipe_dest *d,
			      struct mt_err *err)
{
	const int size = (int)sizeof(struct par_msg);
	int rank, n, mine = (int)mt_par_buf_len(msgs), *counts = NULL, *displs = NULL;
	const struct par_msg **run = NULL;
	enum mt_status s = MT_OK;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	if (rank == 0) {
		counts = malloc((size_t)n * sizeof(*counts));
		displs = malloc((size_t)n * sizeof(*displs));
		run = malloc((size_t)n * sizeof(*run));
		if (!counts || !displs || !run)
			MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	}
	MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
	if (rank == 0) {
		int total = 0;

		counts[0] = 0;
		for (int r = 0; r < n; r++) {
			displs[r] = total * size;
			total += counts[r];
			counts[r] *= size;
		}
		if (mt_par_buf_reserve(got, (size_t)total))
			MPI_Abort(comm, MT_ERR_NOMEM);
	}
	MPI_Gatherv(rank && mine ? mt_par_buf_at(msgs, 0) : NULL,
		    rank ? mine * size : 0, MPI_BYTE, got->v, counts, displs,
		    MPI_BYTE, 0, comm);
	if (rank == 0) {
		run[0] = mine ? mt_par_buf_at(msgs, 0) : NULL;
		counts[0] = mine;
		for (int r = 1; r < n; r++) {	/* in messages: from 0 */
			counts[r] /= size;
			run[r] = counts[r] ? (const struct par_msg *)got->v +
				displs[r] / size : NULL;
		}
		s = d ? put(run, counts, n, d, err) : MT_OK;
	}
	mt_par_buf_drop(msgs, (size_t)mine);
	free(counts);
	free(displs);
	free(run);
	return s;
}
