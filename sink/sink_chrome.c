/*
 * sink_chrome.c - `msgtrace export --chrome`: Chrome trace-event JSON for
 * the Perfetto UI (and chrome://tracing), written as a stream: memory does
 * not grow with the trace.
 *
 * Each process is a pid (named "rank N (host:pid)"); its tracks (tids) are
 * per thread that owns an endpoint, per direction (send, recv) and per lane:
 * fabric operations are nonblocking and overlap, while the slices of one
 * track must nest, so an operation goes to the first lane of its direction
 * that is free at its post time (LANES lanes, then the least busy one).
 * A slice ("X") spans post to completion; a flow ("s" then "f", bound to the
 * enclosing slice) joins each send to its receive. Operations never
 * completed (a hang) are slices "... (pending)" up to the end of the run.
 * Times are microseconds since the first record with ns precision. Slices
 * and flows, the bulk of the output, are formatted by hand into one buffer
 * per operation (printf cost three quarters of the export).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "mt_sink.h"
#include "tracks.h"

#define LANES 16		/* per thread and direction */
#define MIN_DUR_NS 2		/* a flow binds strictly inside its slice */

enum { DIR_SEND, DIR_RECV };

struct lane_set {
	uint64_t busy_until[LANES];
	uint32_t named;		/* bit per lane: thread_name written */
};

struct chrome {
	FILE *f;
	const struct mt_run *run;
	struct tracks tr;
	struct lane_set *lanes;	/* [global thread * 2 + dir] */
	uint64_t t0, flows, overlaps;
	int any;		/* an element was written: the next needs a comma */
};

/* One operation's JSON, built before one write. Everything appended is
 * bounded: fixed names, numbers of at most 20 digits. */
struct line {
	char b[640];
	size_t n;
};

static void l_str(struct line *l, const char *s)
{
	size_t k = strlen(s);

	memcpy(l->b + l->n, s, k);
	l->n += k;
}

static void l_u64(struct line *l, uint64_t v)
{
	char d[20];
	int i = 20;

	do
		d[--i] = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(l->b + l->n, d + i, (size_t)(20 - i));
	l->n += (size_t)(20 - i);
}

static void l_i64(struct line *l, int64_t v)
{
	if (v < 0)
		l_str(l, "-");
	l_u64(l, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

/* ns as microseconds with three decimals. */
static void l_us(struct line *l, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	l_u64(l, ns / 1000);
	l->b[l->n++] = '.';
	l->b[l->n++] = (char)('0' + frac / 100);
	l->b[l->n++] = (char)('0' + frac / 10 % 10);
	l->b[l->n++] = (char)('0' + frac % 10);
}

/* Starts a trace event written with stdio (metadata): a comma after the
 * previous one. */
static void ev(struct chrome *c)
{
	fputs(c->any ? ",\n{" : "{", c->f);
	c->any = 1;
}

/* Starts a trace event in l: a comma after the previous one. */
static void l_ev(struct chrome *c, struct line *l)
{
	l_str(l, c->any ? ",\n{" : "{");
	c->any = 1;
}

/* What time the process's trace covers, as its label (shown beside its
 * name) and in ns on the merged clock (window_start_ns: where its records
 * start, the window's start or the first record): whether it is a window
 * (ring) or ends early (a buffer filled), since no slice lies outside. */
static void span_meta(struct chrome *c, size_t p)
{
	struct mt_sink_span sp;
	char text[192], label[224];

	mt_sink_proc_span(&c->run->trace->procs[p], &sp);
	snprintf(label, sizeof(label), "trace %s",
		 mt_sink_span_text(&sp, c->run->t0_ns, text, sizeof(text)));
	ev(c);
	fprintf(c->f, "\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%zu,"
		"\"args\":{\"labels\":", p);
	mt_sink_esc_json(c->f, label);
	fprintf(c->f, ",\"first_ns\":%" PRId64 ",\"last_ns\":%" PRId64
		",\"window\":%s,\"window_start_ns\":%" PRId64 ",\"overwritten\":%"
		PRIu64 ",\"ended_early\":%s,\"lost\":%" PRIu64 "}}", sp.first_ns,
		sp.last_ns, sp.wrapped ? "true" : "false", mt_sink_span_start(&sp),
		sp.overwritten, sp.ended ? "true" : "false", sp.lost);
}

static void proc_meta(struct chrome *c, size_t p)
{
	const struct mt_trace_proc *pr = &c->run->trace->procs[p];
	char label[96], name[192];

	mt_sink_tracks_proc_label(c->run->trace, pr, label, sizeof(label));
	if (pr->key >= 0)
		snprintf(name, sizeof(name), "%s (%.63s:%u)", label, pr->host, pr->pid);
	else
		snprintf(name, sizeof(name), "%s", label);
	ev(c);
	fprintf(c->f, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,"
		"\"args\":{\"name\":", p);
	mt_sink_esc_json(c->f, name);
	fputs("}}", c->f);
	ev(c);
	fprintf(c->f, "\"ph\":\"M\",\"name\":\"process_sort_index\","
		"\"pid\":%zu,\"args\":{\"sort_index\":%zu}}", p, p);
	span_meta(c, p);
}

static enum mt_status chrome_init(void **state, FILE *out,
				  const struct mt_run *run, struct mt_err *err)
{
	struct chrome *c = calloc(1, sizeof(*c));

	*state = c;
	if (!c)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	c->f = out;
	c->run = run;
	c->t0 = run->t0_ns > 0 ? (uint64_t)run->t0_ns : 0;
	if (mt_sink_tracks_init(&c->tr, run->trace) ||
	    !(c->lanes = calloc(2 * c->tr.nthreads + 1, sizeof(*c->lanes)))) {
		mt_sink_tracks_fini(&c->tr);
		free(c);
		*state = NULL;
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	for (size_t p = 0; p < run->trace->nprocs; p++)
		proc_meta(c, p);
	return mt_sink_written(out, 0, err);
}

/* The track of an operation of [th, dir] over [t, end]: tid and, the first
 * time, its name. */
static unsigned lane_for(struct chrome *c, size_t th, int dir, uint64_t t,
			 uint64_t end, size_t proc)
{
	struct lane_set *ls = &c->lanes[th * 2 + dir];
	size_t local = th - c->tr.first[proc];
	unsigned best = 0, tid;

	for (unsigned i = 0; i < LANES; i++) {
		if (ls->busy_until[i] <= t) {
			best = i;
			goto found;
		}
		if (ls->busy_until[i] < ls->busy_until[best])
			best = i;
	}
	c->overlaps++;
found:
	if (end > ls->busy_until[best])
		ls->busy_until[best] = end;
	tid = (unsigned)((local * 2 + (unsigned)dir) * LANES + best + 1);
	if (!(ls->named & (1u << best))) {
		ls->named |= 1u << best;
		ev(c);
		fprintf(c->f, "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%zu,"
			"\"tid\":%u,\"args\":{\"name\":\"", proc, tid);
		if (local)
			fprintf(c->f, "thread %zu ", local);
		fprintf(c->f, "%s", dir == DIR_SEND ? "send" : "recv");
		if (best)
			fprintf(c->f, " %u", best + 1);
		fputs("\"}}", c->f);
		ev(c);
		fprintf(c->f, "\"ph\":\"M\",\"name\":\"thread_sort_index\","
			"\"pid\":%zu,\"tid\":%u,\"args\":{\"sort_index\":%u}}",
			proc, tid, tid);
	}
	return tid;
}

/* One side of a message, or an operation that never completed. */
struct side {
	int32_t ep, peer;		/* peer: process key or -1 */
	int dir;
	uint64_t post, done;		/* done: MT_MATCH_NOTIME if none */
	const struct mt_match_fields *f;
	uint64_t bytes;
	const char *status, *suffix;	/* suffix: of the slice name */
};

/* One operation's slice, and its flow end when flow; 0 when it has none. */
static int slice(struct chrome *c, const struct side *sd, int flow)
{
	size_t th = mt_sink_tracks_thread_of_ep(&c->tr, sd->ep);
	uint64_t post = sd->post, done = sd->done, dur;
	struct line l = { .n = 0 };
	size_t proc;
	unsigned tid;

	if (th == SIZE_MAX || post == MT_MATCH_NOTIME)
		return 0;
	post = post > c->t0 ? post - c->t0 : 0;
	done = done == MT_MATCH_NOTIME ? post : (done > c->t0 ? done - c->t0 : 0);
	dur = done > post + MIN_DUR_NS ? done - post : MIN_DUR_NS;
	proc = c->run->trace->eps[sd->ep].proc;
	tid = lane_for(c, th, sd->dir, post, post + dur, proc);
	l_ev(c, &l);
	l_str(&l, sd->dir == DIR_SEND ? "\"ph\":\"X\",\"name\":\"fi_tsend" :
	      "\"ph\":\"X\",\"name\":\"fi_trecv");
	l_str(&l, sd->suffix);
	l_str(&l, "\",\"cat\":\"");
	l_str(&l, mt_match_kind_str(sd->f->kind));
	l_str(&l, "\",\"pid\":");
	l_u64(&l, proc);
	l_str(&l, ",\"tid\":");
	l_u64(&l, tid);
	l_str(&l, ",\"ts\":");
	l_us(&l, post);
	l_str(&l, ",\"dur\":");
	l_us(&l, dur);
	l_str(&l, sd->dir == DIR_SEND ? ",\"args\":{\"to\":" : ",\"args\":{\"from\":");
	if (sd->peer >= 0 && mt_sink_rank_plain(c->run->trace, sd->peer)) {
		l_i64(&l, sd->peer);
	} else if (sd->peer >= 0) {
		char r[MT_SINK_RANK_LEN];

		l_str(&l, "\"");
		l_str(&l, mt_sink_rank(c->run->trace, sd->peer, r, sizeof(r)));
		l_str(&l, "\"");
	} else {
		l_str(&l, "null");
	}
	l_str(&l, ",\"cid\":");
	l_i64(&l, sd->f->cid);
	l_str(&l, ",\"tag\":");
	if (sd->f->has_tag)
		l_i64(&l, sd->f->tag);
	else
		l_str(&l, "null");
	l_str(&l, ",\"bytes\":");
	l_u64(&l, sd->bytes);
	l_str(&l, ",\"status\":\"");
	l_str(&l, sd->status);
	l_str(&l, "\"}}");
	if (flow) {
		l_ev(c, &l);
		l_str(&l, sd->dir == DIR_SEND ? "\"ph\":\"s\"" : "\"ph\":\"f\"");
		l_str(&l, ",\"bp\":\"e\",\"name\":\"message\",\"cat\":\"msg\",\"id\":");
		l_u64(&l, c->flows);
		l_str(&l, ",\"pid\":");
		l_u64(&l, proc);
		l_str(&l, ",\"tid\":");
		l_u64(&l, tid);
		l_str(&l, ",\"ts\":");
		l_us(&l, post + dur / 2);
		l_str(&l, "}");
	}
	fwrite(l.b, 1, l.n, c->f);
	return 1;
}

static void msg_slices(struct chrome *c, const struct mt_match_msg *m, int flow)
{
	const char *st = mt_match_status_str(m->status);
	const char *sfx = m->status == MT_MATCH_ST_CANCELLED ? " (cancelled)" : "";
	struct side send = {
		.ep = m->send_ep, .peer = m->recv_rank, .dir = DIR_SEND,
		.post = m->t_send_post, .done = m->t_send_done, .f = &m->f,
		.bytes = m->bytes, .status = st, .suffix = sfx,
	}, recv = {
		.ep = m->recv_ep, .peer = m->send_rank, .dir = DIR_RECV,
		.post = m->t_recv_post, .done = m->t_recv_done, .f = &m->f,
		.bytes = m->bytes, .status = st, .suffix = sfx,
	};

	slice(c, &send, flow);
	slice(c, &recv, flow);
}

static enum mt_status chrome_consume(void *state, const struct mt_match_msg *b,
				     size_t n, struct mt_err *err)
{
	struct chrome *c = state;

	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &b[i];
		int both = mt_sink_tracks_thread_of_ep(&c->tr, m->send_ep) != SIZE_MAX &&
			   mt_sink_tracks_thread_of_ep(&c->tr, m->recv_ep) != SIZE_MAX &&
			   m->t_send_post != MT_MATCH_NOTIME &&
			   m->t_recv_post != MT_MATCH_NOTIME &&
			   m->status != MT_MATCH_ST_CANCELLED;

		c->flows += both;
		msg_slices(c, m, both);
	}
	return mt_sink_written(c->f, 0, err);
}

static enum mt_status chrome_finalize(void *state, const struct mt_run *run,
				      const struct mt_match_summary *sum,
				      struct mt_err *err)
{
	struct chrome *c = state;
	enum mt_status rc;

	/* Operations never completed (a hang): a slice to the end of the run. */
	for (size_t i = 0; i < sum->n_pending; i++) {
		const struct mt_match_pending *p = &sum->pending[i];
		struct side sd = {
			.ep = p->op.ep, .peer = p->peer_rank,
			.dir = p->op.dir == MT_MATCH_DIR_SEND ? DIR_SEND : DIR_RECV,
			.post = p->op.ts, .done = (uint64_t)run->t1_ns, .f = &p->op.f,
			.bytes = p->op.len, .status = "pending", .suffix = " (pending)",
		};

		slice(c, &sd, 0);
	}
	fprintf(c->f, "\n],\"otherData\":{\"creator\":\"msgtrace\",\"records\":%"
		PRIu64 ",\"messages_with_flow\":%" PRIu64 ",\"lane_overlaps\":%"
		PRIu64 "}}\n", run->events, c->flows, c->overlaps);
	rc = mt_sink_written(c->f, 1, err);
	if (c->overlaps)
		mt_note_say(run->note, "%" PRIu64 " operations share a track lane "
			    "with an overlapping one (more than %d in flight per "
			    "thread and direction)", c->overlaps, LANES);
	mt_sink_tracks_fini(&c->tr);
	free(c->lanes);
	free(c);
	return rc;
}

const struct mt_sink_ops mt_sink_chrome = {
	.key = "chrome",
	.name = "Chrome JSON",
	.init = chrome_init,
	.consume = chrome_consume,
	.finalize = chrome_finalize,
};
