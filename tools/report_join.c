/*
 * report_join.c - `msgtrace report FABRIC... ARCHIVE`: the fabric trace's
 * report, then the joined view (mt_join.h): each rank's clock alignment
 * and, per MPI call kind of the archive, the fabric messages its calls
 * made. Messages reach the join through a sink that hands every batch to
 * the report's sink as well.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "mt_join.h"
#include "mt_otf2in.h"

#define PENDING_SHOWN 8	/* pending operations listed with their calls */

struct tee {
	const struct mt_sink_ops *sink;	/* the report's */
	struct mt_match_pending pending[PENDING_SHOWN];	/* the first ones */
	size_t npending, pending_total;
	void *state;
	struct mt_join *j;
	const struct mt_otf2in_calls *calls;
	size_t nprocs;
	const char *archive;
};

/* The tee's state for the one run of the command (sinks get it through
 * mt_pipe_opts.sink_arg). */
static enum mt_status tee_init(void **state, FILE *out, const struct mt_run *run,
			       struct mt_err *err)
{
	struct tee *t = *state;
	enum mt_status s = mt_join_new(t->calls, t->nprocs, run->nranks,
				       &t->j, err);

	if (s) {
		if (s == MT_ERR_ARG)	/* err says why: name the file */
			mt_err_set(err, s, "%s: %.3900s", t->archive, err->msg);
		return s;
	}
	t->state = NULL;
	return t->sink->init(&t->state, out, run, err);
}

static enum mt_status tee_consume(void *state, const struct mt_match_msg *b, size_t n,
				  struct mt_err *err)
{
	struct tee *t = state;

	if (mt_join_add(t->j, b, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	return t->sink->consume(t->state, b, n, err);
}

static enum mt_status tee_finalize(void *state, const struct mt_run *run,
				   const struct mt_match_summary *sum, struct mt_err *err)
{
	struct tee *t = state;

	/* Kept for the joined view, which is made after the run. */
	t->pending_total = sum->n_pending;
	t->npending = sum->n_pending < PENDING_SHOWN ? sum->n_pending : PENDING_SHOWN;
	memcpy(t->pending, sum->pending, t->npending * sizeof(*t->pending));
	return t->sink->finalize(t->state, run, sum, err);
}

static const struct mt_sink_ops tee_ops = {
	.key = "joined", .name = "joined report",
	.init = tee_init, .consume = tee_consume, .finalize = tee_finalize,
};

static double sec(uint64_t ns)
{
	return (double)ns / 1e9;
}

static void print_align(FILE *out, const struct mt_join *j)
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

static void print_kinds(FILE *out, const struct mt_join *j)
{
	fprintf(out, "\n%-22s %12s %7s %12s %8s %8s %12s %12s %12s %7s\n",
		"MPI call", "size", "calls", "in calls s", "fab msgs", "matched",
		"bytes", "sizes", "on wire s", "recvs");
	for (size_t i = 0; i < mt_join_nkinds(j); i++) {
		const struct mt_join_kind *k = mt_join_kind(j, i);
		char size[24] = "-", sizes[40] = "-";

		if (!k->name && !k->sent && !k->recvs)
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

static const char *call_name(const struct mt_otf2in_call *c, char *buf, size_t len)
{
	if (!c)
		return "no MPI call";
	if (c->has_bytes)
		snprintf(buf, len, "%s (%" PRIu64 " B)", c->name, c->bytes);
	else
		snprintf(buf, len, "%s", c->name);
	return buf;
}

static void print_problems(FILE *out, const struct mt_join *j)
{
	uint64_t total;
	size_t n = mt_join_nproblems(j, &total);

	fprintf(out, "\nFabric messages not matched, with their MPI calls: %" PRIu64 "%s\n",
		total, total ? "" : " (none)");
	for (size_t i = 0; i < n; i++) {
		const struct mt_join_problem *p = mt_join_problem(j, i);
		char a[96], b[96];

		fprintf(out, "  %s: %s %" PRIu64 " B rank %d -> %d tag %d, sent in %s, "
			"received in %s\n", mt_match_status_str(p->msg.status),
			mt_match_kind_str(p->msg.f.kind), p->msg.bytes, p->msg.send_rank,
			p->msg.recv_rank, p->msg.f.tag,
			p->msg.t_send_post != MT_MATCH_NOTIME ?
			call_name(p->send_call, a, sizeof(a)) : "- (no send)",
			p->msg.t_recv_post != MT_MATCH_NOTIME ?
			call_name(p->recv_call, b, sizeof(b)) : "- (no receive)");
	}
}

/* The operations pending at the end (a hang's, or the library's own left
 * posted), each with the MPI call it was posted in. */
static void print_pending(FILE *out, const struct mt_join *j, const struct tee *t)
{
	fprintf(out, "\nFabric operations pending at the end, with their MPI calls: "
		"%zu%s\n", t->pending_total, t->pending_total ? "" : " (none)");
	for (size_t i = 0; i < t->npending; i++) {
		const struct mt_match_pending *p = &t->pending[i];
		char c[96], tag[16] = "any";

		if (p->op.f.has_tag)
			snprintf(tag, sizeof(tag), "%d", p->op.f.tag);
		fprintf(out, "  rank %d %s %s %" PRIu64 " B %s rank %d tag %s, posted in %s\n",
			p->rank, p->op.dir == MT_MATCH_DIR_SEND ? "send" : "receive",
			mt_match_kind_str(p->op.f.kind), p->op.len,
			p->op.dir == MT_MATCH_DIR_SEND ? "to" : "from", p->peer_rank, tag,
			call_name(mt_join_call_at(j, p->rank, p->op.ts), c, sizeof(c)));
	}
}

static void print_joined(FILE *out, const struct mt_join *j, const struct tee *t,
			 const char *archive)
{
	fprintf(out, "\nJOINED VIEW  (MPI calls of %s)\n", archive);
	print_align(out, j);
	print_kinds(out, j);
	fprintf(out, "(fab msgs: fabric messages sent inside the calls; matched: of "
		"those; on wire: receive completion minus send post, matched ones; "
		"recvs: fabric receives posted inside)\n");
	print_problems(out, j);
	print_pending(out, j, t);
}

int mt_cmd_report_joined(const char *cmd, struct mt_pipe_opts *o,
			 const struct mt_sink_ops *sink, FILE *out)
{
	const char *archive = o->paths[o->npaths - 1];
	struct mt_err err = { { 0 } };
	struct mt_otf2in *in = NULL;
	struct mt_otf2in_calls calls = { 0 };
	struct tee t = { .sink = sink, .archive = archive };
	int rc = MT_EXIT_BAD_INPUT;

	if (sink != &mt_sink_text) {
		fprintf(stderr, "%s: the joined view (a fabric trace and an OTF2 "
			"archive) is text only\n", cmd);
		return MT_EXIT_USAGE;
	}
	for (size_t i = 0; i + 1 < o->npaths; i++)
		if (mt_otf2in_is_archive(o->paths[i])) {
			fprintf(stderr, "%s: %s: the joined view takes fabric traces "
				"and one OTF2 archive, last\n", cmd, o->paths[i]);
			return MT_EXIT_USAGE;
		}
	if (mt_otf2in_open(archive, &in, &err) ||
	    mt_otf2in_calls(in, &calls, &err)) {
		mt_cmd_say((void *)cmd, err.msg);
		goto out;
	}
	t.calls = &calls;
	t.nprocs = mt_otf2in_trace(in)->nprocs;
	o->npaths--;
	o->sink_arg = &t;
	if ((rc = mt_cmd_pipe_run(cmd, o, &tee_ops, out)))
		goto out;
	if (mt_join_finish(t.j, &err)) {
		fprintf(stderr, "%s: %s: %s\n", cmd, archive, err.msg);
		rc = MT_EXIT_BAD_INPUT;
		goto out;
	}
	print_joined(out, t.j, &t, archive);
out:
	mt_join_free(t.j);
	mt_otf2in_calls_free(&calls);
	mt_otf2in_close(in);
	return rc;
}
