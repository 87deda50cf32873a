/*
 * joined.c - the joined view in the report's three formats (joined.h):
 * each rank's clock alignment, per MPI call kind the fabric messages its
 * calls made, the messages not matched and the operations pending at the
 * end, each with the MPI calls it was made in.
 */
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "joined.h"

#define PENDING_SHOWN 8	/* pending operations the text lists */

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* "MPI_Send (64 B)", "MPI_Barrier", or "no MPI call" for NULL. */
static const char *call_label(const struct mt_otf2in_call *c, char *buf, size_t len)
{
	if (!c)
		return "no MPI call";
	if (c->has_bytes)
		snprintf(buf, len, "%s (%" PRIu64 " B)", c->name, c->bytes);
	else
		snprintf(buf, len, "%s", c->name);
	return buf;
}

/* Where a problem's side was made: its call, or that it was not made. */
static const char *side_label(const struct mt_join_problem *p, int recv,
			      char *buf, size_t len)
{
	if (recv)
		return p->msg.t_recv_post != MT_MATCH_NOTIME ?
		       call_label(p->recv_call, buf, len) : "- (no receive)";
	return p->msg.t_send_post != MT_MATCH_NOTIME ?
	       call_label(p->send_call, buf, len) : "- (no send)";
}

static const struct mt_otf2in_call *pending_call(const struct mt_run *run,
						 const struct mt_match_pending *p)
{
	return mt_join_call_at(run->join, p->rank, p->op.ts);
}

/* "rank 0 send user 64 B to rank 1 tag 2" */
static void pending_op(const struct mt_match_pending *p, char *buf, size_t len)
{
	char tag[16] = "any";
	int send = p->op.dir == MT_MATCH_DIR_SEND;

	if (p->op.f.has_tag)
		snprintf(tag, sizeof(tag), "%d", p->op.f.tag);
	snprintf(buf, len, "rank %d %s %s %" PRIu64 " B %s rank %d tag %s", p->rank,
		 send ? "send" : "receive", mt_match_kind_str(p->op.f.kind),
		 p->op.len, send ? "to" : "from", p->peer_rank, tag);
}

/* "user 64 B rank 0 -> 1 tag 2" */
static void problem_msg(const struct mt_join_problem *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %" PRIu64 " B rank %d -> %d tag %d",
		 mt_match_kind_str(p->msg.f.kind), p->msg.bytes, p->msg.send_rank,
		 p->msg.recv_rank, p->msg.f.tag);
}

/* A kind shown: one with calls, or fabric operations outside any. */
static int kind_shown(const struct mt_join_kind *k)
{
	return k->name || k->sent || k->recvs;
}

static void text_align(FILE *out, const struct mt_join *j)
{
	fprintf(out, "Clock alignment (fabric time = archive time + offset), per rank:\n");
	for (size_t r = 0; r < mt_join_nranks(j); r++) {
		const struct mt_join_align *a = mt_join_align(j, r);

		if (!a->ok)
			fprintf(out, "  rank %zu: not aligned (no point-to-point send "
				"or receive to rest on): its fabric operations are in no call\n", r);
		else
			fprintf(out, "  rank %zu: offset %+.9f s +- %.3f us (%" PRIu64
				" operations inside their calls)\n", r,
				(double)a->offset_ns / 1e9,
				(double)a->uncertainty_ns / 1e3, a->anchors);
	}
}

static void text_kinds(FILE *out, const struct mt_join *j)
{
	fprintf(out, "\n%-22s %12s %7s %12s %8s %8s %12s %12s %12s %7s\n",
		"MPI call", "size", "calls", "in calls s", "fab msgs", "matched",
		"bytes", "sizes", "on wire s", "recvs");
	for (size_t i = 0; i < mt_join_nkinds(j); i++) {
		const struct mt_join_kind *k = mt_join_kind(j, i);
		char size[24] = "-", sizes[40] = "-";

		if (!kind_shown(k))
			continue;
		if (k->has_bytes)
			snprintf(size, sizeof(size), "%" PRIu64 " B", k->bytes);
		if (k->sent)
			snprintf(sizes, sizeof(sizes), k->min_bytes == k->max_bytes ?
				 "%" PRIu64 : "%" PRIu64 "-%" PRIu64, k->min_bytes,
				 k->max_bytes);
		fprintf(out, "%-22s %12s %7" PRIu64 " %12.6f %8" PRIu64 " %8" PRIu64
			" %12" PRIu64 " %12s %12.6f %7" PRIu64 "\n",
			k->name ? k->name : "(in no MPI call)", size, k->calls,
			sec(k->call_ns), k->sent, k->status[MT_MATCH_ST_MATCHED],
			k->sent_bytes, sizes, sec(k->wire_ns), k->recvs);
	}
}

void mt_sink_joined_text(FILE *out, const struct mt_run *run,
			 const struct mt_match_summary *sum)
{
	const struct mt_join *j = run->join;
	uint64_t total;
	size_t n = mt_join_nproblems(j, &total);
	size_t shown = sum->n_pending < PENDING_SHOWN ? sum->n_pending : PENDING_SHOWN;

	fprintf(out, "\nJOINED VIEW  (MPI calls of %s)\n", run->join_archive);
	text_align(out, j);
	text_kinds(out, j);
	fprintf(out, "(fab msgs: fabric messages sent inside the calls; matched: of "
		"those; on wire: receive completion minus send post, matched ones; "
		"recvs: fabric receives posted inside)\n");
	fprintf(out, "\nFabric messages not matched, with their MPI calls: %" PRIu64 "%s\n",
		total, total ? "" : " (none)");
	for (size_t i = 0; i < n; i++) {
		const struct mt_join_problem *p = mt_join_problem(j, i);
		char m[128], a[96], b[96];

		problem_msg(p, m, sizeof(m));
		fprintf(out, "  %s: %s, sent in %s, received in %s\n",
			mt_match_status_str(p->msg.status), m,
			side_label(p, 0, a, sizeof(a)), side_label(p, 1, b, sizeof(b)));
	}
	fprintf(out, "\nFabric operations pending at the end, with their MPI calls: "
		"%zu%s\n", sum->n_pending, sum->n_pending ? "" : " (none)");
	for (size_t i = 0; i < shown; i++) {
		const struct mt_match_pending *p = &sum->pending[i];
		char op[128], c[96];

		pending_op(p, op, sizeof(op));
		fprintf(out, "  %s, posted in %s\n", op,
			call_label(pending_call(run, p), c, sizeof(c)));
	}
}

/* "KEY":{"name":..,"bytes":..,"rank":..,"enter_ns":..} or "KEY":null; the
 * call's start on the report's clock (its rank's offset added). */
static void json_call(FILE *o, const struct mt_join *j, const char *key,
		      const struct mt_otf2in_call *c)
{
	const struct mt_join_align *a;

	fprintf(o, "\"%s\":", key);
	if (!c) {
		fputs("null", o);
		return;
	}
	fputs("{\"name\":", o);
	mt_sink_esc_json(o, c->name);
	if (c->has_bytes)
		fprintf(o, ",\"bytes\":%" PRIu64, c->bytes);
	a = mt_join_align(j, (size_t)c->proc);
	fprintf(o, ",\"rank\":%d,\"enter_ns\":%" PRIu64 "}", c->proc,
		c->enter_ns + (uint64_t)a->offset_ns);
}

static void json_kinds(FILE *o, const struct mt_join *j)
{
	int first = 1;

	fputs(",\"calls\":[", o);
	for (size_t i = 0; i < mt_join_nkinds(j); i++) {
		const struct mt_join_kind *k = mt_join_kind(j, i);

		if (!kind_shown(k))
			continue;
		fputs(first ? "{\"call\":" : ",{\"call\":", o);
		first = 0;
		if (k->name)
			mt_sink_esc_json(o, k->name);
		else
			fputs("null", o);
		if (k->has_bytes)
			fprintf(o, ",\"bytes\":%" PRIu64, k->bytes);
		fprintf(o, ",\"calls\":%" PRIu64 ",\"call_ns\":%" PRIu64
			",\"fabric_messages\":%" PRIu64 ",\"fabric_bytes\":%" PRIu64,
			k->calls, k->call_ns, k->sent, k->sent_bytes);
		if (k->sent)
			fprintf(o, ",\"min_bytes\":%" PRIu64 ",\"max_bytes\":%" PRIu64,
				k->min_bytes, k->max_bytes);
		fputs(",\"status\":{", o);
		for (int s = 0; s < MT_MATCH_ST_COUNT; s++)
			fprintf(o, "%s\"%s\":%" PRIu64, s ? "," : "",
				mt_match_status_str(s), k->status[s]);
		fprintf(o, "},\"wire_ns\":%" PRIu64 ",\"fabric_receives\":%" PRIu64 "}",
			k->wire_ns, k->recvs);
	}
	fputc(']', o);
}

void mt_sink_joined_json(FILE *o, const struct mt_run *run,
			 const struct mt_match_summary *sum)
{
	const struct mt_join *j = run->join;
	uint64_t total;
	size_t n = mt_join_nproblems(j, &total);

	fputs(",\"joined\":{\"archive\":", o);
	mt_sink_esc_json(o, run->join_archive);
	fputs(",\"ranks\":[", o);
	for (size_t r = 0; r < mt_join_nranks(j); r++) {
		const struct mt_join_align *a = mt_join_align(j, r);

		fprintf(o, "%s{\"rank\":%zu,\"aligned\":%s", r ? "," : "", r,
			a->ok ? "true" : "false");
		if (a->ok)
			fprintf(o, ",\"offset_ns\":%" PRId64 ",\"uncertainty_ns\":%" PRIu64
				",\"anchors\":%" PRIu64, a->offset_ns, a->uncertainty_ns,
				a->anchors);
		fputc('}', o);
	}
	fputc(']', o);
	json_kinds(o, j);
	fprintf(o, ",\"not_matched_total\":%" PRIu64 ",\"not_matched\":[", total);
	for (size_t i = 0; i < n; i++) {
		const struct mt_join_problem *p = mt_join_problem(j, i);
		const struct mt_match_msg *m = &p->msg;

		fprintf(o, "%s{\"status\":\"%s\",\"kind\":\"%s\",\"bytes\":%" PRIu64
			",\"from\":%d,\"to\":%d,\"tag\":%d,", i ? "," : "",
			mt_match_status_str(m->status), mt_match_kind_str(m->f.kind),
			m->bytes, m->send_rank, m->recv_rank, m->f.tag);
		json_call(o, j, "send_call", p->send_call);
		fputc(',', o);
		json_call(o, j, "recv_call", p->recv_call);
		fputc('}', o);
	}
	fprintf(o, "],\"pending_total\":%zu,\"pending\":[", sum->n_pending);
	for (size_t i = 0; i < sum->n_pending; i++) {
		const struct mt_match_pending *p = &sum->pending[i];

		fprintf(o, "%s{\"rank\":%d,\"dir\":\"%s\",\"kind\":\"%s\",\"bytes\":%"
			PRIu64 ",\"peer\":%d,\"tag\":", i ? "," : "", p->rank,
			p->op.dir == MT_MATCH_DIR_SEND ? "send" : "recv",
			mt_match_kind_str(p->op.f.kind), p->op.len, p->peer_rank);
		if (p->op.f.has_tag)
			fprintf(o, "%d,", p->op.f.tag);
		else
			fputs("null,", o);
		json_call(o, j, "call", pending_call(run, p));
		fputc('}', o);
	}
	fputs("]}", o);
}

/* <td>TEXT</td> with TEXT escaped. */
static void html_cell(FILE *f, const char *text)
{
	fputs("<td>", f);
	mt_sink_esc_html(f, text);
	fputs("</td>", f);
}

static void html_kinds(FILE *f, const struct mt_join *j)
{
	fputs("<table class=\"num\"><thead><tr><th>MPI call</th><th>size</th>"
	      "<th>calls</th><th>in calls s</th><th>fabric messages</th>"
	      "<th>matched</th><th>bytes</th><th>on wire s</th>"
	      "<th>fabric receives</th></tr></thead><tbody>", f);
	for (size_t i = 0; i < mt_join_nkinds(j); i++) {
		const struct mt_join_kind *k = mt_join_kind(j, i);
		char size[24] = "-";

		if (!kind_shown(k))
			continue;
		if (k->has_bytes)
			snprintf(size, sizeof(size), "%" PRIu64 " B", k->bytes);
		fputs("<tr>", f);
		html_cell(f, k->name ? k->name : "(in no MPI call)");
		fprintf(f, "<td>%s</td><td>%" PRIu64 "</td><td>%.6f</td><td>%" PRIu64
			"</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.6f</td><td>%"
			PRIu64 "</td></tr>", size, k->calls, sec(k->call_ns), k->sent,
			k->status[MT_MATCH_ST_MATCHED], k->sent_bytes, sec(k->wire_ns),
			k->recvs);
	}
	fputs("</tbody></table>", f);
}

void mt_sink_joined_html(FILE *f, const struct mt_run *run,
			 const struct mt_match_summary *sum)
{
	const struct mt_join *j = run->join;
	uint64_t total;
	size_t n = mt_join_nproblems(j, &total);

	fputs("<section id=\"joined\"><h2>MPI calls and their fabric messages</h2>"
	      "<p class=\"sub\">MPI calls of ", f);
	mt_sink_esc_html(f, run->join_archive);
	fputs(", each rank's clock aligned to the fabric trace's.</p>"
	      "<table class=\"num\"><thead><tr><th>rank</th><th>offset s</th>"
	      "<th>+- us</th><th>operations inside their calls</th></tr></thead><tbody>", f);
	for (size_t r = 0; r < mt_join_nranks(j); r++) {
		const struct mt_join_align *a = mt_join_align(j, r);

		if (a->ok)
			fprintf(f, "<tr><td>%zu</td><td>%+.9f</td><td>%.3f</td><td>%" PRIu64
				"</td></tr>", r, (double)a->offset_ns / 1e9,
				(double)a->uncertainty_ns / 1e3, a->anchors);
		else
			fprintf(f, "<tr><td>%zu</td><td colspan=\"3\">not aligned: no "
				"point-to-point call to rest on</td></tr>", r);
	}
	fputs("</tbody></table>", f);
	html_kinds(f, j);
	fprintf(f, "<h3>Fabric messages not matched: %" PRIu64 "</h3>", total);
	if (n) {
		fputs("<table><thead><tr><th>status</th><th>message</th><th>sent in</th>"
		      "<th>received in</th></tr></thead><tbody>", f);
		for (size_t i = 0; i < n; i++) {
			const struct mt_join_problem *p = mt_join_problem(j, i);
			char m[128], a[96], b[96];

			problem_msg(p, m, sizeof(m));
			fputs("<tr>", f);
			html_cell(f, mt_match_status_str(p->msg.status));
			html_cell(f, m);
			html_cell(f, side_label(p, 0, a, sizeof(a)));
			html_cell(f, side_label(p, 1, b, sizeof(b)));
			fputs("</tr>", f);
		}
		fputs("</tbody></table>", f);
	}
	fprintf(f, "<h3>Fabric operations pending at the end: %zu</h3>", sum->n_pending);
	if (sum->n_pending) {
		fputs("<table><thead><tr><th>operation</th><th>posted in</th></tr>"
		      "</thead><tbody>", f);
		for (size_t i = 0; i < sum->n_pending; i++) {
			const struct mt_match_pending *p = &sum->pending[i];
			char op[128], c[96];

			pending_op(p, op, sizeof(op));
			fputs("<tr>", f);
			html_cell(f, op);
			html_cell(f, call_label(pending_call(run, p), c, sizeof(c)));
			fputs("</tr>", f);
		}
		fputs("</tbody></table>", f);
	}
	fputs("</section>\n", f);
}
