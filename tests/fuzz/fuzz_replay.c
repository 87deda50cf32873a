/*
 * fuzz_replay - the fuzz target (fuzz_msgtrace.c) on stored inputs, in one
 * process and in any build: each file named, or each file of each
 * directory named, goes through LLVMFuzzerTestOneInput as libFuzzer would
 * hand it, so every command it runs must return 0, 1 or 2, name the trace
 * it rejects, and end within 10 s in 1 GiB of address space (RSS, checked
 * by ASan, in sanitizer builds); a failure names the input and stops.
 * `--share K/N` takes share K of N of each directory's files (those whose
 * index in name order is K modulo N), so that N tests replay a corpus
 * together, each well within a test's time.
 *
 * Usage: fuzz_replay [--share K/N] FILE_OR_DIR...
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_msgtrace.h"
#include "inproc.h"

#define SECONDS 10
#define LIMIT_MB 1024

static size_t replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(data = malloc((size_t)size + 1)) ||
	    fread(data, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "fuzz_replay: cannot read '%s'\n", path);
		if (f)
			fclose(f);
		free(data);
		return -1;
	}
	fclose(f);
	fuzz_input_name = path;
	LLVMFuzzerTestOneInput(data, (size_t)size);
	free(data);
	replayed++;
	return 0;
}

static int replay_dir(const char *dir, long share, long shares)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), bad = 0;
	long k = 0;

	if (n < 0) {
		fprintf(stderr, "fuzz_replay: cannot read directory '%s'\n", dir);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (!bad && !stat(path, &st) && S_ISREG(st.st_mode) && k++ % shares == share)
			bad = replay_file(path);
		free(ents[i]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	long share = 0, shares = 1;
	char *end = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--share")) {
		share = strtol(argv[2], &end, 10);
		shares = *end == '/' ? strtol(end + 1, &end, 10) : 0;
		i = 3;
	}
	if (i >= argc || (end && *end) || shares < 1 || share < 0 || share >= shares) {
		fprintf(stderr, "usage: fuzz_replay [--share K/N] FILE_OR_DIR...\n");
		return 2;
	}
	if (inproc_init(LIMIT_MB) || LLVMFuzzerInitialize(&argc, &argv)) {
		perror("fuzz_replay: setting up");
		return 2;
	}
	fuzz_time_limit = SECONDS;
	for (; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) ||
		    (S_ISDIR(st.st_mode) ? replay_dir(argv[i], share, shares) : replay_file(argv[i]))) {
			fprintf(stderr, "fuzz_replay: cannot replay '%s'\n", argv[i]);
			return 1;
		}
	}
	fprintf(stderr, "PASS: %zu fuzz inputs replayed in one process\n", replayed);
	return 0;
}
