/*
 * sink_otf2.c - `msgtrace export --otf2`: an OTF2 archive written with
 * libotf2 that Vampir and otf2-print read.
 *
 * Each message becomes, on the sender's location, MpiIsend at the send's
 * post and MpiIsendComplete at its completion, and on the receiver's,
 * MpiIrecvRequest at the receive's post and MpiIrecv at its completion, all
 * with the message number as request id; each sits in a short region
 * (Enter/Leave) named after the fabric operation and the message kind. A
 * cancelled operation ends with MpiRequestCancelled. Messages that are not
 * plainly matched carry a "status" attribute (truncated, unmatched_send,
 * ...) and truncated receives their posted length ("recv_buf").
 *
 * Messages arrive when they finish, not in time order, so each location
 * keeps a bounded reorder heap (REORDER_CAP events): events leave it oldest
 * first. An event older than one already written (an operation in flight
 * for longer than the window) is written just after it and counted as
 * moved; OTF2 takes nothing but strictly increasing times per location, so
 * equal times are also spread by 1 ns.
 *
 * MPI tags: OTF2's tag is unsigned 32 bits; the tag is written as its 32-bit
 * two's complement, so Open MPI's negative internal tags read as values
 * >= 2^31 (-16, the barrier tag, is 4294967280).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sink_otf2.h"

#define REORDER_CAP (1u << 16)	/* events per location */
#define CHUNK_EVENTS (1u << 20)
#define CHUNK_DEFS (4u << 20)

enum ev_type { EV_ISEND, EV_ISEND_DONE, EV_IRECV_REQ, EV_IRECV, EV_CANCEL };

struct ev {
	uint64_t ts;
	uint64_t seq;		/* ties keep arrival order */
	uint64_t req;
	uint64_t len;
	uint64_t recv_buf;
	uint32_t peer;		/* rank in the communicator */
	uint32_t comm;
	uint32_t tag;
	uint8_t type;		/* enum ev_type */
	uint8_t kind;		/* enum mt_match_kind */
	uint8_t status;		/* enum mt_match_status */
};

struct loc {
	OTF2_EvtWriter *w;
	struct ev *heap;
	uint32_t n;
	uint64_t last;		/* last timestamp written, 0 = none */
	uint64_t last_raw;	/* latest event time written, before spreading */
};

struct otf2_sink {
	struct otf2_out o;
	struct loc *loc;
	OTF2_AttributeList *attrs;
	uint64_t seq, msgs, moved;
	int failed;
};

int otf2_check(OTF2_ErrorCode e, const char *what)
{
	if (e == OTF2_SUCCESS)
		return 0;
	fprintf(stderr, "msgtrace export: OTF2 %s: %s (%s)\n", what,
		OTF2_Error_GetName(e), OTF2_Error_GetDescription(e));
	return -1;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType ft,
				OTF2_LocationRef loc, void *caller, bool final)
{
	(void)user, (void)ft, (void)loc, (void)caller, (void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType ft,
				 OTF2_LocationRef loc)
{
	(void)user, (void)ft, (void)loc;
	return 0;
}

static const OTF2_FlushCallbacks flush_cbs = {
	.otf2_pre_flush = pre_flush,
	.otf2_post_flush = post_flush,
};

static int before(const struct ev *a, const struct ev *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

static void heap_push(struct loc *l, const struct ev *e)
{
	uint32_t i = l->n++;

	while (i && before(e, &l->heap[(i - 1) / 2])) {
		l->heap[i] = l->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	l->heap[i] = *e;
}

static struct ev heap_pop(struct loc *l)
{
	struct ev top = l->heap[0], last = l->heap[--l->n];
	uint32_t i = 0, c;

	while ((c = 2 * i + 1) < l->n) {
		if (c + 1 < l->n && before(&l->heap[c + 1], &l->heap[c]))
			c++;
		if (!before(&l->heap[c], &last))
			break;
		l->heap[i] = l->heap[c];
		i = c;
	}
	l->heap[i] = last;
	return top;
}

/* The next strictly increasing time of location l for a record at ts. */
static uint64_t stamp(struct loc *l, uint64_t ts)
{
	if (ts <= l->last)
		ts = l->last + 1;
	l->last = ts;
	return ts;
}

/* The status attribute of a message that is not plainly matched. */
static OTF2_AttributeList *attrs_for(struct otf2_sink *s, const struct ev *e)
{
	if (e->status == MT_MATCH_ST_MATCHED)
		return NULL;
	OTF2_AttributeList_RemoveAllAttributes(s->attrs);
	OTF2_AttributeList_AddStringRef(s->attrs, ATTR_STATUS, e->status);
	if (e->status == MT_MATCH_ST_TRUNCATED)
		OTF2_AttributeList_AddUint64(s->attrs, ATTR_RECV_BUF, e->recv_buf);
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

	if (e->ts < l->last_raw)
		s->moved++;
	else
		l->last_raw = e->ts;
	t = stamp(l, t);
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
	t = stamp(l, t);
	if (rc == OTF2_SUCCESS)
		rc = OTF2_EvtWriter_Leave(l->w, NULL, t, reg);
	s->o.nevents[li] += 3;
	if (t > s->o.t_max)
		s->o.t_max = t;
	return otf2_check(rc, "event");
}

static int push(struct otf2_sink *s, size_t li, struct ev *e)
{
	struct loc *l = &s->loc[li];

	if (e->ts == MT_MATCH_NOTIME)
		return 0;
	if (e->ts < s->o.t_min)
		s->o.t_min = e->ts;
	e->seq = s->seq++;
	heap_push(l, e);
	if (l->n == REORDER_CAP) {
		struct ev top = heap_pop(l);

		return write_ev(s, li, &top);
	}
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
		uint32_t h = (uint32_t)((uint64_t)o->comm[r].cid * 0x9E3779B97F4A7C15ull >> 40);

		while (slot[h & o->slot_mask])
			h++;
		slot[h & o->slot_mask] = (int32_t)r + 1;
	}
	return 0;
}

/* The communicator of cid (-1: unknown, filed under cid -1), added if new.
 * World is cid 0 in Open MPI; it starts with every process in rank order. */
static struct otf2_comm *comm_of(struct otf2_out *o, int64_t cid)
{
	uint32_t h = (uint32_t)((uint64_t)cid * 0x9E3779B97F4A7C15ull >> 40);
	struct otf2_comm *c;
	int32_t r;

	while (o->slot_mask && (r = o->comm_of_slot[h & o->slot_mask])) {
		if (o->comm[r - 1].cid == cid)
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
		return comm_of(o, cid);
	}
	c = &o->comm[o->ncomm++];
	memset(c, 0, sizeof(*c));
	c->cid = cid;
	o->comm_of_slot[h & o->slot_mask] = (int32_t)o->ncomm;
	if (cid == 0)
		for (size_t p = 0; p < o->run->trace->nprocs; p++)
			comm_index(c, (int32_t)p);
	return c;
}

/* Process index of endpoint ep, or -1: the comm members are processes. */
static int32_t proc_of(const struct otf2_out *o, int32_t ep)
{
	return ep >= 0 && (size_t)ep < o->run->trace->neps ?
	       (int32_t)o->run->trace->eps[ep].proc : -1;
}

/* Both sides of one message, as far as they are known. */
static int add_msg(struct otf2_sink *s, const struct mt_match_msg *m)
{
	struct otf2_out *o = &s->o;
	struct otf2_comm *c = comm_of(o, m->f.cid >= 0 ? m->f.cid : -1);
	int32_t ps = proc_of(o, m->send_ep), pr = proc_of(o, m->recv_ep);
	int cancelled = m->status == MT_MATCH_ST_CANCELLED;
	struct ev e = {
		.req = ++s->msgs, .len = m->bytes, .recv_buf = m->recv_buf,
		.tag = (uint32_t)m->f.tag, .kind = m->f.kind, .status = m->status,
	};

	if (!c)
		return -1;
	e.comm = (uint32_t)(c - o->comm);
	if (ps >= 0 && m->t_send_post != MT_MATCH_NOTIME) {
		size_t l = tracks_thread_of_ep(&o->tr, m->send_ep);

		e.peer = pr >= 0 ? comm_index(c, pr) : OTF2_UNDEFINED_UINT32;
		e.type = EV_ISEND;
		e.ts = m->t_send_post;
		if (push(s, l, &e))
			return -1;
		e.type = cancelled ? EV_CANCEL : EV_ISEND_DONE;
		e.ts = m->t_send_done;
		if (push(s, l, &e))
			return -1;
	}
	if (pr >= 0 && m->t_recv_post != MT_MATCH_NOTIME) {
		size_t l = tracks_thread_of_ep(&o->tr, m->recv_ep);

		e.peer = ps >= 0 ? comm_index(c, ps) : OTF2_UNDEFINED_UINT32;
		e.type = EV_IRECV_REQ;
		e.ts = m->t_recv_post;
		if (push(s, l, &e))
			return -1;
		e.type = cancelled ? EV_CANCEL : EV_IRECV;
		e.ts = m->t_recv_done;
		if (push(s, l, &e))
			return -1;
	}
	return 0;
}

static int open_archive(struct otf2_sink *s, const char *dir)
{
	struct otf2_out *o = &s->o;
	struct stat sb;

	if (!stat(dir, &sb) && !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "msgtrace export: -o '%s' exists and is not a "
			"directory\n", dir);
		return -1;
	}
	if (tracks_init(&o->tr, o->run->trace))
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
		fprintf(stderr, "msgtrace export: cannot create the OTF2 archive "
			"'%s/traces.otf2' (does it exist already?)\n", dir);
		return -1;
	}
	if (otf2_check(OTF2_Archive_SetFlushCallbacks(o->ar, &flush_cbs, NULL),
		       "flush callbacks") ||
	    otf2_check(OTF2_Archive_SetSerialCollectiveCallbacks(o->ar),
		       "collective callbacks") ||
	    otf2_check(OTF2_Archive_SetCreator(o->ar, "msgtrace"), "creator") ||
	    otf2_check(OTF2_Archive_OpenEvtFiles(o->ar), "event files"))
		return -1;
	for (size_t i = 0; i < o->tr.nthreads; i++) {
		s->loc[i].w = OTF2_Archive_GetEvtWriter(o->ar, i);
		s->loc[i].heap = malloc(REORDER_CAP * sizeof(struct ev));
		if (!s->loc[i].w || !s->loc[i].heap) {
			fprintf(stderr, "msgtrace export: cannot open the OTF2 event "
				"writer of location %zu\n", i);
			return -1;
		}
	}
	return 0;
}

static int otf2_consume(void *state, const struct mt_match_msg *b, size_t n)
{
	struct otf2_sink *s = state;

	for (size_t i = 0; i < n && !s->failed; i++)
		s->failed = add_msg(s, &b[i]);
	return s->failed;
}

/* Empties every reorder heap and closes the event writers. */
static int drain_all(struct otf2_sink *s)
{
	int rc = 0;

	for (size_t i = 0; i < s->o.tr.nthreads; i++) {
		struct loc *l = &s->loc[i];

		while (l->n && !rc) {
			struct ev top = heap_pop(l);

			rc = write_ev(s, i, &top);
		}
		if (l->w && otf2_check(OTF2_Archive_CloseEvtWriter(s->o.ar, l->w),
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
		free(s->loc[i].heap);
	for (uint32_t c = 0; c < s->o.ncomm; c++) {
		free(s->o.comm[c].member);
		free(s->o.comm[c].index_of);
	}
	if (s->attrs)
		OTF2_AttributeList_Delete(s->attrs);
	free(s->o.comm);
	free(s->o.comm_of_slot);
	free(s->o.nevents);
	free(s->loc);
	tracks_fini(&s->o.tr);
	free(s);
}

/* *state: the archive directory (-o). */
static int otf2_init(void **state, FILE *out, const struct mt_run *run)
{
	const char *dir = *state;
	struct otf2_sink *s = calloc(1, sizeof(*s));

	(void)out;
	*state = s;
	if (!s)
		return -1;
	s->o.run = run;
	s->o.t_min = UINT64_MAX;
	if (!open_archive(s, dir))
		return 0;
	destroy(s);
	*state = NULL;
	return -1;
}

static int otf2_finalize(void *state, const struct mt_run *run,
			 const struct mt_match_summary *sum)
{
	struct otf2_sink *s = state;
	int rc;

	(void)run;
	(void)sum;
	if (!s)
		return -1;
	rc = s->failed;
	if (s->o.ar) {
		if (drain_all(s) ||
		    otf2_check(OTF2_Archive_CloseEvtFiles(s->o.ar), "event files") ||
		    otf2_write_defs(&s->o))
			rc = -1;
	}
	if (s->moved)
		fprintf(stderr, "msgtrace export: %llu OTF2 events written later "
			"than their time (operations in flight across more than %u "
			"events of their location)\n", (unsigned long long)s->moved,
			REORDER_CAP);
	destroy(s);
	return rc;
}

const struct mt_sink_ops mt_sink_otf2 = {
	.name = "OTF2",
	.init = otf2_init,
	.consume = otf2_consume,
	.finalize = otf2_finalize,
};
