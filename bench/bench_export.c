/*
 * bench_export.c - export throughput of the msgtrace pipeline (mt_pipe_run,
 * the code `msgtrace export` runs) over one trace, three times
 * in one run: with a sink that drops the messages (the baseline: read +
 * decode + match), into the OTF2 sink, and into the Chrome JSON sink
 * (written to /dev/null). Times are this thread's CPU time, user and
 * system (the write calls count): events per second per core.
 *
 *   bench_export TRACEDIR OTF2_OUT_DIR
 *
 * Prints, per sink, trace records per second and the ratio to the
 * baseline. OTF2_OUT_DIR must not exist; it is left for the caller, who
 * can count the OTF2 records written (bench/export.sh does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mt_pipe.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The baseline sink: counts messages, keeps nothing. */
static uint64_t null_msgs;

static enum mt_status null_init(void **state, FILE *out,
				const struct mt_run *run, struct mt_err *err)
{
	(void)state, (void)out, (void)run, (void)err;
	return MT_OK;
}

static enum mt_status null_consume(void *state, const struct mt_match_msg *b,
				   size_t n, struct mt_err *err)
{
	(void)state, (void)b, (void)err;
	null_msgs += n;
	return MT_OK;
}

static uint64_t records;	/* of the last run, from its finalize */

static enum mt_status null_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum,
				    struct mt_err *err)
{
	(void)state, (void)sum, (void)err;
	records = run->events;
	return MT_OK;
}

static const struct mt_sink_ops null_sink = {
	.key = "null", .name = "null", .init = null_init, .consume = null_consume,
	.finalize = null_finalize,
};

/* Runs sink (whose finalize does not record the count: taken from the
 * baseline, the same trace) and returns its CPU seconds. */
static double timed(const char *tracedir, const struct mt_sink_ops *sink,
		    void *arg, FILE *out)
{
	const char *paths[] = { tracedir };
	struct mt_pipe_opts o = { .paths = paths, .npaths = 1,
				  .layout = MT_TAG_LAYOUT_NONE, .sink_arg = arg };
	struct mt_err err = { { 0 } };
	double t = now();

	if (mt_pipe_run(&o, sink, out, &err)) {
		fprintf(stderr, "bench_export: the %s run failed: %s\n",
			sink->name, err.msg);
		exit(1);
	}
	return now() - t;
}

int main(int argc, char **argv)
{
	double base, otf2, chrome;
	FILE *devnull;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_export TRACEDIR OTF2_OUT_DIR\n");
		return 2;
	}
	if (!(devnull = fopen("/dev/null", "w"))) {
		perror("bench_export: /dev/null");
		return 1;
	}
	base = timed(argv[1], &null_sink, NULL, stdout);
	printf("baseline (read+decode+match, null sink) %llu records, %llu "
	       "messages in %.3f s CPU: %.2f M records/s\n",
	       (unsigned long long)records, (unsigned long long)null_msgs, base,
	       (double)records / base / 1e6);
	otf2 = timed(argv[1], &mt_sink_otf2, argv[2], stdout);
	printf("OTF2 export   %.3f s CPU: %.2f M records/s, ratio to baseline %.2f\n",
	       otf2, (double)records / otf2 / 1e6, base / otf2);
	chrome = timed(argv[1], &mt_sink_chrome, NULL, devnull);
	printf("Chrome export %.3f s CPU: %.2f M records/s, ratio to baseline %.2f\n",
	       chrome, (double)records / chrome / 1e6, base / chrome);
	printf("OTF2_SECONDS %.6f\n", otf2);
	fclose(devnull);
	return 0;
}
