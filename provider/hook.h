/*
 * hook.h - private to provider/: per-object ops-table clones.
 *
 * The hook keeps every provider's own fid and replaces the object's table
 * pointers (fid.ops, ops, msg, tagged) with private copies of the provider's
 * tables in which only the entries we record are overridden; each override
 * records and forwards to the provider's entry. A clone is preceded by a
 * struct hook_clone, so an entry reaches its object's bookkeeping and the
 * original table from the table pointer it was called through. Provider
 * tables are never written; an object frees only its own clones, in close.
 */
#ifndef HOOK_H
#define HOOK_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include "mt_rec.h"

/* Table slots of an object that can carry a clone. */
enum hook_slot { HOOK_FID, HOOK_OPS, HOOK_MSG, HOOK_TAGGED, HOOK_SLOTS };

struct hook_obj;

/* Record header words a clone keeps, by aux: enum mt_op, enum mt_cq_call. */
#define HOOK_REC_HDRS (MT_OP_CANCEL + 1)
_Static_assert(MT_CQ_SREADFROM < HOOK_REC_HDRS, "a header word for every CQ call");

/* The largest table we clone (every template's type fits, HOOK_INSTALL). */
#define HOOK_TABLE_MAX sizeof(struct fi_ops_domain)

struct hook_clone {
	struct hook_obj *obj;		/* owner */
	struct hook_clone *retired;	/* clone this one replaced, freed at close */
	/* The provider's table as it was cloned, up to HOOK_TABLE_MAX bytes
	 * (zero past its size): a hook reaches the provider's entry with one
	 * load at a constant offset from the table it was called through. */
	uint64_t orig[HOOK_TABLE_MAX / sizeof(uint64_t)];
	/* The first word (mt_rec_hdr_word) of each record its hooks write
	 * inline, by aux: OPs for endpoints, CQEs for CQs. The object's
	 * constants, so a hook loads its header in one instruction. */
	uint64_t rec_hdr[HOOK_REC_HDRS];
	uint64_t table[];		/* the cloned table */
};

/* Endpoint attributes captured from the fi_info it was opened with. */
struct hook_ep_attr {
	uint64_t caps, mode, mem_tag_format, msg_order, tx_op_flags;
	uint64_t rx_op_flags, inject_size, cq_data_size;
	uint32_t threading, ep_type, addr_format;
	char prov_name[32];
	char fabric_name[32];
};

struct hook_obj {
	struct fid *fid;
	struct hook_obj *domain;	/* for AVs and endpoints */
	uint64_t parent;		/* id of the object it was opened from */
	struct hook_clone *clone[HOOK_SLOTS];
	void **slot[HOOK_SLOTS];	/* where each clone is installed */
	const void *tmpl[HOOK_SLOTS];	/* and with which overrides */
	size_t tmpl_size[HOOK_SLOTS];
	uint32_t fclass;
	uint8_t layer;			/* 0: application-visible, 1: internal */
	uint8_t announced;		/* fabric: OBJ written (at its first domain) */
	char prov_name[32];
	/* After a successful FI_ENABLE (endpoints: their MT_REC_EP), or
	 * NULL: set by the class's file, so the shared fid ops need not
	 * know the classes. */
	void (*enabled)(struct hook_obj *o);
	union {
		struct {			/* CQs */
			int format;		/* enum fi_cq_format, never UNSPEC */
		} cq;
		struct hook_ep_attr *ep;	/* endpoints opened with an fi_info */
		struct {			/* domains */
			uint32_t addr_format;
			uint32_t addrlen;	/* endpoint name length, once known */
		} dom;
	} u;
};

extern struct fi_provider mt_hook_prov;
extern int mt_hook_all_layers;

/* Templates: only the non-NULL entries override the provider's. */
extern const struct fi_ops mt_hook_fid_ops;
extern const struct fi_ops_fabric mt_hook_fabric_ops;
extern const struct fi_ops_domain mt_hook_domain_ops;
extern const struct fi_ops_ep mt_hook_ep_ops;
extern const struct fi_ops_msg mt_hook_msg_ops;
extern const struct fi_ops_tagged mt_hook_tagged_ops;
/* The same recording call sites (mt_site.h). */
extern const struct fi_ops_msg mt_hook_msg_ops_cs;
extern const struct fi_ops_tagged mt_hook_tagged_ops_cs;
extern const struct fi_ops_av mt_hook_av_ops;

/* The endpoint whose fid this is. libfabric 2 dropped container_of from
 * <rdma/fabric.h>; its own inline calls cast, the fid being an endpoint's
 * first member. */
_Static_assert(offsetof(struct fid_ep, fid) == 0, "fid first in fid_ep");
#define HOOK_EP_OF(fid) ((struct fid_ep *)(void *)(fid))

static inline struct hook_clone *hook_clone_of(const void *table)
{
	return (struct hook_clone *)((char *)table - offsetof(struct hook_clone, table));
}

#define HOOK_OBJ(table) (hook_clone_of(table)->obj)
#define HOOK_ORIG(table, type) \
	((const type *)(const void *)hook_clone_of(table)->orig)

/*
 * mt_hook_obj_new() decides the layer of a new object (internal when a hooked
 * object-creating call is running on this thread, or when its parent is
 * internal) and returns NULL when the object is not to be recorded: then
 * it is left exactly as the provider made it. Otherwise it writes MT_REC_OBJ.
 */
struct hook_obj *mt_hook_obj_new(struct fid *fid, const struct hook_obj *parent);
/* Writes the object's MT_REC_OBJ; attr is class-specific (cq format ...). */
void mt_hook_obj_announce(const struct hook_obj *o, uint64_t attr);
/* Clones *slot from its current table with the template's overrides
 * (also the generic mt_hook_fid_ops into fid.ops). */
void mt_hook_install(struct hook_obj *o, enum hook_slot s, void **slot,
		  const void *tmpl, size_t tmpl_size);
#define HOOK_INSTALL(o, s, field, tmpl)					\
	do {								\
		_Static_assert(sizeof(tmpl) <= HOOK_TABLE_MAX,		\
			       "HOOK_TABLE_MAX holds every template");	\
		mt_hook_install(o, s, (void **)&(field), &(tmpl),	\
				sizeof(tmpl));				\
	} while (0)
/* Re-clones slots whose table the provider swapped (bind/control). */
void mt_hook_reapply(struct hook_obj *o);
void mt_hook_obj_free(struct hook_obj *o);

/*
 * Same-object re-entry: a provider calling the public API on its own object
 * from inside our hooked call on that object (util CQs: sread loops on
 * fi_cq_readfrom; util AVs: insertsvc is fi_av_insertsym) goes straight
 * through, so the call is recorded once, as the application made it.
 * hook_inside() marks obj as the object whose call is running and returns
 * the previous mark for hook_outside().
 */
static inline int hook_reentered(const void *obj)
{
	return mt_rec_tls.inside == obj;
}

/* No hooked call with a mark is running. A second load of the mark (not
 * merged with hook_reentered's): with one copy in a register, the compiler
 * would use it for obj in the re-entered path and add moves there. */
static inline int hook_outermost(void)
{
	return !__atomic_load_n(&mt_rec_tls.inside, __ATOMIC_RELAXED);
}

static inline const void *hook_inside(const void *obj)
{
	const void *prev = mt_rec_tls.inside;

	mt_rec_tls.inside = obj;
	return prev;
}

static inline void hook_outside(const void *prev)
{
	mt_rec_tls.inside = prev;
}

/*
 * The outermost hooked call (no mark set) marks obj for the provider's
 * call, and takes the mark back after it with hook_unmark(), which returns
 * obj: every hook restores the mark it found before it returns, so the
 * mark is obj again once the provider returns, and the caller keeps no
 * register for obj across the call. On x86-64 hook_mark() loads the
 * thread-local block's offset itself: written in C, gcc kept that offset
 * for hook_unmark() in a callee-saved register across the provider's call
 * (saved and restored on every read) rather than load it again.
 */
static inline void hook_mark(const void *obj)
{
#if defined(__x86_64__)
	__asm__ volatile("mov mt_rec_tls@gottpoff(%%rip), %%rax\n\t"
			 "mov %[obj], %%fs:%c[in](%%rax)"
			 :
			 : [obj] "r"(obj),
			   [in] "i"(offsetof(struct mt_rec_tls, inside))
			 : "rax", "memory");
#else
	mt_rec_tls.inside = obj;
#endif
}

static inline const void *hook_unmark(void)
{
	const void *obj = mt_rec_tls.inside;

	mt_rec_tls.inside = NULL;
	return obj;
}

/* Object-creating calls run with the nesting depth raised. */
static inline void hook_enter(void)
{
	mt_rec_tls.depth++;
}

static inline void hook_leave(void)
{
	mt_rec_tls.depth--;
}

/*
 * HOOK_OPEN defines the hook 'name' of an object-creating entry: the call
 * runs with the nesting depth raised, so that whatever the provider opens
 * underneath comes out internal, and 'opened' runs when it succeeded.
 */
#define HOOK_OPEN(name, call, params, args, opened)			\
	static int name params						\
	{								\
		int ret;						\
									\
		hook_enter();						\
		ret = call args;					\
		hook_leave();						\
		if (!ret)						\
			opened;						\
		return ret;						\
	}

/* Hooks for objects created by class-specific open calls. */
void mt_hook_domain_opened(struct hook_obj *fabric, struct fid_domain *dom,
			const struct fi_info *info);
void mt_hook_ep_opened(struct hook_obj *parent, struct fid_ep *ep,
		    const struct fi_info *info);
void mt_hook_cq_opened(struct hook_obj *dom, struct fid_cq *cq,
		    const struct fi_cq_attr *attr);
void mt_hook_av_opened(struct hook_obj *dom, struct fid_av *av,
		    const struct fi_av_attr *attr);
void mt_hook_other_opened(struct hook_obj *parent, struct fid *fid);

/* One line in libfabric's log, as FI_WARN would show it, written with one
 * write(2) (hook_warn.c); fmt without the final '\n'. mt_hook_warn() is
 * the recording path's warning sink (struct mt_rec_conf.warn). */
void mt_hook_warn_at(const char *func, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define HOOK_WARN(...) mt_hook_warn_at(__func__, __LINE__, __VA_ARGS__)
void mt_hook_warn(const char *msg);

#endif /* HOOK_H */
