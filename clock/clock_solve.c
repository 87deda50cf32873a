/*
 * clock_solve.c - weighted least squares over a graph of relative clock
 * measurements: edges say "x[j] - x[i] = v with variance var"; pinned nodes
 * are 0. Solves the normal equations (a reduced graph Laplacian) by dense
 * Cholesky and returns each node's value and variance. Dense: meant for
 * clock domains (hosts), at most a few thousand.
 */
#include <math.h>
#include <stdlib.h>

#include "clock_solve.h"


static uint32_t find(uint32_t *up, uint32_t i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/*
 * Groups the nodes by edges, pins a node in each group that has none (when
 * prio is given), records each node's anchor and marks in col the matrix
 * column of every node left to solve for. Returns how many, UINT32_MAX when
 * out of memory.
 */
static uint32_t columns(uint32_t n, const struct clk_edge *e, uint32_t ne,
			const double *prio, unsigned char *pinned,
			uint32_t *anchor, uint32_t *col)
{
	uint32_t *up = malloc(n * sizeof(*up));
	uint32_t *pin = malloc(n * sizeof(*pin));	/* per group root */
	uint32_t m = 0;

	if (!up || !pin) {
		free(up);
		free(pin);
		return UINT32_MAX;
	}
	for (uint32_t i = 0; i < n; i++) {
		up[i] = i;
		pin[i] = UINT32_MAX;
	}
	for (uint32_t k = 0; k < ne; k++)
		up[find(up, e[k].i)] = find(up, e[k].j);
	for (uint32_t i = 0; i < n; i++)
		if (pinned[i])
			pin[find(up, i)] = i;
	for (uint32_t i = 0; prio && i < n; i++) {
		uint32_t r = find(up, i), cur = pin[r];

		if (prio[i] >= 0 && (cur == UINT32_MAX ||
				     (!pinned[cur] && prio[i] > prio[cur])))
			pin[r] = i;
	}
	for (uint32_t i = 0; i < n; i++) {
		anchor[i] = pin[find(up, i)];
		if (anchor[i] == i)
			pinned[i] = 1;
	}
	for (uint32_t i = 0; i < n; i++)
		col[i] = !pinned[i] && anchor[i] != UINT32_MAX ? m++ : UINT32_MAX;
	free(up);
	free(pin);
	return m;
}

/* In-place Cholesky of the m x m SPD matrix a (lower triangle). */
static int cholesky(double *a, uint32_t m)
{
	for (uint32_t j = 0; j < m; j++) {
		double d = a[(size_t)j * m + j];

		for (uint32_t k = 0; k < j; k++)
			d -= a[(size_t)j * m + k] * a[(size_t)j * m + k];
		if (!(d > 0))
			return -1;
		d = sqrt(d);
		a[(size_t)j * m + j] = d;
		for (uint32_t i = j + 1; i < m; i++) {
			double s = a[(size_t)i * m + j];

			for (uint32_t k = 0; k < j; k++)
				s -= a[(size_t)i * m + k] * a[(size_t)j * m + k];
			a[(size_t)i * m + j] = s / d;
		}
	}
	return 0;
}

/* Solves L L^T x = b in place. */
static void chol_solve(const double *l, uint32_t m, double *b)
{
	for (uint32_t i = 0; i < m; i++) {
		for (uint32_t k = 0; k < i; k++)
			b[i] -= l[(size_t)i * m + k] * b[k];
		b[i] /= l[(size_t)i * m + i];
	}
	for (uint32_t i = m; i-- > 0;) {
		for (uint32_t k = i + 1; k < m; k++)
			b[i] -= l[(size_t)k * m + i] * b[k];
		b[i] /= l[(size_t)i * m + i];
	}
}

/* var[c] = (A^-1)_cc = (L^-T L^-1)_cc = |column c of L^-1|^2: one forward
 * substitution per unit vector. */
static void diag_inverse(const double *l, uint32_t m, double *col, double *var)
{
	for (uint32_t c = 0; c < m; c++) {
		var[c] = 0;
		for (uint32_t i = c; i < m; i++) {
			double s = i == c;

			for (uint32_t k = c; k < i; k++)
				s -= l[(size_t)i * m + k] * col[k];
			col[i] = s / l[(size_t)i * m + i];
			var[c] += col[i] * col[i];
		}
	}
}

int mt_clock_solve(uint32_t n, const struct clk_edge *e, uint32_t ne,
	      const double *prio, unsigned char *pinned, uint32_t *anchor,
	      double *x, double *var)
{
	uint32_t *col = malloc((n + 1) * sizeof(*col));
	uint32_t m;
	double *a = NULL, *b = NULL, *tmp = NULL, *v = NULL;
	int rc = -1;

	if (!col)
		return -1;
	m = columns(n, e, ne, prio, pinned, anchor, col);
	if (m == UINT32_MAX)
		goto out;
	a = calloc((size_t)m * m + 1, sizeof(*a));
	b = calloc(m + 1, sizeof(*b));
	tmp = calloc(m + 1, sizeof(*tmp));
	v = calloc(m + 1, sizeof(*v));
	if (!a || !b || !tmp || !v)
		goto out;
	for (uint32_t k = 0; k < ne; k++) {
		uint32_t ci = col[e[k].i], cj = col[e[k].j];
		double w = 1.0 / e[k].var;

		if (ci != UINT32_MAX) {
			a[(size_t)ci * m + ci] += w;
			b[ci] -= w * e[k].v;
		}
		if (cj != UINT32_MAX) {
			a[(size_t)cj * m + cj] += w;
			b[cj] += w * e[k].v;
		}
		if (ci != UINT32_MAX && cj != UINT32_MAX) {
			a[(size_t)ci * m + cj] -= w;
			a[(size_t)cj * m + ci] -= w;
		}
	}
	if (cholesky(a, m))
		goto out;
	chol_solve(a, m, b);
	diag_inverse(a, m, tmp, v);
	for (uint32_t i = 0; i < n; i++) {
		if (pinned[i]) {
			x[i] = 0;
			var[i] = 0;
		} else if (col[i] == UINT32_MAX) {
			x[i] = var[i] = NAN;
		} else {
			x[i] = b[col[i]];
			var[i] = v[col[i]];
		}
	}
	rc = 0;
out:
	free(col);
	free(a);
	free(b);
	free(tmp);
	free(v);
	return rc;
}
