/*
 * bench_compact - what compaction at exit costs: mt_codec_compact (the
 * provider's own call) on version 1 trace files, timed.
 *
 *   bench_compact FILE...   each a closed version 1 trace file
 *
 * Each file is read into memory once, then compacted into a scratch
 * directory REPEAT times (env, default 5); prints per file and in total the
 * version 1 and compacted sizes and the median milliseconds per MB (10^6
 * bytes) of version 1 records. The scratch copies are removed.
 *
 * Then what every reader pays for that: the compacted copy decoded whole
 * (mt_codec_decode, as the trace reader does) REPEAT times, against the
 * baseline of the same run, walking the version 1 records in memory; the
 * medians in M records/s and their ratio.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mt_codec.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Baseline: the version 1 records walked as the reader does (each header
 * touched); returns their count, and the sum of their types in *sum. */
static uint64_t walk_v1(const uint8_t *recs, uint64_t len, uint64_t *sum)
{
	uint64_t n = 0;

	for (uint64_t off = 0; off < len; n++) {
		const struct mt_rec_hdr *r = (const void *)(recs + off);

		*sum += r->type;
		off += r->size;
	}
	return n;
}

/* The compacted file (whole, in memory) decoded; its record count, or 0
 * when it does not decode. */
static uint64_t decode_v2(const uint8_t *file, uint64_t *sum)
{
	const struct mt_file_hdr *h = (const void *)file;
	static struct mt_codec_state st;
	uint64_t off = h->data_off, end = h->data_off + h->committed, n = 0;
	const char *why;

	mt_codec_reset(&st);
	while (off < end) {
		const struct mt_rec_hdr *r = mt_codec_decode(&st, file, &off, end, &why);

		if (!r) {
			fprintf(stderr, "bench_compact: decoding: %s\n", why);
			return 0;
		}
		*sum += r->type;
		n++;
	}
	return n;
}

/* File name (relative to dirfd) whole in memory, its size in *len; NULL
 * when it cannot be read. */
static uint8_t *read_whole(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY);
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;

	if (fd >= 0 && !fstat(fd, &st) && (buf = malloc((size_t)st.st_size + 1)))
		while (got < (size_t)st.st_size) {
			ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

			if (r <= 0) {
				free(buf);
				buf = NULL;
				break;
			}
			got += (size_t)r;
		}
	if (fd >= 0)
		close(fd);
	*len = got;
	return buf;
}

/* Median seconds of n runs of walk_v1 (v2 == NULL) or decode_v2. */
static double time_reading(const uint8_t *v1, uint64_t v1_len, const uint8_t *v2,
			   int n, uint64_t *recs, uint64_t *sum)
{
	double t[64];

	for (int r = 0; r < n; r++) {
		double t0 = now_s();

		*recs = v2 ? decode_v2(v2, sum) : walk_v1(v1, v1_len, sum);
		t[r] = now_s() - t0;
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp_d);
	return t[n / 2];
}

int main(int argc, char **argv)
{
	int repeat = getenv("REPEAT") ? atoi(getenv("REPEAT")) : 5;
	char dir[] = "/tmp/bench_compact.XXXXXX";
	double total_s = 0, in_b = 0, out_b = 0, walk_s = 0, dec_s = 0, nrecs = 0;
	uint64_t sum = 0;
	int dirfd;

	if (argc < 2 || repeat < 1) {
		fprintf(stderr, "usage: bench_compact FILE...\n");
		return 2;
	}
	if (!mkdtemp(dir) || (dirfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0) {
		perror("scratch directory");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		double t[64];
		size_t len, v2_len;
		uint8_t *buf = read_whole(AT_FDCWD, argv[i], &len);
		const struct mt_file_hdr *h;
		int n = repeat < 64 ? repeat : 64;

		if (!buf) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		h = (const void *)buf;
		if (len < sizeof(*h) || h->version != MT_TRACE_VERSION ||
		    h->data_off + h->committed > (uint64_t)len) {
			fprintf(stderr, "%s: not a whole version 1 trace file\n", argv[i]);
			return 1;
		}
		for (int r = 0; r < n; r++) {
			double t0 = now_s();

			if (mt_codec_compact(dirfd, "x.mt", 0600, h, buf + h->data_off)) {
				perror(argv[i]);
				return 1;
			}
			t[r] = now_s() - t0;
		}
		qsort(t, (size_t)n, sizeof(t[0]), cmp_d);

		uint8_t *v2 = read_whole(dirfd, "x.mt", &v2_len);
		uint64_t walked, decoded;
		double tw, td;

		if (!v2) {
			fprintf(stderr, "%s: cannot read its compacted copy back\n", argv[i]);
			return 1;
		}
		printf("%s: %llu -> %zu bytes, %.3f ms, %.2f ms/MB\n", argv[i],
		       (unsigned long long)(h->data_off + h->committed),
		       v2_len, t[n / 2] * 1e3,
		       t[n / 2] * 1e3 / ((double)(h->data_off + h->committed) / 1e6));
		total_s += t[n / 2];
		in_b += (double)(h->data_off + h->committed);
		out_b += (double)v2_len;
		tw = time_reading(buf + h->data_off, h->committed, NULL, n, &walked, &sum);
		td = time_reading(NULL, 0, v2, n, &decoded, &sum);
		if (decoded != walked) {
			fprintf(stderr, "%s: %llu records, but the compacted copy decodes to %llu\n",
				argv[i], (unsigned long long)walked, (unsigned long long)decoded);
			return 1;
		}
		printf("%s: decode %.1f M records/s, version 1 walk %.1f M records/s\n",
		       argv[i], (double)decoded / td / 1e6, (double)walked / tw / 1e6);
		walk_s += tw;
		dec_s += td;
		nrecs += (double)decoded;
		free(v2);
		free(buf);
	}
	unlinkat(dirfd, "x.mt", 0);
	close(dirfd);
	rmdir(dir);
	printf("total: %.0f -> %.0f bytes (%.1fx), %.1f ms, %.2f ms per MB of version 1 records\n",
	       in_b, out_b, in_b / (out_b > 0 ? out_b : 1), total_s * 1e3,
	       total_s * 1e3 / (in_b / 1e6));
	printf("reading: decode %.1f M records/s (%.1f ns each), version 1 walk %.1f M records/s "
	       "(baseline, same run): ratio %.3f (checksum %llu)\n",
	       nrecs / dec_s / 1e6, dec_s * 1e9 / nrecs, nrecs / walk_s / 1e6, walk_s / dec_s,
	       (unsigned long long)sum);
	return 0;
}
