/*
 * hook_ep.c - endpoints, scalable endpoints and their contexts: the tagged
 * and message data-transfer calls, cancel, and the endpoint's attributes and
 * name when it is enabled.
 *
 * Every posting call takes the timestamp, calls through and records what
 * came back: -FI_EAGAIN is only counted (it is retried), anything else gets
 * an MT_REC_OP carrying the return value. The application gets the
 * provider's return value unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "mt_site.h"

#define TAGGED(ep) HOOK_ORIG((ep)->tagged, struct fi_ops_tagged)
#define MSG(ep) HOOK_ORIG((ep)->msg, struct fi_ops_msg)
#define EPOPS(ep) HOOK_ORIG((ep)->ops, struct fi_ops_ep)
#define ID(p) ((uint64_t)(uintptr_t)(p))

static inline ssize_t end(struct mt_rec_op *r, ssize_t ret)
{
	return mt_rec_op_end(r, ret, ret == -FI_EAGAIN);
}

static inline uint64_t iov_len(const struct iovec *iov, size_t count)
{
	uint64_t len = 0;
	size_t i;

	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	return len;
}

/*
 * HOOK_OP defines the hook 'name' of ep->tbl->entry from its parameter
 * list, its argument list and the initializer of its struct mt_rec_opargs.
 * The hook itself calls nothing before the provider (mt_rec_try_op,
 * mt_rec_op_put), so the arguments stay in their registers; the rare cases
 * (file to create or grow, clock without TSC) tail-call name_slow, which
 * may. name_cs is the call-site variant, installed instead of name when
 * call sites are on. The reservation and the clock touch no argument
 * register (mt_rec_try_op, mt_rec_stamp_args), and the clone's header
 * word and original table are loaded where they are used (reloading
 * ep->tbl): a saved register then holds the record pointer, and in the
 * hooks with arguments on the stack those arguments (gcc loads them on
 * entry). The opargs are built after the reservation, whose
 * memory clobber would otherwise hide from MT_REC_PUT which of them are
 * constant 0.
 */
/* A hook recording through begin (mt_rec_op_begin or mt_hook_site_op_begin),
 * which may call out: the slow path, or the call-site variant. */
#define HOOK_OP_VIA(begin, name, tbl, type, entry, op, params, args, ...) \
	static __attribute__((noinline)) ssize_t name params		\
	{								\
		struct mt_rec_opargs a = __VA_ARGS__;			\
		struct mt_rec_op *r = begin(HOOK_OBJ(ep->tbl)->layer, op, &a); \
									\
		return end(r, HOOK_ORIG(ep->tbl, type)->entry args);	\
	}

#define HOOK_OP(name, tbl, type, entry, op, params, args, ...)		\
	HOOK_OP_VIA(mt_rec_op_begin, name##_slow, tbl, type, entry, op,	\
		    params, args, __VA_ARGS__)				\
	HOOK_OP_VIA(mt_hook_site_op_begin, name##_cs, tbl, type, entry, op,	\
		    params, args, __VA_ARGS__)				\
	static ssize_t name params					\
	{								\
		struct mt_file_hdr *h;					\
		struct mt_rec_op *r = mt_rec_try_op(&h);		\
		struct mt_rec_opargs a;					\
									\
		if (MT_UNLIKELY(!r))					\
			return name##_slow args;			\
		a = (struct mt_rec_opargs)__VA_ARGS__;			\
		mt_rec_op_put(r, h, hook_clone_of(ep->tbl)->rec_hdr[op], &a);	\
		return end(r, HOOK_ORIG(ep->tbl, type)->entry args);	\
	}

#define TAGGED_OP(name, entry, op, params, args, ...) \
	HOOK_OP(name, tagged, struct fi_ops_tagged, entry, op, params, args, __VA_ARGS__)
#define MSG_OP(name, entry, op, params, args, ...) \
	HOOK_OP(name, msg, struct fi_ops_msg, entry, op, params, args, __VA_ARGS__)

/* Tagged operations. */

TAGGED_OP(trecv, recv, MT_OP_TRECV,
	  (struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t src,
	   uint64_t tag, uint64_t ignore, void *ctx),
	  (ep, buf, len, desc, src, tag, ignore, ctx),
	  { ID(ep), src, tag, ignore, len, 0, ID(ctx), 0 })
TAGGED_OP(trecvv, recvv, MT_OP_TRECVV,
	  (struct fid_ep *ep, const struct iovec *iov, void **desc, size_t count,
	   fi_addr_t src, uint64_t tag, uint64_t ignore, void *ctx),
	  (ep, iov, desc, count, src, tag, ignore, ctx),
	  { ID(ep), src, tag, ignore, iov_len(iov, count), 0, ID(ctx), 0 })
TAGGED_OP(trecvmsg, recvmsg, MT_OP_TRECVMSG,
	  (struct fid_ep *ep, const struct fi_msg_tagged *msg, uint64_t flags),
	  (ep, msg, flags),
	  { ID(ep), msg->addr, msg->tag, msg->ignore,
	    iov_len(msg->msg_iov, msg->iov_count), msg->data, ID(msg->context),
	    flags })
TAGGED_OP(tsend, send, MT_OP_TSEND,
	  (struct fid_ep *ep, const void *buf, size_t len, void *desc,
	   fi_addr_t dest, uint64_t tag, void *ctx),
	  (ep, buf, len, desc, dest, tag, ctx),
	  { ID(ep), dest, tag, 0, len, 0, ID(ctx), 0 })
TAGGED_OP(tsendv, sendv, MT_OP_TSENDV,
	  (struct fid_ep *ep, const struct iovec *iov, void **desc, size_t count,
	   fi_addr_t dest, uint64_t tag, void *ctx),
	  (ep, iov, desc, count, dest, tag, ctx),
	  { ID(ep), dest, tag, 0, iov_len(iov, count), 0, ID(ctx), 0 })
TAGGED_OP(tsendmsg, sendmsg, MT_OP_TSENDMSG,
	  (struct fid_ep *ep, const struct fi_msg_tagged *msg, uint64_t flags),
	  (ep, msg, flags),
	  { ID(ep), msg->addr, msg->tag, 0, iov_len(msg->msg_iov, msg->iov_count),
	    msg->data, ID(msg->context), flags })
TAGGED_OP(tinject, inject, MT_OP_TINJECT,
	  (struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest,
	   uint64_t tag),
	  (ep, buf, len, dest, tag),
	  { ID(ep), dest, tag, 0, len, 0, 0, 0 })
TAGGED_OP(tsenddata, senddata, MT_OP_TSENDDATA,
	  (struct fid_ep *ep, const void *buf, size_t len, void *desc,
	   uint64_t data, fi_addr_t dest, uint64_t tag, void *ctx),
	  (ep, buf, len, desc, data, dest, tag, ctx),
	  { ID(ep), dest, tag, 0, len, data, ID(ctx), 0 })
TAGGED_OP(tinjectdata, injectdata, MT_OP_TINJECTDATA,
	  (struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
	   fi_addr_t dest, uint64_t tag),
	  (ep, buf, len, data, dest, tag),
	  { ID(ep), dest, tag, 0, len, data, 0, 0 })

const struct fi_ops_tagged mt_hook_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = trecv,
	.recvv = trecvv,
	.recvmsg = trecvmsg,
	.send = tsend,
	.sendv = tsendv,
	.sendmsg = tsendmsg,
	.inject = tinject,
	.senddata = tsenddata,
	.injectdata = tinjectdata,
};

const struct fi_ops_tagged mt_hook_tagged_ops_cs = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = trecv_cs,
	.recvv = trecvv_cs,
	.recvmsg = trecvmsg_cs,
	.send = tsend_cs,
	.sendv = tsendv_cs,
	.sendmsg = tsendmsg_cs,
	.inject = tinject_cs,
	.senddata = tsenddata_cs,
	.injectdata = tinjectdata_cs,
};

/* Message operations: tag and ignore are 0. */

MSG_OP(msg_recv, recv, MT_OP_RECV,
       (struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t src,
	void *ctx),
       (ep, buf, len, desc, src, ctx),
       { ID(ep), src, 0, 0, len, 0, ID(ctx), 0 })
MSG_OP(msg_recvv, recvv, MT_OP_RECVV,
       (struct fid_ep *ep, const struct iovec *iov, void **desc, size_t count,
	fi_addr_t src, void *ctx),
       (ep, iov, desc, count, src, ctx),
       { ID(ep), src, 0, 0, iov_len(iov, count), 0, ID(ctx), 0 })
MSG_OP(msg_recvmsg, recvmsg, MT_OP_RECVMSG,
       (struct fid_ep *ep, const struct fi_msg *msg, uint64_t flags),
       (ep, msg, flags),
       { ID(ep), msg->addr, 0, 0, iov_len(msg->msg_iov, msg->iov_count),
	 msg->data, ID(msg->context), flags })
MSG_OP(msg_send, send, MT_OP_SEND,
       (struct fid_ep *ep, const void *buf, size_t len, void *desc,
	fi_addr_t dest, void *ctx),
       (ep, buf, len, desc, dest, ctx),
       { ID(ep), dest, 0, 0, len, 0, ID(ctx), 0 })
MSG_OP(msg_sendv, sendv, MT_OP_SENDV,
       (struct fid_ep *ep, const struct iovec *iov, void **desc, size_t count,
	fi_addr_t dest, void *ctx),
       (ep, iov, desc, count, dest, ctx),
       { ID(ep), dest, 0, 0, iov_len(iov, count), 0, ID(ctx), 0 })
MSG_OP(msg_sendmsg, sendmsg, MT_OP_SENDMSG,
       (struct fid_ep *ep, const struct fi_msg *msg, uint64_t flags),
       (ep, msg, flags),
       { ID(ep), msg->addr, 0, 0, iov_len(msg->msg_iov, msg->iov_count),
	 msg->data, ID(msg->context), flags })
MSG_OP(msg_inject, inject, MT_OP_INJECT,
       (struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest),
       (ep, buf, len, dest),
       { ID(ep), dest, 0, 0, len, 0, 0, 0 })
MSG_OP(msg_senddata, senddata, MT_OP_SENDDATA,
       (struct fid_ep *ep, const void *buf, size_t len, void *desc,
	uint64_t data, fi_addr_t dest, void *ctx),
       (ep, buf, len, desc, data, dest, ctx),
       { ID(ep), dest, 0, 0, len, data, ID(ctx), 0 })
MSG_OP(msg_injectdata, injectdata, MT_OP_INJECTDATA,
       (struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
	fi_addr_t dest),
       (ep, buf, len, data, dest),
       { ID(ep), dest, 0, 0, len, data, 0, 0 })

const struct fi_ops_msg mt_hook_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv,
	.recvv = msg_recvv,
	.recvmsg = msg_recvmsg,
	.send = msg_send,
	.sendv = msg_sendv,
	.sendmsg = msg_sendmsg,
	.inject = msg_inject,
	.senddata = msg_senddata,
	.injectdata = msg_injectdata,
};

const struct fi_ops_msg mt_hook_msg_ops_cs = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv_cs,
	.recvv = msg_recvv_cs,
	.recvmsg = msg_recvmsg_cs,
	.send = msg_send_cs,
	.sendv = msg_sendv_cs,
	.sendmsg = msg_sendmsg_cs,
	.inject = msg_inject_cs,
	.senddata = msg_senddata_cs,
	.injectdata = msg_injectdata_cs,
};

/* Endpoint operations: cancel, and the contexts of scalable endpoints. */

static ssize_t cancel(fid_t fid, void *ctx)
{
	struct fid_ep *ep = container_of(fid, struct fid_ep, fid);
	struct mt_rec_opargs a = { ID(fid), FI_ADDR_UNSPEC, 0, 0, 0, 0, ID(ctx), 0 };
	uint8_t layer = HOOK_OBJ(ep->ops)->layer;
	struct mt_rec_op *r = mt_hook_site_on ?
		mt_hook_site_op_begin(layer, MT_OP_CANCEL, &a) :
		mt_rec_op_begin(layer, MT_OP_CANCEL, &a);

	return end(r, EPOPS(ep)->cancel(fid, ctx));
}

HOOK_OPEN(tx_ctx, EPOPS(sep)->tx_ctx,
	  (struct fid_ep *sep, int index, struct fi_tx_attr *attr,
	   struct fid_ep **tx_ep, void *context),
	  (sep, index, attr, tx_ep, context),
	  mt_hook_ep_opened(HOOK_OBJ(sep->ops), *tx_ep, NULL))
HOOK_OPEN(rx_ctx, EPOPS(sep)->rx_ctx,
	  (struct fid_ep *sep, int index, struct fi_rx_attr *attr,
	   struct fid_ep **rx_ep, void *context),
	  (sep, index, attr, rx_ep, context),
	  mt_hook_ep_opened(HOOK_OBJ(sep->ops), *rx_ep, NULL))

const struct fi_ops_ep mt_hook_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = cancel,
	.tx_ctx = tx_ctx,
	.rx_ctx = rx_ctx,
};

static struct hook_ep_attr *capture(const struct fi_info *info)
{
	struct hook_ep_attr *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->caps = info->caps;
	e->mode = info->mode;
	e->addr_format = info->addr_format;
	if (info->ep_attr) {
		e->mem_tag_format = info->ep_attr->mem_tag_format;
		e->ep_type = info->ep_attr->type;
	}
	if (info->domain_attr) {
		e->cq_data_size = info->domain_attr->cq_data_size;
		e->threading = info->domain_attr->threading;
	}
	if (info->tx_attr) {
		e->msg_order = info->tx_attr->msg_order;
		e->tx_op_flags = info->tx_attr->op_flags;
		e->inject_size = info->tx_attr->inject_size;
	}
	if (info->rx_attr)
		e->rx_op_flags = info->rx_attr->op_flags;
	if (info->fabric_attr && info->fabric_attr->prov_name)
		strncpy(e->prov_name, info->fabric_attr->prov_name,
			sizeof(e->prov_name) - 1);
	if (info->fabric_attr && info->fabric_attr->name)
		strncpy(e->fabric_name, info->fabric_attr->name,
			sizeof(e->fabric_name) - 1);
	return e;
}

/* FI_ENABLE on an endpoint opened with an fi_info: writes MT_REC_EP. */
static void enabled(struct hook_obj *o)
{
	const struct hook_ep_attr *e = o->u.ep;
	uint8_t name[256];
	size_t len = sizeof(name);
	struct mt_rec_ep *r;

	if (fi_getname(o->fid, name, &len))
		len = 0;
	if (len > sizeof(name))
		len = 0;
	if (o->domain && len)
		o->domain->u.dom.addrlen = (uint32_t)len;
	r = mt_rec_reserve_pinned(sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	mt_rec_hdr_set(&r->h, MT_REC_EP, o->layer, sizeof(*r), 0, mt_rec_now());
	r->ep = ID(o->fid);
	r->domain = o->domain ? ID(o->domain->fid) : o->parent;
	r->caps = e->caps;
	r->mode = e->mode;
	r->mem_tag_format = e->mem_tag_format;
	r->msg_order = e->msg_order;
	r->tx_op_flags = e->tx_op_flags;
	r->rx_op_flags = e->rx_op_flags;
	r->inject_size = e->inject_size;
	r->cq_data_size = e->cq_data_size;
	r->threading = e->threading;
	r->ep_type = e->ep_type;
	r->addr_format = e->addr_format;
	r->name_len = (uint32_t)(len < sizeof(r->name) ? len : sizeof(r->name));
	memcpy(r->prov_name, e->prov_name, sizeof(r->prov_name));
	memcpy(r->fabric_name, e->fabric_name, sizeof(r->fabric_name));
	memcpy(r->name, name, r->name_len);
	mt_rec_commit_pinned(sizeof(*r));
}

/* info is NULL for contexts (tx/rx of a scalable endpoint, shared rx):
 * they get no MT_REC_EP, their OBJ names the parent. */
void mt_hook_ep_opened(struct hook_obj *parent, struct fid_ep *ep,
		    const struct fi_info *info)
{
	struct hook_obj *o = mt_hook_obj_new(&ep->fid, parent);

	if (!o)
		return;
	o->domain = parent->fclass == FI_CLASS_DOMAIN ? parent : parent->domain;
	if (info && (o->fclass == FI_CLASS_EP || o->fclass == FI_CLASS_SEP))
		o->u.ep = capture(info);
	if (o->u.ep)
		o->enabled = enabled;
	mt_hook_obj_announce(o, o->u.ep ? o->u.ep->ep_type : 0);
	HOOK_INSTALL(o, HOOK_OPS, ep->ops, mt_hook_ep_ops);
	/* Call sites on: the variants that unwind, so that with them off the
	 * posting hooks test nothing. */
	if (mt_hook_site_on) {
		HOOK_INSTALL(o, HOOK_MSG, ep->msg, mt_hook_msg_ops_cs);
		HOOK_INSTALL(o, HOOK_TAGGED, ep->tagged, mt_hook_tagged_ops_cs);
	} else {
		HOOK_INSTALL(o, HOOK_MSG, ep->msg, mt_hook_msg_ops);
		HOOK_INSTALL(o, HOOK_TAGGED, ep->tagged, mt_hook_tagged_ops);
	}
}
