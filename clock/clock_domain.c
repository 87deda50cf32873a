/*
 * clock_domain.c - clock domains: the processes that read one clock.
 *
 * Declared from the metadata: the same host and the same clock source (an
 * invariant TSC, or CLOCK_MONOTONIC, is one clock per host). Verified on the
 * data rather than assumed: inside a shared clock no message can arrive
 * before it left, so a domain with such a message (beyond noise_ns: TSC
 * skew between sockets, tick-to-ns rounding) is split into one domain per
 * process and left to the linear stage.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "clock_int.h"

static int same_clock(const struct mt_clock_proc *a,
		      const struct mt_clock_proc *b)
{
	return a->host && b->host && a->host[0] && a->clock_source &&
	       a->clock_source == b->clock_source &&
	       strcmp(a->host, b->host) == 0;
}

static int cmp_proc(const void *x, const void *y, void *arg)
{
	const struct mt_clock_proc *procs = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct mt_clock_proc *a = &procs[i], *b = &procs[j];
	int d = strcmp(a->host ? a->host : "", b->host ? b->host : "");

	if (d)
		return d;
	if (a->clock_source != b->clock_source)
		return a->clock_source < b->clock_source ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Declared domains into dom[], numbered in order of their lowest process so
 * that numbers do not depend on host names. Returns how many. */
static uint32_t declare(const struct clk *c, uint32_t *order, uint32_t *dom)
{
	uint32_t ng = 0, nd = 0;

	for (uint32_t p = 0; p < c->np; p++)
		order[p] = p;
	qsort_r(order, c->np, sizeof(*order), cmp_proc, (void *)c->procs);
	for (uint32_t i = 0; i < c->np; i++) {
		uint32_t p = order[i];

		dom[p] = i && same_clock(&c->procs[order[i - 1]], &c->procs[p]) ?
			 ng - 1 : ng++;
	}
	for (uint32_t g = 0; g < ng; g++)
		order[g] = UINT32_MAX;
	for (uint32_t p = 0; p < c->np; p++) {
		if (order[dom[p]] == UINT32_MAX)
			order[dom[p]] = nd++;
		dom[p] = order[dom[p]];
	}
	return nd;
}

enum mt_status mt_clock_domains_declared(uint32_t nprocs,
					 const struct mt_clock_proc *procs,
					 uint32_t *ndomains)
{
	const struct clk c = { .np = nprocs, .procs = procs };
	uint32_t *order = malloc((nprocs + 1) * sizeof(*order));
	uint32_t *dom = malloc((nprocs + 1) * sizeof(*dom));

	if (order && dom)
		*ndomains = declare(&c, order, dom);
	free(order);
	free(dom);
	return order && dom ? MT_OK : MT_ERR_NOMEM;
}

enum mt_status mt_clock_domains(struct clk *c)
{
	struct mt_clock_result *r = c->res;
	uint32_t *order = malloc((c->np + 1) * sizeof(*order));
	uint32_t *dom = malloc((c->np + 1) * sizeof(*dom));
	uint64_t *msgs = NULL, *viol = NULL;
	uint32_t nd, final = 0;

	if (!order || !dom)
		goto nomem;
	nd = declare(c, order, dom);
	msgs = calloc(nd + 1, sizeof(*msgs));
	viol = calloc(nd + 1, sizeof(*viol));
	if (!msgs || !viol)
		goto nomem;
	for (uint64_t i = 0; i < c->nm; i++) {
		struct clk_trip m;
		uint32_t d;
		int64_t delay;

		if (!clk_trip(c, i, 0, &m))
			continue;
		d = dom[m.from];
		delay = m.recvd - m.sent;
		r->viol_before += delay <= 0;
		if (d != dom[m.to])
			continue;
		msgs[d]++;
		viol[d] += delay < -c->o->noise_ns;
	}
	/* Final domains: a failed one becomes one domain per process. */
	uint32_t *first = order;	/* reused: final id of each declared domain */

	for (uint32_t d = 0; d < nd; d++)
		first[d] = UINT32_MAX;
	r->proc_domain = malloc((c->np + 1) * sizeof(*r->proc_domain));
	r->domains = calloc(c->np + 1, sizeof(*r->domains));
	if (!r->proc_domain || !r->domains)
		goto nomem;
	for (uint32_t p = 0; p < c->np; p++) {
		uint32_t d = dom[p];
		struct mt_clock_domain *fd;

		if (viol[d] || first[d] == UINT32_MAX) {
			fd = &r->domains[final];
			fd->first_proc = p;
			fd->split = viol[d] != 0;
			fd->ref = final;
			fd->est = MT_CLOCK_EST_NONE;
			fd->gamma = c->o->gamma;
			fd->intra_msgs = msgs[d];
			fd->intra_violations = viol[d];
			if (!viol[d])
				first[d] = final;
			r->proc_domain[p] = final++;
		} else {
			r->proc_domain[p] = first[d];
		}
		r->domains[r->proc_domain[p]].nprocs++;
	}
	r->ndomains = final;
	if (final == 1)
		r->domains[0].est = MT_CLOCK_EST_REF;
	free(order);
	free(dom);
	free(msgs);
	free(viol);
	return MT_OK;
nomem:
	free(order);
	free(dom);
	free(msgs);
	free(viol);
	return mt_err_set(c->err, MT_ERR_NOMEM, "clock domains: out of memory");
}
