/*
 * clock_rest.c - the stage at rest gathered message by message (mt_clock.h:
 * mt_clock_rest_*), for a caller that should not keep 40 bytes of every
 * message only to learn, at the end, that no time moves.
 *
 * On one declared clock domain, what mt_clock_correct_at_rest reports
 * depends on each message's times through counts, the earliest and latest
 * time, and per ordered pair of processes the smallest delay, the pairs
 * taken in the order they first appear (the agreement keeps the first of
 * equal estimates, the links number pairs of domains that way). So the
 * stage runs at the end on one entry per pair, its fastest message, in
 * that order, and the counts and the middle time of every message replace
 * what those entries alone would give. A domain check that fails, a
 * receive before its send, or a second declared domain move times: then
 * the caller collects every message's times and runs the whole stage.
 */
#include <stdlib.h>
#include <string.h>

#include "clock_int.h"

struct mt_clock_rest {
	uint32_t np;
	const struct mt_clock_proc *procs;
	const struct mt_clock_opts *o;
	uint64_t *nevents;		/* per process */
	uint64_t events, trips;		/* known times, messages (clk_trip) */
	int64_t lo, hi;			/* of the known times */
	struct clk_pairs map;		/* ordered pair of processes -> index */
	struct mt_clock_times *fast;	/* per pair, in order: its fastest */
	uint32_t cap;
	int nomem;
	int past_np;			/* a time of a process past np */
};

enum mt_status mt_clock_rest_new(enum mt_clock_mode mode,
				 const struct mt_clock_opts *opts,
				 uint32_t nprocs, const struct mt_clock_proc *procs,
				 struct mt_clock_rest **out)
{
	struct mt_clock_rest *r;
	uint32_t nd;

	*out = NULL;
	if (mode != MT_CLOCK_MODE_AUTO)
		return MT_END;
	if (mt_clock_domains_declared(nprocs, procs, &nd))
		return MT_ERR_NOMEM;
	if (nd != 1)
		return MT_END;
	if (!(r = calloc(1, sizeof(*r))))
		return MT_ERR_NOMEM;
	*r = (struct mt_clock_rest){ .np = nprocs, .procs = procs, .o = opts,
				     .lo = INT64_MAX, .hi = INT64_MIN };
	r->nevents = calloc(nprocs + 1, sizeof(*r->nevents));
	if (!r->nevents || mt_clock_pairs_init(&r->map, 64, nprocs, 0) != MT_OK) {
		mt_clock_rest_free(r);
		return MT_ERR_NOMEM;
	}
	*out = r;
	return MT_OK;
}

void mt_clock_rest_free(struct mt_clock_rest *r)
{
	if (!r)
		return;
	mt_clock_pairs_free(&r->map);
	free(r->nevents);
	free(r->fast);
	free(r);
}

/* recvd - sent, wrapping: times are checked against MT_CLOCK_TIME_LIMIT
 * only once every message is in, so a corrupt one must not overflow. */
static int64_t delay(int64_t sent, int64_t recvd)
{
	return (int64_t)((uint64_t)recvd - (uint64_t)sent);
}

/* The message's pair, and its fastest entry so far. -1: out of memory. */
static int pair(struct mt_clock_rest *r, const struct clk_trip *e)
{
	uint32_t had = r->map.n;
	uint32_t k = mt_clock_pairs_get(&r->map, clk_pair_key(e->from, e->to));
	struct mt_clock_times *f;

	if (k == UINT32_MAX)
		return -1;
	if (k >= r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : 1024;
		void *nf = realloc(r->fast, cap * sizeof(*r->fast));

		if (!nf)
			return -1;
		r->fast = nf;
		r->cap = cap;
	}
	f = &r->fast[k];
	if (r->map.n == had && delay(e->sent, e->recvd) >=
	    delay(f->t[MT_CLOCK_SEND_POST], f->t[MT_CLOCK_RECV_DONE]))
		return 0;
	*f = (struct mt_clock_times){ e->from, e->to,
		{ e->sent, MT_CLOCK_NOTIME, MT_CLOCK_NOTIME, e->recvd } };
	return 0;
}

void mt_clock_rest_add(struct mt_clock_rest *r, const struct mt_clock_times *t,
		       size_t n)
{
	const struct clk c = { .np = r->np, .nm = n, .tm = t };

	for (size_t i = 0; i < n && !r->nomem && !r->past_np; i++) {
		struct clk_trip e;
		uint32_t s, d;

		if (i + CLK_AHEAD < n && clk_trip_procs(&c, i + CLK_AHEAD, &s, &d))
			__builtin_prefetch(clk_pairs_start(&r->map, clk_pair_key(s, d)));
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			int64_t x = t[i].t[w];

			/* A process past np: the whole stage says which
			 * (mt_clock_count_events), after the fallback. */
			if (!clk_times_has(&t[i], w))
				continue;
			if (clk_times_owner(&t[i], w) >= r->np) {
				r->past_np = 1;
				break;
			}
			r->nevents[clk_times_owner(&t[i], w)]++;
			r->events++;
			r->lo = x < r->lo ? x : r->lo;
			r->hi = x > r->hi ? x : r->hi;
		}
		if (!r->past_np && clk_trip(&c, i, 0, &e)) {
			r->trips++;
			if (pair(r, &e))
				r->nomem = 1;
		}
	}
}

enum mt_status mt_clock_rest_finish(struct mt_clock_rest *r,
				    struct mt_clock_result *res,
				    struct mt_err *err)
{
	enum mt_status st;

	memset(res, 0, sizeof(*res));
	if (r->nomem)
		return mt_err_set(err, MT_ERR_NOMEM, "clock correction: out of memory");
	if (r->past_np || r->trips >= UINT32_MAX)
		return MT_END;		/* the whole stage says why */
	for (uint32_t p = 0; p < r->np; p++)
		if (r->nevents[p] >= UINT32_MAX)
			return MT_END;
	st = mt_clock_correct_at_rest(MT_CLOCK_MODE_AUTO, r->o, r->np, r->procs,
				      r->fast, r->map.n, res, err);
	if (st != MT_OK)
		return st;
	/* One domain that held, and at most its one link, to itself. */
	res->nevents = r->events;
	res->nmsgs = r->trips;
	res->t0 = mt_clock_middle(r->lo, r->hi);
	res->domains[0].intra_msgs = r->trips;
	if (res->nlinks)
		res->links[0].msgs = r->trips;
	return MT_OK;
}
