/*
 * evidence.c - the tag layouts decided on every rank as the serial pass
 * decides them (mt_pipe_detect), each rank reading only its own processes'
 * files: an endpoint's evidence comes from its process's files alone, so
 * its owner gathers all of it, and the ranks exchange what they gathered.
 * Reading the head of every file on every rank instead touched most of
 * the trace's pages on each (6.5 of 8.3 GB at 10^8 events).
 */
#include <stdint.h>
#include <stdlib.h>

#include "par_int.h"

/* A bad record the evidence met: the serial detection leaves the first
 * file's error in err, and the command ends with it. */
struct bad {
	uint64_t file;			/* index in t->files, UINT64_MAX: none */
	struct mt_err err;
};

/* Every rank's first bad file, the lowest one's error into err. */
static void first_bad(MPI_Comm comm, int n, size_t file, struct mt_err *err)
{
	struct bad mine = { file == SIZE_MAX ? UINT64_MAX : file, *err };
	struct bad *all = malloc((size_t)n * sizeof(*all));
	int low = 0;

	if (!all)
		MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE,
		      comm);
	for (int r = 1; r < n; r++)
		if (all[r].file < all[low].file)
			low = r;
	if (all[low].file != UINT64_MAX)
		*err = all[low].err;
	free(all);
}

enum mt_status mt_par_layouts(MPI_Comm comm, struct mt_pipe_split *sp,
			      const struct par_owners *own, struct mt_err *err)
{
	const struct mt_trace *t = mt_pipe_split_trace(sp);
	size_t bad_file;
	struct mt_tag_evidence *ev = mt_pipe_split_evidence(sp, own->keep,
							    &bad_file, err);
	struct mt_tag_evidence *mine = malloc((t->neps + 1) * sizeof(*mine));
	struct mt_tag_evidence *all = malloc((t->neps + 1) * sizeof(*all));
	int rank, n, k = 0, *count, *displ;
	MPI_Datatype one;
	enum mt_status s;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	count = calloc((size_t)n, sizeof(*count));
	displ = calloc((size_t)n, sizeof(*displ));
	if (!ev || !mine || !all || !count || !displ)
		MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	/* Each rank's endpoints in endpoint order, one after the other. */
	for (size_t e = 0; e < t->neps; e++) {
		count[own->ep_owner[e]]++;
		if (own->ep_owner[e] == rank)
			mine[k++] = ev[e];
	}
	for (int r = 1; r < n; r++)
		displ[r] = displ[r - 1] + count[r - 1];
	MPI_Type_contiguous((int)sizeof(*ev), MPI_BYTE, &one);
	MPI_Type_commit(&one);
	MPI_Allgatherv(mine, k, one, all, count, displ, one, comm);
	MPI_Type_free(&one);
	first_bad(comm, n, bad_file, err);
	for (size_t e = 0; e < t->neps; e++)
		ev[e] = all[displ[own->ep_owner[e]]++];
	s = mt_pipe_split_layouts(sp, ev, err);
	free(ev);
	free(mine);
	free(all);
	free(count);
	free(displ);
	return s;
}
