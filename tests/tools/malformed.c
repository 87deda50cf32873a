/*
 * malformed - malformed trace files through the msgtrace command's own
 * code, in one process (inproc.h; the reader's unit tests, tests/trace,
 * cover the library, this covers what users run). From one real trace
 * file:
 *   - truncated at every offset of its header struct and of its records,
 *     and every 64th of the header page's padding;
 *   - every bit of the header struct flipped, and one bit of every 4th
 *     record byte;
 *   - wrong version, data offset and committed size past the end, absurd
 *     capacity, a record size running past the end, a zero record size,
 *     loss counters at their maximum.
 * Each case goes through `msgtrace dump --summary` and `msgtrace dump`,
 * which must end within 5 s in 512 MiB of address space (not checked
 * under ASan) with exit 0 or 1, never a signal; exit 1 must come with a
 * line naming the file and the offset at fault. Files cut short must be
 * rejected (exit 1) once the magic is there.
 *
 * Usage: malformed TRACEFILE
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inproc.h"

#define HDR 96			/* struct mt_file_hdr */
#define DATA 4096		/* the first record */
#define SECONDS 5
#define LIMIT_MB 512

static char dir[4096], path[4096 + 8];
static unsigned long runs, rejected;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	unlink(path);
	rmdir(dir);
	exit(1);
}

static void put(const uint8_t *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd))
		fail("cannot write %s", path);
}

/* Whether err has a line "msgtrace dump: PATH: " followed, when offset is
 * asked, by "offset N: ". */
static int names(const char *err, int offset)
{
	char head[sizeof(path) + 32];
	size_t n = (size_t)snprintf(head, sizeof(head), "msgtrace dump: %s: ", path);

	for (const char *l = err; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l + n;
		size_t d;

		if (strncmp(l, head, n))
			continue;
		if (!offset)
			return 1;
		d = strncmp(p, "offset ", 7) ? 0 : strspn(p + 7, "0123456789");
		if (d && !strncmp(p + 7 + d, ": ", 2))
			return 1;
	}
	return 0;
}

/* The case in the file: each command exits 0 or 1 (1 if must_reject),
 * and a rejection names the file (and the offset, unless any_message). */
static void check(const char *what, int must_reject, int any_message, const char *expect)
{
	static const char *const opts[] = { "--summary", NULL };

	for (int i = 0; i < 2; i++) {
		const char *argv[] = { "dump", opts[i] ? opts[i] : path, path, NULL };
		int argc = opts[i] ? 3 : 2;
		struct inproc_result r;
		char name[160];

		snprintf(name, sizeof(name), "%s (dump%s%s)", what, opts[i] ? " " : "",
			 opts[i] ? opts[i] : "");
		inproc_run(&mt_cmd_dump, argc, argv, SECONDS, name, &r);
		runs++;
		if (r.rc > 1)
			fail("%s: exit status %d: %.300s", name, r.rc, r.err);
		if (must_reject && r.rc != 1)
			fail("%s: accepted (exit 0)", name);
		if (r.rc != 1)
			continue;
		rejected++;
		if (!names(r.err, !any_message))
			fail("%s: the error does not name file and offset: %.300s", name, r.err);
		if (expect && !strstr(r.err, expect))
			fail("%s: the error does not say '%s': %.300s", name, expect, r.err);
	}
}

/* The seed with len bytes at off replaced by bytes. */
static void patched(const uint8_t *seed, size_t size, size_t off, const char *bytes,
		    size_t len, uint8_t *buf)
{
	memcpy(buf, seed, size);
	memcpy(buf + off, bytes, len);
	put(buf, size);
}

int main(int argc, char **argv)
{
	uint8_t *seed, *buf;
	char what[96], ones[24];
	const char *tmp = getenv("TMPDIR");
	size_t size;
	FILE *f;
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: malformed TRACEFILE\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= DATA ||
	    fseek(f, 0, SEEK_SET) || !(seed = malloc((size_t)n)) || !(buf = malloc((size_t)n)) ||
	    fread(seed, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "malformed: cannot read a trace file from '%s'\n", argv[1]);
		return 2;
	}
	fclose(f);
	size = (size_t)n;
	snprintf(dir, sizeof(dir), "%s/msgtrace-malformed.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/bad.mt", dir);
	if (inproc_init(LIMIT_MB))
		return 2;

	/* Truncations. The empty file and cuts inside the magic may be taken
	 * for a file whose header was never written, which a reader may skip. */
	for (size_t off = 0; off < size; off++) {
		if (off >= HDR && off < DATA && off % 64)
			continue;
		put(seed, off);
		snprintf(what, sizeof(what), "truncated at %zu", off);
		check(what, off >= 8, off < 8, NULL);
	}
	/* Bit flips: anything may be accepted, nothing may crash. */
	for (size_t bit = 0; bit < HDR * 8; bit++) {
		char b = (char)(seed[bit / 8] ^ (1u << (bit % 8)));

		patched(seed, size, bit / 8, &b, 1, buf);
		snprintf(what, sizeof(what), "header bit %zu flipped", bit);
		check(what, 0, 0, NULL);
	}
	for (size_t off = DATA; off < size; off += 4) {
		char b = (char)(seed[off] ^ (1u << (off % 8)));

		patched(seed, size, off, &b, 1, buf);
		snprintf(what, sizeof(what), "record byte %zu bit %zu flipped", off, off % 8);
		check(what, 0, 0, NULL);
	}
	/* Named defects (little-endian fields of struct mt_file_hdr / mt_rec_hdr). */
	patched(seed, size, 8, "\x05\0\0\0", 4, buf);
	check("version 5", 1, 0, "format version 5");
	patched(seed, size, 16, "\xf8\xff\xff\xff\xff\xff\xff\x7f", 8, buf);
	check("data offset near 2^63", 1, 0, NULL);
	patched(seed, size, 24, "\0\0\0\0\0\0\0\x40", 8, buf);
	check("committed 2^62", 1, 0, NULL);
	memcpy(buf, seed, size);
	memcpy(buf + 32, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	memcpy(buf + 24, "\0\0\0\0\0\0\0\x40", 8);
	put(buf, size);
	check("committed 2^62 within an absurd capacity", 1, 0, NULL);
	patched(seed, size, DATA + 2, "\xf8\xff", 2, buf);
	check("first record size 65528, past the end", 1, 0, NULL);
	patched(seed, size, DATA + 2, "\0\0", 2, buf);
	check("first record size 0", 1, 0, NULL);
	memset(ones, 0xff, sizeof(ones));
	patched(seed, size, 56, ones, sizeof(ones), buf);
	check("loss counters at UINT64_MAX", 0, 0, NULL);
	fprintf(stderr, "PASS: %lu runs on %zu bytes of real trace, %lu rejected with file "
		"and offset, no crash or hang\n", runs, size, rejected);
	unlink(path);
	rmdir(dir);
	free(seed);
	free(buf);
	return 0;
}
