/*
 * match_hang.c - the root of a hang (see mt_match.h): the pending operations
 * as a wait-for graph between ranks, its strongly connected components
 * (Tarjan, iterative: 10,000 ranks must not recurse 10,000 deep), the
 * components nothing leaves (the roots), the waits grouped, and the near
 * misses that explain a wait rather than a message simply not received yet.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

#include "mt_match.h"

#define NONE SIZE_MAX

#define NAME_STR(n, s) s,
static const char *const state_names[] = { MT_MATCH_RANK_STATES(NAME_STR) };
static const char *const why_names[] = { MT_MATCH_WAIT_WHYS(NAME_STR) };
static const char *const root_names[] = { MT_MATCH_ROOT_TYPES(NAME_STR) };
#undef NAME_STR

/* names[i], "?" past the end. */
#define NAME_OF(names, i) \
	((i) < sizeof(names) / sizeof((names)[0]) ? (names)[i] : "?")

const char *mt_match_rank_state_str(unsigned state)
{
	return NAME_OF(state_names, state);
}

const char *mt_match_wait_str(unsigned why)
{
	return NAME_OF(why_names, why);
}

const char *mt_match_root_str(unsigned type)
{
	return NAME_OF(root_names, type);
}

/* The wait of pending op i; 0 when it waits on no one (a send delivered,
 * only its completion unread). */
static int wait_of(const struct mt_match_pending *p, size_t i,
		   struct mt_match_wait *w)
{
	const struct mt_match_op *op = &p->op;

	memset(w, 0, sizeof(*w));
	w->pending = i;
	w->rank = p->rank;
	w->on = p->peer_rank;
	if (op->dir == MT_MATCH_DIR_SEND) {
		w->why = MT_MATCH_WAIT_SEND;
		return !p->delivered;
	}
	if (op->f.kind == MT_MATCH_SSEND_ACK) {
		/* The Ssend waits on whoever took it, if anyone did. */
		w->why = MT_MATCH_WAIT_SSEND;
		if (p->unacked)
			w->on = p->unacked_msg.recv_rank;
		return 1;
	}
	w->why = MT_MATCH_WAIT_RECV;
	/* A source named by its communicator rank the trace never resolved:
	 * in cid 0, MPI_COMM_WORLD under Open MPI (TAG-LAYOUTS.md), that is
	 * the world rank. */
	if (w->on < 0 && op->f.cid == 0 && op->f.comm_src >= 0 && !op->f.any_src)
		w->on = op->f.comm_src;
	/* Not directed (FI_ADDR_UNSPEC) and no source in the tag: any sender.
	 * Directed at an address no traced endpoint has: an unknown rank. */
	w->any = op->f.any_src || (w->on < 0 && op->addr == FI_ADDR_UNSPEC &&
				   op->f.comm_src < 0);
	if (w->any)
		w->on = -1;
	return 1;
}

/*
 * The graph: the ranks the waits name, numbered densely (a trace's ranks
 * are data: a corrupt one may say 2^31 - 1), and per node its waits on a
 * node (CSR, both ways).
 */
struct graph {
	size_t n;
	int32_t *ids;			/* node -> rank, sorted */
	size_t *src, *dst;		/* wait -> its nodes, NONE: no edge */
	size_t *off, *adj;		/* waits by waiting node */
	size_t *roff, *radj;		/* waits by node waited on */
};

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* Sorted distinct values of v[0..n) in place; returns how many. */
static size_t distinct(int32_t *v, size_t n)
{
	size_t k = 0;

	qsort(v, n, sizeof(*v), cmp_i32);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static size_t node_of(const struct graph *g, int32_t rank)
{
	const int32_t *p = rank < 0 ? NULL :
		bsearch(&rank, g->ids, g->n, sizeof(*g->ids), cmp_i32);

	return p ? (size_t)(p - g->ids) : NONE;
}

/* The nodes, and each wait's ends among them. */
static int nodes(const struct mt_match_hang *h, struct graph *g)
{
	size_t k = 0;

	g->ids = malloc((2 * h->n_waits + 1) * sizeof(*g->ids));
	g->src = malloc((h->n_waits + 1) * sizeof(*g->src));
	g->dst = malloc((h->n_waits + 1) * sizeof(*g->dst));
	if (!g->ids || !g->src || !g->dst)
		return -1;
	for (size_t i = 0; i < h->n_waits; i++) {
		if (h->waits[i].rank >= 0)
			g->ids[k++] = h->waits[i].rank;
		if (h->waits[i].on >= 0)
			g->ids[k++] = h->waits[i].on;
	}
	g->n = distinct(g->ids, k);
	for (size_t i = 0; i < h->n_waits; i++) {
		g->src[i] = node_of(g, h->waits[i].rank);
		g->dst[i] = node_of(g, h->waits[i].on);
		if (g->src[i] == NONE)
			g->dst[i] = NONE;
	}
	return 0;
}

/* Counting sort of the edges by their waiting node (by_on: waited on). */
static int csr(const struct mt_match_hang *h, const struct graph *g, int by_on,
	       size_t **off_out, size_t **adj_out)
{
	const size_t *key = by_on ? g->dst : g->src;
	size_t n = g->n, *off = calloc(n + 1, sizeof(*off));
	size_t *adj = malloc((h->n_waits + 1) * sizeof(*adj));

	*off_out = off;
	*adj_out = adj;
	if (!off || !adj)
		return -1;
	for (size_t i = 0; i < h->n_waits; i++)
		if (g->dst[i] != NONE)
			off[key[i] + 1]++;
	for (size_t v = 0; v < n; v++)
		off[v + 1] += off[v];
	size_t *fill = malloc((n + 1) * sizeof(*fill));

	if (!fill)
		return -1;
	memcpy(fill, off, (n + 1) * sizeof(*fill));
	for (size_t i = 0; i < h->n_waits; i++)
		if (g->dst[i] != NONE)
			adj[fill[key[i]]++] = i;
	free(fill);
	return 0;
}

static size_t target(const struct graph *g, size_t e)
{
	return g->dst[g->adj[e]];
}

/*
 * Tarjan's strongly connected components without recursion: comp[v] is
 * v's component number. Returns the number of components, NONE when out
 * of memory.
 */
static size_t components(const struct graph *g, size_t *comp)
{
	size_t n = g->n, ncomp = 0, counter = 0, sp = 0, cp = 0;
	size_t *index = malloc(n * sizeof(*index)), *low = malloc(n * sizeof(*low));
	size_t *stack = malloc(n * sizeof(*stack)), *call = malloc(n * sizeof(*call));
	size_t *edge_at = malloc(n * sizeof(*edge_at));
	unsigned char *on_stack = calloc(n ? n : 1, 1);

	if (!index || !low || !stack || !call || !edge_at || !on_stack) {
		ncomp = NONE;
		goto end;
	}
	for (size_t v = 0; v < n; v++)
		index[v] = NONE;
	for (size_t root = 0; root < n; root++) {
		if (index[root] != NONE)
			continue;
		call[cp++] = root;
		index[root] = low[root] = counter++;
		edge_at[root] = g->off[root];
		stack[sp++] = root;
		on_stack[root] = 1;
		while (cp) {
			size_t v = call[cp - 1];

			if (edge_at[v] < g->off[v + 1]) {
				size_t t = target(g, edge_at[v]++);

				if (index[t] == NONE) {
					index[t] = low[t] = counter++;
					edge_at[t] = g->off[t];
					stack[sp++] = t;
					on_stack[t] = 1;
					call[cp++] = t;
				} else if (on_stack[t] && index[t] < low[v]) {
					low[v] = index[t];
				}
				continue;
			}
			if (low[v] == index[v]) {
				size_t t;

				do {
					t = stack[--sp];
					on_stack[t] = 0;
					comp[t] = ncomp;
				} while (t != v);
				ncomp++;
			}
			if (--cp && low[v] < low[call[cp - 1]])
				low[call[cp - 1]] = low[v];
		}
	}
end:
	free(index);
	free(low);
	free(stack);
	free(call);
	free(edge_at);
	free(on_stack);
	return ncomp;
}

static int push_path(struct mt_match_hang *h, size_t *cap, size_t w)
{
	if (h->n_path == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		size_t *p = realloc(h->path, c * sizeof(*p));

		if (!p)
			return -1;
		h->path = p;
		*cap = c;
	}
	h->path[h->n_path++] = w;
	h->waits[w].in_root = 1;
	return 0;
}

/*
 * The shortest cycle through s inside its component: a breadth-first
 * search from s for an edge back to s; prev[v] is the wait that reached v.
 */
static int cycle(struct mt_match_hang *h, const struct graph *g,
		 const size_t *comp, size_t s, size_t *prev, size_t *queue,
		 size_t *cap)
{
	size_t head = 0, tail = 0, back = NONE;

	queue[tail++] = s;
	prev[s] = NONE - 1;		/* visited, reached by no edge */
	while (head < tail && back == NONE) {
		size_t u = queue[head++];

		for (size_t e = g->off[u]; e < g->off[u + 1]; e++) {
			size_t t = target(g, e);

			if (comp[t] != comp[s])
				continue;
			if (t == s) {
				back = g->adj[e];
				break;
			}
			if (prev[t] == NONE) {
				prev[t] = g->adj[e];
				queue[tail++] = t;
			}
		}
	}
	size_t first = h->n_path, len = 0;

	for (size_t w = back; w != NONE; len++) {
		if (push_path(h, cap, w))
			return -1;
		size_t r = g->src[w];

		w = r == s ? NONE : prev[r];
	}
	/* Collected backwards, from the edge into s: reverse. */
	for (size_t i = 0; i < len / 2; i++) {
		size_t t = h->path[first + i];

		h->path[first + i] = h->path[first + len - 1 - i];
		h->path[first + len - 1 - i] = t;
	}
	for (size_t i = 0; i < tail; i++)
		prev[queue[i]] = NONE;
	return 0;
}

/* Ranks (other than the root's own) reaching the root by waits. */
static size_t waiters(const struct graph *g, const size_t *comp, size_t c,
		      size_t *queue, unsigned char *seen)
{
	size_t head = 0, tail = 0, n = 0;

	for (size_t v = 0; v < g->n; v++)
		if (comp[v] == c) {
			queue[tail++] = v;
			seen[v] = 1;
		}
	while (head < tail) {
		size_t u = queue[head++];

		for (size_t e = g->roff[u]; e < g->roff[u + 1]; e++) {
			size_t r = g->src[g->radj[e]];

			if (!seen[r]) {
				seen[r] = 1;
				queue[tail++] = r;
				n++;
			}
		}
	}
	for (size_t i = 0; i < tail; i++)
		seen[queue[i]] = 0;
	return n;
}

static int cmp_rank(const void *a, const void *b)
{
	return cmp_i32(&((const struct mt_match_rank *)a)->rank,
		       &((const struct mt_match_rank *)b)->rank);
}

static uint8_t state_of(const struct mt_match_rank *ranks, size_t n_ranks,
			int32_t r)
{
	struct mt_match_rank key = { .rank = r };
	const struct mt_match_rank *k = n_ranks ?
		bsearch(&key, ranks, n_ranks, sizeof(*ranks), cmp_rank) : NULL;

	return k && k->state < MT_MATCH_RANK_COUNT ? k->state :
	       MT_MATCH_RANK_UNTRACED;
}

static int by_waiters(const void *a, const void *b)
{
	const struct mt_match_root *x = a, *y = b;

	if (x->waiters != y->waiters)
		return x->waiters < y->waiters ? 1 : -1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Every component nothing leaves, with its cycle or its open waits. */
static int find_roots(struct mt_match_hang *h, const struct graph *g,
		      const size_t *comp, size_t ncomp,
		      const struct mt_match_rank *ranks, size_t n_ranks)
{
	size_t n = g->n, cap = 0, *size = calloc(ncomp + 1, sizeof(*size));
	unsigned char *out = calloc(ncomp + 1, 1), *self = calloc(ncomp + 1, 1);
	unsigned char *seen = calloc(n + 1, 1);
	size_t *lowest = malloc((ncomp + 1) * sizeof(*lowest));
	size_t *nwait = calloc(n + 1, sizeof(*nwait));
	size_t *prev = malloc((n + 1) * sizeof(*prev));
	size_t *queue = malloc((n + 1) * sizeof(*queue));
	int rc = -1;

	h->roots = calloc(ncomp + 1, sizeof(*h->roots));
	if (!size || !out || !self || !seen || !lowest || !nwait || !prev ||
	    !queue || !h->roots)
		goto end;
	for (size_t v = n; v-- > 0;) {
		size[comp[v]]++;
		lowest[comp[v]] = v;
		prev[v] = NONE;
	}
	for (size_t i = 0; i < h->n_waits; i++) {
		size_t a = g->src[i], b = g->dst[i];

		if (a != NONE)
			nwait[a]++;
		if (b == NONE)
			continue;
		if (comp[a] != comp[b])
			out[comp[a]] = 1;
		else if (a == b)
			self[comp[a]] = 1;
	}
	for (size_t c = 0; c < ncomp; c++) {
		size_t r = lowest[c];
		struct mt_match_root *rt = &h->roots[h->n_roots];

		if (out[c])
			continue;
		memset(rt, 0, sizeof(*rt));
		rt->rank = g->ids[r];
		rt->size = size[c];
		rt->first = h->n_path;
		if (size[c] > 1 || self[c]) {
			rt->type = MT_MATCH_ROOT_CYCLE;
			if (cycle(h, g, comp, r, prev, queue, &cap))
				goto end;
		} else if (nwait[r]) {
			rt->type = MT_MATCH_ROOT_OPEN;
			for (size_t i = 0; i < h->n_waits; i++)
				if (g->src[i] == r && push_path(h, &cap, i))
					goto end;
		} else if (g->roff[r] != g->roff[r + 1]) {
			rt->type = MT_MATCH_ROOT_IDLE;
			rt->state = state_of(ranks, n_ranks, g->ids[r]);
		} else {
			continue;	/* not waited on, waiting on nothing */
		}
		rt->n = h->n_path - rt->first;
		rt->waiters = waiters(g, comp, c, queue, seen);
		h->n_roots++;
	}
	qsort(h->roots, h->n_roots, sizeof(*h->roots), by_waiters);
	rc = 0;
end:
	free(size);
	free(out);
	free(self);
	free(seen);
	free(lowest);
	free(nwait);
	free(prev);
	free(queue);
	return rc;
}

/* Waits are alike when they wait for the same thing. */
struct key_ctx {
	const struct mt_match_hang *h;
	const struct mt_match_pending *p;
};

static const struct mt_match_fields *wfields(const struct key_ctx *k, size_t w)
{
	return &k->p[k->h->waits[w].pending].op.f;
}

static int cmp_alike(const struct key_ctx *k, size_t a, size_t b, int rank)
{
	const struct mt_match_wait *x = &k->h->waits[a], *y = &k->h->waits[b];
	const struct mt_match_fields *f = wfields(k, a), *e = wfields(k, b);
	int64_t d[] = { x->why - y->why, f->kind - e->kind, x->any - y->any,
			f->has_tag - e->has_tag,
			f->cid < e->cid ? -1 : f->cid > e->cid,
			f->has_tag ? (f->tag > e->tag) - (f->tag < e->tag) : 0,
			rank ? (x->rank > y->rank) - (x->rank < y->rank) : 0 };

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (d[i])
			return d[i] < 0 ? -1 : 1;
	return 0;
}

static int cmp_wait(const void *a, const void *b, void *arg)
{
	return cmp_alike(arg, *(const size_t *)a, *(const size_t *)b, 1);
}

static int by_ranks(const void *a, const void *b)
{
	const struct mt_match_group *x = a, *y = b;

	if (x->n_ranks != y->n_ranks)
		return x->n_ranks < y->n_ranks ? 1 : -1;
	return cmp_i32(x->ranks, y->ranks);
}

static int one_group(struct mt_match_hang *h, const struct key_ctx *k,
		     const size_t *idx, size_t n)
{
	struct mt_match_group *g = &h->groups[h->n_groups];
	const struct mt_match_fields *f = wfields(k, idx[0]);

	memset(g, 0, sizeof(*g));
	g->ranks = malloc(n * sizeof(*g->ranks));
	g->on = malloc(n * sizeof(*g->on));
	if (!g->ranks || !g->on)
		return free(g->ranks), free(g->on), -1;
	h->n_groups++;
	g->why = h->waits[idx[0]].why;
	g->any = h->waits[idx[0]].any;
	g->kind = f->kind;
	g->has_tag = f->has_tag;
	g->cid = f->cid;
	g->tag = f->tag;
	g->n_ops = n;
	g->first_ts = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct mt_match_wait *w = &h->waits[idx[i]];
		uint64_t ts = k->p[w->pending].op.ts;

		g->ranks[i] = w->rank;
		if (w->on >= 0)
			g->on[g->n_on++] = w->on;
		g->first_ts = ts < g->first_ts ? ts : g->first_ts;
		g->last_ts = ts > g->last_ts ? ts : g->last_ts;
		if (!i || k->p[w->pending].op.site != g->site)
			g->site = i ? 0 : k->p[w->pending].op.site;
	}
	g->n_ranks = distinct(g->ranks, n);
	g->n_on = distinct(g->on, g->n_on);
	return 0;
}

static int group(struct mt_match_hang *h, const struct mt_match_pending *p)
{
	struct key_ctx k = { h, p };
	size_t n = 0, *idx = malloc((h->n_waits + 1) * sizeof(*idx));

	h->groups = calloc(h->n_waits + 1, sizeof(*h->groups));
	if (!idx || !h->groups)
		return free(idx), -1;
	for (size_t i = 0; i < h->n_waits; i++)
		if (!h->waits[i].in_root)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_wait, &k);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !cmp_alike(&k, idx[i], idx[j], 0); j++)
			;
		if (one_group(h, &k, idx + i, j - i))
			return free(idx), -1;
	}
	free(idx);
	qsort(h->groups, h->n_groups, sizeof(*h->groups), by_ranks);
	return 0;
}

/*
 * Does near miss n explain wait w of p, or is it a message simply not
 * received yet (a barrier's message to a rank still waiting on another
 * peer, an internal message to a rank still in a user receive)? It
 * explains when it could match (lost record, or sent too late; not
 * when the receive names a source the trace does not know), when
 * the sender is the rank waited on but one field of the same family (user
 * or internal) differs, or when only the source differs and the receive
 * waits on itself, for an ACK (one per Ssend), or on a rank that finished
 * or left no trace (not one whose trace ended early).
 */
/* A rank that will send nothing more: finished or never traced (one whose
 * trace ended early may have gone on). */
static int gone(uint8_t state)
{
	return state == MT_MATCH_RANK_FINISHED || state == MT_MATCH_RANK_UNTRACED;
}

static int explains(const struct mt_match_pending *p, const struct mt_match_wait *w,
		    const struct mt_match_near *n,
		    const struct mt_match_rank *ranks, size_t n_ranks)
{
	if (n->field == MT_MATCH_F_COUNT)	/* unless the source is unknown */
		return w->any || w->on >= 0;
	if (n->addr_only || n->field == MT_MATCH_F_SRC)
		return p->op.f.kind == MT_MATCH_SSEND_ACK || w->on == w->rank ||
		       (w->on >= 0 && gone(state_of(ranks, n_ranks, w->on)));
	return (w->any || n->send.send_rank == w->on) &&
	       n->send.f.internal == p->op.f.internal;
}

static int find_explain(struct mt_match_hang *h, const struct mt_match_pending *p,
			const struct mt_match_rank *ranks, size_t n_ranks)
{
	size_t cap = 0;

	for (size_t i = 0; i < h->n_waits; i++) {
		const struct mt_match_wait *w = &h->waits[i];
		const struct mt_match_pending *pp = &p[w->pending];

		for (unsigned k = 0; k <= pp->n_near; k++) {
			if (k < pp->n_near ? !explains(pp, w, &pp->near[k], ranks,
						       n_ranks) :
			    !pp->unacked)
				continue;
			if (h->n_explain == cap) {
				size_t c = cap ? cap * 2 : 16;
				struct mt_match_explain *e =
					realloc(h->explain, c * sizeof(*e));

				if (!e)
					return -1;
				h->explain = e;
				cap = c;
			}
			h->explain[h->n_explain++] = (struct mt_match_explain){
				w->pending, k < pp->n_near ? k : MT_MATCH_NEAR };
		}
	}
	return 0;
}

/* An operation pending where its rank's trace ended early waits on no
 * one that the trace can tell. */
static int recorded_wait(const struct mt_match_pending *p,
			 const struct mt_match_rank *ranks, size_t n_ranks)
{
	return state_of(ranks, n_ranks, p->rank) != MT_MATCH_RANK_ENDED;
}

enum mt_status mt_match_hang_new(const struct mt_match_pending *pending,
				 size_t n, const struct mt_match_rank *ranks,
				 size_t n_ranks, struct mt_match_hang **out)
{
	struct mt_match_hang *h = calloc(1, sizeof(*h));
	struct graph g = { 0 };
	size_t *comp = NULL, ncomp;
	int rc = -1;

	*out = NULL;
	if (!h || !(h->waits = malloc((n + 1) * sizeof(*h->waits))))
		goto end;
	for (size_t i = 0; i < n; i++)
		h->n_waits += recorded_wait(&pending[i], ranks, n_ranks) &&
			      wait_of(&pending[i], i, &h->waits[h->n_waits]);
	if (nodes(h, &g) || csr(h, &g, 0, &g.off, &g.adj) ||
	    csr(h, &g, 1, &g.roff, &g.radj) ||
	    !(comp = malloc((g.n + 1) * sizeof(*comp))) ||
	    (ncomp = components(&g, comp)) == NONE ||
	    find_roots(h, &g, comp, ncomp, ranks, n_ranks) || group(h, pending) ||
	    find_explain(h, pending, ranks, n_ranks))
		goto end;
	rc = 0;
end:
	free(g.ids);
	free(g.src);
	free(g.dst);
	free(g.off);
	free(g.adj);
	free(g.roff);
	free(g.radj);
	free(comp);
	if (rc) {
		mt_match_hang_free(h);
		return MT_ERR_NOMEM;
	}
	*out = h;
	return MT_OK;
}

void mt_match_hang_free(struct mt_match_hang *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_groups; i++) {
		free(h->groups[i].ranks);
		free(h->groups[i].on);
	}
	free(h->groups);
	free(h->waits);
	free(h->roots);
	free(h->path);
	free(h->explain);
	free(h);
}
