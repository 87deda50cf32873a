/*
 * hook_domain.c - the domain class: every object opened from a domain is
 * announced (MT_REC_OBJ with its parent) and, when it is recorded, hooked.
 * Opening runs with the nesting depth raised, so that what a provider opens
 * underneath (rxm's tcp domain, endpoints, CQs) comes out internal.
 */
#include "hook.h"

#define ORIG(dom) HOOK_ORIG((dom)->ops, struct fi_ops_domain)

void mt_hook_domain_opened(struct hook_obj *fabric, struct fid_domain *dom,
			const struct fi_info *info)
{
	struct hook_obj *o = mt_hook_obj_new(&dom->fid, fabric);

	if (!o)
		return;
	if (info) {
		o->u.dom.addr_format = info->addr_format;
		o->u.dom.addrlen = (uint32_t)info->src_addrlen;
	}
	mt_hook_obj_announce(o, 0);
	HOOK_INSTALL(o, HOOK_OPS, dom->ops, mt_hook_domain_ops);
}

void mt_hook_other_opened(struct hook_obj *parent, struct fid *fid)
{
	struct hook_obj *o = mt_hook_obj_new(fid, parent);

	if (o)
		mt_hook_obj_announce(o, 0);
}

#define DOM HOOK_OBJ(dom->ops)

HOOK_OPEN(av_open, ORIG(dom)->av_open,
	  (struct fid_domain *dom, struct fi_av_attr *attr, struct fid_av **av,
	   void *context),
	  (dom, attr, av, context), mt_hook_av_opened(DOM, *av, attr))
HOOK_OPEN(cq_open, ORIG(dom)->cq_open,
	  (struct fid_domain *dom, struct fi_cq_attr *attr, struct fid_cq **cq,
	   void *context),
	  (dom, attr, cq, context), mt_hook_cq_opened(DOM, *cq, attr))
HOOK_OPEN(endpoint, ORIG(dom)->endpoint,
	  (struct fid_domain *dom, struct fi_info *info, struct fid_ep **ep,
	   void *context),
	  (dom, info, ep, context), mt_hook_ep_opened(DOM, *ep, info))
HOOK_OPEN(endpoint2, ORIG(dom)->endpoint2,
	  (struct fid_domain *dom, struct fi_info *info, struct fid_ep **ep,
	   uint64_t flags, void *context),
	  (dom, info, ep, flags, context), mt_hook_ep_opened(DOM, *ep, info))
HOOK_OPEN(scalable_ep, ORIG(dom)->scalable_ep,
	  (struct fid_domain *dom, struct fi_info *info, struct fid_ep **sep,
	   void *context),
	  (dom, info, sep, context), mt_hook_ep_opened(DOM, *sep, info))
HOOK_OPEN(srx_ctx, ORIG(dom)->srx_ctx,
	  (struct fid_domain *dom, struct fi_rx_attr *attr,
	   struct fid_ep **rx_ep, void *context),
	  (dom, attr, rx_ep, context), mt_hook_ep_opened(DOM, *rx_ep, NULL))
HOOK_OPEN(cntr_open, ORIG(dom)->cntr_open,
	  (struct fid_domain *dom, struct fi_cntr_attr *attr,
	   struct fid_cntr **cntr, void *context),
	  (dom, attr, cntr, context), mt_hook_other_opened(DOM, &(*cntr)->fid))
HOOK_OPEN(stx_ctx, ORIG(dom)->stx_ctx,
	  (struct fid_domain *dom, struct fi_tx_attr *attr,
	   struct fid_stx **stx, void *context),
	  (dom, attr, stx, context), mt_hook_other_opened(DOM, &(*stx)->fid))

const struct fi_ops_domain mt_hook_domain_ops = {
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
