/*
 * live.c - a trace still being written (msgtrace watch): each file read on
 * from the end of its last scan to what its writer has committed since,
 * without opening, mapping or scanning again what was read before.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "trace_int.h"

/* Trace files in paths now (a file path counts as one). */
static size_t count_files(const char *const *paths, size_t n)
{
	size_t count = 0;
	struct stat sb;

	for (size_t i = 0; i < n; i++) {
		DIR *d;
		struct dirent *e;

		if (stat(paths[i], &sb) || !S_ISDIR(sb.st_mode) ||
		    !(d = opendir(paths[i]))) {
			count++;
			continue;
		}
		while ((e = readdir(d)))
			count += (size_t)mt_trace_is_name(e->d_name);
		closedir(d);
	}
	return count;
}

enum mt_status mt_trace_refresh(struct mt_trace *t, const char *const *paths,
				size_t n, int *reopen, struct mt_err *err)
{
	enum mt_status st;

	/* A file created (a new thread or process) or one whose header was
	 * not written yet: the processes and their order change. */
	*reopen = t->nempty || count_files(paths, n) != t->nfiles;
	for (size_t i = 0; i < t->nfiles && !*reopen; i++) {
		struct mt_trace_file *f = t->files[i];
		size_t nsetup = f->nsetup;

		if ((st = mt_trace_file_rescan(f, err)))
			return st;
		/* New endpoints, addresses or clock pairs: the tables built
		 * from setup records at open are out of date. */
		*reopen = f->nsetup != nsetup;
	}
	if (*reopen)
		return MT_OK;
	for (size_t p = 0; p < t->nprocs; p++)
		mt_trace_proc_span(&t->procs[p]);
	return MT_OK;
}
