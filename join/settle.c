/*
 * settle.c - where in its range a rank's offset is put (see mt_join.h).
 * Every offset in [lo, hi] puts each aligned send inside its call; the
 * rank's data receives (MPI_Irecv's, which the archive records without
 * source or tag) choose among them: the offset is the middle of the
 * stretch that puts the most receive posts inside an MPI call that
 * receives (not, say, in one of the MPI_Test calls polling the request). A
 * post lands at most once: only calls inside no other count.
 */
#include <stdlib.h>
#include <string.h>

#include "join_int.h"

struct step {
	int64_t at;
	int d;			/* +1: a post enters a call there, -1: leaves */
};

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return y->d - x->d;	/* entries first: ranges are closed */
}

int mt_join_data_kind(uint8_t kind)
{
	return kind == MT_MATCH_USER || kind == MT_MATCH_SSEND;
}

/* Calls that post a data receive: MPI_Recv, MPI_Irecv, MPI_Sendrecv,
 * MPI_Recv_init, ... (a name holding "recv"), MPI_Start, MPI_Startall. */
static int posts_receives(const char *name)
{
	return strstr(name, "recv") || strstr(name, "Recv") ||
	       !strcmp(name, "MPI_Start") || !strcmp(name, "MPI_Startall");
}

/* Adds the steps of post p of rank r: for each outermost call
 * that receives and whose interval holds p under some offset in [lo, hi]. */
static enum mt_status post_steps(const struct mt_join *j, int32_t r, uint64_t p,
				 int64_t lo, int64_t hi, struct step **v, size_t *n,
				 size_t *cap)
{
	size_t a = j->rank_at[r], b = j->rank_at[r + 1];
	int64_t first = (int64_t)p - hi;	/* earliest archive time p maps to */
	int64_t last = (int64_t)p - lo;

	/* The calls entered by last, walked back to those left after first. */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if ((int64_t)j->calls[j->by_rank[mid]].enter_ns <= last)
			a = mid + 1;
		else
			b = mid;
	}
	while (a-- > j->rank_at[r]) {
		const struct mt_otf2in_call *c = &j->calls[j->by_rank[a]];

		if (c->parent >= 0)
			continue;
		if (c->leave_ns != UINT64_MAX && (int64_t)c->leave_ns < first)
			break;
		if (!posts_receives(c->name))
			continue;
		int64_t x = (int64_t)p - (c->leave_ns == UINT64_MAX ? INT64_MAX / 2 :
					   (int64_t)c->leave_ns);
		int64_t y = (int64_t)p - (int64_t)c->enter_ns;

		x = x > lo ? x : lo;
		y = y < hi ? y : hi;
		if (x > y)
			continue;
		if (mt_otf2in_push((void **)v, n, cap, sizeof(**v)) < 0 ||
		    mt_otf2in_push((void **)v, n, cap, sizeof(**v)) < 0)
			return MT_ERR_NOMEM;
		(*v)[*n - 2] = (struct step){ x, +1 };
		(*v)[*n - 1] = (struct step){ y, -1 };
	}
	return MT_OK;
}

enum mt_status mt_join_settle(struct mt_join *j, int32_t r, int64_t lo, int64_t hi,
			      int64_t *offset)
{
	struct step *v = NULL;
	size_t n = 0, cap = 0;
	enum mt_status s = MT_OK;

	*offset = lo + (hi - lo) / 2;
	for (size_t i = 0; i < j->nmsg && !s; i++) {
		const struct mt_match_msg *m = &j->msg[i];

		if (m->recv_rank == r && m->t_recv_post != MT_MATCH_NOTIME &&
		    mt_join_data_kind(m->f.kind))
			s = post_steps(j, r, m->t_recv_post, lo, hi, &v, &n, &cap);
	}
	for (size_t i = 0; i < j->npend && !s; i++)
		if (j->pend[i].rank == r)
			s = post_steps(j, r, j->pend[i].ts, lo, hi, &v, &n, &cap);
	if (!s && n) {
		int in = 0, best = 0;
		int64_t from = lo, to = hi;

		qsort(v, n, sizeof(*v), cmp_step);
		for (size_t i = 0; i < n; i++) {
			in += v[i].d;
			if (v[i].d > 0 && in > best) {
				best = in;
				from = v[i].at;
				/* to the next step (a leave ends the stretch) */
				to = i + 1 < n ? v[i + 1].at : hi;
			}
		}
		if (best)
			*offset = from + (to - from) / 2;
	}
	free(v);
	return s;
}
