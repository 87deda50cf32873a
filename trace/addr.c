/*
 * addr.c - trace-level address resolution: which process and endpoint an
 * (av, fi_addr) of a process designates, which AV an endpoint uses and
 * which endpoints a CQ serves. Built once from the files' setup records.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

struct obj_ent {
	uint32_t proc;
	uint32_t fclass;
	uint64_t id;
};

struct av_ent {
	uint32_t proc;
	uint32_t seq;		/* record order, so the last insert wins */
	uint64_t av, fi_addr;
	const struct mt_rec_av *rec;
	const struct mt_trace_ep *ep;	/* the endpoint it names, or NULL */
};

/* Every operation's peer is looked up here (mt_trace_resolve): each AV
 * entry knows the endpoint it names, found once when the index is built,
 * and a process's entries are found by its index. */
struct mt_trace_index {
	struct av_ent *av;
	size_t nav;
	size_t *av_first;	/* per process, then nav: its first entry */
	const struct mt_trace_ep **by_name;	/* by name bytes, layer, proc */
};

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int cmp_obj(const void *a, const void *b)
{
	const struct obj_ent *x = a, *y = b;

	return x->proc != y->proc ? CMP(x->proc, y->proc) : CMP(x->id, y->id);
}

static int cmp_ep(const void *a, const void *b)
{
	const struct mt_trace_ep *x = a, *y = b;

	if (x->proc != y->proc)
		return CMP(x->proc, y->proc);
	if (x->rec->ep != y->rec->ep)
		return CMP(x->rec->ep, y->rec->ep);
	return CMP((uintptr_t)x->rec, (uintptr_t)y->rec);
}

static int cmp_cqbind(const void *a, const void *b)
{
	const struct mt_trace_cq_bind *x = a, *y = b;

	if (x->proc != y->proc)
		return CMP(x->proc, y->proc);
	return x->cq != y->cq ? CMP(x->cq, y->cq) : CMP(x->ep_id, y->ep_id);
}

static int cmp_av(const void *a, const void *b)
{
	const struct av_ent *x = a, *y = b;

	if (x->proc != y->proc)
		return CMP(x->proc, y->proc);
	if (x->av != y->av)
		return CMP(x->av, y->av);
	return x->fi_addr != y->fi_addr ? CMP(x->fi_addr, y->fi_addr) :
					  CMP(x->seq, y->seq);
}

static size_t name_len(const struct mt_rec_ep *e)
{
	return e->name_len < sizeof(e->name) ? e->name_len : sizeof(e->name);
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	if (alen != blen)
		return CMP(alen, blen);
	return memcmp(a, b, alen);
}

static int cmp_name(const void *a, const void *b)
{
	const struct mt_trace_ep *x = *(const struct mt_trace_ep *const *)a;
	const struct mt_trace_ep *y = *(const struct mt_trace_ep *const *)b;
	int c = cmp_bytes(x->rec->name, name_len(x->rec), y->rec->name,
			  name_len(y->rec));

	/* An internal layer's endpoint may share the name of the
	 * application-visible one above it (rxm over tcp): layer 0 first. */
	if (c)
		return c;
	if (x->rec->h.layer != y->rec->h.layer)
		return CMP(x->rec->h.layer, y->rec->h.layer);
	return CMP(x->proc, y->proc);
}

struct bind_ent {
	uint32_t proc;
	const struct mt_rec_bind *rec;
};

struct tables {
	struct obj_ent *obj;
	size_t nobj, cobj;
	struct bind_ent *bind;
	size_t nbind, cbind;
	size_t ceps, cav;
};

/* Sort every setup record of process p into the tables. */
static int collect(struct mt_trace *t, uint32_t p, struct tables *tb)
{
	const struct mt_trace_proc *pr = &t->procs[p];
	struct mt_trace_index *ix = t->index;

	for (size_t i = 0; i < pr->nfiles; i++) {
		const struct mt_trace_file *f = pr->files[i];

		for (size_t j = 0; j < f->nsetup; j++) {
			const struct mt_rec_hdr *r = mt_trace_file_setup(f, j);
			struct obj_ent *o;
			struct mt_trace_ep *e;
			struct av_ent *a;
			struct bind_ent *b;

			switch (r->type) {
			case MT_REC_OBJ:
				o = mt_trace_push((void **)&tb->obj, &tb->nobj, &tb->cobj,
					 sizeof(*o));
				if (!o)
					return -1;
				*o = (struct obj_ent){ p, r->aux,
					((const struct mt_rec_obj *)r)->id };
				break;
			case MT_REC_EP:
				e = mt_trace_push((void **)&t->eps, &t->neps, &tb->ceps,
					 sizeof(*e));
				if (!e)
					return -1;
				*e = (struct mt_trace_ep){ p, (const void *)r, 0 };
				break;
			case MT_REC_AV:
				a = mt_trace_push((void **)&ix->av, &ix->nav, &tb->cav,
					 sizeof(*a));
				if (!a)
					return -1;
				*a = (struct av_ent){ p, (uint32_t)ix->nav,
					((const struct mt_rec_av *)r)->av,
					((const struct mt_rec_av *)r)->fi_addr,
					(const void *)r, NULL };
				break;
			case MT_REC_BIND:
				b = mt_trace_push((void **)&tb->bind, &tb->nbind, &tb->cbind,
					 sizeof(*b));
				if (!b)
					return -1;
				*b = (struct bind_ent){ p, (const void *)r };
				break;
			}
		}
	}
	return 0;
}

static uint32_t obj_class(const struct tables *tb, uint32_t proc, uint64_t id)
{
	struct obj_ent key = { proc, 0, id };
	const struct obj_ent *o = tb->nobj ? bsearch(&key, tb->obj, tb->nobj,
						     sizeof(key), cmp_obj) : NULL;

	return o ? o->fclass : 0;
}

static struct mt_trace_ep *find_ep(const struct mt_trace *t, uint32_t proc,
				   uint64_t ep)
{
	size_t lo = 0, hi = t->neps;
	struct mt_trace_ep *e = NULL;

	/* Last record for (proc, ep): the upper bound minus one. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mt_trace_ep *m = &t->eps[mid];

		if (m->proc < proc || (m->proc == proc && m->rec->ep <= ep))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && t->eps[lo - 1].proc == proc && t->eps[lo - 1].rec->ep == ep)
		e = &t->eps[lo - 1];
	return e;
}

/* Endpoint -> AV and CQ -> endpoint links, from binds to known classes. */
static int apply_binds(struct mt_trace *t, const struct tables *tb)
{
	size_t cap = 0;

	for (size_t i = 0; i < tb->nbind; i++) {
		const struct bind_ent *b = &tb->bind[i];
		struct mt_trace_cq_bind *c;
		struct mt_trace_ep *e;

		switch (obj_class(tb, b->proc, b->rec->target)) {
		case MT_FID_CLASS_AV:
			e = find_ep(t, b->proc, b->rec->obj);
			if (e)
				e->av = b->rec->target;
			break;
		case MT_FID_CLASS_CQ:
			c = mt_trace_push((void **)&t->cqbinds, &t->ncqbinds, &cap, sizeof(*c));
			if (!c)
				return -1;
			*c = (struct mt_trace_cq_bind){ b->proc, b->rec->target,
				b->rec->obj, find_ep(t, b->proc, b->rec->obj),
				b->rec->flags };
			break;
		}
	}
	mt_trace_sort(t->cqbinds, t->ncqbinds, sizeof(*t->cqbinds), cmp_cqbind);
	return 0;
}

static uint32_t launch_of(const struct mt_trace *t, uint32_t proc)
{
	return t->jobs[t->procs[proc].job].launch;
}

/* The endpoint whose name a's address holds: the first (lowest layer,
 * then proc) with those bytes, or, as launches run one after another
 * reuse ports, the one of a's process's launch among those of that name
 * and layer (its AV holds only those). */
static const struct mt_trace_ep *named(const struct mt_trace *t, const struct av_ent *a)
{
	const struct mt_trace_index *ix = t->index;
	size_t len = a->rec->addr_len < sizeof(a->rec->addr) ? a->rec->addr_len :
							       sizeof(a->rec->addr);
	size_t lo = 0, hi = t->neps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mt_rec_ep *e = ix->by_name[mid]->rec;

		if (cmp_bytes(e->name, name_len(e), a->rec->addr, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->neps || cmp_bytes(ix->by_name[lo]->rec->name,
				       name_len(ix->by_name[lo]->rec), a->rec->addr, len))
		return NULL;
	for (size_t i = lo; i < t->neps && !cmp_bytes(ix->by_name[i]->rec->name,
				name_len(ix->by_name[i]->rec), a->rec->addr, len) &&
	     ix->by_name[i]->rec->h.layer == ix->by_name[lo]->rec->h.layer; i++)
		if (launch_of(t, ix->by_name[i]->proc) == launch_of(t, a->proc))
			return ix->by_name[i];
	return ix->by_name[lo];
}

/* Each AV entry's endpoint, and where each process's entries start. */
static int link_av(struct mt_trace *t)
{
	struct mt_trace_index *ix = t->index;
	size_t i = 0;

	ix->av_first = malloc((t->nprocs + 1) * sizeof(*ix->av_first));
	if (!ix->av_first)
		return -1;
	for (uint32_t p = 0; p <= t->nprocs; p++) {
		ix->av_first[p] = i;
		for (; i < ix->nav && ix->av[i].proc == p; i++)
			ix->av[i].ep = named(t, &ix->av[i]);
	}
	return 0;
}

enum mt_status mt_trace_addr_build(struct mt_trace *t, struct mt_err *err)
{
	struct tables tb = { 0 };
	int rc = 0;

	t->index = calloc(1, sizeof(*t->index));
	if (!t->index)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (uint32_t p = 0; p < t->nprocs && !rc; p++)
		rc = collect(t, p, &tb);
	if (!rc) {
		mt_trace_sort(tb.obj, tb.nobj, sizeof(*tb.obj), cmp_obj);
		mt_trace_sort(t->eps, t->neps, sizeof(*t->eps), cmp_ep);
		mt_trace_sort(t->index->av, t->index->nav, sizeof(*t->index->av),
			   cmp_av);
		rc = apply_binds(t, &tb);
	}
	if (!rc && t->neps) {
		t->index->by_name = malloc(t->neps * sizeof(*t->index->by_name));
		rc = t->index->by_name ? 0 : -1;
	}
	if (!rc && t->neps) {
		for (size_t i = 0; i < t->neps; i++)
			t->index->by_name[i] = &t->eps[i];
		qsort(t->index->by_name, t->neps, sizeof(*t->index->by_name),
		      cmp_name);
	}
	if (!rc)
		rc = link_av(t);
	free(tb.obj);
	free(tb.bind);
	return rc ? mt_err_set(err, MT_ERR_NOMEM, "out of memory") : MT_OK;
}

void mt_trace_addr_free(struct mt_trace *t)
{
	if (t->index) {
		free(t->index->av);
		free(t->index->av_first);
		free(t->index->by_name);
		free(t->index);
	}
	free(t->eps);
	free(t->cqbinds);
}

const struct mt_trace_ep *mt_trace_find_ep(const struct mt_trace *t,
					   uint32_t proc, uint64_t ep)
{
	return find_ep(t, proc, ep);
}

const struct mt_trace_ep *mt_trace_resolve(const struct mt_trace *t,
					   uint32_t proc, uint64_t av,
					   uint64_t fi_addr)
{
	const struct mt_trace_index *ix = t->index;
	struct av_ent key = { proc, UINT32_MAX, av, fi_addr, NULL, NULL };
	size_t first, lo, hi;

	if (proc >= t->nprocs)
		return NULL;
	first = lo = ix->av_first[proc];
	hi = ix->av_first[proc + 1];
	/* The last insert of (av, fi_addr): upper bound minus one. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_av(&ix->av[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > first && ix->av[lo - 1].av == av && ix->av[lo - 1].fi_addr == fi_addr)
		return ix->av[lo - 1].ep;
	return NULL;
}

const struct mt_trace_ep *mt_trace_resolve_ep(const struct mt_trace *t,
					      uint32_t proc, uint64_t ep,
					      uint64_t fi_addr)
{
	const struct mt_trace_ep *e = find_ep(t, proc, ep);

	return e && e->av ? mt_trace_resolve(t, proc, e->av, fi_addr) : NULL;
}

size_t mt_trace_cq_binds(const struct mt_trace *t, uint32_t proc, uint64_t cq,
			 const struct mt_trace_cq_bind **first)
{
	size_t lo = 0, hi = t->ncqbinds, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mt_trace_cq_bind *c = &t->cqbinds[mid];

		if (c->proc < proc || (c->proc == proc && c->cq < cq))
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = t->cqbinds ? &t->cqbinds[lo] : NULL;
	while (lo + n < t->ncqbinds && t->cqbinds[lo + n].proc == proc &&
	       t->cqbinds[lo + n].cq == cq)
		n++;
	return n;
}
