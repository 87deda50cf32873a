/*
 * sink_html.c - `msgtrace report --html`: the report as one self-contained
 * HTML file (inline CSS and SVG, no scripts, nothing fetched) that reads at
 * 1280 px and prints on A4: summary cards, the run, communication matrix
 * heatmaps (messages and bytes, user and internal), message sizes,
 * bandwidth against size, throughput over time, latency distribution, the
 * tag layout (html_tags.c), warnings and pending operations. Statistics
 * come from report.c, like the text report; latency (receive completion
 * minus send post of matched messages) is collected here. Every string
 * from a trace is escaped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "html_clock.h"
#include "html_tags.h"
#include "joined.h"
#include "report.h"
#include "svg.h"

#define LAT_BUCKETS 48		/* [2^b, 2^(b+1)) ns */

struct html {
	FILE *f;
	struct report r;
	void *tags;		/* struct tags: the tag-mode analysis */
	uint64_t lat[LAT_BUCKETS];
};

static const char css[] =
	":root{--fg:#1d2433;--mut:#5b6475;--line:#dde1e8;--bg:#f5f6f8;"
	"--acc:#2f6fdf;--acc2:#e8833a;--warn:#b3261e}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,"
	"'Helvetica Neue',Arial,sans-serif;color:var(--fg);background:var(--bg)}\n"
	"main{max-width:1200px;margin:0 auto;padding:24px 28px 48px}\n"
	"h1{font-size:24px;margin:0 0 2px}h2{font-size:17px;margin:0 0 10px}\n"
	"h3{font-size:13px;margin:0 0 4px;color:var(--mut);font-weight:600}"
	"section>h3{margin:18px 0 4px}\n"
	".sub{color:var(--mut);margin:0}\n"
	".cards{display:grid;grid-template-columns:repeat(7,1fr);gap:10px;"
	"margin:16px 0}\n"
	".card{background:#fff;border:1px solid var(--line);border-radius:8px;"
	"padding:9px 12px}\n"
	".card b{display:block;font-size:19px;white-space:nowrap}\n"
	".card span{color:var(--mut);font-size:11px;text-transform:uppercase;"
	"letter-spacing:.05em}\n"
	".card.bad b{color:var(--warn)}\n"
	"section{background:#fff;border:1px solid var(--line);border-radius:8px;"
	"padding:16px 20px;margin:14px 0}\n"
	".grid2{display:grid;grid-template-columns:1fr 1fr;gap:18px 28px}\n"
	".grid4{display:grid;grid-template-columns:repeat(4,1fr);gap:14px 18px}\n"
	"figure{margin:0}figcaption{font-size:12px;color:var(--mut)}\n"
	"svg{width:100%;height:auto;display:block}\n"

	"svg .ax{font-size:11px;fill:var(--mut)}svg .grid{stroke:#edf0f4}\n"
	"svg .axis{stroke:#9aa3b2}svg .s0{fill:var(--acc)}svg .s1{fill:var(--acc2)}\n"
	"svg .line{fill:none;stroke:var(--acc);stroke-width:2}svg .pt{fill:var(--acc)}\n"
	"svg .cell{stroke:#fff;stroke-width:.6}svg .dense{stroke:none}\n"
	".empty{display:flex;align-items:center;justify-content:center;"
	"aspect-ratio:1;background:#fafafa;color:var(--mut);border-radius:4px}\n"
	"table{border-collapse:collapse;width:100%;font-size:13px}\n"
	"th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);"
	"vertical-align:top}th{color:var(--mut);font-weight:600}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap;width:5em}\n"
	"dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:3px 18px;margin:0}\n"
	"dt{color:var(--mut)}dd{margin:0}\n"
	".warn{color:var(--warn)}.none{color:#1e7b34}\n"
	".ex{margin:2px 0 0;padding-left:18px;font:12px/1.5 ui-monospace,"
	"'DejaVu Sans Mono',Menlo,monospace;color:var(--mut)}\n"
	".bits{display:flex;border-radius:4px;overflow:hidden;height:44px;margin-top:6px}\n"
	".bf{display:flex;flex-direction:column;align-items:center;justify-content:center;"
	"border-right:2px solid #fff;font-size:12px;color:#fff;min-width:0;overflow:hidden}\n"
	".bf i{font-style:normal;font-size:11px;opacity:.85}\n"
	".f-cid{background:#2f6fdf}.f-src{background:#7a4fd1}.f-proto{background:#e8833a}"
	".f-tag{background:#2a9d8f}.unused{background:#c5cad3}\n"
	".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}\n"
	".bitscale{display:flex;justify-content:space-between;font-size:11px;"
	"color:var(--mut);margin:2px 0 10px}\n"
	"footer{color:var(--mut);font-size:12px;margin-top:18px}\n"
	"@media (max-width:900px){.grid2{grid-template-columns:1fr}"
	".grid4{grid-template-columns:1fr 1fr}"
	".cards{grid-template-columns:repeat(4,1fr)}}\n"
	"@page{size:A4;margin:12mm}\n"
	"@media print{*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"body{background:#fff;font-size:10pt}main{max-width:none;padding:0}"
	"section{border:none;border-top:1px solid #999;border-radius:0;padding:8pt 0;"
	"margin:0;break-inside:avoid}.card{border-color:#999}"
	".grid2,.grid4{gap:8pt 14pt}figure{break-inside:avoid}}\n";

static enum mt_status html_init(void **state, FILE *out,
				const struct mt_run *run, struct mt_err *err)
{
	struct html *h = calloc(1, sizeof(*h));
	enum mt_status s;

	*state = h;
	if (!h || mt_sink_report_init(&h->r, run)) {
		free(h);
		*state = NULL;
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	if ((s = mt_sink_tags_start(&h->tags, out, run, err))) {
		mt_sink_report_fini(&h->r);
		free(h);
		*state = NULL;
		return s;
	}
	h->f = out;
	return MT_OK;
}

static enum mt_status html_consume(void *state, const struct mt_match_msg *b,
				   size_t n, struct mt_err *err)
{
	struct html *h = state;
	enum mt_status s;

	if (mt_sink_report_add(&h->r, b, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	if ((s = mt_sink_tags_consume(h->tags, b, n, err)))
		return s;
	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &b[i];

		if (m->status == MT_MATCH_ST_MATCHED &&
		    m->t_recv_done != MT_MATCH_NOTIME &&
		    m->t_recv_done > m->t_send_post) {
			uint64_t d = m->t_recv_done - m->t_send_post;
			unsigned k = 63u - (unsigned)__builtin_clzll(d);

			h->lat[k < LAT_BUCKETS ? k : LAT_BUCKETS - 1]++;
		}
	}
	return 0;
}

/* v in MB/s (10^6 B/s), shown with the unit that keeps it short. */
static const char *fmt_mbps(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s" };
	unsigned u = 2;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	while (v > 0 && v < 1 && u > 0) {
		v *= 1000;
		u--;
	}
	snprintf(buf, len, "%.3g %s", v, unit[u]);
	return buf;
}

static const char *fmt_ns(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "\u00b5s", "ms", "s" };
	unsigned u = 0;

	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g %s", v, unit[u]);
	return buf;
}

static void card(FILE *f, const char *label, const char *value, int bad)
{
	fprintf(f, "<div class=\"card%s\"><span>%s</span><b>", bad ? " bad" : "",
		label);
	mt_sink_esc_html(f, value);
	fputs("</b></div>", f);
}

static uint64_t warn_total(const struct mt_match_summary *s)
{
	uint64_t n = 0;

	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++)
		n += s->warn[w].count;
	return n;
}

static void head(FILE *f, const struct mt_run *run, const struct report *r,
		 const struct mt_match_summary *s)
{
	char b[64], who[96];

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
		"<title>msgtrace report</title><style>\n%s</style></head>\n<body><main>\n"
		"<header><h1>msgtrace report</h1><p class=\"sub\">", css);
	fputs(mt_sink_run_who(run, who, sizeof(who)), f);
	fprintf(f, " on %zu host%s, provider ", run->nhosts, run->nhosts == 1 ? "" : "s");
	mt_sink_esc_html(f, run->provider[0] ? run->provider : "?");
	if (run->providers_differ) {
		fprintf(f, " (%zu endpoints: ", run->providers_differ);
		mt_sink_esc_html(f, run->other_provider);
		fputs(" on ", f);
		mt_sink_esc_html(f, run->other_provider_host[0] ? run->other_provider_host : "?");
		fputs(run->other_providers_more ? " and others)" : ")", f);
	}
	fputs(", fabric ", f);
	mt_sink_esc_html(f, run->fabric[0] ? run->fabric : "?");
	fputs(", tag layout ", f);
	mt_sink_esc_html(f, run->layout.name);
	fputs("</p></header>\n<div class=\"cards\">", f);
	snprintf(b, sizeof(b), "%zu", run->nranks);
	card(f, "ranks", b, 0);
	snprintf(b, sizeof(b), "%zu", run->nhosts);
	card(f, "hosts", b, 0);
	/* In doubles: a corrupt trace's span must not overflow (fuzz,
	 * tests/fuzz/regress/html-duration-overflow). */
	card(f, "duration", fmt_ns((double)run->t1_ns - (double)run->t0_ns, b, sizeof(b)), 0);
	card(f, "messages", mt_sink_svg_fmt_si((double)r->msgs, b, sizeof(b)), 0);
	card(f, "bytes", mt_sink_report_human(r->bytes, b, sizeof(b)), 0);
	snprintf(b, sizeof(b), "%" PRIu64, warn_total(s));
	card(f, "warnings", b, warn_total(s) > 0);
	snprintf(b, sizeof(b), "%zu", s->n_pending);
	card(f, "pending ops", b, s->n_pending > 0);
	fputs("</div>\n", f);
}

#define HOSTS_LISTED 8

/* "node1 (ranks 0-3), node2 (4 ranks) ...": distinct hosts in rank order. */
static void hosts(FILE *f, const struct mt_trace *t)
{
	size_t shown = 0, more = 0;

	fputs("<dt>hosts</dt><dd>", f);
	for (size_t p = 0; p < t->nprocs; p++) {
		size_t q, n = 0;

		for (q = 0; q < p && strcmp(t->procs[q].host, t->procs[p].host); q++)
			;
		if (q < p)
			continue;
		if (shown == HOSTS_LISTED) {
			more++;
			continue;
		}
		for (q = p; q < t->nprocs; q++)
			n += !strcmp(t->procs[q].host, t->procs[p].host);
		fputs(shown++ ? ", " : "", f);
		mt_sink_esc_html(f, t->procs[p].host[0] ? t->procs[p].host : "?");
		fprintf(f, " (%zu process%s)", n, n == 1 ? "" : "es");
	}
	if (more)
		fprintf(f, " and %zu more", more);
	fputs("</dd>", f);
}

static void run_section(FILE *f, const struct mt_run *run,
			const struct report *r, const struct mt_match_summary *s)
{
	fputs("<section id=\"run\"><h2>Run</h2><dl class=\"kv\">", f);
	hosts(f, run->trace);
	fprintf(f, "<dt>records</dt><dd>%" PRIu64 " read, %" PRIu64 " lost by the "
		"writers%s</dd>", run->events, run->lost, run->lost ?
		" <span class=\"warn\">(the trace is incomplete)</span>" : "");
	fprintf(f, "<dt>trace files</dt><dd%s>%zu not closed (killed or aborted)",
		run->unclean_files ? " class=\"warn\"" : "", run->unclean_files);
	if (run->live_files)
		fprintf(f, ", %zu still being written (the job runs)", run->live_files);
	fputs("</dd>", f);
	if (run->skipped)
		fprintf(f, "<dt>skipped</dt><dd>%" PRIu64 " operations on endpoints "
			"never enabled</dd>", run->skipped);
	fputs("<dt>messages by kind</dt><dd>", f);
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
		fprintf(f, "%" PRIu64 " %s%s", r->kind[k], mt_match_kind_str(k),
			k + 1 < MT_MATCH_KIND_COUNT ? ", " : "");
	fputs("</dd><dt>by outcome</dt><dd>", f);
	for (unsigned st = 0; st < MT_MATCH_ST_COUNT; st++)
		fprintf(f, "%" PRIu64 " %s%s", s->by_status[st], mt_match_status_str(st),
			st + 1 < MT_MATCH_ST_COUNT ? ", " : "");
	fprintf(f, "</dd><dt>probes</dt><dd>%" PRIu64 " (%" PRIu64 " hit, %" PRIu64
		" missed), %" PRIu64 " claimed by mprobe</dd>", s->probes,
		s->probe_hits, s->probe_misses, s->claims);
	if (r->no_rank)
		fprintf(f, "<dt>unplaced</dt><dd>%" PRIu64 " messages with a side whose "
			"rank is unknown (not in the matrix)</dd>", r->no_rank);
	fputs("</dl></section>\n", f);
}

/* Per process, what time its trace covers (s after the first record):
 * a window (ring) or a trace that ends early is marked, since nothing of
 * that process outside it is in any section below. */
static void spans_section(FILE *f, const struct mt_run *run)
{
	const struct mt_trace *t = run->trace;

	if (!t || !t->nprocs)
		return;
	fputs("<section id=\"spans\"><h2>What each trace covers</h2>"
	      "<table class=\"num\"><thead><tr><th>rank</th><th>from s</th>"
	      "<th>to s</th><th>records overwritten before</th>"
	      "<th>records lost after</th></tr></thead><tbody>", f);
	for (size_t p = 0; p < t->nprocs; p++) {
		char k[MT_SINK_RANK_LEN];
		struct mt_sink_span sp;

		mt_sink_proc_span(&t->procs[p], &sp);
		fputs("<tr><td>", f);
		mt_sink_esc_html(f, mt_sink_rank(t, t->procs[p].key, k, sizeof(k)));
		fprintf(f, "</td><td>%.6f</td><td>%.6f</td>",
			((double)mt_sink_span_start(&sp) - (double)run->t0_ns) / 1e9,
			((double)sp.last_ns - (double)run->t0_ns) / 1e9);
		if (sp.wrapped)
			fprintf(f, "<td class=\"warn\">%" PRIu64 " (a window)</td>",
				sp.overwritten);
		else
			fputs("<td>0</td>", f);
		if (sp.ended)
			fprintf(f, "<td class=\"warn\">%" PRIu64 " (ends early at "
				"%.6f s)</td>", sp.lost,
				((double)sp.end_ns - (double)run->t0_ns) / 1e9);
		else
			fprintf(f, "<td>%" PRIu64 "</td>", sp.lost);
		fputs("</tr>", f);
	}
	fputs("</tbody></table></section>\n", f);
}

static void figure(FILE *f, const char *caption)
{
	fputs("<figure><h3>", f);
	mt_sink_esc_html(f, caption);
	fputs("</h3>", f);
}

static void matrix_section(FILE *f, const struct report *r)
{
	static const char *const title[4] = {
		"Messages, user", "Messages, internal",
		"Bytes, user", "Bytes, internal",
	};
	size_t nn = r->n * r->n;
	double *v = malloc((nn ? nn : 1) * sizeof(*v));

	fputs("<section id=\"matrix\"><h2>Communication matrix</h2>", f);
	if (!r->n || !v) {
		fputs("<p>No ranks.</p></section>\n", f);
		free(v);
		return;
	}
	fputs("<div class=\"grid4\">", f);
	for (int q = 0; q < 4; q++) {
		int side = q & 1 ? REPORT_INTERNAL : REPORT_USER;
		struct svg_heat h = { .title = title[q], .n = r->n, .v = v,
				      .trace = r->trace,
				      .what = q < 2 ? " messages" : "",
				      .fmt = q < 2 ? mt_sink_svg_fmt_si : mt_sink_svg_fmt_bytes };

		double any = 0;

		for (size_t i = 0; i < nn; i++) {
			v[i] = (double)(q < 2 ? r->pair[i].msgs[side] :
					r->pair[i].bytes[side]);
			any += v[i];
		}
		figure(f, title[q]);
		if (any > 0)
			mt_sink_svg_heatmap(f, &h);
		else
			fputs("<div class=\"empty\">no such traffic</div>", f);
		fputs("</figure>", f);
	}
	fputs("</div><p class=\"sub\">Rows send, columns receive. Internal: "
	      "collectives, Ssend ACKs and untagged protocol traffic. Hover a "
	      "cell for its value.</p></section>\n", f);
	free(v);
}

/* First and one-past-last size class with traffic. */
static void class_range(const struct report *r, unsigned *lo, unsigned *hi)
{
	*lo = REPORT_CLASSES;
	*hi = 0;
	for (unsigned c = 0; c < REPORT_CLASSES; c++)
		if (r->size[c].msgs[0] || r->size[c].msgs[1]) {
			*lo = *lo < c ? *lo : c;
			*hi = c + 1;
		}
	if (*lo > *hi)
		*lo = *hi;
}

static void sizes_section(FILE *f, const struct report *r)
{
	char lab[REPORT_CLASSES][16];
	const char *cat[REPORT_CLASSES];
	double user[REPORT_CLASSES], internal[REPORT_CLASSES], bw[REPORT_CLASSES];
	unsigned lo, hi, n;

	class_range(r, &lo, &hi);
	n = hi - lo;
	for (unsigned i = 0; i < n; i++) {
		const struct report_cell *c = &r->size[lo + i];

		cat[i] = mt_sink_report_class_label(lo + i, lab[i], sizeof(lab[i]));
		user[i] = (double)c->msgs[REPORT_USER];
		internal[i] = (double)c->msgs[REPORT_INTERNAL];
		bw[i] = mt_sink_report_mbps(c->bw_bytes, c->bw_ns);
	}
	fputs("<section id=\"sizes\"><h2>Message sizes and bandwidth</h2>"
	      "<div class=\"grid2\">", f);
	figure(f, "Messages per size class");
	mt_sink_svg_chart(f, &(struct mt_sink_svg_chart){ .title = "Messages per size class",
		.xlabel = "message size (class lower bound)", .ylabel = "messages",
		.n = n, .cat = cat, .series = { user, internal },
		.series_name = { "user", "internal" }, .logy = 1,
		.fmt = mt_sink_svg_fmt_si });
	fputs("</figure>", f);
	figure(f, "Effective bandwidth against message size");
	mt_sink_svg_chart(f, &(struct mt_sink_svg_chart){ .title = "Effective bandwidth by size",
		.xlabel = "message size (class lower bound)", .ylabel = "bandwidth",
		.n = n, .cat = cat, .series = { bw }, .logy = 1, .line = 1,
		.fmt = fmt_mbps });
	fputs("<figcaption>Bytes over receive completion minus send post, matched "
	      "messages, all pairs.</figcaption></figure></div></section>\n", f);
}

static void time_section(FILE *f, const struct report *r, const struct html *h)
{
	char tl[REPORT_BINS][24], ll[LAT_BUCKETS][24];
	const char *tcat[REPORT_BINS], *lcat[LAT_BUCKETS];
	double tput[REPORT_BINS], lat[LAT_BUCKETS];
	double bin_ns = r->t1 > r->t0 ? ((double)r->t1 - (double)r->t0 + 1) / REPORT_BINS : 1;
	unsigned lo = LAT_BUCKETS, hi = 0;

	for (unsigned i = 0; i < REPORT_BINS; i++) {
		snprintf(tl[i], sizeof(tl[i]), "%.3g s", bin_ns * i / 1e9);
		tcat[i] = tl[i];
		tput[i] = mt_sink_report_mbps(r->bin_bytes[i], (uint64_t)bin_ns);
	}
	for (unsigned k = 0; k < LAT_BUCKETS; k++)
		if (h->lat[k]) {
			lo = k < lo ? k : lo;
			hi = k + 1;
		}
	if (lo > hi)
		lo = hi;
	for (unsigned k = lo; k < hi; k++) {
		lcat[k - lo] = fmt_ns(ldexp(1, (int)k), ll[k - lo], sizeof(ll[0]));
		lat[k - lo] = (double)h->lat[k];
	}
	fputs("<section id=\"time\"><h2>Throughput and latency</h2>"
	      "<div class=\"grid2\">", f);
	figure(f, "Fabric throughput over time");
	mt_sink_svg_chart(f, &(struct mt_sink_svg_chart){ .title = "Throughput over time",
		.xlabel = "time since the first record (bin start)",
		.ylabel = "received", .n = REPORT_BINS, .cat = tcat,
		.series = { tput }, .fmt = fmt_mbps });
	fputs("<figcaption>Bytes of matched messages by receive completion, per "
	      "twentieth of the run.</figcaption></figure>", f);
	figure(f, "Latency distribution");
	mt_sink_svg_chart(f, &(struct mt_sink_svg_chart){ .title = "Latency distribution",
		.xlabel = "receive completion minus send post (bucket lower bound)",
		.ylabel = "messages", .n = hi - lo, .cat = lcat, .series = { lat },
		.logy = 1, .fmt = mt_sink_svg_fmt_si });
	fputs("<figcaption>Matched messages, power-of-two buckets.</figcaption>"
	      "</figure></div></section>\n", f);
}

static void example(FILE *f, const struct report *r, const char *lead,
		    const struct mt_match_msg *m)
{
	char line[256];

	mt_sink_report_msg_line(r, m, line, sizeof(line));
	fputs("<li>", f);
	mt_sink_esc_html(f, lead);
	mt_sink_esc_html(f, line);
	mt_sink_site_html(f, r->sym, "sent at", m->send_site);
	mt_sink_site_html(f, r->sym, "received at", m->recv_site);
	fputs("</li>", f);
}

static void warn_section(FILE *f, const struct report *r,
			 const struct mt_match_summary *s)
{
	fputs("<section id=\"warnings\"><h2>Warnings</h2>", f);
	if (!warn_total(s)) {
		fputs("<p class=\"none\">None.</p></section>\n", f);
		return;
	}
	fputs("<table><thead><tr><th class=\"n\">count</th><th>warning and first examples</th>"
	      "</tr></thead><tbody>", f);
	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++) {
		const struct mt_match_warn *wn = &s->warn[w];

		if (!wn->count)
			continue;
		fprintf(f, "<tr><td class=\"n\">%" PRIu64 "</td><td>%s<ul class=\"ex\">",
			wn->count, mt_match_warning_str(w));
		for (unsigned e = 0; e < wn->n_examples; e++)
			example(f, r, "", &wn->example[e]);
		fputs("</ul></td></tr>", f);
	}
	fputs("</tbody></table></section>\n", f);
}

/* One pending operation and what may explain it. */
static void pending_op(FILE *f, const struct report *r,
		       const struct mt_match_pending *p)
{
	char line[256];

	mt_sink_report_pending_line(r, p, line, sizeof(line));
	fputs("<li>", f);
	mt_sink_esc_html(f, line);
	mt_sink_site_html(f, r->sym, "at", p->op.site);
	fputs("<ul class=\"ex\">", f);
	if (p->unacked)
		example(f, r, p->unacked_claimed ? "its Ssend was received by a "
			"claim, never acknowledged: " : "its Ssend was received, "
			"never acknowledged: ", &p->unacked_msg);
	for (unsigned k = 0; k < p->n_near; k++) {
		const struct mt_match_near *nm = &p->near[k];
		char lead[64];

		if (nm->field == MT_MATCH_F_COUNT)
			snprintf(lead, sizeof(lead), "would match: ");
		else
			snprintf(lead, sizeof(lead), "near miss, differs only in %s: ",
				 nm->addr_only ? "source address" :
				 mt_match_field_str(nm->field));
		example(f, r, lead, &nm->send);
	}
	fputs("</ul></li>", f);
}

/* The root of the hang, the other waits grouped, the pending operations
 * whose near misses explain them; every operation under a disclosure. */
static void hang_analysis(FILE *f, const struct report *r,
			  const struct mt_match_summary *s,
			  const struct mt_match_hang *h)
{
	char line[256];

	for (size_t i = 0; i < h->n_roots; i++) {
		const struct mt_match_root *rt = &h->roots[i];

		mt_sink_report_root_line(r->trace, rt, line, sizeof(line));
		size_t k = strlen(line);
		int colon = k && line[k - 1] == ':';

		line[k - (size_t)colon] = 0;	/* the colon goes after the count */
		fputs("<p class=\"bad\"><b>Cause:</b> ", f);
		mt_sink_esc_html(f, line);
		if (rt->waiters)
			fprintf(f, " (%zu other rank%s wait on %s)", rt->waiters,
				rt->waiters == 1 ? "" : "s", rt->size > 1 ? "them" : "it");
		fprintf(f, "%s</p><ul class=\"ex\">", colon ? ":" : "");
		for (size_t k = 0; k < rt->n; k++) {
			const struct mt_match_wait *w = &h->waits[h->path[rt->first + k]];

			mt_sink_report_wait_line(r->trace, s, w, line, sizeof(line));
			fputs("<li>", f);
			mt_sink_esc_html(f, line);
			mt_sink_site_html(f, r->sym, "at", s->pending[w->pending].op.site);
			fputs("</li>", f);
		}
		fputs("</ul>", f);
	}
	if (h->n_groups)
		fprintf(f, "<p>%s waits, grouped:</p><ul class=\"ex\">", h->n_roots ?
			"Other" : "All");
	for (size_t i = 0; i < h->n_groups; i++) {
		mt_sink_report_group_line(r->trace, &h->groups[i], MT_MATCH_NOTIME, line,
					  sizeof(line));
		fputs("<li>", f);
		mt_sink_esc_html(f, line);
		mt_sink_site_html(f, r->sym, "at", h->groups[i].site);
		fputs("</li>", f);
	}
	if (h->n_groups)
		fputs("</ul>", f);
	if (h->n_explain)
		fputs("<p>Why: sends that will not match as they are</p><ul>", f);
	for (size_t i = 0; i < h->n_explain; i++)
		if (!i || h->explain[i].pending != h->explain[i - 1].pending)
			pending_op(f, r, &s->pending[h->explain[i].pending]);
	if (h->n_explain)
		fputs("</ul>", f);
	fprintf(f, "<details><summary>Every pending operation (%zu)</summary><ul>",
		s->n_pending);
	for (size_t i = 0; i < s->n_pending; i++)
		pending_op(f, r, &s->pending[i]);
	fputs("</ul></details>", f);
}

static void pending_section(FILE *f, const struct report *r,
			    const struct mt_match_summary *s,
			    const struct mt_match_hang *h)
{
	fputs("<section id=\"pending\"><h2>Pending at the end of the trace</h2>", f);
	if (!s->n_pending)
		fputs("<p class=\"none\">None: every operation completed.</p>", f);
	else
		hang_analysis(f, r, s, h);
	if (s->abandoned_at_close)
		fprintf(f, "<p class=\"sub\">%" PRIu64 " receives left posted at a "
			"normal close or standing for handshakes, with no send near "
			"them, are not shown (Open MPI abandons some at finalize; Open "
			"MPI 5 keeps one posted for exCID handshakes).</p>",
			s->abandoned_at_close);
	fputs("</section>\n", f);
}

static enum mt_status html_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum,
				    struct mt_err *err)
{
	struct html *h = state;
	struct mt_match_hang *hang = NULL;
	FILE *f = h->f;
	enum mt_status rc;

	if (mt_sink_report_hang(run, sum, &hang)) {
		mt_sink_report_fini(&h->r);
		mt_sink_tags_free(h->tags);
		free(h);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	head(f, run, &h->r, sum);
	run_section(f, run, &h->r, sum);
	spans_section(f, run);
	matrix_section(f, &h->r);
	sizes_section(f, &h->r);
	time_section(f, &h->r, h);
	mt_sink_html_tags(f, run, &h->r, h->tags);
	warn_section(f, &h->r, sum);
	pending_section(f, &h->r, sum, hang);
	mt_match_hang_free(hang);
	mt_sink_html_clock(f, run);
	if (run->join)
		mt_sink_joined_html(f, run, sum);
	fputs("<footer>Written by msgtrace from a fabric-level trace. Times on the "
	      "merged trace clock.</footer>\n</main></body></html>\n", f);
	rc = mt_sink_written(f, 1, err);
	mt_sink_report_fini(&h->r);
	mt_sink_tags_free(h->tags);
	free(h);
	return rc;
}

const struct mt_sink_ops mt_sink_html = {
	.key = "html",
	.name = "HTML",
	.init = html_init,
	.consume = html_consume,
	.finalize = html_finalize,
	.joins = 1,
};
