/*
 * test_clock_band.c - the band of linear corrections a pair's messages
 * allow (clock_band.c, clock_validate's per-event target on real graphs),
 * on message sets small enough to work out by hand.
 *
 * Times are T + x with x in ms around the middle of the messages; "slack"
 * is a message's latency above L. A line a + s x errs by eps; r -> d asks
 * eps <= slack, d -> r asks eps >= -slack.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "clock_band.h"

#define T INT64_C(1000000000000)
#define MS INT64_C(1000000)
#define L 10000

static struct band_msg both(int64_t x, int64_t slack, int into_d)
{
	return (struct band_msg){ T + x, L + slack, into_d };
}

static void band_is(const struct band *b, int64_t x, double lo, double hi)
{
	double l, h;

	band_at(b, T + x, &l, &h);
	cr_expect(fabs(l - lo) < 0.01 && fabs(h - hi) < 0.01,
		  "at x=%lld: [%.3f, %.3f], want [%.0f, %.0f]", (long long)x, l, h,
		  lo, hi);
}

/* Slack 10 both ways at x = -1 ms and +1 ms: |a -+ 1e6 s| <= 10. Between
 * them the offset bound holds (10); beyond, the drift the two ends allow
 * (s up to 1e-5, with a = 0) adds 10 per ms. */
Test(band, two_ends)
{
	struct band_msg m[] = {
		both(-MS, 10, 1), both(-MS, 10, 0), both(MS, 10, 1), both(MS, 10, 0),
	};
	struct band b;

	cr_assert_eq(band_build(m, 4, L, &b), 0);
	cr_assert(b.bounded);
	band_is(&b, 0, -10, 10);
	band_is(&b, MS / 2, -10, 10);
	band_is(&b, MS, -10, 10);
	band_is(&b, 3 * MS, -30, 30);
	band_is(&b, -3 * MS, -30, 30);
	band_free(&b);
}

/* The loaded stretch: fast messages (slack 10) at x = -1 ms and 0, only
 * slow ones (slack 1000) at +1 ms. The slow ones bind nothing near the
 * truth: at +1 ms the fast ones allow a = 10, s = 2e-5 (eps = 30), at
 * +3 ms 4a + 30 = 70, though every message there is within 1000. */
Test(band, loaded_stretch_widens)
{
	struct band_msg m[] = {
		both(-MS, 10, 1), both(-MS, 10, 0), both(0, 10, 1), both(0, 10, 0),
		both(MS, 1000, 1), both(MS, 1000, 0),
	};
	struct band b;

	cr_assert_eq(band_build(m, 6, L, &b), 0);
	cr_assert(b.bounded);
	band_is(&b, -MS / 2, -10, 10);
	band_is(&b, MS, -30, 30);
	band_is(&b, 3 * MS, -70, 70);
	band_free(&b);
}

/* Every line on a grid that satisfies every message lies inside the band
 * at every x, and the band's edges are reached by a line of the grid
 * (within a grid step): the band is the set's exact extent. */
Test(band, exact_extent)
{
	struct band_msg m[] = {
		both(-MS, 40, 1), both(-MS / 2, 5, 0), both(-MS / 4, 25, 1),
		both(0, 30, 0), both(MS / 3, 12, 1), both(MS, 300, 0),
		both(MS, 200, 1),
	};
	const int nm = sizeof(m) / sizeof(m[0]);
	const int64_t xs[] = { -2 * MS, -MS, 0, MS / 2, MS, 2 * MS };
	double lo[6], hi[6], seen_lo[6], seen_hi[6];
	struct band b;

	cr_assert_eq(band_build(m, (uint64_t)nm, L, &b), 0);
	cr_assert(b.bounded);
	for (int k = 0; k < 6; k++) {
		band_at(&b, T + xs[k], &lo[k], &hi[k]);
		seen_lo[k] = INFINITY;
		seen_hi[k] = -INFINITY;
	}
	for (int ia = -400; ia <= 400; ia++)
		for (int is = -400; is <= 400; is++) {
			double a = ia * 0.25, s = is * 2.5e-7;
			int ok = 1;

			for (int i = 0; i < nm && ok; i++) {
				double e = a + s * (double)(m[i].t - T);
				double slack = (double)(m[i].lat - L);

				ok = m[i].into_d ? e <= slack : e >= -slack;
			}
			for (int k = 0; ok && k < 6; k++) {
				double e = a + s * (double)xs[k];

				cr_assert(e >= lo[k] - 1e-6 && e <= hi[k] + 1e-6,
					  "line a=%g s=%g: %g at x=%lld outside [%g, %g]",
					  a, s, e, (long long)xs[k], lo[k], hi[k]);
				seen_lo[k] = fmin(seen_lo[k], e);
				seen_hi[k] = fmax(seen_hi[k], e);
			}
		}
	for (int k = 0; k < 6; k++) {
		/* a grid step moves a line by 0.25 + 2.5e-7 |x| */
		double step = 0.25 + 2.5e-7 * fabs((double)xs[k]);

		cr_expect(seen_hi[k] >= hi[k] - step && seen_lo[k] <= lo[k] + step,
			  "x=%lld: grid reaches [%g, %g] of [%g, %g]",
			  (long long)xs[k], seen_lo[k], seen_hi[k], lo[k], hi[k]);
	}
	band_free(&b);
}

/* Traffic one way bounds nothing: the drift stays open. */
Test(band, one_way_is_open)
{
	struct band_msg m[] = { both(-MS, 10, 1), both(MS, 10, 1) };
	struct band b;
	double lo, hi;

	cr_assert_eq(band_build(m, 2, L, &b), 0);
	cr_assert(!b.bounded);
	band_at(&b, T, &lo, &hi);
	cr_expect(isinf(lo) && lo < 0 && isinf(hi) && hi > 0);
	band_free(&b);
}

/* L above a message's latency: the truth itself would be outside. */
Test(band, truth_outside_is_refused)
{
	struct band_msg m[] = { both(-MS, 10, 1), both(MS, -1, 0) };
	struct band b;

	cr_expect_eq(band_build(m, 2, L, &b), -1);
}
