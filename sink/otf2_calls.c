/*
 * otf2_calls.c - the MPI calls of a joined run in the OTF2 export
 * (sink_otf2.h): the archive's events kept beside the fabric's, so that
 * Vampir shows both. Each aligned rank gets one more location, "MPI calls",
 * in its location group; on it every MPI call of the rank is a region
 * (Enter, Leave) named after the call, at the archive's time plus the
 * rank's offset (the fabric's clock), holding the point-to-point events
 * the archive recorded in it: MpiSend at the call's start, MpiRecv (a
 * blocking receive) at its end, on a communicator of their own whose
 * ranks are world ranks. A call never left (the archive ends inside it: a
 * hang) is left at the export's last time. The fabric messages keep their
 * communicators, named "fabric: ..." in a joined export.
 */
#include <stdlib.h>
#include <string.h>

#include "sink_otf2.h"

enum { CE_ENTER, CE_SEND, CE_RECV, CE_LEAVE };

struct call_ev {
	uint64_t ts;
	size_t call;		/* index in the calls */
	size_t p2p;		/* CE_SEND, CE_RECV: index in send / recv */
	uint8_t type;
};

/* By time; at one time a call's Enter before what is inside it, inner
 * calls' Enter after outer ones' and Leave before them. */
static int ev_cmp(const void *a, const void *b)
{
	const struct call_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->call != y->call)
		return (x->call < y->call) == (x->type != CE_LEAVE) ? -1 : 1;
	return x->p2p < y->p2p ? -1 : x->p2p > y->p2p;
}

/* The region of a call's name: its index among the names, added when new. */
static long region_of(struct otf2_out *o, const char *name)
{
	for (uint32_t i = 0; i < o->ncall_names; i++)
		if (o->call_name[i] == name || !strcmp(o->call_name[i], name))
			return i;
	size_t n = o->ncall_names, cap = o->cap_call_names;
	long i = mt_otf2in_push((void **)&o->call_name, &n, &cap, sizeof(*o->call_name));

	if (i < 0)
		return -1;
	o->call_name[i] = name;
	o->ncall_names = (uint32_t)n;
	o->cap_call_names = cap;
	return i;
}

static int push_ev(struct call_ev **v, size_t *n, size_t *cap, struct call_ev e)
{
	long i = mt_otf2in_push((void **)v, n, cap, sizeof(**v));

	if (i < 0)
		return -1;
	(*v)[i] = e;
	return 0;
}

/* Rank r's events, in order, into *v (grown); their number, -1 on failure. */
static long rank_events(struct otf2_out *o, const struct mt_otf2in_calls *c,
			int32_t r, int64_t off, uint64_t end, struct call_ev **v,
			size_t *cap)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct mt_otf2in_call *k = &c->call[i];
		uint64_t enter = k->enter_ns + (uint64_t)off;
		uint64_t leave = k->leave_ns == UINT64_MAX ? (end > enter ? end : enter) :
				 k->leave_ns + (uint64_t)off;

		if (k->proc != r)
			continue;
		if (push_ev(v, &n, cap, (struct call_ev){ .ts = enter, .call = i,
							  .type = CE_ENTER }) ||
		    push_ev(v, &n, cap, (struct call_ev){ .ts = leave, .call = i,
							  .type = CE_LEAVE }) ||
		    region_of(o, k->name) < 0)
			return -1;
	}
	for (int dir = 0; dir < 2; dir++) {
		const struct mt_otf2in_p2p *p = dir ? c->recv : c->send;

		for (size_t i = 0; i < (dir ? c->nrecv : c->nsend); i++) {
			const struct mt_otf2in_call *k = &c->call[p[i].call];

			if (k->proc != r || (dir && k->leave_ns == UINT64_MAX))
				continue;
			if (push_ev(v, &n, cap, (struct call_ev){
				    .ts = (dir ? k->leave_ns : k->enter_ns) + (uint64_t)off,
				    .call = p[i].call, .p2p = i,
				    .type = dir ? CE_RECV : CE_SEND }))
				return -1;
		}
	}
	qsort(*v, n, sizeof(**v), ev_cmp);
	return (long)n;
}

static OTF2_ErrorCode write_one(struct otf2_out *o, OTF2_EvtWriter *w,
				const struct mt_otf2in_calls *c, const struct call_ev *e)
{
	const struct mt_otf2in_call *k = &c->call[e->call];
	const struct mt_otf2in_p2p *p = e->type == CE_SEND ? &c->send[e->p2p] :
					&c->recv[e->p2p];
	OTF2_CommRef comm = o->ncomm;
	uint32_t peer = p->peer >= 0 ? (uint32_t)p->peer : OTF2_UNDEFINED_UINT32;

	switch (e->type) {
	case CE_ENTER:
	case CE_LEAVE: {
		OTF2_RegionRef reg = OTF2_NREGIONS + (OTF2_RegionRef)region_of(o, k->name);

		return e->type == CE_ENTER ? OTF2_EvtWriter_Enter(w, NULL, e->ts, reg) :
		       OTF2_EvtWriter_Leave(w, NULL, e->ts, reg);
	}
	case CE_SEND:
		return OTF2_EvtWriter_MpiSend(w, NULL, e->ts, peer, comm,
					      (uint32_t)p->tag, p->len);
	default:
		return OTF2_EvtWriter_MpiRecv(w, NULL, e->ts, peer, comm,
					      (uint32_t)p->tag, p->len);
	}
}

int mt_sink_otf2_calls(struct otf2_out *o, const struct mt_join *j)
{
	const struct mt_otf2in_calls *c = mt_join_calls(j);
	size_t nranks = mt_join_nranks(j), cap = 0;
	struct call_ev *v = NULL;
	uint64_t end = o->t_max;
	int rc = 0;

	o->call_rank = calloc(nranks + 1, sizeof(*o->call_rank));
	o->call_events = calloc(nranks + 1, sizeof(*o->call_events));
	if (!o->call_rank || !o->call_events)
		return -1;
	for (size_t r = 0; r < nranks && !rc; r++) {
		const struct mt_join_align *a = mt_join_align(j, r);
		size_t loc = o->tr.nthreads + o->ncall_locs;
		OTF2_EvtWriter *w;
		long n;

		if (!a->ok) {
			o->calls_unaligned++;
			continue;
		}
		if ((n = rank_events(o, c, (int32_t)r, a->offset_ns, end, &v, &cap)) < 0)
			rc = -1;
		if (n <= 0)
			continue;
		if (!(w = OTF2_Archive_GetEvtWriter(o->ar, loc))) {
			mt_err_set(o->err, MT_ERR_IO, "cannot open the OTF2 event "
				   "writer of location %zu", loc);
			rc = -1;
			break;
		}
		for (long i = 0; i < n && !rc; i++)
			rc = mt_sink_otf2_check(o, write_one(o, w, c, &v[i]),
						"MPI call event");
		if (v[0].ts < o->t_min)
			o->t_min = v[0].ts;
		if (v[n - 1].ts > o->t_max)
			o->t_max = v[n - 1].ts;
		o->call_rank[o->ncall_locs] = (int32_t)r;
		o->call_events[o->ncall_locs++] = (uint64_t)n;
		if (mt_sink_otf2_check(o, OTF2_Archive_CloseEvtWriter(o->ar, w),
				       "closing an event writer"))
			rc = -1;
	}
	free(v);
	return rc;
}
