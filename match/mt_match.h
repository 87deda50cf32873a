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
 */
#ifndef MT_MATCH_H
#define MT_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "mt_status.h"

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

struct mt_match_cqe;
struct mt_match_fields;

/* Tag fields the near-miss diagnosis names (masks come with the layout). */
enum mt_match_field { MT_MATCH_F_CID, MT_MATCH_F_SRC, MT_MATCH_F_PROTO,
		      MT_MATCH_F_TAG, MT_MATCH_F_COUNT };

struct mt_match_cfg {
	uint64_t loose_mask;	/* tag bits a receive completion may or may not
				 * report (SYNC_SEND): left out of the key */
	uint64_t ack_mask;	/* the SYNC_SEND_ACK bit: an ACK's tag is its
				 * synchronous send's with loose_mask bits
				 * replaced by these */
	uint64_t field_mask[MT_MATCH_F_COUNT]; /* 0 when the layout lacks it */
	int check;		/* keep what mt_match_check needs (tests) */
	/* Optional: a receive completion's fields decoded when they are
	 * needed (only a receive that ends without a send shows them), not
	 * for every completion. The caller then leaves mt_match_cqe.f unset
	 * and gives .data; fields(fields_arg, c, f) gets a completion with
	 * ep, tag, data, len and the FI_TAGGED and FI_MSG bits of flags as
	 * given (no other member). */
	void (*fields)(const void *arg, const struct mt_match_cqe *c,
		       struct mt_match_fields *f);
	const void *fields_arg;
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
	uint32_t site;		/* call site number (the caller's), 0: none */
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
	uint64_t data;		/* CQ data (read only by cfg.fields) */
	uint64_t src_id;
	uint64_t olen;
	int32_t ep;
	int32_t src_ep;
	int32_t err;
	struct mt_match_fields f;
};

/* A message, or a send or receive that found no partner. */
struct mt_match_msg {
	int32_t send_rank, recv_rank;	/* process keys (ranks), -1 unknown */
	int32_t send_ep, recv_ep;	/* -1 unknown */
	struct mt_match_fields f;	/* from the send when there is one */
	struct mt_match_fields recv_f;	/* the receive's filter (has_tag 0:
					 * MPI_ANY_TAG); zero without one */
	uint8_t status;			/* enum mt_match_status */
	uint8_t pad[3];			/* 0, as pad2: the matcher builds a
					 * message member by member, without
					 * clearing it first, and a spill file
					 * stores it byte for byte: no byte
					 * may be left to the compiler */
	uint32_t send_site, recv_site;	/* the ops' mt_match_op.site, 0: none */
	uint32_t pad2;
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
	int32_t rank;			/* process key (rank) of op.ep */
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
	/* Examples kept, every warning's together: who reads them as they
	 * come (msgtrace-mpi, at every record) looks only when it grew. */
	unsigned n_examples;
	/* Pending at the end: hang suspects, and receives abandoned at a normal
	 * close with no near miss (Open MPI leaves some at finalize) or standing
	 * for handshakes (Open MPI 5's exCID receive). */
	size_t n_pending;
	struct mt_match_pending *pending;
	uint64_t abandoned_at_close, pending_delivered_sends;
	/* Operations whose partner, or whose own post, lies before a window
	 * (mt_match_ep_window): receives that took a message sent before
	 * the sender's window, completions of operations posted before the
	 * reader's. Neither unmatched nor warned of. */
	uint64_t before_window;
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

enum mt_status mt_match_new(const struct mt_match_cfg *cfg, struct mt_match **out);
void mt_match_free(struct mt_match *m);
/* Endpoint ep (0, 1, ... dense) belongs to process proc, key (rank) rank.
 * It matches under the masks of the cfg given to mt_match_new. */
enum mt_status mt_match_add_ep(struct mt_match *m, int32_t ep, int32_t proc, int32_t rank);
/* After mt_match_add_ep, before any operation of ep is posted: endpoint ep
 * matches under the masks of cfg (its own tag layout: loose, ack and field
 * masks; cfg->check is not looked at).
 * Messages are keyed by the receiving endpoint's masks, Ssend ACKs by the
 * synchronous sender's. */
enum mt_status mt_match_ep_masks(struct mt_match *m, int32_t ep,
				 const struct mt_match_cfg *cfg);
/*
 * Endpoint ep's trace is a window starting at start (its oldest kept
 * record, in the operations' time; 0: not known): what its process did
 * before is gone (a ring that wrapped). A completion whose operation
 * was posted before the window counts as before the window (a receive's
 * still takes its message: its post is made from the completion, exact
 * tag and source), and a receive completed before the send it would pair
 * with was posted, that send on ep, took a message sent before ep's window.
 * Messages of a key are received in order, so the sends to ep posted
 * before start that its lost receives took are the oldest: a receive of
 * ep passes over a send posted before start while a later send of the key
 * was also posted before the receive completed, and a send posted before
 * start that no receive took counts as before the window.
 * Call after mt_match_add_ep, before ep's operations.
 */
enum mt_status mt_match_ep_window(struct mt_match *m, int32_t ep, uint64_t start);
enum mt_status mt_match_post(struct mt_match *m, const struct mt_match_op *op);
enum mt_status mt_match_complete(struct mt_match *m, const struct mt_match_cqe *c);
/* The endpoint was closed normally (fi_close) at ts. */
enum mt_status mt_match_close(struct mt_match *m, int32_t ep, uint64_t ts);
/* Moves up to max finished messages into out; returns how many. */
size_t mt_match_take(struct mt_match *m, struct mt_match_msg *out, size_t max);
/* The same without a copy: *out points at them in m's own queue, in order,
 * for the caller to read or correct in place until its next call on m. */
size_t mt_match_take_ref(struct mt_match *m, struct mt_match_msg **out, size_t max);
/*
 * End of input: everything still waiting becomes unmatched or pending. It
 * happens in two steps, the first of which a caller may take alone
 * (mt_match_finish_posted) to take its messages apart: receives still
 * posted will never complete, so the completed receives they held back
 * enter matching, endpoint by endpoint (each message is its receive's
 * endpoint's). Then the pending operations are diagnosed and what is left
 * leaves, by post time, endpoint, then posting order of its earlier
 * operation: a message depends on its own operations only, so matchers
 * that each took some receivers' operations (msgtrace-mpi) can order their
 * messages as one would.
 */
enum mt_status mt_match_finish_posted(struct mt_match *m);
enum mt_status mt_match_finish(struct mt_match *m);
/*
 * For matchers that each take some processes' operations (msgtrace-mpi):
 * a synchronous send owed its ACK is kept by the matcher that paired its
 * data (the receiver's), while the ACK's send is matched by its
 * destination's and the pending ACK receive is diagnosed there.
 *  - mt_match_ack_elsewhere: the ACK send op, posted by a process of
 *    this matcher and matched by another, pays here, at its place in
 *    time order, what its synchronous send is owed (as mt_match_post of
 *    it would; any other op is ignored).
 *  - mt_match_owed_list: the synchronous sends still owed an ACK (msg:
 *    the data's message as paired, msg.send_ep its sender), up to cap of
 *    them into out; returns how many there are.
 *  - mt_match_owed_add: one of those, into the matcher of its sender,
 *    after mt_match_finish_posted and before mt_match_finish, so that
 *    its pending ACK receive shows it. One owed under the same key
 *    (sender, communicator and tag) already there stays.
 */
struct mt_match_owed {
	struct mt_match_msg msg;
	uint8_t claimed;		/* the data was taken by a probe's claim */
	uint8_t pad[7];
};
void mt_match_ack_elsewhere(struct mt_match *m, const struct mt_match_op *op);
size_t mt_match_owed_list(const struct mt_match *m, struct mt_match_owed *out,
			  size_t cap);
enum mt_status mt_match_owed_add(struct mt_match *m, const struct mt_match_owed *o);
/* The order of a summary's pending operations: by rank, post time, then
 * the operation's own fields (qsort's comparison). */
int mt_match_pending_cmp(const void *a, const void *b);
/* Whether a posted operation waits for a completion (pairs with a CQ
 * entry of its process by context): all but sends that complete at post
 * (inject, selective completion without FI_COMPLETION). */
int mt_match_op_waits(const struct mt_match_op *op);
/*
 * A view of the input so far, for a trace still being written: *sum is the
 * summary with the operations pending now (as mt_match_finish would list
 * them, its own pending array: free(sum->pending)), *unmatched the sends no
 * receive has taken yet (n, status MT_MATCH_ST_UNMATCHED_SEND; free it).
 * The matcher goes on as if not asked: more input may come.
 */
enum mt_status mt_match_view(struct mt_match *m, struct mt_match_summary *sum,
			     struct mt_match_msg **unmatched, size_t *n);
const struct mt_match_summary *mt_match_summary(const struct mt_match *m);
/* Checks the invariants; on failure returns MT_ERR_INTERNAL and says
 * which in why. */
enum mt_status mt_match_check(const struct mt_match *m, char *why, size_t why_len);

/*
 * The root of a hang (match_hang.c): who waits on whom, from the pending
 * operations of a summary. A posted receive waits on its source (on every
 * sender for MPI_ANY_SOURCE), a synchronous send waiting for its ACK on its
 * receiver, a send never completed (and not delivered) on its receiver.
 * Ranks are nodes, waits directed edges; every wait leads to a root: a
 * knot of ranks waiting on each other (shown as one cycle through it), a
 * rank whose waits name no rank (any sender, or a source never resolved),
 * or a rank that waits on nothing (finished, left no trace, or running
 * outside the fabric calls). A rank whose trace ended early (ENDED: its
 * buffer filled while the job went on) is a rank waited on whose waits
 * are unknown: its operations pending where its trace ends are no waits,
 * only the end of what was recorded. Pure: no I/O.
 */
/* What a rank does besides its pending operations (the caller knows it
 * from the trace). */
#define MT_MATCH_RANK_STATES(X) \
	X(RUNNING, "has no pending operation") /* traced, did not finish */ \
	X(FINISHED, "finished")		/* closed its trace normally */ \
	X(UNTRACED, "left no trace") \
	X(ENDED, "whose trace ends early (records lost), so what it did next is unknown")

enum mt_match_rank_state {
#define MT_MATCH_RANK_ENUM(n, s) MT_MATCH_RANK_##n,
	MT_MATCH_RANK_STATES(MT_MATCH_RANK_ENUM)
#undef MT_MATCH_RANK_ENUM
	MT_MATCH_RANK_COUNT
};

/* Why an operation waits. */
#define MT_MATCH_WAIT_WHYS(X) \
	X(RECV, "recv")		/* a posted receive, for its sender */ \
	X(SSEND, "ssend")	/* a synchronous send, for its ACK */ \
	X(SEND, "send")		/* a send never completed, for its receiver */

enum mt_match_wait_why {
#define MT_MATCH_WHY_ENUM(n, s) MT_MATCH_WAIT_##n,
	MT_MATCH_WAIT_WHYS(MT_MATCH_WHY_ENUM)
#undef MT_MATCH_WHY_ENUM
	MT_MATCH_WAIT_COUNT
};

/* One pending operation that waits: rank waits on rank `on`. */
struct mt_match_wait {
	size_t pending;			/* index in the summary's pending[] */
	int32_t rank;
	int32_t on;			/* -1: any sender, or not known */
	uint8_t why;			/* enum mt_match_wait_why */
	uint8_t any;			/* on every sender (wildcard) */
	uint8_t in_root;		/* named by a root (not in a group) */
};

#define MT_MATCH_ROOT_TYPES(X) \
	X(CYCLE, "cycle")	/* ranks waiting on each other */ \
	X(OPEN, "open")		/* a rank waiting on no rank in particular */ \
	X(IDLE, "idle")		/* a rank waited on, waiting on nothing */

enum mt_match_root_type {
#define MT_MATCH_ROOT_ENUM(n, s) MT_MATCH_ROOT_##n,
	MT_MATCH_ROOT_TYPES(MT_MATCH_ROOT_ENUM)
#undef MT_MATCH_ROOT_ENUM
	MT_MATCH_ROOT_COUNT
};

/* What waits lead to. */
struct mt_match_root {
	uint8_t type;			/* enum mt_match_root_type */
	uint8_t state;			/* IDLE: enum mt_match_rank_state */
	int32_t rank;			/* its lowest rank */
	size_t size;			/* ranks in it (a cycle's whole knot) */
	size_t waiters;			/* other ranks waiting on it, directly
					 * or through others */
	/* CYCLE: waits[path[first..first+n)] each on the next one's rank,
	 * the last on the first's; OPEN: the rank's waits. */
	size_t first, n;
};

/* Waits alike (why, kind, any, cid, tag): their ranks and whom they wait
 * on, sorted and distinct. */
struct mt_match_group {
	uint8_t why, kind, any, has_tag;
	int64_t cid;
	int32_t tag;
	size_t n_ops, n_ranks, n_on;
	int32_t *ranks, *on;
	uint64_t first_ts, last_ts;	/* oldest and newest post */
	uint32_t site;			/* the call site all its ops share, or 0 */
};

/* A near miss that explains a wait (the send will never match it), or
 * with near == MT_MATCH_NEAR the pending op's unacknowledged Ssend. */
struct mt_match_explain {
	size_t pending;
	unsigned near;
};

struct mt_match_hang {
	size_t n_waits;
	struct mt_match_wait *waits;	/* in pending[] order */
	size_t n_roots;
	struct mt_match_root *roots;	/* most waiters first */
	size_t *path, n_path;
	size_t n_groups;
	struct mt_match_group *groups;	/* waits not named by a root, most
					 * ranks first */
	size_t n_explain;
	struct mt_match_explain *explain;
};

/* A traced rank and what it does (for mt_match_hang_new). */
struct mt_match_rank {
	int32_t rank;
	uint8_t state;			/* enum mt_match_rank_state */
};

const char *mt_match_rank_state_str(unsigned state);
const char *mt_match_wait_str(unsigned why);
const char *mt_match_root_str(unsigned type);
/*
 * Who waits on whom among pending[0..n) (a summary's, or a live view's).
 * ranks[0..n_ranks), sorted by rank: the traced ranks' states; a rank not
 * there left no trace. Memory follows the operations, not the rank values.
 * MT_OK or MT_ERR_NOMEM.
 */
enum mt_status mt_match_hang_new(const struct mt_match_pending *pending,
				 size_t n, const struct mt_match_rank *ranks,
				 size_t n_ranks, struct mt_match_hang **out);
void mt_match_hang_free(struct mt_match_hang *h);

#endif /* MT_MATCH_H */
