/*
 * run.c - what sinks share about the run they describe (struct mt_run).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mt_sink.h"

unsigned char *mt_sink_site_procs(const struct mt_trace *t, size_t *without)
{
	unsigned char *has;

	*without = 0;
	if (!t || !t->nsites || !(has = calloc(t->nprocs, 1)))
		return NULL;
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].proc < t->nprocs)
			has[t->sites[i].proc] = 1;
	for (size_t p = 0; p < t->nprocs; p++)
		*without += !has[p];
	if (*without)
		return has;
	free(has);
	return NULL;
}

/* Without a trace (a sink's unit test) every key is a rank of one job. */
static int key_rank(const struct mt_trace *t, int64_t key, uint32_t *job,
		    int32_t *rank)
{
	if (key < 0 || key > INT32_MAX)
		return -1;
	if (t)
		return mt_trace_key_rank(t, (int32_t)key, job, rank);
	*job = 0;
	*rank = (int32_t)key;
	return 0;
}

/* n of the fork numbered key, 0 when it is none (or no trace says). */
static uint32_t key_fork(const struct mt_trace *t, int64_t key)
{
	return t && key >= 0 && key <= INT32_MAX ?
	       mt_trace_key_fork(t, (int32_t)key) : 0;
}

const char *mt_sink_rank(const struct mt_trace *t, int64_t key, char *buf,
			 size_t len)
{
	uint32_t job, fork = key_fork(t, key);
	int32_t rank;
	int w;

	if (key < 0)
		w = snprintf(buf, len, "%" PRId64, key);
	else if (key_rank(t, key, &job, &rank))
		w = snprintf(buf, len, "?");
	else if (!job)
		w = snprintf(buf, len, "%d", rank);
	else
		w = snprintf(buf, len, "%u:%d", job, rank);
	if (fork && w > 0 && (size_t)w < len)
		snprintf(buf + w, len - (size_t)w, "+f%u", fork);
	return buf;
}

int mt_sink_rank_plain(const struct mt_trace *t, int64_t key)
{
	uint32_t job;
	int32_t rank;

	return !key_rank(t, key, &job, &rank) && !job && !key_fork(t, key);
}

int mt_sink_rank_joins(const struct mt_trace *t, int64_t a, int64_t b)
{
	return b == a + 1 && !key_fork(t, a) && !key_fork(t, b);
}

void mt_sink_rank_json(FILE *o, const struct mt_trace *t, int64_t key)
{
	char b[MT_SINK_RANK_LEN];

	if (key < 0)
		fputs("null", o);
	else if (mt_sink_rank_plain(t, key))
		fprintf(o, "%" PRId64, key);
	else
		fprintf(o, "\"%s\"", mt_sink_rank(t, key, b, sizeof(b)));
}

/* Whether keys a and b are ranks of one job, neither a fork. */
static int same_job(const struct mt_trace *t, uint32_t a, uint32_t b)
{
	uint32_t ja, jb;
	int32_t r;

	return !key_rank(t, a, &ja, &r) && !key_rank(t, b, &jb, &r) && ja == jb &&
	       !key_fork(t, a) && !key_fork(t, b);
}

uint32_t mt_sink_clock_splits(const struct mt_run_clock *c)
{
	uint32_t n = 0;

	for (uint32_t d = 0; c->res && d < c->res->ndomains; d++)
		n += c->res->domains[d].split ? c->res->domains[d].nprocs : 0;
	return n;
}

enum mt_sink_clock_problem mt_sink_clock_problem(const struct mt_run_clock *c)
{
	const struct mt_clock_result *r = c->res;

	if (!r)
		return c->violations ? MT_SINK_CLOCK_UNCHECKED : MT_SINK_CLOCK_OK;
	if (!r->viol_before)
		return MT_SINK_CLOCK_OK;
	/* A cycle of messages is wrong on every clock; what the correction
	 * removed without dropping one, a clock explains. */
	if (r->cycles_broken)
		return MT_SINK_CLOCK_PAIRING;
	return r->viol_after ? MT_SINK_CLOCK_UNCHECKED : MT_SINK_CLOCK_CLOCKS;
}

const char *mt_sink_clock_problem_name(enum mt_sink_clock_problem p)
{
	static const char *const names[] = {
		[MT_SINK_CLOCK_OK] = "none", [MT_SINK_CLOCK_CLOCKS] = "clock",
		[MT_SINK_CLOCK_PAIRING] = "pairing",
		[MT_SINK_CLOCK_UNCHECKED] = "unchecked",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

const char *mt_sink_clock_ranks(const struct mt_run_clock *c,
				const struct mt_trace *t, uint32_t d,
				char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (uint32_t r = 0; r < c->nranks && k < len; r++) {
		char a[MT_SINK_RANK_LEN], b[MT_SINK_RANK_LEN];
		uint32_t e = r;

		if (c->res->proc_domain[r] != d)
			continue;
		while (e + 1 < c->nranks && c->res->proc_domain[e + 1] == d &&
		       same_job(t, r, e + 1))
			e++;
		k += (size_t)snprintf(buf + k, len - k, e > r ? "%s%s-%s" : "%s%s",
				      k ? "," : "", mt_sink_rank(t, r, a, sizeof(a)),
				      mt_sink_rank(t, e, b, sizeof(b)));
		r = e;
	}
	return buf;
}

const char *mt_sink_run_who(const struct mt_run *run, char *buf, size_t len)
{
	const struct mt_trace *t = run->trace;
	int w;

	if (t->njobs > 1)
		w = snprintf(buf, len, "%zu processes in %zu jobs", run->nranks, t->njobs);
	else if (t->nforks)
		w = snprintf(buf, len, "%zu processes", run->nranks);
	else
		w = snprintf(buf, len, "%zu rank%s", run->nranks,
			     run->nranks == 1 ? "" : "s");
	if (t->nforks && w > 0 && (size_t)w < len)
		snprintf(buf + w, len - (size_t)w, " (%zu forked)", t->nforks);
	return buf;
}

enum mt_status mt_sink_written(FILE *f, int flush, struct mt_err *err)
{
	if ((flush && fflush(f)) || ferror(f))
		return mt_sink_unwritten(err);
	return MT_OK;
}

enum mt_status mt_sink_unwritten(struct mt_err *err)
{
	return mt_err_set(err, MT_ERR_IO, "cannot write the output");
}

void mt_sink_proc_span(const struct mt_trace_proc *p, struct mt_sink_span *s)
{
	*s = (struct mt_sink_span){ .first_ns = p->first_ns + p->merge_offset_ns,
				    .last_ns = p->last_ns + p->merge_offset_ns };
	s->wrapped = mt_trace_proc_window(p, &s->window_ns);
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct mt_trace_file *f = p->files[i];
		int64_t end;

		s->overwritten += f->overwritten;

		for (int l = 0; l < MT_LOSS_COUNT; l++)
			s->lost += f->hdr->lost[l];
		/* NOFILE losses belong to threads that never had a file. */
		if (!f->nrecs || !(f->hdr->lost[MT_LOSS_FULL] ||
				   f->hdr->lost[MT_LOSS_NOSPACE]))
			continue;
		end = mt_trace_ticks_ns(&p->clock, f->last_ts) + p->merge_offset_ns;
		if (!s->ended || end < s->end_ns)
			s->end_ns = end;
		s->ended = 1;
	}
}

int64_t mt_sink_span_start(const struct mt_sink_span *s)
{
	return s->wrapped && s->window_ns > s->first_ns ? s->window_ns : s->first_ns;
}

int mt_sink_span_partial(const struct mt_sink_span *s)
{
	return s->wrapped || s->ended;
}

static double span_sec(int64_t t, int64_t t0)
{
	return ((double)t - (double)t0) / 1e9;
}

const char *mt_sink_span_text(const struct mt_sink_span *s, int64_t t0,
			      char *buf, size_t len)
{
	int n = snprintf(buf, len, "%.6f to %.6f s",
			 span_sec(mt_sink_span_start(s), t0), span_sec(s->last_ns, t0));

	if (n < 0 || (size_t)n >= len)
		return buf;
	if (s->wrapped)
		n += snprintf(buf + n, len - (size_t)n, ", a window: %" PRIu64
			      " records overwritten before it", s->overwritten);
	if (n >= 0 && (size_t)n < len && s->ended)
		snprintf(buf + n, len - (size_t)n, ", ends early at %.6f s: %"
			 PRIu64 " records lost after it", span_sec(s->end_ns, t0),
			 s->lost);
	return buf;
}

const char *mt_sink_span_partial_line(const struct mt_run *run, size_t p,
				      char *buf, size_t len)
{
	const struct mt_trace *t = run->trace;
	char k[MT_SINK_RANK_LEN], text[192];
	struct mt_sink_span sp;

	mt_sink_proc_span(&t->procs[p], &sp);
	if (!mt_sink_span_partial(&sp))
		return NULL;
	snprintf(buf, len, "rank %s's trace covers %s",
		 mt_sink_rank(t, t->procs[p].key, k, sizeof(k)),
		 mt_sink_span_text(&sp, run->t0_ns, text, sizeof(text)));
	return buf;
}
