/*
 * clockstage.c - the pipeline's clock-correction stage (see clockstage.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clockstage.h"

struct clockstage {
	enum mt_clock_mode mode;
	uint32_t nranks;		/* highest process key + 1 */
	struct mt_clock_proc *procs;	/* per process key */
	struct mt_clock_cal (*cal)[2];	/* per process key: START, END pairs */
	uint32_t declared;
	int buffers, solved;
	struct mt_clock_times *t;	/* collected, corrected by solve */
	size_t n, cap, next;		/* collected, allocated, applied */
	/* Until the solve says times move, auto on one declared clock
	 * gathers figures instead of keeping times (mt_clock_rest): then t
	 * stays empty, and gathered messages had their times seen. */
	struct mt_clock_rest *rest;
	size_t gathered;
	int64_t span_lo, span_hi;	/* of the gathered messages' times */
	struct mt_clock_result res;
	uint64_t checked, violations;	/* when nothing is collected */
	uint64_t rbs_after;		/* corrected: received before sent */
	const struct mt_trace *trace;	/* to name a file in errors */
	struct {			/* the first time collected past
					 * +-MT_CLOCK_TIME_LIMIT: corrupt */
		int found;
		int32_t key;		/* its side's process, by the
					 * message (the clock's may be none) */
		int64_t t;
	} beyond;
	struct mt_match_summary sum;	/* mt_pipe_clock_summary's copy */
};

/* A calibration pair on the merge's time base, like the message times. */
static void cal_pair(const struct mt_trace_proc *pr, const struct mt_rec_clock *c,
		     struct mt_clock_cal *out)
{
	out->local_ns = mt_trace_ticks_ns(&pr->clock, c->h.ts) + pr->merge_offset_ns;
	out->realtime_ns = (int64_t)c->realtime_ns;
}

static void describe_proc(const struct mt_trace_proc *pr, struct mt_clock_proc *cp,
			  struct mt_clock_cal *cal)
{
	*cp = (struct mt_clock_proc){
		.host = pr->host,
		.clock_source = pr->rec ? pr->rec->clock_source : 0,
		.cal = cal,
	};
	if (pr->clock_start)
		cal_pair(pr, pr->clock_start, &cal[cp->ncal++]);
	if (pr->clock_end && pr->clock_end != pr->clock_start)
		cal_pair(pr, pr->clock_end, &cal[cp->ncal++]);
}

/* Domains declared by the processes that are in the trace (ranks no
 * process recorded would each count as one). */
static enum mt_status declared(struct clockstage *cs)
{
	struct mt_clock_proc *v = calloc(cs->nranks + 1, sizeof(*v));
	uint32_t n = 0;
	enum mt_status s;

	if (!v)
		return MT_ERR_NOMEM;
	for (uint32_t r = 0; r < cs->nranks; r++)
		if (cs->procs[r].host)
			v[n++] = cs->procs[r];
	s = mt_clock_domains_declared(n, v, &cs->declared);
	free(v);
	return s;
}

/*
 * The tables below are indexed by process key (a job's base plus the world
 * rank), which a corrupt trace sets at
 * will: 2^31 - 1 asked for 12 GB (fuzz, regress/clock-rank-alloc), and the
 * solve's work grows with the table too (65,536 empty ranks took 2 s:
 * regress/clock-sparse-ranks). A rank at or past this limit gets no clock
 * entry, as if unknown: a real job's ranks stay below it unless under 1 in
 * 64 of its ranks were traced.
 */
static uint64_t rank_limit(const struct mt_trace *t)
{
	return (uint64_t)t->nprocs * 64 + 1024;
}

struct clockstage *mt_pipe_clock_new(enum mt_clock_mode mode,
				  const struct mt_trace *t)
{
	struct clockstage *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	cs->mode = mode;
	cs->trace = t;
	for (size_t p = 0; p < t->nprocs; p++)
		if (t->procs[p].key >= 0 &&
		    (uint32_t)t->procs[p].key >= cs->nranks &&
		    (uint64_t)t->procs[p].key < rank_limit(t))
			cs->nranks = (uint32_t)t->procs[p].key + 1;
	cs->procs = calloc(cs->nranks + 1, sizeof(*cs->procs));
	cs->cal = calloc(cs->nranks + 1, sizeof(*cs->cal));
	if (!cs->procs || !cs->cal)
		goto nomem;
	for (size_t p = 0; p < t->nprocs; p++) {
		int32_t r = t->procs[p].key;

		if (r >= 0 && (uint32_t)r < cs->nranks)
			describe_proc(&t->procs[p], &cs->procs[r], cs->cal[r]);
	}
	if (declared(cs))
		goto nomem;
	/* auto trusts no declared clock before the data confirm it: as soon
	 * as two processes exchange messages, their times are kept for the
	 * check (mt_clock_domains) and corrected where it fails. */
	cs->buffers = mode == MT_CLOCK_MODE_LINEAR || mode == MT_CLOCK_MODE_CLC ||
		      (mode == MT_CLOCK_MODE_AUTO &&
		       (cs->declared > 1 || cs->nranks > 1));
	cs->span_lo = INT64_MAX;
	cs->span_hi = INT64_MIN;
	if (cs->buffers && mt_clock_rest_new(mode, NULL, cs->nranks, cs->procs,
					     &cs->rest) == MT_ERR_NOMEM)
		goto nomem;
	return cs;
nomem:
	mt_pipe_clock_free(cs);
	return NULL;
}

void mt_pipe_clock_free(struct clockstage *cs)
{
	if (!cs)
		return;
	mt_clock_result_free(&cs->res);
	mt_clock_rest_free(cs->rest);
	free(cs->sum.pending);
	free(cs->t);
	free(cs->procs);
	free(cs->cal);
	free(cs);
}

int mt_pipe_clock_buffers(const struct clockstage *cs)
{
	return cs->buffers;
}

/* Times beyond the limit are corrupt records (fuzz, tests/fuzz/regress/
 * clock-clc-overflow): the solve stops on the first, naming its file. Its
 * process is taken from the message, as the clock may know none (a key past
 * rank_limit: regress/clock-beyond-unknown-rank). */
static void note_beyond(struct clockstage *cs, const struct mt_match_msg *m,
			const struct mt_clock_times *t)
{
	for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
		int64_t x = t->t[w];

		if (x != MT_CLOCK_NOTIME &&
		    (x >= MT_CLOCK_TIME_LIMIT || x <= -MT_CLOCK_TIME_LIMIT)) {
			cs->beyond.found = 1;
			cs->beyond.key = w <= MT_CLOCK_SEND_DONE ? m->send_rank :
					 m->recv_rank;
			cs->beyond.t = x;
			return;
		}
	}
}

#define GATHER 256		/* messages' times gathered at once */

/* The times of b[0..n) into the figures of the stage at rest. */
static void gather(struct clockstage *cs, const struct mt_match_msg *b, size_t n)
{
	struct mt_clock_times t[GATHER];

	for (size_t i = 0, k; i < n; i += k) {
		k = n - i < GATHER ? n - i : GATHER;
		for (size_t j = 0; j < k; j++) {
			mt_clock_times_of_msg(&b[i + j], cs->nranks, &t[j]);
			if (!cs->beyond.found)
				note_beyond(cs, &b[i + j], &t[j]);
			for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
				int64_t x = t[j].t[w];

				if (x == MT_CLOCK_NOTIME)
					continue;
				cs->span_lo = x < cs->span_lo ? x : cs->span_lo;
				cs->span_hi = x > cs->span_hi ? x : cs->span_hi;
			}
		}
		mt_clock_rest_add(cs->rest, t, k);
	}
	cs->gathered += n;
}

int mt_pipe_clock_collect(struct clockstage *cs, const struct mt_match_msg *b,
		       size_t n)
{
	if (cs->rest) {
		gather(cs, b, n);
		return 0;
	}
	if (cs->n + n > cs->cap) {
		size_t cap = cs->cap ? cs->cap + cs->cap / 2 : 4096;
		struct mt_clock_times *t;

		cap = cap < cs->n + n ? cs->n + n : cap;
		t = realloc(cs->t, cap * sizeof(*t));
		if (!t)
			return -1;
		cs->t = t;
		cs->cap = cap;
	}
	for (size_t i = 0; i < n; i++) {
		struct mt_clock_times *t = &cs->t[cs->n++];

		mt_clock_times_of_msg(&b[i], cs->nranks, t);
		if (!cs->beyond.found)
			note_beyond(cs, &b[i], t);
	}
	return 0;
}

/* The first file of the process of key r, for an error message. */
static const char *file_of_rank(const struct mt_trace *t, int32_t r)
{
	for (size_t p = 0; p < t->nprocs; p++)
		if (t->procs[p].key == r && t->procs[p].nfiles)
			return t->procs[p].files[0]->path;
	return "?";
}

int mt_pipe_clock_gathers(const struct clockstage *cs)
{
	return cs->rest != NULL;
}

void mt_pipe_clock_keep_times(struct clockstage *cs)
{
	mt_clock_rest_free(cs->rest);
	cs->rest = NULL;
	cs->gathered = 0;
	cs->span_lo = INT64_MAX;
	cs->span_hi = INT64_MIN;
}

enum mt_status mt_pipe_clock_solve(struct clockstage *cs, struct mt_err *err)
{
	enum mt_status s;

	if (cs->beyond.found) {
		char rk[MT_SINK_RANK_LEN];

		return mt_err_set(err, MT_ERR_CORRUPT, "%s (rank %s): a record's "
				  "time is %" PRId64 " ns, beyond +-2^61: corrupt "
				  "timestamps", file_of_rank(cs->trace, cs->beyond.key),
				  mt_sink_rank(cs->trace, cs->beyond.key, rk, sizeof(rk)),
				  cs->beyond.t);
	}
	if (cs->rest) {
		s = mt_clock_rest_finish(cs->rest, &cs->res, err);
		cs->solved = s == MT_OK;
		return s;
	}
	s = mt_clock_correct_times(cs->mode, NULL, cs->nranks, cs->procs, cs->t,
				   cs->n, &cs->res, err);
	if (s == MT_ERR_CORRUPT) {	/* corrupt_proc: a process key, or none */
		struct mt_err why = *err;
		int one = cs->res.corrupt_proc != MT_CLOCK_NOPROC;
		const char *path = one ? file_of_rank(cs->trace, (int32_t)cs->res.corrupt_proc) :
				   cs->trace->nfiles ? cs->trace->files[0]->path : "?";

		mt_err_set(err, s, "%s%s: %s", path, one ? "" : " and the other files",
			   why.msg);
	}
	cs->solved = s == MT_OK;
	return s;
}

/* The clock condition on one message as recorded, where the clock stage
 * would check it: both ranks and both times known. */
static void check(struct clockstage *cs, const struct mt_match_msg *m)
{
	if (m->send_rank < 0 || m->recv_rank < 0 ||
	    (uint32_t)m->send_rank >= cs->nranks ||
	    (uint32_t)m->recv_rank >= cs->nranks ||
	    m->t_send_post == MT_MATCH_NOTIME || m->t_recv_done == MT_MATCH_NOTIME)
		return;
	cs->checked++;
	cs->violations += (int64_t)m->t_recv_done <= (int64_t)m->t_send_post;
}

/* The matcher's MT_MATCH_W_RECV_BEFORE_SEND test (match_pair.c). */
static int recv_before_send(const struct mt_match_msg *m)
{
	return m->t_recv_done < m->t_send_post && m->t_send_post != MT_MATCH_NOTIME;
}

void mt_pipe_clock_apply(struct clockstage *cs, struct mt_match_msg *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!cs->solved) {
			check(cs, &b[i]);
		} else if (cs->next < (cs->rest ? cs->gathered : cs->n)) {
			if (!cs->rest)	/* at rest they stay as recorded */
				mt_clock_times_to_msg(&cs->t[cs->next], &b[i]);
			cs->next++;
			cs->rbs_after += recv_before_send(&b[i]);
		}
	}
}

/* Corrected time of a recorded one by its rank's linear map. */
static int64_t linear(const struct mt_clock_result *r, uint32_t rank, int64_t t)
{
	const struct mt_clock_domain *d = &r->domains[r->proc_domain[rank]];
	double shift = d->offset_ns + d->drift_ppm * 1e-6 * ((double)t - (double)r->t0);

	/* Clamped and wrapping: a corrupt trace's times must stay defined
	 * (fuzz, tests/fuzz/regress/clock-round-range). */
	shift = __builtin_fmax(__builtin_fmin(shift, 9.2e18), -9.2e18);
	return (int64_t)((uint64_t)t - (uint64_t)(int64_t)shift);
}

/* A recorded time of process key r on the corrected time base. */
static uint64_t moved(const struct clockstage *cs, int32_t r, uint64_t t)
{
	if (t == MT_MATCH_NOTIME || r < 0 || (uint32_t)r >= cs->nranks)
		return t;
	return (uint64_t)linear(&cs->res, (uint32_t)r, (int64_t)t);
}

static void move_msg(const struct clockstage *cs, struct mt_match_msg *m)
{
	m->t_send_post = moved(cs, m->send_rank, m->t_send_post);
	m->t_send_done = moved(cs, m->send_rank, m->t_send_done);
	m->t_recv_post = moved(cs, m->recv_rank, m->t_recv_post);
	m->t_recv_done = moved(cs, m->recv_rank, m->t_recv_done);
}

const struct mt_match_summary *mt_pipe_clock_summary(struct clockstage *cs,
						  const struct mt_match_summary *s)
{
	struct mt_match_pending *p = NULL;
	struct mt_match_warn *rbs = &cs->sum.warn[MT_MATCH_W_RECV_BEFORE_SEND];
	unsigned kept = 0;

	if (!cs->solved)
		return s;
	if (s->n_pending && !(p = malloc(s->n_pending * sizeof(*p))))
		return NULL;
	free(cs->sum.pending);
	cs->sum = *s;
	cs->sum.pending = p;
	for (unsigned w = 0; w < MT_MATCH_W_COUNT; w++)
		for (unsigned e = 0; cs->res.linear_done && e < s->warn[w].n_examples; e++)
			move_msg(cs, &cs->sum.warn[w].example[e]);
	/* A receive before its send is the clock's fault where the
	 * correction removed it: only what remains is warned of. */
	rbs->count = cs->rbs_after;
	for (unsigned e = 0; e < rbs->n_examples; e++)
		if (recv_before_send(&rbs->example[e]) && kept < rbs->count)
			rbs->example[kept++] = rbs->example[e];
	rbs->n_examples = kept;
	for (size_t i = 0; i < s->n_pending; i++) {
		p[i] = s->pending[i];
		p[i].op.ts = moved(cs, p[i].rank, p[i].op.ts);
		move_msg(cs, &p[i].unacked_msg);
		for (unsigned n = 0; n < p[i].n_near; n++)
			move_msg(cs, &p[i].near[n].send);
	}
	return &cs->sum;
}

/* The run's first and last record moved like the events around them, then
 * widened to every corrected message time (the CLC moves receives later). */
static void span(const struct clockstage *cs, struct mt_run *run)
{
	const struct mt_trace *t = run->trace;
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (size_t p = 0; p < t->nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];
		int32_t r = pr->key;
		/* Wrapping: corrupt offsets must not overflow. */
		int64_t a = (int64_t)((uint64_t)pr->first_ns + (uint64_t)pr->merge_offset_ns);
		int64_t b = (int64_t)((uint64_t)pr->last_ns + (uint64_t)pr->merge_offset_ns);

		if (pr->first_ns > pr->last_ns)
			continue;
		/* Ranks past rank_limit() have no clock entry. */
		if (r >= 0 && (uint32_t)r < cs->nranks && cs->res.linear_done) {
			a = linear(&cs->res, (uint32_t)r, a);
			b = linear(&cs->res, (uint32_t)r, b);
		}
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	lo = cs->span_lo < lo ? cs->span_lo : lo;	/* at rest: gathered */
	hi = cs->span_hi > hi ? cs->span_hi : hi;
	for (size_t i = 0; i < cs->n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			int64_t x = cs->t[i].t[w];

			if (x == MT_CLOCK_NOTIME)
				continue;
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
	if (lo <= hi) {
		run->t0_ns = lo;
		run->t1_ns = hi;
	}
}

void mt_pipe_clock_describe(const struct clockstage *cs, struct mt_run *run)
{
	run->clock = (struct mt_run_clock){
		.asked = cs->mode,
		.declared = cs->declared,
		.res = cs->solved ? &cs->res : NULL,
		.procs = cs->procs,
		.nranks = cs->nranks,
		.checked = cs->checked,
		.violations = cs->violations,
	};
	if (cs->solved)
		span(cs, run);
}

/* The world ranks in domain d as ranges: "0-3,7". */
