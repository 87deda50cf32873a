/*
 * sink_otf2.c - `msgtrace export --otf2`: an OTF2 archive written with
 * libotf2 that Vampir and otf2-print read.
 *
 * Each message becomes, on the sender's location, MpiIsend at the send's
 * post and MpiIsendComplete at its completion, and on the receiver's,
 * MpiIrecvRequest at the receive's post and MpiIrecv at its completion, all
 * with the message number as request id; each sits in a short region
 * (Enter/Leave) named after the fabric operation and the message kind. A
 * cancelled operation ends with MpiRequestCancelled. Operations still
 * pending at the end of the trace (a hang) appear as their MpiIsend or
 * MpiIrecvRequest alone. Messages that are not plainly matched carry a
 * "status" attribute (truncated, unmatched_send, ..., pending) and
 * truncated receives their posted length ("recv_buf").
 *
 * Messages arrive when they finish, not in time order, so each location
 * keeps its last REORDER_CAP events in a time-sorted window and writes the
 * oldest when it overflows. Arrival is nearly in time order (an event is
 * late by the operations that completed while it was in flight), so an
 * insertion from the back costs a few comparisons. An event older than one already written (an operation in flight
 * for longer than the window) is written just after it and counted as
 * moved. Equal times stay equal (OTF2 takes non-decreasing times per
 * location), so that reading the archive back gives the times exported.
 *
 * Its times are those of the messages: on one clock (the trace's, or the
 * corrected merged clock) unless the trace spans several clock domains and
 * none was corrected; the property MSGTRACE::ONE_CLOCK says which, so that
 * reading it back does not correct them again.
 *
 * MPI tags: OTF2's tag is unsigned 32 bits; the tag is written as its 32-bit
 * two's complement, so Open MPI's negative internal tags read as values
 * >= 2^31 (-16, the barrier tag, is 4294967280).
 */
#include <stdlib.h>
#include <string.h>

#include "sink_otf2.h"

#define REORDER_CAP (1u << 16)	/* events per location */
#define CHUNK_EVENTS (1u << 20)
#define CHUNK_DEFS (4u << 20)
#define BUFFER_CHUNKS 2

enum ev_type { EV_ISEND, EV_ISEND_DONE, EV_IRECV_REQ, EV_IRECV, EV_CANCEL };

struct ev {
	uint64_t ts;
	uint64_t req;
	uint64_t len;
	uint64_t recv_buf;
	struct mt_match_fields f;	/* the fabric fields (ATTR_KIND ...) */
	int32_t world_peer;	/* a request's: world rank it was posted for;
				 * a cancel's: the other side's, -1 */
	uint32_t peer;		/* rank in the communicator */
	uint32_t comm;
	uint32_t tag;
	uint32_t site;		/* call site number, 0: none */
	uint8_t type;		/* enum ev_type */
	uint8_t kind;		/* enum mt_match_kind */
	uint8_t status;		/* enum mt_match_status */
};

struct loc {
	OTF2_EvtWriter *w;
	struct ev *win;		/* 2 * REORDER_CAP: sorted events in [head, end) */
	uint32_t head, end;
	uint64_t last;		/* last timestamp written, 0 = none */
};

/* OTF2 keeps a location's events in chunks of CHUNK_EVENTS bytes for as
 * long as chunks are given to it, and writes them out (then frees them all)
 * when a chunk is refused: each buffer gets BUFFER_CHUNKS chunks, and the
 * chunks freed wait here for the next buffer, since fresh memory costs a
 * page fault per 4 KiB, more than writing the events. */
struct chunk_list {
	void **c;
	size_t n, cap;
	uint64_t size;		/* of each chunk: events and definitions differ */
};

struct otf2_sink {
	struct otf2_out o;
	struct chunk_list spare;
	struct loc *loc;
	OTF2_AttributeList *attrs;
	uint64_t msgs, moved;
	int failed;
	struct mt_err err;	/* o.err points here */
};

static OTF2_FlushType pre_flush(void *user, OTF2_FileType ft,
				OTF2_LocationRef loc, void *caller, bool final)
{
	(void)user, (void)ft, (void)loc, (void)caller, (void)final;
	return OTF2_FLUSH;
}

static int list_add(struct chunk_list *l, void *chunk)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void **c = realloc(l->c, cap * sizeof(*c));

		if (!c)
			return -1;
		l->c = c;
		l->cap = cap;
	}
	l->c[l->n++] = chunk;
	return 0;
}

static void *chunk_alloc(void *user, OTF2_FileType ft, OTF2_LocationRef loc,
			 void **per_buffer, uint64_t size)
{
	struct chunk_list *spare = user, *mine = *per_buffer;
	void *chunk;

	(void)loc;
	if (!mine && !(mine = *per_buffer = calloc(1, sizeof(*mine))))
		return NULL;
	if (ft == OTF2_FILETYPE_EVENTS && mine->n == BUFFER_CHUNKS)
		return NULL;	/* full: OTF2 flushes this buffer */
	mine->size = size;
	chunk = spare->n && size == CHUNK_EVENTS ? spare->c[--spare->n] :
		malloc(size);
	if (chunk && list_add(mine, chunk)) {
		free(chunk);
		return NULL;
	}
	return chunk;
}

static void chunk_free_all(void *user, OTF2_FileType ft, OTF2_LocationRef loc,
			   void **per_buffer, bool final)
{
	struct chunk_list *spare = user, *mine = *per_buffer;

	(void)ft, (void)loc;
	for (size_t i = 0; mine && i < mine->n; i++)
		if (mine->size != CHUNK_EVENTS || list_add(spare, mine->c[i]))
			free(mine->c[i]);
	if (mine)
		mine->n = 0;
	if (final && mine) {
		free(mine->c);
		free(mine);
		*per_buffer = NULL;
	}
}

static const OTF2_MemoryCallbacks memory_cbs = {
	.otf2_allocate = chunk_alloc,
	.otf2_free_all = chunk_free_all,
};

/* No post-flush callback: a flush then writes no BufferFlush record, which
 * would carry the time of the event after it (equal times) and measure a
 * flush of this converter, not of the traced run. */
static const OTF2_FlushCallbacks flush_cbs = {
	.otf2_pre_flush = pre_flush,
	.otf2_post_flush = NULL,
};

/* Inserts e after every event of l's window not later than it: equal
 * times keep their arrival order. */
static void win_insert(struct loc *l, const struct ev *e)
{
	uint32_t i = l->end, lo = l->head;

	if (l->end == 2 * REORDER_CAP) {	/* slide the window to the front */
		memmove(l->win, l->win + l->head,
			(l->end - l->head) * sizeof(*l->win));
		l->end -= l->head;
		l->head = 0;
		i = l->end;
	}
	for (int k = 0; k < 8 && i > lo && l->win[i - 1].ts > e->ts; k++)
		i--;
	if (i > lo && l->win[i - 1].ts > e->ts) {	/* far back: bisect */
		uint32_t hi = i;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (l->win[mid].ts > e->ts)
				hi = mid;
			else
				lo = mid + 1;
		}
		i = lo;
	}
	memmove(l->win + i + 1, l->win + i, (l->end - i) * sizeof(*l->win));
	l->win[i] = *e;
	l->end++;
}

/* The time of location l for a record at ts: ts itself, or the latest
 * time written when ts is earlier (times never decrease per location). */
static uint64_t stamp(struct loc *l, uint64_t ts)
{
	if (ts < l->last)
		ts = l->last;
	l->last = ts;
	return ts;
}

/* The status attribute of a message that is not plainly matched, and the
 * call site of the side, as a SourceCodeLocation (number - 1). */
static OTF2_AttributeList *attrs_for(struct otf2_sink *s, const struct ev *e)
{
	int fab = e->type != EV_ISEND_DONE;

	if (e->status == MT_MATCH_ST_MATCHED && !e->site && !fab)
		return NULL;
	OTF2_AttributeList_RemoveAllAttributes(s->attrs);
	if (fab) {
		OTF2_AttributeList_AddStringRef(s->attrs, ATTR_KIND,
						OTF2_KIND_STR(e->f.kind));
		OTF2_AttributeList_AddInt64(s->attrs, ATTR_CID, e->f.cid);
		OTF2_AttributeList_AddInt32(s->attrs, ATTR_COMM_SRC, e->f.comm_src);
		OTF2_AttributeList_AddUint8(s->attrs, ATTR_FLAGS, (uint8_t)(
			(e->f.internal ? ATTR_F_INTERNAL : 0) |
			(e->f.has_tag ? ATTR_F_HAS_TAG : 0) |
			(e->f.any_src ? ATTR_F_ANY_SRC : 0)));
	}
	if (e->type == EV_IRECV_REQ || e->type == EV_CANCEL) {
		OTF2_AttributeList_AddInt32(s->attrs, ATTR_TAG, e->f.tag);
		OTF2_AttributeList_AddInt32(s->attrs, ATTR_PEER, e->world_peer);
		OTF2_AttributeList_AddCommRef(s->attrs, ATTR_COMM, e->comm);
	}
	if (e->status != MT_MATCH_ST_MATCHED)
		OTF2_AttributeList_AddStringRef(s->attrs, ATTR_STATUS, e->status);
	if (e->status == MT_MATCH_ST_TRUNCATED || e->type == EV_IRECV_REQ)
		OTF2_AttributeList_AddUint64(s->attrs, ATTR_RECV_BUF, e->recv_buf);
	if (e->site)
		OTF2_AttributeList_AddSourceCodeLocationRef(s->attrs, ATTR_SITE,
							    e->site - 1);
	return s->attrs;
}

static int write_ev(struct otf2_sink *s, size_t li, const struct ev *e)
{
	static const uint8_t phase[] = {
		[EV_ISEND] = PH_SEND, [EV_ISEND_DONE] = PH_SEND_DONE,
		[EV_IRECV_REQ] = PH_RECV, [EV_IRECV] = PH_RECV_DONE,
		[EV_CANCEL] = PH_CANCEL,
	};
	struct loc *l = &s->loc[li];
	OTF2_RegionRef reg = OTF2_REGION(phase[e->type], e->kind);
	OTF2_AttributeList *a = attrs_for(s, e);
	uint64_t t = stamp(l, e->ts);
	OTF2_ErrorCode rc = OTF2_EvtWriter_Enter(l->w, NULL, t, reg);

	if (e->ts < l->last)
		s->moved++;
	if (rc == OTF2_SUCCESS) {
		switch (e->type) {
		case EV_ISEND:
			rc = OTF2_EvtWriter_MpiIsend(l->w, a, t, e->peer, e->comm,
						     e->tag, e->len, e->req);
			break;
		case EV_ISEND_DONE:
			rc = OTF2_EvtWriter_MpiIsendComplete(l->w, a, t, e->req);
			break;
		case EV_IRECV_REQ:
			rc = OTF2_EvtWriter_MpiIrecvRequest(l->w, a, t, e->req);
			break;
		case EV_IRECV:
			rc = OTF2_EvtWriter_MpiIrecv(l->w, a, t, e->peer, e->comm,
						     e->tag, e->len, e->req);
			break;
		default:
			rc = OTF2_EvtWriter_MpiRequestCancelled(l->w, a, t, e->req);
			break;
		}
	}
	if (rc == OTF2_SUCCESS)
		rc = OTF2_EvtWriter_Leave(l->w, NULL, t, reg);
	s->o.nevents[li] += 3;
	if (t > s->o.t_max)
		s->o.t_max = t;
	return mt_sink_otf2_check(&s->o, rc, "event");
}

static int push(struct otf2_sink *s, size_t li, struct ev *e)
{
	struct loc *l = &s->loc[li];

	if (e->ts == MT_MATCH_NOTIME)
		return 0;
	if (e->ts < s->o.t_min)
		s->o.t_min = e->ts;
	win_insert(l, e);
	if (l->end - l->head > REORDER_CAP)
		return write_ev(s, li, &l->win[l->head++]);
	return 0;
}

/* Index of process w in communicator c, added if new. */
static uint32_t comm_index(struct otf2_comm *c, int32_t w)
{
	if ((uint32_t)w >= c->nindex) {
		uint32_t n = (uint32_t)w + 64;
		uint32_t *ix = realloc(c->index_of, n * sizeof(*ix));

		if (!ix)
			return OTF2_UNDEFINED_UINT32;
		memset(ix + c->nindex, 0, (n - c->nindex) * sizeof(*ix));
		c->index_of = ix;
		c->nindex = n;
	}
	if (!c->index_of[w]) {
		if (c->n == c->cap) {
			uint32_t cap = c->cap ? 2 * c->cap : 16;
			int32_t *m = realloc(c->member, cap * sizeof(*m));

			if (!m)
				return OTF2_UNDEFINED_UINT32;
			c->member = m;
			c->cap = cap;
		}
		c->member[c->n++] = w;
		c->index_of[w] = c->n;
	}
	return c->index_of[w] - 1;
}

static uint32_t comm_hash(uint32_t job, int64_t cid)
{
	return (uint32_t)(((uint64_t)cid + ((uint64_t)job << 40)) *
			  0x9E3779B97F4A7C15ull >> 40);
}

static int grow_slots(struct otf2_out *o)
{
	uint32_t cap = o->slot_mask ? 2 * (o->slot_mask + 1) : 64;
	int32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -1;
	free(o->comm_of_slot);
	o->comm_of_slot = slot;
	o->slot_mask = cap - 1;
	for (uint32_t r = 0; r < o->ncomm; r++) {
		uint32_t h = comm_hash(o->comm[r].job, o->comm[r].cid);

		while (slot[h & o->slot_mask])
			h++;
		slot[h & o->slot_mask] = (int32_t)r + 1;
	}
	return 0;
}

/* The communicator of (job, cid) (cid -1: unknown, filed under cid -1),
 * added if new. World is cid 0 in Open MPI; it starts with every process
 * of its job in rank order. */
static struct otf2_comm *comm_of(struct otf2_out *o, uint32_t job, int64_t cid)
{
	uint32_t h = comm_hash(job, cid);
	struct otf2_comm *c;
	int32_t r;

	while (o->slot_mask && (r = o->comm_of_slot[h & o->slot_mask])) {
		if (o->comm[r - 1].cid == cid && o->comm[r - 1].job == job)
			return &o->comm[r - 1];
		h++;
	}
	if (2 * (o->ncomm + 1) > o->slot_mask || o->ncomm == o->cap_comm) {
		uint32_t cap = o->cap_comm ? 2 * o->cap_comm : 16;
		struct otf2_comm *nc = realloc(o->comm, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		o->comm = nc;
		o->cap_comm = cap;
		if (grow_slots(o))
			return NULL;
		return comm_of(o, job, cid);
	}
	c = &o->comm[o->ncomm++];
	memset(c, 0, sizeof(*c));
	c->job = job;
	c->cid = cid;
	o->comm_of_slot[h & o->slot_mask] = (int32_t)o->ncomm;
	if (cid == 0)
		for (size_t p = 0; p < o->run->trace->nprocs; p++)
			if (o->run->trace->procs[p].job == job)
				comm_index(c, (int32_t)p);
	return c;
}

/* Process index of endpoint ep, or -1: the comm members are processes. */
static int32_t proc_of(const struct otf2_out *o, int32_t ep)
{
	return ep >= 0 && (size_t)ep < o->run->trace->neps ?
	       (int32_t)o->run->trace->eps[ep].proc : -1;
}

/* The communicator of cid between processes a and b (-1: unknown): keyed
 * by the earlier of their jobs (struct otf2_comm). */
static struct otf2_comm *comm_between(struct otf2_out *o, int64_t cid,
				      int32_t a, int32_t b)
{
	const struct mt_trace_proc *procs = o->run->trace->procs;
	uint32_t ja = a >= 0 ? procs[a].job : UINT32_MAX;
	uint32_t jb = b >= 0 ? procs[b].job : UINT32_MAX;
	uint32_t job = ja < jb ? ja : jb;

	return comm_of(o, job == UINT32_MAX ? 0 : job, cid >= 0 ? cid : -1);
}

/* One side of a message: its post (with the fields it was posted with,
 * post_f) then its completion (or cancel) on the location of endpoint ep,
 * the other side's process peer (-1: unknown). */
static int side(struct otf2_sink *s, struct ev *e, int32_t ep, int32_t peer,
		uint8_t post, uint64_t post_ts, const struct mt_match_fields *post_f,
		uint8_t done, uint64_t done_ts)
{
	size_t l = mt_sink_tracks_thread_of_ep(&s->o.tr, ep);
	struct otf2_comm *c = &s->o.comm[e->comm];
	struct mt_match_fields f = e->f;

	e->peer = peer >= 0 ? comm_index(c, peer) : OTF2_UNDEFINED_UINT32;
	e->world_peer = post_f->any_src ? -1 : peer;
	e->f = *post_f;
	e->type = post;
	e->ts = post_ts;
	if (push(s, l, e))
		return -1;
	e->f = f;
	e->world_peer = peer;
	e->type = done;
	e->ts = done_ts;
	return push(s, l, e);
}

/* Both sides of one message, as far as they are known. */
static int add_msg(struct otf2_sink *s, const struct mt_match_msg *m)
{
	struct otf2_out *o = &s->o;
	int32_t ps = proc_of(o, m->send_ep), pr = proc_of(o, m->recv_ep);
	struct otf2_comm *c = comm_between(o, m->f.cid, ps, pr);
	int cancelled = m->status == MT_MATCH_ST_CANCELLED;
	struct ev e = {
		.req = ++s->msgs, .len = m->bytes, .recv_buf = m->recv_buf,
		.tag = (uint32_t)m->f.tag, .kind = m->f.kind, .status = m->status,
		.f = m->f,
	};

	if (!c)
		return -1;
	e.comm = (uint32_t)(c - o->comm);
	e.site = m->send_site;
	if (ps >= 0 && m->t_send_post != MT_MATCH_NOTIME &&
	    side(s, &e, m->send_ep, pr, EV_ISEND, m->t_send_post, &m->f,
		 cancelled ? EV_CANCEL : EV_ISEND_DONE, m->t_send_done))
		return -1;
	e.site = m->recv_site;
	if (pr >= 0 && m->t_recv_post != MT_MATCH_NOTIME &&
	    side(s, &e, m->recv_ep, ps, EV_IRECV_REQ, m->t_recv_post, &m->recv_f,
		 cancelled ? EV_CANCEL : EV_IRECV, m->t_recv_done))
		return -1;
	return 0;
}

static int open_archive(struct otf2_sink *s, const char *dir)
{
	struct otf2_out *o = &s->o;

	if (mt_sink_tracks_init(&o->tr, o->run->trace))
		return -1;
	s->loc = calloc(o->tr.nthreads + 1, sizeof(*s->loc));
	o->nevents = calloc(o->tr.nthreads + 1, sizeof(*o->nevents));
	s->attrs = OTF2_AttributeList_New();
	if (!s->loc || !o->nevents || !s->attrs)
		return -1;
	o->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, CHUNK_EVENTS,
				  CHUNK_DEFS, OTF2_SUBSTRATE_POSIX,
				  OTF2_COMPRESSION_NONE);
	if (!o->ar) {
		mt_err_set(o->err, MT_ERR_IO, "cannot create the OTF2 archive "
			   "'%s/traces.otf2' (does it exist already?)", dir);
		return -1;
	}
	if (mt_sink_otf2_check(o, OTF2_Archive_SetFlushCallbacks(o->ar, &flush_cbs,
								 NULL),
			       "flush callbacks") ||
	    mt_sink_otf2_check(o, OTF2_Archive_SetMemoryCallbacks(o->ar, &memory_cbs,
								  &s->spare),
			       "memory callbacks") ||
	    mt_sink_otf2_check(o, OTF2_Archive_SetSerialCollectiveCallbacks(o->ar),
			       "collective callbacks") ||
	    mt_sink_otf2_check(o, OTF2_Archive_SetCreator(o->ar, "msgtrace"),
			       "creator") ||
	    mt_sink_otf2_check(o, OTF2_Archive_OpenEvtFiles(o->ar), "event files"))
		return -1;
	for (size_t i = 0; i < o->tr.nthreads; i++) {
		s->loc[i].w = OTF2_Archive_GetEvtWriter(o->ar, i);
		s->loc[i].win = malloc(2 * REORDER_CAP * sizeof(struct ev));
		if (!s->loc[i].w || !s->loc[i].win) {
			mt_err_set(o->err, MT_ERR_IO, "cannot open the OTF2 event "
				   "writer of location %zu", i);
			return -1;
		}
	}
	return 0;
}

/* A failed step's status: what o->err says, else out of memory. */
static enum mt_status failure(struct otf2_sink *s, struct mt_err *err)
{
	if (s->err.msg[0]) {
		*err = s->err;
		return MT_ERR_IO;
	}
	return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
}

static enum mt_status otf2_consume(void *state, const struct mt_match_msg *b,
				   size_t n, struct mt_err *err)
{
	struct otf2_sink *s = state;

	for (size_t i = 0; i < n && !s->failed; i++)
		s->failed = add_msg(s, &b[i]);
	return s->failed ? failure(s, err) : MT_OK;
}

/* Empties every reorder window and closes the event writers. */
static int drain_all(struct otf2_sink *s)
{
	int rc = 0;

	for (size_t i = 0; i < s->o.tr.nthreads; i++) {
		struct loc *l = &s->loc[i];

		while (l->head < l->end && !rc)
			rc = write_ev(s, i, &l->win[l->head++]);
		if (l->w && mt_sink_otf2_check(&s->o,
				OTF2_Archive_CloseEvtWriter(s->o.ar, l->w),
				"closing an event writer"))
			rc = -1;
		l->w = NULL;
	}
	return rc;
}

static void destroy(struct otf2_sink *s)
{
	if (s->o.ar && OTF2_Archive_Close(s->o.ar) != OTF2_SUCCESS)
		s->failed = -1;
	for (size_t i = 0; s->loc && i < s->o.tr.nthreads; i++)
		free(s->loc[i].win);
	for (uint32_t c = 0; c < s->o.ncomm; c++) {
		free(s->o.comm[c].member);
		free(s->o.comm[c].index_of);
	}
	if (s->attrs)
		OTF2_AttributeList_Delete(s->attrs);
	while (s->spare.n)
		free(s->spare.c[--s->spare.n]);
	free(s->spare.c);
	free(s->o.comm);
	free(s->o.comm_of_slot);
	free(s->o.call_rank);
	free(s->o.call_events);
	free(s->o.call_name);
	free(s->o.nevents);
	free(s->loc);
	mt_sink_tracks_fini(&s->o.tr);
	free(s);
}

/* *state: the archive directory (-o), new or empty (cmd_export.c checks). */
static enum mt_status otf2_init(void **state, FILE *out,
				const struct mt_run *run, struct mt_err *err)
{
	const char *dir = *state;
	struct otf2_sink *s = calloc(1, sizeof(*s));
	enum mt_status st;

	(void)out;
	*state = s;
	if (!s)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	s->o.run = run;
	s->o.err = &s->err;
	s->o.t_min = UINT64_MAX;
	if (!open_archive(s, dir))
		return MT_OK;
	st = failure(s, err);
	destroy(s);
	*state = NULL;
	return st;
}

/* The operations posted and never completed: their post alone. */
static int add_pending(struct otf2_sink *s, const struct mt_match_summary *sum)
{
	for (size_t i = 0; i < sum->n_pending; i++) {
		const struct mt_match_op *op = &sum->pending[i].op;
		size_t l = mt_sink_tracks_thread_of_ep(&s->o.tr, op->ep);
		int32_t peer = proc_of(&s->o, op->peer);
		struct otf2_comm *c = comm_between(&s->o, op->f.cid,
						   proc_of(&s->o, op->ep), peer);
		struct ev e = {
			.ts = op->ts, .req = ++s->msgs, .len = op->len,
			.status = OTF2_STATUS_PENDING, .site = op->site,
			.type = op->dir == MT_MATCH_DIR_SEND ? EV_ISEND : EV_IRECV_REQ,
			.tag = (uint32_t)op->f.tag, .kind = op->f.kind, .f = op->f,
			.world_peer = op->f.any_src ? -1 : peer,
		};

		if (!c)
			return -1;
		if (l == SIZE_MAX)
			continue;
		e.comm = (uint32_t)(c - s->o.comm);
		e.peer = peer >= 0 ? comm_index(c, peer) : OTF2_UNDEFINED_UINT32;
		if (push(s, l, &e))
			return -1;
	}
	return 0;
}

/* A joined export names its MPI calls' communicator (the one after the
 * fabric's), whose events a reader must not take for more messages. */
static int calls_comm_property(struct otf2_sink *s, const struct mt_run *run)
{
	char ref[24];

	if (!run->join || !s->o.ar)
		return 0;
	snprintf(ref, sizeof(ref), "%u", s->o.ncomm);
	return mt_sink_otf2_check(&s->o, OTF2_Archive_SetProperty(s->o.ar,
			MT_SINK_OTF2_CALLS_COMM, ref, true), "property");
}

static enum mt_status otf2_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum,
				    struct mt_err *err)
{
	struct otf2_sink *s = state;
	int rc;
	enum mt_status st;

	rc = s->failed || add_pending(s, sum) || calls_comm_property(s, run);
	if (s->o.ar && mt_sink_otf2_check(&s->o, OTF2_Archive_SetBoolProperty(s->o.ar,
			MT_SINK_OTF2_ONE_CLOCK, run->clock.res || run->clock.declared <= 1,
			true), "property"))
		rc = -1;
	if (s->o.ar) {
		s->o.join = run->join;
		if (drain_all(s) ||
		    (run->join && mt_sink_otf2_calls(&s->o, run->join)) ||
		    mt_sink_otf2_check(&s->o, OTF2_Archive_CloseEvtFiles(s->o.ar),
				       "event files") ||
		    mt_sink_otf2_defs(&s->o))
			rc = -1;
	}
	if (s->o.calls_unaligned)
		mt_note_say(run->note, "the MPI calls of %zu ranks are not exported: "
			    "their clocks could not be aligned with the fabric trace's",
			    s->o.calls_unaligned);
	if (s->moved)
		mt_note_say(run->note, "%llu OTF2 events written later than their "
			    "time (operations in flight across more than %u "
			    "events of their location)",
			    (unsigned long long)s->moved, REORDER_CAP);
	st = rc ? failure(s, err) : MT_OK;
	destroy(s);
	return st;
}

const struct mt_sink_ops mt_sink_otf2 = {
	.key = "otf2",
	.name = "OTF2",
	.init = otf2_init,
	.consume = otf2_consume,
	.finalize = otf2_finalize,
	.joins = 1,
};
