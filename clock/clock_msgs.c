/*
 * clock_msgs.c - the clock stage on the matcher's messages: their times as
 * struct mt_clock_times (world rank = process) and back, and the correction
 * of such times in place (event graph, mt_clock_correct, apply).
 */
#include <stdlib.h>

#include "clock_int.h"

static uint32_t proc_of(int32_t rank, uint32_t nprocs)
{
	return rank >= 0 && (uint32_t)rank < nprocs ? (uint32_t)rank : MT_CLOCK_NOPROC;
}

static int64_t time_of(uint64_t t)
{
	return t == MT_MATCH_NOTIME || t > (uint64_t)INT64_MAX ? MT_CLOCK_NOTIME : (int64_t)t;
}

void mt_clock_times_of_msg(const struct mt_match_msg *m, uint32_t nprocs,
			   struct mt_clock_times *t)
{
	*t = (struct mt_clock_times){
		.send_proc = proc_of(m->send_rank, nprocs),
		.recv_proc = proc_of(m->recv_rank, nprocs),
		.t = { time_of(m->t_send_post), time_of(m->t_send_done),
		       time_of(m->t_recv_post), time_of(m->t_recv_done) },
	};
}

void mt_clock_times_to_msg(const struct mt_clock_times *t, struct mt_match_msg *m)
{
	uint64_t *dst[MT_CLOCK_WHEN_COUNT] = {
		&m->t_send_post, &m->t_send_done, &m->t_recv_post, &m->t_recv_done,
	};

	for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
		if (t->t[w] != MT_CLOCK_NOTIME)
			*dst[w] = (uint64_t)t->t[w];
}

enum mt_status mt_clock_correct_times(enum mt_clock_mode mode,
				      const struct mt_clock_opts *opts,
				      uint32_t nprocs,
				      const struct mt_clock_proc *procs,
				      struct mt_clock_times *t, size_t n,
				      struct mt_clock_result *res,
				      struct mt_err *err)
{
	struct mt_clock_proc *pr;
	int64_t **out;
	struct mt_clock_graph g = { 0 };
	enum mt_status st = mt_clock_correct_at_rest(mode, opts, nprocs, procs, t,
						     n, res, err);

	if (st != MT_END)	/* no time moves: no graph */
		return st;
	pr = calloc(nprocs + 1, sizeof(*pr));
	out = calloc(nprocs + 1, sizeof(*out));
	st = MT_ERR_NOMEM;
	if (!pr || !out)
		goto out;
	st = mt_clock_graph_build(nprocs, t, n, &g, err);
	if (st != MT_OK)
		goto out;
	st = MT_ERR_NOMEM;
	for (uint32_t p = 0; p < nprocs; p++) {
		pr[p] = procs[p];
		pr[p].nevents = g.nevents[p];
		pr[p].t = g.t[p];
		out[p] = malloc((g.nevents[p] + 1) * sizeof(**out));
		if (!out[p])
			goto out;
	}
	st = mt_clock_correct(mode, opts, nprocs, pr, g.nmsgs, g.msgs, out, res, err);
	if (st == MT_OK)
		mt_clock_graph_apply(&g, out, t, n);
out:
	for (uint32_t p = 0; out && p < nprocs; p++)
		free(out[p]);
	free(out);
	free(pr);
	mt_clock_graph_free(&g);
	if (st == MT_ERR_NOMEM)
		return mt_err_set(err, st, "clock correction of %zu messages: out of memory", n);
	return st;
}

enum mt_status mt_clock_correct_msgs(enum mt_clock_mode mode,
				     const struct mt_clock_opts *opts,
				     uint32_t nprocs,
				     const struct mt_clock_proc *procs,
				     struct mt_match_msg *m, size_t n,
				     struct mt_clock_result *res,
				     struct mt_err *err)
{
	struct mt_clock_times *t = mt_clock_alloc_big((n + 1) * sizeof(*t));
	enum mt_status st;

	if (!t)
		return mt_err_set(err, MT_ERR_NOMEM,
				"clock correction of %zu messages: out of memory", n);
	for (size_t i = 0; i < n; i++)
		mt_clock_times_of_msg(&m[i], nprocs, &t[i]);
	st = mt_clock_correct_times(mode, opts, nprocs, procs, t, n, res, err);
	for (size_t i = 0; st == MT_OK && i < n; i++)
		mt_clock_times_to_msg(&t[i], &m[i]);
	free(t);
	return st;
}
