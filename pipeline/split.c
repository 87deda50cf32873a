/*
 * split.c - the pipeline divided by traced process (mt_pipe.h: msgtrace-mpi
 * reads each process's records on one analysis rank and pairs each message
 * on another). Every rank opens the whole trace, so that endpoints,
 * processes and decoded operations are numbered alike everywhere: each
 * scans its share of the files (from a copy, or giving their pages back
 * once scanned: its memory is then its own files) and takes the others'
 * scans from their ranks (mt_trace_open_part). It decides the layouts as
 * the serial pass does, on evidence each rank gathers from its own files
 * and the caller exchanges; it reads its own processes' files only, their
 * operations handed to the caller's route with their place in the merge of
 * every file. The rank that writes runs the serial
 * pass (pipeline.c) with the caller feeding it the messages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "mt_otf2in.h"

#define WHERE_SLOT_SHIFT 40	/* struct mt_pipe_at.where: slot, record */

struct mt_pipe_split {
	struct mt_trace *t;
	struct fabric_front f;		/* the feed, initialized at open */
	struct mt_match_cfg cfg;
	const struct mt_pipe_opts *o;
	struct mt_trace_merge *mg;
	uint32_t *slot0;		/* per process: slot of its first file */
	uint64_t *last;			/* per slot: latest key so far */
	uint64_t *recs;			/* per slot: records read */
	const struct mt_pipe_split_feeder *feeder;	/* mt_pipe_split_run's */
};

enum mt_status mt_pipe_split_open(const struct mt_pipe_opts *o, unsigned part,
				  unsigned nparts, struct mt_pipe_split **out,
				  struct mt_err *err)
{
	struct mt_pipe_split *s;
	enum mt_status rc;

	*out = NULL;
	if (o->npaths == 1 && mt_otf2in_is_archive(o->paths[0]))
		return MT_END;
	if (!(s = calloc(1, sizeof(*s))))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	s->o = o;
	if ((rc = mt_pipe_open_fabric(o, (int)part, nparts, &s->t, err))) {
		free(s);
		return rc;
	}
	*out = s;
	return MT_OK;
}

enum mt_status mt_pipe_split_scans(const struct mt_pipe_split *s, unsigned part,
				   void **buf, size_t *len)
{
	return mt_trace_part_scans(s->t, part, buf, len);
}

enum mt_status mt_pipe_split_take(struct mt_pipe_split *s, unsigned from,
				  const void *buf, size_t len, struct mt_err *err)
{
	return mt_trace_part_take(s->t, from, buf, len, err);
}

enum mt_status mt_pipe_split_opened(struct mt_pipe_split *s, struct mt_err *err)
{
	enum mt_status rc = mt_trace_part_done(s->t, err);

	if (rc)
		return rc;
	s->f.t = s->t;
	s->slot0 = calloc(s->t->nprocs ? s->t->nprocs : 1, sizeof(*s->slot0));
	s->last = calloc(s->t->nfiles ? s->t->nfiles : 1, sizeof(*s->last));
	s->recs = calloc(s->t->nfiles ? s->t->nfiles : 1, sizeof(*s->recs));
	if (!s->slot0 || !s->last || !s->recs)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (uint32_t p = 0, slot = 0; p < s->t->nprocs; p++) {
		s->slot0[p] = slot;
		slot += (uint32_t)s->t->procs[p].nfiles;
	}
	return MT_OK;
}

void mt_pipe_split_close(struct mt_pipe_split *s)
{
	if (!s)
		return;
	mt_trace_merge_close(s->mg);
	mt_pipe_feed_fini(&s->f.fd);
	mt_trace_close(s->t);
	free(s->slot0);
	free(s->last);
	free(s->recs);
	free(s);
}

const struct mt_trace *mt_pipe_split_trace(const struct mt_pipe_split *s)
{
	return s->t;
}

struct mt_tag_evidence *mt_pipe_split_evidence(struct mt_pipe_split *s,
					       const uint8_t *keep,
					       size_t *bad_file,
					       struct mt_err *err)
{
	struct mt_tag_evidence *ev = calloc(s->t->neps ? s->t->neps : 1, sizeof(*ev));

	/* A bad record only ends the evidence, as in the serial pass: the
	 * merge reports it in place. */
	*bad_file = SIZE_MAX;
	if (ev)
		mt_pipe_evidence(s->t, keep, ev, bad_file, err);
	return ev;
}

enum mt_status mt_pipe_split_layouts(struct mt_pipe_split *s,
				     const struct mt_tag_evidence *ev,
				     struct mt_err *err)
{
	if (mt_pipe_feed_init_from(&s->f.fd, s->t, s->o->layout, ev))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	mt_pipe_feed_match_cfg(&s->f.fd, &s->cfg);
	return MT_OK;
}

enum mt_status mt_pipe_split_matcher(struct mt_pipe_split *s, struct mt_match **out)
{
	*out = NULL;
	if (mt_match_new(&s->cfg, out) || mt_pipe_fabric_attach(&s->f, *out)) {
		mt_match_free(*out);
		*out = NULL;
		return MT_ERR_NOMEM;
	}
	return MT_OK;
}

enum mt_status mt_pipe_split_start(struct mt_pipe_split *s, const uint8_t *keep,
				   const struct mt_pipe_route *route)
{
	s->f.fd.route = route;
	mt_trace_merge_close(s->mg);
	s->mg = NULL;
	return mt_trace_merge_open_some(s->t, keep, &s->mg);
}

enum mt_status mt_pipe_split_next(struct mt_pipe_split *s, struct mt_pipe_at *at,
				  int *skipped, struct mt_err *err)
{
	struct mt_trace_event ev;
	uint64_t skipped0 = s->f.fd.skipped;
	enum mt_status rc = mt_trace_merge_next(s->mg, &ev, err);
	uint32_t slot;
	uint64_t key;

	if (rc)
		return rc;
	slot = s->slot0[ev.proc] + ev.file;
	/* The merge's own key: ns on the merged clock, sign bit flipped. */
	key = (uint64_t)(ev.ns + s->t->procs[ev.proc].merge_offset_ns) ^ (1ull << 63);
	if (key > s->last[slot])
		s->last[slot] = key;
	at->key = s->last[slot];
	at->where = (uint64_t)slot << WHERE_SLOT_SHIFT | s->recs[slot]++;
	rc = mt_pipe_feed_event(&s->f.fd, &ev);
	*skipped = s->f.fd.skipped != skipped0;
	return rc;
}

/* The pass's front end over a split: the feed is the split's (made at
 * open), the events come from the caller's feeder. */
static enum mt_status split_init(void *fe, const struct mt_pipe_opts *o,
				 struct mt_match_cfg *cfg, struct mt_err *err)
{
	(void)o;
	(void)err;
	*cfg = ((struct mt_pipe_split *)fe)->cfg;
	return MT_OK;
}

static enum mt_status split_attach(void *fe, struct mt_match *m)
{
	return mt_pipe_fabric_attach(&((struct mt_pipe_split *)fe)->f, m);
}

static void split_describe(void *fe, struct mt_run *run, const struct mt_note *note)
{
	mt_pipe_fabric_describe(&((struct mt_pipe_split *)fe)->f, run, note);
}

static enum mt_status split_stream(void *fe, const struct mt_pipe_opts *o,
				   struct mt_match *m, struct mt_pipe_dest *d,
				   struct mt_run *run, struct mt_err *err)
{
	const struct mt_pipe_split_feeder *f = ((struct mt_pipe_split *)fe)->feeder;

	(void)o;
	return f->stream(f->arg, m, d, run, err);
}

static const struct mt_match_summary *split_summary(void *fe,
						    const struct mt_match_summary *own)
{
	const struct mt_pipe_split_feeder *f = ((struct mt_pipe_split *)fe)->feeder;

	return f->summary(f->arg, own);
}

static void split_fini(void *fe)
{
	(void)fe;
}

static const struct front_ops split_ops = {
	.init = split_init,
	.attach = split_attach,
	.describe = split_describe,
	.stream = split_stream,
	.finishes = 1,
	.summary = split_summary,
	.fini = split_fini,
};

enum mt_status mt_pipe_split_run(struct mt_pipe_split *s, const struct mt_pipe_opts *o,
				 const struct mt_pipe_split_feeder *f,
				 const struct mt_sink_ops *sink, FILE *out,
				 struct mt_err *err)
{
	struct mt_pipe_dest d = { .sink = sink, .w = f->writer };
	enum mt_status rc;

	s->feeder = f;
	if (!(d.cs = mt_pipe_clock_new(o->clock, s->t)))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	rc = mt_pipe_pass(o, &split_ops, s, &d, out, err);
	mt_pipe_clock_free(d.cs);
	return rc;
}
