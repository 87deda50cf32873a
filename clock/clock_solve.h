/*
 * clock_solve.h - weighted least squares over relative clock measurements
 * (private to clock/, used by the linear stage).
 */
#ifndef MT_CLOCK_SOLVE_H
#define MT_CLOCK_SOLVE_H

#include <stdint.h>

/* Measurement x[j] - x[i] = v with variance var (> 0). */
struct clk_edge {
	uint32_t i, j;
	double v, var;
};

/*
 * Solves for x[0..n) minimizing sum (x[j] - x[i] - v)^2 / var with pinned
 * nodes at 0; var[] gets each value's variance. With prio, every group of
 * nodes tied by edges that has no pinned node gets one: its node of highest
 * prio (prio < 0: never). anchor[i] is the pinned node of i's group, or
 * UINT32_MAX and x[i] = var[i] = NaN when there is none. Returns 0, or -1
 * (out of memory, or a degenerate system).
 */
int mt_clock_solve(uint32_t n, const struct clk_edge *e, uint32_t ne,
	      const double *prio, unsigned char *pinned, uint32_t *anchor,
	      double *x, double *var);

#endif /* MT_CLOCK_SOLVE_H */
