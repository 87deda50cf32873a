/*
 * run_env.c - the environment `msgtrace run` gives a launcher (run_env.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fabric.h>

#include "run_env.h"

/* Open MPI's MCA parameters as the environment carries them. */
#define OMPI_ENV "OMPI_MCA_"

/* Launchers by the name of their file (links followed) or as typed. */
static const char *const mpich_names[] = { "hydra", "mpich", NULL };
static const char *const ompi_names[] = {
	"openmpi", "orterun", "prterun", "oshrun", "mpirun", "mpiexec", NULL
};

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int named(const char *path, const char *const *names)
{
	for (size_t i = 0; path && names[i]; i++)
		if (strstr(base(path), names[i]))
			return 1;
	return 0;
}

enum mt_cmd_launcher mt_cmd_run_launcher(const char *argv0, const char *real)
{
	/* The file first: Debian's mpirun is a link to orterun,
	 * mpirun.openmpi or mpiexec.hydra, whichever MPI is the default. */
	if (named(real, mpich_names))
		return MT_CMD_LAUNCHER_MPICH;
	if (named(real, ompi_names))
		return MT_CMD_LAUNCHER_OMPI;
	if (named(argv0, mpich_names))
		return MT_CMD_LAUNCHER_MPICH;
	return named(argv0, ompi_names) ? MT_CMD_LAUNCHER_OMPI :
		MT_CMD_LAUNCHER_OTHER;
}

const char *mt_cmd_run_default_provider(void)
{
	/* libfabric 2.x's rxm over tcp crashes Open MPI 5.0.7 after a
	 * truncated rendezvous receive; its plain tcp does not. */
	return FI_MAJOR_VERSION >= 2 ? "tcp" : "tcp;ofi_rxm";
}

/* Whether the user set MCA parameter key: in the environment, or on an
 * Open MPI mpirun's command line (--mca KEY VALUE, -x OMPI_MCA_KEY[=V]). */
static int user_set(const struct mt_cmd_run_cfg *c, const char *key)
{
	static const char *const mca_opts[] = {
		"--mca", "-mca", "--gmca", "-gmca", "--omca", NULL
	};
	char name[128];
	size_t n;

	snprintf(name, sizeof(name), OMPI_ENV "%s", key);
	if (c->getenv(name))
		return 1;
	if (c->launcher != MT_CMD_LAUNCHER_OMPI)
		return 0;
	n = strlen(name);
	for (int i = 1; i + 1 < c->argc; i++) {
		const char *a = c->argv[i], *v = c->argv[i + 1];

		for (size_t k = 0; mca_opts[k]; k++)
			if (!strcmp(a, mca_opts[k]) && !strcmp(v, key))
				return 1;
		if ((!strcmp(a, "-x") || !strcmp(a, "--x")) &&
		    !strncmp(v, name, n) && (!v[n] || v[n] == '='))
			return 1;
	}
	return 0;
}

static int set(struct mt_cmd_run_env *env, const char *name, char *err,
	       size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (env->n == MT_CMD_RUN_VARS) {
		snprintf(err, errlen, "too many variables to set");
		return -1;
	}
	va_start(ap, fmt);
	len = vsnprintf(env->var[env->n].value, MT_CMD_RUN_VALUE, fmt, ap);
	va_end(ap);
	if (len < 0 || len >= MT_CMD_RUN_VALUE) {
		snprintf(err, errlen, "%s would be longer than %d bytes", name,
			 MT_CMD_RUN_VALUE - 1);
		return -1;
	}
	env->var[env->n++].name = name;
	return 0;
}

/* The element of a sep-separated list after the one at p, NULL after the
 * last. */
static const char *next(const char *p, char sep)
{
	const char *s = strchr(p, sep);

	return s ? s + 1 : NULL;
}

/* Whether item is one of list's elements, separated by sep. */
static int listed(const char *list, const char *item, char sep)
{
	size_t n = strlen(item);

	for (const char *p = list; p; p = next(p, sep))
		if (!strncmp(p, item, n) && (!p[n] || p[n] == sep))
			return 1;
	return 0;
}

static int fabric_vars(const struct mt_cmd_run_cfg *c,
		       struct mt_cmd_run_env *env, char *err, size_t errlen)
{
	const char *path = c->getenv("FI_PROVIDER_PATH");
	const char *hook = c->getenv("FI_HOOK");
	int r;

	/* libfabric looks for providers in FI_PROVIDER_PATH only (a ':'
	 * list): ours first, the user's after. */
	if (path && *path && !listed(path, c->provider_dir, ':'))
		r = set(env, "FI_PROVIDER_PATH", err, errlen, "%s:%s",
			c->provider_dir, path);
	else
		r = set(env, "FI_PROVIDER_PATH", err, errlen, "%s",
			path && *path ? path : c->provider_dir);
	if (!r && hook && *hook)	/* a ';' list of hooks, stacked */
		r = set(env, "FI_HOOK", err, errlen, "%s%s%s", hook,
			listed(hook, "msgtrace", ';') ? "" : ";",
			listed(hook, "msgtrace", ';') ? "" : "msgtrace");
	else if (!r)
		r = set(env, "FI_HOOK", err, errlen, "msgtrace");
	return r ? r : set(env, "FI_OFI_HOOK_MSGTRACE_DIR", err, errlen, "%s",
			   c->trace_dir);
}

/* Open MPI's settings of which libfabric providers the MTL may use. */
static const char *provider_setting(const struct mt_cmd_run_cfg *c)
{
	static const char *const keys[] = {
		"mtl_ofi_provider_include", "mtl_ofi_provider_exclude",
		"opal_common_ofi_provider_include",
		"opal_common_ofi_provider_exclude", NULL
	};

	if (c->getenv("FI_PROVIDER"))	/* libfabric's own restriction */
		return "FI_PROVIDER";
	for (size_t i = 0; keys[i]; i++)
		if (user_set(c, keys[i]))
			return keys[i];
	return NULL;
}

static int ompi_vars(const struct mt_cmd_run_cfg *c, struct mt_cmd_run_env *env,
		     char *err, size_t errlen)
{
	static const struct { const char *key, *env, *value; } route[] = {
		{ "pml", OMPI_ENV "pml", "cm" },
		{ "mtl", OMPI_ENV "mtl", "ofi" },
	};
	const char *prov = provider_setting(c);

	for (size_t i = 0; i < sizeof(route) / sizeof(route[0]); i++) {
		if (user_set(c, route[i].key))
			env->kept[env->n_kept++] = route[i].key;
		else if (set(env, route[i].env, err, errlen, "%s", route[i].value))
			return -1;
	}
	if (prov && c->fi_provider) {
		snprintf(err, errlen, "--provider: %s is set already; give one or "
			 "the other", prov);
		return -1;
	}
	if (prov) {
		env->kept[env->n_kept++] = prov;
		return 0;
	}
	return set(env, OMPI_ENV "mtl_ofi_provider_include", err, errlen, "%s",
		   c->fi_provider ? c->fi_provider : mt_cmd_run_default_provider());
}

int mt_cmd_run_env(const struct mt_cmd_run_cfg *c, struct mt_cmd_run_env *env,
		   char *err, size_t errlen)
{
	memset(env, 0, sizeof(*env));
	if (fabric_vars(c, env, err, errlen))
		return -1;
	/* MPICH reads no OMPI_MCA_*; any other launcher may start Open MPI
	 * ranks (srun, a script, a singleton), which read them. */
	if (c->launcher == MT_CMD_LAUNCHER_MPICH) {
		if (c->fi_provider) {
			snprintf(err, errlen, "--provider is for Open MPI; MPICH "
				 "takes FI_PROVIDER from the environment");
			return -1;
		}
		return 0;
	}
	return ompi_vars(c, env, err, errlen);
}
