/*
 * fuzz_msgtrace.c - libFuzzer target for everything `msgtrace` reads: the
 * trace reader (trace/) through the real subcommands that consume traces,
 * and `msgtrace tag`'s argument parsing (decode/).
 *
 * Input: a first byte choosing what to run, then data.
 *   'T'  the rest is `msgtrace tag` arguments separated by NUL bytes
 *        (at most MAX_ARGS; the subcommand name is supplied).
 *   'A'  the rest is an OTF2 archive (otf2in/, through libotf2): its files
 *        separated by SPLIT, in the order of archive_file[] (anchor,
 *        global definitions, then each location's events and local
 *        definitions), written into a scratch directory; `messages` and
 *        `report` read it, and a rejected archive must be named.
 *   else the rest is one or more trace files separated by SPLIT; each is
 *        written to a memfd and trace-reading subcommands run over all of
 *        them: 'M' `messages` and `report` (match/), 'J' `report --json`
 *        and `decode --ops` (decode/), 'G' `tags` and `export --chrome`
 *        (to /dev/null), 'H' `report --html` (to /dev/null) and `export
 *        --csv`, 'O' `export --otf2` (both into a scratch directory
 *        emptied after each input), anything else `dump` and `dump
 *        --summary` (trace/).
 * Output goes to /dev/null; what counts is that the commands return 0, 1
 * or 2 without crashing, hanging, leaking or reading out of bounds
 * (ASan, UBSan and LeakSanitizer watch), that a trace a command
 * rejects (1) is named in its error, and that none runs out of memory.
 * fuzz_replay.c runs the same entry points on the stored corpus, in every
 * build.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "fuzz_msgtrace.h"
#include "inproc.h"

#define SPLIT "MTSPLIT!"	/* 8 bytes between two files of one input */
#define MAX_FILES 8
#define MAX_ARGS 8

/* Where archives are written and the sinks that write files (CSV prefix,
 * OTF2 archive) write: a directory of a random name, which the commands
 * see as /proc/self/fd/N, a name the same in every run (errors quote it,
 * and what the target compares with its input steers the mutations). */
static char scratch[] = "/tmp/fuzz-msgtrace.XXXXXX";
static char at[sizeof("/proc/self/fd/2147483647")];
static char csv_out[sizeof(at) + 8], otf2_out[sizeof(at) + 8];

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	return ftw->level > 0 ? remove(path) : 0;
}

static void empty_scratch(void)
{
	nftw(scratch, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void remove_scratch(void)
{
	empty_scratch();
	rmdir(scratch);
}

/* The input being run, and what a command says when it runs out of memory. */
static const uint8_t *input;
static size_t input_size;
#define OOM "out of memory"

unsigned fuzz_time_limit;
const char *fuzz_input_name = "";

/* Each run gets argv of at most this many entries. */
typedef const char *argv_t[MAX_FILES + 4];

/* cmd on argv, of which the last n are the input's trace files (paths). */
static void run(const struct mt_cmd *cmd, int argc, const char **argv, int n,
		char paths[][32])
{
	struct inproc_result r;
	int named = !n;

	inproc_run(cmd, argc, argv, fuzz_time_limit, fuzz_input_name, &r);
	if (r.rc != MT_EXIT_OK && r.rc != MT_EXIT_BAD_INPUT && r.rc != MT_EXIT_USAGE) {
		fprintf(stderr, "%s: msgtrace %s: exit status %d\n", fuzz_input_name,
			cmd->name, r.rc);
		abort();	/* an exit status the command must not return */
	}
	for (int i = 0; i < n && !named; i++)
		named = strstr(r.err, paths[i]) != NULL;
	if (r.rc == MT_EXIT_BAD_INPUT && !named) {
		fprintf(stderr, "%s: msgtrace %s rejected a trace without naming it:\n%s",
			fuzz_input_name, cmd->name, r.err);
		abort();
	}
	/* An input is a few KB: a count or size in it that msgtrace turns
	 * into an allocation the allocator refuses is a defect (fuzz runs
	 * refuse one past 256 MB, fuzz_replay's limit is 1 GiB in all).
	 * Errors quote arguments and names from the input: an input holding
	 * the words proves nothing. */
	if (strstr(r.err, OOM) && !memmem(input, input_size, OOM, strlen(OOM))) {
		fprintf(stderr, "%s: msgtrace %s ran out of memory:\n%s",
			fuzz_input_name, cmd->name, r.err);
		abort();
	}
}

static void fuzz_tag(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	const char *argv[MAX_ARGS + 2] = { "tag" };
	int argc = 1;
	size_t i = 0;

	if (!buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	while (i <= size && argc <= MAX_ARGS) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	run(&mt_cmd_tag, argc, argv, 0, NULL);
	free(buf);
}

/* Runs cmd with up to two options, then every path. */
static void run_on(const struct mt_cmd *cmd, const char *opt, const char *opt2,
		   int n, char paths[][32])
{
	argv_t argv;
	int argc = 0;

	argv[argc++] = cmd->name;
	if (opt)
		argv[argc++] = opt;
	if (opt2)
		argv[argc++] = opt2;
	for (int i = 0; i < n; i++)
		argv[argc++] = paths[i];
	argv[argc] = NULL;
	run(cmd, argc, argv, n, paths);
}

/* The files of an OTF2 archive named "traces" (msgtrace's export writes
 * that name), as input 'A' gives them. */
static const char *const archive_file[] = {
	"traces.otf2", "traces.def", "traces/0.evt", "traces/0.def",
	"traces/1.evt", "traces/1.def", "traces/2.evt", "traces/2.def",
	"traces/3.evt", "traces/3.def",
};

static void fuzz_archive(const uint8_t *data, size_t size)
{
	char dir[1][32], path[64];
	size_t i = 0, nfiles = sizeof(archive_file) / sizeof(archive_file[0]);

	snprintf(dir[0], sizeof(dir[0]), "%s/a", at);
	snprintf(path, sizeof(path), "%s/traces", dir[0]);
	if (mkdir(dir[0], 0700) || mkdir(path, 0700))
		abort();
	for (; i < nfiles; i++) {
		const uint8_t *cut = memmem(data, size, SPLIT, strlen(SPLIT));
		size_t len = cut ? (size_t)(cut - data) : size;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir[0], archive_file[i]);
		if (!(f = fopen(path, "wb")) || fwrite(data, 1, len, f) != len ||
		    fclose(f))
			abort();
		if (!cut)
			break;
		size -= len + strlen(SPLIT);
		data = cut + strlen(SPLIT);
	}
	/* The directory is given; errors name its anchor file in it. */
	run_on(&mt_cmd_messages, NULL, NULL, 1, dir);
	run_on(&mt_cmd_report, NULL, NULL, 1, dir);
	empty_scratch();
}

static void fuzz_traces(uint8_t what, const uint8_t *data, size_t size)
{
	char paths[MAX_FILES][32];
	int fds[MAX_FILES], n = 0;

	while (n < MAX_FILES) {
		const uint8_t *cut = memmem(data, size, SPLIT, strlen(SPLIT));
		size_t len = cut ? (size_t)(cut - data) : size;
		int fd = memfd_create("fuzz.mt", MFD_CLOEXEC);

		if (fd < 0)
			break;
		if (write(fd, data, len) != (ssize_t)len) {
			close(fd);
			break;
		}
		fds[n] = fd;
		snprintf(paths[n], sizeof(paths[n]), "/proc/self/fd/%d", fd);
		n++;
		if (!cut)
			break;
		size -= len + strlen(SPLIT);
		data = cut + strlen(SPLIT);
	}
	switch (what) {
	case 'M':
		run_on(&mt_cmd_messages, NULL, NULL, n, paths);
		run_on(&mt_cmd_report, NULL, NULL, n, paths);
		break;
	case 'J':
		run_on(&mt_cmd_report, "--json", NULL, n, paths);
		run_on(&mt_cmd_decode, "--ops", NULL, n, paths);
		break;
	case 'G':
		run_on(&mt_cmd_tags, NULL, NULL, n, paths);
		run_on(&mt_cmd_export, "--chrome", "-o/dev/null", n, paths);
		break;
	case 'H':
		run_on(&mt_cmd_report, "--html", "-o/dev/null", n, paths);
		run_on(&mt_cmd_export, "--csv", csv_out, n, paths);
		empty_scratch();
		break;
	case 'O':
		run_on(&mt_cmd_export, "--otf2", otf2_out, n, paths);
		empty_scratch();
		break;
	default:
		run_on(&mt_cmd_dump, NULL, NULL, n, paths);
		run_on(&mt_cmd_dump, "--summary", NULL, n, paths);
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	/* The commands print; only their behaviour matters here. */
	if (!freopen("/dev/null", "w", stdout) || !mkdtemp(scratch) ||
	    atexit(remove_scratch) ||
	    (fd = open(scratch, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		abort();
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	snprintf(csv_out, sizeof(csv_out), "-o%s/x", at);
	snprintf(otf2_out, sizeof(otf2_out), "-o%s/otf2", at);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	input = data;
	input_size = size;
	if (data[0] == 'T')
		fuzz_tag(data + 1, size - 1);
	else if (data[0] == 'A')
		fuzz_archive(data + 1, size - 1);
	else
		fuzz_traces(data[0], data + 1, size - 1);
	fflush(stdout);
	return 0;
}
