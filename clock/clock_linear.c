/*
 * clock_linear.c - linear pre-synchronisation: an offset and a drift per
 * clock domain, relative to a reference domain.
 *
 * Between two domains A and B exchanging messages both ways, every A->B
 * delay measured across the two clocks is latency + delta(t) and every B->A
 * delay is latency - delta(t), where delta(t) = clock B - clock A. The lower
 * envelopes of both (sampled as the smallest delay per time window)
 * therefore bracket delta. The line that stays farthest from both envelopes
 * (a small linear program, see fit()) is the pair's offset and drift under
 * a symmetric minimum latency; the envelopes are then resampled around that
 * line, so that the drift inside a window no longer biases its minimum, and
 * the fit repeated. The half-width of the bracket (the minimum latency)
 * bounds what the data can tell about latency asymmetry: it is part of the
 * reported offset uncertainty, not of the weights (see fit()).
 *
 * Every process also carries CLOCK_REALTIME calibration pairs: a weak
 * measurement (NTP, opts.realtime_sd_ns) of each domain against a common
 * "realtime" node, which ties in domains that exchange nothing both ways.
 *
 * All measurements are combined by weighted least squares (clock_solve.c),
 * offsets and drifts separately, with the largest domain of each connected
 * group as the reference. Two rules hold what the messages prove over what
 * the rest estimates: a pair's drift enters only where its messages rule
 * out the drift held without them, else the held one does (supported_drifts,
 * clock_drift.c), and no offset is left outside the interval a pair's round
 * trips bound (keep_in_bounds).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock_drift.h"
#include "clock_int.h"
#include "clock_solve.h"

#define REFINE_PASSES 2
/* The drifts a pair's fit considers, around its envelopes' line. */
#define DRIFT_REACH 1e-3
/* No measurement here knows a drift better than 0.001 ppm: a floor on drift
 * variances keeps the least-squares system conditioned when corrupt
 * calibrations claim more (a span of decades made one weigh 10^24). */
#define DRIFT_VAR_MIN 1e-18

struct win {
	int64_t min[2];		/* smallest residual delay, lo->hi and hi->lo */
	int64_t at[2];		/* send time of that message */
};

struct pair {
	uint32_t lo, hi;	/* domains, lo < hi */
	uint64_t n[2];
	int64_t tmin, tmax;	/* send times seen */
	uint32_t nw;		/* windows (0: traffic one way only) */
	double scale;		/* windows per ns of send time */
	struct win *w;
	uint32_t *hull[2];	/* per direction: the windows on the lower */
	uint32_t nh[2];		/* convex hull of (at, min), by time */
	double a, b;		/* delta(t) = a + b * (t - t0), hi minus lo */
	double env_a, env_b;	/* the line the window minima are residuals of */
	double var_a, var_b;	/* var_a: random part, at xc, for a known drift */
	double gap;		/* half width of the offset band: asymmetry bound */
	double excess;		/* window minima above the envelopes, mean sum */
	double xc;		/* centre of the pair's traffic, ns from t0 */
};

/* A message between two domains, as the envelope passes need it: read
 * sequentially three times instead of chasing two timestamps each time. */
struct xmsg {
	int64_t ts;		/* send time */
	int64_t d;		/* receive time - send time, across clocks */
	uint32_t pair;
	uint32_t dir;		/* 0: lo -> hi, 1: hi -> lo */
};

struct lin {
	struct clk *c;
	struct clk_pairs map;
	struct pair *pairs;
	struct xmsg *x;		/* the messages between domains, compact */
	uint64_t nx;
	struct win *pool;
	uint32_t *hull_pool;
};

static void lin_free(struct lin *l)
{
	mt_clock_pairs_free(&l->map);
	free(l->pairs);
	free(l->x);
	free(l->pool);
	free(l->hull_pool);
}

/* Indexes every message between two domains by its unordered pair. */
static enum mt_status index_pairs(struct lin *l)
{
	const struct clk *c = l->c;
	const uint32_t *dom = c->res->proc_domain;
	uint32_t cap = 16;

	if (mt_clock_pairs_init(&l->map, 64, c->res->ndomains, 1) != MT_OK)
		return MT_ERR_NOMEM;
	l->x = mt_clock_alloc_big((c->nm + 1) * sizeof(*l->x));
	l->pairs = malloc(cap * sizeof(*l->pairs));
	if (!l->x || !l->pairs)
		return MT_ERR_NOMEM;
	for (uint64_t i = 0; i < c->nm; i++) {
		const struct mt_clock_msg *m = &c->msgs[i];
		uint32_t ds = dom[m->send_proc], dr = dom[m->recv_proc];
		int64_t ts = c->procs[m->send_proc].t[m->send_ev];
		uint32_t had = l->map.n, k;
		struct pair *p;

		if (ds == dr)
			continue;
		uint32_t lo = ds < dr ? ds : dr, hi = ds < dr ? dr : ds;

		k = mt_clock_pairs_get(&l->map, clk_pair_key(lo, hi));
		if (k == UINT32_MAX)
			return MT_ERR_NOMEM;
		if (k >= cap) {
			p = realloc(l->pairs, 2 * cap * sizeof(*p));
			if (!p)
				return MT_ERR_NOMEM;
			l->pairs = p;
			cap *= 2;
		}
		p = &l->pairs[k];
		if (l->map.n != had) {
			memset(p, 0, sizeof(*p));
			p->lo = lo;
			p->hi = hi;
			p->tmin = INT64_MAX;
			p->tmax = INT64_MIN;
		}
		p->n[ds != lo]++;
		p->tmin = ts < p->tmin ? ts : p->tmin;
		p->tmax = ts > p->tmax ? ts : p->tmax;
		l->x[l->nx++] = (struct xmsg){
			ts, c->procs[m->recv_proc].t[m->recv_ev] - ts, k, ds != lo };
	}
	return MT_OK;
}

/* Windows for the pairs with traffic both ways: about 4 messages of the
 * rarer direction per window, at most opts.windows. More windows sample the
 * envelopes' corners better; each costs two numbers per pass. */
static enum mt_status make_windows(struct lin *l)
{
	uint64_t total = 0;

	for (uint32_t k = 0; k < l->map.n; k++) {
		struct pair *p = &l->pairs[k];
		uint64_t few = p->n[0] < p->n[1] ? p->n[0] : p->n[1];
		uint64_t nw = few / 4 ? few / 4 : 1;

		p->nw = few ? (uint32_t)(nw < l->c->o->windows ? nw : l->c->o->windows) : 0;
		total += p->nw;
	}
	l->pool = malloc((total + 1) * sizeof(*l->pool));
	l->hull_pool = malloc((2 * total + 1) * sizeof(*l->hull_pool));
	if (!l->pool || !l->hull_pool)
		return MT_ERR_NOMEM;
	total = 0;
	for (uint32_t k = 0; k < l->map.n; k++) {
		struct pair *p = &l->pairs[k];

		p->w = l->pool + total;
		p->hull[0] = l->hull_pool + 2 * total;
		p->hull[1] = p->hull[0] + p->nw;
		p->scale = (double)p->nw / ((double)(p->tmax - p->tmin) + 1);
		total += p->nw;
	}
	return MT_OK;
}

/* One pass over the messages: per window and direction, the smallest delay
 * left after removing the current estimate of delta. */
static void envelope(struct lin *l)
{
	const int64_t t0 = l->c->res->t0;

	for (uint32_t k = 0; k < l->map.n; k++) {
		l->pairs[k].env_a = l->pairs[k].a;
		l->pairs[k].env_b = l->pairs[k].b;
		for (uint32_t i = 0; i < l->pairs[k].nw; i++)
			l->pairs[k].w[i] = (struct win){
				{ INT64_MAX, INT64_MAX }, { 0, 0 } };
	}
	for (uint64_t i = 0; i < l->nx; i++) {
		const struct xmsg *x = &l->x[i];
		struct pair *p = &l->pairs[x->pair];

		if (!p->nw)
			continue;
		int64_t pred = clk_round(p->a + p->b * (double)(x->ts - t0));
		int64_t v = x->d + (x->dir ? pred : -pred);
		uint32_t wi = (uint32_t)((double)(x->ts - p->tmin) * p->scale);
		struct win *w = &p->w[wi < p->nw ? wi : p->nw - 1];

		if (v < w->min[x->dir]) {
			w->min[x->dir] = v;
			w->at[x->dir] = x->ts;
		}
	}
}

/* Does window c lie on or above the line from a to b (points (at, min))? */
static int above(const struct win *a, const struct win *b, const struct win *c,
		 int dir)
{
	double abx = (double)(b->at[dir] - a->at[dir]);
	double aby = (double)b->min[dir] - (double)a->min[dir];
	double acx = (double)(c->at[dir] - a->at[dir]);
	double acy = (double)c->min[dir] - (double)a->min[dir];

	return abx * acy - aby * acx >= 0;
}

/* The lower convex hull of each direction's window points (monotone chain:
 * windows are in time order). A linear function of the points takes its
 * minimum on it, so envelope_bound looks at a few dozen points instead of
 * every window, at every step of fit()'s searches. */
static void hulls(struct pair *p)
{
	for (int dir = 0; dir < 2; dir++) {
		uint32_t *h = p->hull[dir], n = 0;

		for (uint32_t i = 0; i < p->nw; i++) {
			if (p->w[i].min[dir] == INT64_MAX)
				continue;
			while (n >= 2 && !above(&p->w[h[n - 2]], &p->w[h[n - 1]],
						&p->w[i], dir))
				n--;
			h[n++] = i;
		}
		p->nh[dir] = n;
	}
}

/* The lower envelope bound of one direction for drift b: the largest c
 * with c + sign * b * x <= min at every window point (x, min). */
static double envelope_bound(const struct pair *p, int dir, double b,
			     int64_t t0)
{
	double u = INFINITY;

	for (uint32_t k = 0; k < p->nh[dir]; k++) {
		const struct win *w = &p->w[p->hull[dir][k]];
		double v = (double)w->min[dir] +
			   (dir ? b : -b) * (double)(w->at[dir] - t0);

		u = v < u ? v : u;
	}
	return u;
}

static uint32_t windows_with(const struct pair *p, int dir)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nw; i++)
		n += p->w[i].min[dir] != INT64_MAX;
	return n;
}

static double gap_sum(const struct pair *p, double b, int64_t t0)
{
	return envelope_bound(p, 0, b, t0) + envelope_bound(p, 1, b, t0);
}

/* The drift at the edge of {b : gap_sum(b) >= h} between inside (where it
 * holds) and outside, by bisection (gap_sum is concave). */
static double edge(const struct pair *p, double inside, double outside,
		   double h, int64_t t0)
{
	for (int it = 0; it < 40; it++) {
		double mid = (inside + outside) / 2;

		if (gap_sum(p, mid, t0) >= h)
			inside = mid;
		else
			outside = mid;
	}
	return (inside + outside) / 2;
}

/* The drift variance the window midpoints ((min0 - min1) / 2, each an
 * estimate of the line) show around the line a + b x: far below the band's
 * with dense traffic, where the band overstates the error; INFINITY with
 * fewer than three midpoints. */
static double midpoint_scatter(const struct pair *p, double a, double b,
			       int64_t t0)
{
	double sx = 0, sxx = 0, rss = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nw; i++) {
		const struct win *w = &p->w[i];

		if (w->min[0] == INT64_MAX || w->min[1] == INT64_MAX)
			continue;
		double x = (double)(w->at[0] - t0) / 2 + (double)(w->at[1] - t0) / 2;
		double r = ((double)w->min[0] - (double)w->min[1]) / 2 - a - b * x;

		n++;
		sx += x;
		sxx += x * x;
		rss += r * r;
	}
	if (n < 8 || !(sxx - sx * sx / n > 0))
		return INFINITY;
	return fmax(rss / (n - 2), 1) / (sxx - sx * sx / n);
}

/* How far, on average, the window minima of each direction lie above their
 * envelope (the lines of drift b through the bounds u and v), summed over
 * the two directions: what one window's minimum tells about the envelope,
 * and so how much of the band's width a drift's choice can rest on. Large
 * with few messages a window, near 0 with many. */
static double window_excess(const struct pair *p, double b, double u, double v,
			    int64_t t0)
{
	double sum[2] = { 0, 0 };
	uint32_t n[2] = { 0, 0 };

	for (uint32_t i = 0; i < p->nw; i++)
		for (int dir = 0; dir < 2; dir++) {
			const struct win *w = &p->w[i];

			if (w->min[dir] == INT64_MAX)
				continue;
			sum[dir] += (double)w->min[dir] +
				    (dir ? b : -b) * (double)(w->at[dir] - t0) -
				    (dir ? v : u);
			n[dir]++;
		}
	return sum[0] / n[0] + sum[1] / n[1];
}

/*
 * The linear program of the convex-hull methods: the line a + b x that
 * leaves the widest symmetric gap L under both lower envelopes,
 *   a + b x + L <= min0(x)   and   -(a + b x) + L <= min1(x).
 * For a fixed b the best a and L follow from the two envelope bounds U, V:
 * L = (U + V) / 2 and a = (U - V) / 2; U + V is concave in b, so a golden
 * section search finds b. The line is added to the pair's estimate (the
 * minima are residuals of it).
 * Uncertainty: every line with non-negative latencies both ways is
 * consistent with the data. Its drifts lie in the interval where
 * U + V >= 0, a uniform error over it (capped by the scatter of the window
 * midpoints, see midpoint_scatter; where noise leaves no consistent line at
 * all, U + V < 0 everywhere, the interval widens to twice the shortfall).
 * Its offsets lie within L of a: latency asymmetry, alike for every pair of
 * a link class, which weighting cannot average away. So pairs weigh by the
 * random part only (how far the lowest of few delays may sit above the
 * envelope), and the band L is added to the reported uncertainty.
 */
static void fit(struct pair *p, int64_t t0)
{
	const double phi = 0.6180339887498949, reach = DRIFT_REACH;
	double lo = -reach, hi = reach, b = 0, var_b = INFINITY;
	uint32_t n0 = windows_with(p, 0), n1 = windows_with(p, 1);

	if (!n0 || !n1) {
		p->nw = 0;
		return;
	}
	if (n0 >= 2 && n1 >= 2) {
		double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
		double g1 = gap_sum(p, x1, t0), g2 = gap_sum(p, x2, t0);

		for (int it = 0; it < 64; it++) {
			if (g1 < g2) {
				lo = x1;
				x1 = x2;
				g1 = g2;
				x2 = lo + phi * (hi - lo);
				g2 = gap_sum(p, x2, t0);
			} else {
				hi = x2;
				x2 = x1;
				g2 = g1;
				x1 = hi - phi * (hi - lo);
				g1 = gap_sum(p, x1, t0);
			}
		}
		b = (lo + hi) / 2;
		double g = gap_sum(p, b, t0), h = g < 0 ? 2 * g : 0;
		double half = (edge(p, b, b + reach, h, t0) -
			       edge(p, b, b - reach, h, t0)) / 2;

		var_b = half * half / 3;
	}
	double u = envelope_bound(p, 0, b, t0), v = envelope_bound(p, 1, b, t0);
	double gap = fmax(fabs(u + v) / 2, 1);
	double scatter = midpoint_scatter(p, (u - v) / 2, b, t0);

	/* The lowest of n delays sits about (latency spread) / n above the
	 * true envelope; the spread is of the order of the band. */
	double few = (double)(p->n[0] < p->n[1] ? p->n[0] : p->n[1]);
	double noise = 4 * gap / few;

	p->excess = window_excess(p, b, u, v, t0);
	p->a += (u - v) / 2;
	p->b += b;
	p->var_b = fmax(fmin(var_b, scatter), DRIFT_VAR_MIN);
	p->var_a = fmax(noise * noise, 1);
	p->gap = gap;
	p->xc = ((double)(p->tmin - t0) + (double)(p->tmax - t0)) / 2;
}

/* The pair's offset at t0 for drift db: the middle of the band the
 * envelopes leave at that drift (fit()'s a for a fixed b). Rotating the
 * pair's own line about the centre of its traffic instead would leave the
 * band wherever db differs much from the pair's drift (sparse traffic, where
 * the drift prior decides), putting receives before their sends. */
static double offset_at(const struct pair *p, double db, int64_t t0)
{
	double u = envelope_bound(p, 0, db - p->env_b, t0);
	double v = envelope_bound(p, 1, db - p->env_b, t0);

	return p->env_a + (u - v) / 2;
}

/* Per domain, the line through its processes' (local - realtime) pairs:
 * an edge from the realtime node (index ndomains) to the domain. */
static uint32_t realtime_edges(const struct clk *c, struct clk_edge *ea,
			       struct clk_edge *eb, uint32_t *neb)
{
	const uint32_t nd = c->res->ndomains;
	const double var = (double)c->o->realtime_sd_ns * (double)c->o->realtime_sd_ns;
	uint32_t ne = 0;

	*neb = 0;
	for (uint32_t d = 0; d < nd; d++) {
		double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
		int64_t lo = INT64_MAX, hi = INT64_MIN;

		for (int pass = 0; pass < 2; pass++) {
			double xm = n ? sx / n : 0, ym = n ? sy / n : 0;

			for (uint32_t q = 0; q < c->np; q++) {
				const struct mt_clock_proc *pr = &c->procs[q];

				if (c->res->proc_domain[q] != d)
					continue;
				for (uint32_t k = 0; k < pr->ncal; k++) {
					/* In doubles: a corrupt trace's times must not
					 * overflow (fuzz, regress/clock-linear-overflow). */
					double x = (double)pr->cal[k].local_ns - (double)c->res->t0;
					double y = (double)pr->cal[k].local_ns -
						   (double)pr->cal[k].realtime_ns;

					if (pass == 0) {
						n++;
						sx += x;
						sy += y;
						lo = pr->cal[k].local_ns < lo ? pr->cal[k].local_ns : lo;
						hi = pr->cal[k].local_ns > hi ? pr->cal[k].local_ns : hi;
					} else {
						sxx += (x - xm) * (x - xm);
						sxy += (x - xm) * (y - ym);
					}
				}
			}
		}
		if (!n)
			continue;
		double slope = sxx > 0 ? sxy / sxx : 0;

		ea[ne] = (struct clk_edge){ nd, d, sy / n - slope * sx / n, var };
		if (hi > lo) {
			/* In doubles: calibration times are not bounded like
			 * message times (fuzz, regress/clock-cal-span). */
			double span = (double)hi - (double)lo;

			eb[(*neb)++] = (struct clk_edge){ nd, d, slope,
				fmax(2 * var / (span * span), DRIFT_VAR_MIN) };
		}
		ne++;
	}
	return ne;
}

/* The offsets at t0 (hi minus lo) a line of drift db can take without a
 * message between the pair's domains arriving before it was sent: the
 * interval the round trips bound. lo > hi: no such line. */
static void bounds_at(const struct pair *p, double db, int64_t t0,
		      double *lo, double *hi)
{
	*hi = p->env_a + envelope_bound(p, 0, db - p->env_b, t0);
	*lo = p->env_a - envelope_bound(p, 1, db - p->env_b, t0);
}

/*
 * Adds to eb one drift per pair with traffic both ways: the one its
 * messages measure where they rule out the drift held without them
 * (clock_drift.c), else that held drift, at the messages' precision. The
 * held drift is the recorded CLOCK_REALTIME relation where both domains
 * have one (NTP errors are offsets that change slowly: the relation's
 * drift is good, its offset is not), else what the prior and calibrations
 * give (xb). A drift the messages do not support, noise of the envelopes'
 * few corners, would tilt the times away from the messages by more than
 * the round trips allow far from them. A held drift is to be taken as it
 * is, not pulled towards the prior: its edge gets the least variance, and
 * held_var[edge] the messages' (NaN for the other edges), for the
 * uncertainty. MT_ERR_NOMEM or MT_OK.
 */
static enum mt_status supported_drifts(const struct lin *l, const double *xb,
				       const double *rt, struct clk_edge *eb,
				       uint32_t *neb, double *held_var)
{
	uint32_t most = 0;

	for (uint32_t k = 0; k < l->map.n; k++)
		most = l->pairs[k].nw > most ? l->pairs[k].nw : most;
	double *buf = malloc((4 * (size_t)most + 1) * sizeof(*buf));

	if (!buf)
		return MT_ERR_NOMEM;
	for (uint32_t k = 0; k < l->map.n; k++) {
		const struct pair *p = &l->pairs[k];
		double db = isnan(rt[p->hi] - rt[p->lo]) ? xb[p->hi] - xb[p->lo] :
			    rt[p->hi] - rt[p->lo];
		struct clk_env e[2] = { { 0, buf, buf + most },
					{ 0, buf + 2 * most, buf + 3 * most } };

		if (!p->nw || !isfinite(p->var_b))
			continue;
		for (uint32_t i = 0; i < p->nw; i++)
			for (int dir = 0; dir < 2; dir++) {
				const struct win *w = &p->w[i];

				if (w->min[dir] == INT64_MAX)
					continue;
				e[dir].x[e[dir].n] = (double)(w->at[dir] - l->c->res->t0);
				e[dir].y[e[dir].n++] = (double)w->min[dir];
			}
		held_var[*neb] = NAN;
		if (isnan(db) || mt_clock_drift_supported(e, db - p->env_b, DRIFT_REACH))
			eb[(*neb)++] = (struct clk_edge){ p->lo, p->hi, p->b, p->var_b };
		else {
			held_var[*neb] = p->var_b;
			eb[(*neb)++] = (struct clk_edge){ p->lo, p->hi, db, DRIFT_VAR_MIN };
		}
	}
	free(buf);
	return MT_OK;
}

/*
 * Moves offsets the least-squares solve left outside a pair's round-trip
 * bound (a calibration weighed against sparse messages, or other pairs
 * pulling) to the nearest end of it: the bound is what the messages prove,
 * the rest estimates. The domain moved is the pair's one that is no
 * reference; a few sweeps settle chains of pairs. Pairs with no consistent
 * line (noise, or a clock that stepped) are left to the CLC.
 */
static void keep_in_bounds(const struct lin *l, double *xa, const double *xb,
			   const unsigned char *pinned)
{
	for (int sweep = 0; sweep < 4; sweep++) {
		int moved = 0;

		for (uint32_t k = 0; k < l->map.n; k++) {
			const struct pair *p = &l->pairs[k];
			double lo, hi, db = xb[p->hi] - xb[p->lo];
			double o = xa[p->hi] - xa[p->lo], shift;

			if (!p->nw || isnan(o))
				continue;
			bounds_at(p, isnan(db) ? p->b : db, l->c->res->t0, &lo, &hi);
			if (lo > hi || (o >= lo && o <= hi))
				continue;
			shift = (o > hi ? hi : lo) - o;
			if (!pinned[p->hi])
				xa[p->hi] += shift;
			else if (!pinned[p->lo])
				xa[p->lo] -= shift;
			else
				continue;
			moved = 1;
		}
		if (!moved)
			return;
	}
}

/* Resamples each pair's envelopes around the line of the drift db the
 * solve gave it (xb), through the middle of its band: a window keeps one
 * message a direction, the lowest about the line it was sampled around,
 * and where db differs much from the pair's own fit (sparse traffic, whose
 * fit may lie anywhere in a wide interval) that message is not the lowest
 * about db. The offsets and bounds are then read at db. */
static void resample(struct lin *l, const double *xb)
{
	for (uint32_t k = 0; k < l->map.n; k++) {
		struct pair *p = &l->pairs[k];
		double db = xb[p->hi] - xb[p->lo];

		if (!p->nw || isnan(db))
			continue;
		p->a = offset_at(p, db, l->c->res->t0);
		p->b = db;
	}
	envelope(l);
	for (uint32_t k = 0; k < l->map.n; k++)
		if (l->pairs[k].nw)
			hulls(&l->pairs[k]);
}

/* Combines pair and realtime measurements into res->domains. */
static enum mt_status combine(struct lin *l)
{
	struct mt_clock_result *r = l->c->res;
	const uint32_t nd = r->ndomains, nn = nd + 1;
	struct clk_edge *ea = malloc((l->map.n + nd + 1) * sizeof(*ea));
	struct clk_edge *eb = malloc((l->map.n + 2 * nd + 1) * sizeof(*eb));
	double *prio = malloc(nn * sizeof(*prio));
	double *xa = malloc(nn * sizeof(double)), *va = malloc(nn * sizeof(double));
	double *xb = malloc(nn * sizeof(double)), *vb = malloc(nn * sizeof(double));
	uint32_t *anchor = malloc(nn * sizeof(*anchor));
	uint32_t *anchor_b = malloc(nn * sizeof(*anchor_b));
	unsigned char *pinned = calloc(nn, 1), *pinned_b = calloc(nn, 1);
	unsigned char *has_msg = calloc(nn, 1);
	double *band = malloc(nn * sizeof(*band));	/* tightest pair gap */
	double *rt = malloc(nn * sizeof(*rt));	/* CLOCK_REALTIME relation's drift */
	double *scratch = malloc(nn * sizeof(*scratch));
	double *held_var = malloc((l->map.n + 2 * nd + 1) * sizeof(*held_var));
	unsigned char *has_any = calloc(nn, 1);
	uint32_t nea, neb;
	enum mt_status st = MT_ERR_NOMEM;

	if (!ea || !eb || !prio || !xa || !va || !xb || !vb || !anchor ||
	    !anchor_b || !pinned || !pinned_b || !has_msg || !has_any || !band || !rt ||
	    !scratch || !held_var)
		goto out;
	for (uint32_t d = 0; d < nn; d++) {
		band[d] = INFINITY;
		rt[d] = NAN;
	}
	nea = realtime_edges(l->c, ea, eb, &neb);
	for (uint32_t k = 0; k < neb; k++)
		rt[eb[k].j] = eb[k].v;
	for (uint32_t k = 0; k < nea; k++)
		has_any[ea[k].j] = 1;
	for (uint32_t k = 0; k < l->map.n; k++)
		if (l->pairs[k].nw)
			has_msg[l->pairs[k].lo] = has_msg[l->pairs[k].hi] = 1;
	/* What oscillators allow: every clock runs within drift_prior_ppm of
	 * true time. Decides the drift where the data hardly do (short runs,
	 * sparse traffic) and is negligible where they do. A domain without
	 * data (a rank no file describes) has nothing to decide: left out, it
	 * stays out of the solve, whose work grows with the cube of its size
	 * (fuzz, tests/fuzz/regress/clock-empty-domains). */
	for (uint32_t d = 0; d < nd; d++) {
		double sd = l->c->o->drift_prior_ppm * 1e-6;

		if (has_any[d] || has_msg[d])
			eb[neb++] = (struct clk_edge){ nd, d, 0, sd * sd };
	}
	/* The reference of each group: its largest domain, then the lowest. */
	for (uint32_t d = 0; d < nd; d++)
		prio[d] = (double)r->domains[d].nprocs * 4294967296.0 - d;
	prio[nd] = -1;
	if (mt_clock_solve(nn, eb, neb, prio, pinned_b, anchor_b, xb, vb))
		goto fail;
	for (uint32_t k = 0; k < neb; k++)
		held_var[k] = NAN;
	if (supported_drifts(l, xb, rt, eb, &neb, held_var) != MT_OK)
		goto out;
	/* The drifts with held ones taken as they are; their uncertainty with
	 * held ones as uncertain as the messages leave them. */
	memset(pinned_b, 0, nn);
	if (mt_clock_solve(nn, eb, neb, prio, pinned_b, anchor_b, xb, scratch))
		goto fail;
	for (uint32_t k = 0; k < neb; k++)
		eb[k].var = isnan(held_var[k]) ? eb[k].var : held_var[k];
	memset(pinned_b, 0, nn);
	if (mt_clock_solve(nn, eb, neb, prio, pinned_b, anchor_b, scratch, vb))
		goto fail;
	resample(l, xb);
	/* Drifts first: a pair's offset is best known at the centre of its
	 * traffic; the combined drifts (far better than one pair's) carry it
	 * to t0, with their uncertainty over that distance. */
	for (uint32_t k = 0; k < l->map.n; k++) {
		const struct pair *p = &l->pairs[k];

		if (!p->nw)
			continue;
		double db = isnan(xb[p->hi] - xb[p->lo]) ? p->b : xb[p->hi] - xb[p->lo];
		double vdb = isnan(vb[p->hi] + vb[p->lo]) ? p->var_b : vb[p->hi] + vb[p->lo];

		ea[nea++] = (struct clk_edge){ p->lo, p->hi,
			offset_at(p, db, r->t0), p->var_a + vdb * p->xc * p->xc };
		band[p->lo] = fmin(band[p->lo], p->gap);
		band[p->hi] = fmin(band[p->hi], p->gap);
	}
	if (mt_clock_solve(nn, ea, nea, prio, pinned, anchor, xa, va))
		goto fail;
	keep_in_bounds(l, xa, xb, pinned);
	for (uint32_t d = 0; d < nd; d++) {
		struct mt_clock_domain *dm = &r->domains[d];

		dm->ref = anchor[d];
		dm->offset_ns = xa[d];
		dm->offset_sd_ns = pinned[d] || !isfinite(band[d]) ? sqrt(va[d]) :
				   sqrt(va[d] + band[d] * band[d] / 3);
		/* Drifts were solved against the largest domain of all: restate
		 * them against this domain's offset reference. */
		dm->drift_ppm = anchor[d] == UINT32_MAX || isnan(xb[d] - xb[anchor[d]]) ?
				0 : (xb[d] - xb[anchor[d]]) * 1e6;
		dm->drift_sd_ppm = sqrt(vb[d]) * 1e6;
		dm->est = pinned[d] ? (has_msg[d] || has_any[d] || nd == 1 ?
				      MT_CLOCK_EST_REF : MT_CLOCK_EST_NONE) :
			  has_msg[d] ? MT_CLOCK_EST_MESSAGES : MT_CLOCK_EST_REALTIME;
		/* Keep gamma below 1 minus the drift left unknown. */
		if (isfinite(dm->drift_sd_ppm) && 1 - 2e-6 * dm->drift_sd_ppm < dm->gamma)
			dm->gamma = fmax(0.9, 1 - 2e-6 * dm->drift_sd_ppm);
	}
	st = MT_OK;
	goto out;
fail:	/* out of memory, or no consistent solution (corrupt times) */
	r->corrupt_proc = MT_CLOCK_NOPROC;
	st = mt_err_set(l->c->err, MT_ERR_CORRUPT,
		      "clock linear stage: the least-squares solve failed: no "
		      "consistent offsets and drifts, corrupt timestamps?");
out:
	free(ea);
	free(eb);
	free(prio);
	free(xa);
	free(va);
	free(xb);
	free(vb);
	free(anchor);
	free(anchor_b);
	free(pinned);
	free(pinned_b);
	free(has_msg);
	free(band);
	free(rt);
	free(scratch);
	free(held_var);
	free(has_any);
	return st;
}

/* Maps every event; a map that throws a time beyond MT_CLOCK_TIME_LIMIT
 * was fitted on corrupt times (the CLC's sums would overflow on it). */
static enum mt_status apply(const struct clk *c)
{
	for (uint32_t p = 0; p < c->np; p++) {
		const struct mt_clock_domain *d =
			&c->res->domains[c->res->proc_domain[p]];
		const int64_t *in = c->procs[p].t;
		int64_t *o = c->out[p];

		for (uint64_t j = 0; j < c->procs[p].nevents; j++) {
			o[j] = clk_linear(d, c->res->t0, in[j]);
			if (o[j] >= MT_CLOCK_TIME_LIMIT || o[j] <= -MT_CLOCK_TIME_LIMIT) {
				c->res->corrupt_proc = p;
				return mt_err_set(c->err, MT_ERR_CORRUPT,
						  "process %u: the linear clock map (offset "
						  "%.0f ns, drift %.3g ppm) moves event %llu to "
						  "%lld ns, beyond +-2^61: corrupt timestamps",
						  p, d->offset_ns, d->drift_ppm,
						  (unsigned long long)j, (long long)o[j]);
			}
		}
	}
	return MT_OK;
}

enum mt_status mt_clock_linear_map(struct clk *c)
{
	struct lin l = { .c = c };
	enum mt_status st = index_pairs(&l);

	if (st == MT_OK)
		st = make_windows(&l);
	for (int pass = 0; st == MT_OK && pass < REFINE_PASSES; pass++) {
		envelope(&l);
		for (uint32_t k = 0; k < l.map.n; k++)
			if (l.pairs[k].nw) {
				hulls(&l.pairs[k]);
				fit(&l.pairs[k], c->res->t0);
			}
	}
	if (st == MT_OK)
		st = combine(&l);
	else
		mt_err_set(c->err, st, "clock linear stage: out of memory");
	lin_free(&l);
	if (st == MT_OK)
		st = apply(c);
	return st;
}
