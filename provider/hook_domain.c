/*
 * hook_domain.c - the domain class: every object opened from a domain is
 * announced (MT_REC_OBJ with its parent) and, when it is recorded, hooked.
 * Opening runs with the nesting depth raised, so that what a provider opens
 * underneath (rxm's tcp domain, endpoints, CQs) comes out internal.
 */
#include "hook.h"

#define ORIG(dom) HOOK_ORIG((dom)->ops, struct fi_ops_domain)

void hook_domain_opened(struct hook_obj *fabric, struct fid_domain *dom,
			const struct fi_info *info)
{
	struct hook_obj *o = hook_obj_new(&dom->fid, fabric);

	if (!o)
		return;
	if (info) {
		o->u.dom.addr_format = info->addr_format;
		o->u.dom.addrlen = (uint32_t)info->src_addrlen;
	}
	hook_obj_announce(o, 0);
	HOOK_INSTALL(o, HOOK_OPS, dom->ops, hook_domain_ops);
}

void hook_other_opened(struct hook_obj *parent, struct fid *fid)
{
	struct hook_obj *o = hook_obj_new(fid, parent);

	if (o)
		hook_obj_announce(o, 0);
}

static int av_open(struct fid_domain *dom, struct fi_av_attr *attr,
		   struct fid_av **av, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->av_open(dom, attr, av, context);
	hook_leave();
	if (!ret)
		hook_av_opened(HOOK_OBJ(dom->ops), *av, attr);
	return ret;
}

static int cq_open(struct fid_domain *dom, struct fi_cq_attr *attr,
		   struct fid_cq **cq, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->cq_open(dom, attr, cq, context);
	hook_leave();
	if (!ret)
		hook_cq_opened(HOOK_OBJ(dom->ops), *cq, attr);
	return ret;
}

static int endpoint(struct fid_domain *dom, struct fi_info *info,
		    struct fid_ep **ep, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->endpoint(dom, info, ep, context);
	hook_leave();
	if (!ret)
		hook_ep_opened(HOOK_OBJ(dom->ops), *ep, info);
	return ret;
}

static int endpoint2(struct fid_domain *dom, struct fi_info *info,
		     struct fid_ep **ep, uint64_t flags, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->endpoint2(dom, info, ep, flags, context);
	hook_leave();
	if (!ret)
		hook_ep_opened(HOOK_OBJ(dom->ops), *ep, info);
	return ret;
}

static int scalable_ep(struct fid_domain *dom, struct fi_info *info,
		       struct fid_ep **sep, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->scalable_ep(dom, info, sep, context);
	hook_leave();
	if (!ret)
		hook_ep_opened(HOOK_OBJ(dom->ops), *sep, info);
	return ret;
}

static int srx_ctx(struct fid_domain *dom, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->srx_ctx(dom, attr, rx_ep, context);
	hook_leave();
	if (!ret)
		hook_ep_opened(HOOK_OBJ(dom->ops), *rx_ep, NULL);
	return ret;
}

static int cntr_open(struct fid_domain *dom, struct fi_cntr_attr *attr,
		     struct fid_cntr **cntr, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->cntr_open(dom, attr, cntr, context);
	hook_leave();
	if (!ret)
		hook_other_opened(HOOK_OBJ(dom->ops), &(*cntr)->fid);
	return ret;
}

static int stx_ctx(struct fid_domain *dom, struct fi_tx_attr *attr,
		   struct fid_stx **stx, void *context)
{
	int ret;

	hook_enter();
	ret = ORIG(dom)->stx_ctx(dom, attr, stx, context);
	hook_leave();
	if (!ret)
		hook_other_opened(HOOK_OBJ(dom->ops), &(*stx)->fid);
	return ret;
}

const struct fi_ops_domain hook_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = av_open,
	.cq_open = cq_open,
	.endpoint = endpoint,
	.scalable_ep = scalable_ep,
	.cntr_open = cntr_open,
	.stx_ctx = stx_ctx,
	.srx_ctx = srx_ctx,
	.endpoint2 = endpoint2,
};
