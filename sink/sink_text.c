/*
 * sink_text.c - `msgtrace report`: the run, per-pair traffic, sizes,
 * bandwidth, throughput over time, warnings, pending operations and clock
 * correction, in under 80 columns.
 */
#define _GNU_SOURCE /* qsort_r */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "joined.h"
#include "report.h"
#include "mt_sink.h"

#define TOP_PAIRS 16		/* pairs listed, by bytes */
#define MATRIX_MAX 12		/* ranks up to which the matrix is drawn */

/* One line per job when there are several: which ranks are its, and
 * whether it was spawned in an earlier job's launch or launched apart. */
static void jobs_lines(FILE *o, const struct mt_trace *t)
{
	for (size_t j = 0; j < t->njobs; j++) {
		const struct mt_trace_job *jb = &t->jobs[j];
		char id[4 * sizeof(jb->id) + 1], a[MT_SINK_RANK_LEN], b[MT_SINK_RANK_LEN];

		fprintf(o, "  job %zu: id %s, %zu process%s", j,
			jb->id[0] ? mt_sink_name_text(id, sizeof(id), jb->id,
						      sizeof(jb->id)) : "?",
			jb->nprocs, jb->nprocs == 1 ? "" : "es");
		if (jb->span)
			fprintf(o, ", ranks %s-%s", mt_sink_rank(t, jb->base, a, sizeof(a)),
				mt_sink_rank(t, jb->base + jb->span - 1, b, sizeof(b)));
		if (jb->launch != j)
			fprintf(o, ", spawned in job %u's launch", jb->launch);
		else if (j)
			fprintf(o, ", launched apart");
		fputc('\n', o);
	}
	if (t->nlaunches > 1)
		fprintf(o, "  %zu unrelated launches in one trace: kept apart\n",
			t->nlaunches);
}

/* The ranks job j's PROC records count (world size) that no process of
 * the trace is, as ranges "2-3,7" in buf (cut with ",..."); how many. No
 * process of the trace has them, so they are ranks, not keys a trace names.
 * *size: the world size, -1 when unknown (a size beyond 2^20 is corrupt). */
static size_t missing_ranks(const struct mt_trace *t, uint32_t j, int32_t *size,
			    char *buf, size_t len)
{
	unsigned char *seen;
	size_t n = 0, k = 0;
	int32_t ws = -1;

	buf[0] = 0;
	for (size_t p = 0; p < t->nprocs; p++)
		if (t->procs[p].job == j && t->procs[p].rec &&
		    t->procs[p].rec->world_size > ws)
			ws = t->procs[p].rec->world_size;
	*size = ws;
	if (ws <= 0 || ws > 1 << 20 || !(seen = calloc((size_t)ws, 1)))
		return 0;
	for (size_t p = 0; p < t->nprocs; p++) {
		int32_t r = t->procs[p].world_rank;

		if (t->procs[p].job == j && r >= 0 && r < ws)
			seen[r] = 1;
	}
	for (int32_t r = 0; r < ws; r++) {
		int32_t e = r;
		char one[32];

		if (seen[r])
			continue;
		while (e + 1 < ws && !seen[e + 1])
			e++;
		n += (size_t)(e - r + 1);
		snprintf(one, sizeof(one), e > r ? "%s%d-%d" : "%s%d", k ? "," : "", r, e);
		if (k + strlen(one) + 5 < len)
			k += (size_t)snprintf(buf + k, len - k, "%s", one);
		else if (k + 5 <= len && !strstr(buf, ",..."))
			k += (size_t)snprintf(buf + k, len - k, ",...");
		r = e;
	}
	free(seen);
	return n;
}

/* Ranks a job counts that left no trace: a host's directory not given, or
 * a process that never opened libfabric. */
static void missing_lines(FILE *o, const struct mt_trace *t)
{
	for (uint32_t j = 0; j < t->njobs; j++) {
		char buf[MT_SINK_RANKS_WIDTH];
		int32_t size;
		size_t n = missing_ranks(t, j, &size, buf, sizeof(buf));

		if (!n)
			continue;
		fprintf(o, "  ");
		if (t->njobs > 1)
			fprintf(o, "job %u: ", j);
		fprintf(o, "rank%s %s of %d left no trace (a host's directory not "
			"given?)\n", n == 1 ? "" : "s", buf, size);
	}
}

#define NOSITE_ROWS 4		/* processes listed that recorded no call site */

/* When some processes recorded call sites and others none (the option set
 * on some hosts only): which recorded none, so that a message naming one
 * side's call site alone is read right. */
static void nosite_line(FILE *o, const struct mt_trace *t)
{
	size_t without, shown = 0;
	unsigned char *has = mt_sink_site_procs(t, &without);

	if (!has)
		return;
	fprintf(o, "  no call sites recorded by %zu of %zu processes:", without,
		t->nprocs);
	for (size_t p = 0; p < t->nprocs; p++) {
		char k[MT_SINK_RANK_LEN], h[MT_NAME_TEXT_LEN(t->procs[p].host)];

		if (has[p])
			continue;
		if (shown++ == NOSITE_ROWS) {
			fputs(", ...", o);
			break;
		}
		fprintf(o, "%s rank %s on %s", shown > 1 ? "," : "",
			mt_sink_rank(t, t->procs[p].key, k, sizeof(k)),
			mt_sink_name_text(h, sizeof(h), t->procs[p].host,
					  sizeof(t->procs[p].host)));
	}
	fputc('\n', o);
	free(has);
}

#define SPAN_ROWS 8		/* ranks listed whose trace ends early, or
				 * is a window */

/* One rank's line under TRACE ENDS EARLY (windows 0) or TRACE WINDOWS. */
static void span_line(FILE *o, const struct report *r, int32_t key,
		      const struct mt_sink_span *sp, int windows)
{
	char k[MT_SINK_RANK_LEN];

	mt_sink_rank(r->trace, key, k, sizeof(k));
	if (windows)
		fprintf(o, "  rank %s's trace covers %.6f to %.6f s; %" PRIu64
			" records overwritten\n", k,
			mt_sink_report_sec(r, (uint64_t)sp->window_ns),
			mt_sink_report_sec(r, (uint64_t)sp->last_ns), sp->overwritten);
	else
		fprintf(o, "  rank %s's trace ends at %.6f s; %" PRIu64
			" records lost after it\n", k,
			mt_sink_report_sec(r, (uint64_t)sp->end_ns), sp->lost);
}

/* The ranks whose trace ends early (windows 0: a buffer filled while the
 * job went on), or is a window (ring mode), under title, the first
 * SPAN_ROWS of them. Returns how many there are. */
static size_t span_rows(FILE *o, const struct report *r, const char *title,
			int windows)
{
	const struct mt_trace *t = r->trace;
	size_t n = 0;

	for (size_t p = 0; p < t->nprocs; p++) {
		struct mt_sink_span sp;

		mt_sink_proc_span(&t->procs[p], &sp);
		if (!(windows ? sp.wrapped : sp.ended))
			continue;
		if (!n++)
			fprintf(o, "%s\n", title);
		if (n <= SPAN_ROWS)
			span_line(o, r, t->procs[p].key, &sp, windows);
	}
	if (n > SPAN_ROWS)
		fprintf(o, "  ... %zu more ranks (see --json)\n", n - SPAN_ROWS);
	return n;
}

/* First of all: the ranks whose trace stops before the job did, since
 * every later section sees nothing of them past that time. */
static void ended_section(FILE *o, const struct report *r)
{
	size_t n = span_rows(o, r, "TRACE ENDS EARLY: a buffer filled, records "
			     "were lost, the job went on", 0);

	if (n)
		fprintf(o, "  Nothing later is known of %s: operations pending where a trace\n"
			"  ends are no hang evidence. FI_OFI_HOOK_MSGTRACE_MODE=ring keeps the\n"
			"  latest records instead.\n\n", n == 1 ? "it" : "them");
}

static int root_lines(FILE *o, const struct report *r,
		      const struct mt_match_summary *s,
		      const struct mt_match_hang *h,
		      const struct mt_match_root *rt);

/* Ranks whose threads kept only their latest records (ring mode): what
 * time each trace covers, before anything is concluded from it, and the
 * root of a hang at the windows' end, which is what they are kept for. */
static void window_section(FILE *o, const struct report *r,
			   const struct mt_match_summary *sum,
			   const struct mt_match_hang *h)
{
	if (!span_rows(o, r, "TRACE WINDOWS: these ranks kept their latest "
		       "records only (ring)", 1))
		return;
	if (h && h->n_roots) {
		fprintf(o, "  at their end (PENDING below has the rest):\n");
		root_lines(o, r, sum, h, &h->roots[0]);
	}
	fputc('\n', o);
}

static void layout_line(FILE *o, const struct mt_run *run,
			const struct mt_tag_layout *l)
{
	fprintf(o, "  layout %s, %s confidence: cid %u", l->name,
		mt_tag_confidence_name(run->layout_conf), l->cid_bits);
	if (l->cid_usable_bits != l->cid_bits)
		fprintf(o, " (%u usable)", l->cid_usable_bits);
	if (l->src_in == MT_SRC_DATA)
		fprintf(o, ", source in CQ data");
	else if (l->src_in == MT_SRC_TAG)
		fprintf(o, ", source %u", l->src_bits);
	fprintf(o, ", tag %u bits\n", l->tag_bits);
}

static void run_section(FILE *o, const struct mt_run *run)
{
	const struct mt_tag_layout *l = &run->layout;
	const struct mt_trace *t = run->trace;
	char who[96];

	mt_sink_run_who(run, who, sizeof(who));
	fprintf(o, "RUN\n  %s on %zu host%s, provider %s, fabric %s\n", who,
		run->nhosts, run->nhosts == 1 ? "" : "s",
		run->provider[0] ? run->provider : "?",
		run->fabric[0] ? run->fabric : "?");
	if (t->njobs > 1)
		jobs_lines(o, t);
	if (run->mpi_level)
		fputs("  MPI calls from an OTF2 archive: communicator, rank and tag "
		      "as recorded\n", o);
	else
		layout_line(o, run, l);
	if (run->layouts_differ)
		fprintf(o, "  %zu endpoints use another layout\n", run->layouts_differ);
	if (run->providers_differ)
		fprintf(o, "  %zu endpoint%s use%s another provider: %s on %s%s\n",
			run->providers_differ, run->providers_differ == 1 ? "" : "s",
			run->providers_differ == 1 ? "s" : "", run->other_provider,
			run->other_provider_host[0] ? run->other_provider_host : "?",
			run->other_providers_more ? " and others" : "");
	fprintf(o, "  duration %.6f s, %" PRIu64 " records, %" PRIu64 " lost\n",
		((double)run->t1_ns - (double)run->t0_ns) / 1e9, run->events,
		run->lost);
	if (run->live_files)
		fprintf(o, "  %zu file%s still being written (the job runs)\n",
			run->live_files, run->live_files == 1 ? "" : "s");
	if (run->unclean_files)
		fprintf(o, "  %zu file%s not closed (killed or aborted)\n",
			run->unclean_files, run->unclean_files == 1 ? "" : "s");
	if (run->skipped)
		fprintf(o, "  %" PRIu64 " operations on endpoints never enabled "
			"were skipped\n", run->skipped);
	missing_lines(o, t);
	nosite_line(o, t);
}

/* Receives posted and no send in the trace, explained by the MPI the
 * layout shows: MPICH's ch4 moves messages between ranks of one host
 * through its shared memory (only its MPI_ANY_SOURCE receives reach
 * libfabric); Open MPI's OFI MTL hands every message to libfabric, so none
 * was sent while traced; with no layout detected, the trace does not say
 * which MPI it is, and both causes stay open. */
static void bypass_note(FILE *o, const struct mt_run *run, const struct report *r,
			const struct mt_match_summary *s)
{
	uint64_t recvs = mt_sink_report_bypassed(r, s);
	int known = run->layout_conf != MT_CONF_NONE &&
		    run->layout.id != MT_TAG_LAYOUT_RAW;

	if (!recvs)
		return;
	fprintf(o, "  no send reached libfabric, yet %" PRIu64 " receives were "
		"posted", recvs);
	if (known && run->layout.internal == MT_INT_ODD_CID)
		fprintf(o, ": the messages\n  went another way. MPICH moves messages "
			"between ranks of one host through\n  its shared memory; "
			"MPIR_CVAR_NOLOCAL=1 (or MPICH configured\n"
			"  --with-ch4-shmmods=none) sends them through libfabric\n");
	else if (known && run->layout.internal == MT_INT_NEG_TAG)
		fprintf(o, ".\n  Open MPI's OFI MTL hands every message to libfabric: "
			"none was sent\n  while traced (the job ended, or its trace "
			"was cut, before its first send)\n");
	else
		fprintf(o, ", and the trace\n  does not show which MPI posted them "
			"(layout %s): either no message\n  was sent while traced, or "
			"the messages went another way (an MPI's\n  shared memory)\n",
			run->layout.name);
}

static void totals_section(FILE *o, const struct mt_run *run,
			   const struct report *r, const struct mt_match_summary *s)
{
	char b[16];

	fprintf(o, "\nMESSAGES (cancelled operations not counted)\n  %" PRIu64
		" messages, %s:", r->msgs,
		mt_sink_report_human(r->bytes, b, sizeof(b)));
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)	/* 4 a line */
		fprintf(o, " %" PRIu64 " %s%s", r->kind[k], mt_match_kind_str(k),
			k + 1 == MT_MATCH_KIND_COUNT ? "\n" :
			k % 4 == 3 ? ",\n " : ",");
	fprintf(o, " ");
	for (unsigned st = 0; st < MT_MATCH_ST_COUNT; st++)	/* 3 a line */
		fprintf(o, " %" PRIu64 " %s%s", s->by_status[st],
			mt_match_status_str(st), st + 1 == MT_MATCH_ST_COUNT ? "\n" :
			st % 3 == 2 ? ",\n " : ",");
	fprintf(o, "  probes %" PRIu64 " (%" PRIu64 " hit, %" PRIu64 " missed), "
		"%" PRIu64 " claimed by mprobe\n", s->probes, s->probe_hits,
		s->probe_misses, s->claims);
	if (s->before_window)
		fprintf(o, "  %" PRIu64 " operations whose partner or post lies before a "
			"trace window\n  (not counted above)\n", s->before_window);
	bypass_note(o, run, r, s);
}

static int by_bytes(const void *a, const void *b, void *arg)
{
	const struct report_cell *p = arg;
	const size_t *x = a, *y = b;
	uint64_t bx = p[*x].bytes[0] + p[*x].bytes[1];
	uint64_t by = p[*y].bytes[0] + p[*y].bytes[1];

	return bx < by ? 1 : bx > by ? -1 : (*x > *y) - (*x < *y);
}

/* A pair's hosts as the PAIRS table's last column: "  hA" inside a host,
 * "  hA -> hB" between two; "" with one host. */
static void pair_hosts(const struct report *r, int64_t from, int64_t to,
		       char *buf, size_t len)
{
	const char *a = mt_sink_report_host(r, from), *b = mt_sink_report_host(r, to);
	char x[24], y[24];

	if (!r->host)
		return;
	mt_sink_name_text(x, sizeof(x), a ? a : "?", strlen(a ? a : "?"));
	mt_sink_name_text(y, sizeof(y), b ? b : "?", strlen(b ? b : "?"));
	if (a && b && !strcmp(a, b))
		snprintf(buf, len, "  %s", x);
	else
		snprintf(buf, len, "  %s -> %s", x, y);
}

/* Across hosts: the traffic inside a host and between hosts, apart. */
static void where_lines(FILE *o, const struct report *r)
{
	static const char *const what[2] = { "inside a host", "between hosts" };

	if (!r->host)
		return;
	for (int w = 0; w < 2; w++) {
		const struct report_cell *c = &r->where[w];
		char ub[16], ib[16];

		fprintf(o, "  %-14s %9" PRIu64 " %11s %9" PRIu64 " %11s %10.1f\n",
			what[w], c->msgs[0], mt_sink_report_human(c->bytes[0], ub, sizeof(ub)),
			c->msgs[1], mt_sink_report_human(c->bytes[1], ib, sizeof(ib)),
			mt_sink_report_mbps(c->bw_bytes, c->bw_ns));
	}
}

/* Messages whose other side is in no file of the trace (a rank that left
 * no trace, or an address no process recorded), and the ranks they were
 * of: who was talking to what is missing. */
static void no_peer_line(FILE *o, const struct report *r)
{
	char buf[160], a[MT_SINK_RANK_LEN];
	size_t k = 0, shown = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->n && k < sizeof(buf); i++) {
		if (!r->no_peer[i])
			continue;
		if (shown++ == 8) {
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, ", ...");
			break;
		}
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%s (%" PRIu64 ")",
				      k ? ", " : "", mt_sink_rank(r->trace, (int64_t)i, a,
								    sizeof(a)),
				      r->no_peer[i]);
	}
	fprintf(o, "  %" PRIu64 " messages with a side of unknown rank%s%s\n",
		r->no_rank, shown ? ", of ranks " : "", buf);
}

static void pairs_section(FILE *o, struct report *r)
{
	size_t n = r->n, k = r->npairs, *idx = malloc((k + 1) * sizeof(*idx));
	char ub[16], ib[16], lab[MT_SINK_RANK_LEN];
	/* JOB:RANK pairs ("1:0 -> 1:1") need more room than one job's, and
	 * forks ("0+f1 -> 1+f1") more still. */
	int w = (r->trace && r->trace->njobs > 1 ? 14 : 9) +
		(r->trace && r->trace->nforks ? 6 : 0);

	if (!idx)
		return;
	if (k)
		memcpy(idx, mt_sink_report_pairs(r), k * sizeof(*idx));
	qsort_r(idx, k, sizeof(*idx), by_bytes, r->pair);
	fprintf(o, "\nPAIRS (sender -> receiver, by bytes; bandwidth = bytes over "
		"receive done\nminus send post, matched messages)\n");
	fprintf(o, "  %-*s %9s %11s %9s %11s %10s%s\n", w, "pair", "user", "user bytes",
		"internal", "int. bytes", "MB/s", r->host ? "  hosts" : "");
	for (size_t j = 0; j < k && j < TOP_PAIRS; j++) {
		const struct report_cell *c = &r->pair[idx[j]];
		char p[48], a[MT_SINK_RANK_LEN], b[MT_SINK_RANK_LEN], h[56] = "";

		snprintf(p, sizeof(p), "%s -> %s",
			 mt_sink_rank(r->trace, (int64_t)(idx[j] / n), a, sizeof(a)),
			 mt_sink_rank(r->trace, (int64_t)(idx[j] % n), b, sizeof(b)));
		pair_hosts(r, (int64_t)(idx[j] / n), (int64_t)(idx[j] % n), h, sizeof(h));
		fprintf(o, "  %-*s %9" PRIu64 " %11s %9" PRIu64 " %11s %10.1f%s\n", w, p,
			c->msgs[0], mt_sink_report_human(c->bytes[0], ub, sizeof(ub)), c->msgs[1],
			mt_sink_report_human(c->bytes[1], ib, sizeof(ib)),
			mt_sink_report_mbps(c->bw_bytes, c->bw_ns), h);
	}
	if (k > TOP_PAIRS)
		fprintf(o, "  ... %zu more pairs (--json lists all)\n", k - TOP_PAIRS);
	where_lines(o, r);
	if (r->no_rank)
		no_peer_line(o, r);
	free(idx);
	if (!n || n > MATRIX_MAX)
		return;
	fprintf(o, "\n  messages user+internal, row = sender\n  %4s", "");
	for (size_t d = 0; d < n; d++)
		fprintf(o, " %5s", mt_sink_rank(r->trace, (int64_t)d, lab, sizeof(lab)));
	fprintf(o, "\n");
	for (size_t s = 0; s < n; s++) {
		fprintf(o, "  %4s", mt_sink_rank(r->trace, (int64_t)s, lab, sizeof(lab)));
		for (size_t d = 0; d < n; d++) {
			const struct report_cell *c = &r->pair[s * n + d];

			fprintf(o, " %5" PRIu64, c->msgs[0] + c->msgs[1]);
		}
		fprintf(o, "\n");
	}
}

static void sizes_section(FILE *o, const struct report *r)
{
	char lab[16], b[16];

	fprintf(o, "\nMESSAGE SIZES (class = from this size to twice it)\n");
	fprintf(o, "  %-9s %9s %9s %11s %10s%s\n", "size", "user", "internal",
		"bytes", "MB/s", r->host ? "     inside    between" : "");
	for (unsigned c = 0; c < REPORT_CLASSES; c++) {
		const struct report_cell *x = &r->size[c];

		if (!(x->msgs[0] + x->msgs[1]))
			continue;
		fprintf(o, "  %-9s %9" PRIu64 " %9" PRIu64 " %11s %10.1f",
			mt_sink_report_class_label(c, lab, sizeof(lab)), x->msgs[0], x->msgs[1],
			mt_sink_report_human(x->bytes[0] + x->bytes[1], b, sizeof(b)),
			mt_sink_report_mbps(x->bw_bytes, x->bw_ns));
		/* MB/s inside a host and between hosts; "-": no such message. */
		for (int w = 0; r->host && w < 2; w++) {
			const struct report_cell *y = &r->size_where[w][c];

			if (y->msgs[0] + y->msgs[1])
				fprintf(o, " %10.1f", mt_sink_report_mbps(y->bw_bytes, y->bw_ns));
			else
				fprintf(o, " %10s", "-");
		}
		fputc('\n', o);
	}
}

static void time_section(FILE *o, const struct report *r)
{
	uint64_t max = 0;
	double w = ((double)r->t1 - (double)r->t0 + 1) / REPORT_BINS;

	for (int i = 0; i < REPORT_BINS; i++)
		max = r->bin_bytes[i] > max ? r->bin_bytes[i] : max;
	fprintf(o, "\nTHROUGHPUT OVER TIME (bytes received, all pairs)\n");
	for (int i = 0; i < REPORT_BINS && max; i++) {
		int bar = (int)(r->bin_bytes[i] * 40 / max);

		fprintf(o, "  %9.6f s %10.1f MB/s |%.*s\n", i * w / 1e9,
			mt_sink_report_mbps(r->bin_bytes[i], (uint64_t)w), bar,
			"########################################");
	}
}

#define WIDTH 80		/* columns the report fits in */

/* Prints prefix and text, the text broken after a ", " wherever a line
 * would pass WIDTH columns; continuation lines are indented by cont.
 * Returns the lines it takes; o NULL only counts them. */
static int wrapped(FILE *o, const char *prefix, int cont, const char *text)
{
	int col = (int)strlen(prefix), lines = 1;

	if (o)
		fputs(prefix, o);
	while (col + (int)strlen(text) > WIDTH) {
		const char *cut = NULL, *p;

		for (p = strstr(text, ", "); p && col + (p - text) + 1 <= WIDTH;
		     p = strstr(p + 1, ", "))
			cut = p;
		if (!cut)
			break;
		if (o)
			fprintf(o, "%.*s\n%*s", (int)(cut - text + 1), text, cont, "");
		lines++;
		col = cont;
		text = cut + 2;
	}
	if (o)
		fprintf(o, "%s\n", text);
	return lines;
}

/* One line of at most WIDTH columns, printed unless o is NULL: 1. */
__attribute__((format(printf, 2, 3)))
static int say(FILE *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (o)
		vfprintf(o, fmt, ap);
	va_end(ap);
	return 1;
}

/* "<indent>at X" for call site site, when it has one: the lines taken. */
static int site_line(FILE *o, const struct report *r, const char *indent,
		     const char *what, uint32_t site)
{
	const char *at = mt_sink_report_site(r, site);
	char line[300];

	if (!at)
		return 0;
	snprintf(line, sizeof(line), "%s%s", what, at);
	return wrapped(o, indent, (int)strlen(indent) + 2, line);
}

/* Where a message's send and receive were posted. */
static int msg_sites(FILE *o, const struct report *r, const char *indent,
		     const struct mt_match_msg *m)
{
	return site_line(o, r, indent, "sent at ", m->send_site) +
	       site_line(o, r, indent, "received at ", m->recv_site);
}

static void warn_section(FILE *o, const struct report *r,
			 const struct mt_match_summary *s)
{
	char line[200];
	int any = 0;

	fprintf(o, "\nWARNINGS\n");
	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++) {
		const struct mt_match_warn *wn = &s->warn[w];

		if (!wn->count)
			continue;
		any = 1;
		fprintf(o, "  %" PRIu64 " x %s\n", wn->count, mt_match_warning_str(w));
		for (unsigned e = 0; e < wn->n_examples; e++) {
			mt_sink_report_msg_line(r, &wn->example[e], line, sizeof(line));
			wrapped(o, "      e.g. ", 11, line);
			msg_sites(o, r, "           ", &wn->example[e]);
		}
	}
	if (!any)
		fprintf(o, "  none\n");
}

/* Lines of the hang's view (about 40 in all, whatever the number of
 * ranks): its roots, the other waits grouped, the explaining near misses;
 * the first of each is shown whatever its length. */
#define ROOT_LINES 12
#define GROUP_LINES 13
#define EXPLAIN_LINES 7
#define CYCLE_HEAD 4		/* waits of a long cycle listed: the first, */
#define CYCLE_SHOWN 6		/* the last, up to this many in all */

static int root_lines(FILE *o, const struct report *r,
		      const struct mt_match_summary *s,
		      const struct mt_match_hang *h,
		      const struct mt_match_root *rt)
{
	const struct mt_trace *t = r->trace;
	char line[200];
	int n;

	mt_sink_report_root_line(t, rt, line, sizeof(line));
	n = wrapped(o, "  cause: ", 4, line);
	for (size_t i = 0; i < rt->n; i++) {
		if (rt->n > CYCLE_SHOWN && i == CYCLE_HEAD) {
			n += say(o, "    ... %zu more waits ...\n",
				 rt->n - CYCLE_SHOWN + 1);
			i = rt->n - (CYCLE_SHOWN - CYCLE_HEAD);
		}
		const struct mt_match_wait *w = &h->waits[h->path[rt->first + i]];

		mt_sink_report_wait_line(t, s, w, line, sizeof(line));
		n += wrapped(o, "    ", 6, line);
		n += site_line(o, r, "      ", "at ", s->pending[w->pending].op.site);
	}
	if (rt->waiters)
		n += say(o, "    (%zu other rank%s wait%s on %s, directly or "
			 "through others)\n", rt->waiters, rt->waiters == 1 ? "" :
			 "s", rt->waiters == 1 ? "s" : "", rt->size > 1 ? "them" :
			 "it");
	return n;
}

static int group_lines(FILE *o, const struct report *r,
		       const struct mt_match_group *g, uint64_t now)
{
	char line[240];

	mt_sink_report_group_line(r->trace, g, now, line, sizeof(line));
	return wrapped(o, "    ", 6, line) + site_line(o, r, "      ", "at ", g->site);
}

static int explain_lines(FILE *o, const struct report *r,
			 const struct mt_match_summary *s,
			 const struct mt_match_explain *e)
{
	const struct mt_match_pending *p = &s->pending[e->pending];
	char line[200];
	int n;

	mt_sink_report_pending_line(r, p, line, sizeof(line));
	n = wrapped(o, "    ", 6, line);
	n += site_line(o, r, "      ", "at ", p->op.site);
	if (e->near == MT_MATCH_NEAR) {
		mt_sink_report_msg_line(r, &p->unacked_msg, line, sizeof(line));
		n += say(o, "        its Ssend was received%s, never acknowledged:\n",
			 p->unacked_claimed ? " (MPI_Improbe+MPI_Mrecv)" : "");
		return n + wrapped(o, "          ", 12, line) +
		       msg_sites(o, r, "            ", &p->unacked_msg);
	}
	const struct mt_match_near *nm = &p->near[e->near];

	mt_sink_report_msg_line(r, &nm->send, line, sizeof(line));
	if (nm->field == MT_MATCH_F_COUNT)
		n += say(o, "        would match:\n");
	else
		n += say(o, "        near miss, differs only in %s:\n",
			 nm->addr_only ? "source address" :
			 mt_match_field_str(nm->field));
	return n + wrapped(o, "          ", 12, line) +
	       msg_sites(o, r, "            ", &nm->send);
}

/* What the hang's view shows, for its item printers. */
struct view {
	const struct report *r;
	const struct mt_match_summary *s;
	const struct mt_match_hang *h;
	uint64_t now;			/* a time: how long groups have waited */
};

static int root_item(FILE *o, const struct view *v, size_t i)
{
	return root_lines(o, v->r, v->s, v->h, &v->h->roots[i]);
}

static int group_item(FILE *o, const struct view *v, size_t i)
{
	return group_lines(o, v->r, &v->h->groups[i], v->now);
}

static int explain_item(FILE *o, const struct view *v, size_t i)
{
	return explain_lines(o, v->r, v->s, &v->h->explain[i]);
}

/* Items 0..n) while they fit in budget lines (the first whatever its
 * length); returns how many were printed. */
static size_t within(FILE *o, const struct view *v, size_t n, size_t budget,
		     int (*item)(FILE *o, const struct view *v, size_t i))
{
	size_t i, used = 0;

	for (i = 0; i < n; i++) {
		size_t k = (size_t)item(NULL, v, i);

		if (i && used + k > budget)
			break;
		used += (size_t)item(o, v, i);
	}
	return i;
}

/* The root(s) of the hang, the other waits grouped, the near misses that
 * explain a wait. */
static void hang_view(FILE *o, const struct view *v)
{
	const struct mt_match_hang *h = v->h;
	size_t ops = 0, i;

	if (!h->n_waits)
		fprintf(o, "  no operation waits on a rank (sends delivered, "
			"their completion unread)\n");
	i = within(o, v, h->n_roots, ROOT_LINES, root_item);
	if (i < h->n_roots)
		fprintf(o, "  ... %zu more roots (--json lists all)\n",
			h->n_roots - i);
	for (i = 0; i < h->n_groups; i++)
		ops += h->groups[i].n_ops;
	if (h->n_groups)
		fprintf(o, "  %s waits (%zu operation%s):\n", h->n_roots ? "other" :
			"all", ops, ops == 1 ? "" : "s");
	i = within(o, v, h->n_groups, GROUP_LINES, group_item);
	if (i < h->n_groups)
		fprintf(o, "    ... %zu more groups (--json lists every "
			"operation)\n", h->n_groups - i);
	if (h->n_explain)
		fprintf(o, "  why (sends that will not match as they are):\n");
	i = within(o, v, h->n_explain, EXPLAIN_LINES, explain_item);
	if (i < h->n_explain)
		fprintf(o, "  ... %zu more (--json lists every near miss)\n",
			h->n_explain - i);
}

void mt_sink_text_hang_view(FILE *o, const struct report *r,
			    const struct mt_match_summary *s,
			    const struct mt_match_hang *h, uint64_t now)
{
	hang_view(o, &(struct view){ r, s, h, now });
}

static void pending_section(FILE *o, const struct report *r,
			    const struct mt_match_summary *s,
			    const struct mt_match_hang *h)
{
	fprintf(o, "\nPENDING AT THE END OF THE TRACE (hang suspects)\n");
	if (s->n_pending)
		mt_sink_text_hang_view(o, r, s, h, MT_MATCH_NOTIME);
	else
		fprintf(o, "  none\n");
	if (s->abandoned_at_close)
		fprintf(o, "  (%" PRIu64 " receives left posted at a normal close or "
			"standing for handshakes,\n   with no send near them: not "
			"shown)\n", s->abandoned_at_close);
	if (s->pending_delivered_sends)
		fprintf(o, "  (%" PRIu64 " sends delivered but their completion was "
			"never read)\n", s->pending_delivered_sends);
}

#define CLOCK_ROWS 16		/* domains and links listed */

/* A duration or an offset in a readable unit: "-1.234 ms", "12.30 us". */
static const char *ns_str(double ns, char *buf, size_t len)
{
	double a = ns < 0 ? -ns : ns;

	if (a >= 1e9)
		snprintf(buf, len, "%.3f s", ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

/* How well the processes of each domain of several agree (mt_clock.h). */
static void clock_agreement(FILE *o, const struct mt_trace *t,
			    const struct mt_clock_result *r)
{
	char a[32], b[32], est[24], lo[24], hi[24];

	for (uint32_t d = 0, shown = 0; d < r->ndomains; d++) {
		const struct mt_clock_domain *m = &r->domains[d];

		if (!m->agree_pairs || shown++ == CLOCK_ROWS)
			continue;
		fprintf(o, "  inside domain %u: rank %s's clock estimated %s %s rank %s's,\n"
			"    the most of %u pair%s measured both ways at latency (half the\n"
			"    difference of the fastest message each way, exact if both took\n"
			"    as long; the data allow %s to %s)\n", d,
			mt_sink_rank(t, m->agree_b, b, sizeof(b)),
			ns_str(fabs(m->agree_ns), est, sizeof(est)),
			m->agree_ns < 0 ? "behind" : "ahead of",
			mt_sink_rank(t, m->agree_a, a, sizeof(a)), m->agree_pairs,
			m->agree_pairs == 1 ? "" : "s",
			ns_str((double)m->agree_lo_ns, lo, sizeof(lo)),
			ns_str((double)m->agree_hi_ns, hi, sizeof(hi)));
	}
}

static void clock_domains(FILE *o, const struct mt_trace *t,
			  const struct mt_run_clock *c)
{
	const struct mt_clock_result *r = c->res;
	char rk[64], off[24], sd[24];
	uint32_t shown = 0;

	fprintf(o, "  domain ranks    host       map            offset (sd)"
		"     drift ppm (sd)\n");
	for (uint32_t d = 0; d < r->ndomains; d++) {
		const struct mt_clock_domain *m = &r->domains[d];
		char host[4 * 64 + 1];

		if (!c->procs[m->first_proc].host || shown++ == CLOCK_ROWS)
			continue;	/* a rank nobody traced, or too many */
		fprintf(o, "  %-6u %-8.8s %-10.10s %-9s %10s (%s) %+8.3f (%.3f)%s\n",
			d, mt_sink_clock_ranks(c, t, d, rk, sizeof(rk)),
			c->procs[m->first_proc].host[0] ?
			mt_sink_name_text(host, sizeof(host), c->procs[m->first_proc].host,
				     SIZE_MAX) : "?",
			mt_clock_est_name(m->est), ns_str(m->offset_ns, off, sizeof(off)),
			ns_str(m->offset_sd_ns, sd, sizeof(sd)), m->drift_ppm,
			m->drift_sd_ppm, m->split ? " split" : "");
	}
	if (shown > CLOCK_ROWS)
		fprintf(o, "  ... %u more domains (see --json)\n", shown - CLOCK_ROWS);
	clock_agreement(o, t, r);
	fprintf(o, "  links: minimum one-way latency the correction keeps\n");
	for (uint32_t i = 0; i < r->nlinks && i < CLOCK_ROWS; i++) {
		const struct mt_clock_link *l = &r->links[i];

		fprintf(o, "  %u -> %u  %" PRIu64 " messages, minimum %s (%s)\n",
			l->from, l->to, l->msgs, ns_str((double)l->lmin_ns, off, sizeof(off)),
			mt_clock_lat_src_name(l->src));
	}
	if (r->nlinks > CLOCK_ROWS)
		fprintf(o, "  ... %u more links (see --json)\n", r->nlinks - CLOCK_ROWS);
}

/* Whose fault a receive before its send is: the clocks (the declared
 * domain the data split, corrected) or the pairing (a cycle). */
static void clock_verdict(FILE *o, const struct mt_run_clock *c)
{
	const struct mt_clock_result *r = c->res;
	uint32_t splits = mt_sink_clock_splits(c);

	switch (mt_sink_clock_problem(c)) {
	case MT_SINK_CLOCK_OK:
		fprintf(o, "  clocks checked on the data: no receive before its send\n");
		break;
	case MT_SINK_CLOCK_CLOCKS:
		if (splits)
			fprintf(o, "  a clock problem, corrected: %u processes declared on "
				"one clock (one host)\n    disagree on the data; each "
				"is mapped on its own\n", splits);
		else
			fprintf(o, "  a clock problem, corrected: every receive before "
				"its send ends after it\n");
		break;
	case MT_SINK_CLOCK_PAIRING:
		fprintf(o, "  a pairing problem: %" PRIu64 " cycle%s of messages no "
			"clock can order\n    (a send paired with the wrong "
			"receive)\n", r->cycles_broken,
			r->cycles_broken == 1 ? "" : "s");
		break;
	case MT_SINK_CLOCK_UNCHECKED:
		fprintf(o, "  receives before their sends remain (--clock clc or "
			"auto tells a clock\n    problem from a pairing problem)\n");
		break;
	}
}

static void clock_section(FILE *o, const struct mt_run *run)
{
	const struct mt_run_clock *c = &run->clock;
	const struct mt_clock_result *r = c->res;
	char a[24], b[24];

	fprintf(o, "\nCLOCKS (--clock %s)\n", mt_clock_mode_name(c->asked));
	if (!r) {
		fprintf(o, "  times as recorded (%s), %u clock domain%s\n",
			c->asked == MT_CLOCK_MODE_NONE ? "correction off" :
			"one process", c->declared,
			c->declared == 1 ? "" : "s");
		fprintf(o, "  received at or before sent: %" PRIu64 " of %" PRIu64
			" messages%s\n", c->violations, c->checked,
			c->violations ? " (--clock auto tells a clock problem from a "
			"pairing problem)" : "");
		return;
	}
	fprintf(o, "  stages run: %s, %u clock domain%s (%u declared)\n",
		r->clc_done ? (r->linear_done ? "linear + clc" : "clc") :
		r->linear_done ? "linear" : "none", r->ndomains,
		r->ndomains == 1 ? "" : "s", c->declared);
	fprintf(o, "  received at or before sent, of %" PRIu64 " messages: %" PRIu64
		" recorded,\n    %" PRIu64 " after linear, %" PRIu64
		" after correction\n", r->nmsgs, r->viol_before, r->viol_linear,
		r->viol_after);
	clock_verdict(o, c);
	fprintf(o, "  times moved: largest %s, median %s (%" PRIu64 " events)\n",
		ns_str((double)r->corr_max_ns, a, sizeof(a)),
		ns_str((double)r->corr_median_ns, b, sizeof(b)), r->nevents);
	if (r->clc_done)
		fprintf(o, "  clc moved %" PRIu64 " events off the linear map: "
			"largest %s, median %s;\n    %" PRIu64 " jumps, %" PRIu64
			" cycles broken\n", r->clc_moved,
			ns_str((double)r->clc_max_ns, a, sizeof(a)),
			ns_str((double)r->clc_median_ns, b, sizeof(b)), r->jumps,
			r->cycles_broken);
	fprintf(o, "  local intervals changed %.4f%% in all, at most %.3f%%\n"
		"    (intervals of %d us or more)\n", 100 * r->interval_change,
		100 * r->interval_max_change, MT_CLOCK_LONG_INTERVAL_NS / 1000);
	clock_domains(o, run->trace, c);
	if (r->linear_done)
		fprintf(o, "  (WARNINGS and PENDING show times on the linear maps: "
			"the clc moves\n   matched messages only)\n");
}

static enum mt_status text_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum,
				    struct mt_err *err)
{
	struct report_sink *x = state;
	struct mt_match_hang *h = NULL;
	FILE *o = x->out;

	if (mt_sink_report_hang(run, sum, &h)) {
		mt_sink_report_end(x, err);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	ended_section(o, &x->r);
	window_section(o, &x->r, sum, h);
	run_section(o, run);
	totals_section(o, run, &x->r, sum);
	pairs_section(o, &x->r);
	sizes_section(o, &x->r);
	time_section(o, &x->r);
	warn_section(o, &x->r, sum);
	pending_section(o, &x->r, sum, h);
	mt_match_hang_free(h);
	clock_section(o, run);
	if (run->join)
		mt_sink_joined_text(o, run, sum);
	return mt_sink_report_end(x, err);
}

const struct mt_sink_ops mt_sink_text = {
	.key = "text",
	.name = "text",
	.init = mt_sink_report_start,
	.consume = mt_sink_report_consume,
	.finalize = text_finalize,
	.joins = 1,
};
