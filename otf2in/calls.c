/*
 * calls.c - the archive's MPI calls as time intervals (see mt_otf2in.h):
 * the MPI-level view the joined report ties fabric operations to. A call
 * is a region named MPI_* entered and left on one location; its size is
 * the first message length (MpiSend, MpiIsend, MpiRecv) or collective
 * byte count (MpiCollectiveEnd: sent, else received) recorded inside it.
 * Each point-to-point send and blocking receive is kept too (its call,
 * peer's process, tag and length): what the join aligns the clocks on.
 */
#include <stdlib.h>
#include <string.h>

#include "otf2in_int.h"

#define CB_OK OTF2_CALLBACK_SUCCESS

struct calls {
	struct mt_otf2in *in;
	struct mt_otf2in_call *v;
	size_t n, cap;
	struct mt_otf2in_p2p *p2p[2];	/* sends, receives */
	size_t np2p[2], cap_p2p[2];
	/* per location: the stack of open MPI calls (indices in v) */
	uint32_t (*open)[OI_DEPTH];
	uint32_t *depth;	/* regions entered, MPI or not */
	uint32_t *mpi_at;	/* per location and depth: call index + 1, 0 */
	int nomem;
};

static int32_t loc_index(struct calls *c, OTF2_LocationRef ref)
{
	uint32_t l = mt_otf2in_map_get(&c->in->loc_map, ref);

	return l == OI_NONE ? -1 : (int32_t)l;
}

static const char *region_name(const struct mt_otf2in *in, OTF2_RegionRef region)
{
	uint32_t r = mt_otf2in_map_get(&in->region_map, region);

	return r == OI_NONE ? NULL : mt_otf2in_string(in, in->regions[r].name);
}

/* The innermost MPI call open on location l, or NULL. */
static struct mt_otf2in_call *open_call(struct calls *c, int32_t l)
{
	for (uint32_t d = c->depth[l]; d > 0; d--)
		if (d <= OI_DEPTH && c->mpi_at[(size_t)l * OI_DEPTH + d - 1])
			return &c->v[c->mpi_at[(size_t)l * OI_DEPTH + d - 1] - 1];
	return NULL;
}

static OTF2_CallbackCode cl_enter(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct calls *c = arg;
	int32_t l = loc_index(c, loc);
	const char *name;
	uint32_t d;

	(void)al;
	if (l < 0)
		return CB_OK;
	d = c->depth[l]++;
	if (d >= OI_DEPTH)
		return CB_OK;
	c->mpi_at[(size_t)l * OI_DEPTH + d] = 0;
	name = region_name(c->in, region);
	if (!name || strncmp(name, "MPI_", 4))
		return CB_OK;
	const struct mt_otf2in_call *outer = open_call(c, l);
	int64_t outer_at = outer ? outer - c->v : -1;

	if (mt_otf2in_push((void **)&c->v, &c->n, &c->cap, sizeof(*c->v)) < 0) {
		c->nomem = 1;
		return OTF2_CALLBACK_INTERRUPT;
	}
	struct mt_otf2in_call *k = &c->v[c->n - 1];

	k->proc = (int32_t)c->in->loc[l].proc;
	k->thread = l;
	k->enter_ns = mt_otf2in_ns(c->in, time);
	k->leave_ns = UINT64_MAX;
	k->name = name;
	k->parent = outer_at;
	c->mpi_at[(size_t)l * OI_DEPTH + d] = (uint32_t)c->n;
	return CB_OK;
}

static OTF2_CallbackCode cl_leave(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, OTF2_RegionRef region)
{
	struct calls *c = arg;
	int32_t l = loc_index(c, loc);
	uint32_t d;

	(void)al, (void)region;
	if (l < 0 || !c->depth[l])
		return CB_OK;
	d = --c->depth[l];
	if (d < OI_DEPTH && c->mpi_at[(size_t)l * OI_DEPTH + d]) {
		c->v[c->mpi_at[(size_t)l * OI_DEPTH + d] - 1].leave_ns =
			mt_otf2in_ns(c->in, time);
		c->mpi_at[(size_t)l * OI_DEPTH + d] = 0;
	}
	return CB_OK;
}

/* A size recorded inside the call open on loc: the first one counts. */
static void sized(struct calls *c, OTF2_LocationRef loc, uint64_t bytes, int send)
{
	int32_t l = loc_index(c, loc);
	struct mt_otf2in_call *k = l < 0 ? NULL : open_call(c, l);

	if (!k)
		return;
	k->sends += send;
	/* EZTrace 2.0 writes a truncated MPI_Recv's length as a negative
	 * count: not a size. */
	if (!k->has_bytes && bytes <= INT64_MAX) {
		k->bytes = bytes;
		k->has_bytes = 1;
	}
}

/* A send (recv 0) or receive of length len with rank r of comm, inside
 * the call open on loc. */
static OTF2_CallbackCode p2p(struct calls *c, OTF2_LocationRef loc, int recv,
			     OTF2_CommRef comm, uint32_t r, uint32_t tag, uint64_t len)
{
	int32_t l = loc_index(c, loc), peer;
	const struct mt_otf2in_call *k = l < 0 ? NULL : open_call(c, l);

	sized(c, loc, len, !recv);
	if (!k || mt_otf2in_comm_peer(c->in, l, comm, r, &peer) == OI_NONE || peer < 0)
		return CB_OK;
	size_t call = (size_t)(k - c->v);

	if (mt_otf2in_push((void **)&c->p2p[recv], &c->np2p[recv], &c->cap_p2p[recv],
			   sizeof(*c->p2p[recv])) < 0) {
		c->nomem = 1;
		return OTF2_CALLBACK_INTERRUPT;
	}
	c->p2p[recv][c->np2p[recv] - 1] = (struct mt_otf2in_p2p){
		.call = call, .len = len,
		.peer = (int32_t)c->in->loc[peer].proc, .tag = (int32_t)tag };
	return CB_OK;
}

static OTF2_CallbackCode cl_send(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				 OTF2_AttributeList *al, uint32_t receiver,
				 OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	(void)time, (void)al;
	return p2p(arg, loc, 0, comm, receiver, tag, len);
}

static OTF2_CallbackCode cl_isend(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				  OTF2_AttributeList *al, uint32_t receiver,
				  OTF2_CommRef comm, uint32_t tag, uint64_t len,
				  uint64_t req)
{
	(void)req;
	return cl_send(loc, time, arg, al, receiver, comm, tag, len);
}

static OTF2_CallbackCode cl_recv(OTF2_LocationRef loc, OTF2_TimeStamp time, void *arg,
				 OTF2_AttributeList *al, uint32_t sender,
				 OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
	(void)time, (void)al;
	return p2p(arg, loc, 1, comm, sender, tag, len);
}

static OTF2_CallbackCode cl_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp time,
				     void *arg, OTF2_AttributeList *al,
				     OTF2_CollectiveOp op, OTF2_CommRef comm,
				     uint32_t root, uint64_t sent, uint64_t recvd)
{
	(void)time, (void)al, (void)op, (void)comm, (void)root;
	sized(arg, loc, sent ? sent : recvd, 0);
	return CB_OK;
}

enum mt_status mt_otf2in_calls(struct mt_otf2in *in, struct mt_otf2in_calls *out,
			       struct mt_err *err)
{
	struct calls c = { .in = in };
	OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
	enum mt_status s = MT_OK;
	uint64_t got;

	memset(out, 0, sizeof(*out));
	c.depth = calloc(in->nloc ? in->nloc : 1, sizeof(*c.depth));
	c.mpi_at = calloc(in->nloc ? in->nloc * OI_DEPTH : 1, sizeof(*c.mpi_at));
	if (!cb || !c.depth || !c.mpi_at) {
		s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		goto out;
	}
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, cl_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, cl_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, cl_send);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, cl_isend);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, cl_recv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, cl_coll_end);
	OTF2_Reader_RegisterGlobalEvtCallbacks(in->rd, in->ger, cb, &c);
	if (OTF2_Reader_ReadAllGlobalEvents(in->rd, in->ger, &got) != OTF2_SUCCESS &&
	    !c.nomem) {
		s = mt_err_set(err, MT_ERR_CORRUPT, "%s: bad event while reading its "
			       "MPI calls", in->path);
		goto out;
	}
	if (c.nomem) {
		s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		goto out;
	}
	*out = (struct mt_otf2in_calls){ .call = c.v, .n = c.n,
		.send = c.p2p[0], .nsend = c.np2p[0],
		.recv = c.p2p[1], .nrecv = c.np2p[1] };
	c.v = NULL;
	c.p2p[0] = c.p2p[1] = NULL;
out:
	if (cb)
		OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	free(c.v);
	free(c.p2p[0]);
	free(c.p2p[1]);
	free(c.depth);
	free(c.mpi_at);
	return s;
}

void mt_otf2in_calls_free(struct mt_otf2in_calls *c)
{
	free(c->call);
	free(c->send);
	free(c->recv);
	memset(c, 0, sizeof(*c));
}
