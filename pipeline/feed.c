/*
 * feed.c - trace records to mt_match operations (see feed.h).
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

#include "feed.h"

#define PRESCAN_OPS 4096	/* ops per file looked at to detect layouts */

/* Cold, as resolve_slow: the caches in front of them miss a few times per
 * trace, and their calls off the hot path leave it registers. Past
 * FEED_ADDR_CACHE ranks resolve_slow runs for most operations; it is then
 * one search among the process's AV entries, its cost the entry's cache
 * miss. */
static __attribute__((cold)) int32_t ep_search(const struct feed *fd,
					       uint32_t proc, uint64_t ep)
{
	const struct mt_trace_ep *e = mt_trace_find_ep(fd->t, proc, ep);

	return e ? (int32_t)(e - fd->t->eps) : -1;
}

/* Processes use one endpoint (or few): remember the last one. */
static inline int32_t ep_index(struct feed *fd, uint32_t proc, uint64_t ep)
{
	struct feed_proc_cache *c = &fd->pc[proc];

	if (c->ep == -2 || c->ep_id != ep) {
		c->ep = ep_search(fd, proc, ep);
		c->ep_id = ep;
	}
	return c->ep;
}

/* What each call is, one look-up per record (enum mt_op values < 32). */
enum { OPK_SEND = 1, OPK_TAGGED = 2, OPK_INJECT = 4, OPK_MSG = 8, OPK_DATA = 16 };
static const uint8_t op_kind[32] = {
	[MT_OP_TRECV] = OPK_TAGGED, [MT_OP_TRECVV] = OPK_TAGGED,
	[MT_OP_TRECVMSG] = OPK_TAGGED | OPK_MSG,
	[MT_OP_TSEND] = OPK_SEND | OPK_TAGGED, [MT_OP_TSENDV] = OPK_SEND | OPK_TAGGED,
	[MT_OP_TSENDMSG] = OPK_SEND | OPK_TAGGED | OPK_MSG,
	[MT_OP_TINJECT] = OPK_SEND | OPK_TAGGED | OPK_INJECT,
	[MT_OP_TSENDDATA] = OPK_SEND | OPK_TAGGED | OPK_DATA,
	[MT_OP_TINJECTDATA] = OPK_SEND | OPK_TAGGED | OPK_INJECT | OPK_DATA,
	[MT_OP_RECVMSG] = OPK_MSG,
	[MT_OP_SEND] = OPK_SEND, [MT_OP_SENDV] = OPK_SEND,
	[MT_OP_SENDMSG] = OPK_SEND | OPK_MSG, [MT_OP_INJECT] = OPK_SEND | OPK_INJECT,
	[MT_OP_SENDDATA] = OPK_SEND | OPK_DATA,
	[MT_OP_INJECTDATA] = OPK_SEND | OPK_INJECT | OPK_DATA,
};

static unsigned kind_of(unsigned op)
{
	return op < sizeof(op_kind) ? op_kind[op] : 0;
}

static int is_send(unsigned op)
{
	return (kind_of(op) & OPK_SEND) != 0;
}

static int is_tagged(unsigned op)
{
	return (kind_of(op) & OPK_TAGGED) != 0;
}

/* mt_pipe_has_data of a call of kind k: static, for the feed's every op
 * (the exported functions are interposable: gcc calls them, even here). */
static inline int has_data(unsigned k, const struct mt_rec_op *r)
{
	return (k & OPK_DATA) || ((k & OPK_MSG) && (r->flags & FI_REMOTE_CQ_DATA));
}

static inline unsigned recv_in(const struct mt_rec_op *r)
{
	return (r->flags & FI_PEEK ? MT_TAG_RECV_PEEK : 0) |
	       (r->flags & FI_CLAIM ? MT_TAG_RECV_CLAIM : 0) |
	       (r->addr != FI_ADDR_UNSPEC ? MT_TAG_RECV_DIRECTED : 0);
}

int mt_pipe_has_data(const struct mt_rec_op *r)
{
	return has_data(kind_of(r->h.aux), r);
}

unsigned mt_pipe_recv_in(const struct mt_rec_op *r)
{
	return recv_in(r);
}

enum mt_status mt_pipe_evidence(const struct mt_trace *t, const uint8_t *keep,
				struct mt_tag_evidence *ev, size_t *bad_file,
				struct mt_err *err)
{
	enum mt_status bad = MT_OK;	/* the first file's error */

	for (size_t i = 0; i < t->neps; i++) {
		const struct mt_rec_ep *e = t->eps[i].rec;

		mt_tag_evidence_init(&ev[i]);
		mt_tag_evidence_set_ep(&ev[i], e->cq_data_size,
				       (e->caps & FI_DIRECTED_RECV) != 0,
				       e->mem_tag_format);
	}
	for (size_t f = 0; f < t->nfiles; f++) {
		struct mt_trace_cursor c;
		const struct mt_rec_hdr *h;
		struct mt_err ferr;
		enum mt_status s = MT_OK;
		unsigned n = 0;

		if (keep && !keep[t->files[f]->proc])
			continue;
		mt_trace_cursor_init(&c, t->files[f]);
		while (n < PRESCAN_OPS && (s = mt_trace_cursor_next(&c, &h, &ferr)) == MT_OK) {
			const struct mt_rec_op *r = (const void *)h;
			const struct mt_trace_ep *e;

			if (h->type != MT_REC_OP || h->layer || !is_tagged(h->aux) ||
			    r->ret || !(e = mt_trace_find_ep(t, t->files[f]->proc, r->ep)))
				continue;
			n++;
			if (is_send(h->aux))
				mt_tag_evidence_add_send(&ev[e - t->eps],
							 mt_pipe_has_data(r), r->tag, r->data);
			else
				mt_tag_evidence_add_recv(&ev[e - t->eps], r->tag, r->ignore,
							 mt_pipe_recv_in(r));
		}
		if (s != MT_OK && s != MT_END && !bad) {
			bad = s;
			*err = ferr;
			if (bad_file)
				*bad_file = f;
		}
	}
	return bad;
}

void mt_pipe_layouts(const struct mt_trace *t, enum mt_tag_layout_id force,
		     const struct mt_tag_evidence *ev,
		     struct mt_tag_detect_result *det, struct mt_tag_layout *lay)
{
	for (size_t i = 0; i < t->neps; i++)
		mt_tag_detect(&ev[i], force, &det[i]);
	if (force == MT_TAG_LAYOUT_NONE)
		mt_tag_detect_job(ev, det, t->neps);
	for (size_t i = 0; i < t->neps; i++)
		if (mt_tag_layout_get(det[i].layout, t->eps[i].rec->mem_tag_format,
				      &lay[i]))
			mt_tag_layout_get(MT_TAG_LAYOUT_RAW, 0, &lay[i]);
}

enum mt_status mt_pipe_detect(const struct mt_trace *t, enum mt_tag_layout_id force,
			   struct mt_tag_detect_result *det, struct mt_tag_layout *lay,
			   struct mt_err *err)
{
	struct mt_tag_evidence *ev = calloc(t->neps ? t->neps : 1, sizeof(*ev));
	enum mt_status bad;

	if (!ev)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	bad = mt_pipe_evidence(t, NULL, ev, NULL, err);
	mt_pipe_layouts(t, force, ev, det, lay);
	free(ev);
	return bad;
}

/* Which ops of an endpoint complete silently: its CQ binds. */
static void binds(struct feed *fd)
{
	const struct mt_trace *t = fd->t;

	for (size_t i = 0; i < t->ncqbinds; i++) {
		const struct mt_trace_cq_bind *b = &t->cqbinds[i];

		if (!b->ep || !(b->flags & FI_SELECTIVE_COMPLETION))
			continue;
		size_t e = (size_t)(b->ep - t->eps);

		fd->sel_tx[e] |= (b->flags & FI_TRANSMIT) != 0;
		fd->sel_rx[e] |= (b->flags & FI_RECV) != 0;
	}
}

/* The feed's tables and binds, its layouts still to set (mt_pipe_layouts
 * into fd->det and fd->lay, then confidences). */
static enum mt_status feed_tables(struct feed *fd, const struct mt_trace *t)
{
	size_t n = t->neps ? t->neps : 1;

	memset(fd, 0, sizeof(*fd));
	fd->t = t;
	fd->lay = calloc(n, sizeof(*fd->lay));
	fd->conf = calloc(n, sizeof(*fd->conf));
	fd->det = calloc(n, sizeof(*fd->det));
	fd->sel_tx = calloc(n, 1);
	fd->sel_rx = calloc(n, 1);
	fd->proc_ep = malloc((t->nprocs ? t->nprocs : 1) * sizeof(*fd->proc_ep));
	fd->pc = malloc((t->nprocs ? t->nprocs : 1) * sizeof(*fd->pc));
	fd->addr = malloc(n * sizeof(*fd->addr));
	fd->memo = aligned_alloc(64, sizeof(*fd->memo) << FEED_MEMO_BITS);
	if (!fd->lay || !fd->conf || !fd->det || !fd->sel_tx || !fd->sel_rx || !fd->proc_ep ||
	    !fd->pc || !fd->addr || !fd->memo)
		return MT_ERR_NOMEM;
	memset(fd->memo, 0, sizeof(*fd->memo) << FEED_MEMO_BITS);	/* ep_how 0: empty */
	memset(fd->addr, 0, n * sizeof(*fd->addr));	/* 0: not looked up */
	for (size_t p = 0; p < t->nprocs; p++) {
		fd->proc_ep[p] = -1;
		fd->pc[p] = (struct feed_proc_cache){ .ep = -2, .cq_ep = -2,
			.offset_ns = t->procs[p].merge_offset_ns };
	}
	for (size_t f = 0; f < t->nfiles; f++)
		fd->compact |= t->files[f]->compact != 0;
	for (size_t i = 0; i < t->neps; i++)
		if (fd->proc_ep[t->eps[i].proc] < 0)
			fd->proc_ep[t->eps[i].proc] = (int32_t)i;
	binds(fd);
	return MT_OK;
}

static void confidences(struct feed *fd)
{
	for (size_t i = 0; i < fd->t->neps; i++)
		fd->conf[i] = fd->det[i].confidence;
}

enum mt_status mt_pipe_feed_init(struct feed *fd, const struct mt_trace *t,
			 enum mt_tag_layout_id force, struct mt_err *err)
{
	enum mt_status s;

	if ((s = feed_tables(fd, t)))
		return s;
	/* A bad record only ends the evidence: the merge reports it in place,
	 * after the records before it. */
	if ((s = mt_pipe_detect(t, force, fd->det, fd->lay, err)) == MT_ERR_NOMEM)
		return s;
	confidences(fd);
	return MT_OK;
}

enum mt_status mt_pipe_feed_init_from(struct feed *fd, const struct mt_trace *t,
				      enum mt_tag_layout_id force,
				      const struct mt_tag_evidence *ev)
{
	enum mt_status s;

	if ((s = feed_tables(fd, t)))
		return s;
	mt_pipe_layouts(t, force, ev, fd->det, fd->lay);
	confidences(fd);
	return MT_OK;
}

/* The matcher's masks for layout l. */
static void masks_of(const struct mt_tag_layout *l, struct mt_match_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->loose_mask = l->sync;
	cfg->ack_mask = l->ack;
	cfg->field_mask[MT_MATCH_F_CID] = l->cid_mask;
	cfg->field_mask[MT_MATCH_F_SRC] = l->src_mask;
	cfg->field_mask[MT_MATCH_F_PROTO] = l->proto_mask;
	cfg->field_mask[MT_MATCH_F_TAG] = l->tag_mask;
}

/* A thread of p kept only its latest records (a ring that wrapped): 1,
 * with *start where the window starts as the matcher's times go (0 when no
 * thread kept a record that says). */
static int wrapped(const struct mt_trace_proc *p, uint64_t *start)
{
	int64_t ns = 0;

	*start = mt_trace_proc_window(p, &ns) && ns > 0 ? (uint64_t)ns : 0;
	for (size_t f = 0; f < p->nfiles; f++)
		if (p->files[f]->wrapped)
			return 1;
	return 0;
}

/* Each endpoint matches under its own layout: a trace may hold endpoints
 * of several (jobs, libraries, tag modes). */
enum mt_status mt_pipe_feed_attach(struct feed *fd, struct mt_match *m)
{
	fd->m = m;
	for (size_t i = 0; i < fd->t->neps; i++) {
		uint32_t p = fd->t->eps[i].proc;
		struct mt_match_cfg cfg;
		uint64_t start;
		enum mt_status rc = mt_match_add_ep(m, (int32_t)i, (int32_t)p,
					 fd->t->procs[p].key);

		masks_of(&fd->lay[i], &cfg);
		if (rc || (rc = mt_match_ep_masks(m, (int32_t)i, &cfg)) ||
		    (wrapped(&fd->t->procs[p], &start) &&
		     (rc = mt_match_ep_window(m, (int32_t)i, start))))
			return rc;
	}
	return MT_OK;
}

void mt_pipe_feed_fini(struct feed *fd)
{
	free(fd->lay);
	free(fd->conf);
	free(fd->det);
	free(fd->sel_tx);
	free(fd->sel_rx);
	free(fd->proc_ep);
	free(fd->pc);
	free(fd->addr);
	free(fd->memo);
}

static inline void to_fields(const struct mt_tag_layout *l, const struct mt_tag_fields *f,
		      int tagged, uint64_t len, int any_tag, int any_src,
		      struct mt_match_fields *o)
{
	o->any_src = (uint8_t)any_src;
	o->cid = (f->valid & MT_V_CID) ? (int64_t)f->cid : -1;
	o->comm_src = (f->valid & MT_V_SOURCE) && f->source >= 0 ? f->source : -1;
	o->tag = f->tag;
	o->has_tag = (f->valid & MT_V_TAG) && !any_tag;
	o->internal = (f->flags & MT_F_INTERNAL) != 0;
	o->kind = !tagged ? (mt_tag_untagged_handshake(l, len) ? MT_MATCH_HANDSHAKE :
			     MT_MATCH_UNTAGGED) :
		f->proto == MT_PROTO_SSEND_ACK ? MT_MATCH_SSEND_ACK :
		f->proto == MT_PROTO_SSEND ? MT_MATCH_SSEND :
		(f->flags & MT_F_INTERNAL) ? MT_MATCH_COLL : MT_MATCH_USER;
}

/* Source identity of an operation whose decoded source is source
 * (MT_RANK_UNDEF: none): that of tagged traffic; of untagged traffic only
 * Open MPI 5's handshake, whose *data variants carry the sender's rank in
 * CQ data as tagged sends do (ofi_tag_full). */
static uint64_t op_src_id(const struct mt_tag_layout *l, mt_rank_t source,
			  int tagged, uint64_t len)
{
	if (source >= 0 &&
	    (tagged || (l->src_in == MT_SRC_DATA && mt_tag_untagged_handshake(l, len))))
		return (uint64_t)source;
	return MT_MATCH_NOSRC;
}

/* resolve() past its cache. */
static __attribute__((cold)) int32_t resolve_slow(struct feed *fd, int32_t e,
						  uint32_t proc, uint64_t addr)
{
	const struct mt_trace_ep *r = NULL;
	int32_t *slot = addr < FEED_ADDR_CACHE ? &fd->addr[e][addr] : NULL;

	/* e is the operation's endpoint already (ep_index): its AV, not a
	 * search for it (mt_trace_resolve_ep). */
	if (fd->t->eps[e].av)
		r = mt_trace_resolve(fd->t, proc, fd->t->eps[e].av, addr);
	if (slot)
		*slot = r ? (int32_t)(r - fd->t->eps) + 2 : 1;
	return r ? (int32_t)(r - fd->t->eps) : -1;
}

/* fi_addr of endpoint e (of process proc) -> endpoint index, -1. */
static inline int32_t resolve(struct feed *fd, int32_t e, uint32_t proc, uint64_t addr)
{
	if (addr < FEED_ADDR_CACHE && fd->addr[e][addr])
		return fd->addr[e][addr] - 2;
	if (addr == FI_ADDR_UNSPEC)	/* every wildcard receive */
		return -1;
	return resolve_slow(fd, e, proc, addr);
}

/* Fields and source identity of a send, or the filter of a receive (with
 * aux its CQ data, 0 without MT_TAG_IN_DATA, or its ignore mask). */
static void decode_op(const struct mt_tag_layout *l, int send, int tagged,
		      uint64_t tag, uint64_t aux, unsigned in, uint64_t len,
		      struct mt_match_fields *f, uint64_t *src_id)
{
	if (send) {
		struct mt_tag_fields tf;

		mt_tag_decode(l, tag, aux, in, &tf);
		*src_id = op_src_id(l, tf.valid & MT_V_SOURCE ? tf.source : MT_RANK_UNDEF,
				    tagged, len);
		to_fields(l, &tf, tagged, len, 0, 0, f);
	} else {
		struct mt_tag_filter flt;

		mt_tag_decode_recv(l, tag, aux, in, &flt);
		*src_id = MT_MATCH_NOSRC;
		to_fields(l, &flt.f, tagged, len, flt.any_tag, flt.any_source, f);
	}
}

/*
 * decode_op for operation o of endpoint e, through the memo: programs
 * repeat a few tags, peers and masks, and decoding costs about 150
 * instructions, a hit about 25. Direct-mapped by the values decoding
 * reads; decoding is pure, so a hit says what it would. Untagged
 * operations, whose length matters (Open MPI 5's handshake), are decoded
 * each time. Inline (forced) in feed_op: its call and four saved registers
 * were 15 of a hit's 65 instructions.
 */
static inline __attribute__((always_inline)) void
decode_memo(struct feed *fd, int32_t e, const struct mt_rec_op *r,
			unsigned k, struct mt_match_op *o)
{
	const struct mt_tag_layout *l = &fd->lay[e];
	int send = (k & OPK_SEND) != 0, tagged = (k & OPK_TAGGED) != 0;
	unsigned in = send ? (has_data(k, r) ? MT_TAG_IN_DATA : 0u) : recv_in(r);
	uint64_t aux = send ? (in ? r->data : 0) : r->ignore;

	if (!tagged) {
		o->f = (struct mt_match_fields){ 0 };	/* its padding too */
		decode_op(l, send, tagged, o->tag, aux, in, r->len, &o->f, &o->src_id);
		return;
	}
	uint64_t ep_how = (uint64_t)(uint32_t)e << 32 | 1u | (uint32_t)send << 1 | in << 2;
	uint64_t h = (o->tag ^ aux * 0x9E3779B97F4A7C15ull ^ ep_how) * 0xC2B2AE3D27D4EB4Full;
	struct feed_memo *d = &fd->memo[h >> (64 - FEED_MEMO_BITS)];

	if (d->ep_how != ep_how || d->tag != o->tag || d->aux != aux) {
		decode_op(l, send, tagged, o->tag, aux, in, r->len, &d->f, &d->src_id);
		d->tag = o->tag;
		d->aux = aux;
		d->ep_how = ep_how;
	}
	o->f = d->f;
	o->src_id = d->src_id;
}

static inline __attribute__((always_inline)) enum mt_status
feed_op(struct feed *fd, const struct mt_trace_event *ev,
		   uint64_t ts)
{
	const struct mt_rec_op *r = (const void *)ev->rec;
	unsigned op = r->h.aux;
	int32_t e;

	if (op == MT_OP_CANCEL || r->ret)	/* cancels show as FI_ECANCELED */
		return MT_OK;
	if ((e = ep_index(fd, ev->proc, r->ep)) < 0) {
		fd->skipped++;
		return MT_OK;
	}
	const struct mt_rec_ep *er = fd->t->eps[e].rec;
	unsigned k = kind_of(op);
	int send = (k & OPK_SEND) != 0, tagged = (k & OPK_TAGGED) != 0;
	/* Member by member, as feed_cqe's: an initializer cleared the
	 * fields decode_memo sets, for every operation. */
	struct mt_match_op o;

	o.ts = ts;
	o.context = r->context;
	o.tag = tagged ? r->tag : 0;
	o.ignore = r->ignore;
	o.len = r->len;
	o.addr = r->addr;
	o.ep = e;
	o.dir = send ? MT_MATCH_DIR_SEND : MT_MATCH_DIR_RECV;
	o.tagged = (uint8_t)tagged;
	o.inject = (k & OPK_INJECT) != 0;
	o.peer = resolve(fd, e, ev->proc, r->addr);
	o.site = mt_trace_op_site(fd->t, ev);
	o.flags = k & OPK_MSG ? r->flags : send ? er->tx_op_flags : er->rx_op_flags;
	o.selective = send ? fd->sel_tx[e] : fd->sel_rx[e];
	decode_memo(fd, e, r, k, &o);
	if (fd->route)
		return fd->route->post(fd->route->arg, &o);
	return mt_match_post(fd->m, &o);
}

/* cqe_ep past its cache: the CQ's bind, else any endpoint of the process
 * (the matcher pairs completions per process). Cold, as ep_search. */
static __attribute__((cold)) int32_t cqe_ep_slow(struct feed *fd, uint32_t proc,
						 uint64_t cq)
{
	struct feed_proc_cache *c = &fd->pc[proc];
	const struct mt_trace_cq_bind *b;

	c->cq_id = cq;
	if (mt_trace_cq_binds(fd->t, proc, cq, &b) && b->ep)
		c->cq_ep = (int32_t)(b->ep - fd->t->eps);
	else
		c->cq_ep = fd->proc_ep[proc];
	return c->cq_ep;
}

/* The endpoint a CQ entry belongs to. Processes read one CQ (or few):
 * remember the last one. */
static inline int32_t cqe_ep(struct feed *fd, uint32_t proc, uint64_t cq)
{
	const struct feed_proc_cache *c = &fd->pc[proc];

	return c->cq_ep != -2 && c->cq_id == cq ? c->cq_ep : cqe_ep_slow(fd, proc, cq);
}

static int cqe_tagged(uint64_t flags)
{
	return (flags & FI_TAGGED) || !(flags & FI_MSG);
}

/* Open MPI trusts the CQ data as the source even without
 * FI_REMOTE_CQ_DATA; the Ssend ACK alone never carries any. */
static unsigned cqe_in(const struct mt_tag_layout *l, uint64_t tag)
{
	return l->src_in == MT_SRC_DATA && !(tag & l->ack) ? MT_TAG_IN_DATA : 0;
}

/* A receive completion decoded, when the matcher needs it (cfg.fields):
 * the source, all the matching needs, is decoded at once by feed_cqe. */
static void cqe_fields(const void *arg, const struct mt_match_cqe *c,
		       struct mt_match_fields *o)
{
	const struct feed *fd = arg;
	const struct mt_tag_layout *l = &fd->lay[c->ep];
	struct mt_tag_fields f;

	mt_tag_decode(l, c->tag, c->data, cqe_in(l, c->tag), &f);
	to_fields(l, &f, cqe_tagged(c->flags), c->len, 0, 0, o);
}

static inline __attribute__((always_inline)) enum mt_status
feed_cqe(struct feed *fd, const struct mt_trace_event *ev,
		    uint64_t ts)
{
	const struct mt_rec_cqe *r = (const void *)ev->rec;
	int32_t e = cqe_ep(fd, ev->proc, r->cq);

	if (e < 0) {
		fd->skipped++;
		return MT_OK;
	}
	const struct mt_tag_layout *l = &fd->lay[e];
	/* Member by member, f left unset: the matcher decodes a completion's
	 * fields through cfg.fields when it needs them
	 * (mt_pipe_feed_match_cfg); an initializer cleared them, and the
	 * padding, for every completion. */
	struct mt_match_cqe c;

	c.ts = ts;
	c.context = r->context;
	c.flags = r->flags;
	c.len = r->len;
	c.tag = r->tag;
	c.data = r->data;
	c.olen = r->olen;
	c.ep = e;
	c.err = r->h.aux == MT_CQ_READERR ? (r->err < 0 ? -r->err : r->err) : 0;
	c.src_ep = r->h.aux == MT_CQ_READFROM || r->h.aux == MT_CQ_SREADFROM ?
		resolve(fd, e, ev->proc, r->src) : -1;
	/* Send completions carry no reliable tag: sends are decoded at post. */
	c.src_id = r->flags & FI_SEND ? MT_MATCH_NOSRC :
		op_src_id(l, mt_tag_decode_source(l, r->tag, r->data, cqe_in(l, r->tag)),
			  cqe_tagged(r->flags), r->len);
	if (fd->route)
		return fd->route->complete(fd->route->arg, &c);
	return mt_match_complete(fd->m, &c);
}

void mt_pipe_feed_match_cfg(const struct feed *fd, struct mt_match_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	if (fd->t->neps)
		masks_of(&fd->lay[0], cfg);
	cfg->fields = cqe_fields;
	cfg->fields_arg = fd;
}

/* The feed's own copy of ev's record if the merge decoded it. */
static void keep_decoded(struct feed *fd, size_t i)
{
	struct mt_trace_event *ev = &fd->ev[i];
	const struct mt_trace_file *f = fd->t->procs[ev->proc].files[ev->file];
	const uint8_t *p = (const uint8_t *)ev->rec;

	if (p < f->map || p >= f->map + f->map_len) {
		memcpy(fd->decoded[i], p, ev->rec->size);
		ev->rec = (const void *)fd->decoded[i];
	}
}

enum mt_status mt_pipe_feed_read(struct feed *fd, struct mt_trace_merge *mg,
				 struct mt_err *err)
{
	enum mt_status s = MT_OK;
	int compact = fd->compact;
	size_t n = 0;

	/* In locals: the merge's calls would make fd's be read again and
	 * stored each time. */
	while (n < FEED_BATCH && (s = mt_trace_merge_next(mg, &fd->ev[n], err)) == MT_OK) {
		/* Records of uncompacted files stay in their mappings. */
		if (compact)
			keep_decoded(fd, n);
		n++;
	}
	fd->n_ev = n;
	return s;
}

/* One merged record in: inline in both entry points, so that the batch's
 * loop runs inside one frame. */
static inline __attribute__((always_inline)) enum mt_status
feed_event(struct feed *fd, const struct mt_trace_event *ev)
{
	uint64_t ts = (uint64_t)(ev->ns + fd->pc[ev->proc].offset_ns);

	/* Type and layer in one test: records of internal layers fall to
	 * the default, as every other type. */
	switch (ev->rec->type | (unsigned)ev->rec->layer << 8) {
	case MT_REC_OP:
		return feed_op(fd, ev, ts);
	case MT_REC_CQE:
		return feed_cqe(fd, ev, ts);
	case MT_REC_CLOSE: {
		const struct mt_rec_close *r = (const void *)ev->rec;
		int32_t e = r->h.aux == MT_FID_CLASS_EP ?
			ep_index(fd, ev->proc, r->id) : -1;

		if (e < 0)
			return MT_OK;
		if (fd->route)
			return fd->route->close(fd->route->arg, e, ts);
		return mt_match_close(fd->m, e, ts);
	}
	default:
		return MT_OK;
	}
}

enum mt_status mt_pipe_feed_event(struct feed *fd, const struct mt_trace_event *ev)
{
	return feed_event(fd, ev);
}

enum mt_status mt_pipe_feed_events(struct feed *fd, size_t from, size_t to,
				   size_t *next)
{
	enum mt_status s = MT_OK;

	while (from < to && !(s = feed_event(fd, &fd->ev[from++])))
		;
	*next = from;
	return s;
}
