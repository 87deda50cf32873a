/*
 * match.c - the matcher's life cycle, pools, names and output queue.
 */
#include <stdlib.h>
#include <string.h>

#include "match_priv.h"

#define NAME_STR(n, s) s,
static const char *const kind_names[] = { MT_MATCH_KINDS(NAME_STR) };
static const char *const status_names[] = { MT_MATCH_STATUSES(NAME_STR) };
static const char *const warn_names[] = { MT_MATCH_WARNINGS(NAME_STR) };
#undef NAME_STR
static const char *const field_names[] = {
	"cid", "source", "protocol bit", "tag", "nothing"
};

const char *mt_match_kind_str(unsigned kind)
{
	return kind < MT_MATCH_KIND_COUNT ? kind_names[kind] : "?";
}

const char *mt_match_status_str(unsigned status)
{
	return status < MT_MATCH_ST_COUNT ? status_names[status] : "?";
}

const char *mt_match_warning_str(unsigned w)
{
	return w < MT_MATCH_W_COUNT ? warn_names[w] : "?";
}

const char *mt_match_field_str(unsigned field)
{
	return field <= MT_MATCH_F_COUNT ? field_names[field] : "?";
}

enum mt_status mt_match_new(const struct mt_match_cfg *cfg, struct mt_match **out)
{
	struct mt_match *m = calloc(1, sizeof(*m));

	if (!m)
		return MT_ERR_NOMEM;
	m->cfg = *cfg;
	m->n_op = m->n_key = m->n_cls = m->n_grp = 1; /* index 0: "none" */
	/* Maps start small and grow with what is in flight: a small one
	 * stays in the cache. */
	if (mt_match_map_init(&m->ctx, 64) || mt_match_map_init(&m->keys, 64) ||
	    mt_match_map_init(&m->comm, 64) || mt_match_map_init(&m->claims, 64) ||
	    mt_match_map_init(&m->owed, 64) || mt_match_map_init(&m->clsmap, 64) ||
	    mt_match_map_init(&m->grpmap, 64)) {
		mt_match_free(m);
		return MT_ERR_NOMEM;
	}
	*out = m;
	return MT_OK;
}

void mt_match_free(struct mt_match *m)
{
	if (!m)
		return;
	mt_match_map_fini(&m->ctx);
	mt_match_map_fini(&m->keys);
	mt_match_map_fini(&m->comm);
	mt_match_map_fini(&m->claims);
	mt_match_map_fini(&m->owed);
	mt_match_order_free(m);
	free(m->owe);
	free(m->op);
	free(m->key);
	free(m->ep);
	free(m->out);
	free(m->sum.pending);
	free(m->paired_bits);
	free(m);
}

enum mt_status mt_match_add_ep(struct mt_match *m, int32_t ep, int32_t proc, int32_t rank)
{
	if (ep < 0 || proc < 0)
		return MT_ERR_ARG;
	if ((uint32_t)ep >= m->n_ep) {
		struct ep *e = realloc(m->ep, (size_t)(ep + 1) * sizeof(*e));

		if (!e)
			return MT_ERR_NOMEM;
		for (uint32_t i = m->n_ep; i <= (uint32_t)ep; i++) {
			e[i] = (struct ep){ .proc = -1, .rank = -1,
					    .close_ts = MT_MATCH_NOTIME };
			for (int j = 0; j < EP_LEARNT; j++)
				e[i].learnt[j].cid = -1;
		}
		m->ep = e;
		m->n_ep = (uint32_t)ep + 1;
	}
	m->ep[ep].proc = proc;
	m->ep[ep].rank = rank;
	return mt_match_ep_masks(m, ep, &m->cfg);
}

enum mt_status mt_match_ep_masks(struct mt_match *m, int32_t ep,
				 const struct mt_match_cfg *cfg)
{
	if (ep_proc(m, ep) < 0)
		return MT_ERR_ARG;
	m->ep[ep].loose = cfg->loose_mask;
	m->ep[ep].ack = cfg->ack_mask;
	memcpy(m->ep[ep].field_mask, cfg->field_mask, sizeof(cfg->field_mask));
	return MT_OK;
}

/* Doubles a pool (from 1024 elements). */
enum mt_status mt_match_grow(void **arr, uint32_t *cap, size_t elem)
{
	uint32_t c = *cap ? *cap * 2 : 1024;
	void *p = realloc(*arr, (size_t)c * elem);

	if (!p)
		return MT_ERR_NOMEM;
	*arr = p;
	*cap = c;
	return MT_OK;
}

uint32_t mt_match_op_alloc(struct mt_match *m)
{
	uint32_t i = m->free_op;

	if (i) {
		m->free_op = m->op[i].ctx_next;
	} else {
		if (m->n_op >= m->cap_op &&
		    mt_match_grow((void **)&m->op, &m->cap_op, sizeof(*m->op)))
			return NIL;
		i = m->n_op++;
	}
	/* The caller sets the posted op and times; clear only the links. */
	struct op *o = &m->op[i];

	o->state = 0;
	o->ctx_next = o->q_next = o->l_prev = o->l_next = o->peer_op = NIL;
	o->grp = o->wait_cls = NIL;
	o->done_len = o->rtag = 0;
	o->rsrc = MT_MATCH_NOSRC;
	memset(&o->rf, 0, sizeof(o->rf));
	return i;
}

void mt_match_op_free(struct mt_match *m, uint32_t i)
{
	m->op[i].state = 0;
	m->op[i].ctx_next = m->free_op;
	m->free_op = i;
}

static struct map_key ctx_key(int32_t proc, uint64_t context)
{
	return (struct map_key){ .a = context, .b = 0, .c = (uint32_t)proc };
}

static uint32_t ctx_hash(int32_t proc, uint64_t context)
{
	return (uint32_t)(((context >> 3) ^ (uint64_t)proc * 0x9E3779B1u) *
			  0x9E3779B97F4A7C15ull >> (64 - CTX_FAST_BITS));
}

/*
 * Appends op i to the FIFO of ops of its process waiting on its context:
 * contexts are reused, and completions come back in posting order. Most
 * ops sit alone in a direct-mapped slot; the map takes collisions and
 * repeats (.over counts them per slot), and an op goes to the slot only
 * when the map holds nothing of that slot, so the slot's op is always the
 * oldest of its key.
 */
enum mt_status mt_match_ctx_push(struct mt_match *m, uint32_t i)
{
	int32_t proc = ep_proc(m, m->op[i].p.ep);
	uint64_t context = m->op[i].p.context;
	uint32_t h = ctx_hash(proc, context);
	int added;

	m->op[i].state |= OP_CTX;
	m->op[i].ctx_next = NIL;
	if (!m->ctx_slot[h].fast && !m->ctx_slot[h].over) {
		m->ctx_slot[h].fast = i;
		return MT_OK;
	}
	struct map_key k = ctx_key(proc, context);
	struct map_slot *s = mt_match_map_find_or_add(&m->ctx, &k, &added);

	if (!s)
		return MT_ERR_NOMEM;
	m->ctx_slot[h].over++;
	if (added) {
		s->v = i;
		return MT_OK;
	}
	uint32_t t = s->v;

	while (m->op[t].ctx_next)
		t = m->op[t].ctx_next;
	m->op[t].ctx_next = i;
	return MT_OK;
}

/* Takes the oldest op of proc waiting on context, or NIL. */
uint32_t mt_match_ctx_pop(struct mt_match *m, int32_t proc, uint64_t context)
{
	uint32_t h = ctx_hash(proc, context);
	uint32_t i = m->ctx_slot[h].fast;

	if (i && m->op[i].p.context == context &&
	    ep_proc(m, m->op[i].p.ep) == proc) {
		m->ctx_slot[h].fast = NIL;
	} else {
		struct map_key k = ctx_key(proc, context);
		struct map_slot *s = m->ctx_slot[h].over ?
			mt_match_map_get(&m->ctx, &k) : NULL;

		if (!s)
			return NIL;
		i = s->v;
		if (m->op[i].ctx_next)
			s->v = m->op[i].ctx_next;
		else
			mt_match_map_del(&m->ctx, s);
		m->ctx_slot[h].over--;
	}
	m->op[i].ctx_next = NIL;
	m->op[i].state &= ~(uint32_t)OP_CTX;
	return i;
}

struct mt_match_msg *mt_match_out_slot(struct mt_match *m)
{
	if (m->out_head + m->out_n == m->out_cap) {
		if (m->out_head) {
			memmove(m->out, m->out + m->out_head,
				m->out_n * sizeof(*m->out));
			m->out_head = 0;
		} else {
			size_t cap = m->out_cap ? m->out_cap * 2 : 256;
			struct mt_match_msg *o = realloc(m->out, cap * sizeof(*o));

			if (!o)
				return NULL;
			m->out = o;
			m->out_cap = cap;
		}
	}
	return &m->out[m->out_head + m->out_n++];
}

size_t mt_match_take_ref(struct mt_match *m, struct mt_match_msg **out, size_t max)
{
	size_t n = m->out_n < max ? m->out_n : max;

	*out = NULL;
	if (!n)		/* the queue may not exist yet (m->out NULL) */
		return 0;
	*out = m->out + m->out_head;
	m->out_n -= n;
	/* The next message may go where these are: the caller is done with
	 * them by then. */
	m->out_head = m->out_n ? m->out_head + n : 0;
	return n;
}

size_t mt_match_take(struct mt_match *m, struct mt_match_msg *out, size_t max)
{
	struct mt_match_msg *in;
	size_t n = mt_match_take_ref(m, &in, max);

	if (n)
		memcpy(out, in, n * sizeof(*out));
	return n;
}

const struct mt_match_summary *mt_match_summary(const struct mt_match *m)
{
	return &m->sum;
}

void mt_match_violate(struct mt_match *m, const char *what)
{
	if (!m->violations++)
		strncpy(m->violation, what, sizeof(m->violation) - 1);
}
