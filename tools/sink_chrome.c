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
 * enclosing slice) joins each send to its receive. Times are microseconds
 * since the first record with ns precision.
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

/* Starts a trace event: a comma after the previous one. */
static void ev(struct chrome *c)
{
	fputs(c->any ? ",\n{" : "{", c->f);
	c->any = 1;
}

static void ts_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

static void proc_meta(struct chrome *c, size_t p)
{
	const struct mt_trace_proc *pr = &c->run->trace->procs[p];
	char label[96], name[192];

	tracks_proc_label(pr, label, sizeof(label));
	if (pr->world_rank >= 0)
		snprintf(name, sizeof(name), "%s (%.63s:%u)", label, pr->host, pr->pid);
	else
		snprintf(name, sizeof(name), "%s", label);
	ev(c);
	fprintf(c->f, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,"
		"\"args\":{\"name\":", p);
	esc_json(c->f, name);
	fputs("}}", c->f);
	ev(c);
	fprintf(c->f, "\"ph\":\"M\",\"name\":\"process_sort_index\","
		"\"pid\":%zu,\"args\":{\"sort_index\":%zu}}", p, p);
}

static int chrome_init(void **state, FILE *out, const struct mt_run *run)
{
	struct chrome *c = calloc(1, sizeof(*c));

	*state = c;
	if (!c)
		return -1;
	c->f = out;
	c->run = run;
	c->t0 = run->t0_ns > 0 ? (uint64_t)run->t0_ns : 0;
	if (tracks_init(&c->tr, run->trace) ||
	    !(c->lanes = calloc(2 * c->tr.nthreads + 1, sizeof(*c->lanes)))) {
		tracks_fini(&c->tr);
		free(c);
		*state = NULL;
		return -1;
	}
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	for (size_t p = 0; p < run->trace->nprocs; p++)
		proc_meta(c, p);
	return ferror(out) ? -1 : 0;
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

/* One operation's slice (and its flow end); returns 0 when it has none. */
static int slice(struct chrome *c, const struct mt_match_msg *m, int dir,
		 int flow)
{
	int32_t ep = dir == DIR_SEND ? m->send_ep : m->recv_ep;
	uint64_t post = dir == DIR_SEND ? m->t_send_post : m->t_recv_post;
	uint64_t done = dir == DIR_SEND ? m->t_send_done : m->t_recv_done;
	size_t th = tracks_thread_of_ep(&c->tr, ep);
	int32_t peer = dir == DIR_SEND ? m->recv_rank : m->send_rank;
	uint64_t dur, mid;
	size_t proc;
	unsigned tid;

	if (th == SIZE_MAX || post == MT_MATCH_NOTIME)
		return 0;
	post = post > c->t0 ? post - c->t0 : 0;
	done = done == MT_MATCH_NOTIME ? post : (done > c->t0 ? done - c->t0 : 0);
	dur = done > post + MIN_DUR_NS ? done - post : MIN_DUR_NS;
	proc = c->run->trace->eps[ep].proc;
	tid = lane_for(c, th, dir, post, post + dur, proc);
	ev(c);
	fprintf(c->f, "\"ph\":\"X\",\"name\":\"%s%s\",\"cat\":\"%s\",\"pid\":%zu,"
		"\"tid\":%u,\"ts\":", dir == DIR_SEND ? "fi_tsend" : "fi_trecv",
		m->status == MT_MATCH_ST_CANCELLED ? " (cancelled)" : "",
		mt_match_kind_str(m->f.kind), proc, tid);
	ts_us(c->f, post);
	fputs(",\"dur\":", c->f);
	ts_us(c->f, dur);
	fprintf(c->f, ",\"args\":{\"%s\":", dir == DIR_SEND ? "to" : "from");
	if (peer >= 0)
		fprintf(c->f, "%d", peer);
	else
		fputs("null", c->f);
	fprintf(c->f, ",\"cid\":%" PRId64 ",\"tag\":", m->f.cid);
	if (m->f.has_tag)
		fprintf(c->f, "%d", m->f.tag);
	else
		fputs("null", c->f);
	fprintf(c->f, ",\"bytes\":%" PRIu64 ",\"status\":\"%s\"}}", m->bytes,
		mt_match_status_str(m->status));
	if (flow) {
		mid = post + dur / 2;
		ev(c);
		fprintf(c->f, "\"ph\":\"%s\",\"bp\":\"e\",\"name\":\"message\","
			"\"cat\":\"msg\",\"id\":%" PRIu64 ",\"pid\":%zu,\"tid\":%u,"
			"\"ts\":", dir == DIR_SEND ? "s" : "f", c->flows, proc, tid);
		ts_us(c->f, mid);
		fputc('}', c->f);
	}
	return 1;
}

static int chrome_consume(void *state, const struct mt_match_msg *b, size_t n)
{
	struct chrome *c = state;

	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &b[i];
		int both = tracks_thread_of_ep(&c->tr, m->send_ep) != SIZE_MAX &&
			   tracks_thread_of_ep(&c->tr, m->recv_ep) != SIZE_MAX &&
			   m->t_send_post != MT_MATCH_NOTIME &&
			   m->t_recv_post != MT_MATCH_NOTIME &&
			   m->status != MT_MATCH_ST_CANCELLED;

		c->flows += both;
		slice(c, m, DIR_SEND, both);
		slice(c, m, DIR_RECV, both);
	}
	return ferror(c->f) ? -1 : 0;
}

static int chrome_finalize(void *state, const struct mt_run *run,
			   const struct mt_match_summary *sum)
{
	struct chrome *c = state;
	int rc;

	(void)sum;
	fprintf(c->f, "\n],\"otherData\":{\"creator\":\"msgtrace\",\"records\":%"
		PRIu64 ",\"messages_with_flow\":%" PRIu64 ",\"lane_overlaps\":%"
		PRIu64 "}}\n", run->events, c->flows, c->overlaps);
	rc = fflush(c->f) || ferror(c->f) ? -1 : 0;
	if (c->overlaps)
		fprintf(stderr, "msgtrace export: %" PRIu64 " operations share a "
			"track lane with an overlapping one (more than %d in flight "
			"per thread and direction)\n", c->overlaps, LANES);
	tracks_fini(&c->tr);
	free(c->lanes);
	free(c);
	return rc;
}

const struct mt_sink_ops mt_sink_chrome = {
	.name = "Chrome JSON",
	.init = chrome_init,
	.consume = chrome_consume,
	.finalize = chrome_finalize,
};
