/*
 * sink_tags.c - `msgtrace tags`: the tag layout in force and its evidence,
 * how full each field was, what the other layouts would have truncated or
 * aliased, the internal-tag hazard of ofi_tag_2, and every truncated
 * receive with the send that caused it. Text, under 80 columns where the
 * numbers allow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tags.h"
#include "mt_sink.h"

#define NBC_LIST 10		/* communicators listed in the hazard table */

/* 4500 -> "4,500" */
static const char *num(int64_t v, char *buf, size_t len)
{
	char raw[32];
	size_t n, o = 0, lead;
	const char *d = raw;

	snprintf(raw, sizeof(raw), "%" PRId64, v);
	if (*d == '-' && o + 1 < len)
		buf[o++] = *d++;
	n = strlen(d);
	lead = n % 3 ? n % 3 : 3;
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (i - lead) % 3 == 0 && i >= lead)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
	return buf;
}

static void endpoints(FILE *o, const struct mt_run *run)
{
	const struct mt_trace *t = run->trace;

	fprintf(o, "LAYOUT IN FORCE (per endpoint)\n");
	for (size_t i = 0; i < t->neps; i++) {
		const struct mt_trace_proc *p = &t->procs[t->eps[i].proc];
		const struct mt_tag_layout *l = &run->ep_layout[i];
		const struct mt_tag_detect_result *d = &run->ep_detect[i];
		char prov[MT_NAME_TEXT_LEN(t->eps[i].rec->prov_name)], rk[MT_SINK_RANK_LEN];
		size_t same = i;

		fprintf(o, "  rank %s ep %zu [%s]: %s, confidence %s, mem_tag_format "
			"0x%016" PRIx64 "\n", mt_sink_rank(t, p->key, rk, sizeof(rk)), i,
			mt_sink_name_text(prov, sizeof(prov), t->eps[i].rec->prov_name,
				     sizeof(t->eps[i].rec->prov_name)),
			l->name, mt_tag_confidence_name(d->confidence),
			t->eps[i].rec->mem_tag_format);
		/* Ranks of one job tell the same story: say it once. */
		for (size_t j = 0; j < i && same == i; j++)
			if (run->ep_layout[j].id == l->id &&
			    run->ep_layout[j].cid_max == l->cid_max &&
			    run->ep_detect[j].n_items == d->n_items)
				same = j;
		if (same != i) {
			fprintf(o, "    evidence of the same kind as ep %zu\n", same);
			continue;
		}
		/* Other MPI libraries' layouts ruled out: counted, not listed
		 * (`msgtrace decode` lists them). */
		unsigned other = 0;
		for (unsigned k = 0; k < d->n_items; k++) {
			char text[MT_SINK_EVIDENCE_LEN];

			if (mt_sink_evidence_ruled_out(&d->item[k]) &&
			    !strncmp(mt_tag_layout_name(d->item[k].layout), "mpich-", 6))
				other++;
			else
				fprintf(o, "    %s\n", mt_sink_evidence_text(&d->item[k],
						text, sizeof(text)));
		}
		if (other)
			fprintf(o, "    (and %u MPICH layouts ruled out: msgtrace decode "
				"lists why)\n", other);
		if (l->id == MT_TAG_LAYOUT_RAW)
			continue;
		fprintf(o, "    widths: cid %u of %u bits (max %" PRIu64 "), source %s, "
			"tag %u bits (MPI_TAG_UB %" PRIu64 ")\n", l->cid_usable_bits,
			l->cid_bits, l->cid_max,
			l->src_in == MT_SRC_TAG ? "18 bits in the tag" :
			l->src_in == MT_SRC_DATA ? "in CQ data" : "not carried",
			l->tag_bits, l->tag_ub);
	}
}

static void fields(FILE *o, const struct tags *tg, const struct mt_run *run)
{
	char a[32], b[32], c[32], d[32], e[32], g[32];

	fprintf(o, "\nFIELD USAGE in %s (%s messages; free: bits the largest value\n"
		"leaves unused of the field's, and the share of the field beyond it)\n",
		run->layout.name, num((int64_t)tg->counted, a, sizeof(a)));
	fprintf(o, "  %-18s %9s %8s %14s %14s %14s %5s %7s %14s\n", "field", "messages",
		"distinct", "smallest", "largest", "field limit", "bits", "free",
		"values free");
	for (int f = 0; f < MT_TAG_U_COUNT; f++) {
		struct mt_tag_ustat st;
		struct mt_tag_room r;
		char bits[16] = "-", pct[16] = "-";

		mt_tag_usage_stat(tg->u, f, &st);
		mt_tag_usage_room(tg->u, &run->layout, f, &r);
		if (r.in_tag) {
			snprintf(bits, sizeof(bits), "%d/%u", r.bits_used > r.bits ? 0 :
				 r.bits - r.bits_used, r.bits);
			snprintf(pct, sizeof(pct), "%.1f%%", 100.0 - r.pct_used);
		}
		fprintf(o, "  %-18s %9s %8s %14s %14s %14s %5s %7s %14s\n",
			mt_tag_ufield_name(f), num((int64_t)st.msgs, a, sizeof(a)),
			num((int64_t)st.distinct, g, sizeof(g)), st.msgs ? num(st.min, b, sizeof(b)) : "-",
			st.msgs ? num(st.max, c, sizeof(c)) : "-",
			r.in_tag ? num(r.limit, d, sizeof(d)) : "not carried", bits, pct,
			r.in_tag ? num((int64_t)r.left, e, sizeof(e)) : "-");
	}
}

static void misfit_line(FILE *o, const struct tags *tg, const struct tags_case *c,
			enum mt_tag_ufield f)
{
	const struct mt_tag_whatif_field *w = &c->w.f[f];
	struct mt_tag_ustat st;
	struct mt_tag_room r;
	char a[32], b[32], x[32], y[32];

	mt_tag_usage_stat(tg->u, f, &st);
	mt_tag_usage_room(tg->u, &c->l, f, &r);
	fprintf(o, "      %s %s used; %s with mem_tag_format 0x%016" PRIx64 " allows "
		"%s: %" PRIu64 " of %" PRIu64 " values do not fit\n        (%s);\n"
		"        cut to the field, %" PRIu64 " would alias another value",
		mt_tag_ufield_name(f), num(f == MT_TAG_U_ITAG ? st.min : st.max, a,
		sizeof(a)), c->l.name, c->mtf, num(r.limit, b, sizeof(b)), w->misfit,
		w->values, mt_sink_tags_consequence(f), w->alias);
	if (w->flips)
		fprintf(o, ", %" PRIu64 " change sign (user <-> internal)", w->flips);
	fprintf(o, ":\n        ");
	for (unsigned k = 0; k < w->n_ex; k++)
		fprintf(o, "%s%s -> %s%s", k ? ", " : "", num(w->ex[k].value, x, sizeof(x)),
			num(w->ex[k].becomes, y, sizeof(y)),
			w->ex[k].alias ? " (alias)" : w->ex[k].flips ? " (sign)" : "");
	fprintf(o, "\n");
}

static void whatif(FILE *o, const struct tags *tg)
{
	fprintf(o, "\nWHAT-IF (this run's values in each layout)\n");
	for (size_t i = 0; i < tg->n_cases; i++) {
		const struct tags_case *c = &tg->cases[i];

		fprintf(o, "  %-12s mem_tag_format 0x%016" PRIx64 " (%s)%s: ", c->l.name,
			c->mtf, c->origin, c->in_force ? " [in force]" : "");
		if (c->w.layout_status == MT_ERR_RANGE)
			fprintf(o, "Open MPI would not start (cid under 8 bits), and ");
		fprintf(o, "%s\n", c->w.fits ? "everything fits" :
			c->w.layout_status == MT_OK ? "does NOT fit" : "nothing fits");
		for (int f = 0; f < MT_TAG_U_COUNT; f++)
			if (c->w.f[f].misfit)
				misfit_line(o, tg, c, f);
	}
}

static void hazard(FILE *o, const struct tags *tg, const struct mt_run *run)
{
	const struct tags_case *t2 = mt_sink_tags_tag2(tg);
	struct mt_tag_nbc *now = NULL, *in2 = NULL;
	size_t n = mt_sink_tags_nbc(tg, &run->layout, &now);
	size_t n2 = t2 ? mt_sink_tags_nbc(tg, &t2->l, &in2) : 0;
	char a[32], b[32], c[32];

	fprintf(o, "\nINTERNAL TAGS (nonblocking collectives reserve tags from -27 "
		"down;\nofi_tag_2's 20-bit field wraps them into user tags below "
		"-524,288)\n");
	if (!n)
		fprintf(o, "  no internal traffic\n");
	else
		fprintf(o, "  %-8s %14s %24s %20s\n", "cid", "most negative",
			"reservations left now", "in ofi_tag_2");
	for (size_t i = 0; i < n && i < NBC_LIST; i++) {
		const struct mt_tag_nbc *e = &now[i];
		const struct mt_tag_nbc *e2 = NULL;

		for (size_t j = 0; j < n2 && !e2; j++)
			e2 = in2[j].cid == e->cid ? &in2[j] : NULL;
		fprintf(o, "  %-8u %14s %24s %20s\n", e->cid, num(e->min_tag, a, sizeof(a)),
			num((int64_t)e->left, b, sizeof(b)),
			e2 ? num((int64_t)e2->left, c, sizeof(c)) : "-");
		if (e->wrapped)
			fprintf(o, "    WRAPPED: internal tags reached the field's end; %"
				PRIu64 " user-tag messages on cid %u may be wrapped internal "
				"ones, %" PRIu64 " of them taken by MPI_ANY_TAG receives\n",
				e->user_msgs, e->cid, e->wild_user_msgs);
	}
	if (n > NBC_LIST)
		fprintf(o, "  ... %zu communicators in all (fewest left first)\n", n);
	if (n && !now[0].narrow)
		fprintf(o, "  (%s: Open MPI recycles its tags at -1,073,741,822 "
			"before the field ends: no wrap)\n", run->layout.name);
	free(now);
	free(in2);
}

static void source_str(const struct mt_match_msg *m, char *buf, size_t len)
{
	if (m->recv_f.any_src)
		snprintf(buf, len, "ANY");
	else if (m->recv_f.comm_src >= 0)
		snprintf(buf, len, "%d", m->recv_f.comm_src);
	else
		snprintf(buf, len, "rank %d by address", m->send_rank);
}

/* "<prefix>file.c:12 (main) via MPI_Recv" when the site has one. */
static void site_line(FILE *o, struct mt_sym *sym, const char *prefix,
		      uint32_t site)
{
	const struct mt_sym_loc *l = mt_sym_site(sym, site);

	if (l)
		fprintf(o, "%s%s\n", prefix, l->text);
}

static void truncations(FILE *o, const struct tags *tg, const struct mt_run *run)
{
	fprintf(o, "\nTRUNCATION ERRORS (%zu)\n", tg->n_trunc);
	for (size_t i = 0; i < tg->n_trunc_kept; i++) {
		const struct mt_match_msg *m = &tg->trunc[i];
		char src[40], tag[16], s[MT_SINK_RANK_LEN], d[MT_SINK_RANK_LEN];

		source_str(m, src, sizeof(src));
		if (m->recv_f.has_tag)
			snprintf(tag, sizeof(tag), "%d", m->recv_f.tag);
		else
			snprintf(tag, sizeof(tag), "ANY");
		fprintf(o, "  receive: rank %s, cid %" PRId64 ", source %s, tag %s, "
			"buffer %" PRIu64 " B, posted %.6f s\n",
			mt_sink_rank(run->trace, m->recv_rank, d, sizeof(d)),
			m->recv_f.cid, src, tag, m->recv_buf,
			mt_sink_tags_sec(run, m->t_recv_post));
		if (m->t_send_post != MT_MATCH_NOTIME)
			fprintf(o, "  send:    rank %s (rank %d in cid %" PRId64 "), tag %d, "
				"%" PRIu64 " B, posted %.6f s\n", mt_sink_rank(run->trace, m->send_rank, s, sizeof(s)), m->f.comm_src,
				m->f.cid, m->f.tag, m->bytes, mt_sink_tags_sec(run, m->t_send_post));
		else
			fprintf(o, "  send:    not in the trace (%" PRIu64 " B arrived)\n",
				m->bytes);
		enum mt_match_trunc_cause cause = mt_match_trunc_cause(m);
		fprintf(o, "  cause:   %s", mt_match_trunc_cause_str(cause));
		if (cause != MT_MATCH_TRUNC_BUFFER && m->t_send_post != MT_MATCH_NOTIME)
			fprintf(o, " (the send's source %d, tag %d, cid %" PRId64 ")",
				m->f.comm_src, m->f.tag, m->f.cid);
		fprintf(o, "\n");
		site_line(o, tg->sym, "  recv at: ", m->recv_site);
		site_line(o, tg->sym, "  send at: ", m->send_site);
	}
	if (tg->n_trunc > tg->n_trunc_kept)
		fprintf(o, "  ... %zu more\n", tg->n_trunc - tg->n_trunc_kept);
}

static enum mt_status tags_text_finalize(void *state, const struct mt_run *run,
					 const struct mt_match_summary *sum,
					 struct mt_err *err)
{
	struct tags *t = state;
	FILE *o = t->out;

	(void)sum;
	mt_sink_tags_finish(t, run);
	if (run->trace->nforks)	/* forks are processes, not ranks */
		fprintf(o, "msgtrace tags: %zu processes (%zu forked)", run->nranks,
			run->trace->nforks);
	else
		fprintf(o, "msgtrace tags: %zu ranks", run->nranks);
	fprintf(o, ", %zu endpoints, provider %s\n\n", run->trace->neps,
		run->provider);
	endpoints(o, run);
	if (run->trace->neps) {
		fields(o, t, run);
		whatif(o, t);
		hazard(o, t, run);
	}
	truncations(o, t, run);
	mt_sink_tags_free(t);
	return mt_sink_written(o, 0, err);
}

const struct mt_sink_ops mt_sink_tags = {
	.key = "tags",
	.name = "tags",
	.init = mt_sink_tags_start,
	.consume = mt_sink_tags_consume,
	.finalize = tags_text_finalize,
};
