/*
 * pipeline.c - the one place where msgtrace's stages meet: reader merge ->
 * decode (feed.c) -> match -> clock correction (clockstage.c) -> sink.
 * When times need correcting, the one pass over the trace collects the
 * messages' times for the correction and spills the messages themselves to
 * a temporary file (spill.c); once the times are corrected, the spilled
 * messages go to the sink with them. The trace is read and matched once.
 */
#include <string.h>

#include "feed.h"
#include "front.h"
#include "mt_otf2in.h"

#define BATCH 1024
#define DRAIN_EVERY 1024u	/* events between two drains of the matcher */
_Static_assert(MT_PIPE_PROGRESS_EVERY % DRAIN_EVERY == 0,
	       "a progress tick falls where a run of records ends");

/* The endpoints whose provider is not the first endpoint's: the ranks of
 * one host can be run on another provider than those of another (their
 * messages between the hosts then do not reach each other), and the RUN
 * line's one provider would hide that. */
static void other_providers(struct mt_run *run, const struct mt_trace *t)
{
	const char *first = t->eps[0].rec->prov_name, *other = NULL, *host = NULL;
	size_t len = sizeof(t->eps[0].rec->prov_name);

	for (size_t i = 1; i < t->neps; i++) {
		const char *p = t->eps[i].rec->prov_name;
		const char *h = t->procs[t->eps[i].proc].host;

		if (!strncmp(p, first, len))
			continue;
		if (!run->providers_differ++) {
			other = p;
			host = h;
			mt_sink_name_text(run->other_provider, sizeof(run->other_provider),
					  p, len);
			mt_sink_name_text(run->other_provider_host,
					  sizeof(run->other_provider_host), h,
					  sizeof(t->procs[0].host));
		} else if (strncmp(p, other, len) || strcmp(h, host)) {
			run->other_providers_more = 1;
		}
	}
}

void mt_pipe_describe(struct mt_run *run, const struct mt_trace *t,
		      const struct feed *fd, const struct mt_note *note)
{
	memset(run, 0, sizeof(*run));
	run->trace = t;
	run->note = note;
	run->nranks = t->nprocs;
	run->t0_ns = INT64_MAX;
	run->t1_ns = INT64_MIN;
	for (size_t p = 0; p < t->nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];
		size_t q;

		for (q = 0; q < p && strcmp(t->procs[q].host, pr->host); q++)
			;
		run->nhosts += q == p;
		for (size_t f = 0; f < pr->nfiles; f++) {
			const struct mt_trace_file *fl = pr->files[f];
			int64_t a = mt_trace_ticks_ns(&pr->clock, fl->first_ts) +
				pr->merge_offset_ns;
			int64_t b = mt_trace_ticks_ns(&pr->clock, fl->last_ts) +
				pr->merge_offset_ns;

			if (!fl->nrecs)
				continue;
			run->t0_ns = a < run->t0_ns ? a : run->t0_ns;
			run->t1_ns = b > run->t1_ns ? b : run->t1_ns;
			for (int l = 0; l < MT_LOSS_COUNT; l++)
				run->lost += fl->hdr->lost[l];
			run->live_files += fl->live;
			run->unclean_files += !mt_trace_file_clean(fl) && !fl->live;
		}
	}
	if (run->t0_ns > run->t1_ns)
		run->t0_ns = run->t1_ns = 0;
	if (t->neps) {
		const struct mt_rec_ep *e = t->eps[0].rec;

		/* Trace strings are data: escaped once, here, for every sink. */
		mt_sink_name_text(run->provider, sizeof(run->provider), e->prov_name,
			     sizeof(e->prov_name));
		mt_sink_name_text(run->fabric, sizeof(run->fabric), e->fabric_name,
			     sizeof(e->fabric_name));
		run->layout = fd->lay[0];
		run->ep_layout = fd->lay;
		run->ep_detect = fd->det;
		run->layout_conf = fd->conf[0];
		for (size_t i = 1; i < t->neps; i++)
			run->layouts_differ += fd->lay[i].id != fd->lay[0].id;
		other_providers(run, t);
	} else {
		mt_tag_layout_get(MT_TAG_LAYOUT_RAW, 0, &run->layout);
	}
}

/* n messages onto the corrected time base, then to the sink. */
static enum mt_status to_sink(struct mt_pipe_dest *d, struct mt_match_msg *b, size_t n,
			      struct mt_err *err)
{
	mt_pipe_clock_apply(d->cs, b, n);
	return d->w ? d->w->write(d->w->arg, b, n, err) :
		d->sink->consume(d->st, b, n, err);
}

/* n messages' times into the clock stage. */
static enum mt_status collect(struct mt_pipe_dest *d, struct mt_match_msg *b,
			      size_t n, struct mt_err *err)
{
	if (mt_pipe_clock_collect(d->cs, b, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	return MT_OK;
}

enum mt_status mt_pipe_put(struct mt_pipe_dest *d, struct mt_match_msg *b, size_t n,
			   struct mt_err *err)
{
	enum mt_status s;

	if (!d->spill)
		return to_sink(d, b, n, err);
	return (s = collect(d, b, n, err)) ? s : mt_pipe_spill_put(d->spill, b, n, err);
}

enum mt_status mt_pipe_drain(struct mt_match *m, struct mt_pipe_dest *d, struct mt_err *err)
{
	struct mt_match_msg *batch;
	enum mt_status s;
	size_t n;

	while ((n = mt_match_take_ref(m, &batch, BATCH)))
		if ((s = mt_pipe_put(d, batch, n, err)))
			return s;
	return MT_OK;
}

typedef enum mt_status spilled_fn(struct mt_pipe_dest *d, struct mt_match_msg *b,
				  size_t n, struct mt_err *err);

/* The spilled messages, read back from the first in batches, to take. */
static enum mt_status read_back(struct mt_pipe_dest *d, spilled_fn *take,
				struct mt_err *err)
{
	static struct mt_match_msg batch[BATCH];
	enum mt_status s;
	size_t n;

	if ((s = mt_pipe_spill_rewind(d->spill, err)))
		return s;
	while (!(s = mt_pipe_spill_get(d->spill, batch, BATCH, &n, err)) && n)
		if ((s = take(d, batch, n, err)))
			return s;
	return s;
}

void mt_pipe_progress_start(const struct mt_pipe_opts *o, uint64_t total)
{
	if (o->progress)
		o->progress->start(o->progress->arg, total);
}

void mt_pipe_progress_tick(const struct mt_pipe_opts *o, uint64_t done)
{
	if (o->progress)
		o->progress->tick(o->progress->arg, done);
}

void mt_pipe_progress_end(const struct mt_pipe_opts *o)
{
	if (o->progress)
		o->progress->end(o->progress->arg);
}

/* MT_ERR_ARG means a path that is no trace (mt_pipe_run): a later stage
 * refusing its input was handed a corrupt trace. */
static enum mt_status input_fault(enum mt_status s)
{
	return s == MT_ERR_ARG ? MT_ERR_CORRUPT : s;
}

enum mt_status mt_pipe_bad_record(const struct mt_pipe_opts *o, enum mt_status s,
				  const struct mt_err *why)
{
	/* Reported; the records before the bad one are still analysed. */
	mt_note_say(&o->note, "%s (%s); records after it are ignored",
		    why->msg, mt_status_str(s));
	return s;
}

/* Merge every record through the matcher into d. A bad record ends the
 * merge with a note; what came before it is still analysed. */
static enum mt_status stream(const struct mt_pipe_opts *o,
			     const struct mt_trace *t, struct feed *fd,
			     struct mt_match *m, struct mt_pipe_dest *d,
			     struct mt_run *run, struct mt_err *err)
{
	struct mt_trace_merge *mg;
	struct mt_err rerr = { { 0 } };
	enum mt_status s = mt_trace_merge_open(t, &mg);
	enum mt_status rc = MT_OK, mrc = MT_OK;
	uint64_t total = 0;

	for (size_t i = 0; i < t->nfiles; i++)
		total += t->files[i]->nrecs;
	mt_pipe_progress_start(o, total);
	if (s)
		return mt_err_set(err, s, "cannot start the merge: %s",
				  mt_status_str(s));
	do {
		s = mt_pipe_feed_read(fd, mg, &rerr);
		/* In runs that end at each drain (every DRAIN_EVERY events,
		 * which divides MT_PIPE_PROGRESS_EVERY: the ticks too). */
		for (size_t i = 0; !mrc && i < fd->n_ev; ) {
			size_t to = i + DRAIN_EVERY - (run->events & (DRAIN_EVERY - 1)), j = i;

			mrc = input_fault(mt_pipe_feed_events(fd, i, to < fd->n_ev ? to :
							      fd->n_ev, &i));
			run->events += i - j;
			if (mrc)
				mt_err_set(err, mrc, "matching failed: %s",
					   mrc == MT_ERR_NOMEM ? "out of memory" :
					   "bad operation");
			else if ((run->events & (DRAIN_EVERY - 1)) == 0)
				mrc = mt_pipe_drain(m, d, err);
			if ((run->events & (MT_PIPE_PROGRESS_EVERY - 1)) == 0)
				mt_pipe_progress_tick(o, run->events);
		}
	} while (!mrc && s == MT_OK);
	mt_pipe_progress_end(o);
	mt_trace_merge_close(mg);
	/* (A matcher failure stopped before the records read ahead.) */
	if (!mrc && s != MT_END && s != MT_OK)
		rc = mt_pipe_bad_record(o, s, &rerr);
	if (mrc)
		return mrc;
	run->skipped = fd->skipped;
	return rc;
}

/* The first failure of a pass wins; later ones are notes, unless they
 * say it again (an output that failed fails again at its end). */
static enum mt_status fail(const struct mt_pipe_opts *o, enum mt_status rc,
			   enum mt_status s, struct mt_err *err,
			   const struct mt_err *why)
{
	if (!s)
		return rc;
	if (rc) {
		if (why->msg[0] && strcmp(why->msg, err->msg))
			mt_note_say(&o->note, "%s", why->msg);
		return rc;
	}
	if (why != err)
		*err = *why;
	return s;
}

/* The sink starts on the run as described before the merge (the merge
 * counts events and skipped records into it: the sink sees them at the
 * end), here or once the spilled messages' times are corrected. */
static enum mt_status sink_start(struct mt_pipe_dest *d, FILE *out, struct mt_run *run,
				 struct mt_err *err)
{
	uint64_t events = run->events, skipped = run->skipped;
	enum mt_status s;

	run->events = run->skipped = 0;
	s = d->sink->init(&d->st, out, run, err);
	run->events = events;
	run->skipped = skipped;
	if (s && !err->msg[0])
		mt_err_set(err, s, "cannot start the %s output", d->sink->name);
	return s;
}

/* Corrects the collected times and starts the sink on the corrected run;
 * on failure the sink never started. A bad record was reported: the
 * records before it are corrected. */
static enum mt_status correct(struct mt_pipe_dest *d, FILE *out, struct mt_run *run,
			      struct mt_err *err)
{
	struct mt_err e2 = { { 0 } };
	enum mt_status s = mt_pipe_clock_solve(d->cs, &e2);

	if (s == MT_END) {	/* times move: each message's are needed */
		mt_pipe_clock_keep_times(d->cs);
		if (!(s = read_back(d, collect, &e2)))
			s = mt_pipe_clock_solve(d->cs, &e2);
	}
	if ((s = input_fault(s)))
		return mt_err_set(err, s, "clock correction failed: %s (--clock "
				  "none skips it)", e2.msg[0] ? e2.msg :
				  mt_status_str(s));
	mt_pipe_clock_describe(d->cs, run);
	return sink_start(d, out, run, err);
}

static enum mt_status fabric_init(void *fe, const struct mt_pipe_opts *o,
				  struct mt_match_cfg *cfg, struct mt_err *err)
{
	struct fabric_front *f = fe;
	enum mt_status s = input_fault(mt_pipe_feed_init(&f->fd, f->t, o->layout, err));

	if (s)
		return mt_err_set(err, s, "%s", mt_status_str(s));
	mt_pipe_feed_match_cfg(&f->fd, cfg);
	return MT_OK;
}

enum mt_status mt_pipe_fabric_attach(void *fe, struct mt_match *m)
{
	return mt_pipe_feed_attach(&((struct fabric_front *)fe)->fd, m);
}

void mt_pipe_fabric_describe(void *fe, struct mt_run *run, const struct mt_note *note)
{
	struct fabric_front *f = fe;

	mt_pipe_describe(run, f->t, &f->fd, note);
}

static enum mt_status fabric_stream(void *fe, const struct mt_pipe_opts *o,
				    struct mt_match *m, struct mt_pipe_dest *d,
				    struct mt_run *run, struct mt_err *err)
{
	struct fabric_front *f = fe;

	return stream(o, f->t, &f->fd, m, d, run, err);
}

static void fabric_fini(void *fe)
{
	mt_pipe_feed_fini(&((struct fabric_front *)fe)->fd);
}

static const struct front_ops fabric_ops = {
	.init = fabric_init,
	.attach = mt_pipe_fabric_attach,
	.describe = mt_pipe_fabric_describe,
	.stream = fabric_stream,
	.fini = fabric_fini,
};

/* The one pass over the input: its events through the matcher into d
 * (the sink, or the spill file and the correction first); the sink is
 * finalized. */
enum mt_status mt_pipe_pass(const struct mt_pipe_opts *o, const struct front_ops *fo,
			    void *fe, struct mt_pipe_dest *d, FILE *out, struct mt_err *err)
{
	struct mt_match *m = NULL;
	struct mt_match_cfg cfg;
	struct mt_err e2 = { { 0 } };
	struct mt_run run;
	enum mt_status s, rc;

	if ((rc = fo->init(fe, o, &cfg, err)))
		goto end;
#ifndef NDEBUG
	cfg.check = 1;			/* debug builds assert the invariants */
#endif
	if (mt_match_new(&cfg, &m) || fo->attach(fe, m)) {
		rc = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		goto end;
	}
	fo->describe(fe, &run, &o->note);
	mt_pipe_clock_describe(d->cs, &run);
	d->st = o->sink_arg;
	if (mt_pipe_clock_buffers(d->cs)) {
		if ((rc = mt_pipe_spill_open(&d->spill,
					       mt_pipe_clock_gathers(d->cs), err)))
			goto end;
	} else if ((rc = sink_start(d, out, &run, err))) {
		goto end;
	}
	rc = fo->stream(fe, o, m, d, &run, err);
	if (!fo->finishes && ((s = mt_match_finish(m)) ||
			      (s = mt_pipe_drain(m, d, &e2))))
		rc = fail(o, rc, s, err, &e2);
#ifndef NDEBUG
	char why[256];

	if (mt_match_check(m, why, sizeof(why))) {
		mt_err_set(&e2, MT_ERR_INTERNAL, "internal error: matcher "
			   "invariant broken: %s", why);
		rc = fail(o, rc, MT_ERR_INTERNAL, err, &e2);
	}
#endif
	if (d->spill) {
		if ((s = correct(d, out, &run, err))) {
			rc = s;
			goto end;
		}
		e2.msg[0] = 0;
		if ((s = read_back(d, to_sink, &e2)))
			rc = fail(o, rc, s, err, &e2);
	}
	mt_pipe_clock_describe(d->cs, &run);
	{
		const struct mt_match_summary *own = fo->summary ?
			fo->summary(fe, mt_match_summary(m)) : mt_match_summary(m);
		const struct mt_match_summary *sum =
			own ? mt_pipe_clock_summary(d->cs, own) : NULL;

		if (!sum) {	/* the sink still ends, and frees its state */
			mt_err_set(&e2, MT_ERR_NOMEM, "out of memory");
			rc = fail(o, rc, MT_ERR_NOMEM, err, &e2);
			sum = mt_match_summary(m);
		}
		e2.msg[0] = 0;
		if (d->w && (s = d->w->end(d->w->arg, &e2)))
			rc = fail(o, rc, s, err, &e2);
		e2.msg[0] = 0;
		if ((s = d->sink->finalize(d->st, &run, sum, &e2)))
			rc = fail(o, rc, s, err, &e2);
	}
end:
	mt_pipe_spill_close(d->spill);
	mt_match_free(m);
	fo->fini(fe);
	return rc;
}

enum mt_status mt_pipe_open_fabric(const struct mt_pipe_opts *o, int part,
				   unsigned nparts, struct mt_trace **t,
				   struct mt_err *err)
{
	enum mt_status rc;

	for (size_t i = 0; o->npaths > 1 && i < o->npaths; i++)
		if (mt_otf2in_is_archive(o->paths[i]))
			return mt_err_set(err, MT_ERR_ARG, "%s: an OTF2 archive is "
					  "read on its own, not with other traces",
					  o->paths[i]);
	rc = part < 0 ? mt_trace_open(o->paths, o->npaths, t, err) :
		mt_trace_open_part(o->paths, o->npaths, (unsigned)part, nparts, t, err);
	if (rc && !err->msg[0])
		mt_err_set(err, rc, "%s", mt_status_str(rc));
	return rc;
}

enum mt_status mt_pipe_run(const struct mt_pipe_opts *o,
			   const struct mt_sink_ops *sink, FILE *out,
			   struct mt_err *err)
{
	struct mt_trace *t = NULL;
	struct mt_pipe_dest d = { .sink = sink };
	struct fabric_front f = { 0 };
	enum mt_status rc;

	if (o->npaths == 1 && mt_otf2in_is_archive(o->paths[0])) {
		if (sink == &mt_sink_tags || sink == &mt_sink_tags_json)
			return mt_err_set(err, MT_ERR_ARG, "%s: an OTF2 archive "
					  "records MPI tags as the program gave "
					  "them: `tags` (the fabric tag layouts) "
					  "does not apply; `msgtrace messages` "
					  "lists them", o->paths[0]);
		return mt_pipe_otf2_run(o, o->paths[0], sink, out, err);
	}
	if ((rc = mt_pipe_open_fabric(o, -1, 1, &t, err)))
		return rc;
	f.t = t;
	d.cs = mt_pipe_clock_new(o->clock, t);
	if (!d.cs)
		rc = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	else
		rc = mt_pipe_pass(o, &fabric_ops, &f, &d, out, err);
	mt_pipe_clock_free(d.cs);
	mt_trace_close(t);
	return rc;
}
