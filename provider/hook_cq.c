/*
 * hook_cq.c - completion queues: one MT_REC_CQE per entry a read returned,
 * decoded with the CQ's format; empty polls are only counted. A provider
 * reading its own CQ from inside our hooked call (util sread looping on
 * fi_cq_readfrom) passes straight through, so entries are recorded once.
 *
 * h.ts of a CQE is taken when the read returned, not before the call: that
 * is when the application learned of the completion, and it keeps rdtsc off
 * the empty polls. Each CQ format has its own set of reading hooks, chosen
 * when the CQ is opened, so a read of one entry tests no format (one of
 * several entries tests it once: record_many).
 */
#include <string.h>

#include "hook.h"

#define ORIG(cq) HOOK_ORIG((cq)->ops, struct fi_ops_cq)

/* The format is read back from the attributes after the open: providers
 * that pick one for FI_CQ_FORMAT_UNSPEC write it there (sockets writes
 * CONTEXT, psm writes TAGGED). The util CQ (tcp, rxm, shm ...) leaves UNSPEC
 * and delivers fi_cq_entry (ofi_cq_init: UNSPEC reads as CONTEXT), so a
 * remaining UNSPEC is taken as CONTEXT. */
static int effective_format(const struct fi_cq_attr *attr)
{
	if (!attr || attr->format == FI_CQ_FORMAT_UNSPEC)
		return FI_CQ_FORMAT_CONTEXT;
	return attr->format;
}

_Static_assert((int)MT_CQ_FORMAT_CONTEXT == (int)FI_CQ_FORMAT_CONTEXT &&
	       (int)MT_CQ_FORMAT_MSG == (int)FI_CQ_FORMAT_MSG &&
	       (int)MT_CQ_FORMAT_DATA == (int)FI_CQ_FORMAT_DATA &&
	       (int)MT_CQ_FORMAT_TAGGED == (int)FI_CQ_FORMAT_TAGGED,
	       "the format's mirror of enum fi_cq_format");

static size_t entry_size(int format)
{
	switch (format) {
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return sizeof(struct fi_cq_entry);
	}
}

/* All formats are prefixes of fi_cq_tagged_entry: fields the CQ's format
 * does not have are not read, and with zero set (a record of the inline
 * path, zero already: mt_rec.h) not stored, nor are olen and the error
 * fields, 0 here. h.ts is the caller's. The object's
 * fields come in as values, loaded once per read: the record stores could
 * alias the object, so reading them here would reload them for every
 * entry. */
static inline void fill(struct mt_rec_cqe *r, int zero, uint64_t hdr,
			int format, uint64_t cq, const void *entry,
			fi_addr_t src)
{
	const struct fi_cq_tagged_entry *e = entry;

	mt_rec_hdr_store(&r->h, hdr);
	r->cq = cq;
	if (!zero) {
		r->flags = r->len = r->data = r->tag = r->olen = 0;
		r->err = r->prov_errno = 0;
	}
	if (format >= FI_CQ_FORMAT_MSG) {
		/* op_context and flags, side by side in both: one copy */
		_Static_assert(offsetof(struct mt_rec_cqe, flags) ==
			       offsetof(struct mt_rec_cqe, context) + 8 &&
			       offsetof(struct fi_cq_msg_entry, flags) ==
			       offsetof(struct fi_cq_msg_entry, op_context) + 8,
			       "context and flags are adjacent");
		memcpy(&r->context, &e->op_context, 2 * sizeof(uint64_t));
		r->len = e->len;
	} else {
		r->context = (uint64_t)(uintptr_t)e->op_context;
	}
	if (format >= FI_CQ_FORMAT_DATA)
		r->data = e->data;
	if (format == FI_CQ_FORMAT_TAGGED)
		r->tag = e->tag;
	r->src = src;
}

/* All n entries of a read into consecutive records, stamped with the
 * clock read once for the first. Inlined once per format (a constant
 * there), so the copy has no per-field tests of the format. */
static inline __attribute__((always_inline)) void
fill_n(struct mt_rec_cqe *r, ssize_t n, uint64_t hdr, int format, uint64_t cq,
       const char *buf, const fi_addr_t *src)
{
	const size_t step = entry_size(format);
	ssize_t i;

	mt_rec_stamp(&r->h);
	for (i = 0; i < n; i++) {
		if (i)
			r[i].h.ts = r->h.ts;
		fill(&r[i], 1, hdr, format, cq, buf + (size_t)i * step,
		     src ? src[i] : FI_ADDR_NOTAVAIL);
	}
}

/* One record at a time, through the general reservation. Returns n, so
 * that the hook tail-calls it and keeps nothing live across it. */
static __attribute__((noinline)) ssize_t record_slow(const struct hook_obj *o,
						     enum mt_cq_call call,
						     const char *buf, ssize_t n,
						     const fi_addr_t *src)
{
	uint64_t ts = mt_rec_now();
	ssize_t i;

	for (i = 0; i < n; i++) {
		struct mt_rec_cqe *r = mt_rec_reserve(sizeof(*r));

		/* Each entry that finds no room is counted lost on its own. */
		if (!r)
			continue;
		r->h.ts = ts;
		fill(r, 0, mt_rec_hdr_word(MT_REC_CQE, o->layer, sizeof(*r), call),
		     o->u.cq.format, (uint64_t)(uintptr_t)o->fid,
		     buf + (size_t)i * entry_size(o->u.cq.format),
		     src ? src[i] : FI_ADDR_NOTAVAIL);
		mt_rec_commit(sizeof(*r));
	}
	return n;
}

/* The n > 0 entries of one read in one reservation and one publication;
 * returns n. format is a constant of the hook (one set of hooks per CQ
 * format), the header word comes from the clone the hook was called
 * through. */
static inline __attribute__((always_inline)) ssize_t
record(struct fid_cq *cq, int format, enum mt_cq_call call, const char *buf,
       ssize_t n, const fi_addr_t *src)
{
	const struct hook_clone *c = hook_clone_of(cq->ops);
	struct mt_file_hdr *h;
	struct mt_rec_cqe *r = mt_rec_try((size_t)n * sizeof(*r), &h);

	if (MT_UNLIKELY(!r))
		return record_slow(c->obj, call, buf, n, src);
	fill_n(r, n, c->rec_hdr[call], format, (uint64_t)(uintptr_t)cq, buf,
	       src);
	mt_rec_publish(h, (size_t)n * sizeof(*r));
	return n;
}

/* A read that returned several entries, out of line: inlined into the
 * reading hooks, its loop took callee-saved registers that every read then
 * saved and restored. The format is tested once per such read. */
static __attribute__((noinline)) ssize_t
record_many(struct fid_cq *cq, int format, enum mt_cq_call call,
	    const char *buf, ssize_t n, const fi_addr_t *src)
{
	switch (format) {
	case FI_CQ_FORMAT_MSG:
		return record(cq, FI_CQ_FORMAT_MSG, call, buf, n, src);
	case FI_CQ_FORMAT_DATA:
		return record(cq, FI_CQ_FORMAT_DATA, call, buf, n, src);
	case FI_CQ_FORMAT_TAGGED:
		return record(cq, FI_CQ_FORMAT_TAGGED, call, buf, n, src);
	default:
		return record(cq, FI_CQ_FORMAT_CONTEXT, call, buf, n, src);
	}
}

/* A read mostly returns one entry: that case is tested first and gets its
 * own copy of record() with n a constant, in which the size computation
 * and the loop vanish. */
static inline __attribute__((always_inline)) ssize_t
finish(struct fid_cq *cq, int format, enum mt_cq_call call, const void *buf,
       ssize_t ret, const fi_addr_t *src)
{
	if (MT_LIKELY(ret == 1))
		return record(cq, format, call, buf, 1, src);
	if (ret > 1)
		return record_many(cq, format, call, buf, ret, src);
	if (ret == -FI_EAGAIN)
		mt_rec_empty_poll();
	return ret;
}

/*
 * CQ_READ defines the hook 'name' of cq->ops->entry for CQs of format fmt:
 * a read made from inside a hooked call on the same CQ (util sread looping
 * on fi_cq_readfrom) goes straight to the provider; any other is recorded,
 * run with the CQ marked as the one we are inside. The common one, made
 * inside no hooked call, runs in name_top, which keeps nothing but buf
 * (and src) across the provider's call: no previous mark (it restores
 * NULL) and not cq either, which the mark gives back (hook_unmark). One
 * nested in a hooked call on another object runs in name_nested, which
 * restores the previous mark.
 */
#define CQ_READ(name, fmt, entry, call, params, args, src)		\
	static __attribute__((noinline)) ssize_t name##_top params	\
	{								\
		ssize_t ret;						\
									\
		hook_mark(cq);						\
		ret = ORIG(cq)->entry args;				\
		cq = (struct fid_cq *)(uintptr_t)hook_unmark();		\
		return finish(cq, fmt, call, buf, ret, src);		\
	}								\
	static __attribute__((noinline)) ssize_t name##_nested params	\
	{								\
		const void *prev = hook_inside(cq);			\
		ssize_t ret = ORIG(cq)->entry args;			\
									\
		hook_outside(prev);					\
		return finish(cq, fmt, call, buf, ret, src);		\
	}								\
	static ssize_t name params					\
	{								\
		if (hook_reentered(cq))					\
			return ORIG(cq)->entry args;			\
		if (MT_LIKELY(hook_outermost()))			\
			return name##_top args;				\
		return name##_nested args;				\
	}

static ssize_t cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
			  uint64_t flags);

/* The four reading hooks of one CQ format and their table. */
#define CQ_OPS(sfx, fmt)						\
	CQ_READ(cq_read##sfx, fmt, read, MT_CQ_READ,			\
		(struct fid_cq *cq, void *buf, size_t count),		\
		(cq, buf, count), NULL)					\
	CQ_READ(cq_readfrom##sfx, fmt, readfrom, MT_CQ_READFROM,	\
		(struct fid_cq *cq, void *buf, size_t count, fi_addr_t *src), \
		(cq, buf, count, src), src)				\
	CQ_READ(cq_sread##sfx, fmt, sread, MT_CQ_SREAD,			\
		(struct fid_cq *cq, void *buf, size_t count, const void *cond, \
		 int timeout),						\
		(cq, buf, count, cond, timeout), NULL)			\
	CQ_READ(cq_sreadfrom##sfx, fmt, sreadfrom, MT_CQ_SREADFROM,	\
		(struct fid_cq *cq, void *buf, size_t count, fi_addr_t *src, \
		 const void *cond, int timeout),			\
		(cq, buf, count, src, cond, timeout), src)		\
	static const struct fi_ops_cq cq_ops##sfx = {			\
		.size = sizeof(struct fi_ops_cq),			\
		.read = cq_read##sfx,					\
		.readfrom = cq_readfrom##sfx,				\
		.readerr = cq_readerr,					\
		.sread = cq_sread##sfx,					\
		.sreadfrom = cq_sreadfrom##sfx,				\
	};

CQ_OPS(_ctx, FI_CQ_FORMAT_CONTEXT)
CQ_OPS(_msg, FI_CQ_FORMAT_MSG)
CQ_OPS(_data, FI_CQ_FORMAT_DATA)
CQ_OPS(_tagged, FI_CQ_FORMAT_TAGGED)

static ssize_t cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
			  uint64_t flags)
{
	const struct hook_obj *o = HOOK_OBJ(cq->ops);
	const void *prev;
	struct mt_rec_cqe *r;
	ssize_t ret;

	if (hook_reentered(cq))
		return ORIG(cq)->readerr(cq, buf, flags);
	prev = hook_inside(cq);
	ret = ORIG(cq)->readerr(cq, buf, flags);
	hook_outside(prev);
	if (ret <= 0 || !(r = mt_rec_reserve(sizeof(*r))))
		return ret;
	mt_rec_hdr_set(&r->h, MT_REC_CQE, o->layer, sizeof(*r), MT_CQ_READERR,
		       mt_rec_now());
	r->cq = (uint64_t)(uintptr_t)cq;
	r->context = (uint64_t)(uintptr_t)buf->op_context;
	r->flags = buf->flags;
	r->len = buf->len;
	r->tag = buf->tag;
	r->data = buf->data;
	r->src = FI_ADDR_NOTAVAIL;
	r->olen = buf->olen;
	r->err = buf->err;
	r->prov_errno = buf->prov_errno;
	mt_rec_commit(sizeof(*r));
	return ret;
}

/* The hooks of a CQ of format fmt (effective_format: never UNSPEC). */
static const struct fi_ops_cq *cq_ops(int fmt)
{
	switch (fmt) {
	case FI_CQ_FORMAT_MSG:
		return &cq_ops_msg;
	case FI_CQ_FORMAT_DATA:
		return &cq_ops_data;
	case FI_CQ_FORMAT_TAGGED:
		return &cq_ops_tagged;
	default:
		return &cq_ops_ctx;
	}
}

void mt_hook_cq_opened(struct hook_obj *dom, struct fid_cq *cq,
		    const struct fi_cq_attr *attr)
{
	struct hook_obj *o = mt_hook_obj_new(&cq->fid, dom);

	if (!o)
		return;
	o->u.cq.format = effective_format(attr);
	mt_hook_obj_announce(o, (uint64_t)o->u.cq.format);
	_Static_assert(sizeof(struct fi_ops_cq) <= HOOK_TABLE_MAX,
		       "HOOK_TABLE_MAX holds every template");
	mt_hook_install(o, HOOK_OPS, (void **)&cq->ops, cq_ops(o->u.cq.format),
			sizeof(struct fi_ops_cq));
}
