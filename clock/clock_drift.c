/*
 * clock_drift.c - does a pair's traffic support a drift other than the one
 * held without it (none, or the CLOCK_REALTIME calibrations')?
 *
 * Between two domains, the lines delta(x) = a + b x (clock hi minus clock
 * lo) consistent with the messages are those under both lower envelopes of
 * one-way delays: a + b x <= y0 and -(a + b x) <= y1 at every sampled point.
 * For a drift b, the widest such band leaves G(b) = min(y0 - b x) +
 * min(y1 + b x): twice the latency a symmetric line of drift b allows. G is
 * concave; the fit takes the drift of its maximum.
 *
 * The drift b0 is ruled out when
 *  - G(b0) < 0: no offset of drift b0 leaves every delay non-negative
 *    (the feasible region of the convex-hull method excludes b0); or
 *  - the band the best drift gains over b0, max G - G(b0), is larger than
 *    chance gives. Under drift b0 with a latency law that does not change
 *    along the run, the envelope samples' residuals about drift b0 are
 *    exchangeable in time: a permutation test shuffles them among their
 *    times and counts how often the shuffled envelopes gain as much. Few
 *    messages (window minima far apart) gain much by chance and keep b0;
 *    a long run's real drift, even one a line of drift b0 could still pass
 *    between the envelopes (a run whose later part has only slow messages),
 *    gains far more than any shuffle.
 * The shuffles come from a fixed seed: the same trace, the same answer.
 */
#include <math.h>

#include "clock_drift.h"

#define SHUFFLES 199		/* none may gain as much: p <= 1 / 200 */
#define SEARCH_STEPS 48		/* golden-section steps, 0.618^48 of the range */

static double env_min(const struct clk_env *e, double b)
{
	double u = INFINITY;

	for (uint32_t i = 0; i < e->n; i++) {
		double v = e->y[i] + b * e->x[i];

		u = v < u ? v : u;
	}
	return u;
}

/* G(b) in the frame where e[0].y and e[1].y are residuals about b0. */
static double band(const struct clk_env e[2], double b)
{
	return env_min(&e[0], -b) + env_min(&e[1], b);
}

/* max G over [-reach, reach], by golden-section search (G is concave). */
static double best_band(const struct clk_env e[2], double reach)
{
	const double phi = 0.6180339887498949;
	double lo = -reach, hi = reach;
	double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
	double g1 = band(e, x1), g2 = band(e, x2);

	for (int it = 0; it < SEARCH_STEPS; it++) {
		if (g1 < g2) {
			lo = x1;
			x1 = x2;
			g1 = g2;
			x2 = lo + phi * (hi - lo);
			g2 = band(e, x2);
		} else {
			hi = x2;
			x2 = x1;
			g2 = g1;
			x1 = hi - phi * (hi - lo);
			g1 = band(e, x1);
		}
	}
	double g = band(e, (lo + hi) / 2);

	return fmax(g, band(e, 0));
}

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Fisher-Yates on the residuals, the times staying in place. */
static void shuffle(struct clk_env *e, uint64_t *s)
{
	for (uint32_t i = e->n; i > 1; i--) {
		uint32_t j = (uint32_t)(next(s) % i);
		double t = e->y[i - 1];

		e->y[i - 1] = e->y[j];
		e->y[j] = t;
	}
}

int mt_clock_drift_supported(struct clk_env e[2], double b0, double reach)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	if (e[0].n < 2 && e[1].n < 2)
		return 0;	/* one point each way: any drift fits */
	for (uint32_t i = 0; i < e[0].n; i++)
		e[0].y[i] -= b0 * e[0].x[i];
	for (uint32_t i = 0; i < e[1].n; i++)
		e[1].y[i] += b0 * e[1].x[i];
	double at0 = band(e, 0);

	if (at0 < 0)
		return 1;
	/* Shuffling leaves each direction's smallest residual, so G(b0). */
	double gain = best_band(e, reach) - at0;

	if (!(gain > 0))
		return 0;
	for (int k = 0; k < SHUFFLES; k++) {
		shuffle(&e[0], &s);
		shuffle(&e[1], &s);
		if (best_band(e, reach) - at0 >= gain)
			return 0;
	}
	return 1;
}
