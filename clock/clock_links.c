/*
 * clock_links.c - the minimum one-way latency of each link (ordered pair of
 * clock domains), which the CLC keeps between a send and its receive.
 *
 * Measured, never assumed: inside a domain the smallest delay is exact (one
 * clock). Between two domains with traffic both ways, the smallest delays
 * A->B and B->A (after the linear map) carry what is left of the clock
 * difference with opposite signs: the smaller of the two is below both true
 * minimum latencies, a safe floor for both directions even when they differ
 * (a latency the CLC enforces but the link does not have would move every
 * receive on it). A link with traffic one way only takes the smallest
 * latency measured between domains (its class); opts.lmin_default_ns only
 * when nothing was measured.
 */
#include <stdlib.h>

#include "clock_int.h"

static int64_t at_least_1(int64_t v)
{
	return v < 1 ? 1 : v;
}

enum mt_status mt_clock_links(struct clk *c)
{
	struct mt_clock_result *r = c->res;
	const uint32_t *dom = r->proc_domain;
	struct clk_pairs map;
	uint32_t cap = 16;
	int64_t *mind = malloc(cap * sizeof(*mind));
	int64_t class_min = INT64_MAX;

	r->links = malloc(cap * sizeof(*r->links));
	if (c->msgs)	/* the event form's, for the CLC */
		c->msg_link = mt_clock_alloc_big((c->nm + 1) * sizeof(*c->msg_link));
	if (!mind || !r->links || (c->msgs && !c->msg_link) ||
	    mt_clock_pairs_init(&map, 64, r->ndomains, 1) != MT_OK) {
		free(mind);
		return mt_err_set(c->err, MT_ERR_NOMEM, "clock links: out of memory");
	}
	for (uint64_t i = 0; i < c->nm; i++) {
		struct clk_trip m;
		uint32_t from, to, had, k;
		int64_t d;

		if (i + CLK_AHEAD < c->nm && clk_trip_procs(c, i + CLK_AHEAD, &from, &to))
			__builtin_prefetch(clk_pairs_start(&map, clk_pair_key(dom[from], dom[to])));
		if (!clk_trip(c, i, 1, &m))
			continue;
		from = dom[m.from];
		to = dom[m.to];
		had = map.n;
		k = mt_clock_pairs_get(&map, clk_pair_key(from, to));
		d = m.recvd - m.sent;
		if (k == UINT32_MAX)
			goto nomem;
		if (k >= cap) {
			void *nl = realloc(r->links, 2 * cap * sizeof(*r->links));
			void *nm = nl ? realloc(mind, 2 * cap * sizeof(*mind)) : NULL;

			if (nl)
				r->links = nl;
			if (!nm)
				goto nomem;
			mind = nm;
			cap *= 2;
		}
		if (map.n != had) {
			r->links[k] = (struct mt_clock_link){ .from = from, .to = to };
			mind[k] = INT64_MAX;
		}
		r->links[k].msgs++;
		r->viol_linear += d <= 0;
		mind[k] = d < mind[k] ? d : mind[k];
		if (c->msg_link)
			c->msg_link[i] = k;
	}
	r->nlinks = map.n;
	for (uint32_t k = 0; k < r->nlinks; k++) {
		struct mt_clock_link *l = &r->links[k];
		uint32_t back = mt_clock_pairs_find(&map, clk_pair_key(l->to, l->from));

		if (l->from == l->to) {
			l->src = MT_CLOCK_LAT_SAME_CLOCK;
			l->lmin_ns = at_least_1(mind[k]);
		} else if (back != UINT32_MAX) {
			l->src = MT_CLOCK_LAT_ROUND_TRIP;
			l->lmin_ns = at_least_1(mind[k] < mind[back] ? mind[k] : mind[back]);
			class_min = l->lmin_ns < class_min ? l->lmin_ns : class_min;
		}
	}
	for (uint32_t k = 0; k < r->nlinks; k++) {
		struct mt_clock_link *l = &r->links[k];

		if (l->from == l->to || l->src == MT_CLOCK_LAT_ROUND_TRIP)
			continue;
		l->src = class_min != INT64_MAX ? MT_CLOCK_LAT_CLASS :
			 MT_CLOCK_LAT_DEFAULT;
		l->lmin_ns = class_min != INT64_MAX ? class_min : c->o->lmin_default_ns;
	}
	mt_clock_pairs_free(&map);
	free(mind);
	return MT_OK;
nomem:
	mt_clock_pairs_free(&map);
	free(mind);
	return mt_err_set(c->err, MT_ERR_NOMEM, "clock links: out of memory");
}
