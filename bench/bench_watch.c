/*
 * bench_watch - the cost of a `msgtrace watch` refresh on a trace being
 * written, read on incrementally (mt_pipe_live_view) against reading it
 * whole again (mt_pipe_run into the same watch sink: what each view did
 * before), in the same run, on a trace gen_trace --hang wrote (its files
 * left open, as a running job's are).
 *
 *   bench_watch DIR NPROC [ROUNDS [PER_ROUND]]
 *       ROUNDS times (default 5): PER_ROUND processes (default 100) each
 *       publish one more receive, then one incremental view and one whole
 *       re-read are timed. Prints each round and the medians.
 *   bench_watch --check DIR NPROC
 *       a receive (user tag 4242) published and a file closed between two
 *       views: the receive appears in the second view, not in the first,
 *       the file is no longer left by a kill, and the second view read 2
 *       records on rather than the trace whole: exit 0, else 1 saying why.
 *   bench_watch --publish DIR RANK TAG
 *       rank RANK publishes one more receive with user tag TAG (a writer
 *       for the tests of the `msgtrace watch` command).
 *
 * A process publishes as the provider does: the record past the committed
 * end first (growing the file), then the header's committed count.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mt_pipe.h"

#define TAG_FULL(cid, tag) ((uint64_t)(cid) << 34 | (uint32_t)(int32_t)(tag))
#define SYNC_FULL (1ull << 32)
#define MAX_ROUNDS 99

static const char *dir;
static int nproc;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Rank p of gen_trace --hang (one communicator): the rank it waits on,
 * which is its AV's only address (fi_addr = that rank). */
static int up_of(int p)
{
	return p ? p & ~(1 << (31 - __builtin_clz((unsigned)p))) : 1;
}

/* Process p appends record r (size bytes) and commits it; with flags,
 * the header gets them too (MT_FILE_CLOSED: the writer closed the file). */
static void append(int p, const void *r, size_t size, uint32_t flags)
{
	struct mt_file_hdr h;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/bench.%d.0%s", dir, 1000 + p, MT_TRACE_SUFFIX);
	if ((fd = open(path, O_RDWR)) < 0 || pread(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    pwrite(fd, r, size, (off_t)(h.data_off + h.committed)) != (ssize_t)size) {
		perror(path);
		exit(2);
	}
	h.committed += size;
	h.capacity = h.committed;
	h.flags |= flags;
	if (pwrite(fd, &h, sizeof(h), 0) != sizeof(h) || close(fd)) {
		perror(path);
		exit(2);
	}
}

/* Process p posts one more receive from its peer (tag, at tick ts). */
static void publish(int p, int32_t tag, uint64_t ts)
{
	struct mt_rec_op o = { .h = { .type = MT_REC_OP, .size = sizeof(o),
		.aux = MT_OP_TRECV, .ts = ts }, .ep = 0x10000 + (uint64_t)p * 0x100,
		.addr = (uint64_t)up_of(p), .tag = TAG_FULL(0, tag),
		.ignore = SYNC_FULL, .context = 0x7e0000000000ull + ts };

	append(p, &o, sizeof(o), 0);
}

/* Process p closes its file: the END clock pair, the closed flag. */
static void finish(int p, uint64_t ts)
{
	struct mt_rec_clock c = { .h = { .type = MT_REC_CLOCK, .size = sizeof(c),
		.aux = MT_CLOCK_END, .ts = ts }, .realtime_ns = ts, .monotonic_ns = ts };

	append(p, &c, sizeof(c), MT_FILE_CLOSED);
}

/* One view into buf (NULL: /dev/null), incremental or whole; seconds. */
static double view(struct mt_pipe_live *l, const struct mt_pipe_opts *o,
		   char **buf)
{
	size_t len;
	FILE *out = buf ? open_memstream(buf, &len) : fopen("/dev/null", "w");
	struct mt_err err = { { 0 } };
	double t0 = now_s();
	enum mt_status s = l ? mt_pipe_live_view(l, &mt_sink_watch, out, &err) :
		mt_pipe_run(o, &mt_sink_watch, out, &err);
	double t = now_s() - t0;

	if (s) {
		fprintf(stderr, "bench_watch: %s\n", err.msg);
		exit(2);
	}
	fclose(out);
	return t;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int check(const struct mt_pipe_opts *o)
{
	struct mt_pipe_live *l;
	struct mt_err err = { { 0 } };
	const struct mt_pipe_live_stats *st;
	char *first = NULL, *second = NULL, killed[64];
	int p = nproc / 2, bad = 0;

	if (mt_pipe_live_new(o, &l, &err))
		return fprintf(stderr, "bench_watch: %s\n", err.msg), 2;
	view(l, o, &first);
	publish(p, 4242, 1000000);
	finish(p + 1, 1000001);
	view(l, o, &second);
	snprintf(killed, sizeof(killed), " %d left by a kill", nproc - 1);
	if (!strstr(second, killed))
		bad = fprintf(stderr, "FAIL: the file closed between the views is "
			      "still left by a kill in the second:\n%s", second);
	st = mt_pipe_live_stats(l);
	if (strstr(first, "tag 4242"))
		bad = fprintf(stderr, "FAIL: the first view shows a receive not yet "
			      "published\n");
	if (!strstr(second, "tag 4242"))
		bad = fprintf(stderr, "FAIL: the receive published between the views "
			      "is not in the second:\n%s", second);
	if (st->full_reads != 1 || st->resumed != 1 || st->records != 2)
		bad = fprintf(stderr, "FAIL: the second view read the trace whole "
			      "(%llu whole reads, %llu read on, %llu records last)\n",
			      (unsigned long long)st->full_reads,
			      (unsigned long long)st->resumed,
			      (unsigned long long)st->records);
	if (!bad)
		printf("PASS: rank %d's receive (tag 4242) published and rank %d's "
		       "file closed between two views are in the second, which "
		       "read 2 records on\n", p, p + 1);
	free(first);
	free(second);
	mt_pipe_live_free(l);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct mt_sink_watch_opts now = { 0 };
	struct mt_pipe_opts o = { .layout = MT_TAG_LAYOUT_NONE,
				  .clock = MT_CLOCK_MODE_AUTO, .sink_arg = &now };
	double inc[MAX_ROUNDS], whole[MAX_ROUNDS], first;
	int docheck = argc > 1 && !strcmp(argv[1], "--check");
	int rounds, per;
	struct mt_pipe_live *l;
	struct mt_err err = { { 0 } };

	if (argc == 5 && !strcmp(argv[1], "--publish") && atoi(argv[3]) >= 0) {
		dir = argv[2];
		publish(atoi(argv[3]), atoi(argv[4]), 3000000);
		return 0;
	}
	argv += docheck;
	argc -= docheck;
	if (argc < 3 || argc > 5 || (nproc = atoi(argv[2])) < 2) {
		fprintf(stderr, "usage: bench_watch [--check] DIR NPROC [ROUNDS [PER_ROUND]]\n"
			"       bench_watch --publish DIR RANK TAG\n");
		return 2;
	}
	dir = argv[1];
	o.paths = (const char *const *)&dir;
	o.npaths = 1;
	if (docheck)
		return check(&o);
	rounds = argc > 3 ? atoi(argv[3]) : 5;
	per = argc > 4 ? atoi(argv[4]) : 100;
	if (rounds < 1 || rounds > MAX_ROUNDS || per < 1 || per > nproc) {
		fprintf(stderr, "bench_watch: ROUNDS 1..%d, PER_ROUND 1..NPROC\n", MAX_ROUNDS);
		return 2;
	}
	if (mt_pipe_live_new(&o, &l, &err))
		return fprintf(stderr, "bench_watch: %s\n", err.msg), 2;
	first = view(l, &o, NULL);
	printf("processes %d, first view (reads the whole trace) %.3f s\n", nproc, first);
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < per; k++)
			publish((r * per + k) % nproc, 5000 + r, 2000000 + (uint64_t)r);
		inc[r] = view(l, &o, NULL);
		whole[r] = view(NULL, &o, NULL);
		printf("round %d: %d records published; incremental view %.4f s "
		       "(%llu records read on), whole re-read %.3f s\n", r + 1, per,
		       inc[r], (unsigned long long)mt_pipe_live_stats(l)->records,
		       whole[r]);
	}
	if (mt_pipe_live_stats(l)->full_reads != 1)
		printf("warning: %llu views read the trace whole\n",
		       (unsigned long long)mt_pipe_live_stats(l)->full_reads);
	qsort(inc, (size_t)rounds, sizeof(*inc), cmp_double);
	qsort(whole, (size_t)rounds, sizeof(*whole), cmp_double);
	printf("median: incremental view %.4f s, whole re-read %.3f s "
	       "(incremental / whole %.3f)\n", inc[rounds / 2], whole[rounds / 2],
	       inc[rounds / 2] / whole[rounds / 2]);
	mt_pipe_live_free(l);
	return 0;
}
