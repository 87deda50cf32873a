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

int main(int argc, char **argv)
{
	int repeat = getenv("REPEAT") ? atoi(getenv("REPEAT")) : 5;
	char dir[] = "/tmp/bench_compact.XXXXXX";
	double total_s = 0, in_b = 0, out_b = 0;
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
		struct stat st;
		uint8_t *buf;
		FILE *f = fopen(argv[i], "rb");
		const struct mt_file_hdr *h;
		int n = repeat < 64 ? repeat : 64;

		if (!f || fstat(fileno(f), &st) || !(buf = malloc((size_t)st.st_size)) ||
		    fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
			fprintf(stderr, "%s: cannot read\n", argv[i]);
			return 1;
		}
		fclose(f);
		h = (const void *)buf;
		if ((size_t)st.st_size < sizeof(*h) || h->version != MT_TRACE_VERSION ||
		    h->data_off + h->committed > (uint64_t)st.st_size) {
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
		fstatat(dirfd, "x.mt", &st, 0);
		printf("%s: %llu -> %lld bytes, %.3f ms, %.2f ms/MB\n", argv[i],
		       (unsigned long long)(h->data_off + h->committed),
		       (long long)st.st_size, t[n / 2] * 1e3,
		       t[n / 2] * 1e3 / ((double)(h->data_off + h->committed) / 1e6));
		total_s += t[n / 2];
		in_b += (double)(h->data_off + h->committed);
		out_b += (double)st.st_size;
		free(buf);
	}
	unlinkat(dirfd, "x.mt", 0);
	close(dirfd);
	rmdir(dir);
	printf("total: %.0f -> %.0f bytes (%.1fx), %.1f ms, %.2f ms per MB of version 1 records\n",
	       in_b, out_b, in_b / (out_b > 0 ? out_b : 1), total_s * 1e3,
	       total_s * 1e3 / (in_b / 1e6));
	return 0;
}
