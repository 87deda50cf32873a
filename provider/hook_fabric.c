/*
 * hook_fabric.c - the provider entry point and the fabric class.
 *
 * libfabric calls mt_hook_prov.fabric once per provider layer it opens (for
 * tcp;ofi_rxm first tcp, opened inside rxm, then ofi_rxm) with attr->fabric
 * the fabric to hook and context the provider that made it. We keep that
 * fabric and only clone its tables.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hook.h"
#include "mt_env.h"
#include "mt_site.h"

static int hook_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		       void *context);
static void hook_cleanup(void);

/* version: msgtrace's own (fi_info -l lists it); fi_version: the libfabric
 * API it was built against, whose major version libfabric requires equal
 * to its own. */
struct fi_provider mt_hook_prov = {
	.version = FI_VERSION(MSGTRACE_VERSION_MAJOR, MSGTRACE_VERSION_MINOR),
	.fi_version = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
	.name = "ofi_hook_msgtrace",
	.getinfo = NULL,	/* NULL getinfo is what makes this a hook */
	.fabric = hook_fabric,
	.cleanup = hook_cleanup,
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int recording;

static void init(void)
{
	struct mt_env env;

	if (!mt_hook_env_init(&env))
		return;
	mt_hook_all_layers = env.all_layers;
	recording = mt_rec_init(&env.conf) == 0;
	if (recording && env.callsite &&
	    mt_hook_site_init(env.callsite_skip[0] ? env.callsite_skip : NULL))
		mt_hook_warn("msgtrace: call sites not recorded: no thread key or fork handler left");
}

/* The fabric's OBJ waits for its first domain: a fabric opened by another
 * provider (tcp inside rxm) is made outside any hooked call, and only the
 * domain opened from it shows that it is internal. */
static struct hook_obj *domain_parent(struct fid_fabric *fabric)
{
	struct hook_obj *f = HOOK_OBJ(fabric->ops);

	if (!f->announced) {
		f->layer = mt_rec_tls.depth > 0;
		f->announced = 1;
		if (!f->layer || mt_hook_all_layers)
			mt_hook_obj_announce(f, 0);
	}
	return f;
}

static int hook_domain(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **dom, void *context)
{
	struct hook_obj *f = domain_parent(fabric);
	int ret;

	hook_enter();
	ret = HOOK_ORIG(fabric->ops, struct fi_ops_fabric)->domain(fabric, info,
								   dom, context);
	hook_leave();
	if (!ret)
		mt_hook_domain_opened(f, *dom, info);
	return ret;
}

static int hook_domain2(struct fid_fabric *fabric, struct fi_info *info,
			struct fid_domain **dom, uint64_t flags, void *context)
{
	struct hook_obj *f = domain_parent(fabric);
	int ret;

	hook_enter();
	ret = HOOK_ORIG(fabric->ops, struct fi_ops_fabric)->domain2(fabric, info,
								    dom, flags,
								    context);
	hook_leave();
	if (!ret)
		mt_hook_domain_opened(f, *dom, info);
	return ret;
}

const struct fi_ops_fabric mt_hook_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = hook_domain,
	.domain2 = hook_domain2,
};

static int hook_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		       void *context)
{
	const struct fi_provider *hooked = context;
	struct fid_fabric *f = attr->fabric;
	struct hook_obj *o;

	*fabric = f;
	pthread_once(&init_once, init);
	if (!recording)
		return 0;
	/* The layer given here is provisional: domain_parent() settles it. */
	o = mt_hook_obj_new(&f->fid, NULL);
	if (!o)
		return 0;
	if (hooked && hooked->name)
		strncpy(o->prov_name, hooked->name, sizeof(o->prov_name) - 1);
	HOOK_INSTALL(o, HOOK_OPS, f->ops, mt_hook_fabric_ops);
	return 0;
}

static void hook_cleanup(void)
{
	if (recording)
		mt_rec_fini();
}

/* libfabric may dlclose providers without calling cleanup on every path;
 * -z nodelete keeps us mapped, so this runs at exit. Idempotent. */
__attribute__((destructor)) static void hook_exit(void)
{
	hook_cleanup();
}

FI_EXT_INI
{
	mt_hook_env_define();
	return &mt_hook_prov;
}
