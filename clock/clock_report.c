/*
 * clock_report.c - the figures a user needs to trust (or not) a correction:
 * clock-condition violations, how far events moved in total and by the CLC
 * alone, and how much the local intervals between a process's events changed.
 */
#include <stdlib.h>

#include "clock_int.h"

uint64_t mt_clock_violations(const struct clk *c)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < c->nm; i++) {
		const struct mt_clock_msg *m = &c->msgs[i];

		n += c->out[m->recv_proc][m->recv_ev] <= c->out[m->send_proc][m->send_ev];
	}
	return n;
}

static int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

enum mt_status mt_clock_report(struct clk *c)
{
	struct mt_clock_result *r = c->res;
	struct clk_hist *total = calloc(1, sizeof(*total));
	struct clk_hist *clc = calloc(1, sizeof(*clc));
	double changed = 0, length = 0, worst = 0;

	if (!total || !clc) {
		free(total);
		free(clc);
		return mt_err_set(c->err, MT_ERR_NOMEM, "clock report: out of memory");
	}
	for (uint32_t p = 0; p < c->np; p++) {
		const struct mt_clock_domain *d = &r->domains[r->proc_domain[p]];
		const int64_t *in = c->procs[p].t, *out = c->out[p];

		for (uint64_t j = 0; j < c->procs[p].nevents; j++) {
			mt_clock_hist_add(total, absdiff(out[j], in[j]));
			if (r->clc_done) {
				int64_t lin = r->linear_done ? clk_linear(d, r->t0, in[j]) : in[j];

				if (out[j] != lin)
					mt_clock_hist_add(clc, absdiff(out[j], lin));
			}
			if (!j)
				continue;
			int64_t before = in[j] - in[j - 1];
			int64_t change = absdiff(out[j] - out[j - 1], before);

			changed += (double)change;
			length += (double)before;
			if (before >= MT_CLOCK_LONG_INTERVAL_NS &&
			    (double)change > worst * (double)before)
				worst = (double)change / (double)before;
		}
	}
	r->corr_max_ns = total->max;
	r->corr_median_ns = mt_clock_hist_median(total);
	r->clc_moved = clc->n;
	r->clc_max_ns = clc->max;
	r->clc_median_ns = mt_clock_hist_median(clc);
	r->interval_change = length > 0 ? changed / length : 0;
	r->interval_max_change = worst;
	free(total);
	free(clc);
	return MT_OK;
}
