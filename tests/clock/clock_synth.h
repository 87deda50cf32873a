/*
 * clock_synth.h - synthetic MPI-like event graphs on one true clock, and
 * the clock errors to put on them, for validating and benchmarking the
 * clock correction (mt_clock_*) against a known truth. Test-side code: it
 * is linked by tests/match and bench/, never by the libraries.
 */
#ifndef MT_CLOCK_SYNTH_H
#define MT_CLOCK_SYNTH_H

#include <stdint.h>

#include "mt_clock.h"

struct synth_cfg {
	uint32_t nprocs;
	uint32_t per_host;		/* processes sharing a host (and a clock) */
	uint64_t msgs;			/* stop after about this many messages */
	uint64_t seed;
	int64_t lmin_inter_ns;		/* minimum latency between hosts */
	int64_t lmin_intra_ns;		/* ... inside a host */
	int64_t tail_mean_ns;		/* latency above the minimum: exponential */
	int64_t tail_max_ns;		/* ... cut here */
	int internal;			/* add events that are no message end */
};

/* Sensible defaults: 8 processes, one per host, 5 us + ~8 us latency. */
void synth_cfg_default(struct synth_cfg *c);

struct synth {
	uint32_t np;
	char (*host)[16];
	uint64_t *n;			/* events per process */
	int64_t **t;			/* true times, ns, strictly increasing */
	uint64_t nm;
	struct mt_clock_msg *msgs;
	int64_t lat_min_ns;		/* smallest true one-way latency */
};

/* Clock errors per host: t' = t + offset + drift (t - t_start) + wander
 * + jitter, wander a sine of random phase (drift that varies in time, what
 * a linear map cannot remove). */
struct perturb_cfg {
	double max_offset_ns;		/* offsets uniform in +-this */
	double max_drift_ppm;		/* drifts uniform in +-this */
	double wander_ns;		/* sine amplitude (0: none) */
	double wander_period_ns;	/* <= 0: half the run */
	int64_t jitter_ns;		/* per-event noise uniform in +-this */
	int64_t ntp_ns;			/* CLOCK_REALTIME error per host, +-this */
	uint64_t seed;
};

struct perturbed {
	int64_t **t;			/* perturbed times, per process */
	struct mt_clock_cal (*cal)[2];	/* start and end pairs per process */
	double *offset_ns, *drift_ppm;	/* what was applied, per process */
	double *phase;			/* wander phase per process */
	double wander_ns, wander_period_ns;
	int64_t t_start, t_end;
};

/* Process p's clock, without jitter, at true time t. */
double perturbed_clock(const struct perturbed *pt, uint32_t p, int64_t t);

/* 0 on success, -1 out of memory. */
int synth_generate(const struct synth_cfg *c, struct synth *s);
int synth_perturb(const struct synth *s, const struct perturb_cfg *c,
		  struct perturbed *out);
void synth_free(struct synth *s);
void perturbed_free(const struct synth *s, struct perturbed *p);

/* The mt_clock_correct input for perturbed times (procs[] points into s
 * and p). */
void synth_procs(const struct synth *s, const struct perturbed *p,
		 struct mt_clock_proc *procs);

#endif /* MT_CLOCK_SYNTH_H */
