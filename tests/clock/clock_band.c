/*
 * clock_band.c - the errors a linear clock correction consistent with one
 * pair's messages can have at each time (see clock_band.h).
 *
 * An estimate is a line eps(x) = a + s x (x = t - xc). A message r -> d of
 * latency lat at x asks eps(x) <= lat - L, a message d -> r asks
 * eps(x) >= L - lat. For a drift s the offsets allowed are
 *   max_i (l_i - s x_i) <= a <= min_j (u_j - s x_j),
 * a convex lower and a concave upper edge, piecewise linear, bending at
 * the slopes of the edges of the points' convex hulls (lower hull of the
 * upper bounds u, upper hull of the lower bounds l). The set's drifts form
 * the interval where the upper edge is above the lower; the largest error at
 * x, max over the set of a + s x, is reached at a vertex of the upper edge,
 * the smallest at one of the lower: a handful of vertices answer every
 * event's query.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock_band.h"

struct pt {
	double x, y;
};

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;

	return p->x < q->x ? -1 : p->x > q->x ? 1 : p->y < q->y ? -1 : p->y > q->y;
}

/* Is b on the wrong side of the line o -> a for a lower (sign 1) or upper
 * (sign -1) hull, i.e. does a have to go? */
static int drop(const struct pt *o, const struct pt *a, const struct pt *b,
		int sign)
{
	double cross = (a->x - o->x) * (b->y - o->y) - (a->y - o->y) * (b->x - o->x);

	return sign * cross <= 0;
}

/* Sorts p, keeps the lowest (sign 1) or highest (sign -1) point of each x,
 * and leaves the lower (upper) convex hull in p[0..return). */
static uint64_t hull(struct pt *p, uint64_t n, int sign)
{
	uint64_t k = 0, h = 0;

	qsort(p, n, sizeof(*p), cmp_pt);
	for (uint64_t i = 0; i < n; i++) {
		if (k && p[k - 1].x == p[i].x) {
			if (sign < 0)
				p[k - 1] = p[i];	/* sorted by y: the highest last */
			continue;
		}
		p[k++] = p[i];
	}
	for (uint64_t i = 0; i < k; i++) {
		while (h >= 2 && drop(&p[h - 2], &p[h - 1], &p[i], sign))
			h--;
		p[h++] = p[i];
	}
	return h;
}

/* The upper edge min_j (u_j - s x_j) (sign 1) or the lower edge
 * max_i (l_i - s x_i) (sign -1) at drift s. */
static double edge_at(const struct pt *p, uint64_t n, double s, int sign)
{
	double v = sign * INFINITY;

	for (uint64_t i = 0; i < n; i++) {
		double w = p[i].y - s * p[i].x;

		v = sign > 0 ? fmin(v, w) : fmax(v, w);
	}
	return v;
}

/* Room for offsets at drift s: upper edge minus lower edge. */
static double room(const struct pt *u, uint64_t nu, const struct pt *l,
		   uint64_t nl, double s)
{
	return edge_at(u, nu, s, 1) - edge_at(l, nl, s, -1);
}

/* The drift where room() changes sign between inside (>= 0) and outside. */
static double limit(const struct pt *u, uint64_t nu, const struct pt *l,
		    uint64_t nl, double inside, double outside)
{
	for (int it = 0; it < 80; it++) {
		double mid = (inside + outside) / 2;

		if (room(u, nu, l, nl, mid) >= 0)
			inside = mid;
		else
			outside = mid;
	}
	return inside;
}

/* The vertices of one edge over drifts [s0, s1]: both ends and every bend
 * in between (the hull's edge slopes). */
static uint32_t vertices(const struct pt *p, uint64_t n, int sign, double s0,
			 double s1, double (*v)[2])
{
	uint32_t k = 0;

	v[k][0] = s0;
	v[k++][1] = edge_at(p, n, s0, sign);
	for (uint64_t i = 0; i + 1 < n; i++) {
		double s = (p[i + 1].y - p[i].y) / (p[i + 1].x - p[i].x);

		if (s > s0 && s < s1) {
			v[k][0] = s;
			v[k++][1] = p[i].y - s * p[i].x;
		}
	}
	v[k][0] = s1;
	v[k++][1] = edge_at(p, n, s1, sign);
	return k;
}

int band_build(const struct band_msg *m, uint64_t n, double L, struct band *b)
{
	struct pt *u = malloc((n + 1) * sizeof(*u)), *l = malloc((n + 1) * sizeof(*l));
	uint64_t nu = 0, nl = 0;
	int64_t tmin = INT64_MAX, tmax = INT64_MIN;
	int rc = -1;

	memset(b, 0, sizeof(*b));
	if (!u || !l)
		goto out;
	for (uint64_t i = 0; i < n; i++) {
		tmin = m[i].t < tmin ? m[i].t : tmin;
		tmax = m[i].t > tmax ? m[i].t : tmax;
	}
	b->xc = n ? (double)tmin / 2 + (double)tmax / 2 : 0;
	for (uint64_t i = 0; i < n; i++) {
		double x = (double)m[i].t - b->xc, slack = (double)m[i].lat - L;

		if (slack < 0)
			goto out;	/* the truth itself is outside */
		if (m[i].into_d)
			u[nu++] = (struct pt){ x, slack };
		else
			l[nl++] = (struct pt){ x, -slack };
	}
	rc = 0;
	if (!nu || !nl)
		goto out;
	nu = hull(u, nu, 1);
	nl = hull(l, nl, -1);
	/* The truth (drift 0, offset 0) is in the set, so the drifts it allows
	 * are an interval around 0; open when it reaches past BAND_REACH. */
	if (room(u, nu, l, nl, -BAND_REACH) >= 0 || room(u, nu, l, nl, BAND_REACH) >= 0)
		goto out;
	double s0 = limit(u, nu, l, nl, 0, -BAND_REACH);
	double s1 = limit(u, nu, l, nl, 0, BAND_REACH);

	b->hi = malloc((nu + 2) * sizeof(*b->hi));
	b->lo = malloc((nl + 2) * sizeof(*b->lo));
	if (!b->hi || !b->lo) {
		band_free(b);
		rc = -1;
		goto out;
	}
	b->nhi = vertices(u, nu, 1, s0, s1, b->hi);
	b->nlo = vertices(l, nl, -1, s0, s1, b->lo);
	b->bounded = 1;
out:
	free(u);
	free(l);
	return rc;
}

void band_at(const struct band *b, int64_t t, double *lo, double *hi)
{
	double x = (double)t - b->xc;

	*lo = -INFINITY;
	*hi = INFINITY;
	if (!b->bounded)
		return;
	*hi = -INFINITY;
	*lo = INFINITY;
	for (uint32_t k = 0; k < b->nhi; k++)
		*hi = fmax(*hi, b->hi[k][1] + b->hi[k][0] * x);
	for (uint32_t k = 0; k < b->nlo; k++)
		*lo = fmin(*lo, b->lo[k][1] + b->lo[k][0] * x);
}

void band_free(struct band *b)
{
	free(b->hi);
	free(b->lo);
	memset(b, 0, sizeof(*b));
}
