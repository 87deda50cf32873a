/*
 * match_order.c - when a completed receive enters matching. Receives of an
 * endpoint enter in posting order among those that could take the same
 * message: a completed receive waits while an earlier-posted receive that
 * could take its message is still posted (that one gets the earlier send;
 * when unsure, it waits: that only delays it), and while an earlier
 * completed receive of its key waits. Unrelated receives left posted
 * (pre-posted, abandoned, wildcard servers) block nothing.
 *
 * Each step costs O(log n) in the operations in flight, whatever the
 * pattern (a walk of the posting list per completion was quadratic with
 * long-lived receives):
 *  - posted receives enter filter classes (struct cls) only once a later
 *    receive completes past them: the usual receive completes first in line
 *    and is never indexed;
 *  - a completed receive asks, for each ignore mask of its endpoint's
 *    indexed receives, the class its message falls in, and waits on the
 *    first whose earliest receive was posted before it;
 *  - a class releases its waiters, earliest first, as its earliest receive
 *    leaves (each waiter is held by a given class at most once: receives
 *    posted later never block it);
 *  - completed receives of one key wait in a heap (struct grp): only the
 *    earliest can be next; one alone with its key, the usual case, needs
 *    no group (the group map holds the op itself).
 * Those whose turn came enter matching earliest first (the ready heap),
 * exactly as a walk of the posting list in order would take them.
 */
#include <stdlib.h>
#include <string.h>

#include "match_fast.h"

#define DIRECTED ((uint32_t)-2)	/* the class of every directed source */

static int before(const struct mt_match *m, uint32_t a, uint32_t b)
{
	return m->op[a].seq < m->op[b].seq;
}

/* Op i's place in a seqheap: by posting sequence (unique), then index. */
static uint64_t sh_key(const struct mt_match *m, uint32_t i)
{
	return (uint64_t)m->op[i].seq << 32 | i;
}

/* The earliest op of a non-empty heap. */
static uint32_t sh_top(const struct seqheap *h)
{
	return (uint32_t)h->v[0];
}

/* Completed receives waiting with their key (join_group): an op alone
 * with its key is in no group, its grpmap entry SOLO | its index (op
 * indices stay below 2^31: the pool would take 500 GB). */
#define SOLO (1u << 31)
#define GRP_SOLO UINT32_MAX	/* op.grp of an op alone with its key */

/* Is completed receive i the earliest of its key? */
static int grp_first(const struct mt_match *m, uint32_t i)
{
	uint32_t g = m->op[i].grp;

	return !g || g == GRP_SOLO || sh_top(&m->grp[g].h) == i;
}

static enum mt_status sh_push(const struct mt_match *m, struct seqheap *h, uint32_t i)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 4;
		uint64_t *v = realloc(h->v, (size_t)cap * sizeof(*v));

		if (!v)
			return MT_ERR_NOMEM;
		h->v = v;
		h->cap = cap;
	}
	uint64_t key = sh_key(m, i);
	uint32_t k = h->n++;

	while (k && key < h->v[(k - 1) / 2]) {
		h->v[k] = h->v[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	h->v[k] = key;
	return MT_OK;
}

static uint32_t sh_pop(struct seqheap *h)
{
	uint64_t top = h->v[0], last = h->v[--h->n];
	uint32_t k = 0;

	for (uint32_t c; (c = 2 * k + 1) < h->n; k = c) {
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= last)
			break;
		h->v[k] = h->v[c];
	}
	if (h->n)
		h->v[k] = last;
	return (uint32_t)top;
}

/* An entry of a pool of structures chained by next_free through their free
 * ones (index 0 unused); a new one is zeroed, a reused one keeps its heap's
 * buffer. NIL when out of memory. */
static uint32_t slot_alloc(void **arr, uint32_t *n, uint32_t *cap,
			   uint32_t *free_head, size_t elem, size_t next_off)
{
	uint32_t i = *free_head;

	if (i) {
		memcpy(free_head, (char *)*arr + i * elem + next_off, sizeof(i));
		return i;
	}
	if (*n >= *cap && mt_match_grow(arr, cap, elem))
		return NIL;
	i = (*n)++;
	memset((char *)*arr + i * elem, 0, elem);
	return i;
}

/* slot_alloc's arguments for m's pool (cls, grp). */
#define POOL_ARGS(m, pool) (void **)&(m)->pool, &(m)->n_##pool, &(m)->cap_##pool, \
	&(m)->free_##pool, sizeof(*(m)->pool), offsetof(__typeof__(*(m)->pool), next_free)

/* The pool entry the map gives k, made if absent (a class: a freed one is
 * empty, a new one zeroed); NIL when out of memory. */
#define ENTRY_OF(m, map, pool, key) entry_of(&(m)->map, (key), POOL_ARGS(m, pool), \
	offsetof(__typeof__(*(m)->pool), k))

static uint32_t entry_of(struct map *mp, const struct map_key *k, void **arr,
			 uint32_t *n, uint32_t *cap, uint32_t *free_head,
			 size_t elem, size_t next_off, size_t key_off)
{
	int added;
	struct map_slot *s = mt_match_map_find_or_add(mp, k, &added);
	uint32_t i;

	if (!s)
		return NIL;
	if (!added)
		return s->v;
	if (!(i = slot_alloc(arr, n, cap, free_head, elem, next_off))) {
		mt_match_map_del(mp, s);
		return NIL;
	}
	memcpy((char *)*arr + i * elem + key_off, k, sizeof(*k));
	return s->v = i;
}

/* A receive's filter, with untagged receives as one filter taking all. */
static uint64_t op_ignore(const struct op *o)
{
	return o->p.tagged ? o->p.ignore : ~0ull;
}

static struct map_key cls_key(int32_t ep, uint32_t mask, uint32_t peer,
			      uint64_t val)
{
	return (struct map_key){ .a = val, .b = (uint64_t)peer << 32 | mask,
				 .c = (uint32_t)ep };
}

/* The mask entry of the class of key k (cls_key's mask). */
static uint32_t cls_mask(const struct map_key *k)
{
	return (uint32_t)k->b;
}

/* The class of key k of endpoint e, or NIL; through e's last one. */
static uint32_t cls_find(struct mt_match *m, struct ep *e, const struct map_key *k)
{
	if (e->cls_last && mt_match_map_same(&e->cls_last_k, k))
		return e->cls_last;
	const struct map_slot *s = mt_match_map_get(&m->clsmap, k);

	if (!s)
		return NIL;
	e->cls_last_k = *k;
	return e->cls_last = s->v;
}

/* Index of the endpoint's mask entry (tagged, ignore), added if absent;
 * UINT32_MAX when out of memory. */
static uint32_t mask_add(struct ep *e, uint8_t tagged, uint64_t ignore)
{
	uint32_t free_at = e->n_mg;

	for (uint32_t g = 0; g < e->n_mg; g++) {
		if (!e->mg[g].count) {
			free_at = free_at < g ? free_at : g;
			continue;
		}
		if (e->mg[g].tagged == tagged && e->mg[g].ignore == ignore)
			return e->mg[g].count++, g;
	}
	if (free_at == e->n_mg) {
		struct maskg *v = realloc(e->mg, (e->n_mg + 1) * sizeof(*v));

		if (!v)
			return UINT32_MAX;
		e->mg = v;
		e->n_mg++;
	}
	e->mg[free_at] = (struct maskg){ .ignore = ignore, .count = 1,
					 .tagged = tagged };
	e->n_mg_used++;
	return free_at;
}

/* Posted receive i enters its class: that of its source (-1: any), and a
 * directed one also the class of all directed sources (a message whose
 * source is unknown asks the two: -1 and all directed). */
static enum mt_status index_op(struct mt_match *m, uint32_t i)
{
	struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];
	uint64_t ign = op_ignore(o);
	uint32_t g = mask_add(e, o->p.tagged, ign);

	if (g == UINT32_MAX)
		return MT_ERR_NOMEM;
	e->mg[g].directed += o->p.peer >= 0;
	o->cls[1] = NIL;
	for (int w = 0; w < 1 + (o->p.peer >= 0); w++) {
		struct map_key k = cls_key(o->p.ep, g, w ? DIRECTED :
					   (uint32_t)o->p.peer, o->p.tag & ~ign);
		uint32_t c = cls_find(m, e, &k);

		if (!c && !(c = ENTRY_OF(m, clsmap, cls, &k)))
			return MT_ERR_NOMEM;
		o->cls[w] = c;
		o->c_next[w] = NIL;
		o->c_prev[w] = m->cls[c].tail;
		if (m->cls[c].tail)
			m->op[m->cls[c].tail].c_next[w] = i;
		else
			m->cls[c].head = i;
		m->cls[c].tail = i;
	}
	o->state |= OP_INDEXED;
	return MT_OK;
}

/* The class holding completed receive i back: one with a receive posted
 * before i that could take its message, or NIL. */
static uint32_t blocker(struct mt_match *m, uint32_t i)
{
	const struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];
	/* Receives from anyone, and from its source (or from any source
	 * named, when its source is unknown). */
	uint32_t peers[2] = { (uint32_t)-1,
			      o->rsrc_ep >= 0 ? (uint32_t)o->rsrc_ep : DIRECTED };

	for (uint32_t g = 0; g < e->n_mg; g++) {
		if (!e->mg[g].count || e->mg[g].tagged != o->p.tagged)
			continue;
		/* Only the classes this mask's receives can be in: a
		 * server's wildcard receives, or directed ones alone, make
		 * one look-up, not two. */
		uint32_t to = e->mg[g].directed ? 2 : 1;

		for (uint32_t p = e->mg[g].directed == e->mg[g].count; p < to; p++) {
			struct map_key k = cls_key(o->p.ep, g, peers[p],
						   o->rtag & ~e->mg[g].ignore);
			uint32_t c = cls_find(m, e, &k);

			/* (An emptied class is still in the map while it
			 * releases its waiters.) */
			if (c && m->cls[c].head && before(m, m->cls[c].head, i))
				return c;
		}
	}
	return NIL;
}

/* Completed receive i, waiting: it is next (ready), or waits on a class,
 * or behind an earlier one of its key (evaluated again when that one
 * enters matching). */
static enum mt_status evaluate_as(struct mt_match *m, uint32_t i, int unblocked)
{
	struct op *o = &m->op[i];
	uint32_t c;

	if (o->wait_cls || (o->state & OP_READY) || !grp_first(m, i))
		return MT_OK;
	if (!unblocked && (c = blocker(m, i))) {
		o->wait_cls = c;
		return sh_push(m, &m->cls[c].waiters, i);
	}
	o->state |= OP_READY;
	return sh_push(m, &m->ready, i);
}

static enum mt_status evaluate(struct mt_match *m, uint32_t i)
{
	return evaluate_as(m, i, 0);
}

/* Posted receive i leaves its classes (completed, cancelled, failed):
 * the waiters it held back are evaluated again. */
static enum mt_status unindex_op(struct mt_match *m, uint32_t i)
{
	struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];

	for (int w = 0; w < 2 && o->cls[w]; w++) {
		uint32_t ci = o->cls[w];
		struct cls *c = &m->cls[ci];
		/* The endpoint's indexed receives all of this class's mask,
		 * none directed (a wildcard server's): a waiter released here
		 * could only have been held by this class, and no longer is. */
		int alone = e->n_mg_used == 1 && !e->mg[cls_mask(&c->k)].directed;

		if (o->c_prev[w])
			m->op[o->c_prev[w]].c_next[w] = o->c_next[w];
		else
			c->head = o->c_next[w];
		if (o->c_next[w])
			m->op[o->c_next[w]].c_prev[w] = o->c_prev[w];
		else
			c->tail = o->c_prev[w];
		while (c->waiters.n &&
		       (!c->head || c->waiters.v[0] < sh_key(m, c->head))) {
			uint32_t j = sh_pop(&c->waiters);

			m->op[j].wait_cls = NIL;
			if (evaluate_as(m, j, alone))
				return MT_ERR_NOMEM;
			c = &m->cls[ci];
		}
		if (!c->head) {
			mt_match_map_del(&m->clsmap, mt_match_map_get(&m->clsmap, &c->k));
			if (e->cls_last == ci)
				e->cls_last = NIL;
			c->next_free = m->free_cls;
			m->free_cls = ci;
		}
	}
	/* The mask entry is the one this op's first class was made with. */
	for (uint32_t g = 0; g < e->n_mg; g++)
		if (e->mg[g].count && e->mg[g].tagged == o->p.tagged &&
		    e->mg[g].ignore == op_ignore(o)) {
			e->n_mg_used -= !--e->mg[g].count;
			e->mg[g].directed -= o->p.peer >= 0;
			break;
		}
	o->state &= ~(uint32_t)OP_INDEXED;
	return MT_OK;
}

/* Receive i (posted, not indexed) completes: every posted receive before
 * it enters its classes, since i and those after it may wait on them. */
static enum mt_status pass_over(struct mt_match *m, uint32_t i)
{
	struct ep *e = &m->ep[m->op[i].p.ep];

	for (uint32_t j = e->unidx; j != i; j = m->op[j].l_next)
		if (index_op(m, j))
			return MT_ERR_NOMEM;
	e->unidx = m->op[i].l_next;
	return MT_OK;
}

static struct map_key grp_key(const struct mt_match *m, const struct op *o)
{
	return (struct map_key){ .a = o->rtag & ~ep_loose(m, o->p.ep), .b = o->rsrc,
				 .c = (uint32_t)o->p.ep | (o->p.tagged ? 1u << 31 : 0) };
}

/* Completed receive i waits with its key. Most wait alone (a wildcard
 * server's receives take messages of many tags and sources): the map then
 * holds the op itself, SOLO | i, and the op GRP_SOLO, with no group and
 * heap to make and free; a second receive of the key makes the group. */
static enum mt_status join_group(struct mt_match *m, uint32_t i)
{
	struct map_key k = grp_key(m, &m->op[i]);
	int added;
	struct map_slot *s = mt_match_map_find_or_add(&m->grpmap, &k, &added);
	uint32_t g;

	if (!s)
		return MT_ERR_NOMEM;
	if (added) {
		s->v = SOLO | i;
		m->op[i].grp = GRP_SOLO;
		return MT_OK;
	}
	if (s->v & SOLO) {
		uint32_t j = s->v & ~SOLO;

		if (!(g = slot_alloc(POOL_ARGS(m, grp))))
			return MT_ERR_NOMEM;
		m->grp[g].k = k;
		if (sh_push(m, &m->grp[g].h, j))
			return MT_ERR_NOMEM;
		s->v = g;
		m->op[j].grp = g;
	}
	g = s->v;
	m->op[i].grp = g;
	return sh_push(m, &m->grp[g].h, i);
}

/* Receive i's turn came: it leaves its posting list and is paired. */
static enum mt_status enter(struct mt_match *m, uint32_t i)
{
	mt_match_list_unlink(m, i);
	m->op[i].state |= OP_FINAL;
	return mt_match_pair_recv(m, i);
}

enum mt_status mt_match_order_drain(struct mt_match *m)
{
	while (m->ready.n) {
		uint32_t i = sh_pop(&m->ready), g = m->op[i].grp;

		m->op[i].state &= ~(uint32_t)OP_READY;
		/* An earlier receive of its key completed since: i waits
		 * behind it again (evaluated when that one enters). */
		if (!grp_first(m, i))
			continue;
		m->op[i].grp = NIL;
		if (g == GRP_SOLO) {
			struct map_key k = grp_key(m, &m->op[i]);

			mt_match_map_del(&m->grpmap, mt_match_map_get(&m->grpmap, &k));
		} else if (g) {
			struct grp *gr = &m->grp[g];

			sh_pop(&gr->h);
			if (!gr->h.n) {
				mt_match_map_del(&m->grpmap,
						 mt_match_map_get(&m->grpmap, &gr->k));
				gr->next_free = m->free_grp;
				m->free_grp = g;
			} else if (evaluate(m, sh_top(&gr->h))) {
				return MT_ERR_NOMEM;
			}
		}
		if (enter(m, i))
			return MT_ERR_NOMEM;
	}
	return MT_OK;
}

/* Receive i completed, and something may come before it (else
 * mt_match_order_done, match_fast.h, paired it at once): it is counted
 * deferred and enters when its turn comes. */
enum mt_status mt_match_order_wait(struct mt_match *m, uint32_t i)
{
	struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];
	enum mt_status s;

	o->state |= OP_DONE;
	e->n_deferred++;
	if ((s = o->state & OP_INDEXED ? unindex_op(m, i) : pass_over(m, i)))
		return s;
	/* Alone in waiting, nothing posted before it in the way: it enters
	 * at once (a receive past earlier ones still posted, that it does
	 * not wait on). */
	if (e->n_deferred == 1 && !m->ready.n &&
	    (e->lh == i || !blocker(m, i)))
		return enter(m, i);
	if (join_group(m, i) || evaluate(m, i))
		return MT_ERR_NOMEM;
	return mt_match_order_drain(m);
}

enum mt_status mt_match_order_drop(struct mt_match *m, uint32_t i)
{
	struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];

	if (o->state & OP_INDEXED) {
		if (unindex_op(m, i))
			return MT_ERR_NOMEM;
	} else if (e->unidx == i) {
		e->unidx = o->l_next;
	}
	mt_match_list_unlink(m, i);
	return MT_OK;
}

/* Input is over: receives still posted will never complete and block no
 * one; the completed ones enter in posting order. */
enum mt_status mt_match_order_end(struct mt_match *m, int32_t ep)
{
	struct ep *e = &m->ep[ep];

	for (uint32_t i = e->lh, next; i && e->n_deferred; i = next) {
		next = m->op[i].l_next;
		if ((m->op[i].state & OP_DONE) && enter(m, i))
			return MT_ERR_NOMEM;
	}
	return MT_OK;
}

void mt_match_order_free(struct mt_match *m)
{
	for (uint32_t c = 1; c < m->n_cls; c++)
		free(m->cls[c].waiters.v);
	for (uint32_t g = 1; g < m->n_grp; g++)
		free(m->grp[g].h.v);
	for (uint32_t e = 0; e < m->n_ep; e++)
		free(m->ep[e].mg);
	free(m->cls);
	free(m->grp);
	free(m->ready.v);
	mt_match_map_fini(&m->clsmap);
	mt_match_map_fini(&m->grpmap);
}
