/*
 * join.c - the join's life and its one look-up: the call around a fabric
 * operation (see mt_join.h).
 */
#include <stdlib.h>
#include <string.h>

#include "join_int.h"

static const struct mt_otf2in_call *sort_calls;

static int by_rank_enter(const void *a, const void *b)
{
	const struct mt_otf2in_call *x = &sort_calls[*(const uint32_t *)a];
	const struct mt_otf2in_call *y = &sort_calls[*(const uint32_t *)b];

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->enter_ns != y->enter_ns)
		return x->enter_ns < y->enter_ns ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

enum mt_status mt_join_new(const struct mt_otf2in_calls *c, size_t nprocs,
			   size_t nranks, struct mt_join **out, struct mt_err *err)
{
	const struct mt_otf2in_call *calls = c->call;
	size_t n = c->n;
	struct mt_join *j;

	*out = NULL;
	if (nprocs != nranks)
		return mt_err_set(err, MT_ERR_ARG, "%zu processes, the fabric trace "
				  "%zu ranks: not the same run", nprocs, nranks);
	if (!(j = calloc(1, sizeof(*j))) ||
	    !(j->by_rank = malloc((n ? n : 1) * sizeof(*j->by_rank))) ||
	    !(j->rank_at = calloc(nranks + 1, sizeof(*j->rank_at))) ||
	    !(j->align = calloc(nranks ? nranks : 1, sizeof(*j->align)))) {
		mt_join_free(j);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	j->c = c;
	j->calls = calls;
	j->ncalls = n;
	j->nranks = nranks;
	for (size_t i = 0; i < n; i++)
		j->by_rank[i] = (uint32_t)i;
	sort_calls = calls;
	qsort(j->by_rank, n, sizeof(*j->by_rank), by_rank_enter);
	for (size_t i = 0; i < n; i++)
		if (calls[i].proc >= 0 && (size_t)calls[i].proc < nranks)
			j->rank_at[calls[i].proc + 1]++;
	for (size_t r = 0; r < nranks; r++)
		j->rank_at[r + 1] += j->rank_at[r];
	*out = j;
	return MT_OK;
}

void mt_join_free(struct mt_join *j)
{
	if (!j)
		return;
	free(j->by_rank);
	free(j->rank_at);
	free(j->msg);
	free(j->pend);
	free(j->align);
	free(j->kinds);
	free(j->call_kind);
	free(j);
}

enum mt_status mt_join_add(struct mt_join *j, const struct mt_match_msg *m, size_t n)
{
	if (j->nmsg + n > j->cap_msg) {
		size_t cap = j->cap_msg ? j->cap_msg : 1024;

		while (cap < j->nmsg + n)
			cap *= 2;
		struct mt_match_msg *v = realloc(j->msg, cap * sizeof(*v));

		if (!v)
			return MT_ERR_NOMEM;
		j->msg = v;
		j->cap_msg = cap;
	}
	memcpy(j->msg + j->nmsg, m, n * sizeof(*m));
	j->nmsg += n;
	return MT_OK;
}

const struct mt_otf2in_call *mt_join_call_at(const struct mt_join *j,
					      int32_t rank, uint64_t t)
{
	if (rank < 0 || (size_t)rank >= j->nranks || !j->align[rank].ok ||
	    t == MT_MATCH_NOTIME)
		return NULL;
	uint64_t at = t - (uint64_t)j->align[rank].offset_ns;
	size_t lo = j->rank_at[rank], hi = j->rank_at[rank + 1];

	/* The last call entered at or before at, then out through the calls
	 * around it to the first that had not ended by then. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->calls[j->by_rank[mid]].enter_ns <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == j->rank_at[rank])
		return NULL;
	const struct mt_otf2in_call *c = &j->calls[j->by_rank[lo - 1]];

	while (c && c->leave_ns < at)
		c = c->parent >= 0 ? &j->calls[c->parent] : NULL;
	return c;
}

enum mt_status mt_join_pending(struct mt_join *j, const struct mt_match_pending *p,
			       size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long k;

		if (p[i].op.dir != MT_MATCH_DIR_RECV || !mt_join_data_kind(p[i].op.f.kind))
			continue;
		if ((k = mt_otf2in_push((void **)&j->pend, &j->npend, &j->cap_pend,
					sizeof(*j->pend))) < 0)
			return MT_ERR_NOMEM;
		j->pend[k] = (struct mt_join_post){ p[i].rank, p[i].op.ts };
	}
	return MT_OK;
}

enum mt_status mt_join_finish(struct mt_join *j, struct mt_err *err)
{
	enum mt_status s = mt_join_align_all(j, err);

	if (s)
		return s;
	return mt_join_kinds(j) ? mt_err_set(err, MT_ERR_NOMEM, "out of memory") : MT_OK;
}

size_t mt_join_nranks(const struct mt_join *j)
{
	return j->nranks;
}

const struct mt_otf2in_calls *mt_join_calls(const struct mt_join *j)
{
	return j->c;
}

const struct mt_join_align *mt_join_align(const struct mt_join *j, size_t rank)
{
	return &j->align[rank];
}

size_t mt_join_nkinds(const struct mt_join *j)
{
	return j->nkinds;
}

const struct mt_join_kind *mt_join_kind(const struct mt_join *j, size_t i)
{
	return &j->kinds[i];
}

size_t mt_join_nproblems(const struct mt_join *j, uint64_t *total)
{
	*total = j->problems;
	return j->nproblems;
}

const struct mt_join_problem *mt_join_problem(const struct mt_join *j, size_t i)
{
	return &j->problem[i];
}
