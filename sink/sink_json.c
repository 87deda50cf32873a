/*
 * sink_json.c - `msgtrace report --json`: the report's content for scripts,
 * one JSON object. Unknown numbers are null; strings are escaped.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "joined.h"
#include "report.h"

static void jtime(FILE *o, uint64_t t)
{
	if (t == MT_MATCH_NOTIME)
		fputs("null", o);
	else
		fprintf(o, "%" PRIu64, t);
}

static void jint(FILE *o, int known, int64_t v)
{
	if (known)
		fprintf(o, "%" PRId64, v);
	else
		fputs("null", o);
}

static void jfields(FILE *o, const struct mt_match_fields *f)
{
	fputs("\"cid\":", o);
	jint(o, f->cid >= 0, f->cid);
	fputs(",\"comm_src\":", o);
	jint(o, f->comm_src >= 0, f->comm_src);
	fputs(",\"tag\":", o);
	jint(o, f->has_tag, f->tag);
	fprintf(o, ",\"kind\":\"%s\"", mt_match_kind_str(f->kind));
}

static void jmsg(FILE *o, const struct mt_trace *t, struct mt_sym *sym,
		 const struct mt_match_msg *m)
{
	fputs("{\"send_rank\":", o);
	mt_sink_rank_json(o, t, m->send_rank);
	fputs(",\"recv_rank\":", o);
	mt_sink_rank_json(o, t, m->recv_rank);
	fputc(',', o);
	jfields(o, &m->f);
	fprintf(o, ",\"bytes\":%" PRIu64 ",\"recv_buf\":%" PRIu64
		",\"raw_tag\":\"0x%016" PRIx64 "\",\"t_send_post_ns\":", m->bytes,
		m->recv_buf, m->raw_tag);
	jtime(o, m->t_send_post);
	fputs(",\"t_send_done_ns\":", o);
	jtime(o, m->t_send_done);
	fputs(",\"t_recv_post_ns\":", o);
	jtime(o, m->t_recv_post);
	fputs(",\"t_recv_done_ns\":", o);
	jtime(o, m->t_recv_done);
	fprintf(o, ",\"status\":\"%s\"", mt_match_status_str(m->status));
	mt_sink_site_json(o, sym, "send_site", m->send_site);
	mt_sink_site_json(o, sym, "recv_site", m->recv_site);
	fputc('}', o);
}

/* ,"jobs":[...] after the run's other keys: one object per job, in order of
 * appearance (the JOB of JOB:RANK). */
static void jjobs(FILE *o, const struct mt_trace *t)
{
	fputs(",\"jobs\":[", o);
	for (size_t j = 0; j < t->njobs; j++) {
		const struct mt_trace_job *jb = &t->jobs[j];

		fprintf(o, "%s{\"job\":%zu,\"id\":", j ? "," : "", j);
		mt_sink_esc_json(o, jb->id);
		fprintf(o, ",\"processes\":%zu,\"launch\":%u}", jb->nprocs,
			jb->launch);
	}
	fputs("]", o);
}

/* Per process, what time its trace covers and whether it ends early. */
static void jspans(FILE *o, const struct mt_trace *t)
{
	fputs(",\"processes\":[", o);
	for (size_t p = 0; p < t->nprocs; p++) {
		struct mt_sink_span sp;

		mt_sink_proc_span(&t->procs[p], &sp);
		fputs(p ? ",{\"rank\":" : "{\"rank\":", o);
		mt_sink_rank_json(o, t, t->procs[p].key);
		fprintf(o, ",\"first_ns\":%" PRId64 ",\"last_ns\":%" PRId64
			",\"lost\":%" PRIu64 ",\"ended_early\":%s", sp.first_ns,
			sp.last_ns, sp.lost, sp.ended ? "true" : "false");
		if (sp.ended)
			fprintf(o, ",\"end_ns\":%" PRId64, sp.end_ns);
		fprintf(o, ",\"wrapped\":%s,\"overwritten\":%" PRIu64,
			sp.wrapped ? "true" : "false", sp.overwritten);
		if (sp.wrapped)
			fprintf(o, ",\"window_start_ns\":%" PRId64, sp.window_ns);
		fputc('}', o);
	}
	fputc(']', o);
}

/* ,"processes_without_call_sites":[{"rank":..,"host":".."},...] when some
 * processes recorded call sites and others none. */
static void jnosites(FILE *o, const struct mt_trace *t)
{
	size_t without, n = 0;
	unsigned char *has = mt_sink_site_procs(t, &without);

	if (!has)
		return;
	fputs(",\"processes_without_call_sites\":[", o);
	for (size_t p = 0; p < t->nprocs; p++) {
		if (has[p])
			continue;
		fputs(n++ ? ",{\"rank\":" : "{\"rank\":", o);
		mt_sink_rank_json(o, t, t->procs[p].key);
		fputs(",\"host\":", o);
		mt_sink_esc_json(o, t->procs[p].host);
		fputc('}', o);
	}
	fputc(']', o);
	free(has);
}

static void jrun(FILE *o, const struct mt_run *run)
{
	const struct mt_tag_layout *l = &run->layout;

	fprintf(o, "\"run\":{\"ranks\":%zu,\"hosts\":[", run->nranks);
	for (size_t p = 0, k = 0; p < run->trace->nprocs; p++) {
		size_t q;

		for (q = 0; q < p && strcmp(run->trace->procs[q].host,
					    run->trace->procs[p].host); q++)
			;
		if (q < p)
			continue;
		fputs(k++ ? "," : "", o);
		mt_sink_esc_json(o, run->trace->procs[p].host);
	}
	fputs("],\"provider\":", o);
	mt_sink_esc_json(o, run->provider);
	fputs(",\"fabric\":", o);
	mt_sink_esc_json(o, run->fabric);
	fprintf(o, ",\"endpoints_with_other_provider\":%zu", run->providers_differ);
	if (run->providers_differ) {
		fputs(",\"other_provider\":", o);
		mt_sink_esc_json(o, run->other_provider);
		fputs(",\"other_provider_host\":", o);
		mt_sink_esc_json(o, run->other_provider_host);
		fprintf(o, ",\"other_providers_more\":%s",
			run->other_providers_more ? "true" : "false");
	}
	fputs(",\"layout\":{\"name\":", o);
	mt_sink_esc_json(o, l->name);
	fprintf(o, ",\"confidence\":\"%s\",\"cid_bits\":%u,\"cid_usable_bits\":%u,"
		"\"source_in\":\"%s\",\"source_bits\":%u,\"tag_bits\":%u,"
		"\"endpoints_with_other_layout\":%zu},",
		mt_tag_confidence_name(run->layout_conf), l->cid_bits,
		l->cid_usable_bits, l->src_in == MT_SRC_DATA ? "cq_data" :
		l->src_in == MT_SRC_TAG ? "tag" : "none",
		l->src_in == MT_SRC_DATA ? l->data_src_bits : l->src_bits,
		l->tag_bits, run->layouts_differ);
	fprintf(o, "\"t0_ns\":%" PRId64 ",\"t1_ns\":%" PRId64 ",\"duration_ns\":%"
		PRId64 ",\"records\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"files_not_closed\":%zu,\"skipped_ops\":%" PRIu64,
		run->t0_ns, run->t1_ns,
		/* Wrapping, not overflowing, on a corrupt trace's times. */
		(int64_t)((uint64_t)run->t1_ns - (uint64_t)run->t0_ns), run->events,
		run->lost, run->unclean_files, run->skipped);
	if (run->live_files)
		fprintf(o, ",\"files_being_written\":%zu", run->live_files);
	if (run->trace->njobs > 1)
		jjobs(o, run->trace);
	jspans(o, run->trace);
	jnosites(o, run->trace);
	fputc('}', o);
}

/* ,"KEY":"host" across hosts, when the rank's host is known. */
static void jhost(FILE *o, const char *key, const char *host)
{
	if (!host)
		return;
	fprintf(o, ",\"%s\":", key);
	mt_sink_esc_json(o, host);
}

static void jcell(FILE *o, const struct report_cell *c)
{
	fprintf(o, "\"user_msgs\":%" PRIu64 ",\"user_bytes\":%" PRIu64
		",\"internal_msgs\":%" PRIu64 ",\"internal_bytes\":%" PRIu64
		",\"bw_mbps\":%.3f", c->msgs[0], c->bytes[0], c->msgs[1],
		c->bytes[1], mt_sink_report_mbps(c->bw_bytes, c->bw_ns));
}

static void jtraffic(FILE *o, const struct mt_trace *t, struct report *r,
		     const struct mt_match_summary *s)
{
	const size_t *pairs;
	char lab[16];
	int first = 1;

	fprintf(o, ",\"messages\":{\"total\":%" PRIu64 ",\"bytes\":%" PRIu64,
		r->msgs, r->bytes);
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
		fprintf(o, ",\"%s\":%" PRIu64, mt_match_kind_str(k), r->kind[k]);
	fputs(",\"status\":{", o);
	for (unsigned st = 0; st < MT_MATCH_ST_COUNT; st++)
		fprintf(o, "%s\"%s\":%" PRIu64, st ? "," : "", mt_match_status_str(st),
			s->by_status[st]);
	fprintf(o, "},\"probes\":%" PRIu64 ",\"probe_hits\":%" PRIu64
		",\"probe_misses\":%" PRIu64 ",\"claims\":%" PRIu64
		",\"unknown_rank\":%" PRIu64 ",\"before_window\":%" PRIu64
		"},\"pairs\":[", s->probes, s->probe_hits, s->probe_misses,
		s->claims, r->no_rank, s->before_window);
	pairs = mt_sink_report_pairs(r);
	for (size_t j = 0; j < r->npairs; j++) {
		size_t i = pairs[j];
		const struct report_cell *c = &r->pair[i];

		fprintf(o, "%s{\"send_rank\":", first ? "" : ",");
		mt_sink_rank_json(o, t, (int64_t)(i / r->n));
		fputs(",\"recv_rank\":", o);
		mt_sink_rank_json(o, t, (int64_t)(i % r->n));
		jhost(o, "send_host", mt_sink_report_host(r, (int64_t)(i / r->n)));
		jhost(o, "recv_host", mt_sink_report_host(r, (int64_t)(i % r->n)));
		fputc(',', o);
		jcell(o, c);
		fputc('}', o);
		first = 0;
	}
	fputs("],\"sizes\":[", o);
	first = 1;
	for (unsigned c = 0; c < REPORT_CLASSES; c++) {
		if (!(r->size[c].msgs[0] + r->size[c].msgs[1]))
			continue;
		fprintf(o, "%s{\"from_bytes\":%llu,\"label\":", first ? "" : ",",
			c ? 1ull << (c - 1) : 0ull);
		mt_sink_esc_json(o, mt_sink_report_class_label(c, lab, sizeof(lab)));
		fputc(',', o);
		jcell(o, &r->size[c]);
		for (int w = 0; r->host && w < 2; w++) {
			fprintf(o, ",\"%s\":{", w ? "between_hosts" : "inside_host");
			jcell(o, &r->size_where[w][c]);
			fputc('}', o);
		}
		fputc('}', o);
		first = 0;
	}
	fputc(']', o);
	if (r->host) {
		fputs(",\"hosts\":{\"inside_host\":{", o);
		jcell(o, &r->where[REPORT_INSIDE]);
		fputs("},\"between_hosts\":{", o);
		jcell(o, &r->where[REPORT_BETWEEN]);
		fputs("}}", o);
	}
	fprintf(o, ",\"throughput\":{\"bin_ns\":%.0f,\"bytes\":[",
		((double)r->t1 - (double)r->t0 + 1) / REPORT_BINS);
	for (int i = 0; i < REPORT_BINS; i++)
		fprintf(o, "%s%" PRIu64, i ? "," : "", r->bin_bytes[i]);
	fputs("]}", o);
}

static void jop(FILE *o, const struct mt_trace *t, struct mt_sym *sym,
		const struct mt_match_pending *p)
{
	fputs("{\"rank\":", o);
	mt_sink_rank_json(o, t, p->rank);
	fprintf(o, ",\"dir\":\"%s\",\"peer_rank\":",
		p->op.dir == MT_MATCH_DIR_SEND ? "send" : "recv");
	mt_sink_rank_json(o, t, p->peer_rank);
	fputc(',', o);
	jfields(o, &p->op.f);
	fputs(",\"fi_addr\":", o);
	jint(o, p->op.peer >= 0, (int64_t)p->op.addr);
	fprintf(o, ",\"raw_tag\":\"0x%016" PRIx64 "\",\"ignore\":\"0x%016" PRIx64
		"\",\"len\":%" PRIu64 ",\"posted_ns\":%" PRIu64
		",\"delivered\":%s", p->op.tag, p->op.ignore, p->op.len, p->op.ts,
		p->delivered ? "true" : "false");
	mt_sink_site_json(o, sym, "site", p->op.site);
	fputc(',', o);
	if (p->unacked) {
		fprintf(o, "\"unacknowledged_ssend\":{\"claimed\":%s,\"message\":",
			p->unacked_claimed ? "true" : "false");
		jmsg(o, t, sym, &p->unacked_msg);
		fputs("},", o);
	}
	fputs("\"near_misses\":[", o);
	for (unsigned i = 0; i < p->n_near; i++) {
		fprintf(o, "%s{\"differs_in\":\"%s\",\"send\":", i ? "," : "",
			p->near[i].addr_only ? "source address" :
			mt_match_field_str(p->near[i].field));
		jmsg(o, t, sym, &p->near[i].send);
		fputc('}', o);
	}
	fputs("]}", o);
}

static void jdiag(FILE *o, const struct mt_trace *t, struct mt_sym *sym,
		  const struct mt_match_summary *s)
{
	fputs(",\"warnings\":[", o);
	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++) {
		fprintf(o, "%s{\"what\":\"%s\",\"count\":%" PRIu64 ",\"examples\":[",
			w ? "," : "", mt_match_warning_str(w), s->warn[w].count);
		for (unsigned e = 0; e < s->warn[w].n_examples; e++) {
			fputs(e ? "," : "", o);
			jmsg(o, t, sym, &s->warn[w].example[e]);
		}
		fputs("]}", o);
	}
	fputs("],\"pending\":[", o);
	for (size_t i = 0; i < s->n_pending; i++) {
		fputs(i ? "," : "", o);
		jop(o, t, sym, &s->pending[i]);
	}
	fprintf(o, "],\"abandoned_at_close\":%" PRIu64
		",\"delivered_sends_never_completed\":%" PRIu64,
		s->abandoned_at_close, s->pending_delivered_sends);
}

static void jwait(FILE *o, const struct mt_trace *t,
		  const struct mt_match_wait *w)
{
	fprintf(o, "{\"pending\":%zu,\"rank\":", w->pending);
	mt_sink_rank_json(o, t, w->rank);
	fprintf(o, ",\"what\":\"%s\",\"on\":", mt_match_wait_str(w->why));
	mt_sink_rank_json(o, t, w->on);
	fprintf(o, ",\"any_sender\":%s}", w->any ? "true" : "false");
}

static void jranks(FILE *o, const struct mt_trace *t, const char *name,
		   const int32_t *r, size_t n)
{
	fprintf(o, ",\"%s\":[", name);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? "," : "", o);
		mt_sink_rank_json(o, t, r[i]);
	}
	fputc(']', o);
}

/* The hang's analysis (mt_match.h): roots, groups, explaining near misses
 * (indices into pending[] and its near_misses, null for the
 * unacknowledged Ssend), and every wait. */
static void jhang(FILE *o, const struct mt_trace *t, struct mt_sym *sym,
		  const struct mt_match_hang *h)
{
	fputs(",\"hang\":{\"roots\":[", o);
	for (size_t i = 0; i < h->n_roots; i++) {
		const struct mt_match_root *rt = &h->roots[i];

		fprintf(o, "%s{\"type\":\"%s\",\"rank\":", i ? "," : "",
			mt_match_root_str(rt->type));
		mt_sink_rank_json(o, t, rt->rank);
		fprintf(o, ",\"ranks_in_it\":%zu,\"waiters\":%zu,\"state\":",
			rt->size, rt->waiters);
		if (rt->type == MT_MATCH_ROOT_IDLE)
			mt_sink_esc_json(o, mt_match_rank_state_str(rt->state));
		else
			fputs("null", o);
		fputs(",\"waits\":[", o);
		for (size_t k = 0; k < rt->n; k++) {
			fputs(k ? "," : "", o);
			jwait(o, t, &h->waits[h->path[rt->first + k]]);
		}
		fputs("]}", o);
	}
	fputs("],\"groups\":[", o);
	for (size_t i = 0; i < h->n_groups; i++) {
		const struct mt_match_group *g = &h->groups[i];

		fprintf(o, "%s{\"what\":\"%s\",\"kind\":\"%s\",\"any_sender\":%s,"
			"\"cid\":%" PRId64 ",\"tag\":", i ? "," : "",
			mt_match_wait_str(g->why), mt_match_kind_str(g->kind),
			g->any ? "true" : "false", g->cid);
		jint(o, g->has_tag, g->tag);
		fprintf(o, ",\"operations\":%zu,\"first_posted_ns\":%" PRIu64
			",\"last_posted_ns\":%" PRIu64, g->n_ops, g->first_ts,
			g->last_ts);
		jranks(o, t, "ranks", g->ranks, g->n_ranks);
		jranks(o, t, "on", g->on, g->n_on);
		mt_sink_site_json(o, sym, "site", g->site);
		fputc('}', o);
	}
	fputs("],\"explaining\":[", o);
	for (size_t i = 0; i < h->n_explain; i++) {
		fprintf(o, "%s{\"pending\":%zu,\"near_miss\":", i ? "," : "",
			h->explain[i].pending);
		jint(o, h->explain[i].near < MT_MATCH_NEAR, h->explain[i].near);
		fputc('}', o);
	}
	fputs("],\"waits\":[", o);
	for (size_t i = 0; i < h->n_waits; i++) {
		fputs(i ? "," : "", o);
		jwait(o, t, &h->waits[i]);
	}
	fputs("]}", o);
}

static void jdomain(FILE *o, const struct mt_trace *t, const struct mt_run_clock *c,
		    uint32_t d)
{
	const struct mt_clock_domain *m = &c->res->domains[d];
	const char *host = c->procs[m->first_proc].host;

	fprintf(o, "{\"id\":%u,\"ranks\":[", d);
	for (uint32_t r = 0, k = 0; r < c->nranks; r++)
		if (c->res->proc_domain[r] == d) {
			fputs(k++ ? "," : "", o);
			mt_sink_rank_json(o, t, r);
		}
	fputs("],\"host\":", o);
	if (host)
		mt_sink_esc_json(o, host);
	else
		fputs("null", o);
	fprintf(o, ",\"split\":%s,\"estimate\":\"%s\",\"ref\":%u,"
		"\"offset_ns\":%.1f,\"offset_sd_ns\":%.1f,\"drift_ppm\":%.4f,"
		"\"drift_sd_ppm\":%.4f,\"intra_messages\":%" PRIu64
		",\"intra_violations\":%" PRIu64 ",\"agreement\":", m->split ? "true" : "false",
		mt_clock_est_name(m->est), m->ref, m->offset_ns, m->offset_sd_ns,
		m->drift_ppm, m->drift_sd_ppm, m->intra_msgs, m->intra_violations);
	if (!m->agree_pairs) {
		fputs("null}", o);
		return;
	}
	fprintf(o, "{\"pairs\":%u,\"ranks\":[", m->agree_pairs);
	mt_sink_rank_json(o, t, m->agree_a);
	fputc(',', o);
	mt_sink_rank_json(o, t, m->agree_b);
	fprintf(o, "],\"offset_ns\":%.1f,\"min_ns\":%" PRId64 ",\"max_ns\":%" PRId64 "}}",
		m->agree_ns, m->agree_lo_ns, m->agree_hi_ns);
}

/* The clock stage: every key always present, null when it did not run. */
static void jclock(FILE *o, const struct mt_trace *t, const struct mt_run_clock *c)
{
	const struct mt_clock_result *r = c->res;

	fprintf(o, ",\"clock\":{\"asked\":\"%s\",\"corrected\":%s,"
		"\"linear\":%s,\"clc\":%s,\"declared_domains\":%u,"
		"\"split_processes\":%u,\"problem\":\"%s\",",
		mt_clock_mode_name(c->asked), r ? "true" : "false",
		r && r->linear_done ? "true" : "false",
		r && r->clc_done ? "true" : "false", c->declared,
		mt_sink_clock_splits(c),
		mt_sink_clock_problem_name(mt_sink_clock_problem(c)));
	if (!r) {
		fprintf(o, "\"messages\":%" PRIu64 ",\"violations_before\":%" PRIu64
			",\"violations_linear\":null,\"violations_after\":%" PRIu64
			",\"t0_ns\":null,\"events\":null,\"correction_max_ns\":0,"
			"\"correction_median_ns\":0,\"clc_moved\":0,\"clc_max_ns\":0,"
			"\"clc_median_ns\":0,\"jumps\":0,\"cycles_broken\":0,"
			"\"interval_change\":0,\"interval_max_change\":0,"
			"\"domains\":[],\"links\":[]}", c->checked, c->violations,
			c->violations);
		return;
	}
	fprintf(o, "\"messages\":%" PRIu64 ",\"violations_before\":%" PRIu64
		",\"violations_linear\":%" PRIu64 ",\"violations_after\":%" PRIu64
		",\"t0_ns\":%" PRId64 ",\"events\":%" PRIu64
		",\"correction_max_ns\":%" PRId64 ",\"correction_median_ns\":%" PRId64
		",\"clc_moved\":%" PRIu64 ",\"clc_max_ns\":%" PRId64
		",\"clc_median_ns\":%" PRId64 ",\"jumps\":%" PRIu64
		",\"cycles_broken\":%" PRIu64 ",\"interval_change\":%.6g"
		",\"interval_max_change\":%.6g,\"domains\":[", r->nmsgs,
		r->viol_before, r->viol_linear, r->viol_after, r->t0, r->nevents,
		r->corr_max_ns, r->corr_median_ns, r->clc_moved, r->clc_max_ns,
		r->clc_median_ns, r->jumps, r->cycles_broken, r->interval_change,
		r->interval_max_change);
	for (uint32_t d = 0; d < r->ndomains; d++) {
		fputs(d ? "," : "", o);
		jdomain(o, t, c, d);
	}
	fputs("],\"links\":[", o);
	for (uint32_t i = 0; i < r->nlinks; i++)
		fprintf(o, "%s{\"from\":%u,\"to\":%u,\"messages\":%" PRIu64
			",\"lmin_ns\":%" PRId64 ",\"source\":\"%s\"}", i ? "," : "",
			r->links[i].from, r->links[i].to, r->links[i].msgs,
			r->links[i].lmin_ns, mt_clock_lat_src_name(r->links[i].src));
	fputs("]}", o);
}

static enum mt_status json_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum,
				    struct mt_err *err)
{
	struct report_sink *x = state;
	struct mt_match_hang *h = NULL;

	if (mt_sink_report_hang(run, sum, &h)) {
		mt_sink_report_end(x, err);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	fputc('{', x->out);
	jrun(x->out, run);
	jtraffic(x->out, run->trace, &x->r, sum);
	jdiag(x->out, run->trace, x->r.sym, sum);
	jhang(x->out, run->trace, x->r.sym, h);
	mt_match_hang_free(h);
	jclock(x->out, run->trace, &run->clock);
	if (run->join)
		mt_sink_joined_json(x->out, run, sum);
	fputs("}\n", x->out);
	return mt_sink_report_end(x, err);
}

const struct mt_sink_ops mt_sink_json = {
	.key = "json",
	.name = "json",
	.init = mt_sink_report_start,
	.consume = mt_sink_report_consume,
	.finalize = json_finalize,
	.joins = 1,
};
