/*
 * clock_band.h - how far from the truth a linear clock correction can be
 * at a given time, from the messages of one pair of clocks alone: the
 * accuracy target clock_validate asserts on a real run's event graph.
 *
 * Take two clocks, r (the reference) and d, and the true one-way latency
 * of every message between them. A linear estimate e(t) of clock d minus
 * clock r that errs by eps(t) = e(t) - truth(t) makes a message r -> d look
 * eps shorter and a message d -> r look eps longer. The estimates that make
 * no message shorter than L form a convex set; at time t its errors fill an
 * interval [lo, hi] containing 0 (the truth) whenever L is at most the
 * pair's smallest true latency. The line leaving the widest gap under both
 * delay envelopes (fit() in clock_linear.c) makes no message shorter than
 * that smallest latency, so it lies in the set with L set to it:
 * max(hi, -lo) bounds its error at t. Where the messages near t are slow
 * both ways (a loaded stretch) or absent (before the first, after the
 * last), the interval is wide and no line can promise better: any line in
 * the set explains the delays as well as the truth does, and half the
 * interval is the most the best-placed line could promise.
 *
 * The linear stage's final line is not exactly fit()'s: its drift prior
 * (combine()) can move it out of the set by a little (see clock_validate).
 */
#ifndef MT_CLOCK_BAND_H
#define MT_CLOCK_BAND_H

#include <stdint.h>

/* One message between the two clocks: true send time and true latency. */
struct band_msg {
	int64_t t;		/* ns */
	int64_t lat;		/* ns, receive - send on the true clock */
	int into_d;		/* 1: r -> d, 0: d -> r */
};

struct band {
	int bounded;		/* 0: the drift is not bounded both ways */
	double xc;		/* times are taken relative to this, ns */
	uint32_t nhi, nlo;
	double (*hi)[2];	/* vertices (drift, error at xc) of the */
	double (*lo)[2];	/* set's upper and lower edge */
};

/* Drifts (of d against r) beyond +-BAND_REACH are not considered: no
 * oscillator is that far off (the linear stage searches the same range). */
#define BAND_REACH 1e-3

/* Builds the set of linear estimates that make no message of m[0..n)
 * shorter than L. 0 on success (b->bounded 0 when the messages leave the
 * drift open, e.g. traffic one way only), -1 out of memory or when even the
 * truth is outside the set (L above a message's latency). */
int band_build(const struct band_msg *m, uint64_t n, double L, struct band *b);
/* The errors [*lo, *hi] the set allows at time t (ns, true clock);
 * -INFINITY, INFINITY when not bounded. */
void band_at(const struct band *b, int64_t t, double *lo, double *hi);
void band_free(struct band *b);

#endif /* MT_CLOCK_BAND_H */
