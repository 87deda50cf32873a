/*
 * bench_trace_merge.c - records per second of the trace reader: the full
 * validating scan at open, a plain per-file cursor walk (the baseline: no
 * ordering at all) and the time-ordered k-way merge, on synthetic files of
 * OP records with interleaved timestamps. Prints the merge/cursor ratio.
 *
 * Usage: bench_trace_merge [files] [records_per_file]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mt_trace.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* File i of n: PROC (thread 0 only) then recs OPs, ts = k*n + i. */
static void write_file(const char *dir, unsigned i, unsigned n, size_t recs)
{
	struct mt_file_hdr h = { .version = MT_TRACE_VERSION,
				 .hdr_size = MT_FILE_HDR_SIZE,
				 .data_off = MT_FILE_HDR_SIZE, .pid = 1,
				 .thread_seq = i, .flags = MT_FILE_CLOSED };
	struct mt_rec_proc p = { .h = { MT_REC_PROC, 0, sizeof(p), 0, 0 },
				 .pid = 1, .clock_source = MT_CLOCK_TSC,
				 .clock_hz = 3000000000ull, .hostname = "bench" };
	struct mt_rec_op op = { .h = { MT_REC_OP, 0, sizeof(op), MT_OP_TSEND, 0 } };
	char path[4096], pad[MT_FILE_HDR_SIZE] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "%s/bench.1.%u.mt", dir, i);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	memcpy(h.magic, MT_TRACE_MAGIC, sizeof(h.magic));
	h.committed = recs * sizeof(op) + (i ? 0 : sizeof(p));
	h.capacity = h.committed;
	memcpy(pad, &h, sizeof(h));
	fwrite(pad, 1, sizeof(pad), f);
	if (!i)
		fwrite(&p, 1, sizeof(p), f);
	for (size_t k = 0; k < recs; k++) {
		op.h.ts = (uint64_t)k * n + i;
		op.tag = k;
		fwrite(&op, 1, sizeof(op), f);
	}
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void run(const char *dir, unsigned nfiles, size_t recs)
{
	const char *path = dir;
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_trace *t;
	struct mt_err err;
	uint64_t sum = 0, n_cur = 0, n_merge = 0;
	double t0, t_open, t_cur, t_merge;

	for (unsigned i = 0; i < nfiles; i++)
		write_file(dir, i, nfiles, recs);
	t0 = now();
	if (mt_trace_open(&path, 1, &t, &err) != MT_OK) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	t_open = now() - t0;
	t0 = now();
	for (size_t i = 0; i < t->nfiles; i++) {
		struct mt_trace_cursor c;
		const struct mt_rec_hdr *r;

		mt_trace_cursor_init(&c, t->files[i]);
		while (mt_trace_cursor_next(&c, &r, NULL) == MT_OK) {
			sum += r->ts;
			n_cur++;
		}
	}
	t_cur = now() - t0;
	t0 = now();
	mt_trace_merge_open(t, &m);
	while (mt_trace_merge_next(m, &ev, NULL) == MT_OK) {
		sum += (uint64_t)ev.ns;
		n_merge++;
	}
	mt_trace_merge_close(m);
	t_merge = now() - t0;
	printf("files %4u  records %9llu  open+scan %6.1f Mrec/s  cursor %6.1f Mrec/s"
	       "  merge %6.1f Mrec/s  merge/cursor %.2f  (checksum %llu)\n",
	       nfiles, (unsigned long long)n_merge, n_cur / t_open / 1e6,
	       n_cur / t_cur / 1e6, n_merge / t_merge / 1e6,
	       (n_merge / t_merge) / (n_cur / t_cur), (unsigned long long)(sum & 0xffff));
	mt_trace_close(t);
	for (unsigned i = 0; i < nfiles; i++) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/bench.1.%u.mt", dir, i);
		unlink(p);
	}
}

int main(int argc, char **argv)
{
	unsigned files = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
	size_t total = argc > 2 ? (size_t)atoll(argv[2]) : 4000000;
	char dir[] = "/tmp/mt-bench-XXXXXX";
	static const unsigned sweep[] = { 1, 4, 16, 64, 256 };

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* Same total record count for every file count: only k changes. */
	if (files)
		run(dir, files, total / files);
	else
		for (size_t i = 0; i < sizeof(sweep) / sizeof(sweep[0]); i++)
			run(dir, sweep[i], total / sweep[i]);
	rmdir(dir);
	return 0;
}
