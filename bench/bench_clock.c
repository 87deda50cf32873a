/*
 * bench_clock - throughput of clock correction (mt_clock_correct, CLC mode:
 * domains, linear map, controlled logical clock, report) on a generated
 * MPI-like event graph with perturbed clocks, against a baseline measured in
 * the same run: one plain pass copying every timestamp.
 *
 * usage: bench_clock [MESSAGES [PROCS]]   (default 10000000 16)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_synth.h"

/* CPU time of this (single-threaded) process: per-core figures that hold
 * on a shared machine too. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct synth_cfg sc;
	struct perturb_cfg pc = {
		.max_offset_ns = 1e6, .max_drift_ppm = 50, .jitter_ns = 20,
		.ntp_ns = 500000, .seed = 42,
		/* Clocks that also wander leave violations after the linear
		 * map, so the CLC's jumps and backward amortization are timed
		 * too, not only its forward pass. */
		.wander_ns = 3000,
	};
	struct synth s;
	struct perturbed pt;
	struct mt_clock_result res;
	struct mt_err err = { "" };
	uint64_t events = 0;
	int64_t **out;
	struct mt_clock_proc *procs;
	double t, base = 1e30, corr = 1e30;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: bench_clock [MESSAGES [PROCS]]\n"
		       "Times mt_clock_correct (clc) on a generated event graph and a\n"
		       "baseline copy of all timestamps; prints events/s and the ratio.\n");
		return 0;
	}
	synth_cfg_default(&sc);
	sc.msgs = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
	sc.nprocs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 16;
	sc.internal = 0;
	if (!sc.msgs || sc.nprocs < 2 || sc.nprocs > 64) {
		fprintf(stderr, "bench_clock: MESSAGES >= 1, 2 <= PROCS <= 64\n");
		return 2;
	}
	if (synth_generate(&sc, &s) || synth_perturb(&s, &pc, &pt)) {
		fprintf(stderr, "bench_clock: out of memory generating the graph\n");
		return 1;
	}
	procs = calloc(s.np, sizeof(*procs));
	out = calloc(s.np, sizeof(*out));
	if (!procs || !out)
		return 1;
	synth_procs(&s, &pt, procs);
	for (uint32_t p = 0; p < s.np; p++) {
		out[p] = malloc((s.n[p] + 1) * sizeof(int64_t));
		if (!out[p])
			return 1;
		memset(out[p], 0, (s.n[p] + 1) * sizeof(int64_t));	/* fault in */
		events += s.n[p];
	}
	for (int rep = 0; rep < 3; rep++) {
		t = now();
		for (uint32_t p = 0; p < s.np; p++)
			memcpy(out[p], pt.t[p], s.n[p] * sizeof(int64_t));
		t = now() - t;
		base = t < base ? t : base;
		t = now();
		if (mt_clock_correct(MT_CLOCK_MODE_CLC, NULL, s.np, procs, s.nm,
				     s.msgs, out, &res, &err) != MT_OK) {
			fprintf(stderr, "bench_clock: %s\n", err.msg);
			return 1;
		}
		t = now() - t;
		corr = t < corr ? t : corr;
		if (rep < 2)
			mt_clock_result_free(&res);
	}
	printf("graph: %u processes, %llu messages, %llu events; violations %llu -> %llu, %llu CLC jumps\n",
	       s.np, (unsigned long long)s.nm, (unsigned long long)events,
	       (unsigned long long)res.viol_before,
	       (unsigned long long)res.viol_after, (unsigned long long)res.jumps);
	printf("baseline copy:     %8.3f s  %10.1f M events/s\n", base,
	       (double)events / base / 1e6);
	printf("mt_clock_correct:  %8.3f s  %10.1f M events/s  (%.1fx the copy's time)\n",
	       corr, (double)events / corr / 1e6, corr / base);
	mt_clock_result_free(&res);
	for (uint32_t p = 0; p < s.np; p++)
		free(out[p]);
	free(out);
	free(procs);
	perturbed_free(&s, &pt);
	synth_free(&s);
	return 0;
}
