/*
 * hook_av.c - address vectors: one MT_REC_AV per address that got an
 * fi_addr, with the address bytes, so the analyzer can join the peers'
 * endpoint names to fi_addr values. An insert the provider makes on the
 * same AV from inside ours (util AVs implement insertsvc with
 * fi_av_insertsym) is not recorded again.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "hook.h"

#define ORIG(av) HOOK_ORIG((av)->ops, struct fi_ops_av)

/* Length of one address in an fi_av_insert buffer: fixed by the domain's
 * address format, else the length of the endpoint names seen in that
 * domain (addresses are exchanged names), else the domain's src_addrlen. */
static size_t addr_len(const struct hook_obj *av, const void *addr)
{
	const struct hook_obj *dom = av->domain;

	switch (dom ? dom->u.dom.addr_format : FI_FORMAT_UNSPEC) {
	case FI_SOCKADDR_IN:
		return sizeof(struct sockaddr_in);
	case FI_SOCKADDR_IN6:
		return sizeof(struct sockaddr_in6);
	case FI_SOCKADDR:
		return ((const struct sockaddr *)addr)->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	default:
		return dom ? dom->u.dom.addrlen : 0;
	}
}

static void record(const struct hook_obj *o, enum mt_av_call call, uint64_t ts,
		   fi_addr_t fi_addr, uint64_t flags, const void *addr,
		   size_t len)
{
	struct mt_rec_av *r;

	if (fi_addr == FI_ADDR_NOTAVAIL || !(r = mt_rec_reserve_pinned(sizeof(*r))))
		return;
	mt_rec_hdr_set(&r->h, MT_REC_AV, o->layer, sizeof(*r), call, ts);
	r->av = (uint64_t)(uintptr_t)o->fid;
	r->fi_addr = fi_addr;
	r->flags = flags;
	r->addr_len = (uint32_t)(len < sizeof(r->addr) ? len : sizeof(r->addr));
	r->pad = 0;
	memset(r->addr, 0, sizeof(r->addr));
	memcpy(r->addr, addr, r->addr_len);
	mt_rec_commit_pinned(sizeof(*r));
}

/* fi_addr may be NULL (FI_AV_TABLE): then the fi_addrs are not known here
 * and nothing is recorded. */
static int av_insert(struct fid_av *av, const void *addr, size_t count,
		     fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	const struct hook_obj *o = HOOK_OBJ(av->ops);
	const void *prev;
	const char *p = addr;
	uint64_t ts;
	size_t i;
	int ret;

	if (hook_reentered(av))
		return ORIG(av)->insert(av, addr, count, fi_addr, flags, context);
	ts = mt_rec_now();
	prev = hook_inside(av);
	ret = ORIG(av)->insert(av, addr, count, fi_addr, flags, context);
	hook_outside(prev);
	if (ret <= 0 || !fi_addr || !addr)
		return ret;
	for (i = 0; i < count; i++) {
		size_t len = addr_len(o, p);

		record(o, MT_AV_INSERT, ts, fi_addr[i], flags, p, len);
		p += len;
	}
	return ret;
}

/* The address bytes of a service insert are "node:service" as text. */
static void record_svc(const struct hook_obj *o, enum mt_av_call call,
		       uint64_t ts, fi_addr_t fi_addr, uint64_t flags,
		       const char *node, const char *service)
{
	char text[sizeof(((struct mt_rec_av *)0)->addr)];
	int n = snprintf(text, sizeof(text), "%s:%s", node ? node : "",
			 service ? service : "");

	record(o, call, ts, fi_addr, flags, text,
	       n < 0 ? 0 : (size_t)n < sizeof(text) ? (size_t)n : sizeof(text));
}

static int av_insertsvc(struct fid_av *av, const char *node,
			const char *service, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	const void *prev;
	uint64_t ts;
	int ret;

	if (hook_reentered(av))
		return ORIG(av)->insertsvc(av, node, service, fi_addr, flags, context);
	ts = mt_rec_now();
	prev = hook_inside(av);
	ret = ORIG(av)->insertsvc(av, node, service, fi_addr, flags, context);
	hook_outside(prev);
	if (ret > 0 && fi_addr)
		record_svc(HOOK_OBJ(av->ops), MT_AV_INSERTSVC, ts, *fi_addr,
			   flags, node, service);
	return ret;
}

/* One record per returned fi_addr, each carrying the base node and service:
 * the symmetric expansion is the provider's. */
static int av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
			const char *service, size_t svccnt, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	const void *prev;
	uint64_t ts;
	int ret, i;

	if (hook_reentered(av))
		return ORIG(av)->insertsym(av, node, nodecnt, service, svccnt,
					   fi_addr, flags, context);
	ts = mt_rec_now();
	prev = hook_inside(av);
	ret = ORIG(av)->insertsym(av, node, nodecnt, service, svccnt, fi_addr,
				  flags, context);
	hook_outside(prev);

	for (i = 0; fi_addr && i < ret; i++)
		record_svc(HOOK_OBJ(av->ops), MT_AV_INSERTSYM, ts, fi_addr[i],
			   flags, node, service);
	return ret;
}

const struct fi_ops_av mt_hook_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = av_insert,
	.insertsvc = av_insertsvc,
	.insertsym = av_insertsym,
};

void mt_hook_av_opened(struct hook_obj *dom, struct fid_av *av,
		    const struct fi_av_attr *attr)
{
	struct hook_obj *o = mt_hook_obj_new(&av->fid, dom);

	if (!o)
		return;
	o->domain = dom;
	mt_hook_obj_announce(o, attr ? (uint64_t)attr->type : 0);
	HOOK_INSTALL(o, HOOK_OPS, av->ops, mt_hook_av_ops);
}
