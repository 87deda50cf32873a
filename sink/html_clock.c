/*
 * html_clock.c - the clock-correction section of the HTML report: the same
 * figures as the text report's CLOCKS section, as a list and two tables.
 */
#include <inttypes.h>

#include "escape.h"
#include "html_clock.h"

static void domains(FILE *f, const struct mt_trace *t, const struct mt_run_clock *c)
{
	const struct mt_clock_result *r = c->res;
	char rk[64], a[32], b[32];

	fputs("<table class=\"num\"><thead><tr><th>domain</th><th>ranks</th>"
	      "<th>host</th><th>map from</th><th>offset ns (sd)</th>"
	      "<th>drift ppm (sd)</th><th>inside: most apart, ns (allowed)</th>"
	      "</tr></thead><tbody>", f);
	for (uint32_t d = 0; d < r->ndomains; d++) {
		const struct mt_clock_domain *m = &r->domains[d];
		const char *host = c->procs[m->first_proc].host;

		if (!host)
			continue;	/* a rank nobody traced */
		fprintf(f, "<tr><td>%u%s</td><td>%s</td><td>", d,
			m->split ? " (split)" : "",
			mt_sink_clock_ranks(c, t, d, rk, sizeof(rk)));
		mt_sink_esc_html(f, host);
		fprintf(f, "</td><td>%s</td><td>%.0f (%.0f)</td><td>%+.3f (%.3f)"
			"</td><td>", mt_clock_est_name(m->est), m->offset_ns,
			m->offset_sd_ns, m->drift_ppm, m->drift_sd_ppm);
		if (m->agree_pairs)	/* rank b's clock minus rank a's */
			fprintf(f, "%s&minus;%s: %+.0f (%" PRId64 " to %" PRId64 ")",
				mt_sink_rank(t, m->agree_b, b, sizeof(b)),
				mt_sink_rank(t, m->agree_a, a, sizeof(a)),
				m->agree_ns, m->agree_lo_ns, m->agree_hi_ns);
		fputs("</td></tr>", f);
	}
	fputs("</tbody></table><table class=\"num\"><thead><tr><th>link</th>"
	      "<th>messages</th><th>minimum latency ns</th><th>from</th></tr>"
	      "</thead><tbody>", f);
	for (uint32_t i = 0; i < r->nlinks; i++)
		fprintf(f, "<tr><td>%u &rarr; %u</td><td>%" PRIu64 "</td><td>%" PRId64
			"</td><td>%s</td></tr>", r->links[i].from, r->links[i].to,
			r->links[i].msgs, r->links[i].lmin_ns,
			mt_clock_lat_src_name(r->links[i].src));
	fputs("</tbody></table>", f);
}

void mt_sink_html_clock(FILE *f, const struct mt_run *run)
{
	const struct mt_run_clock *c = &run->clock;
	const struct mt_clock_result *r = c->res;

	fprintf(f, "<section id=\"clocks\"><h2>Clocks</h2><dl class=\"kv\">"
		"<dt>--clock</dt><dd>%s</dd><dt>clock domains</dt><dd>%u declared "
		"(host and clock source)</dd>", mt_clock_mode_name(c->asked),
		c->declared);
	if (!r) {
		fprintf(f, "<dt>times</dt><dd>as recorded (%s)</dd><dt>received at or "
			"before sent</dt><dd>%" PRIu64 " of %" PRIu64 " messages</dd>"
			"</dl></section>\n", c->asked == MT_CLOCK_MODE_NONE ?
			"correction off" : "one process",
			c->violations, c->checked);
		return;
	}
	fprintf(f, "<dt>receives before sends</dt><dd>%s</dd>",
		mt_sink_clock_problem_name(mt_sink_clock_problem(c)));
	fprintf(f, "<dt>stages run</dt><dd>%s%s%s</dd><dt>received at or before "
		"sent</dt><dd>%" PRIu64 " recorded, %" PRIu64 " after linear, %" PRIu64
		" after correction, of %" PRIu64 " messages</dd><dt>times moved</dt>"
		"<dd>largest %" PRId64 " ns, median %" PRId64 " ns</dd>",
		r->linear_done ? "linear" : "", r->linear_done && r->clc_done ?
		" + " : "", r->clc_done ? "clc" : r->linear_done ? "" : "none",
		r->viol_before, r->viol_linear, r->viol_after, r->nmsgs,
		r->corr_max_ns, r->corr_median_ns);
	if (r->clc_done)
		fprintf(f, "<dt>clc</dt><dd>%" PRIu64 " events moved off the linear "
			"map, largest %" PRId64 " ns, median %" PRId64 " ns; %" PRIu64
			" cycles broken</dd>", r->clc_moved, r->clc_max_ns,
			r->clc_median_ns, r->cycles_broken);
	fprintf(f, "<dt>local intervals</dt><dd>changed %.4f%% in all, at most "
		"%.3f%% (intervals of %d &micro;s or more)</dd></dl>",
		100 * r->interval_change, 100 * r->interval_max_change,
		MT_CLOCK_LONG_INTERVAL_NS / 1000);
	domains(f, run->trace, c);
	fputs("</section>\n", f);
}
