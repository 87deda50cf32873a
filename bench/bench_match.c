/*
 * bench_match.c - read + decode + match throughput of the msgtrace pipeline
 * (the same feed.c the msgtrace command uses, a sink that drops messages),
 * against the bare merge-iteration rate over the same trace in the same run.
 * Times are this thread's CPU time (events per second per core).
 *
 *   bench_match TRACEDIR     prints events/s for both and their ratio, the
 *                            peak heap in use while matching, and a last
 *                            line "result EVENTS/S MERGE-EVENTS/S RATIO
 *                            HEAP-MiB" for scripts (bench/match.sh)
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "feed.h"

/* CPU time of this thread: the target is events per second per core, and
 * the machine running the benchmark may be shared. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, enum mt_status s, const struct mt_err *e)
{
	fprintf(stderr, "bench_match: %s: %s %s\n", what, mt_status_str(s),
		e ? e->msg : "");
	exit(1);
}

/* Baseline: the reader's merge alone. Both passes stay out of line, so
 * that a profile (callgrind, perf) names each. */
__attribute__((noinline)) static uint64_t merge_only(const struct mt_trace *t, uint64_t *sum)
{
	struct mt_trace_merge *mg;
	struct mt_trace_event ev;
	struct mt_err err;
	enum mt_status s = mt_trace_merge_open(t, &mg);
	uint64_t n = 0;

	if (s)
		die("merge", s, NULL);
	while ((s = mt_trace_merge_next(mg, &ev, &err)) == MT_OK) {
		n++;
		*sum += ev.rec->type;	/* touch the record, as decoding does */
	}
	if (s != MT_END)
		die("merge", s, &err);
	mt_trace_merge_close(mg);
	return n;
}

/* Peak heap in use while matching, sampled every 2^16 events: memory
 * follows operations in flight, not the trace (which is mapped, not
 * copied). */
static size_t heap_peak;

static void heap_sample(void)
{
	struct mallinfo2 mi = mallinfo2();
	size_t h = mi.uordblks + mi.hblkhd;	/* large blocks are mmapped */

	heap_peak = h > heap_peak ? h : heap_peak;
}

__attribute__((noinline)) static uint64_t full(const struct mt_trace *t, uint64_t *msgs)
{
	struct mt_match_msg *batch;
	struct mt_trace_merge *mg;
	struct mt_match_cfg cfg;
	struct mt_match *m;
	struct feed fd;
	struct mt_err err;
	enum mt_status s;
	uint64_t n = 0;
	size_t k;

	if ((s = mt_pipe_feed_init(&fd, t, MT_TAG_LAYOUT_NONE, &err)))
		die("feed", s, &err);
	mt_pipe_feed_match_cfg(&fd, &cfg);
	if (mt_match_new(&cfg, &m) || mt_pipe_feed_attach(&fd, m))
		die("match", MT_ERR_NOMEM, NULL);
	if ((s = mt_trace_merge_open(t, &mg)))
		die("merge", s, NULL);
	do {
		s = mt_pipe_feed_read(&fd, mg, &err);
		/* In runs that end where the messages are taken (every 1024
		 * events), as the pipeline does. */
		for (size_t i = 0; i < fd.n_ev; ) {
			size_t to = i + 1024 - (n & 1023), j = i;

			if (mt_pipe_feed_events(&fd, i, to < fd.n_ev ? to : fd.n_ev, &i))
				die("match", MT_ERR_NOMEM, NULL);
			n += i - j;
			if (!(n & 1023))
				while ((k = mt_match_take_ref(m, &batch, 1024)))
					*msgs += k;
			if (!(n & 65535))
				heap_sample();
		}
	} while (s == MT_OK);
	if (s != MT_END)
		die("merge", s, &err);
	if (mt_match_finish(m))
		die("finish", MT_ERR_NOMEM, NULL);
	while ((k = mt_match_take_ref(m, &batch, 1024)))
		*msgs += k;
	if (mt_match_summary(m)->by_status[MT_MATCH_ST_MATCHED] +
	    mt_match_summary(m)->by_status[MT_MATCH_ST_CANCELLED] != *msgs)
		fprintf(stderr, "bench_match: warning: not every message matched\n");
	heap_sample();
	mt_trace_merge_close(mg);
	mt_match_free(m);
	mt_pipe_feed_fini(&fd);
	return n;
}

static double trace_mib(const struct mt_trace *t)
{
	size_t b = 0;

	for (size_t i = 0; i < t->nfiles; i++)
		b += t->files[i]->map_len;
	return (double)b / 1048576.0;
}

int main(int argc, char **argv)
{
	struct mt_trace *t;
	struct mt_err err;
	enum mt_status s;
	uint64_t sum = 0, msgs = 0, n0, n1;
	double t0, t1, t2, t3, t4;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_match TRACEDIR\n");
		return 2;
	}
	t0 = now();
	if ((s = mt_trace_open((const char *const *)argv + 1, 1, &t, &err)))
		die("open", s, &err);
	t1 = now();
	merge_only(t, &sum);		/* fault the mappings in for both runs */
	sum = 0;
	t4 = now();
	n0 = merge_only(t, &sum);
	t2 = now();
	n1 = full(t, &msgs);
	t3 = now();
	printf("open+validate   %.3f s (not in either rate)\n", t1 - t0);
	printf("merge only      %llu events in %.3f s: %.1f M events/s (baseline)\n",
	       (unsigned long long)n0, t2 - t4, (double)n0 / (t2 - t4) / 1e6);
	printf("read+decode+match %llu events, %llu messages in %.3f s: "
	       "%.1f M events/s\n", (unsigned long long)n1,
	       (unsigned long long)msgs, t3 - t2, (double)n1 / (t3 - t2) / 1e6);
	printf("peak heap in use while matching %.1f MiB (trace %.0f MiB mapped)\n",
	       (double)heap_peak / 1048576.0, trace_mib(t));
	printf("ratio to baseline %.2f (checksum %llu)\n",
	       ((double)n1 / (t3 - t2)) / ((double)n0 / (t2 - t4)),
	       (unsigned long long)sum);
	printf("result %.0f %.0f %.3f %.1f\n", (double)n1 / (t3 - t2),
	       (double)n0 / (t2 - t4), ((double)n1 / (t3 - t2)) / ((double)n0 / (t2 - t4)),
	       (double)heap_peak / 1048576.0);
	mt_trace_close(t);
	return 0;
}
