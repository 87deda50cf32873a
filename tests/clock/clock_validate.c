/*
 * clock_validate - validates the clock correction against a known truth.
 *
 * Takes an event graph on one true clock (synthetic, clock_synth.c), puts
 * per-host offsets, drifts, CLOCK_REALTIME errors and jitter on a copy,
 * corrects the copy with mt_clock_correct and compares it with the truth:
 * clock-condition violations after correction, absolute timestamp error
 * (median and max, against 0.1 and 0.5 of the smallest true one-way latency
 * of the run) and the change of local intervals (under 1%). The corrected
 * times are on the reference domain's clock, so the truth is compared on
 * that clock too: the only free choice a correction has.
 *
 * Without options it runs a suite of runs and exits 1 if any misses a target.
 * With --messages it takes the event graph of a real run instead: the
 * matched messages of `msgtrace messages --csv` on a one-host trace, whose
 * times are the truth (one clock). A real run's latencies are not the
 * synthetic graphs' (dense, the same law all along): a loaded stretch
 * leaves only slow messages, so the lines consistent with the data fan out
 * there and beyond, and half the smallest latency of the run is no longer
 * something any correction can promise (clock_band.h). There the maximum
 * error is checked per event instead, against the larger of 0.5 of the
 * smallest latency and the band's reach at that event: how far from the
 * truth the farthest linear correction making no message between the
 * domain and its reference shorter than their smallest true latency (less
 * twice the jitter put on the times: each delay carries two events') lies,
 * plus the event's own jitter. The widest-gap line is always within that
 * reach; the linear stage's drift prior can move its line beyond it: over
 * 110 recorded ping-pong graphs and 30 perturbation seeds each, up to 1.4
 * times the reach where the 0.5 floor absorbed it, and once (of 3300) 1.10
 * times a target set by the reach, a miss that is the estimator's. With
 * more than two domains the least-squares combination of pairs decides a
 * domain's line, not its direct pair alone, and only the direct pair's
 * band is taken: not checked beyond two ranks. Likewise the median error
 * is held to the larger of 0.1 of the smallest latency and the median of
 * the events' reaches: the synthetic graphs' latencies are the same law
 * both ways, a real run's are not (one direction's fastest messages were
 * up to 1.7 us slower than the other's here), and half that difference is
 * an offset error no data can reveal, at every event of the domain.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock_band.h"
#include "clock_csv.h"
#include "clock_synth.h"

struct figures {
	uint64_t events, msgs;
	uint32_t domains;
	uint64_t viol_before, viol_linear, viol_after;
	int64_t lat_min;
	int64_t err_median, err_max;
	double interval_change, interval_max;
	/* --messages: the per-event max-error targets (see the header) */
	int banded;
	double worst;			/* largest error / target */
	int64_t worst_err, worst_target, worst_t;
	int64_t max_err_seen, max_target, max_t; /* the err_max event's */
	uint64_t wide;			/* events whose target exceeds 0.5 latmin */
	uint64_t open;			/* events the messages leave unbounded */
	double median_target;		/* 0.1 latmin, or the median reach */
	int64_t target_max;		/* largest finite target */
	struct mt_clock_result res;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Per domain mapped onto another (its reference), the band its messages
 * with the reference leave (clock_band.h), for the smallest true latency
 * between the two less twice the jitter (each delay carries two events'):
 * b[d].bounded 0 for the references and for domains that do not exchange
 * messages both ways with theirs. */
static int domain_bands(const struct synth *s, const struct mt_clock_result *r,
			int64_t jitter, struct band *b)
{
	struct band_msg *m = malloc((s->nm + 1) * sizeof(*m));

	if (!m)
		return -1;
	for (uint32_t d = 0; d < r->ndomains; d++) {
		uint32_t ref = r->domains[d].ref;
		int64_t lmin = INT64_MAX;
		uint64_t n = 0;

		memset(&b[d], 0, sizeof(b[d]));
		if (ref == d)
			continue;
		for (uint64_t i = 0; i < s->nm; i++) {
			const struct mt_clock_msg *x = &s->msgs[i];
			uint32_t ds = r->proc_domain[x->send_proc];
			uint32_t dr = r->proc_domain[x->recv_proc];
			int64_t ts = s->t[x->send_proc][x->send_ev];

			if (!(ds == d && dr == ref) && !(ds == ref && dr == d))
				continue;
			m[n] = (struct band_msg){
				ts, s->t[x->recv_proc][x->recv_ev] - ts, dr == d };
			lmin = m[n].lat < lmin ? m[n].lat : lmin;
			n++;
		}
		if (n && band_build(m, n, (double)(lmin - 2 * jitter), &b[d])) {
			while (d--)
				band_free(&b[d]);
			free(m);
			return -1;
		}
	}
	free(m);
	return 0;
}

/* How far from the truth the band of domain d's messages with its
 * reference reaches at time t, plus the event's own jitter and rounding:
 * that jitter alone in a reference domain, INFINITY where the band is
 * open. */
static double reach(const struct figures *f, const struct band *b, uint32_t d,
		    int64_t t, int64_t jitter)
{
	double lo, hi;

	if (f->res.domains[d].ref == d)
		return (double)jitter + 1;
	band_at(&b[d], t, &lo, &hi);
	return fmax(hi, -lo) + (double)jitter + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Errors and intervals; with jitter >= 0 also the per-event targets of a
 * real run (banded). */
static int compare(const struct synth *s, const struct perturbed *pt,
		   int64_t *const *out, int64_t jitter, struct figures *f)
{
	const struct mt_clock_result *r = &f->res;
	int64_t *err = malloc((f->events + 1) * sizeof(*err));
	double *reaches = malloc((f->events + 1) * sizeof(*reaches));
	struct band *b = calloc(r->ndomains + 1, sizeof(*b));
	uint64_t k = 0;
	double changed = 0, length = 0;

	f->banded = jitter >= 0;
	if (!err || !reaches || !b || (f->banded && domain_bands(s, r, jitter, b))) {
		free(err);
		free(reaches);
		free(b);
		return -1;
	}
	f->interval_max = 0;
	for (uint32_t p = 0; p < s->np; p++) {
		uint32_t d = r->proc_domain[p];
		uint32_t ref = r->domains[r->domains[d].ref].first_proc;

		for (uint64_t j = 0; j < s->n[p]; j++) {
			err[k] = llabs(out[p][j] - llround(perturbed_clock(pt, ref, s->t[p][j])));
			if (f->banded) {
				double want = fmax(0.5 * (double)f->lat_min,
						   reaches[k] = reach(f, b, d, s->t[p][j], jitter));

				f->wide += want > 0.5 * (double)f->lat_min;
				if (isinf(want))
					f->open++;
				else if (want > (double)f->target_max)
					f->target_max = (int64_t)want;
				if (err[k] >= f->max_err_seen) {
					f->max_err_seen = err[k];
					f->max_target = isinf(want) ? INT64_MAX : (int64_t)want;
					f->max_t = s->t[p][j];
				}
				if ((double)err[k] / want > f->worst) {
					f->worst = (double)err[k] / want;
					f->worst_err = err[k];
					f->worst_target = (int64_t)want;
					f->worst_t = s->t[p][j];
				}
			}
			k++;
			if (!j)
				continue;
			double want = (double)(s->t[p][j] - s->t[p][j - 1]);
			double d = fabs((double)(out[p][j] - out[p][j - 1]) - want);

			changed += d;
			length += want;
			if (want >= MT_CLOCK_LONG_INTERVAL_NS && d / want > f->interval_max)
				f->interval_max = d / want;
		}
	}
	for (uint32_t d = 0; f->banded && d < r->ndomains; d++)
		band_free(&b[d]);
	free(b);
	qsort(err, k, sizeof(*err), cmp_i64);
	f->err_median = k ? err[k / 2] : 0;
	if (f->banded && k) {
		qsort(reaches, k, sizeof(*reaches), cmp_double);
		f->median_target = fmax(0.1 * (double)f->lat_min, reaches[k / 2]);
	}
	free(reaches);
	f->err_max = k ? err[k - 1] : 0;
	f->interval_change = length > 0 ? changed / length : 0;
	free(err);
	return 0;
}

static int verbose;

/* What the correction estimated next to what was applied: a domain's
 * offset against its reference at res.t0 is the difference of their clocks
 * there. */
static void explain(const struct mt_clock_result *r, const struct perturbed *pt)
{
	for (uint32_t d = 0; d < r->ndomains; d++) {
		const struct mt_clock_domain *dm = &r->domains[d];
		uint32_t p = dm->first_proc, q = r->domains[dm->ref].first_proc;
		double at = (double)(r->t0 - pt->t_start) * 1e-6;

		printf("  domain %u (proc %u, ref %u, est %d): offset %.0f +- %.0f ns (true %.0f), drift %.3f +- %.3f ppm (true %.3f), gamma %.5f\n",
		       d, p, dm->ref, (int)dm->est, dm->offset_ns, dm->offset_sd_ns,
		       pt->offset_ns[p] - pt->offset_ns[q] +
		       (pt->drift_ppm[p] - pt->drift_ppm[q]) * at, dm->drift_ppm,
		       dm->drift_sd_ppm, pt->drift_ppm[p] - pt->drift_ppm[q], dm->gamma);
	}
	for (uint32_t k = 0; k < r->nlinks; k++)
		printf("  link %u->%u: %llu msgs, lmin %lld ns (src %d)\n",
		       r->links[k].from, r->links[k].to,
		       (unsigned long long)r->links[k].msgs,
		       (long long)r->links[k].lmin_ns, (int)r->links[k].src);
	printf("  jumps %llu, clc moved %llu (max %lld, median %lld ns), total max %lld median %lld ns\n",
	       (unsigned long long)r->jumps, (unsigned long long)r->clc_moved,
	       (long long)r->clc_max_ns, (long long)r->clc_median_ns,
	       (long long)r->corr_max_ns, (long long)r->corr_median_ns);
}

/* Perturbs, corrects and compares one event graph. */
static int run_one(const struct synth *s, const struct perturb_cfg *pc,
		   enum mt_clock_mode mode, int banded, struct figures *f)
{
	struct perturbed pt;
	struct mt_clock_proc *procs = calloc(s->np, sizeof(*procs));
	int64_t **out = calloc(s->np, sizeof(*out));
	struct mt_err err = { "" };
	int rc = -1;

	memset(f, 0, sizeof(*f));
	if (!procs || !out || synth_perturb(s, pc, &pt)) {
		free(procs);
		free(out);
		fprintf(stderr, "clock_validate: out of memory\n");
		return -1;
	}
	synth_procs(s, &pt, procs);
	for (uint32_t p = 0; p < s->np; p++) {
		out[p] = malloc((s->n[p] + 1) * sizeof(int64_t));
		if (!out[p])
			goto done;
		f->events += s->n[p];
	}
	if (mt_clock_correct(mode, NULL, s->np, procs, s->nm, s->msgs, out,
			     &f->res, &err) != MT_OK) {
		fprintf(stderr, "clock_validate: %s\n", err.msg);
		goto done;
	}
	if (verbose)
		explain(&f->res, &pt);
	f->msgs = s->nm;
	f->domains = f->res.ndomains;
	f->viol_before = f->res.viol_before;
	f->viol_linear = f->res.viol_linear;
	f->viol_after = f->res.viol_after;
	f->lat_min = s->lat_min_ns;
	rc = compare(s, &pt, out, banded ? pc->jitter_ns : -1, f);
	mt_clock_result_free(&f->res);
done:
	for (uint32_t p = 0; p < s->np; p++)
		free(out[p]);
	free(out);
	free(procs);
	perturbed_free(s, &pt);
	return rc;
}

/* All targets; with a wandering clock (not a linear error) only those a
 * correction can promise without a reference clock: causality restored,
 * local intervals kept within 1% overall. A real run's maximum error is
 * checked per event (banded: see the header). */
static int check(const struct figures *f, int wander)
{
	if (wander)
		return f->viol_after == 0 && f->interval_change < 0.01;
	return f->viol_after == 0 &&
	       (double)f->err_median < (f->banded ? f->median_target :
					0.1 * (double)f->lat_min) &&
	       (f->banded ? f->worst < 1 :
		(double)f->err_max < 0.5 * (double)f->lat_min) &&
	       f->interval_change < 0.01 && f->interval_max < 0.01;
}

static void header(void)
{
	printf("%-22s %8s %7s %3s %21s %7s %8s %8s %8s %8s %s\n", "run",
	       "events", "msgs", "dom", "violations b/lin/aft", "latmin",
	       "err_med", "err_max", "intv_sum", "intv_max", "result");
}

static void row(const char *name, const struct figures *f, int ok)
{
	printf("%-22s %8llu %7llu %3u %7llu/%6llu/%6llu %7lld %8lld %8lld %7.4f%% %7.4f%% %s\n",
	       name, (unsigned long long)f->events, (unsigned long long)f->msgs,
	       f->domains, (unsigned long long)f->viol_before,
	       (unsigned long long)f->viol_linear,
	       (unsigned long long)f->viol_after, (long long)f->lat_min,
	       (long long)f->err_median, (long long)f->err_max,
	       100 * f->interval_change, 100 * f->interval_max,
	       ok ? "ok" : "MISSED");
}

static void usage(FILE *to)
{
	fprintf(to,
		"usage: clock_validate [options]\n"
		"Corrects perturbed copies of synthetic MPI-like event graphs and\n"
		"compares them with the truth. Without options: the whole suite.\n"
		"  --procs N       processes (2-64)\n"
		"  --per-host K    processes per host, sharing a clock (1)\n"
		"  --msgs M        messages, about (20000)\n"
		"  --seed S        random seed (1)\n"
		"  --offset NS     max clock offset, +- (1000000)\n"
		"  --drift PPM     max clock drift, +- (50)\n"
		"  --jitter NS     per-event timestamp noise, +- (20)\n"
		"  --wander NS     clock wander amplitude, period half the run (0)\n"
		"  --mode M        none, linear, clc, auto (clc)\n"
		"  --messages CSV  a real run's event graph instead: the output of\n"
		"                  `msgtrace messages --csv` on a one-host trace,\n"
		"                  one clock domain per rank (see --per-host)\n"
		"  --verbose       per run: each domain's estimate next to the truth,\n"
		"                  the links' minimum latencies, the CLC's work\n"
		"  --help          this text\n"
		"Targets: no violation after correction; median error < 0.1 and max\n"
		"< 0.5 of the smallest true one-way latency; local intervals changed\n"
		"by < 1%% (sum over all, and each interval of 10 us or more).\n"
		"With --wander only no violation and the 1%% sum are asserted.\n"
		"With --messages the max error is checked per event, against the\n"
		"larger of 0.5 of the smallest latency and how far from the truth\n"
		"the linear corrections the messages allow reach at that event;\n"
		"the median against the larger of 0.1 of it and the median reach.\n");
}

/* The event graph of a real run (see clock_csv.h) as a struct synth. */
static int run_csv(const char *path, uint32_t per_host,
		   const struct perturb_cfg *pc, enum mt_clock_mode mode)
{
	struct mt_clock_times *m;
	struct mt_clock_graph g;
	struct mt_err err = { "" };
	struct figures f;
	uint64_t n;
	uint32_t np;
	char why[512];
	int ok = 0;

	if (clock_csv_read(path, &m, &n, &np, why, sizeof(why))) {
		fprintf(stderr, "clock_validate: %s\n", why);
		return 1;
	}
	if (mt_clock_graph_build(np, m, n, &g, &err) != MT_OK) {
		fprintf(stderr, "clock_validate: %s: %s\n", path, err.msg);
		free(m);
		return 1;
	}
	struct synth s = {
		.np = np, .n = g.nevents, .t = g.t, .nm = g.nmsgs,
		.msgs = g.msgs, .lat_min_ns = INT64_MAX,
		.host = calloc(np + 1, sizeof(*s.host)),
	};

	for (uint32_t p = 0; s.host && p < np; p++)
		snprintf(s.host[p], sizeof(s.host[p]), "node%u", p / per_host);
	for (uint64_t i = 0; i < s.nm; i++) {
		int64_t d = s.t[s.msgs[i].recv_proc][s.msgs[i].recv_ev] -
			    s.t[s.msgs[i].send_proc][s.msgs[i].send_ev];

		s.lat_min_ns = d < s.lat_min_ns ? d : s.lat_min_ns;
	}
	if (!s.host || np < 2 || !s.nm || s.lat_min_ns <= 0) {
		fprintf(stderr, "clock_validate: %s: %s\n", path,
			!s.host ? "out of memory" :
			s.lat_min_ns <= 0 ? "a message is received before it is sent: not one clock" :
			"needs messages between at least two ranks");
	} else if (!run_one(&s, pc, mode, 1, &f)) {
		int64_t t1 = INT64_MAX;	/* the run's first event */

		for (uint32_t p = 0; p < np; p++)
			t1 = s.n[p] && s.t[p][0] < t1 ? s.t[p][0] : t1;
		ok = check(&f, pc->wander_ns > 0);
		header();
		row(strrchr(path, '/') ? strrchr(path, '/') + 1 : path, &f, ok);
		printf("median error against the larger of 0.1 latmin and the median "
		       "reach: %lld ns against %.0f ns\n", (long long)f.err_median,
		       f.median_target);
		printf("max error per event: err_max %lld ns at %.6f s against a target "
		       "of %lld ns; the closest, %lld ns against %lld ns (%.2f of it) at "
		       "%.6f s; targets above 0.5 latmin at %llu of %llu events "
		       "(largest %lld ns), unbounded at %llu\n",
		       (long long)f.max_err_seen, (double)(f.max_t - t1) * 1e-9,
		       (long long)f.max_target,
		       (long long)f.worst_err, (long long)f.worst_target, f.worst,
		       (double)(f.worst_t - t1) * 1e-9,
		       (unsigned long long)f.wide, (unsigned long long)f.events,
		       (long long)f.target_max, (unsigned long long)f.open);
	}
	free(s.host);
	mt_clock_graph_free(&g);
	free(m);
	return ok ? 0 : 1;
}

struct run_spec {
	uint32_t procs, per_host;
	uint64_t msgs, seed;
	double wander_ns;
};

/* The targets' scenario (offset, drift, jitter), then clocks that also
 * wander by a few microseconds: violations survive the linear map there
 * and the CLC has to remove them. */
static const struct run_spec suite[] = {
	{ 8, 1, 20000, 1, 0 }, { 8, 1, 20000, 2, 0 }, { 8, 1, 20000, 3, 0 },
	{ 4, 1, 10000, 4, 0 }, { 8, 2, 20000, 5, 0 }, { 6, 3, 20000, 6, 0 },
	{ 5, 1, 20000, 7, 0 }, { 8, 4, 40000, 8, 0 },
	{ 32, 4, 100000, 9, 0 }, { 64, 1, 300000, 10, 0 },
	{ 8, 1, 20000, 11, 2000 }, { 8, 2, 20000, 12, 3000 },
	{ 4, 1, 20000, 13, 5000 },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "procs", required_argument, NULL, 'p' },
		{ "per-host", required_argument, NULL, 'k' },
		{ "msgs", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "offset", required_argument, NULL, 'o' },
		{ "drift", required_argument, NULL, 'd' },
		{ "jitter", required_argument, NULL, 'j' },
		{ "wander", required_argument, NULL, 'w' },
		{ "messages", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "mode", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct synth_cfg sc;
	struct perturb_cfg pc = {
		.max_offset_ns = 1e6, .max_drift_ppm = 50, .jitter_ns = 20,
		.ntp_ns = 500000,
	};
	enum mt_clock_mode mode = MT_CLOCK_MODE_CLC;
	const char *csv = NULL;
	int custom = 0, failed = 0, opt;

	synth_cfg_default(&sc);
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		custom |= opt != 'M' && opt != 'o' && opt != 'd' && opt != 'j' &&
			  opt != 'w' && opt != 'v';
		switch (opt) {
		case 'p': sc.nprocs = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'k': sc.per_host = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'm': sc.msgs = strtoull(optarg, NULL, 0); break;
		case 's': sc.seed = strtoull(optarg, NULL, 0); break;
		case 'o': pc.max_offset_ns = strtod(optarg, NULL); break;
		case 'd': pc.max_drift_ppm = strtod(optarg, NULL); break;
		case 'j': pc.jitter_ns = strtoll(optarg, NULL, 0); break;
		case 'w': pc.wander_ns = strtod(optarg, NULL); break;
		case 'f': csv = optarg; break;
		case 'v': verbose = 1; break;
		case 'M':
			if (mt_clock_mode_parse(optarg, &mode) != MT_OK) {
				fprintf(stderr, "clock_validate: --mode %s: expected none, linear, clc or auto\n",
					optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || sc.nprocs < 2 || sc.nprocs > 64 || sc.per_host < 1 ||
	    !sc.msgs || pc.jitter_ns < 0 || !(pc.max_offset_ns >= 0) ||
	    !(pc.max_drift_ppm >= 0) || !(pc.wander_ns >= 0)) {
		usage(stderr);
		return 2;
	}
	if (csv) {
		pc.seed = sc.seed * 7919 + 1;
		return run_csv(csv, sc.per_host, &pc, mode);
	}
	header();
	for (size_t i = 0; i < (custom ? 1 : sizeof(suite) / sizeof(suite[0])); i++) {
		struct synth s;
		struct figures f;
		char name[64];

		if (!custom) {
			sc.nprocs = suite[i].procs;
			sc.per_host = suite[i].per_host;
			sc.msgs = suite[i].msgs;
			sc.seed = suite[i].seed;
			pc.wander_ns = suite[i].wander_ns;
		}
		pc.seed = sc.seed * 7919 + 1;
		snprintf(name, sizeof(name), "p%u/h%u/seed%llu%s", sc.nprocs,
			 sc.per_host, (unsigned long long)sc.seed,
			 pc.wander_ns > 0 ? "/wander" : "");
		if (synth_generate(&sc, &s) || run_one(&s, &pc, mode, 0, &f)) {
			fprintf(stderr, "clock_validate: %s: could not run\n", name);
			return 1;
		}
		int ok = check(&f, pc.wander_ns > 0);

		row(name, &f, ok);
		failed += !ok;
		synth_free(&s);
	}
	return failed ? 1 : 0;
}
