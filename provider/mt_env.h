/*
 * mt_env.h - private to provider/: the FI_OFI_HOOK_MSGTRACE_* parameters.
 */
#ifndef MT_ENV_H
#define MT_ENV_H

#include <limits.h>

#include "mt_rec.h"

struct mt_env {
	int enable;
	int all_layers;
	int callsite;
	char callsite_skip[1024];	/* "" for the default patterns */
	char dir[PATH_MAX];
	struct mt_rec_conf conf;	/* conf.dir points at dir */
};

/* Declares the parameters; called from fi_prov_ini. */
void mt_hook_env_define(void);
/* Reads them once; bad values get one warning (HOOK_WARN) and the default. Returns
 * env->enable. */
int mt_hook_env_init(struct mt_env *env);

#endif /* MT_ENV_H */
