/*
 * clock.c - mt_clock_correct: checks the input, runs the stages the mode
 * asks for (AUTO: linear only across several domains, CLC only while
 * violations remain) and fills the report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_int.h"

static const char *const mode_names[] = {
	[MT_CLOCK_MODE_NONE] = "none",
	[MT_CLOCK_MODE_LINEAR] = "linear",
	[MT_CLOCK_MODE_CLC] = "clc",
	[MT_CLOCK_MODE_AUTO] = "auto",
};

const char *mt_clock_mode_name(enum mt_clock_mode m)
{
	return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ?
		mode_names[m] : "?";
}

enum mt_status mt_clock_mode_parse(const char *s, enum mt_clock_mode *out)
{
	for (unsigned i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (s && strcmp(s, mode_names[i]) == 0) {
			*out = (enum mt_clock_mode)i;
			return MT_OK;
		}
	return MT_ERR_ARG;
}

const char *mt_clock_est_name(enum mt_clock_est e)
{
	static const char *const names[] = {
		[MT_CLOCK_EST_REF] = "reference",
		[MT_CLOCK_EST_MESSAGES] = "messages",
		[MT_CLOCK_EST_REALTIME] = "realtime",
		[MT_CLOCK_EST_NONE] = "none",
	};

	return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "?";
}

const char *mt_clock_lat_src_name(enum mt_clock_lat_src s)
{
	static const char *const names[] = {
		[MT_CLOCK_LAT_SAME_CLOCK] = "same_clock",
		[MT_CLOCK_LAT_ROUND_TRIP] = "round_trip",
		[MT_CLOCK_LAT_CLASS] = "class",
		[MT_CLOCK_LAT_DEFAULT] = "default",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void mt_clock_opts_default(struct mt_clock_opts *o)
{
	/* gamma: the paper's 0.999; drifts left after the linear stage are far
	 * below 1e-3, so the clock cannot race ahead. slope 0.5% keeps every
	 * backward-amortized interval within 1% of its length. */
	o->gamma = 0.999;
	o->slope = 0.005;
	o->noise_ns = 100;
	o->realtime_sd_ns = 1000000;
	o->drift_prior_ppm = 100;
	o->lmin_default_ns = 1000;
	o->windows = 128;
}

static enum mt_status check_opts(const struct mt_clock_opts *o,
				 struct mt_err *err)
{
	if (!(o->gamma > 0 && o->gamma < 1))
		return mt_err_set(err, MT_ERR_ARG, "clock option gamma=%g: must be in (0, 1)",
				o->gamma);
	if (!(o->slope > 0 && o->slope <= 1))
		return mt_err_set(err, MT_ERR_ARG, "clock option slope=%g: must be in (0, 1]",
				o->slope);
	if (o->noise_ns < 0 || o->realtime_sd_ns <= 0 || o->lmin_default_ns <= 0 ||
	    !(o->drift_prior_ppm > 0))
		return mt_err_set(err, MT_ERR_ARG,
				"clock options: noise_ns must be >= 0; realtime_sd_ns, drift_prior_ppm and lmin_default_ns > 0");
	if (o->windows < 1)
		return mt_err_set(err, MT_ERR_ARG, "clock option windows=0: must be >= 1");
	return MT_OK;
}

/* Copies process p's timestamps to the output, checking their order on
 * the way (one pass instead of two). */
static enum mt_status copy_sorted(const struct clk *c, uint32_t p)
{
	const int64_t *t = c->procs[p].t;
	int64_t *o = c->out[p];
	uint64_t n = c->procs[p].nevents;

	if (n)
		o[0] = t[0];
	for (uint64_t j = 1; j < n; j++) {
		if (t[j] < t[j - 1])
			return mt_err_set(c->err, MT_ERR_ARG,
					"process %u: event %llu at %lld ns is before event %llu at %lld ns",
					p, (unsigned long long)j, (long long)t[j],
					(unsigned long long)(j - 1), (long long)t[j - 1]);
		o[j] = t[j];
	}
	return MT_OK;
}

static enum mt_status check_input(const struct clk *c)
{
	for (uint32_t p = 0; p < c->np; p++) {
		const struct mt_clock_proc *pr = &c->procs[p];

		if (pr->nevents && !pr->t)
			return mt_err_set(c->err, MT_ERR_ARG, "process %u: %llu events but no timestamps",
					p, (unsigned long long)pr->nevents);
		if (pr->nevents >= UINT32_MAX)
			return mt_err_set(c->err, MT_ERR_ARG, "process %u: %llu events: at most %u supported",
					p, (unsigned long long)pr->nevents, UINT32_MAX - 1);
		if (pr->ncal && !pr->cal)
			return mt_err_set(c->err, MT_ERR_ARG, "process %u: %u calibration pairs missing",
					p, pr->ncal);
	}
	for (uint64_t i = 0; i < c->nm; i++) {
		const struct mt_clock_msg *m = &c->msgs[i];

		if (m->send_proc >= c->np || m->recv_proc >= c->np ||
		    m->send_ev >= c->procs[m->send_proc].nevents ||
		    m->recv_ev >= c->procs[m->recv_proc].nevents)
			return mt_err_set(c->err, MT_ERR_ARG,
					"message %llu: event (process %u, %llu) -> (process %u, %llu) does not exist",
					(unsigned long long)i, m->send_proc,
					(unsigned long long)m->send_ev, m->recv_proc,
					(unsigned long long)m->recv_ev);
	}
	if (c->nm >= UINT32_MAX)
		return mt_err_set(c->err, MT_ERR_ARG, "%llu messages: at most %u supported",
				(unsigned long long)c->nm, UINT32_MAX - 1);
	return MT_OK;
}

/* The offsets refer to the middle of the run (its events from lo to hi):
 * that decorrelates offset and drift estimates. */
int64_t mt_clock_middle(int64_t lo, int64_t hi)
{
	return lo > hi ? 0 : lo + (hi - lo) / 2;
}

static int64_t mid_time(const struct clk *c)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (uint32_t p = 0; p < c->np; p++) {
		const struct mt_clock_proc *pr = &c->procs[p];

		if (!pr->nevents)
			continue;
		lo = pr->t[0] < lo ? pr->t[0] : lo;
		hi = pr->t[pr->nevents - 1] > hi ? pr->t[pr->nevents - 1] : hi;
	}
	return mt_clock_middle(lo, hi);
}

static enum mt_status run(struct clk *c, enum mt_clock_mode mode)
{
	struct mt_clock_result *r = c->res;
	enum mt_status st;

	for (uint32_t p = 0; p < c->np; p++) {
		r->nevents += c->procs[p].nevents;
		st = copy_sorted(c, p);
		if (st != MT_OK)
			return st;
	}
	st = mt_clock_domains(c);
	if (st == MT_OK)
		st = mt_clock_agreement(c);
	if (st != MT_OK)
		return st;
	if (mode == MT_CLOCK_MODE_LINEAR || mode == MT_CLOCK_MODE_CLC ||
	    (mode == MT_CLOCK_MODE_AUTO && r->ndomains > 1)) {
		st = mt_clock_linear_map(c);
		if (st != MT_OK)
			return st;
		r->linear_done = 1;
	}
	st = mt_clock_links(c);
	if (st != MT_OK)
		return st;
	if (mode == MT_CLOCK_MODE_CLC ||
	    (mode == MT_CLOCK_MODE_AUTO && r->viol_linear > 0)) {
		st = mt_clock_clc(c);
		if (st != MT_OK)
			return st;
		r->clc_done = 1;
	}
	r->viol_after = r->clc_done ? mt_clock_violations(c) : r->viol_linear;
	return mt_clock_report(c);
}

/* The mode and c->o checked (NULL: defaults, into *defaults). */
static enum mt_status check_mode_opts(enum mt_clock_mode mode, struct clk *c,
				      struct mt_clock_opts *defaults)
{
	if ((unsigned)mode > MT_CLOCK_MODE_AUTO)
		return mt_err_set(c->err, MT_ERR_ARG, "clock mode %d unknown", (int)mode);
	if (!c->o) {
		mt_clock_opts_default(defaults);
		c->o = defaults;
	}
	return check_opts(c->o, c->err);
}

enum mt_status mt_clock_correct(enum mt_clock_mode mode,
				const struct mt_clock_opts *opts,
				uint32_t nprocs, const struct mt_clock_proc *procs,
				uint64_t nmsgs, const struct mt_clock_msg *msgs,
				int64_t *const *out, struct mt_clock_result *res,
				struct mt_err *err)
{
	struct mt_clock_opts defaults;
	struct clk c = {
		.o = opts, .np = nprocs, .procs = procs, .nm = nmsgs,
		.msgs = msgs, .out = out, .res = res, .err = err,
	};
	enum mt_status st;

	memset(res, 0, sizeof(*res));
	if ((unsigned)mode <= MT_CLOCK_MODE_AUTO &&
	    ((nprocs && (!procs || !out)) || (nmsgs && !msgs)))
		return mt_err_set(err, MT_ERR_ARG, "clock correction: missing input arrays");
	st = check_mode_opts(mode, &c, &defaults);
	if (st == MT_OK)
		st = check_input(&c);
	if (st != MT_OK)
		return st;
	res->mode = mode;
	res->nmsgs = nmsgs;
	res->t0 = mid_time(&c);
	st = run(&c, mode);
	free(c.msg_link);
	if (st != MT_OK)
		mt_clock_result_free(res);
	return st;
}

/* res->nevents and res->t0 of the message form's entries: the events the
 * graph would hold, and their middle. */
static enum mt_status count_at_rest(struct clk *c)
{
	uint64_t *nevents = calloc(c->np + 1, sizeof(*nevents));
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	enum mt_status st;

	if (!nevents)
		return mt_err_set(c->err, MT_ERR_NOMEM, "clock correction: out of memory");
	st = mt_clock_count_events(c->np, c->tm, c->nm, nevents, c->err);
	for (uint32_t p = 0; p < c->np; p++)
		c->res->nevents += nevents[p];
	free(nevents);
	for (uint64_t i = 0; st == MT_OK && i < c->nm; i++) {
		struct clk_trip e;

		c->res->nmsgs += (uint64_t)clk_trip(c, i, 0, &e);
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
			if (clk_times_has(&c->tm[i], w)) {
				lo = c->tm[i].t[w] < lo ? c->tm[i].t[w] : lo;
				hi = c->tm[i].t[w] > hi ? c->tm[i].t[w] : hi;
			}
	}
	c->res->t0 = mt_clock_middle(lo, hi);
	return st;
}

/*
 * The stages run() would run while no time moves, on the message form:
 * the domains, their agreement and the links need each message's send and
 * receive time only (clk_trip), and with every time as recorded the
 * report's figures are zero (mt_clock_report on equal input and output).
 * That spares the per-process event arrays, the stage's main cost when
 * nothing is corrected: 12 of 16 s on 28 M messages among 10,000
 * processes. Only the domain check can tell whether times will move in
 * auto; it is the work done in vain when they do.
 */
enum mt_status mt_clock_correct_at_rest(enum mt_clock_mode mode,
					const struct mt_clock_opts *opts,
					uint32_t nprocs,
					const struct mt_clock_proc *procs,
					const struct mt_clock_times *t, uint64_t n,
					struct mt_clock_result *res,
					struct mt_err *err)
{
	struct mt_clock_opts defaults;
	struct clk c = {
		.o = opts, .np = nprocs, .procs = procs, .nm = n, .tm = t,
		.res = res, .err = err,
	};
	enum mt_status st;

	memset(res, 0, sizeof(*res));
	if (mode != MT_CLOCK_MODE_NONE && mode != MT_CLOCK_MODE_AUTO)
		return MT_END;
	st = check_mode_opts(mode, &c, &defaults);
	if (st == MT_OK)
		st = count_at_rest(&c);
	if (st == MT_OK && res->nmsgs >= UINT32_MAX)
		st = MT_END;		/* check_input says why */
	res->mode = mode;
	if (st == MT_OK)
		st = mt_clock_domains(&c);
	/* auto: several domains take the linear map; a receive before its
	 * send on one clock, the CLC (run()'s decisions, viol_linear being
	 * viol_before while nothing moved). */
	if (st == MT_OK && mode == MT_CLOCK_MODE_AUTO &&
	    (res->ndomains > 1 || res->viol_before))
		st = MT_END;
	if (st == MT_OK)
		st = mt_clock_agreement(&c);
	if (st == MT_OK)
		st = mt_clock_links(&c);
	res->viol_after = res->viol_linear;
	if (st != MT_OK) {
		mt_clock_result_free(res);
		memset(res, 0, sizeof(*res));
	}
	return st;
}

void mt_clock_result_free(struct mt_clock_result *res)
{
	free(res->domains);
	free(res->proc_domain);
	free(res->links);
	res->domains = NULL;
	res->proc_domain = NULL;
	res->links = NULL;
	res->ndomains = res->nlinks = 0;
}
