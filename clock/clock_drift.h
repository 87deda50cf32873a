/*
 * clock_drift.h - whether a pair of domains' messages support a drift
 * other than a given one (private to clock/, used by the linear stage).
 */
#ifndef MT_CLOCK_DRIFT_H
#define MT_CLOCK_DRIFT_H

#include <stdint.h>

/* The lower envelope of one direction's delays, sampled: at x[i] (ns from
 * any fixed time) the smallest delay y[i] (ns) of a time window. */
struct clk_env {
	uint32_t n;
	double *x, *y;
};

/*
 * Whether the envelopes e[0] (delays lo -> hi, which grow with the drift)
 * and e[1] (hi -> lo) rule out the drift b0 (ns/ns) in favour of another
 * within +-reach of it. Changes e[k].y (scratch). See clock_drift.c.
 */
int mt_clock_drift_supported(struct clk_env e[2], double b0, double reach);

#endif /* MT_CLOCK_DRIFT_H */
