/*
 * events.c - OTF2 events to the matcher's operations (see mt_otf2in.h).
 *
 * Receives keep their posting order (the reference algorithm for OTF2's
 * nonblocking records): a location's receives wait in a queue, and leave
 * it, to the matcher, from the front, each once completed; one completed
 * behind a request not yet completed waits for it, because a message taken
 * by an earlier posted receive cannot go to a later one with the same
 * source, communicator and tag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "otf2in_int.h"

#define CB_OK OTF2_CALLBACK_SUCCESS

static OTF2_CallbackCode failed(struct mt_otf2in *in, enum mt_status s)
{
	in->fail = s;
	return OTF2_CALLBACK_INTERRUPT;
}

static struct oi_loc *loc_of(struct mt_otf2in *in, OTF2_LocationRef ref, int32_t *ep)
{
	uint32_t l = mt_otf2in_map_get(&in->loc_map, ref);

	if (l == OI_NONE) {
		in->facts.skipped++;
		return NULL;
	}
	*ep = (int32_t)l;
	return &in->loc[l];
}

uint32_t mt_otf2in_comm_peer(struct mt_otf2in *in, int32_t self, OTF2_CommRef comm,
			     uint32_t r, int32_t *peer)
{
	uint32_t c = mt_otf2in_map_get(&in->comm_map, comm);
	const struct oi_comm *cm = c == OI_NONE ? NULL : &in->comms[c];

	*peer = -1;
	if (!cm)
		return OI_NONE;
	if (cm->group != OI_NONE && in->groups[cm->group].self)
		*peer = r == 0 ? self : -1;
	else if (r < cm->n)
		*peer = cm->loc[r];
	return c;
}

/* Location l's rank in communicator c, -1 when not a member. */
static int32_t comm_rank(const struct mt_otf2in *in, uint32_t c, int32_t l)
{
	uint32_t r;

	if (in->comms[c].group != OI_NONE && in->groups[in->comms[c].group].self)
		return 0;
	r = mt_otf2in_map_get(&in->src_map, (uint64_t)c << 32 | (uint32_t)l);
	return r == OI_NONE ? -1 : (int32_t)r - 1;
}

static void fields(const struct mt_otf2in *in, uint32_t c, int32_t comm_src,
		   uint32_t tag, struct mt_match_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->cid = (int64_t)in->comms[c].ref;
	f->comm_src = comm_src;
	f->tag = (int32_t)tag;
	f->has_tag = 1;
	f->internal = (int32_t)tag < 0;
	f->kind = f->internal ? MT_MATCH_COLL : MT_MATCH_USER;
}

/* msgtrace's export names untagged fabric traffic by its kind: sent and
 * received untagged, as on the fabric, so that its receives, which take
 * any untagged message, hold no tagged one back. */
static uint8_t fab_tagged(const struct oi_fab *x)
{
	return !(x && x->has && (x->f.kind == MT_MATCH_UNTAGGED ||
				 x->f.kind == MT_MATCH_HANDSHAKE));
}

/* The matcher's tag of a message of communicator c; x: msgtrace's
 * attributes, or NULL. A synchronous send's ACK keeps a tag space of its
 * own, as on the fabric: a receive posted for data never waits on one. */
static uint64_t wire_tag(const struct mt_otf2in *in, uint32_t c, uint32_t tag,
			 const struct oi_fab *x)
{
	uint64_t ack = x && x->has && x->f.kind == MT_MATCH_SSEND_ACK ?
		       MT_OTF2IN_ACK_BIT : 0;

	return ack | in->comms[c].ref << MT_OTF2IN_CID_SHIFT | tag;
}

static uint64_t block_ctx(struct oi_loc *lo)
{
	return OI_CTX_BLOCK | lo->seq++;
}

static enum mt_status complete(struct mt_otf2in *in, int32_t ep, uint64_t ts,
			       uint64_t ctx, uint64_t flags, int err)
{
	struct mt_match_cqe c;

	memset(&c, 0, sizeof(c));
	c.ts = ts;
	c.context = ctx;
	c.flags = flags;
	c.src_id = MT_MATCH_NOSRC;
	c.ep = ep;
	c.src_ep = -1;
	c.err = err;
	return mt_match_complete(in->m, &c);
}

/* x: the message's fields as msgtrace exported them, or NULL. */
static enum mt_status post_send(struct mt_otf2in *in, int32_t ep, uint64_t ts,
				uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
				uint64_t len, uint64_t ctx, const struct oi_fab *x)
{
	struct mt_match_op o;
	int32_t peer;
	uint32_t c = mt_otf2in_comm_peer(in, ep, comm, receiver, &peer);

	if (c == OI_NONE || peer < 0) {
		in->facts.skipped++;
		return MT_END;		/* not posted */
	}
	memset(&o, 0, sizeof(o));
	o.ts = ts;
	o.context = ctx;
	o.tag = wire_tag(in, c, tag, x);
	o.len = len;
	o.src_id = (uint64_t)ep;
	o.addr = receiver;
	o.ep = ep;
	o.peer = peer;
	o.dir = MT_MATCH_DIR_SEND;
	o.tagged = fab_tagged(x);
	fields(in, c, comm_rank(in, c, ep), tag, &o.f);
	if (x && x->has) {
		o.f = x->f;
		o.f.tag = (int32_t)tag;
	}
	in->facts.sends++;
	in->loc[ep].p2p = 1;
	return mt_match_post(in->m, &o);
}

/* An MPI call's send or receive that a joined export added beside the
 * fabric messages (OI_CALLS_COMM): counted, not read. */
static int joined_call(struct mt_otf2in *in, OTF2_CommRef comm)
{
	if (comm != in->calls_comm)
		return 0;
	in->facts.joined_calls++;
	return 1;
}

/* The blocking send waiting for the Leave of its call ends at ts. */
static enum mt_status end_send(struct mt_otf2in *in, int32_t ep, uint64_t ts)
{
	struct oi_loc *lo = &in->loc[ep];
	uint64_t ctx = lo->send_ctx;

	if (!ctx)
		return MT_OK;
	lo->send_ctx = 0;
	return complete(in, ep, ts, ctx, FI_SEND | FI_TAGGED, 0);
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				 OTF2_AttributeList *al, uint32_t receiver,
				 OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	struct mt_otf2in *in = arg;
	uint64_t ts = mt_otf2in_ns(in, time), ctx;
	struct oi_loc *lo;
	enum mt_status s;
	int32_t ep;

	(void)al;
	if (joined_call(in, comm) || !(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	if ((s = end_send(in, ep, ts)))
		return failed(in, s);
	ctx = block_ctx(lo);
	s = post_send(in, ep, ts, receiver, comm, tag, len, ctx, NULL);
	if (s == MT_END)
		return CB_OK;
	if (s)
		return failed(in, s);
	/* It completes when its call returns; outside any call, at once. */
	if (lo->depth)
		lo->send_ctx = ctx;
	else if ((s = complete(in, ep, ts, ctx, FI_SEND | FI_TAGGED, 0)))
		return failed(in, s);
	return CB_OK;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, uint32_t receiver,
				  OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	struct mt_otf2in *in = arg;
	struct oi_fab x;
	enum mt_status s;
	int32_t ep;

	if (!loc_of(in, loc, &ep))
		return CB_OK;
	in->facts.isends++;
	mt_otf2in_fab(in, al, &x);
	s = post_send(in, ep, mt_otf2in_ns(in, time), receiver, comm, tag, len,
		      req & ~OI_CTX_BLOCK, &x);
	return s && s != MT_END ? failed(in, s) : CB_OK;
}

static OTF2_CallbackCode ev_isend_done(OTF2_LocationRef loc, OTF2_TimeStamp time,
				       void *arg, OTF2_AttributeList *al, uint64_t req)
{
	struct mt_otf2in *in = arg;
	enum mt_status s;
	int32_t ep;

	(void)al;
	if (!loc_of(in, loc, &ep))
		return CB_OK;
	in->facts.isend_done++;
	s = complete(in, ep, mt_otf2in_ns(in, time), req & ~OI_CTX_BLOCK,
		     FI_SEND | FI_TAGGED, 0);
	return s ? failed(in, s) : CB_OK;
}

/* The first location of world rank (process) p, -1: none. */
static int32_t loc_of_proc(const struct mt_otf2in *in, int32_t p)
{
	for (size_t l = 0; p >= 0 && l < in->nloc; l++)
		if (in->loc[l].proc == (uint32_t)p)
			return (int32_t)l;
	return -1;
}

/* Receive r of location ep posted to the matcher: with the filter
 * msgtrace exported for its request (r->posted), else what it received
 * (nothing when it was not completed, or cancelled). */
static enum mt_status post_recv(struct mt_otf2in *in, int32_t ep,
				const struct oi_recv *r)
{
	struct mt_match_op o;

	memset(&o, 0, sizeof(o));
	o.ts = r->post_ts;
	o.context = r->ctx;
	o.len = r->fab.has_buf ? r->fab.recv_buf : r->len;
	o.ep = ep;
	o.dir = MT_MATCH_DIR_RECV;
	o.tagged = fab_tagged(&r->fab);
	o.src_id = MT_MATCH_NOSRC;
	if (r->posted) {
		o.tag = wire_tag(in, r->comm, (uint32_t)r->fab.f.tag, &r->fab);
		o.ignore = r->fab.f.has_tag ? 0 : ~(~0ull << MT_OTF2IN_CID_SHIFT);
		o.peer = r->fab.f.any_src ? -1 : loc_of_proc(in, r->fab.peer);
		o.addr = r->fab.f.any_src ? UINT64_MAX : (uint64_t)r->fab.f.comm_src;
		o.f = r->fab.f;
	} else if (r->cancelled || !r->done) {	/* what it waited for: unknown */
		o.ignore = ~0ull;
		o.peer = -1;
		o.addr = UINT64_MAX;
		o.f = (struct mt_match_fields){ .cid = -1, .comm_src = -1, .any_src = 1 };
	} else {
		o.tag = wire_tag(in, r->comm, r->tag, &r->fab);
		o.peer = r->peer;
		o.addr = (uint64_t)r->comm_src;
		fields(in, r->comm, r->comm_src, r->tag, &o.f);
		if (r->fab.has) {
			o.f = r->fab.f;
			o.f.tag = (int32_t)r->tag;
		}
	}
	in->facts.recvs++;
	return mt_match_post(in->m, &o);
}

/* Receive r of location ep, posted, completed: what it received, or
 * cancelled (also when what it received is not known). */
static enum mt_status done_recv(struct mt_otf2in *in, int32_t ep,
				const struct oi_recv *r)
{
	struct mt_match_cqe c;

	memset(&c, 0, sizeof(c));
	c.ts = r->done_ts;
	c.context = r->ctx;
	c.flags = FI_RECV | FI_TAGGED;
	c.ep = ep;
	c.src_ep = -1;
	c.src_id = MT_MATCH_NOSRC;
	if (r->cancelled) {	/* msgtrace's export names what it was */
		c.f = r->fab.has ? r->fab.f :
		      (struct mt_match_fields){ .cid = -1, .comm_src = -1, .any_src = 1 };
		c.src_ep = r->fab.has ? loc_of_proc(in, r->fab.peer) : -1;
		c.err = FI_ECANCELED;
		return mt_match_complete(in->m, &c);
	}
	c.tag = wire_tag(in, r->comm, r->tag, &r->fab);
	c.len = r->len;
	c.src_id = (uint64_t)r->peer;
	c.src_ep = r->peer;
	fields(in, r->comm, r->comm_src, r->tag, &c.f);
	if (r->fab.has) {
		c.f = r->fab.f;
		c.f.tag = (int32_t)r->tag;
	}
	c.err = r->fab.has_buf ? FI_ETRUNC : 0;
	return mt_match_complete(in->m, &c);
}

/* Receive r of location ep to the matcher: posted (unless it was at its
 * request), then completed if it was. */
static enum mt_status feed_recv(struct mt_otf2in *in, int32_t ep, const struct oi_recv *r)
{
	enum mt_status s;

	if (!r->posted && (s = post_recv(in, ep, r)))
		return s;
	return r->done ? done_recv(in, ep, r) : MT_OK;
}

/* The completed receives at the front of ep's queue, in posting order. */
static enum mt_status flush(struct mt_otf2in *in, int32_t ep)
{
	struct oi_loc *lo = &in->loc[ep];
	enum mt_status s;

	for (; lo->rq_head < lo->rq_n && lo->rq[lo->rq_head].done; lo->rq_head++)
		if (!lo->rq[lo->rq_head].fed &&
		    (s = feed_recv(in, ep, &lo->rq[lo->rq_head])))
			return s;
	if (lo->rq_head == lo->rq_n)
		lo->rq_head = lo->rq_n = 0;
	return MT_OK;
}

static struct oi_recv *rq_push(struct oi_loc *lo)
{
	if (lo->rq_n == lo->rq_cap) {
		if (lo->rq_head) {	/* reuse the space in front */
			memmove(lo->rq, lo->rq + lo->rq_head,
				(lo->rq_n - lo->rq_head) * sizeof(*lo->rq));
			lo->rq_n -= lo->rq_head;
			lo->rq_head = 0;
		}
		if (lo->rq_n == lo->rq_cap) {
			size_t cap = lo->rq_cap ? lo->rq_cap * 2 : 16;
			struct oi_recv *q = realloc(lo->rq, cap * sizeof(*q));

			if (!q)
				return NULL;
			lo->rq = q;
			lo->rq_cap = cap;
		}
	}
	struct oi_recv *r = &lo->rq[lo->rq_n++];

	memset(r, 0, sizeof(*r));
	lo->p2p = 1;
	r->ctx = block_ctx(lo);
	r->peer = -1;
	return r;
}

/* The receive of request req still waiting in lo's queue, or NULL. */
static struct oi_recv *rq_find(struct oi_loc *lo, uint64_t req)
{
	for (size_t i = lo->rq_head; i < lo->rq_n; i++)
		if (!lo->rq[i].done && lo->rq[i].req == req)
			return &lo->rq[i];
	return NULL;
}

/* r received from rank sender of comm: *r filled, or 0 when the sender is
 * no known location (skipped), unless msgtrace's export says the sender
 * was not traced (r->fab). */
static int recv_from(struct mt_otf2in *in, int32_t ep, struct oi_recv *r,
		     uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	r->comm = mt_otf2in_comm_peer(in, ep, comm, sender, &r->peer);
	if (r->comm == OI_NONE ||
	    (r->peer < 0 && !(r->fab.has && sender == OTF2_UNDEFINED_UINT32))) {
		in->facts.skipped++;
		return 0;
	}
	r->comm_src = (int32_t)sender;
	r->tag = tag;
	r->len = len;
	return 1;
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				 OTF2_AttributeList *al, uint32_t sender,
				 OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	struct mt_otf2in *in = arg;
	uint64_t ts = mt_otf2in_ns(in, time);
	struct oi_recv *r;
	struct oi_loc *lo;
	enum mt_status s;
	int32_t ep;

	(void)al;
	if (joined_call(in, comm) || !(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	if (!(r = rq_push(lo)))
		return failed(in, MT_ERR_NOMEM);
	if (!recv_from(in, ep, r, sender, comm, tag, len)) {
		lo->rq_n--;
		return CB_OK;
	}
	/* Posted when its call was entered. */
	r->post_ts = lo->depth && lo->depth <= OI_DEPTH ? lo->enter_ts[lo->depth - 1] : ts;
	r->done_ts = ts;
	r->done = 1;
	return (s = flush(in, ep)) ? failed(in, s) : CB_OK;
}

static OTF2_CallbackCode ev_irecv_req(OTF2_LocationRef loc, OTF2_TimeStamp time,
				      void *arg, OTF2_AttributeList *al, uint64_t req)
{
	struct mt_otf2in *in = arg;
	struct oi_recv *r;
	struct oi_loc *lo;
	enum mt_status s;
	int32_t ep;

	if (!(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	if (!(r = rq_push(lo)))
		return failed(in, MT_ERR_NOMEM);
	in->facts.irecv_requests++;
	r->req = req;
	r->post_ts = mt_otf2in_ns(in, time);
	/* msgtrace's export names what the request was posted for: posted now,
	 * as the fabric trace did, its completion given when it comes. */
	if (mt_otf2in_fab(in, al, &r->fab) && r->fab.has_comm &&
	    (r->comm = mt_otf2in_map_get(&in->comm_map, r->fab.comm)) != OI_NONE) {
		r->posted = 1;	/* before post_recv: it posts r's filter */
		if ((s = post_recv(in, ep, r)))
			return failed(in, s);
	}
	return CB_OK;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, uint32_t sender,
				  OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	struct mt_otf2in *in = arg;
	uint64_t ts = mt_otf2in_ns(in, time);
	struct oi_recv *r, mine;
	struct oi_loc *lo;
	enum mt_status s;
	int32_t ep;

	if (!(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	in->facts.irecv_done++;
	if (!(r = rq_find(lo, req))) {	/* its request was not recorded */
		if (!(r = rq_push(lo)))
			return failed(in, MT_ERR_NOMEM);
		r->post_ts = ts;
	}
	mine = *r;
	mt_otf2in_fab(in, al, &mine.fab);
	if (!recv_from(in, ep, &mine, sender, comm, tag, len))
		mine.cancelled = 1;	/* ends its request: nothing to pair */
	mine.done = 1;
	mine.done_ts = ts;
	*r = mine;
	if (r->posted) {	/* its completion now, as the fabric's */
		if ((s = done_recv(in, ep, r)))
			return failed(in, s);
		r->fed = 1;
	}
	return (s = flush(in, ep)) ? failed(in, s) : CB_OK;
}

static OTF2_CallbackCode ev_cancel(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				   OTF2_AttributeList *al, uint64_t req)
{
	struct mt_otf2in *in = arg;
	uint64_t ts = mt_otf2in_ns(in, time);
	struct oi_recv *r;
	struct oi_loc *lo;
	enum mt_status s;
	int32_t ep;

	(void)al;
	if (!(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	in->facts.cancels++;
	if ((r = rq_find(lo, req))) {
		struct oi_fab x;

		if (mt_otf2in_fab(in, al, &x))
			r->fab = x;
		r->cancelled = r->done = 1;
		r->done_ts = ts;
		s = r->posted ? done_recv(in, ep, r) : MT_OK;
		r->fed = r->posted;
		if (!s)
			s = flush(in, ep);
	} else {			/* a send's request */
		s = complete(in, ep, ts, req & ~OI_CTX_BLOCK, FI_SEND | FI_TAGGED,
			     FI_ECANCELED);
	}
	return s ? failed(in, s) : CB_OK;
}

static OTF2_CallbackCode ev_test(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				 OTF2_AttributeList *al, uint64_t req)
{
	struct mt_otf2in *in = arg;

	(void)loc, (void)time, (void)al, (void)req;
	in->facts.tests++;
	return CB_OK;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct mt_otf2in *in = arg;
	struct oi_loc *lo;
	int32_t ep;

	(void)al;
	if (!(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	if (lo->depth < OI_DEPTH) {
		lo->region[lo->depth] = region;
		lo->enter_ts[lo->depth] = mt_otf2in_ns(in, time);
	}
	lo->depth++;
	lo->p2p = 0;
	return CB_OK;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct mt_otf2in *in = arg;
	struct oi_loc *lo;
	enum mt_status s;
	int32_t ep;

	(void)al;
	if (!(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	if (!lo->p2p) {
		uint32_t r = mt_otf2in_map_get(&in->region_map, region);

		in->facts.sendrecv_empty += r != OI_NONE && in->regions[r].sendrecv;
	}
	if ((s = end_send(in, ep, mt_otf2in_ns(in, time))))
		return failed(in, s);
	lo->depth -= lo->depth > 0;
	return CB_OK;
}

static OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp time,
				       void *arg, OTF2_AttributeList *al)
{
	struct mt_otf2in *in = arg;
	struct oi_loc *lo;
	int32_t ep;

	(void)time, (void)al;
	if ((lo = loc_of(in, loc, &ep)))
		lo->in_coll = 1;
	return CB_OK;
}

static OTF2_CallbackCode ev_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time,
				     void *arg, OTF2_AttributeList *al,
				     OTF2_CollectiveOp op, OTF2_CommRef comm,
				     uint32_t root, uint64_t sent, uint64_t recvd)
{
	struct mt_otf2in *in = arg;
	struct oi_loc *lo;
	int32_t ep;

	(void)time, (void)al, (void)op, (void)comm, (void)root;
	if (!(lo = loc_of(in, loc, &ep)))
		return CB_OK;
	lo->in_coll = 0;
	in->facts.colls++;
	in->facts.coll_sent += sent;
	in->facts.coll_recvd += recvd;
	return CB_OK;
}

static OTF2_CallbackCode ev_thread_end(OTF2_LocationRef loc, OTF2_TimeStamp time,
				       void *arg, OTF2_AttributeList *al,
				       OTF2_CommRef team, uint64_t seq)
{
	struct mt_otf2in *in = arg;
	enum mt_status s;
	int32_t ep;

	(void)al, (void)team, (void)seq;
	if (!loc_of(in, loc, &ep))
		return CB_OK;
	s = mt_match_close(in->m, ep, mt_otf2in_ns(in, time));
	return s ? failed(in, s) : CB_OK;
}

/* Unknown events (metrics, OpenMP, I/O ...) are read past: libotf2 skips
 * what has no callback. */
void mt_otf2in_set_callbacks(OTF2_GlobalEvtReaderCallbacks *cb)
{
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_req);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancel);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(cb, ev_test);
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
	OTF2_GlobalEvtReaderCallbacks_SetThreadEndCallback(cb, ev_thread_end);
}

/* The end: each location's receives still queued go to the matcher in
 * posting order, the completed ones first; a request never completed is
 * posted (pending) only if the producer records completions at all. */
enum mt_status mt_otf2in_flush_all(struct mt_otf2in *in)
{
	int records = in->facts.irecv_done > 0;
	enum mt_status s;

	for (size_t l = 0; l < in->nloc; l++) {
		struct oi_loc *lo = &in->loc[l];

		for (size_t i = lo->rq_head; i < lo->rq_n; i++)
			if (lo->rq[i].done && !lo->rq[i].fed &&
			    (s = feed_recv(in, (int32_t)l, &lo->rq[i])))
				return s;
		for (size_t i = lo->rq_head; i < lo->rq_n; i++) {
			if (lo->rq[i].done)
				continue;
			if (lo->rq[i].posted)	/* pending in the matcher */
				in->facts.irecv_open++;
			else if (!records)
				in->facts.irecv_unrecorded++;
			else if ((s = feed_recv(in, (int32_t)l, &lo->rq[i])))
				return s;
			else
				in->facts.irecv_open++;
		}
		lo->rq_head = lo->rq_n = 0;
		in->facts.colls_open += lo->in_coll;
		if (!lo->depth) {
			in->files[l].hdr_snap.flags |= MT_FILE_CLOSED;
			continue;
		}
		if (!in->facts.ranks_in_calls++) {
			in->facts.open_rank = (int32_t)lo->proc;
			if (lo->depth <= OI_DEPTH) {
				uint32_t r = mt_otf2in_map_get(&in->region_map,
							       lo->region[lo->depth - 1]);

				snprintf(in->facts.open_call, sizeof(in->facts.open_call),
					 "%s", r == OI_NONE ? "?" :
					 mt_otf2in_string(in, in->regions[r].name));
			}
		}
	}
	return MT_OK;
}
