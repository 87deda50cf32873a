/*
 * mt_clock.h - clock correction (library mt_clock): a stage of its own, run
 * after matching.
 *
 * Input is plain arrays, so any front end can feed it: per process, its
 * event timestamps (ns on its own clock, sorted) and what it knows about that
 * clock (host, clock source, CLOCK_REALTIME calibration pairs); the messages
 * as (send process, send event, receive process, receive event). Output is a
 * corrected copy of every timestamp, in the caller's arrays of the same shape,
 * and a report. It never rewrites its input.
 *
 * Stages, each optional (enum mt_clock_mode):
 *  1. Domains: processes on one host with the same clock source share a
 *     clock. That is checked on the data: a domain whose internal messages
 *     arrive before they leave (beyond opts.noise_ns) is split into one
 *     domain per process.
 *  2. Linear: per domain an offset and drift onto a reference domain (the
 *     largest), from the lower envelopes of one-way delays between domains
 *     exchanging messages both ways and from the CLOCK_REALTIME calibration
 *     pairs (NTP-grade), combined over all pairs by weighted least squares,
 *     each weighted by how tightly it bounds offset and drift. A pair's
 *     drift comes from its messages only where they rule out the drift held
 *     without them (the CLOCK_REALTIME relation, else none); no offset is
 *     left outside the interval the round trips bound.
 *  3. CLC, the controlled logical clock (Becker, Rabenseifner, Wolf 2007):
 *     a receive moves to at least its send plus the minimum latency measured
 *     for that pair of domains; forward amortization with gamma < 1; backward
 *     amortization with a bounded slope that never pushes a send past its
 *     receive minus the minimum latency; strictly increasing per process.
 * Cost is linear in events and messages, plus a dense solve over domains
 * and, per CLC jump of delta, the events within delta / opts.slope before it.
 *
 * It must not know trace files, tag layouts or libfabric: it sees plain
 * arrays, and matched messages (mt_match.h) only in the bridging helpers at
 * the end of this header. Prints nothing; returns an mt_status.
 */
#ifndef MT_CLOCK_H
#define MT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "mt_match.h"
#include "mt_status.h"

enum mt_clock_mode {
	MT_CLOCK_MODE_NONE,	/* copy timestamps, only measure violations */
	MT_CLOCK_MODE_LINEAR,	/* domains + linear offset/drift */
	MT_CLOCK_MODE_CLC,	/* domains + linear + controlled logical clock */
	MT_CLOCK_MODE_AUTO,	/* each stage only where the data needs it */
};

/* "none", "linear", "clc", "auto". */
const char *mt_clock_mode_name(enum mt_clock_mode m);
/* Parses a mode name; MT_ERR_ARG for anything else. */
enum mt_status mt_clock_mode_parse(const char *s, enum mt_clock_mode *out);

/* One calibration pair: the process's clock and CLOCK_REALTIME, both in ns. */
struct mt_clock_cal {
	int64_t local_ns;
	int64_t realtime_ns;
};

struct mt_clock_proc {
	const char *host;		/* processes on one host may share a clock */
	uint32_t clock_source;		/* enum mt_clock_source, 0 if unknown */
	uint32_t ncal;			/* calibration pairs (start, extend, end) */
	const struct mt_clock_cal *cal;
	uint64_t nevents;
	const int64_t *t;		/* event timestamps, ns, non-decreasing */
};

/* A message: the send event happened before the receive event. */
struct mt_clock_msg {
	uint32_t send_proc;
	uint32_t recv_proc;
	uint64_t send_ev;		/* index into procs[send_proc].t */
	uint64_t recv_ev;		/* index into procs[recv_proc].t */
};

struct mt_clock_opts {
	double gamma;		/* forward amortization rate, < 1 (0.999) */
	double slope;		/* backward amortization: max jump/interval (0.005) */
	int64_t noise_ns;	/* tolerated reversal inside a shared clock (100) */
	int64_t realtime_sd_ns;	/* CLOCK_REALTIME error between hosts (NTP, 1 ms) */
	double drift_prior_ppm;	/* a clock's drift from true time, sd (100) */
	int64_t lmin_default_ns; /* minimum latency when nothing measures it (1000) */
	uint32_t windows;	/* time windows of the delay envelopes (128) */
};

void mt_clock_opts_default(struct mt_clock_opts *o);

/* How a domain's linear map was obtained. */
enum mt_clock_est {
	MT_CLOCK_EST_REF,	/* the reference domain of its component */
	MT_CLOCK_EST_MESSAGES,	/* one-way delay envelopes (maybe with calibration) */
	MT_CLOCK_EST_REALTIME,	/* CLOCK_REALTIME calibration pairs only */
	MT_CLOCK_EST_NONE,	/* no information: left as recorded */
};

/* "reference", "messages", "realtime", "none". */
const char *mt_clock_est_name(enum mt_clock_est e);

struct mt_clock_domain {
	uint32_t first_proc;		/* lowest process index in the domain */
	uint32_t nprocs;
	int split;			/* declared shared, failed the data check */
	enum mt_clock_est est;
	uint32_t ref;			/* reference domain it was mapped onto */
	/* local clock minus reference clock at mt_clock_result.t0, and the
	 * drift of the local clock against the reference: corrected time is
	 * t - (offset_ns + drift_ppm * 1e-6 * (t - t0)). Standard deviations;
	 * the offset's includes the latency asymmetry no data can reveal (a
	 * uniform error over the tightest minimum-latency band). */
	double offset_ns, offset_sd_ns;
	double drift_ppm, drift_sd_ppm;
	double gamma;			/* forward amortization rate used */
	uint64_t intra_msgs;		/* messages inside the declared domain */
	uint64_t intra_violations;	/* ... received more than noise_ns early */
	/* How well the processes of a domain that held agree: for each pair
	 * of them with messages both ways at latency (the fastest each way
	 * within twice the domain's fastest), half the difference of the
	 * smallest delays each way estimates b's clock minus a's (exact when
	 * the fastest message each way took as long), and the data bound it
	 * to [agree_lo_ns, agree_hi_ns] (minus the smallest delay b -> a,
	 * plus the smallest a -> b). The pair with the largest estimate;
	 * agree_pairs 0: no pair measured both ways. */
	uint32_t agree_pairs;
	uint32_t agree_a, agree_b;
	double agree_ns;
	int64_t agree_lo_ns, agree_hi_ns;
};

/* Minimum one-way latency used by the CLC for messages from one domain to
 * another (from == to: inside a domain). */
enum mt_clock_lat_src {
	MT_CLOCK_LAT_SAME_CLOCK,	/* measured on one clock: exact */
	MT_CLOCK_LAT_ROUND_TRIP,	/* measured both ways: symmetric estimate */
	MT_CLOCK_LAT_CLASS,		/* smallest measured for its class */
	MT_CLOCK_LAT_DEFAULT,		/* opts.lmin_default_ns */
};

/* "same_clock", "round_trip", "class", "default". */
const char *mt_clock_lat_src_name(enum mt_clock_lat_src s);

struct mt_clock_link {
	uint32_t from, to;		/* domains */
	uint64_t msgs;
	int64_t lmin_ns;
	enum mt_clock_lat_src src;
};

#define MT_CLOCK_LONG_INTERVAL_NS 10000

/* Times the correction works on, recorded and after the linear map, stay
 * within +-MT_CLOCK_TIME_LIMIT ns (73 years; CLOCK_REALTIME reaches it in
 * 2043): its int64 arithmetic adds and subtracts pairs of them. Larger ones
 * come from corrupt records or calibrations. */
#define MT_CLOCK_TIME_LIMIT (INT64_C(1) << 61)
#define MT_CLOCK_NOPROC UINT32_MAX	/* process not known */

struct mt_clock_result {
	enum mt_clock_mode mode;	/* as asked */
	int linear_done, clc_done;	/* what ran (AUTO decides) */
	int64_t t0;			/* time the offsets refer to */
	uint64_t nevents, nmsgs;
	uint32_t ndomains;
	struct mt_clock_domain *domains;
	uint32_t *proc_domain;		/* per process: its domain */
	uint32_t nlinks;
	struct mt_clock_link *links;
	/* Clock-condition violations: receive not after its send. */
	uint64_t viol_before, viol_linear, viol_after;
	/* CLC: receives moved forward, and cycles in the message graph whose
	 * constraint had to be dropped (a matching error upstream). */
	uint64_t jumps, cycles_broken;
	/* |corrected - recorded| over all events, and |CLC - linear| over the
	 * events the CLC moved. Medians are within 1/64 relative. */
	int64_t corr_max_ns, corr_median_ns;
	int64_t clc_max_ns, clc_median_ns;
	uint64_t clc_moved;
	/* Local intervals (consecutive events of a process), corrected against
	 * recorded: sum |change| / sum length, and the largest relative change
	 * among intervals of at least MT_CLOCK_LONG_INTERVAL_NS. */
	double interval_change, interval_max_change;
	/* With MT_ERR_CORRUPT: the process whose linear map moved a time
	 * beyond +-MT_CLOCK_TIME_LIMIT, MT_CLOCK_NOPROC when no one process
	 * is at fault (the solve found no consistent offsets and drifts). */
	uint32_t corrupt_proc;
};

/*
 * Corrects the timestamps of nprocs processes linked by nmsgs messages into
 * out[p][0..procs[p].nevents) (caller-allocated; may not alias the input).
 * opts NULL means defaults. On success res holds the report; free it with
 * mt_clock_result_free. Errors: MT_ERR_ARG (message index out of range,
 * timestamps not sorted, bad option, 2^32 or more messages or events in a
 * process), MT_ERR_CORRUPT (a linear map that moves a time beyond
 * +-MT_CLOCK_TIME_LIMIT, or no consistent linear maps at all:
 * res->corrupt_proc says whose, if one's) and MT_ERR_NOMEM,
 * with err naming the process, event or message at fault.
 */
enum mt_status mt_clock_correct(enum mt_clock_mode mode,
				const struct mt_clock_opts *opts,
				uint32_t nprocs, const struct mt_clock_proc *procs,
				uint64_t nmsgs, const struct mt_clock_msg *msgs,
				int64_t *const *out, struct mt_clock_result *res,
				struct mt_err *err);

void mt_clock_result_free(struct mt_clock_result *res);

/*
 * From matched messages to the input above and back. A message has up to
 * four times, each an event of the sender or the receiver; the clock
 * condition links its send post to its receive completion.
 */
#define MT_CLOCK_NOTIME INT64_MIN	/* time not recorded */

enum mt_clock_when {
	MT_CLOCK_SEND_POST, MT_CLOCK_SEND_DONE,	/* events of send_proc */
	MT_CLOCK_RECV_POST, MT_CLOCK_RECV_DONE,	/* events of recv_proc */
	MT_CLOCK_WHEN_COUNT
};

struct mt_clock_times {
	uint32_t send_proc, recv_proc;	/* or MT_CLOCK_NOPROC */
	int64_t t[MT_CLOCK_WHEN_COUNT];	/* ns, or MT_CLOCK_NOTIME */
};

struct mt_clock_graph {
	uint32_t nprocs;
	uint64_t *nevents;		/* per process */
	int64_t **t;			/* per process, sorted: mt_clock_proc.t */
	uint64_t nmsgs;
	struct mt_clock_msg *msgs;	/* send post -> receive completion */
	uint32_t (*ev)[MT_CLOCK_WHEN_COUNT]; /* per input message: event
					      * index of each time, or
					      * UINT32_MAX */
};

/* Builds the per-process event arrays of n messages among nprocs
 * processes. MT_ERR_ARG names a message whose process is >= nprocs, or a
 * process of 2^32 - 1 events or more. */
enum mt_status mt_clock_graph_build(uint32_t nprocs,
				    const struct mt_clock_times *m, uint64_t n,
				    struct mt_clock_graph *g, struct mt_err *err);
/* Copies corrected event times (out, shaped like g->t) back into m. */
void mt_clock_graph_apply(const struct mt_clock_graph *g, int64_t *const *out,
			  struct mt_clock_times *m, uint64_t n);
void mt_clock_graph_free(struct mt_clock_graph *g);

/* A matched message's times as clock input (rank = process; a rank that
 * is -1 or >= nprocs becomes MT_CLOCK_NOPROC), and corrected times back into
 * the message (unknown times stay as they are). */
void mt_clock_times_of_msg(const struct mt_match_msg *m, uint32_t nprocs,
			   struct mt_clock_times *t);
void mt_clock_times_to_msg(const struct mt_clock_times *t, struct mt_match_msg *m);

/* The stage on n messages' times, corrected in place (graph build,
 * mt_clock_correct, apply; where no time moves, the same report from the
 * times alone, without the graph): for callers that keep only these 40
 * bytes per message. procs and res as for mt_clock_correct_msgs. */
enum mt_status mt_clock_correct_times(enum mt_clock_mode mode,
				      const struct mt_clock_opts *opts,
				      uint32_t nprocs,
				      const struct mt_clock_proc *procs,
				      struct mt_clock_times *t, size_t n,
				      struct mt_clock_result *res,
				      struct mt_err *err);

/*
 * The stage while no time moves, message by message, without keeping the
 * messages' times: mt_clock_correct_times's result where it would leave
 * every time as recorded (auto on one declared clock domain that holds,
 * every receive after its send), from counts, extremes and each ordered
 * pair of processes' fastest message. Memory: a pair's 56 bytes, and 8 a
 * process.
 *
 * mt_clock_rest_new: MT_END when times may move whatever the messages say
 * (a mode other than auto, or more than one declared domain), out NULL:
 * the caller keeps the times instead. procs (nevents and t ignored) and
 * opts (NULL: defaults) must outlive it.
 * mt_clock_rest_add: the times of the next n messages, in the order the
 * caller would hand them to mt_clock_correct_times.
 * mt_clock_rest_finish: res as mt_clock_correct_times would give it; MT_END
 * (res empty) when times move after all, or the whole stage would refuse
 * the input: the caller runs it on every message's times, which says why.
 */
struct mt_clock_rest;

enum mt_status mt_clock_rest_new(enum mt_clock_mode mode,
				 const struct mt_clock_opts *opts,
				 uint32_t nprocs, const struct mt_clock_proc *procs,
				 struct mt_clock_rest **out);
void mt_clock_rest_add(struct mt_clock_rest *r, const struct mt_clock_times *t,
		       size_t n);
enum mt_status mt_clock_rest_finish(struct mt_clock_rest *r,
				    struct mt_clock_result *res,
				    struct mt_err *err);
void mt_clock_rest_free(struct mt_clock_rest *r);

/* Clock domains the metadata declares (stage 1 before its data check): how
 * many distinct (host, clock source) among procs, a process with no host or
 * no clock source counting alone. With one, AUTO corrects nothing unless a
 * message is received before it was sent on that one clock. */
enum mt_status mt_clock_domains_declared(uint32_t nprocs,
					 const struct mt_clock_proc *procs,
					 uint32_t *ndomains);

/*
 * The whole stage on the matcher's output: corrects the four times of n
 * messages in place (graph build, mt_clock_correct, apply). procs[r]
 * describes world rank r's clock (host, clock_source, calibration pairs on
 * the same time base as the message times); its nevents and t are ignored.
 * Times of a rank that is unknown (-1) or >= nprocs stay as they are, and
 * such messages take no part. res as for mt_clock_correct.
 */
enum mt_status mt_clock_correct_msgs(enum mt_clock_mode mode,
				     const struct mt_clock_opts *opts,
				     uint32_t nprocs,
				     const struct mt_clock_proc *procs,
				     struct mt_match_msg *m, size_t n,
				     struct mt_clock_result *res,
				     struct mt_err *err);

#endif /* MT_CLOCK_H */
