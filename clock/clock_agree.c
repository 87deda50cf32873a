/*
 * clock_agree.c - how well the processes of one clock domain agree, on the
 * data: a domain that held (no message received before it left) only shows
 * that no two of its processes differ by more than a latency. The smallest
 * delays both ways between two processes narrow it: if b's clock runs
 * delta ahead of a's, the fastest a -> b message appears delta longer and
 * the fastest b -> a one delta shorter, so half their difference estimates
 * delta, and each delay bounds it. Only pairs whose fastest messages both
 * ways are latency-bound count (within LATENCY_BOUND times the domain's
 * fastest message): the fastest of a few messages that waited (a sparse
 * collective) says nothing about the clocks. Reported, never applied: the
 * domain's processes keep one map (clock_domain.c).
 */
#include <math.h>
#include <stdlib.h>

#include "clock_int.h"

/* A delay at most this many times the domain's smallest is latency. */
#define LATENCY_BOUND 2

/* Largest estimate over the pairs of processes of held multi-process
 * domains that exchanged latency-bound messages both ways; mind[k] is the
 * smallest delay of the k-th ordered pair in map, dmin[d] domain d's. */
static void agreement(struct clk *c, const struct clk_pairs *map,
		      const uint64_t *keys, const int64_t *mind,
		      const int64_t *dmin)
{
	struct mt_clock_result *r = c->res;

	for (uint32_t k = 0; k < map->n; k++) {
		uint32_t a = (uint32_t)(keys[k] >> 32), b = (uint32_t)keys[k];
		uint32_t back = mt_clock_pairs_find(map, clk_pair_key(b, a));
		uint32_t dom = r->proc_domain[a];
		struct mt_clock_domain *d = &r->domains[dom];
		int64_t floor = dmin[dom] < 1 ? 1 : dmin[dom];
		int64_t bound = floor > INT64_MAX / LATENCY_BOUND ? INT64_MAX :
				LATENCY_BOUND * floor;
		double est;

		if (a > b || back == UINT32_MAX)
			continue;	/* each pair once, measured both ways */
		if (mind[k] > bound || mind[back] > bound)
			continue;	/* messages that waited */
		est = ((double)mind[k] - (double)mind[back]) / 2;
		if (!d->agree_pairs++ || fabs(est) > fabs(d->agree_ns)) {
			d->agree_a = a;
			d->agree_b = b;
			d->agree_ns = est;
			d->agree_lo_ns = -mind[back];
			d->agree_hi_ns = mind[k];
		}
	}
}

enum mt_status mt_clock_agreement(struct clk *c)
{
	const struct mt_clock_result *r = c->res;
	struct clk_pairs map = { 0 };
	/* One new pair at most per message: indices stay below nm, and only
	 * the pages of the pairs met are touched. */
	uint64_t *keys = mt_clock_alloc_big((c->nm + 1) * sizeof(*keys));
	int64_t *mind = mt_clock_alloc_big((c->nm + 1) * sizeof(*mind));
	int64_t *dmin = malloc((r->ndomains + 1) * sizeof(*dmin));
	int ok = keys && mind && dmin &&
		 mt_clock_pairs_init(&map, 64, c->np, 1) == MT_OK;

	for (uint32_t d = 0; ok && d < r->ndomains; d++)
		dmin[d] = INT64_MAX;
	for (uint64_t i = 0; ok && i < c->nm; i++) {
		struct clk_trip m;
		uint32_t s, t, dom, had, k;
		int64_t delay;

		if (i + CLK_AHEAD < c->nm && clk_trip_procs(c, i + CLK_AHEAD, &s, &t))
			__builtin_prefetch(clk_pairs_start(&map, clk_pair_key(s, t)));
		if (!clk_trip(c, i, 0, &m))
			continue;
		s = m.from;
		t = m.to;
		dom = r->proc_domain[s];
		delay = m.recvd - m.sent;
		if (s == t || dom != r->proc_domain[t] || r->domains[dom].nprocs < 2)
			continue;
		had = map.n;
		k = mt_clock_pairs_get(&map, clk_pair_key(s, t));
		if (k == UINT32_MAX) {
			ok = 0;
			break;
		}
		if (map.n != had) {
			keys[k] = clk_pair_key(s, t);
			mind[k] = delay;
		}
		mind[k] = delay < mind[k] ? delay : mind[k];
		dmin[dom] = delay < dmin[dom] ? delay : dmin[dom];
	}
	if (ok)
		agreement(c, &map, keys, mind, dmin);
	mt_clock_pairs_free(&map);
	free(keys);
	free(mind);
	free(dmin);
	return ok ? MT_OK :
	       mt_err_set(c->err, MT_ERR_NOMEM, "clock agreement: out of memory");
}
