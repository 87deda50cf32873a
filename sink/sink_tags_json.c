/*
 * sink_tags_json.c - `msgtrace tags --json`: the content of the text
 * output as one JSON object, with every misfit value listed (the text
 * shows examples). Strings from the trace are escaped (escape.h).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "escape.h"
#include "tags.h"

#define MISFITS_MAX 100000	/* values listed per field and case */

static const char *const field_key[MT_TAG_U_COUNT] = {
	"cid", "source", "tag_user", "tag_internal"
};

static void layout_obj(FILE *o, const struct mt_tag_layout *l, uint64_t mtf)
{
	fprintf(o, "{\"layout\":\"%s\",\"mem_tag_format\":\"0x%016" PRIx64 "\","
		"\"cid_bits\":%u,\"cid_usable_bits\":%u,\"cid_max\":%" PRIu64 ","
		"\"source_in\":\"%s\",\"source_max\":%" PRIu64 ",\"tag_bits\":%u,"
		"\"tag_ub\":%" PRIu64 "}", l->name, mtf, l->cid_bits,
		l->cid_usable_bits, l->cid_max,
		l->src_in == MT_SRC_TAG ? "tag" : l->src_in == MT_SRC_DATA ? "cq_data" :
		"none", l->src_max, l->tag_bits, l->tag_ub);
}

static void endpoints(FILE *o, const struct mt_run *run)
{
	const struct mt_trace *t = run->trace;

	fputs("\"endpoints\":[", o);
	for (size_t i = 0; i < t->neps; i++) {
		const struct mt_tag_detect_result *d = &run->ep_detect[i];

		fputs(i ? ",{\"rank\":" : "{\"rank\":", o);
		mt_sink_rank_json(o, t, t->procs[t->eps[i].proc].key);
		fprintf(o, ",\"ep\":%zu,\"provider\":", i);
		mt_sink_esc_json(o, t->eps[i].rec->prov_name);
		fprintf(o, ",\"confidence\":\"%s\",\"in_force\":",
			mt_tag_confidence_name(d->confidence));
		layout_obj(o, &run->ep_layout[i], t->eps[i].rec->mem_tag_format);
		fputs(",\"evidence\":[", o);
		for (unsigned k = 0; k < d->n_items; k++) {
			char text[MT_SINK_EVIDENCE_LEN];

			fputs(k ? "," : "", o);
			mt_sink_esc_json(o, mt_sink_evidence_text(&d->item[k], text,
								  sizeof(text)));
		}
		fputs("]}", o);
	}
	fputs("]", o);
}

static void fields(FILE *o, const struct tags *tg, const struct mt_run *run)
{
	fputs(",\"fields\":[", o);
	for (int f = 0; f < MT_TAG_U_COUNT; f++) {
		struct mt_tag_ustat st;
		struct mt_tag_room r;

		mt_tag_usage_stat(tg->u, f, &st);
		mt_tag_usage_room(tg->u, &run->layout, f, &r);
		fprintf(o, "%s{\"field\":\"%s\",\"name\":\"%s\",\"messages\":%" PRIu64
			",\"distinct\":%" PRIu64 ",\"min\":", f ? "," : "", field_key[f],
			mt_tag_ufield_name(f), st.msgs, st.distinct);
		if (st.msgs)
			fprintf(o, "%" PRId64 ",\"max\":%" PRId64, st.min, st.max);
		else
			fputs("null,\"max\":null", o);
		if (r.in_tag)
			fprintf(o, ",\"in_layout\":true,\"bits\":%u,\"bits_used\":%u,"
				"\"headroom_bits\":%d,\"limit\":%" PRId64 ",\"left\":%" PRIu64
				",\"pct_used\":%.3f,\"headroom_pct\":%.3f}", r.bits,
				r.bits_used, r.bits_used > r.bits ? 0 : r.bits - r.bits_used,
				r.limit, r.left, r.pct_used, 100.0 - r.pct_used);
		else
			fputs(",\"in_layout\":false}", o);
	}
	fputs("]", o);
}

static void misfit_list(FILE *o, const struct tags *tg, const struct tags_case *c,
			enum mt_tag_ufield f)
{
	size_t n = c->w.f[f].misfit < MISFITS_MAX ? c->w.f[f].misfit : MISFITS_MAX;
	struct mt_tag_misfit *m = n ? malloc(n * sizeof(*m)) : NULL;

	fputs("[", o);
	if (m)
		n = mt_tag_usage_misfits(tg->u, &c->l, f, m, n) < n ? 0 : n;
	for (size_t i = 0; m && i < n; i++)
		fprintf(o, "%s{\"value\":%" PRId64 ",\"becomes\":%" PRId64 ",\"alias\":%s,"
			"\"flips\":%s}", i ? "," : "", m[i].value, m[i].becomes,
			m[i].alias ? "true" : "false", m[i].flips ? "true" : "false");
	fputs("]", o);
	free(m);
}

static void whatif(FILE *o, const struct tags *tg)
{
	fputs(",\"whatif\":[", o);
	for (size_t i = 0; i < tg->n_cases; i++) {
		const struct tags_case *c = &tg->cases[i];

		fprintf(o, "%s{\"case\":", i ? "," : "");
		layout_obj(o, &c->l, c->mtf);
		fprintf(o, ",\"origin\":\"%s\",\"in_force\":%s,\"mpi_starts\":%s,"
			"\"fits\":%s,\"fields\":[", c->origin, c->in_force ? "true" : "false",
			c->w.layout_status == MT_OK ? "true" : "false",
			c->w.fits ? "true" : "false");
		for (int f = 0; f < MT_TAG_U_COUNT; f++) {
			const struct mt_tag_whatif_field *w = &c->w.f[f];
			struct mt_tag_room r;

			mt_tag_usage_room(tg->u, &c->l, f, &r);
			fprintf(o, "%s{\"field\":\"%s\",\"limit\":%" PRId64 ",\"values\":%"
				PRIu64 ",\"misfit\":%" PRIu64 ",\"alias\":%" PRIu64 ",\"flips\":%"
				PRIu64 ",\"consequence\":\"%s\",\"misfits\":", f ? "," : "",
				field_key[f], r.limit, w->values, w->misfit, w->alias, w->flips,
				w->misfit ? mt_sink_tags_consequence(f) : "");
			misfit_list(o, tg, c, f);
			fputs("}", o);
		}
		fputs("]}", o);
	}
	fputs("]", o);
}

static void nbc_obj(FILE *o, const struct mt_tag_nbc *e)
{
	fprintf(o, "{\"left\":%" PRIu64 ",\"narrow\":%s,\"wrapped\":%s}", e->left,
		e->narrow ? "true" : "false", e->wrapped ? "true" : "false");
}

static void hazard(FILE *o, const struct tags *tg, const struct mt_run *run)
{
	const struct tags_case *t2 = mt_sink_tags_tag2(tg);
	struct mt_tag_nbc *now = NULL, *in2 = NULL;
	size_t n = mt_sink_tags_nbc(tg, &run->layout, &now);
	size_t n2 = t2 ? mt_sink_tags_nbc(tg, &t2->l, &in2) : 0;
	fputs(",\"internal_tags\":[", o);
	for (size_t i = 0; i < n; i++) {
		const struct mt_tag_nbc *e = &now[i];

		fprintf(o, "%s{\"cid\":%u,\"min_tag\":%d,\"user_msgs\":%" PRIu64
			",\"wildcard_user_msgs\":%" PRIu64 ",\"in_force\":", i ? "," : "",
			e->cid, e->min_tag, e->user_msgs, e->wild_user_msgs);
		nbc_obj(o, e);
		for (size_t j = 0; j < n2; j++)
			if (in2[j].cid == e->cid) {
				fputs(",\"ofi_tag_2\":", o);
				nbc_obj(o, &in2[j]);
			}
		fputs("}", o);
	}
	fputs("]", o);
	free(now);
	free(in2);
}

static void truncations(FILE *o, const struct tags *tg, const struct mt_run *run)
{
	fprintf(o, ",\"truncations\":{\"count\":%zu,\"list\":[", tg->n_trunc);
	for (size_t i = 0; i < tg->n_trunc_kept; i++) {
		const struct mt_match_msg *m = &tg->trunc[i];
		enum mt_match_trunc_cause c = mt_match_trunc_cause(m);
		static const char *const key[MT_MATCH_TRUNC_COUNT] = {
			"collision", "wildcard", "buffer"
		};

		fputs(i ? ",{\"recv\":{\"rank\":" : "{\"recv\":{\"rank\":", o);
		mt_sink_rank_json(o, run->trace, m->recv_rank);
		fprintf(o, ",\"cid\":%" PRId64 ",\"any_source\":%s,\"source\":",
			m->recv_f.cid, m->recv_f.any_src ? "true" : "false");
		if (m->recv_f.any_src)
			fputs("null", o);
		else
			fprintf(o, "%d", m->recv_f.comm_src >= 0 ? m->recv_f.comm_src :
				m->send_rank);
		fprintf(o, ",\"source_by_address\":%s,\"any_tag\":%s,\"tag\":",
			!m->recv_f.any_src && m->recv_f.comm_src < 0 ? "true" : "false",
			m->recv_f.has_tag ? "false" : "true");
		if (m->recv_f.has_tag)
			fprintf(o, "%d", m->recv_f.tag);
		else
			fputs("null", o);
		fprintf(o, ",\"buffer\":%" PRIu64 ",\"t_post_ns\":%" PRIu64 ",\"t_post_s\":"
			"%.6f},\"send\":", m->recv_buf, m->t_recv_post,
			mt_sink_tags_sec(run, m->t_recv_post));
		if (m->t_send_post == MT_MATCH_NOTIME)
			fputs("null", o);
		else
		{
			fputs("{\"rank\":", o);
			mt_sink_rank_json(o, run->trace, m->send_rank);
			fprintf(o, ",\"comm_src\":%d,\"cid\":%" PRId64 ",\"tag\":%d,"
				"\"bytes\":%" PRIu64 ",\"t_post_ns\":%" PRIu64 ",\"t_post_s\":"
				"%.6f}", m->f.comm_src, m->f.cid, m->f.tag,
				m->bytes, m->t_send_post, mt_sink_tags_sec(run, m->t_send_post));
		}
		fprintf(o, ",\"cause\":\"%s\",\"cause_text\":\"%s\"", key[c],
			mt_match_trunc_cause_str(c));
		mt_sink_site_json(o, tg->sym, "recv_site", m->recv_site);
		mt_sink_site_json(o, tg->sym, "send_site", m->send_site);
		fputc('}', o);
	}
	fputs("]}", o);
}

static enum mt_status json_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum,
				    struct mt_err *err)
{
	struct tags *t = state;
	FILE *o = t->out;

	(void)sum;
	mt_sink_tags_finish(t, run);
	fprintf(o, "{\"ranks\":%zu,\"provider\":", run->nranks);
	mt_sink_esc_json(o, run->provider);
	fprintf(o, ",\"messages\":%" PRIu64 ",\"messages_counted\":%" PRIu64 ",\"layout\":",
		t->msgs, t->counted);
	layout_obj(o, &run->layout, mt_sink_tags_run_mtf(run));
	fputs(",", o);
	endpoints(o, run);
	fields(o, t, run);
	whatif(o, t);
	hazard(o, t, run);
	truncations(o, t, run);
	fputs("}\n", o);
	mt_sink_tags_free(t);
	return mt_sink_written(o, 0, err);
}

const struct mt_sink_ops mt_sink_tags_json = {
	.key = "tags-json",
	.name = "tags JSON",
	.init = mt_sink_tags_start,
	.consume = mt_sink_tags_consume,
	.finalize = json_finalize,
};
