/*
 * match.c - the matcher's life cycle, pools, names and output queue.
 */
#include <stdlib.h>
#include <string.h>

#include "match_fast.h"

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
	m->n_op = m->n_cls = m->n_grp = 1; /* index 0: "none" */
	/* Maps start small and grow with what is in flight: a small one
	 * stays in the cache. */
	if (mt_match_map_init(&m->ctx, 64, sizeof(struct map_slot)) ||
	    mt_match_map_init(&m->keys, 64, sizeof(struct key_slot)) ||
	    mt_match_map_init(&m->comm, 64, sizeof(struct map_slot)) ||
	    mt_match_map_init(&m->claims, 64, sizeof(struct map_slot)) ||
	    mt_match_map_init(&m->owed, 64, sizeof(struct map_slot)) ||
	    mt_match_map_init(&m->clsmap, 64, sizeof(struct map_slot)) ||
	    mt_match_map_init(&m->grpmap, 64, sizeof(struct map_slot))) {
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

enum mt_status mt_match_ep_window(struct mt_match *m, int32_t ep, uint64_t start)
{
	if (ep_proc(m, ep) < 0)
		return MT_ERR_ARG;
	m->ep[ep].window = 1;
	m->ep[ep].window_start = start;
	m->windowed = 1;
	return MT_OK;
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

/* mt_match_op_alloc past its free list: a new op at the end of the pool. */
uint32_t mt_match_op_more(struct mt_match *m)
{
	if (m->n_op >= m->cap_op &&
	    mt_match_grow((void **)&m->op, &m->cap_op, sizeof(*m->op)))
		return NIL;
	return m->n_op++;
}

static struct map_key ctx_key(int32_t proc, uint64_t context)
{
	return (struct map_key){ .a = context, .b = 0, .c = (uint32_t)proc };
}

/* mt_match_ctx_push when slot h is taken: op i goes to the map. */
enum mt_status mt_match_ctx_push_map(struct mt_match *m, uint32_t i, uint32_t h)
{
	struct map_key k = ctx_key(m->op[i].proc, m->op[i].p.context);
	int added;
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

/* mt_match_ctx_pop when slot h holds another op, or none. */
uint32_t mt_match_ctx_pop_map(struct mt_match *m, int32_t proc, uint64_t context,
			      uint32_t h)
{
	struct map_key k = ctx_key(proc, context);
	struct map_slot *s = m->ctx_slot[h].over ? mt_match_map_get(&m->ctx, &k) : NULL;

	if (!s)
		return NIL;
	uint32_t i = s->v;

	if (m->op[i].ctx_next)
		s->v = m->op[i].ctx_next;
	else
		mt_match_map_del(&m->ctx, s);
	m->ctx_slot[h].over--;
	m->op[i].ctx_next = NIL;
	m->op[i].state &= ~(uint32_t)OP_CTX;
	return i;
}

/* mt_match_out_slot when the queue reaches the end of its array. */
struct mt_match_msg *mt_match_out_more(struct mt_match *m)
{
	if (m->out_head) {
		memmove(m->out, m->out + m->out_head, m->out_n * sizeof(*m->out));
		m->out_head = 0;
	} else {
		size_t cap = m->out_cap ? m->out_cap * 2 : 256;
		struct mt_match_msg *o = realloc(m->out, cap * sizeof(*o));

		if (!o)
			return NULL;
		m->out = o;
		m->out_cap = cap;
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
