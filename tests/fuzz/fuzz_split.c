/*
 * fuzz_split - turns one fuzz_msgtrace input back into what the msgtrace
 * command reads, so the real binary can be run on it (scripts/fuzz compacted):
 *   fuzz_split INPUT OUTDIR
 * A trace input ('D'...) becomes OUTDIR/f<i>.mt, one file per part; a tag
 * input ('T'...) becomes OUTDIR/tag.args, the arguments NUL-terminated
 * (for xargs -0). Exit 0, or 2 on a usage or I/O error.
 */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT "MTSPLIT!"
#define MAX_FILES 8
#define MAX_ARGS 8

static int put(const char *dir, const char *name, const void *p, size_t n,
	       int nul)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "ab");
	if (!f || fwrite(p, 1, n, f) != n || (nul && fputc(0, f) == EOF)) {
		perror(path);
		return -1;
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	static char buf[1 << 24];
	size_t size;
	FILE *in;

	if (argc != 3 || !(in = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: fuzz_split INPUT OUTDIR\n");
		return 2;
	}
	size = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	if (size == 0)
		return 0;
	if (buf[0] == 'T') {
		/* As fuzz_msgtrace: up to MAX_ARGS NUL-separated strings. */
		size_t i = 1;

		for (int n = 0; i <= size && n < MAX_ARGS; n++) {
			size_t len = strnlen(buf + i, size - i);

			if (put(argv[2], "tag.args", buf + i, len, 1))
				return 2;
			i += len + 1;
		}
		return 0;
	}
	char *data = buf + 1;
	size--;
	for (int n = 0; n < MAX_FILES; n++) {
		char *cut = memmem(data, size, SPLIT, strlen(SPLIT));
		size_t len = cut ? (size_t)(cut - data) : size;
		char name[16];

		snprintf(name, sizeof(name), "f%d.mt", n);
		if (put(argv[2], name, data, len, 0))
			return 2;
		if (!cut)
			break;
		size -= len + strlen(SPLIT);
		data = cut + strlen(SPLIT);
	}
	return 0;
}
