/*
 * mt_env.c - the provider's parameters. Defined once on the provider, so that
 * `fi_info -e` lists them as FI_OFI_HOOK_MSGTRACE_*, and read once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hook.h"
#include "mt_env.h"
#include "mt_proc.h"
#include "mt_site.h"

#define DEFAULT_BUFFER_SIZE (1ull << 30)
#define CHUNK_SIZE (4ull << 20)
#define MIN_BUFFER_SIZE (8ull << 10)

void mt_hook_env_define(void)
{
	fi_param_define(&mt_hook_prov, "enable", FI_PARAM_BOOL,
			"Record calls (default: 1). 0 loads the hook but leaves every object untouched.");
	fi_param_define(&mt_hook_prov, "dir", FI_PARAM_STRING,
			"Directory of the trace files, created 0700 if missing; a symlink is refused "
			"(default: ./msgtrace-<launcher job id>, else ./msgtrace-<start time>)");
	fi_param_define(&mt_hook_prov, "all_layers", FI_PARAM_BOOL,
			"Also record the layers under the application-visible provider, "
			"e.g. tcp under ofi_rxm, marked layer 1 (default: 0)");
	fi_param_define(&mt_hook_prov, "buffer_size", FI_PARAM_STRING,
			"Maximum size of one thread's trace file; K, M, G suffixes (default: 1G). "
			"Records beyond it are counted as lost. In ring mode: the size of each thread's ring.");
	fi_param_define(&mt_hook_prov, "mode", FI_PARAM_STRING,
			"How a thread's file fills: 'file' keeps the first records up to buffer_size "
			"and counts later ones as lost; 'ring' keeps the latest records in a ring of "
			"buffer_size bytes, and the records naming the process, its objects, endpoints, "
			"addresses and call sites whatever their age (default: file)");
	fi_param_define(&mt_hook_prov, "callsite", FI_PARAM_BOOL,
			"Record where the application called MPI for each posting call: "
			"the first return address outside libfabric, the MPI library and the hook, "
			"and the one inside the MPI entry point (default: 0; costs an unwind per call)");
	fi_param_define(&mt_hook_prov, "callsite_skip", FI_PARAM_STRING,
			"Objects call sites are never in, besides those defining PMPI_Init or MPI_Init: "
			"':'-separated file name patterns (fnmatch; default: " MT_SITE_SKIP_DEFAULT ")");
	fi_param_define(&mt_hook_prov, "file_mode", FI_PARAM_STRING,
			"Permissions of the trace files, octal (default: 0600)");
	fi_param_define(&mt_hook_prov, "compact", FI_PARAM_BOOL,
			"Rewrite each trace file in the compact form (format version 2, "
			"about 6 times smaller) when it is closed, at thread or process exit "
			"(default: 1)");
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end || v < MIN_BUFFER_SIZE)
		return -1;
	*out = v;
	return 0;
}

static void default_dir(char *buf, size_t len)
{
	char job[64];
	struct tm tm;
	time_t now = time(NULL);

	mt_rec_proc_job_id(job, sizeof(job));
	if (job[0]) {
		snprintf(buf, len, "./msgtrace-%s", job);
		return;
	}
	localtime_r(&now, &tm);
	strftime(job, sizeof(job), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "./msgtrace-%s", job);
}

int mt_hook_env_init(struct mt_env *env)
{
	char *s = NULL;
	int v;

	memset(env, 0, sizeof(*env));
	env->enable = 1;
	env->conf.buffer_size = DEFAULT_BUFFER_SIZE;
	env->conf.chunk_size = CHUNK_SIZE;
	env->conf.file_mode = 0600;
	env->conf.fi_version = fi_version();
	env->conf.warn = mt_hook_warn;
	env->conf.dir = env->dir;

	if (fi_param_get_bool(&mt_hook_prov, "enable", &v) == FI_SUCCESS)
		env->enable = v;
	env->conf.compact = 1;
	if (fi_param_get_bool(&mt_hook_prov, "compact", &v) == FI_SUCCESS)
		env->conf.compact = v;
	if (fi_param_get_bool(&mt_hook_prov, "all_layers", &v) == FI_SUCCESS)
		env->all_layers = v;
	if (env->all_layers)
		env->conf.file_flags |= MT_FILE_ALL_LAYERS;
	if (fi_param_get_bool(&mt_hook_prov, "callsite", &v) == FI_SUCCESS)
		env->callsite = v;
	env->conf.ring_sites = env->callsite;
	if (fi_param_get_str(&mt_hook_prov, "callsite_skip", &s) == FI_SUCCESS && s) {
		if (strlen(s) < sizeof(env->callsite_skip))
			snprintf(env->callsite_skip, sizeof(env->callsite_skip), "%s", s);
		else
			FI_WARN(&mt_hook_prov, FI_LOG_CORE,
				"msgtrace: FI_OFI_HOOK_MSGTRACE_CALLSITE_SKIP is too long (%zu bytes, limit %zu); using the default\n",
				strlen(s), sizeof(env->callsite_skip) - 1);
	}
	s = NULL;
	if (fi_param_get_str(&mt_hook_prov, "dir", &s) == FI_SUCCESS && s && *s) {
		/* A truncated path would trace into some other directory. */
		if (strlen(s) >= sizeof(env->dir)) {
			FI_WARN(&mt_hook_prov, FI_LOG_CORE,
				"msgtrace: tracing disabled: trace directory FI_OFI_HOOK_MSGTRACE_DIR is too long (%zu bytes, limit %zu)\n",
				strlen(s), sizeof(env->dir) - 1);
			env->enable = 0;
			return 0;
		}
		snprintf(env->dir, sizeof(env->dir), "%s", s);
	} else
		default_dir(env->dir, sizeof(env->dir));
	s = NULL;
	if (fi_param_get_str(&mt_hook_prov, "buffer_size", &s) == FI_SUCCESS && s &&
	    parse_size(s, &env->conf.buffer_size))
		FI_WARN(&mt_hook_prov, FI_LOG_CORE,
			"msgtrace: FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE='%s' is not a size >= 8K; using 1G\n", s);
	s = NULL;
	if (fi_param_get_str(&mt_hook_prov, "mode", &s) == FI_SUCCESS && s) {
		if (!strcmp(s, "ring"))
			env->conf.ring = 1;
		else if (strcmp(s, "file"))
			FI_WARN(&mt_hook_prov, FI_LOG_CORE,
				"msgtrace: FI_OFI_HOOK_MSGTRACE_MODE='%s' is neither 'file' nor 'ring'; using 'file'\n", s);
	}
	s = NULL;
	if (fi_param_get_str(&mt_hook_prov, "file_mode", &s) == FI_SUCCESS && s) {
		char *end;
		long mode = strtol(s, &end, 8);

		if (*s && !*end && mode >= 0 && mode <= 0777 && (mode & 0600) == 0600)
			env->conf.file_mode = (mode_t)mode;
		else
			FI_WARN(&mt_hook_prov, FI_LOG_CORE,
				"msgtrace: FI_OFI_HOOK_MSGTRACE_FILE_MODE='%s' is not an octal mode with owner rw; using 0600\n", s);
	}
	return env->enable;
}
