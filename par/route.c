/*
 * route.c - where each operation of a rank's records is matched (see
 * mt_par.h): a send on its destination's owner, a receive, probe or close
 * on its own process's owner (this rank), a completion where the
 * operation it completes went; an Ssend ACK's send also here, to pay
 * what its synchronous send is owed. The matcher pairs an operation with its
 * completion by (process, context), first posted first completed, among
 * the operations that wait for one (mt_match_op_waits): the same queue is
 * kept here with each operation's rank, so a completion follows its
 * operation. Memory follows the operations in flight.
 */
#include <stdlib.h>
#include <string.h>

#include "par_int.h"

/* (process, context) -> a queue of ranks, open addressing with linear
 * probing; the queues' nodes in a pool with a free list. */
struct slot {
	uint64_t context;
	uint32_t proc;
	uint32_t head, tail;		/* nodes; head 0: empty slot */
};

struct node {
	int32_t rank;
	uint32_t next;
};

struct par_ctxmap {
	struct slot *s;
	size_t mask, used;
	struct node *node;		/* node[0] unused */
	uint32_t n_node, cap_node, free_node;
};

static size_t hash(uint32_t proc, uint64_t context)
{
	uint64_t h = (context ^ ((uint64_t)proc << 48 | proc)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29);
}

static struct slot *find(const struct par_ctxmap *c, uint32_t proc, uint64_t context)
{
	for (size_t i = hash(proc, context) & c->mask;; i = (i + 1) & c->mask) {
		struct slot *s = &c->s[i];

		if (!s->head || (s->context == context && s->proc == proc))
			return s;
	}
}

static int grow(struct par_ctxmap *c)
{
	struct par_ctxmap bigger = *c;

	bigger.mask = c->mask ? c->mask * 2 + 1 : 255;
	if (!(bigger.s = calloc(bigger.mask + 1, sizeof(*bigger.s))))
		return -1;
	for (size_t i = 0; c->s && i <= c->mask; i++)
		if (c->s[i].head)
			*find(&bigger, c->s[i].proc, c->s[i].context) = c->s[i];
	free(c->s);
	*c = bigger;
	return 0;
}

static int push(struct par_ctxmap *c, uint32_t proc, uint64_t context, int rank)
{
	uint32_t n = c->free_node;
	struct slot *s;

	if ((c->used + 1) * 2 > c->mask + 1 && grow(c))
		return -1;
	if (n) {
		c->free_node = c->node[n].next;
	} else {
		if (!c->n_node)
			c->n_node = 1;
		if (c->n_node >= c->cap_node) {
			uint32_t cap = c->cap_node ? c->cap_node * 2 : 256;
			struct node *v = realloc(c->node, cap * sizeof(*v));

			if (!v)
				return -1;
			c->node = v;
			c->cap_node = cap;
		}
		n = c->n_node++;
	}
	c->node[n] = (struct node){ rank, 0 };
	s = find(c, proc, context);
	if (!s->head) {
		*s = (struct slot){ context, proc, n, n };
		c->used++;
	} else {
		c->node[s->tail].next = n;
		s->tail = n;
	}
	return 0;
}

/* Removes slot s, moving later slots of its probe run back (no tombstones). */
static void del(struct par_ctxmap *c, struct slot *s)
{
	size_t i = (size_t)(s - c->s), j = i;

	for (;;) {
		c->s[i].head = 0;
		for (;;) {
			j = (j + 1) & c->mask;
			if (!c->s[j].head)
				goto done;
			size_t k = hash(c->s[j].proc, c->s[j].context) & c->mask;

			/* Can j's entry move to i (its home not in (i, j])? */
			if (i <= j ? (k <= i || k > j) : (k <= i && k > j))
				break;
		}
		c->s[i] = c->s[j];
		i = j;
	}
done:
	c->used--;
}

/* The rank of the oldest operation waiting on (proc, context), dequeued;
 * -1 when none. */
static int pop(struct par_ctxmap *c, uint32_t proc, uint64_t context)
{
	if (!c->s)
		return -1;
	struct slot *s = find(c, proc, context);
	uint32_t n = s->head;
	int rank;

	if (!n)
		return -1;
	rank = c->node[n].rank;
	s->head = c->node[n].next;
	c->node[n].next = c->free_node;
	c->free_node = n;
	if (!s->head)
		del(c, s);
	return rank;
}

static struct par_ev *entry(struct par_route *rt, int rank, unsigned kind)
{
	struct par_ev *e = mt_par_buf_add(&rt->out[rank]);

	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->at = rt->at;
	e->kind = kind;
	rt->got = 1;
	return e;
}

static enum mt_status post(void *arg, const struct mt_match_op *op)
{
	struct par_route *rt = arg;
	int rank = op->dir == MT_MATCH_DIR_SEND && op->peer >= 0 ?
		rt->ep_owner[op->peer] : rt->self;
	struct par_ev *e;

	if (rt->nranks > 1 && mt_match_op_waits(op) &&
	    push(rt->ctx, rt->ep_proc[op->ep], op->context, rank))
		return MT_ERR_NOMEM;
	if (!(e = entry(rt, rank, PAR_POST)))
		return MT_ERR_NOMEM;
	e->u.op = *op;
	/* An ACK pays its Ssend where the data was paired: here, the
	 * owner of the receiver that sends it. */
	if (rank != rt->self && op->dir == MT_MATCH_DIR_SEND &&
	    op->f.kind == MT_MATCH_SSEND_ACK) {
		if (!(e = entry(rt, rt->self, PAR_ACK)))
			return MT_ERR_NOMEM;
		e->u.op = *op;
	}
	return MT_OK;
}

static enum mt_status complete(void *arg, const struct mt_match_cqe *c)
{
	struct par_route *rt = arg;
	int rank = rt->nranks > 1 ? pop(rt->ctx, rt->ep_proc[c->ep], c->context) : -1;
	struct par_ev *e = entry(rt, rank < 0 ? rt->self : rank, PAR_CQE);

	if (!e)
		return MT_ERR_NOMEM;
	e->u.cqe = *c;
	return MT_OK;
}

static enum mt_status close_ep(void *arg, int32_t ep, uint64_t ts)
{
	struct par_route *rt = arg;
	struct par_ev *e = entry(rt, rt->self, PAR_CLOSE);

	if (!e)
		return MT_ERR_NOMEM;
	e->ep = ep;
	e->ts = ts;
	return MT_OK;
}

enum mt_status mt_par_route_none(struct par_route *rt, int skipped)
{
	return entry(rt, rt->self, skipped ? PAR_SKIP : PAR_NONE) ? MT_OK :
		MT_ERR_NOMEM;
}

enum mt_status mt_par_route_init(struct par_route *rt, int self, int nranks,
				 const int *ep_owner, const uint32_t *ep_proc)
{
	memset(rt, 0, sizeof(*rt));
	rt->self = self;
	rt->nranks = nranks;
	rt->ep_owner = ep_owner;
	rt->ep_proc = ep_proc;
	rt->r = (struct mt_pipe_route){ post, complete, close_ep, rt };
	rt->out = calloc((size_t)nranks, sizeof(*rt->out));
	rt->ctx = calloc(1, sizeof(*rt->ctx));
	if (!rt->out || !rt->ctx)
		return MT_ERR_NOMEM;
	for (int r = 0; r < nranks; r++)
		rt->out[r].size = sizeof(struct par_ev);
	return MT_OK;
}

void mt_par_route_fini(struct par_route *rt)
{
	for (int r = 0; rt->out && r < rt->nranks; r++)
		mt_par_buf_free(&rt->out[r]);
	free(rt->out);
	if (rt->ctx) {
		free(rt->ctx->s);
		free(rt->ctx->node);
	}
	free(rt->ctx);
}
