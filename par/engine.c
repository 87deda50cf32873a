/*
 * engine.c - a pipeline command divided among the ranks of an MPI job (the
 * division is described in mt_par.h): ownership of the traced processes,
 * the rounds of reading, exchange and matching, the messages merged into
 * rank 0's pass, the end.
 */
#include <stdlib.h>
#include <string.h>

#include "par_int.h"

/* Records a rank reads per round, at most: 1/256 of the trace's, within
 * these bounds. A round ends with two waits for the slowest rank (the
 * exchange of states, rank 0 taking the messages), paid less often in
 * larger rounds; its buffers (a routed record is 136 bytes, on the rank
 * that reads it and the one that matches it) must stay a small part of a
 * rank's memory. At N=2 on 10^8 events, 256 Ki records a round left rank 1
 * waiting 0.1 to 0.8 s in all at the states against 0.6 to 1.7 s with
 * 64 Ki, and rank 0 3.2 to 3.4 s taking the messages against 4.4 to
 * 6.4 s; on 3.5 M events 256 Ki would raise N=2's larger rank from 0.59
 * to 0.68 of N=1's memory. */
#define ROUND_MIN 65536
#define ROUND_MAX 262144
#define TAKE_BATCH 1024		/* messages taken from the matcher at once */

/* A rank's state at the end of its reading of a round. */
enum { ST_EXHAUSTED = 1, ST_FAILED = 2, ST_ABORT = 4 };

struct state {
	struct mt_pipe_at last;		/* its last record read (FAILED: the
					 * last before the bad one, or none) */
	int32_t flags;
	int32_t pad;
};

struct engine {
	MPI_Comm comm;
	int rank, n;
	struct mt_pipe_split *sp;
	struct par_owners own;
	struct par_route rt;
	struct mt_match *m;		/* this rank's matcher */
	struct par_local loc;
	uint64_t sub;			/* keys given so far */
	struct par_buf msgs;		/* struct par_msg for rank 0 */
	struct par_buf *in;		/* per rank: its records for this one */
	int *sent, *k;			/* per rank: records sent, received */
	size_t round;			/* records read per round, at most */
	struct state st, *all;
	struct mt_err bad;		/* FAILED: the reader's error */
	enum mt_status bad_st;
	struct mt_err why;		/* ABORT: why */
	enum mt_status why_st;
	/* The sink's lines, written by every rank once the reading is over
	 * (N > 1 and a sink that offers them), and whether they are. */
	const struct mt_sink_lines *lines;
	struct par_lines *pl;		/* rank 0's */
	int serve;
	/* rank 0 */
	const struct mt_pipe_opts *o;
	struct par_buf got;		/* struct par_msg of every rank */
	struct mt_match_summary sum;
	uint64_t events, skipped;	/* records read, ops skipped: all ranks' */
	int started;			/* the pass reached its stream */
};

/* Stops the run at the next round: a failure no rank can go on from. */
static void abort_run(struct engine *e, enum mt_status s, const struct mt_err *why)
{
	if (e->st.flags & ST_ABORT)
		return;
	e->st.flags |= ST_ABORT;
	e->why_st = s;
	e->why = *why;
}

/* This rank's records up to a round's worth, routed. */
static void fill(struct engine *e)
{
	size_t queued = 0;
	struct mt_err err = { { 0 } };

	for (int r = 0; r < e->n; r++)
		queued += mt_par_buf_len(&e->rt.out[r]);
	while (!(e->st.flags & (ST_EXHAUSTED | ST_FAILED | ST_ABORT)) &&
	       queued < e->round) {
		int skipped = 0;
		enum mt_status s;

		err.msg[0] = '\0';	/* empty unless the reader says why */
		e->rt.got = 0;
		s = mt_pipe_split_next(e->sp, &e->rt.at, &skipped, &err);
		if (s == MT_END) {
			e->st.flags |= ST_EXHAUSTED;
		} else if (s == MT_ERR_NOMEM && !err.msg[0]) {	/* the route's */
			abort_run(e, s, &(struct mt_err){ "out of memory" });
		} else if (s) {			/* a bad record: here the merge stops */
			e->st.flags |= ST_FAILED;
			e->bad_st = s;
			e->bad = err;
		} else {
			e->st.last = e->rt.at;
			if (!e->rt.got && mt_par_route_none(&e->rt, skipped))
				abort_run(e, MT_ERR_NOMEM,
					  &(struct mt_err){ "out of memory" });
			queued++;
		}
	}
}

/* The lowest place any rank has reached: everything up to it is known. */
static struct mt_pipe_at horizon(const struct engine *e, int *final, int *failed)
{
	struct mt_pipe_at h = { UINT64_MAX, UINT64_MAX };

	*failed = -1;
	for (int r = 0; r < e->n; r++) {
		const struct state *s = &e->all[r];

		if ((s->flags & ST_EXHAUSTED) && !(s->flags & ST_FAILED))
			continue;
		if (mt_par_at_cmp(&s->last, &h) < 0 ||
		    (!mt_par_at_cmp(&s->last, &h) && (s->flags & ST_FAILED) &&
		     *failed < 0)) {
			h = s->last;
			*failed = s->flags & ST_FAILED ? r : -1;
		}
	}
	*final = *failed >= 0 || (h.key == UINT64_MAX && h.where == UINT64_MAX);
	return h;
}

/* How many records at the head of b lie at or before h. */
static int upto(const struct par_buf *b, const struct mt_pipe_at *h)
{
	size_t k = 0, n = mt_par_buf_len(b);

	while (k < n && mt_par_at_cmp(&((const struct par_ev *)mt_par_buf_at(b, k))->at, h) <= 0)
		k++;
	return (int)k;
}

/* The records up to h to the ranks that match them; *k[r] of them came
 * from rank r (in e->in[r], this rank's own in its outbox). */
static void exchange(struct engine *e, const struct mt_pipe_at *h)
{
	int *sent = e->sent, *k = e->k;
	MPI_Request *req = malloc(2 * (size_t)e->n * sizeof(*req));
	int nreq = 0;
	const int size = (int)sizeof(struct par_ev);

	for (int r = 0; r < e->n; r++)
		sent[r] = upto(&e->rt.out[r], h);
	MPI_Alltoall(sent, 1, MPI_INT, k, 1, MPI_INT, e->comm);
	if (!req)
		MPI_Abort(e->comm, MT_ERR_NOMEM);	/* none may wait */
	for (int r = 0; r < e->n; r++) {
		if (r == e->rank || !k[r])
			continue;
		if (mt_par_buf_reserve(&e->in[r], (size_t)k[r]))
			MPI_Abort(e->comm, MT_ERR_NOMEM);
		MPI_Irecv(e->in[r].v, k[r] * size, MPI_BYTE, r, 0, e->comm, &req[nreq++]);
	}
	for (int r = 0; r < e->n; r++)
		if (r != e->rank && sent[r])
			MPI_Isend(mt_par_buf_at(&e->rt.out[r], 0), sent[r] * size,
				  MPI_BYTE, r, 0, e->comm, &req[nreq++]);
	MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
	free(req);
}

/* The messages m has finished since the last call, keyed, for rank 0 (at:
 * the record that finished them, phase 0). */
static void take(struct engine *e, unsigned phase, const struct mt_pipe_at *at)
{
	struct mt_match_msg *b;
	size_t n;

	while ((n = mt_match_take_ref(e->m, &b, TAKE_BATCH))) {
		for (size_t i = 0; i < n; i++) {
			struct par_msg *pm = mt_par_buf_add(&e->msgs);

			if (!pm) {
				abort_run(e, MT_ERR_NOMEM,
					  &(struct mt_err){ "out of memory" });
				return;
			}
			pm->msg = b[i];
			pm->key = phase ? mt_par_end_key(phase, &b[i], e->sub) :
				(struct par_key){ 0, at->key, at->where, e->sub };
			e->sub++;
		}
	}
	mt_par_examples(&e->loc, e->m, phase, at, &e->sub);
}

/* MT_ERR_ARG from the matcher: the trace handed it a bad operation. */
static void match_failed(struct engine *e, enum mt_status s)
{
	struct mt_err why;

	if (s == MT_ERR_ARG)
		s = MT_ERR_CORRUPT;
	mt_err_set(&why, s, "matching failed: %s",
		   s == MT_ERR_NOMEM ? "out of memory" : "bad operation");
	abort_run(e, s, &why);
}

/* One record into the matcher, in the serial order. */
static void feed(struct engine *e, const struct par_ev *ev)
{
	enum mt_status s = MT_OK;

	switch (ev->kind) {
	case PAR_POST:
		s = mt_match_post(e->m, &ev->u.op);
		break;
	case PAR_CQE:
		s = mt_match_complete(e->m, &ev->u.cqe);
		break;
	case PAR_CLOSE:
		s = mt_match_close(e->m, ev->ep, ev->ts);
		break;
	case PAR_SKIP:
		e->loc.skipped++;
		break;
	case PAR_ACK:		/* its record is counted where it is matched */
		mt_match_ack_elsewhere(e->m, &ev->u.op);
		return;
	}
	e->loc.events++;
	if (s)
		match_failed(e, s);
	take(e, 0, &ev->at);
}

/* The records of every rank for this one, merged by place, matched. */
static void match(struct engine *e)
{
	const int *k = e->k;
	size_t *pos = calloc((size_t)e->n, sizeof(*pos));

	if (!pos)
		MPI_Abort(e->comm, MT_ERR_NOMEM);
	for (;;) {
		const struct par_ev *best = NULL;
		int from = -1;

		for (int r = 0; r < e->n; r++) {
			const struct par_ev *ev;

			if (pos[r] == (size_t)k[r])
				continue;
			ev = r == e->rank ? mt_par_buf_at(&e->rt.out[r], pos[r]) :
				(const struct par_ev *)e->in[r].v + pos[r];
			if (!best || mt_par_at_cmp(&ev->at, &best->at) < 0) {
				best = ev;
				from = r;
			}
		}
		if (!best || (e->st.flags & ST_ABORT))
			break;
		pos[from]++;
		feed(e, best);
	}
	free(pos);
}

/* Rank from's status and message, on every rank. */
static void from_rank(MPI_Comm comm, int from, enum mt_status *s, struct mt_err *err)
{
	struct {
		int32_t s;
		struct mt_err err;
	} m = { (int32_t)*s, *err };

	MPI_Bcast(&m, sizeof(m), MPI_BYTE, from, comm);
	*s = (enum mt_status)m.s;
	*err = m.err;
}

/* The lowest rank that aborted (ST_ABORT), after an exchange of states;
 * -1: none. */
static int aborted(struct engine *e)
{
	MPI_Allgather(&e->st, sizeof(e->st), MPI_BYTE, e->all, sizeof(e->st),
		      MPI_BYTE, e->comm);
	for (int r = 0; r < e->n; r++)
		if (e->all[r].flags & ST_ABORT)
			return r;
	return -1;
}

/* The matcher's end (mt_match.h: its two steps, each keyed apart, with
 * what is still owed an ACK moved to its sender's owner between them).
 * Collective, whatever happened before. */
static void finish(struct engine *e)
{
	enum mt_status s;

	if (!(e->st.flags & ST_ABORT)) {
		if ((s = mt_match_finish_posted(e->m)))
			match_failed(e, s);
		else
			take(e, 1, NULL);
	}
	s = mt_par_owed_share(e->comm, e->st.flags & ST_ABORT ? NULL : e->m,
			      e->own.ep_owner);
	if (e->st.flags & ST_ABORT)
		return;
	if (s || (s = mt_match_finish(e->m)))
		match_failed(e, s);
	else
		take(e, 2, NULL);
}

/*
 * The rounds, then the end: every record matched on the rank it belongs
 * to, the messages delivered into rank 0's d (NULL elsewhere) and the
 * summaries combined into e->sum. Returns on rank 0 the run's failure
 * (err), as the serial pass's stream does.
 */
static enum mt_status share(struct engine *e, struct mt_pipe_dest *d, struct mt_err *err)
{
	enum mt_status s = MT_OK;
	int final = 0, failed = -1, from;

	while (!final) {
		struct mt_pipe_at h;

		fill(e);
		if (aborted(e) >= 0)
			break;
		h = horizon(e, &final, &failed);
		exchange(e, &h);
		match(e);
		for (int r = 0; r < e->n; r++)
			mt_par_buf_drop(&e->rt.out[r], (size_t)e->sent[r]);
		if ((s = mt_par_deliver(e->comm, &e->msgs, &e->got,
					e->st.flags & ST_ABORT ? NULL : d, err)))
			abort_run(e, s, err);
	}
	finish(e);
	mt_par_deliver(e->comm, &e->msgs, &e->got, e->st.flags & ST_ABORT ? NULL : d,
		       err);
	mt_par_reduce(e->comm, e->m, &e->loc, &e->sum, &e->events, &e->skipped);
	s = MT_OK;
	from = aborted(e);
	e->serve = e->lines && from < 0;
	if (from >= 0) {
		from_rank(e->comm, from, &e->why_st, &e->why);
		*err = e->why;
		s = e->why_st;
	} else if (failed >= 0) {
		from_rank(e->comm, failed, &e->bad_st, &e->bad);
		if (e->rank == 0)
			s = mt_pipe_bad_record(e->o, e->bad_st, &e->bad);
	}
	return s;
}

/* Rank 0's part of the pass (struct mt_pipe_split_feeder). */
static enum mt_status root_stream(void *arg, struct mt_match *m,
				  struct mt_pipe_dest *d, struct mt_run *run,
				  struct mt_err *err)
{
	struct engine *e = arg;
	enum mt_status s;
	int go = 1;

	e->started = 1;
	MPI_Bcast(&go, 1, MPI_INT, 0, e->comm);
	e->m = m;
	s = share(e, d, err);
	if (e->serve)
		mt_par_lines_share(e->pl);
	run->events = e->events;
	run->skipped = e->skipped;
	return s;
}

static const struct mt_match_summary *root_summary(void *arg,
						   const struct mt_match_summary *own)
{
	(void)own;
	return &((struct engine *)arg)->sum;
}

/* Another rank's part: its share, when rank 0's pass got to it. */
static enum mt_status other(struct engine *e, struct mt_err *err)
{
	enum mt_status s;
	int go;

	MPI_Bcast(&go, 1, MPI_INT, 0, e->comm);
	if (!go)
		return MT_OK;
	if (mt_pipe_split_matcher(e->sp, &e->m))
		MPI_Abort(e->comm, MT_ERR_NOMEM);	/* none may wait */
	s = share(e, NULL, err);
	mt_match_free(e->m);
	if (e->serve)
		mt_par_lines_serve(e->comm, e->lines, mt_pipe_split_trace(e->sp));
	return s;
}

static enum mt_status setup(struct engine *e, struct mt_err *err)
{
	const struct mt_trace *t = mt_pipe_split_trace(e->sp);
	uint64_t recs = 0;

	e->in = calloc((size_t)e->n, sizeof(*e->in));
	e->sent = calloc((size_t)e->n, sizeof(*e->sent));
	e->k = calloc((size_t)e->n, sizeof(*e->k));
	e->all = calloc((size_t)e->n, sizeof(*e->all));
	e->msgs.size = e->got.size = sizeof(struct par_msg);
	for (size_t i = 0; i < t->nfiles; i++)
		recs += t->files[i]->nrecs;
	e->round = recs / 256 < ROUND_MIN ? ROUND_MIN :
		recs / 256 > ROUND_MAX ? ROUND_MAX : (size_t)(recs / 256);
	if (!e->in || !e->sent || !e->k || !e->all ||
	    mt_par_own(t, e->rank, e->n, &e->own) ||
	    mt_par_route_init(&e->rt, e->rank, e->n, e->own.ep_owner,
			      e->own.ep_proc))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (int r = 0; r < e->n; r++)
		e->in[r].size = sizeof(struct par_ev);
	return MT_OK;
}

/* The layouts, then this rank's reading: once every rank opened the
 * trace. Collective; out of memory aborts the job (none may wait). */
static void start(struct engine *e, struct mt_err *err)
{
	if (mt_par_layouts(e->comm, e->sp, &e->own, err) ||
	    mt_pipe_split_start(e->sp, e->own.keep, &e->rt.r))
		MPI_Abort(e->comm, MT_ERR_NOMEM);
}

static void teardown(struct engine *e)
{
	for (int r = 0; e->in && r < e->n; r++)
		mt_par_buf_free(&e->in[r]);
	free(e->in);
	free(e->sent);
	free(e->k);
	free(e->all);
	mt_par_buf_free(&e->msgs);
	mt_par_buf_free(&e->got);
	mt_par_route_fini(&e->rt);
	mt_par_owners_free(&e->own);
	mt_par_summary_free(&e->sum);
	mt_pipe_split_close(e->sp);
}

/* The divided run, once every rank opened the trace. */
static enum mt_status divided(struct engine *e, struct mt_pipe_split_feeder *feeder,
			      const struct mt_sink_ops *sink, FILE *out,
			      struct mt_err *err)
{
	enum mt_status s = MT_OK;

	start(e, err);
	if (e->rank != 0)
		return other(e, err);
	if (e->lines && !(e->pl = mt_par_lines_new(e->comm, e->lines,
						   mt_pipe_split_trace(e->sp), out)))
		s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	else if (e->pl)
		feeder->writer = mt_par_lines_writer(e->pl);
	if (!s)
		s = mt_pipe_split_run(e->sp, e->o, feeder, sink, out, err);
	if (!e->started) {	/* the pass failed before: nobody waits */
		int go = 0;

		MPI_Bcast(&go, 1, MPI_INT, 0, e->comm);
	}
	mt_par_lines_free(e->pl);	/* the others' writing ends */
	return s;
}

/* got[0]: the lowest rank whose s failed (n: none); got[1]: 0 when one
 * met an OTF2 archive. Collective. */
static void agree(const struct engine *e, enum mt_status s, int got[2])
{
	got[0] = s != MT_OK && s != MT_END ? e->rank : e->n;
	got[1] = s != MT_END;
	MPI_Allreduce(MPI_IN_PLACE, got, 2, MPI_INT, MPI_MIN, e->comm);
}

#define SCANS_CHUNK (1 << 30)	/* bytes per broadcast: an int counts them */

/* Each rank's scans of its share of the files to every other, one rank
 * after the other, then the opening finished. Collective; out of memory
 * aborts the job (none may wait). */
static enum mt_status scans(struct engine *e, struct mt_err *err)
{
	uint64_t *lens;
	enum mt_status s = MT_OK;
	void *mine = NULL;
	size_t len = 0;

	if (e->n == 1)		/* it scanned every file */
		return mt_pipe_split_opened(e->sp, err);
	lens = malloc((size_t)e->n * sizeof(*lens));
	if (!lens || mt_pipe_split_scans(e->sp, (unsigned)e->rank, &mine, &len))
		MPI_Abort(e->comm, MT_ERR_NOMEM);
	lens[e->rank] = len;
	MPI_Allgather(MPI_IN_PLACE, 1, MPI_UINT64_T, lens, 1, MPI_UINT64_T, e->comm);
	for (int r = 0; r < e->n; r++) {
		uint8_t *b = r == e->rank ? mine : malloc(lens[r] ? lens[r] : 1);

		if (!b)
			MPI_Abort(e->comm, MT_ERR_NOMEM);
		for (uint64_t off = 0; off < lens[r]; off += SCANS_CHUNK)
			MPI_Bcast(b + off, (int)(lens[r] - off < SCANS_CHUNK ?
						 lens[r] - off : SCANS_CHUNK),
				  MPI_BYTE, r, e->comm);
		if (r != e->rank) {
			if (!s)
				s = mt_pipe_split_take(e->sp, (unsigned)r, b, lens[r], err);
			free(b);
		}
	}
	free(mine);
	free(lens);
	return s ? s : mt_pipe_split_opened(e->sp, err);
}

enum mt_status mt_par_engine(MPI_Comm comm, const struct mt_pipe_opts *o,
			     const struct mt_sink_ops *sink, FILE *out,
			     struct mt_err *err)
{
	struct engine e = { .comm = comm, .o = o };
	struct mt_pipe_split_feeder feeder = { root_stream, root_summary, NULL, &e };
	enum mt_status s;
	int got[2];	/* the lowest rank that failed; 0: one met an archive */

	MPI_Comm_rank(comm, &e.rank);
	MPI_Comm_size(comm, &e.n);
	e.lines = e.n > 1 ? sink->lines : NULL;
	/* Every rank opens the same trace; should one fail where another
	 * did not (a file changed meanwhile, or missing on its node), none
	 * goes on, and all say the lowest such rank's error. */
	s = mt_pipe_split_open(o, (unsigned)e.rank, (unsigned)e.n, &e.sp, err);
	agree(&e, s, got);
	if (got[0] == e.n && got[1]) {
		s = scans(&e, err);
		if (s == MT_OK)
			s = setup(&e, err);
		agree(&e, s, got);
	}
	if (s == MT_END) {		/* an OTF2 archive: rank 0 alone */
		s = e.rank == 0 ? mt_pipe_run(o, sink, out, err) : MT_OK;
	} else if (!got[1]) {		/* another met an archive: other paths */
		if (!s)
			s = mt_err_set(err, MT_ERR_IO, "another analysis rank "
				       "could not open the trace");
	} else if (got[0] < e.n) {
		from_rank(comm, got[0], &s, err);
	} else {
		s = divided(&e, &feeder, sink, out, err);
	}
	teardown(&e);
	return s;
}
