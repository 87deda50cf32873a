/*
 * otf2front.c - the OTF2 front end of the pass (see front.h): an archive's
 * events through mt_otf2in into the matcher, and what the archive leaves
 * out said once, as notes, so that no conclusion rests on a missing event.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "mt_otf2in.h"

#define OTF2_CHUNK 1024u	/* events between two drains of the matcher */
_Static_assert(MT_PIPE_PROGRESS_EVERY % OTF2_CHUNK == 0,
	       "a progress tick falls where a chunk ends");

struct otf2_front {
	struct mt_otf2in *in;
	const struct mt_note *note;
	struct mt_match_summary sum;	/* the matcher's, pending filtered */
};

static enum mt_status otf2_init(void *fe, const struct mt_pipe_opts *o,
				struct mt_match_cfg *cfg, struct mt_err *err)
{
	(void)fe;
	(void)err;
	if (o->layout != MT_TAG_LAYOUT_NONE)
		mt_note_say(&o->note, "--layout does not apply to an OTF2 archive: "
			    "its events name communicator, rank and tag");
	mt_otf2in_match_cfg(cfg);
	return MT_OK;
}

static enum mt_status otf2_attach(void *fe, struct mt_match *m)
{
	return mt_otf2in_attach(((struct otf2_front *)fe)->in, m);
}

static void otf2_describe(void *fe, struct mt_run *run, const struct mt_note *note)
{
	struct otf2_front *f = fe;
	const struct mt_trace *t = mt_otf2in_trace(f->in);
	const struct mt_otf2in_facts *x = mt_otf2in_facts(f->in);

	memset(run, 0, sizeof(*run));
	f->note = note;
	run->trace = t;
	run->note = note;
	run->mpi_level = 1;
	run->nranks = t->nprocs;
	run->nhosts = t->nhosts;
	snprintf(run->provider, sizeof(run->provider), "OTF2%s%.26s",
		 x->creator[0] ? " " : "", x->creator);
	snprintf(run->fabric, sizeof(run->fabric), "MPI");
	run->t0_ns = (int64_t)x->start_ns;
	run->t1_ns = (int64_t)x->length_ns;
	mt_tag_layout_get(MT_TAG_LAYOUT_RAW, 0, &run->layout);
}

/* What the archive leaves out, or what the run stopped in. */
static void say_facts(const struct mt_note *n, const char *path,
		      const struct mt_otf2in_facts *x)
{
	if (x->irecv_unrecorded)
		mt_note_say(n, "%s: the archive records no completion of a "
			    "nonblocking receive (no MpiIrecv event; EZTrace 2.0 "
			    "writes none): %" PRIu64 " MPI_Irecv requests are left "
			    "out, and the messages they received show as unmatched "
			    "sends", path, x->irecv_unrecorded);
	if (x->irecv_open)
		mt_note_say(n, "%s: %" PRIu64 " nonblocking receives were never "
			    "completed (MpiIrecvRequest without MpiIrecv): pending, "
			    "their source and tag unknown", path, x->irecv_open);
	if (x->joined_calls)
		mt_note_say(n, "%s: msgtrace's export of a joined run: the %" PRIu64
			    " sends and receives of its MPI calls are not read as "
			    "messages (its fabric messages are); for the joined view "
			    "read the fabric trace with the MPI tracer's archive",
			    path, x->joined_calls);
	if (x->sendrecv_empty)
		mt_note_say(n, "%s: %" PRIu64 " MPI_Sendrecv calls hold no send or "
			    "receive event (EZTrace 2.0 records none): their "
			    "messages are not in the archive", path, x->sendrecv_empty);
	if (x->colls)
		mt_note_say(n, "%s: %" PRIu64 " collective operations (%" PRIu64
			    " bytes sent, %" PRIu64 " received): an MPI-level trace "
			    "records no message inside them", path, x->colls,
			    x->coll_sent, x->coll_recvd);
	if (x->colls_open)
		mt_note_say(n, "%s: %" PRIu64 " collective operations began and "
			    "never ended", path, x->colls_open);
	if (x->ranks_in_calls)
		mt_note_say(n, "%s: %" PRIu64 " locations were inside a call at the "
			    "end of the archive (the first: rank %d in %s)", path,
			    x->ranks_in_calls, x->open_rank, x->open_call);
	if (x->skipped)
		mt_note_say(n, "%s: %" PRIu64 " events name an undefined location, "
			    "communicator or rank: skipped", path, x->skipped);
}

static enum mt_status otf2_stream(void *fe, const struct mt_pipe_opts *o,
				  struct mt_match *m, struct mt_pipe_dest *d,
				  struct mt_run *run, struct mt_err *err)
{
	struct otf2_front *f = fe;
	struct mt_err rerr = { { 0 } };
	enum mt_status s, rc = MT_OK;
	uint64_t n;

	mt_pipe_progress_start(o, mt_otf2in_facts(f->in)->defined_events);
	do {
		s = mt_otf2in_read(f->in, OTF2_CHUNK, &n, &rerr);
		run->events += n;
		if (s == MT_OK || s == MT_END) {
			enum mt_status ds = mt_pipe_drain(m, d, err);

			if (ds) {
				mt_pipe_progress_end(o);
				return ds;
			}
		}
		if ((run->events & (MT_PIPE_PROGRESS_EVERY - 1)) == 0)
			mt_pipe_progress_tick(o, run->events);
	} while (s == MT_OK);
	mt_pipe_progress_end(o);
	if (s == MT_ERR_NOMEM) {
		*err = rerr;
		return s;
	}
	if (s != MT_END) {
		/* Report, but still analyse the events before the bad one. */
		mt_note_say(&o->note, "%s (%s); events after it are ignored",
			    rerr.msg, mt_status_str(s));
		rc = s;
	}
	if ((s = mt_otf2in_finish(f->in)))
		return mt_err_set(err, s, "%s: matching failed: %s",
				  mt_otf2in_path(f->in), mt_status_str(s));
	say_facts(&o->note, mt_otf2in_path(f->in), mt_otf2in_facts(f->in));
	run->skipped = mt_otf2in_facts(f->in)->skipped;
	return rc;
}

/* The pending operations without those that only wait for a completion
 * the producer never records (they are no hang). */
static const struct mt_match_summary *otf2_summary(void *fe,
						   const struct mt_match_summary *s)
{
	struct otf2_front *f = fe;
	size_t k = 0;

	f->sum = *s;
	f->sum.pending = malloc((s->n_pending ? s->n_pending : 1) *
				sizeof(*s->pending));
	if (!f->sum.pending)
		return NULL;
	for (size_t i = 0; i < s->n_pending; i++)
		if (!mt_otf2in_unrecorded(f->in, &s->pending[i].op))
			f->sum.pending[k++] = s->pending[i];
	f->sum.n_pending = k;
	if (k < s->n_pending)
		mt_note_say(f->note, "%s: the archive records no completion of a "
			    "nonblocking send (no MpiIsendComplete event; EZTrace "
			    "2.0 writes none): %zu MPI_Isend operations have no "
			    "send-done time and are not taken for waits",
			    mt_otf2in_path(f->in), s->n_pending - k);
	return &f->sum;
}

static void otf2_fini(void *fe)
{
	struct otf2_front *f = fe;

	free(f->sum.pending);
	f->sum.pending = NULL;
}

static const struct front_ops otf2_ops = {
	.init = otf2_init,
	.attach = otf2_attach,
	.describe = otf2_describe,
	.stream = otf2_stream,
	.summary = otf2_summary,
	.fini = otf2_fini,
};

enum mt_status mt_pipe_otf2_run(const struct mt_pipe_opts *o, const char *path,
				const struct mt_sink_ops *sink, FILE *out,
				struct mt_err *err)
{
	struct otf2_front f = { 0 };
	struct mt_pipe_dest d = { .sink = sink };
	enum mt_status rc = mt_otf2in_open(path, &f.in, err);

	if (rc)
		return rc == MT_ERR_ARG ? MT_ERR_CORRUPT : rc;
	/* Times msgtrace exported on one clock: auto has nothing to correct
	 * (its processes declare no shared clock, so it would look). */
	d.cs = mt_pipe_clock_new(o->clock == MT_CLOCK_MODE_AUTO &&
				 mt_otf2in_one_clock(f.in) ? MT_CLOCK_MODE_NONE :
				 o->clock, mt_otf2in_trace(f.in));
	if (!d.cs)
		rc = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	else
		rc = mt_pipe_pass(o, &otf2_ops, &f, &d, out, err);
	mt_pipe_clock_free(d.cs);
	mt_otf2in_close(f.in);
	return rc;
}
