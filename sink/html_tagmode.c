/*
 * html_tagmode.c - the tag-mode analysis of `msgtrace tags` inside the HTML
 * report's tag section (html_tags.c calls it): how full each field was,
 * which other layout would truncate or alias what, the internal-tag
 * reservations left, and the truncated receives with their sends.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "escape.h"
#include "html_tags.h"

#define NBC_ROWS 8		/* communicators in the hazard table */
#define TRUNC_ROWS 20		/* truncated receives listed */

static void usage_table(FILE *f, const struct tags *tg, const struct mt_run *run)
{
	fputs("<h3>Field usage</h3><table class=\"num\"><thead><tr><th>field</th>"
	      "<th>messages</th><th>distinct</th><th>smallest</th><th>largest</th>"
	      "<th>field limit</th><th>bits free</th><th>field free</th></tr></thead>"
	      "<tbody>", f);
	for (int k = 0; k < MT_TAG_U_COUNT; k++) {
		struct mt_tag_ustat st;
		struct mt_tag_room r;

		mt_tag_usage_stat(tg->u, k, &st);
		mt_tag_usage_room(tg->u, &run->layout, k, &r);
		fprintf(f, "<tr><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%"
			PRIu64 "</td>", mt_tag_ufield_name(k), st.msgs, st.distinct);
		if (st.msgs)
			fprintf(f, "<td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
				"</td>", st.min, st.max);
		else
			fputs("<td class=\"n\">-</td><td class=\"n\">-</td>", f);
		if (r.in_tag)
			fprintf(f, "<td class=\"n\">%" PRId64 "</td><td class=\"n\">%d of %u</td>"
				"<td class=\"n%s\">%.1f%%</td></tr>", r.limit,
				r.bits_used > r.bits ? 0 : r.bits - r.bits_used, r.bits,
				r.pct_used >= 90 ? " warn" : "", 100.0 - r.pct_used);
		else
			fputs("<td colspan=\"3\">not carried by this layout</td></tr>", f);
	}
	fputs("</tbody></table>\n", f);
}

static void whatif_table(FILE *f, const struct tags *tg)
{
	fputs("<h3>What-if: this run's values in each layout</h3><table><thead><tr>"
	      "<th>layout</th><th>mem_tag_format</th><th>verdict</th></tr></thead>"
	      "<tbody>", f);
	for (size_t i = 0; i < tg->n_cases; i++) {
		const struct tags_case *c = &tg->cases[i];

		fprintf(f, "<tr><td>%s%s</td><td>0x%016" PRIx64 " (%s)</td><td>", c->l.name,
			c->in_force ? " <b>(in force)</b>" : "", c->mtf, c->origin);
		if (c->w.layout_status != MT_OK)
			fputs("<span class=\"warn\">Open MPI would not start (cid under 8 "
			      "bits)</span> ", f);
		if (c->w.fits)
			fputs("<span class=\"none\">everything fits</span>", f);
		for (int k = 0; k < MT_TAG_U_COUNT; k++) {
			const struct mt_tag_whatif_field *w = &c->w.f[k];
			struct mt_tag_room r;

			if (!w->misfit)
				continue;
			mt_tag_usage_room(tg->u, &c->l, k, &r);
			fprintf(f, "<div class=\"warn\">%s: %" PRIu64 " of %" PRIu64 " values "
				"beyond %" PRId64 " (%s); cut to the field, %" PRIu64 " would "
				"alias another value</div><div class=\"ex\">",
				mt_tag_ufield_name(k), w->misfit, w->values, r.limit,
				mt_sink_tags_consequence(k), w->alias);
			for (unsigned e = 0; e < w->n_ex; e++)
				fprintf(f, "%s%" PRId64 " &rarr; %" PRId64 "%s", e ? ", " : "",
					w->ex[e].value, w->ex[e].becomes,
					w->ex[e].alias ? " (alias)" : "");
			fputs("</div>", f);
		}
		fputs("</td></tr>", f);
	}
	fputs("</tbody></table>\n", f);
}

static void hazard_table(FILE *f, const struct tags *tg, const struct mt_run *run)
{
	const struct tags_case *t2 = mt_sink_tags_tag2(tg);
	struct mt_tag_nbc *now = NULL, *in2 = NULL;
	size_t n = mt_sink_tags_nbc(tg, &run->layout, &now);
	size_t n2 = t2 ? mt_sink_tags_nbc(tg, &t2->l, &in2) : 0;

	fputs("<h3>Internal tags (nonblocking collectives reserve tags from -27 down; "
	      "ofi_tag_2 wraps them into user tags below -524288)</h3>", f);
	if (!n)
		fputs("<p>No internal traffic.</p>\n", f);
	else
		fputs("<table class=\"num\"><thead><tr><th>cid</th><th>most negative</th>"
		      "<th>reservations left now</th><th>in ofi_tag_2</th></tr></thead>"
		      "<tbody>", f);
	for (size_t i = 0; i < n && i < NBC_ROWS; i++) {
		uint64_t left2 = 0;

		for (size_t j = 0; j < n2; j++)
			if (in2[j].cid == now[i].cid)
				left2 = in2[j].left;
		fprintf(f, "<tr><td>%u</td><td class=\"n\">%d</td><td class=\"n\">%" PRIu64
			"%s</td><td class=\"n\">%" PRIu64 "</td></tr>", now[i].cid,
			now[i].min_tag, now[i].left, now[i].wrapped ?
			" <span class=\"warn\">wrapped</span>" : "", left2);
	}
	if (n)
		fputs("</tbody></table>\n", f);
	free(now);
	free(in2);
}

static void trunc_table(FILE *f, const struct tags *tg, const struct mt_run *run)
{
	fprintf(f, "<h3>Truncation errors (%zu)</h3>", tg->n_trunc);
	if (!tg->n_trunc) {
		fputs("<p class=\"none\">None.</p>\n", f);
		return;
	}
	fputs("<table><thead><tr><th>receive (rank, cid, source, tag, buffer)</th>"
	      "<th>send (rank, tag, bytes, posted)</th><th>likely cause</th></tr>"
	      "</thead><tbody>", f);
	for (size_t i = 0; i < tg->n_trunc_kept && i < TRUNC_ROWS; i++) {
		const struct mt_match_msg *m = &tg->trunc[i];
		char s[MT_SINK_RANK_LEN], d[MT_SINK_RANK_LEN];

		fprintf(f, "<tr><td>rank %s, cid %" PRId64 ", source ", mt_sink_rank(run->trace, m->recv_rank, d, sizeof(d)),
			m->recv_f.cid);
		if (m->recv_f.any_src)
			fputs("ANY", f);
		else
			fprintf(f, "%d", m->recv_f.comm_src >= 0 ? m->recv_f.comm_src :
				m->send_rank);
		if (m->recv_f.has_tag)
			fprintf(f, ", tag %d", m->recv_f.tag);
		else
			fputs(", tag ANY", f);
		fprintf(f, ", %" PRIu64 " B", m->recv_buf);
		mt_sink_site_html(f, tg->sym, "at", m->recv_site);
		fputs("</td><td>", f);
		if (m->t_send_post != MT_MATCH_NOTIME)
		{
			fprintf(f, "rank %s, tag %d, %" PRIu64 " B, %.6f s", mt_sink_rank(run->trace, m->send_rank, s, sizeof(s)),
				m->f.tag, m->bytes, mt_sink_tags_sec(run, m->t_send_post));
			mt_sink_site_html(f, tg->sym, "at", m->send_site);
		}
		else
			fputs("not in the trace", f);
		fputs("</td><td>", f);
		mt_sink_esc_html(f, mt_match_trunc_cause_str(mt_match_trunc_cause(m)));
		fputs("</td></tr>", f);
	}
	fputs("</tbody></table>\n", f);
}

void mt_sink_html_tagmode(FILE *f, const struct mt_run *run, struct tags *tg)
{
	mt_sink_tags_finish(tg, run);
	usage_table(f, tg, run);
	whatif_table(f, tg);
	hazard_table(f, tg, run);
	trunc_table(f, tg, run);
}
