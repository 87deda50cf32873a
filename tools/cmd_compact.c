/*
 * cmd_compact.c - `msgtrace compact`: rewrites the closed version 1 files
 * of trace directories in the compact form (format version 2), as the
 * provider does when it closes a file; for traces recorded with
 * compaction off, or by an older msgtrace.
 */
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "mt_codec.h"
#include "mt_trace.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace compact DIR...\n"
		"Rewrite each closed trace file (*.mt, format version 1) of each DIR in\n"
		"the compact form (format version 2), in place: as the recording\n"
		"provider does at exit unless FI_OFI_HOOK_MSGTRACE_COMPACT=0. Every\n"
		"command reads both forms alike. Files not closed by their writer\n"
		"(still written, or left by a crash) and compacted files are left as\n"
		"they are. A file is replaced by a rename once its compact copy is\n"
		"whole: an interrupted run leaves every file readable.\n\n"
		"Options:\n"
		"  -h, --help       this text\n\n"
		"Exit status: 0 success, 1 a file could not be read or compacted,\n"
		"2 usage error.\n");
}

/* Compacts name in dir (dirfd); adds its sizes; 0, or 1 after printing
 * why it could not. */
static int compact_one(const char *dir, int dirfd, const char *name,
		       uint64_t *before, uint64_t *after, unsigned *done)
{
	char path[4096];
	struct mt_trace_file *f;
	struct mt_err err = { 0 };
	enum mt_status st;
	struct stat sb;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	st = mt_trace_file_open(path, &f, &err);
	if (st == MT_END)
		return 0;	/* never written: nothing to compact */
	if (st != MT_OK) {
		fprintf(stderr, "msgtrace compact: %s\n", err.msg);
		return 1;
	}
	if (f->compact || !mt_trace_file_clean(f)) {
		mt_trace_file_close(f);
		return 0;
	}
	if (f->scan_status != MT_OK) {
		fprintf(stderr, "msgtrace compact: %s\n", f->scan_err.msg);
		rc = 1;
	} else if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) ||
		   mt_codec_compact(dirfd, name, sb.st_mode & 07777, f->hdr,
				    f->map + f->hdr->data_off)) {
		fprintf(stderr, "msgtrace compact: %s: cannot compact: %m\n", path);
		rc = 1;
	} else {
		*before += (uint64_t)sb.st_size;
		if (!fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW))
			*after += (uint64_t)sb.st_size;
		(*done)++;
	}
	mt_trace_file_close(f);
	return rc;
}

static int compact_dir(const char *dir, uint64_t *before, uint64_t *after,
		       unsigned *done)
{
	size_t sfx = strlen(MT_TRACE_SUFFIX);
	struct dirent *e;
	int dirfd, rc = 0;
	DIR *d;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dirfd < 0 ? NULL : fdopendir(dirfd);
	if (!d) {
		fprintf(stderr, "msgtrace compact: %s: cannot open directory: %m\n", dir);
		mt_cmd_untraced("msgtrace compact", &dir, 1, 1);
		if (dirfd >= 0)
			close(dirfd);
		return 1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > sfx && !strcmp(e->d_name + len - sfx, MT_TRACE_SUFFIX))
			rc |= compact_one(dir, dirfd, e->d_name, before, after, done);
	}
	closedir(d);
	return rc;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t before = 0, after = 0;
	unsigned done = 0;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return MT_EXIT_OK;
		}
		usage(stderr);
		return MT_EXIT_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "msgtrace compact: no trace directory given\n");
		usage(stderr);
		return MT_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++)
		rc |= compact_dir(argv[i], &before, &after, &done);
	printf("msgtrace compact: %u files, %" PRIu64 " -> %" PRIu64 " bytes\n",
	       done, before, after);
	return rc ? MT_EXIT_BAD_INPUT : MT_EXIT_OK;
}

const struct mt_cmd mt_cmd_compact = {
	.name = "compact",
	.summary = "rewrite closed trace files in the compact form (version 2)",
	.run = run,
};
