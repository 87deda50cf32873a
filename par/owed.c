/*
 * owed.c - at the matchers' end, the synchronous sends still owed an ACK
 * (kept where their data was paired, on the receiver's owner) move to the
 * owner of their sender, whose matcher diagnoses the sender's pending ACK
 * receive: a hang's "received, never acknowledged" (see mt_par.h).
 */
#include <stdlib.h>

#include "par_int.h"

enum mt_status mt_par_owed_share(MPI_Comm comm, struct mt_match *m,
				 const int *ep_owner)
{
	int rank, n, in = 0;
	size_t k = m ? mt_match_owed_list(m, NULL, 0) : 0;
	enum mt_status s = MT_OK;
	MPI_Datatype one;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &n);
	struct mt_match_owed *mine = malloc((k + 1) * sizeof(*mine));
	struct mt_match_owed *out = malloc((k + 1) * sizeof(*out));
	int *cnt = calloc(5 * (size_t)n, sizeof(*cnt));
	int *rcnt = cnt + n, *sdis = cnt + 2 * n, *rdis = cnt + 3 * n;
	int *put = cnt + 4 * (size_t)n;		/* per rank: placed so far */

	if (!mine || !out || !cnt)
		MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	if (m)
		mt_match_owed_list(m, mine, k);
	/* The ones for other ranks, grouped by owner. */
	for (size_t i = 0; i < k; i++)
		if (ep_owner[mine[i].msg.send_ep] != rank)
			cnt[ep_owner[mine[i].msg.send_ep]]++;
	for (int r = 1; r < n; r++)
		sdis[r] = sdis[r - 1] + cnt[r - 1];
	for (size_t i = 0; i < k; i++) {
		int r = ep_owner[mine[i].msg.send_ep];

		if (r != rank)
			out[sdis[r] + put[r]++] = mine[i];
	}
	MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm);
	for (int r = 0; r < n; r++) {
		rdis[r] = in;
		in += rcnt[r];
	}
	struct mt_match_owed *got = malloc(((size_t)in + 1) * sizeof(*got));

	if (!got)
		MPI_Abort(comm, MT_ERR_NOMEM);
	MPI_Type_contiguous((int)sizeof(*got), MPI_BYTE, &one);
	MPI_Type_commit(&one);
	MPI_Alltoallv(out, cnt, sdis, one, got, rcnt, rdis, one, comm);
	MPI_Type_free(&one);
	for (int i = 0; m && i < in && !s; i++)
		s = mt_match_owed_add(m, &got[i]);
	free(got);
	free(cnt);
	free(out);
	free(mine);
	return s;
}
