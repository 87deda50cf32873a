/*
 * notrace.c - why a trace directory is missing or empty, said by every
 * command that reads traces (see cmd.h): the hook was not loaded, or the
 * MPI never opened libfabric; or it is an MPI tracer's OTF2 archive left
 * unfinished.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "mt_otf2in.h"

int mt_cmd_trace_absent(const char *path)
{
	size_t sfx = strlen(MT_TRACE_SUFFIX), n;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int found = 0;

	if (stat(path, &st))
		return errno == ENOENT;
	/* An OTF2 archive's directory is no fabric trace, and not empty:
	 * its own errors say what is wrong with it. */
	if (!S_ISDIR(st.st_mode) || mt_otf2in_is_archive(path) ||
	    !(d = opendir(path)))
		return 0;
	while (!found && (e = readdir(d)))
		found = (n = strlen(e->d_name)) > sfx &&
			!strcmp(e->d_name + n - sfx, MT_TRACE_SUFFIX);
	closedir(d);
	return !found;
}

int mt_cmd_untraced(const char *cmd, const char *const *paths, size_t n,
		    int suggest_run)
{
	size_t i = 0;

	char sub[256];
	size_t evt;

	while (i < n && !mt_cmd_trace_absent(paths[i]))
		i++;
	if (i == n)
		return 0;
	if (mt_otf2in_unfinished(paths[i], sub, sizeof(sub), &evt)) {
		fprintf(stderr,
			"%s: %s: an OTF2 archive left unfinished: %s/ holds %zu event "
			"files, but\n"
			"  there is no anchor file (*.otf2) and no global definitions, "
			"which the\n"
			"  tracer writes last: it never finalized. EZTrace writes them "
			"in MPI_Finalize,\n"
			"  or when a signal stops the job only if its ranks can still "
			"communicate\n"
			"  (not in a hung job over Open MPI's OFI MTL).\n", cmd,
			paths[i], sub, evt);
		return 1;
	}
	fprintf(stderr,
		"%s: nothing was traced in %s. Usually:\n"
		"  - the MPI did not use libfabric: Open MPI's ob1 or ucx PML (Open "
		"MPI 5\n"
		"    picks ob1 by default; tracing needs --mca pml cm --mca mtl ofi), "
		"or an\n"
		"    MPICH built on UCX (Debian's mpich package is);\n"
		"  - FI_HOOK=msgtrace or FI_PROVIDER_PATH did not reach the ranks, or "
		"the\n"
		"    ranks wrote elsewhere (FI_OFI_HOOK_MSGTRACE_DIR, by default\n"
		"    msgtrace-<job id> in the ranks' working directory).\n"
		"  Check: FI_PROVIDER_PATH=<dir of libmsgtrace-fi.so> fi_info -l must "
		"list\n"
		"  ofi_hook_msgtrace%s\n", cmd, paths[i],
		suggest_run ? "; `msgtrace run -- mpirun ...` sets all of this." :
		".");
	return 1;
}
