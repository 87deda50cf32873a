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
	uint64_t ts;		/* on the fabric's clock */
	size_t call;		/* index in the calls */
	size_t p2p;		/* CE_SEND, CE_RECV: index in send / recv */
	int32_t rank;
	uint32_t region;	/* CE_ENTER, CE_LEAVE */
	uint8_t type;
};

/* By rank, then time; at one time a call's Enter before what is inside
 * it, inner calls' Enter after outer ones' and Leave before them. */
static int ev_cmp(const void *a, const void *b)
{
	const struct call_ev *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
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

/* 1 with rank r's offset in *off when r is aligned, else 0. */
static int rank_offset(const struct mt_join *j, int32_t r, int64_t *off)
{
	const struct mt_join_align *a;

	if (r < 0 || (size_t)r >= mt_join_nranks(j) || !(a = mt_join_align(j, (size_t)r))->ok)
		return 0;
	*off = a->offset_ns;
	return 1;
}

/* Every aligned rank's events into *v, sorted by rank and time; their
 * number, -1 on failure. end: where calls never left are left. */
static long all_events(struct otf2_out *o, const struct mt_join *j, uint64_t end,
		       struct call_ev **v)
{
	const struct mt_otf2in_calls *c = mt_join_calls(j);
	size_t n = 0, cap = 0;
	int64_t off;
	long reg;

	for (size_t i = 0; i < c->n; i++) {
		const struct mt_otf2in_call *k = &c->call[i];

		if (!rank_offset(j, k->proc, &off))
			continue;
		uint64_t enter = k->enter_ns + (uint64_t)off;
		uint64_t leave = k->leave_ns == UINT64_MAX ? (end > enter ? end : enter) :
				 k->leave_ns + (uint64_t)off;

		if ((reg = region_of(o, k->name)) < 0 ||
		    push_ev(v, &n, &cap, (struct call_ev){ .ts = enter, .call = i,
				.rank = k->proc, .region = (uint32_t)reg, .type = CE_ENTER }) ||
		    push_ev(v, &n, &cap, (struct call_ev){ .ts = leave, .call = i,
				.rank = k->proc, .region = (uint32_t)reg, .type = CE_LEAVE }))
			return -1;
	}
	for (int dir = 0; dir < 2; dir++) {
		const struct mt_otf2in_p2p *p = dir ? c->recv : c->send;

		for (size_t i = 0; i < (dir ? c->nrecv : c->nsend); i++) {
			const struct mt_otf2in_call *k = &c->call[p[i].call];

			if (!rank_offset(j, k->proc, &off) || (dir && k->leave_ns == UINT64_MAX))
				continue;
			if (push_ev(v, &n, &cap, (struct call_ev){
				    .ts = (dir ? k->leave_ns : k->enter_ns) + (uint64_t)off,
				    .call = p[i].call, .p2p = i, .rank = k->proc,
				    .type = dir ? CE_RECV : CE_SEND }))
				return -1;
		}
	}
	qsort(*v, n, sizeof(**v), ev_cmp);
	return (long)n;
}

static OTF2_ErrorCode write_one(const struct otf2_out *o, OTF2_EvtWriter *w,
				const struct mt_otf2in_calls *c, const struct call_ev *e)
{
	const struct mt_otf2in_p2p *p = e->type == CE_SEND ? &c->send[e->p2p] :
					&c->recv[e->p2p];
	OTF2_CommRef comm = o->ncomm;
	uint32_t peer = p->peer >= 0 ? (uint32_t)p->peer : OTF2_UNDEFINED_UINT32;

	switch (e->type) {
	case CE_ENTER:
		return OTF2_EvtWriter_Enter(w, NULL, e->ts, OTF2_NREGIONS + e->region);
	case CE_LEAVE:
		return OTF2_EvtWriter_Leave(w, NULL, e->ts, OTF2_NREGIONS + e->region);
	case CE_SEND:
		return OTF2_EvtWriter_MpiSend(w, NULL, e->ts, peer, comm,
					      (uint32_t)p->tag, p->len);
	default:
		return OTF2_EvtWriter_MpiRecv(w, NULL, e->ts, peer, comm,
					      (uint32_t)p->tag, p->len);
	}
}

/* Rank v[0].rank's n events on the next MPI calls location. */
static int write_rank(struct otf2_out *o, const struct mt_otf2in_calls *c,
		      const struct call_ev *v, size_t n)
{
	size_t loc = o->tr.nthreads + o->ncall_locs;
	OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(o->ar, loc);
	int rc = 0;

	if (!w) {
		mt_err_set(o->err, MT_ERR_IO, "cannot open the OTF2 event writer "
			   "of location %zu", loc);
		return -1;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = mt_sink_otf2_check(o, write_one(o, w, c, &v[i]), "MPI call event");
	if (v[0].ts < o->t_min)
		o->t_min = v[0].ts;
	if (v[n - 1].ts > o->t_max)
		o->t_max = v[n - 1].ts;
	o->call_rank[o->ncall_locs] = v[0].rank;
	o->call_events[o->ncall_locs++] = n;
	if (mt_sink_otf2_check(o, OTF2_Archive_CloseEvtWriter(o->ar, w),
			       "closing an event writer"))
		rc = -1;
	return rc;
}

int mt_sink_otf2_calls(struct otf2_out *o, const struct mt_join *j)
{
	size_t nranks = mt_join_nranks(j);
	struct call_ev *v = NULL;
	long n;
	int rc = 0;

	o->call_rank = calloc(nranks + 1, sizeof(*o->call_rank));
	o->call_events = calloc(nranks + 1, sizeof(*o->call_events));
	if (!o->call_rank || !o->call_events || (n = all_events(o, j, o->t_max, &v)) < 0) {
		free(v);
		return -1;
	}
	for (size_t r = 0; r < nranks; r++)
		o->calls_unaligned += !mt_join_align(j, r)->ok;
	for (long a = 0, b; a < n && !rc; a = b) {
		for (b = a + 1; b < n && v[b].rank == v[a].rank; b++)
			;
		rc = write_rank(o, mt_join_calls(j), v + a, (size_t)(b - a));
	}
	free(v);
	return rc;
}
