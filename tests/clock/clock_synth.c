/*
 * clock_synth.c - generates the event graph of an MPI-like run on one true
 * clock: rounds of point-to-point traffic (ring shifts, ping-pongs) and of
 * collective-like patterns decomposed into messages (binomial broadcast and
 * reduce, recursive-doubling exchange), with compute phases in between.
 * Each message has a send event and a receive event; with cfg.internal the
 * processes also record receive posts and send completions, as the fabric
 * trace does. Then applies per-host clock errors to a copy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_synth.h"
#include "mt_format.h"

void synth_cfg_default(struct synth_cfg *c)
{
	*c = (struct synth_cfg){
		.nprocs = 8, .per_host = 1, .msgs = 20000, .seed = 1,
		.lmin_inter_ns = 5000, .lmin_intra_ns = 1000,
		.tail_mean_ns = 8000, .tail_max_ns = 45000, .internal = 1,
	};
}

static uint64_t rnd(uint64_t *s)	/* splitmix64 */
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ z >> 27) * 0x94D049BB133111EBull;
	return z ^ z >> 31;
}

static double unif(uint64_t *s)		/* [0, 1) */
{
	return (double)(rnd(s) >> 11) * 0x1p-53;
}

static int64_t between(uint64_t *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

struct gen {
	const struct synth_cfg *c;
	struct synth *s;
	uint64_t rng;
	uint64_t *cap;			/* events allocated per process */
	int64_t *now;			/* each process's true time */
	uint64_t capm;
	int nomem;
};

static uint64_t event(struct gen *g, uint32_t p, int64_t t)
{
	struct synth *s = g->s;

	if (s->n[p] == g->cap[p]) {
		uint64_t n = g->cap[p] ? 2 * g->cap[p] : 1024;
		int64_t *a = realloc(s->t[p], n * sizeof(*a));

		if (!a) {
			g->nomem = 1;
			return 0;
		}
		s->t[p] = a;
		g->cap[p] = n;
	}
	s->t[p][s->n[p]] = t;
	g->now[p] = t;
	return s->n[p]++;
}

static int64_t latency(struct gen *g, uint32_t a, uint32_t b)
{
	const struct synth_cfg *c = g->c;
	int intra = a / c->per_host == b / c->per_host;
	double mean = (double)c->tail_mean_ns / (intra ? 4 : 1);
	double tail = -mean * log(1 - unif(&g->rng));

	if (tail > (double)c->tail_max_ns)
		tail = (double)c->tail_max_ns;
	return (intra ? c->lmin_intra_ns : c->lmin_inter_ns) + (int64_t)tail;
}

/* One round: every sender posts, then every receiver completes in order.
 * src/dst hold n messages. */
static void round_of(struct gen *g, const uint32_t *src, const uint32_t *dst,
		     uint32_t n)
{
	struct synth *s = g->s;
	int64_t ts[64];
	uint64_t es[64];

	if (g->c->internal)
		for (uint32_t k = 0; k < n; k++)
			event(g, dst[k], g->now[dst[k]] + between(&g->rng, 100, 400));
	for (uint32_t k = 0; k < n; k++) {
		ts[k] = g->now[src[k]] + between(&g->rng, 200, 2000);
		es[k] = event(g, src[k], ts[k]);
	}
	for (uint32_t k = 0; k < n; k++) {
		int64_t lat = latency(g, src[k], dst[k]);
		int64_t tr = ts[k] + lat;
		int64_t ready = g->now[dst[k]] + between(&g->rng, 100, 300);

		if (tr < ready)
			tr = ready;
		if (tr - ts[k] < s->lat_min_ns)
			s->lat_min_ns = tr - ts[k];
		if (s->nm == g->capm) {
			uint64_t cm = g->capm ? 2 * g->capm : 4096;
			struct mt_clock_msg *m = realloc(s->msgs, cm * sizeof(*m));

			if (!m) {
				g->nomem = 1;
				return;
			}
			s->msgs = m;
			g->capm = cm;
		}
		s->msgs[s->nm++] = (struct mt_clock_msg){
			.send_proc = src[k], .recv_proc = dst[k],
			.send_ev = es[k], .recv_ev = event(g, dst[k], tr),
		};
	}
	if (g->c->internal)
		for (uint32_t k = 0; k < n; k++)
			event(g, src[k], g->now[src[k]] + between(&g->rng, 100, 400));
}

static void one(struct gen *g, uint32_t a, uint32_t b)
{
	round_of(g, &a, &b, 1);
}

/* Binomial tree rooted at root over np processes; up: children to parents. */
static void binomial(struct gen *g, uint32_t root, int up)
{
	uint32_t np = g->s->np, src[64], dst[64], top = 1;

	while (top < np)
		top <<= 1;
	for (uint32_t step = up ? top / 2 : 1; up ? step >= 1 : step < top;
	     step = up ? step / 2 : step * 2) {
		uint32_t n = 0;

		for (uint32_t r = 0; r < step && r + step < np; r++) {
			src[n] = (root + (up ? r + step : r)) % np;
			dst[n++] = (root + (up ? r : r + step)) % np;
		}
		round_of(g, src, dst, n);
	}
}

/* Recursive doubling: partners p ^ mask exchange both ways. */
static void exchange(struct gen *g)
{
	uint32_t np = g->s->np, src[64], dst[64];

	for (uint32_t mask = 1; mask < np; mask <<= 1) {
		uint32_t n = 0;

		for (uint32_t p = 0; p < np; p++)
			if ((p ^ mask) < np) {
				src[n] = p;
				dst[n++] = p ^ mask;
			}
		round_of(g, src, dst, n);
	}
}

static void phase(struct gen *g)
{
	uint32_t np = g->s->np, src[64], dst[64];

	switch (rnd(&g->rng) % 6) {
	case 0: {	/* ring shift */
		uint32_t k = 1 + (uint32_t)(rnd(&g->rng) % (np - 1));

		for (uint32_t p = 0; p < np; p++) {
			src[p] = p;
			dst[p] = (p + k) % np;
		}
		round_of(g, src, dst, np);
		break;
	}
	case 1: {	/* ping-pong */
		uint32_t a = (uint32_t)(rnd(&g->rng) % np);
		uint32_t b = (a + 1 + (uint32_t)(rnd(&g->rng) % (np - 1))) % np;

		for (int i = 1 + (int)(rnd(&g->rng) % 8); i-- > 0;) {
			one(g, a, b);
			one(g, b, a);
		}
		break;
	}
	case 2:
		binomial(g, (uint32_t)(rnd(&g->rng) % np), 0);
		break;
	case 3:
		binomial(g, (uint32_t)(rnd(&g->rng) % np), 1);
		break;
	case 4:
		exchange(g);
		break;
	default:	/* compute */
		for (uint32_t p = 0; p < np; p++)
			event(g, p, g->now[p] + between(&g->rng, 10000, 500000));
	}
}

int synth_generate(const struct synth_cfg *c, struct synth *s)
{
	struct gen g = { .c = c, .s = s, .rng = c->seed };

	memset(s, 0, sizeof(*s));
	if (c->nprocs < 2 || c->nprocs > 64 || c->per_host < 1)
		return -1;
	s->np = c->nprocs;
	s->lat_min_ns = INT64_MAX;
	s->host = calloc(s->np, sizeof(*s->host));
	s->n = calloc(s->np, sizeof(*s->n));
	s->t = calloc(s->np, sizeof(*s->t));
	g.cap = calloc(s->np, sizeof(*g.cap));
	g.now = calloc(s->np, sizeof(*g.now));
	if (!s->host || !s->n || !s->t || !g.cap || !g.now)
		g.nomem = 1;
	for (uint32_t p = 0; !g.nomem && p < s->np; p++) {
		snprintf(s->host[p], sizeof(s->host[p]), "node%u", p / c->per_host);
		g.now[p] = 1000000000 + between(&g.rng, 0, 100000);
	}
	while (!g.nomem && s->nm < c->msgs)
		phase(&g);
	free(g.cap);
	free(g.now);
	if (g.nomem) {
		synth_free(s);
		return -1;
	}
	return 0;
}

void synth_free(struct synth *s)
{
	for (uint32_t p = 0; s->t && p < s->np; p++)
		free(s->t[p]);
	free(s->t);
	free(s->n);
	free(s->host);
	free(s->msgs);
	memset(s, 0, sizeof(*s));
}

int synth_perturb(const struct synth *s, const struct perturb_cfg *c,
		  struct perturbed *out)
{
	uint64_t rng = c->seed;
	double ntp = 0;		/* the current host's CLOCK_REALTIME error */

	memset(out, 0, sizeof(*out));
	out->t = calloc(s->np, sizeof(*out->t));
	out->cal = calloc(s->np, sizeof(*out->cal));
	out->offset_ns = calloc(s->np, sizeof(double));
	out->drift_ppm = calloc(s->np, sizeof(double));
	out->phase = calloc(s->np, sizeof(double));
	if (!out->t || !out->cal || !out->offset_ns || !out->drift_ppm ||
	    !out->phase)
		goto nomem;
	out->wander_ns = c->wander_ns;
	out->t_start = INT64_MAX;
	out->t_end = INT64_MIN;
	for (uint32_t p = 0; p < s->np; p++)
		if (s->n[p]) {
			out->t_start = s->t[p][0] < out->t_start ? s->t[p][0] : out->t_start;
			out->t_end = s->t[p][s->n[p] - 1] > out->t_end ?
				     s->t[p][s->n[p] - 1] : out->t_end;
		}
	out->wander_period_ns = c->wander_period_ns > 0 ? c->wander_period_ns :
				(double)(out->t_end - out->t_start) / 2 + 1;
	for (uint32_t p = 0; p < s->np; p++) {
		/* One clock per host: draw for the first process of each host. */
		uint32_t first = p;

		while (first > 0 && strcmp(s->host[first - 1], s->host[p]) == 0)
			first--;
		if (first == p) {
			out->offset_ns[p] = (2 * unif(&rng) - 1) * c->max_offset_ns;
			out->drift_ppm[p] = (2 * unif(&rng) - 1) * c->max_drift_ppm;
			ntp = (2 * unif(&rng) - 1) * (double)c->ntp_ns;
			out->phase[p] = 2 * M_PI * unif(&rng);
		} else {
			out->offset_ns[p] = out->offset_ns[first];
			out->drift_ppm[p] = out->drift_ppm[first];
			out->phase[p] = out->phase[first];
		}
		out->t[p] = malloc((s->n[p] + 1) * sizeof(int64_t));
		if (!out->t[p])
			goto nomem;
		for (uint64_t j = 0; j < s->n[p]; j++) {
			int64_t jit = c->jitter_ns ?
				(int64_t)(rnd(&rng) % (uint64_t)(2 * c->jitter_ns + 1)) - c->jitter_ns : 0;

			out->t[p][j] = llround(perturbed_clock(out, p, s->t[p][j])) + jit;
			if (j && out->t[p][j] <= out->t[p][j - 1])
				out->t[p][j] = out->t[p][j - 1] + 1;
		}
		for (int k = 0; k < 2 && s->n[p]; k++) {
			uint64_t j = k ? s->n[p] - 1 : 0;

			/* CLOCK_REALTIME on the host: true time plus its NTP error. */
			out->cal[p][k].local_ns = out->t[p][j];
			out->cal[p][k].realtime_ns = s->t[p][j] + (int64_t)ntp;
		}
	}
	return 0;
nomem:
	perturbed_free(s, out);
	return -1;
}

double perturbed_clock(const struct perturbed *pt, uint32_t p, int64_t t)
{
	double since = (double)(t - pt->t_start);
	double e = pt->offset_ns[p] + pt->drift_ppm[p] * 1e-6 * since;

	if (pt->wander_ns > 0)
		e += pt->wander_ns *
		     sin(2 * M_PI * since / pt->wander_period_ns + pt->phase[p]);
	return (double)t + e;
}

void perturbed_free(const struct synth *s, struct perturbed *p)
{
	for (uint32_t q = 0; p->t && q < s->np; q++)
		free(p->t[q]);
	free(p->t);
	free(p->cal);
	free(p->offset_ns);
	free(p->drift_ppm);
	free(p->phase);
	memset(p, 0, sizeof(*p));
}

void synth_procs(const struct synth *s, const struct perturbed *p,
		 struct mt_clock_proc *procs)
{
	for (uint32_t q = 0; q < s->np; q++)
		procs[q] = (struct mt_clock_proc){
			.host = s->host[q], .clock_source = MT_CLOCK_MONOTONIC,
			.ncal = s->n[q] ? 2 : 0, .cal = p->cal[q],
			.nevents = s->n[q], .t = p->t[q],
		};
}
