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
 *   bench_watch --check-calls DIR NPROC
 *       calls in progress: this process takes over rank NPROC/2 - 1's file
 *       (its writer then runs) and posts receives the way the provider
 *       records them (published before the call returns, ret stored
 *       after, or taken back on -FI_EAGAIN). A view shows a receive once
 *       its call returned, never one taken back, and reads on rather than
 *       the trace whole: exit 0, else 1 saying why.
 *   bench_watch --publish DIR RANK TAG
 *       rank RANK publishes one more receive with user tag TAG (a writer
 *       for the tests of the `msgtrace watch` command).
 *
 * A process publishes as the provider does: the record past the committed
 * end first (growing the file), then the header's committed count.
 */
#include <fcntl.h>
#include <stddef.h>
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
static int own_rank = -1;		/* the rank whose file this process took */
static char own_path[4096];

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

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Process p's file: gen_trace's name, or the one this process took. */
static const char *path_of(int p, char *buf, size_t len)
{
	if (p == own_rank)
		return own_path;
	snprintf(buf, len, "%s/bench.%d.0%s", dir, 1000 + p, MT_TRACE_SUFFIX);
	return buf;
}

/* Process p's file opened for writing, its header read into h. */
static int open_hdr(int p, struct mt_file_hdr *h)
{
	char buf[4096];
	const char *path = path_of(p, buf, sizeof(buf));
	int fd = open(path, O_RDWR);

	if (fd < 0 || pread(fd, h, sizeof(*h), 0) != sizeof(*h))
		die(path);
	return fd;
}

static void write_hdr(int fd, const struct mt_file_hdr *h)
{
	if (pwrite(fd, h, sizeof(*h), 0) != sizeof(*h) || close(fd))
		die("trace header");
}

/* Process p appends record r (size bytes) and commits it; with flags,
 * the header gets them too (MT_FILE_CLOSED: the writer closed the file).
 * Returns the record's file offset. */
static uint64_t append(int p, const void *r, size_t size, uint32_t flags)
{
	struct mt_file_hdr h;
	int fd = open_hdr(p, &h);
	uint64_t off = h.data_off + h.committed;

	if (pwrite(fd, r, size, (off_t)off) != (ssize_t)size)
		die("trace record");
	h.committed += size;
	h.capacity = h.committed;
	h.flags |= flags;
	write_hdr(fd, &h);
	return off;
}

/* Process p posts one more receive from its peer (tag, at tick ts) with
 * return value ret (MT_OP_RET_PENDING: published, the call not returned);
 * the record's file offset. */
static uint64_t post(int p, int32_t tag, uint64_t ts, int32_t ret)
{
	struct mt_rec_op o = { .h = { .type = MT_REC_OP, .size = sizeof(o),
		.aux = MT_OP_TRECV, .ts = ts }, .ep = 0x10000 + (uint64_t)p * 0x100,
		.addr = (uint64_t)up_of(p), .tag = TAG_FULL(0, tag),
		.ignore = SYNC_FULL, .context = 0x7e0000000000ull + ts, .ret = ret };

	return append(p, &o, sizeof(o), 0);
}

static void publish(int p, int32_t tag, uint64_t ts)
{
	post(p, tag, ts, 0);
}

/* This process takes over process p's file: renamed after it, and its
 * header and PROC record name it as their writer, so a reader finds the
 * writer still running (mt_trace_writer_alive). */
static void take_over(int p)
{
	char old[4096], host[64] = "";
	struct timespec now;
	struct mt_file_hdr h;
	struct mt_rec_proc pr;
	int fd = open_hdr(p, &h);

	if (pread(fd, &pr, sizeof(pr), (off_t)h.data_off) != sizeof(pr) ||
	    pr.h.type != MT_REC_PROC || gethostname(host, sizeof(host) - 1))
		die("PROC record");
	clock_gettime(CLOCK_REALTIME, &now);
	h.pid = pr.pid = (uint32_t)getpid();
	pr.start_realtime_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	memcpy(pr.hostname, host, sizeof(pr.hostname));
	if (pwrite(fd, &pr, sizeof(pr), (off_t)h.data_off) != sizeof(pr))
		die("PROC record");
	write_hdr(fd, &h);
	snprintf(own_path, sizeof(own_path), "%s/%s.%u.0%s", dir, host,
		 (unsigned)getpid(), MT_TRACE_SUFFIX);
	if (rename(path_of(p, old, sizeof(old)), own_path))
		die(own_path);
	own_rank = p;
}

/* Process p's call whose OP record is at file offset off returned ret. */
static void returned(int p, uint64_t off, int32_t ret)
{
	struct mt_file_hdr h;
	int fd = open_hdr(p, &h);

	if (pwrite(fd, &ret, sizeof(ret), (off_t)(off + offsetof(struct mt_rec_op, ret))) !=
	    sizeof(ret) || close(fd))
		die("ret");
}

/* Process p's call returned -FI_EAGAIN: counted, and its OP record (the
 * last) taken back, as mt_rec_op_again does. */
static void take_back(int p)
{
	struct mt_file_hdr h;
	int fd = open_hdr(p, &h);

	h.eagain++;
	h.committed -= sizeof(struct mt_rec_op);
	write_hdr(fd, &h);
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

/* Whether a view shows a wait with tag (" tag N,"). */
static int shows(const char *v, int tag)
{
	char pat[32];

	snprintf(pat, sizeof(pat), " tag %d,", tag);
	return strstr(v, pat) != NULL;
}

/* Views of receives whose calls are in progress (--check-calls). */
static int check_calls(const struct mt_pipe_opts *o)
{
	struct mt_pipe_live *l;
	struct mt_err err = { { 0 } };
	const struct mt_pipe_live_stats *st;
	char *v[4] = { NULL };
	int p = nproc / 2 - 1, bad = 0;
	uint64_t off;

	take_over(p);
	if (mt_pipe_live_new(o, &l, &err))
		return fprintf(stderr, "bench_watch: %s\n", err.msg), 2;
	off = post(p, 4244, 1000000, MT_OP_RET_PENDING);
	view(l, o, &v[0]);
	returned(p, off, 0);
	view(l, o, &v[1]);
	post(p, 4245, 1000001, MT_OP_RET_PENDING);
	view(l, o, &v[2]);
	take_back(p);
	post(p, 4246, 1000002, 0);
	view(l, o, &v[3]);
	if (shows(v[0], 4244))
		bad = fprintf(stderr, "FAIL: a view shows a receive whose call has "
			      "not returned:\n%s", v[0]);
	if (!shows(v[1], 4244))
		bad = fprintf(stderr, "FAIL: the receive whose call returned between "
			      "two views is not in the second:\n%s", v[1]);
	if (shows(v[2], 4245) || shows(v[3], 4245))
		bad = fprintf(stderr, "FAIL: a view shows a receive refused with "
			      "-FI_EAGAIN and taken back:\n%s%s", v[2], v[3]);
	if (!shows(v[3], 4246) || !shows(v[3], 4244))
		bad = fprintf(stderr, "FAIL: the receive posted over one taken back "
			      "is not in the next view:\n%s", v[3]);
	st = mt_pipe_live_stats(l);
	if (st->full_reads != 1)
		bad = fprintf(stderr, "FAIL: %llu views read the trace whole "
			      "(a take-back is not a new trace)\n",
			      (unsigned long long)st->full_reads);
	if (!bad)
		printf("PASS: rank %d's receives show once their calls returned, "
		       "never when taken back, in views that read on\n", p);
	for (int i = 0; i < 4; i++)
		free(v[i]);
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
	int docalls = argc > 1 && !strcmp(argv[1], "--check-calls");
	int rounds, per;
	struct mt_pipe_live *l;
	struct mt_err err = { { 0 } };

	if (argc == 5 && !strcmp(argv[1], "--publish") && atoi(argv[3]) >= 0) {
		dir = argv[2];
		publish(atoi(argv[3]), atoi(argv[4]), 3000000);
		return 0;
	}
	argv += docheck || docalls;
	argc -= docheck || docalls;
	if (argc < 3 || argc > 5 || (nproc = atoi(argv[2])) < 2) {
		fprintf(stderr, "usage: bench_watch [--check|--check-calls] DIR NPROC "
			"[ROUNDS [PER_ROUND]]\n"
			"       bench_watch --publish DIR RANK TAG\n");
		return 2;
	}
	dir = argv[1];
	o.paths = (const char *const *)&dir;
	o.npaths = 1;
	if (docheck)
		return check(&o);
	if (docalls)
		return check_calls(&o);
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
