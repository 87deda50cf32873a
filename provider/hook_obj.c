/*
 * hook_obj.c - the clone machinery and the fid ops (close, bind, control)
 * every hooked object shares.
 */
#include <stdlib.h>
#include <string.h>

#include "hook.h"

int mt_hook_all_layers;

struct hook_obj *mt_hook_obj_new(struct fid *fid, const struct hook_obj *parent)
{
	uint8_t layer = mt_rec_tls.depth > 0 || (parent && parent->layer);
	struct hook_obj *o;

	if (layer && !mt_hook_all_layers)
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fid = fid;
	o->fclass = (uint32_t)fid->fclass;
	o->layer = layer;
	if (parent) {
		o->parent = (uint64_t)(uintptr_t)parent->fid;
		memcpy(o->prov_name, parent->prov_name, sizeof(o->prov_name));
	}
	HOOK_INSTALL(o, HOOK_FID, fid->ops, mt_hook_fid_ops);
	return o;
}

void mt_hook_obj_announce(const struct hook_obj *o, uint64_t attr)
{
	struct mt_rec_obj *r = mt_rec_reserve_pinned(sizeof(*r));

	if (!r)
		return;
	mt_rec_hdr_set(&r->h, MT_REC_OBJ, o->layer, sizeof(*r), o->fclass,
		       mt_rec_now());
	r->id = (uint64_t)(uintptr_t)o->fid;
	r->parent = o->parent;
	r->attr = attr;
	memcpy(r->prov_name, o->prov_name, sizeof(r->prov_name));
	mt_rec_commit_pinned(sizeof(*r));
}

/*
 * The clone starts as a byte copy of the provider's table ('size' bytes, so
 * entries newer than our headers survive) and takes the template's entry
 * wherever both the template and the provider have one: an operation the
 * provider does not implement stays NULL, as the application would see it.
 */
void mt_hook_install(struct hook_obj *o, enum hook_slot s, void **slot,
		  const void *tmpl, size_t tmpl_size)
{
	const void *orig = *slot;
	int cq = o->fclass == FI_CLASS_CQ;
	uint8_t type = cq ? MT_REC_CQE : MT_REC_OP;
	uint16_t rsize = cq ? sizeof(struct mt_rec_cqe) : sizeof(struct mt_rec_op);
	size_t osize, size, off, i;
	struct hook_clone *c;
	uint32_t aux;

	if (!orig)
		return;
	osize = *(const size_t *)orig;
	if (osize < sizeof(size_t))
		return;
	size = osize > tmpl_size ? osize : tmpl_size;
	c = calloc(1, sizeof(*c) + size);
	if (!c)
		return;
	memcpy(c->table, orig, osize);
	memcpy(c->orig, orig, osize < sizeof(c->orig) ? osize : sizeof(c->orig));
	for (off = sizeof(size_t); off + sizeof(void *) <= osize &&
	     off + sizeof(void *) <= tmpl_size; off += sizeof(void *)) {
		void *mine, *theirs;

		memcpy(&theirs, (const char *)orig + off, sizeof(theirs));
		memcpy(&mine, (const char *)tmpl + off, sizeof(mine));
		if (theirs && mine)
			memcpy((char *)c->table + off, &mine, sizeof(mine));
	}
	c->obj = o;
	/* In ring mode the records written through these words may leave
	 * fields unwritten; a CQE's then names the CQ's format. */
	aux = mt_rec_inline_aux();
	if (aux && cq)
		aux |= (uint32_t)o->u.cq.format << MT_AUX_CQ_FORMAT_SHIFT;
	for (i = 0; i < HOOK_REC_HDRS; i++)
		c->rec_hdr[i] = mt_rec_hdr_word(type, o->layer, rsize,
						(uint32_t)i | aux);
	c->retired = o->clone[s];
	o->clone[s] = c;
	o->slot[s] = slot;
	o->tmpl[s] = tmpl;
	o->tmpl_size[s] = tmpl_size;
	*slot = c->table;
}

/* A provider that swapped a table in bind/control (psm2 does) gets its new
 * table cloned with the same template the slot was installed with. */
void mt_hook_reapply(struct hook_obj *o)
{
	int s;

	for (s = 0; s < HOOK_SLOTS; s++) {
		struct hook_clone *c = o->clone[s];

		if (c && *o->slot[s] != (void *)c->table)
			mt_hook_install(o, (enum hook_slot)s, o->slot[s],
				     o->tmpl[s], o->tmpl_size[s]);
	}
}

void mt_hook_obj_free(struct hook_obj *o)
{
	int s;

	for (s = 0; s < HOOK_SLOTS; s++) {
		struct hook_clone *c = o->clone[s], *next;

		for (; c; c = next) {
			next = c->retired;
			free(c);
		}
	}
	free(o->u.ep && (o->fclass == FI_CLASS_EP || o->fclass == FI_CLASS_SEP) ?
	     o->u.ep : NULL);
	free(o);
}

/* Whether o's close is recorded. A fabric learns its layer at its first
 * domain (domain_parent): one that never got a domain (libfabric 2.x's rxm
 * opens an off_coll fabric it never uses) never reached the trace. */
static int close_recorded(const struct hook_obj *o)
{
	if (o->fclass == FI_CLASS_FABRIC && !o->announced)
		return 0;
	return !o->layer || mt_hook_all_layers;
}

/* Stamped when the close returned, as it is written: a close made inside
 * it (rxm's fabric closes the fabrics it opened) is written first. */
static int hook_close(struct fid *fid)
{
	struct hook_obj *o = HOOK_OBJ(fid->ops);
	const struct fi_ops *orig = HOOK_ORIG(fid->ops, struct fi_ops);
	int ret = orig->close(fid);
	struct mt_rec_close *r = close_recorded(o) ? mt_rec_reserve_pinned(sizeof(*r)) : NULL;

	if (r) {
		mt_rec_hdr_set(&r->h, MT_REC_CLOSE, o->layer, sizeof(*r),
			       o->fclass, mt_rec_now());
		r->id = (uint64_t)(uintptr_t)fid;
		r->ret = ret;
		r->pad = 0;
		mt_rec_commit_pinned(sizeof(*r));
	}
	/* A failed close leaves the object alive, and our tables with it. */
	if (!ret)
		mt_hook_obj_free(o);
	return ret;
}

static int hook_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct hook_obj *o = HOOK_OBJ(fid->ops);
	const struct fi_ops *orig = HOOK_ORIG(fid->ops, struct fi_ops);
	uint64_t ts = mt_rec_now();
	int ret = orig->bind(fid, bfid, flags);
	struct mt_rec_bind *r;

	mt_hook_reapply(o);
	if (ret || !(r = mt_rec_reserve_pinned(sizeof(*r))))
		return ret;
	mt_rec_hdr_set(&r->h, MT_REC_BIND, o->layer, sizeof(*r), 0, ts);
	r->obj = (uint64_t)(uintptr_t)fid;
	r->target = (uint64_t)(uintptr_t)bfid;
	r->flags = flags;
	mt_rec_commit_pinned(sizeof(*r));
	return ret;
}

static int hook_control(struct fid *fid, int command, void *arg)
{
	struct hook_obj *o = HOOK_OBJ(fid->ops);
	const struct fi_ops *orig = HOOK_ORIG(fid->ops, struct fi_ops);
	int ret = orig->control(fid, command, arg);

	mt_hook_reapply(o);
	if (!ret && command == FI_ENABLE && o->enabled)
		o->enabled(o);
	return ret;
}

const struct fi_ops mt_hook_fid_ops = {
	.size = sizeof(struct fi_ops),
	.close = hook_close,
	.bind = hook_bind,
	.control = hook_control,
};
