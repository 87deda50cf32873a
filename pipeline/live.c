/*
 * live.c - views of a trace still being written (`msgtrace watch`). The
 * first view reads the trace as every command does (merge, decode,
 * match); each later view reads every file on from where the last one
 * stopped (mt_trace_file_resume: its header, then only the bytes committed
 * since), orders the new records by time and feeds them to the same
 * matcher, whose state stays between views: a view costs the records
 * written since plus a look at each open file's header. A view then asks
 * the matcher what is pending now (mt_match_view) without ending its
 * input. A file closed meanwhile is finished by its last records (object
 * closes, the closing clock pair, its header's closed flag). What the
 * reader's tables are built from changing (a new file, an endpoint, an
 * address: they come at start) makes that view read the trace anew. Times
 * are as recorded, on each process's clock map as first read (no clock
 * correction: a view says how long operations have waited, on the clock
 * the trace merges on).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clockstage.h"
#include "feed.h"
#include "mt_otf2in.h"

#define BATCH 1024

struct live_ev {
	struct mt_trace_event ev;
	int64_t key;			/* merged ns, never below the file's previous */
	uint64_t seq;			/* order read */
};

struct mt_pipe_live {
	struct mt_pipe_opts o;
	struct mt_trace *t;
	struct feed fd;
	struct mt_match *m;
	struct mt_trace_tail *tail;	/* per t->files[]: records read last */
	struct live_ev *ev;
	size_t nev, cap_ev;
	uint64_t events;		/* records fed since the trace was opened */
	enum mt_status bad;		/* a bad record ended the last whole read */
	struct mt_pipe_live_stats stats;
};

/* Matched messages are not part of a view: taken and dropped, so that the
 * matcher's memory follows what is in flight. */
static void drop_finished(struct mt_match *m)
{
	static struct mt_match_msg batch[BATCH];

	while (mt_match_take(m, batch, BATCH))
		;
}

static void forget(struct mt_pipe_live *l)
{
	for (size_t i = 0; l->tail && i < l->t->nfiles; i++)
		free(l->tail[i].buf);
	free(l->tail);
	l->tail = NULL;
	mt_match_free(l->m);
	l->m = NULL;
	mt_pipe_feed_fini(&l->fd);
	memset(&l->fd, 0, sizeof(l->fd));
	mt_trace_close(l->t);
	l->t = NULL;
	l->events = 0;
	l->bad = MT_OK;
}

static enum mt_status feed_one(struct mt_pipe_live *l,
			       const struct mt_trace_event *ev, struct mt_err *err)
{
	enum mt_status s = mt_pipe_feed_event(&l->fd, ev);

	if (s)
		return mt_err_set(err, s == MT_ERR_ARG ? MT_ERR_CORRUPT : s,
				  "matching failed: %s", s == MT_ERR_NOMEM ?
				  "out of memory" : "bad operation");
	if ((++l->events & (BATCH - 1)) == 0)
		drop_finished(l->m);
	return MT_OK;
}

/* Reads the whole trace as it is now into a new matcher (l forgot the
 * last one). */
static enum mt_status read_all(struct mt_pipe_live *l, struct mt_err *err)
{
	struct mt_trace_merge *mg;
	struct mt_trace_event ev;
	struct mt_err rerr = { { 0 } };
	struct mt_match_cfg cfg;
	enum mt_status s;

	l->stats.full_reads++;
	if ((s = mt_trace_open(l->o.paths, l->o.npaths, &l->t, err)))
		return s;
	if (!(l->tail = calloc(l->t->nfiles, sizeof(*l->tail))))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < l->t->nfiles; i++)
		l->tail[i].from = l->t->files[i]->valid_end;
	if ((s = mt_pipe_feed_init(&l->fd, l->t, l->o.layout, err)))
		return mt_err_set(err, s == MT_ERR_ARG ? MT_ERR_CORRUPT : s, "%s",
				  mt_status_str(s));
	mt_pipe_feed_match_cfg(&l->fd, &cfg);
	if (mt_match_new(&cfg, &l->m) || mt_pipe_feed_attach(&l->fd, l->m) ||
	    mt_trace_merge_open(l->t, &mg))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	while ((s = mt_trace_merge_next(mg, &ev, &rerr)) == MT_OK)
		if ((s = feed_one(l, &ev, err)))
			break;
	mt_trace_merge_close(mg);
	if (s != MT_END && s != MT_OK && rerr.msg[0]) {
		/* As every command: the records before a bad one still count,
		 * the view is shown, and then it fails. */
		mt_note_say(&l->o.note, "%s (%s); records after it are ignored",
			    rerr.msg, mt_status_str(s));
		l->bad = s;
	} else if (s != MT_END) {
		return s;
	}
	l->stats.records = l->events;
	return MT_OK;
}

/* Trace files in the paths now (*.mt names): one more than the trace
 * holds means a writer started a file since. */
static size_t count_files(const struct mt_pipe_opts *o)
{
	size_t n = 0, sfx = strlen(MT_TRACE_SUFFIX);

	for (size_t i = 0; i < o->npaths; i++) {
		DIR *d = opendir(o->paths[i]);
		struct dirent *e;

		if (!d) {
			n++;		/* a file given by name */
			continue;
		}
		while ((e = readdir(d))) {
			size_t len = strlen(e->d_name);

			n += len > sfx && !strcmp(e->d_name + len - sfx, MT_TRACE_SUFFIX);
		}
		closedir(d);
	}
	return n;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct live_ev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ev.proc != y->ev.proc)
		return x->ev.proc < y->ev.proc ? -1 : 1;
	if (x->ev.file != y->ev.file)
		return x->ev.file < y->ev.file ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* File i's new records as events; *setup when one is no OP or CQE. */
static enum mt_status collect(struct mt_pipe_live *l, size_t i, int *setup,
			      struct mt_err *err)
{
	struct mt_trace_file *f = l->t->files[i];
	struct mt_trace_tail *tl = &l->tail[i];
	const struct mt_trace_proc *p = &l->t->procs[f->proc];
	int64_t floor = INT64_MIN;
	enum mt_status s;

	if ((s = mt_trace_file_resume(f, tl->from + tl->len, tl, err)))
		return s;
	*setup |= tl->setup;
	for (size_t off = 0; off < tl->len;) {
		const struct mt_rec_hdr *r = (const void *)(tl->buf + off);
		struct live_ev *e;

		if (l->nev == l->cap_ev) {
			size_t cap = l->cap_ev ? 2 * l->cap_ev : 1024;

			if (!(e = realloc(l->ev, cap * sizeof(*e))))
				return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
			l->ev = e;
			l->cap_ev = cap;
		}
		e = &l->ev[l->nev++];
		e->ev = (struct mt_trace_event){ f->proc, f->index, r,
			mt_trace_ticks_ns(&p->clock, r->ts) };
		/* A file's records keep their order (see the merge). */
		e->key = e->ev.ns + p->merge_offset_ns;
		e->key = e->key < floor ? floor : e->key;
		floor = e->key;
		e->seq = l->nev;
		off += r->size;
	}
	return MT_OK;
}

/* The records committed since the last view, in time order, into the
 * matcher; MT_END when the trace must be read anew instead. */
static enum mt_status read_on(struct mt_pipe_live *l, struct mt_err *err)
{
	enum mt_status s = MT_OK;
	int setup = 0;

	if (l->t->nempty || count_files(&l->o) != l->t->nfiles)
		return MT_END;
	l->nev = 0;
	for (size_t i = 0; i < l->t->nfiles && !s && !setup; i++)
		s = collect(l, i, &setup, err);
	/* A file that cannot be read on (removed, rewritten) is read anew
	 * with the rest, which says what is wrong with it. */
	if (s == MT_ERR_IO || s == MT_ERR_CORRUPT || setup) {
		err->msg[0] = '\0';
		return MT_END;
	}
	if (s)
		return s;
	if (l->nev)
		qsort(l->ev, l->nev, sizeof(*l->ev), cmp_ev);
	for (size_t i = 0; i < l->nev && !s; i++)
		s = feed_one(l, &l->ev[i].ev, err);
	mt_trace_resume_alive(l->t);
	l->stats.records = l->nev;
	return s;
}

enum mt_status mt_pipe_live_new(const struct mt_pipe_opts *o,
				struct mt_pipe_live **out, struct mt_err *err)
{
	struct mt_pipe_live *l;

	*out = NULL;
	if (o->npaths == 1 && mt_otf2in_is_archive(o->paths[0]))
		return mt_err_set(err, MT_ERR_ARG, "%s: an OTF2 archive is written "
				  "when the run ends: `msgtrace report` reads it, "
				  "hang analysis included; watch follows a fabric "
				  "trace while it is written", o->paths[0]);
	if (!(l = calloc(1, sizeof(*l))))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	l->o = *o;
	*out = l;
	return MT_OK;
}

void mt_pipe_live_free(struct mt_pipe_live *l)
{
	if (!l)
		return;
	forget(l);
	free(l->ev);
	free(l);
}

const struct mt_pipe_live_stats *mt_pipe_live_stats(const struct mt_pipe_live *l)
{
	return &l->stats;
}

/* The view into sink: the run as it is, the sends no receive has taken,
 * the pending operations. */
static enum mt_status show(struct mt_pipe_live *l, const struct mt_sink_ops *sink,
			   FILE *out, struct mt_err *err)
{
	struct clockstage *cs = mt_pipe_clock_new(MT_CLOCK_MODE_NONE, l->t);
	struct mt_match_summary sum;
	struct mt_match_msg *sends = NULL;
	struct mt_err e2 = { { 0 } };
	enum mt_status s, rc;
	struct mt_run run;
	void *st = l->o.sink_arg;
	size_t n = 0;

	if (!cs || mt_match_view(l->m, &sum, &sends, &n)) {
		mt_pipe_clock_free(cs);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	mt_pipe_describe(&run, l->t, &l->fd, &l->o.note);
	mt_pipe_clock_describe(cs, &run);
	if ((rc = sink->init(&st, out, &run, err))) {
		if (!err->msg[0])
			mt_err_set(err, rc, "cannot start the %s output", sink->name);
	} else {
		run.events = l->events;
		run.skipped = l->fd.skipped;
		rc = sink->consume(st, sends, n, err);
		/* The sink ends (and frees its state) whatever came before. */
		if ((s = sink->finalize(st, &run, &sum, &e2)) && !rc) {
			rc = s;
			*err = e2;
		}
	}
	free(sum.pending);
	free(sends);
	mt_pipe_clock_free(cs);
	return rc;
}

enum mt_status mt_pipe_live_view(struct mt_pipe_live *l,
				 const struct mt_sink_ops *sink, FILE *out,
				 struct mt_err *err)
{
	enum mt_status s = l->t ? read_on(l, err) : MT_END;

	if (s == MT_END) {
		forget(l);
		s = read_all(l, err);
	} else if (!s) {
		l->stats.resumed++;
	}
	if (s) {
		forget(l);	/* nothing half read left for the next view */
		return s;
	}
	return (s = show(l, sink, out, err)) ? s : l->bad;
}
