/*
 * mt_match.h - pairs every send with its receive (msgtrace's matcher).
 *
 * Input: a stream of operations in time order, from any front end: posted
 * operations (struct mt_match_op) and their completions (struct
 * mt_match_cqe), plus endpoint registrations and closes. The caller resolves
 * fi_addr values to endpoint numbers and decodes tags into struct
 * mt_match_fields (decode/ does that for the fabric trace); this library
 * never sees trace files, libfabric objects or tag layouts, only libfabric's
 * public flag and error constants. Pairing: a posted op and its completion
 * by (process, op_context) in order; messages by key (receiving endpoint,
 * tag bits outside cfg.loose_mask, source identity), i-th send in posting
 * order with i-th receive in posting order. Output: finished messages
 * (drained in batches with mt_match_take, memory bounded by messages in
 * flight), and at the end warnings (counts with first examples), probes and
 * pending operations with their near misses. Prints nothing, does no I/O.
 *
 * The same library holds the clock-correction stage (mt_clock_*, second part
 * of this header), run after matching on the matched messages.
 */
#ifndef MT_MATCH_H
#define MT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#define MT_MATCH_NOTIME UINT64_MAX	/* time not known */
#define MT_MATCH_NOSRC UINT64_MAX	/* message carries no source identity */
#define MT_MATCH_NOEP (-1)		/* endpoint / rank not known */
#define MT_MATCH_EXAMPLES 3		/* examples kept per warning */
#define MT_MATCH_NEAR 3			/* near misses kept per pending receive */

/* Message kinds: name, CSV word. */
#define MT_MATCH_KINDS(X) \
	X(USER, "user")		/* application point-to-point */ \
	X(COLL, "coll")		/* internal (collectives: negative MPI tag) */ \
	X(SSEND, "ssend")	/* data of a synchronous send */ \
	X(SSEND_ACK, "ssend_ack") /* the ACK returned for a synchronous send */ \
	X(UNTAGGED, "untagged")	/* untagged fi_send/fi_recv protocol traffic */ \
	X(HANDSHAKE, "handshake") /* untagged: Open MPI 5's exCID exchange */

enum mt_match_kind {
#define MT_MATCH_KIND_ENUM(n, s) MT_MATCH_##n,
	MT_MATCH_KINDS(MT_MATCH_KIND_ENUM)
#undef MT_MATCH_KIND_ENUM
	MT_MATCH_KIND_COUNT
};

/* Message outcomes: name, CSV word. */
#define MT_MATCH_STATUSES(X) \
	X(MATCHED, "matched") \
	X(UNMATCHED_SEND, "unmatched_send")	/* no receive took it */ \
	X(UNMATCHED_RECV, "unmatched_recv")	/* no send found for it */ \
	X(TRUNCATED, "truncated")	/* send longer than the receive buffer */ \
	X(CANCELLED, "cancelled")	/* op cancelled (FI_ECANCELED) */ \
	X(AMBIGUOUS, "ambiguous")	/* paired by time: no source identity */

enum mt_match_status {
#define MT_MATCH_STATUS_ENUM(n, s) MT_MATCH_ST_##n,
	MT_MATCH_STATUSES(MT_MATCH_STATUS_ENUM)
#undef MT_MATCH_STATUS_ENUM
	MT_MATCH_ST_COUNT
};

/* Condensed warnings. */
#define MT_MATCH_WARNINGS(X) \
	X(SEND_NO_RECV, "send without receive") \
	X(RECV_NO_SEND, "receive without send") \
	X(RECV_BEFORE_SEND, "receive completed before its send was posted") \
	X(DONE_BEFORE_POST, "operation completed before it was posted (corrupt times)") \
	X(TRUNCATED, "send longer than the receive buffer") \
	X(AMBIGUOUS, "ambiguous pairing (no source identity)") \
	X(ORPHAN_CQE, "completion without a posted operation") \
	X(OP_ERROR, "operation failed with an error completion")

enum mt_match_warning {
#define MT_MATCH_WARN_ENUM(n, s) MT_MATCH_W_##n,
	MT_MATCH_WARNINGS(MT_MATCH_WARN_ENUM)
#undef MT_MATCH_WARN_ENUM
	MT_MATCH_W_COUNT
};

/* Tag fields the near-miss diagnosis names (masks come with the layout). */
enum mt_match_field { MT_MATCH_F_CID, MT_MATCH_F_SRC, MT_MATCH_F_PROTO,
		      MT_MATCH_F_TAG, MT_MATCH_F_COUNT };

enum mt_match_rc { MT_MATCH_OK = 0, MT_MATCH_ERR_NOMEM = -1,
		   MT_MATCH_ERR_INVAL = -2, MT_MATCH_ERR_CHECK = -3 };

struct mt_match_cfg {
	uint64_t loose_mask;	/* tag bits a receive completion may or may not
				 * report (SYNC_SEND): left out of the key */
	uint64_t ack_mask;	/* the SYNC_SEND_ACK bit: an ACK's tag is its
				 * synchronous send's with loose_mask bits
				 * replaced by these */
	uint64_t field_mask[MT_MATCH_F_COUNT]; /* 0 when the layout lacks it */
	int check;		/* keep what mt_match_check needs (tests) */
};

/* Tag fields decoded by the caller. cid/comm_src -1 when unknown. */
struct mt_match_fields {
	int64_t cid;
	int32_t comm_src;	/* sender's rank in the communicator */
	int32_t tag;		/* MPI tag, signed */
	uint8_t kind;		/* enum mt_match_kind */
	uint8_t internal;	/* the layout's internal tags (Open MPI:
				 * negative), whatever the kind: collectives
				 * also send synchronously */
	uint8_t has_tag;	/* tag is meaningful */
	uint8_t any_src;	/* receive filter: MPI_ANY_SOURCE */
};

enum mt_match_dir { MT_MATCH_DIR_SEND = 0, MT_MATCH_DIR_RECV = 1 };

/*
 * One posting call. flags: the *msg call's flags, or the endpoint's default
 * op_flags for calls without a flags argument (FI_PEEK, FI_CLAIM,
 * FI_DISCARD, FI_COMPLETION are looked at). Receives: tag/ignore are the
 * filter, peer the directed source endpoint (-1 for FI_ADDR_UNSPEC or
 * unresolved), f the filter decoded (for diagnostics). Sends: peer is the
 * destination endpoint, src_id the source identity the receiver will see
 * (MT_MATCH_NOSRC if none), f the message decoded.
 */
struct mt_match_op {
	uint64_t ts;		/* ns */
	uint64_t context;
	uint64_t tag;
	uint64_t ignore;
	uint64_t len;
	uint64_t flags;
	uint64_t src_id;
	uint64_t addr;		/* fi_addr as passed (for reports only) */
	int32_t ep;		/* endpoint number given to mt_match_add_ep */
	int32_t peer;
	uint8_t dir;		/* enum mt_match_dir */
	uint8_t tagged;		/* 0: fi_send/fi_recv family */
	uint8_t inject;		/* completes at post, never in the CQ */
	uint8_t selective;	/* FI_SELECTIVE_COMPLETION bound for this dir */
	struct mt_match_fields f;
};

/*
 * One CQ entry (or error entry). ep: an endpoint of the process that read it
 * (operations pair with completions per process by context). Receives:
 * tag/len and src_id (CQ data or tag source, by the same rule as the sends),
 * src_ep the fi_cq_readfrom source resolved (-1 if not), f decoded.
 * err: 0 or the positive FI_E* code; olen: bytes that did not fit.
 */
struct mt_match_cqe {
	uint64_t ts;
	uint64_t context;
	uint64_t flags;
	uint64_t len;
	uint64_t tag;
	uint64_t src_id;
	uint64_t olen;
	int32_t ep;
	int32_t src_ep;
	int32_t err;
	struct mt_match_fields f;
};

/* A message, or a send or receive that found no partner. */
struct mt_match_msg {
	int32_t send_rank, recv_rank;	/* world ranks, -1 unknown */
	int32_t send_ep, recv_ep;	/* -1 unknown */
	struct mt_match_fields f;	/* from the send when there is one */
	struct mt_match_fields recv_f;	/* the receive's filter (has_tag 0:
					 * MPI_ANY_TAG); zero without one */
	uint8_t status;			/* enum mt_match_status */
	uint64_t raw_tag;
	uint64_t bytes;			/* sent length, or received if no send */
	uint64_t recv_buf;		/* posted receive length */
	uint64_t t_send_post, t_send_done, t_recv_post, t_recv_done;
};

struct mt_match_warn {
	uint64_t count;
	unsigned n_examples;
	struct mt_match_msg example[MT_MATCH_EXAMPLES];
};

/* An unmatched send that misses a pending receive by one field. */
struct mt_match_near {
	struct mt_match_msg send;
	uint8_t field;			/* enum mt_match_field */
	uint8_t addr_only;		/* tag bits agree: source address differs */
};

/* An operation posted and never completed. */
struct mt_match_pending {
	struct mt_match_op op;
	int32_t rank;			/* world rank of op.ep */
	int32_t peer_rank;		/* of op.peer */
	uint8_t delivered;		/* send already paired with a receive */
	/* A waiting Ssend ACK receive whose synchronous send was received but
	 * never acknowledged: that message (claimed: taken by a probe). */
	uint8_t unacked, unacked_claimed;
	struct mt_match_msg unacked_msg;
	unsigned n_near;
	struct mt_match_near near[MT_MATCH_NEAR];
};

struct mt_match_summary {
	uint64_t ops, cqes, messages;
	uint64_t by_status[MT_MATCH_ST_COUNT];
	uint64_t probes, probe_hits, probe_misses, claims;
	struct mt_match_warn warn[MT_MATCH_W_COUNT];
	/* Pending at the end: hang suspects, and receives abandoned at a normal
	 * close with no near miss (Open MPI leaves some at finalize) or standing
	 * for handshakes (Open MPI 5's exCID receive). */
	size_t n_pending;
	struct mt_match_pending *pending;
	uint64_t abandoned_at_close, pending_delivered_sends;
};

/* Why a receive was truncated, most specific first (match_trunc.c). */
#define MT_MATCH_TRUNC_CAUSES(X) \
	X(COLLISION, "tag collision after truncation") /* send's fields differ \
		from the receive's, yet the wire tags matched */ \
	X(WILDCARD, "wildcard receive matched another stream") \
	X(BUFFER, "receive buffer too small")

enum mt_match_trunc_cause {
#define MT_MATCH_TRUNC_ENUM(n, s) MT_MATCH_TRUNC_##n,
	MT_MATCH_TRUNC_CAUSES(MT_MATCH_TRUNC_ENUM)
#undef MT_MATCH_TRUNC_ENUM
	MT_MATCH_TRUNC_COUNT
};

struct mt_match;

const char *mt_match_trunc_cause_str(unsigned cause);
/* The most likely cause of a message with status MT_MATCH_ST_TRUNCATED. */
enum mt_match_trunc_cause mt_match_trunc_cause(const struct mt_match_msg *msg);
const char *mt_match_kind_str(unsigned kind);
const char *mt_match_status_str(unsigned status);
const char *mt_match_warning_str(unsigned w);
const char *mt_match_field_str(unsigned field);

int mt_match_new(const struct mt_match_cfg *cfg, struct mt_match **out);
void mt_match_free(struct mt_match *m);
/* Endpoint ep (0, 1, ... dense) belongs to process proc, world rank rank. */
int mt_match_add_ep(struct mt_match *m, int32_t ep, int32_t proc, int32_t rank);
int mt_match_post(struct mt_match *m, const struct mt_match_op *op);
int mt_match_complete(struct mt_match *m, const struct mt_match_cqe *c);
/* The endpoint was closed normally (fi_close) at ts. */
int mt_match_close(struct mt_match *m, int32_t ep, uint64_t ts);
/* Moves up to max finished messages into out; returns how many. */
size_t mt_match_take(struct mt_match *m, struct mt_match_msg *out, size_t max);
/* End of input: everything still waiting becomes unmatched or pending. */
int mt_match_finish(struct mt_match *m);
const struct mt_match_summary *mt_match_summary(const struct mt_match *m);
/* Checks the invariants; on failure returns MT_MATCH_ERR_CHECK and says
 * which in why. */
int mt_match_check(const struct mt_match *m, char *why, size_t why_len);

#include "mt_trace.h"

/* ======================================================================
 * Clock correction (mt_clock_*): a stage of its own, run after matching.
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
 *     each weighted by how tightly it bounds offset and drift; a drift prior
 *     settles drifts the data leave open (short or sparse runs).
 *  3. CLC, the controlled logical clock (Becker, Rabenseifner, Wolf 2007):
 *     a receive moves to at least its send plus the minimum latency measured
 *     for that pair of domains; forward amortization with gamma < 1; backward
 *     amortization with a bounded slope that never pushes a send past its
 *     receive minus the minimum latency; strictly increasing per process.
 * Cost is linear in events and messages, plus a dense solve over domains
 * and, per CLC jump of delta, the events within delta / opts.slope before it.
 * ====================================================================== */

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
#define MT_CLOCK_NOPROC UINT32_MAX

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
#define MT_CLOCK_NOPROC UINT32_MAX	/* process not known */

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
	uint64_t (*ev)[MT_CLOCK_WHEN_COUNT]; /* per input message: event
					      * index of each time, or
					      * UINT64_MAX */
};

/* Builds the per-process event arrays of n messages among nprocs
 * processes. MT_ERR_ARG names a message whose process is >= nprocs. */
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
 * mt_clock_correct, apply): for callers that keep only these 40 bytes per
 * message. procs and res as for mt_clock_correct_msgs. */
enum mt_status mt_clock_correct_times(enum mt_clock_mode mode,
				      const struct mt_clock_opts *opts,
				      uint32_t nprocs,
				      const struct mt_clock_proc *procs,
				      struct mt_clock_times *t, size_t n,
				      struct mt_clock_result *res,
				      struct mt_err *err);

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

#endif /* MT_MATCH_H */
