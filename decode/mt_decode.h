/*
 * mt_decode.h - 64-bit tag layouts of MPI libraries over libfabric.
 *
 * Turns the raw tag, CQ data and ignore mask of a tagged fabric operation
 * into MPI terms (communicator id, source rank in that communicator, signed
 * MPI tag, protocol kind, internal or user) and back. Layouts are data, one
 * row each in MT_TAG_LAYOUTS: Open MPI's OFI MTL (ofi_tag_full, ofi_tag_1,
 * ofi_tag_2; v4.1 and v5.0), MPICH ch4:ofi (3.3, 3.4-4.0, 4.1-4.2 protocol
 * bits, with and without CQ data) and "raw". An evidence accumulator detects
 * which layout an endpoint used. A usage analysis (tagmode.c) says how full
 * each field was in a run and what every other layout would have truncated
 * or aliased. Pure functions over plain integers: this
 * library knows nothing of libfabric (callers translate FI_* flags into the
 * MT_TAG_IN_* / MT_TAG_RECV_* bits below), of trace files, and never prints.
 */
#ifndef MT_DECODE_H
#define MT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mt_status.h"

/* Statuses (mt_status.h): MT_ERR_ARG an unknown layout id or name,
 * MT_ERR_RANGE a mem_tag_format that leaves the cid under 8 bits or, from
 * encode, a field that does not fit (truncated), MT_ERR_NOMEM. */

typedef uint32_t mt_comm_t;		/* communicator id as on the wire */
typedef int32_t mt_rank_t;		/* rank in the communicator */
#define MT_COMM_UNDEF UINT32_MAX
#define MT_RANK_UNDEF ((mt_rank_t)-1)
#define MT_RANK_ANY ((mt_rank_t)-2)	/* filter: MPI_ANY_SOURCE */

/* Where the source rank travels, how internal traffic is recognised. */
enum mt_tag_src_in { MT_SRC_NONE, MT_SRC_TAG, MT_SRC_DATA };
enum mt_tag_internal { MT_INT_NONE, MT_INT_NEG_TAG, MT_INT_ODD_CID };

/*
 * X(ID, name, cid_shift, cid_bits, src_shift, src_bits, data_src_bits,
 *   tag_bits, tag_signed, sync, ack, huge, dynproc, rndv, am, sync_rndv,
 *   recv_always_ignored, anytag_keeps_top_bit, internal, mtf_shrinks_cid,
 *   directed_recv, summary)
 * Protocol bits are given as bit numbers (-1: absent). sync_rndv: SYNC set
 * together with HUGE or RNDV marks a rendezvous (MPICH 4.3 RNDV = SYNC|HUGE,
 * 5.0 RNDV_PACK = SYNC|RNDV) instead of an invalid combination.
 * directed_recv: 1 = a specific receive names the peer's address, 0 =
 * never, -1 unknown. Open MPI: shared/TAG-LAYOUTS.md. MPICH: the
 * MPIDI_OFI_PROTOCOL_* schemes of ch4/netmod/ofi/ofi_types.h (ACK|SYNC|
 * DYNPROC; then +HUGE; from 4.1 ACK|DYNPROC|SYNC|HUGE with only SYNC and
 * HUGE ignored by receives; 4.3 ACK 1, DYNPROC 2, GPU_PIPELINE 4, SYNC 8,
 * HUGE 16, RNDV 24, AM 32; 5.0 ACK 1, DYNPROC 2, AM 4, SYNC 8, RNDV 16,
 * RNDV_PACK 24). 4.3 and 5.0 both ignore SYNC and the bit above it in
 * receives: only AM (and GPU pipeline) traffic tells them apart, and
 * everything else decodes the same under both.
 */
#define MT_TAG_LAYOUTS(X) \
	X(RAW, "raw", 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, 0, 0, 0, MT_INT_NONE, \
	  0, -1, \
	  "no MPI layout: hex only") \
	X(OMPI_FULL, "ofi_tag_full", 34, 30, 0, 0, 32, 32, 1, 32, 33, -1, -1, -1, -1, 0, \
	  1ull << 32, 1, MT_INT_NEG_TAG, 1, 1, \
	  "Open MPI 4.1-5.0: cid 30 | proto 2 | tag 32, source in CQ data") \
	X(OMPI_TAG1, "ofi_tag_1", 52, 12, 34, 18, 0, 32, 1, 32, 33, -1, -1, -1, -1, 0, \
	  1ull << 32, 1, MT_INT_NEG_TAG, 1, 0, \
	  "Open MPI 4.1-5.0: cid 12 | source 18 | proto 2 | tag 32") \
	X(OMPI_TAG2, "ofi_tag_2", 40, 24, 22, 18, 0, 20, 1, 20, 21, -1, -1, -1, -1, 0, \
	  1ull << 20, 1, MT_INT_NEG_TAG, 1, 0, \
	  "Open MPI 4.1-5.0: cid 24 | source 18 | proto 2 | tag 20") \
	X(MPICH33_DATA, "mpich-3.3-data", 31, 20, 0, 0, 30, 31, 0, 52, 51, -1, 53, -1, -1, 0, \
	  (1ull << 52) | (1ull << 53), 0, MT_INT_ODD_CID, 0, 1, \
	  "MPICH 3.3: proto 3 | context 20 | tag 31, source in CQ data") \
	X(MPICH33_NODATA, "mpich-3.3-nodata", 42, 16, 19, 23, 0, 19, 0, 59, 58, -1, 60, -1, -1, 0, \
	  (1ull << 59) | (1ull << 60), 0, MT_INT_ODD_CID, 0, -1, \
	  "MPICH 3.3: proto 3 | context 16 | source 23 | tag 19") \
	X(MPICH40_DATA, "mpich-4.0-data", 31, 20, 0, 0, 30, 31, 0, 52, 51, 54, 53, -1, -1, 0, \
	  (1ull << 52) | (1ull << 53) | (1ull << 54), 0, MT_INT_ODD_CID, 0, 1, \
	  "MPICH 3.4-4.0: proto 4 | context 20 | tag 31, source in CQ data") \
	X(MPICH40_NODATA, "mpich-4.0-nodata", 42, 16, 19, 23, 0, 19, 0, 59, 58, 61, 60, -1, -1, 0, \
	  (1ull << 59) | (1ull << 60) | (1ull << 61), 0, MT_INT_ODD_CID, 0, -1, \
	  "MPICH 3.4-4.0: proto 4 | context 16 | source 23 | tag 19") \
	X(MPICH41_DATA, "mpich-4.1-data", 31, 20, 0, 0, 30, 31, 0, 53, 51, 54, 52, -1, -1, 0, \
	  (1ull << 53) | (1ull << 54), 0, MT_INT_ODD_CID, 0, 1, \
	  "MPICH 4.1-4.2: proto 4 | context 20 | tag 31, source in CQ data") \
	X(MPICH41_NODATA, "mpich-4.1-nodata", 42, 16, 19, 23, 0, 19, 0, 60, 58, 61, 59, -1, -1, 0, \
	  (1ull << 60) | (1ull << 61), 0, MT_INT_ODD_CID, 0, -1, \
	  "MPICH 4.1: proto 4 | context 16 | source 23 | tag 19") \
	X(MPICH42_NODATA, "mpich-4.2-nodata", 43, 16, 20, 23, 0, 20, 0, 61, 59, 62, 60, -1, -1, 0, \
	  (1ull << 61) | (1ull << 62), 0, MT_INT_ODD_CID, 0, -1, \
	  "MPICH 4.2: proto 4 | context 16 | source 23 | tag 20") \
	X(MPICH43_DATA, "mpich-4.3-data", 31, 20, 0, 0, 30, 31, 0, 54, 51, 55, 52, \
	  -1, 56, 1, (1ull << 54) | (1ull << 55), 0, MT_INT_ODD_CID, 0, 1, \
	  "MPICH 4.3: proto 6 | context 20 | tag 31, source in CQ data") \
	X(MPICH43_NODATA, "mpich-4.3-nodata", 42, 16, 19, 23, 0, 19, 0, 61, 58, 62, 59, \
	  -1, 63, 1, (1ull << 61) | (1ull << 62), 0, MT_INT_ODD_CID, 0, -1, \
	  "MPICH 4.3: proto 6 | context 16 | source 23 | tag 19") \
	X(MPICH50_DATA, "mpich-5.0-data", 31, 20, 0, 0, 30, 31, 0, 54, 51, -1, 52, \
	  55, 53, 1, (1ull << 54) | (1ull << 55), 0, MT_INT_ODD_CID, 0, 1, \
	  "MPICH 5.0: proto 5 | context 20 | tag 31, source in CQ data") \
	X(MPICH50_NODATA, "mpich-5.0-nodata", 42, 16, 19, 23, 0, 19, 0, 61, 58, -1, 59, \
	  62, 60, 1, (1ull << 61) | (1ull << 62), 0, MT_INT_ODD_CID, 0, -1, \
	  "MPICH 5.0: proto 5 | context 16 | source 23 | tag 19")

enum mt_tag_layout_id {
#define MT_TAG_LAYOUT_ENUM(id, ...) MT_TAG_LAYOUT_##id,
	MT_TAG_LAYOUTS(MT_TAG_LAYOUT_ENUM)
#undef MT_TAG_LAYOUT_ENUM
	MT_TAG_LAYOUT_COUNT,
	MT_TAG_LAYOUT_NONE = -1		/* no override / not detected */
};

/* A layout row with its masks, resolved for one endpoint's mem_tag_format. */
struct mt_tag_layout {
	enum mt_tag_layout_id id;
	const char *name, *summary;
	uint8_t cid_shift, cid_bits, src_shift, src_bits, data_src_bits, tag_bits;
	uint8_t cid_usable_bits;	/* cid_bits minus mem_tag_format's leading 0s */
	bool tag_signed, anytag_keeps_top_bit, mtf_shrinks_cid;
	enum mt_tag_src_in src_in;
	enum mt_tag_internal internal;
	int8_t directed_recv;
	uint64_t cid_mask, src_mask, tag_mask, proto_mask, known_mask, data_src_mask;
	uint64_t sync, ack, huge, dynproc, rndv, am, recv_always_ignored;
	uint64_t cid_max, src_max, tag_ub;	/* largest usable values */
	bool sync_rndv;			/* SYNC with HUGE/RNDV: a rendezvous */
	uint8_t proto_shift;		/* lowest protocol bit */
	uint8_t proto_of[64];		/* enum mt_tag_proto by protocol bits */
};

/* Protocol kind of one message, from its protocol bits. RNDV: MPICH's
 * rendezvous envelope (the data follows as AM messages); AM: MPICH's
 * active-message tag space (rendezvous data, fallbacks). */
#define MT_TAG_PROTOS(X) X(NORMAL, "normal") X(SSEND, "ssend-data") \
	X(SSEND_ACK, "ssend-ack") X(HUGE, "huge") X(DYNPROC, "dynproc") \
	X(RNDV, "rndv") X(AM, "am") X(BAD, "invalid-proto")
enum mt_tag_proto {
#define MT_TAG_PROTO_ENUM(id, name) MT_PROTO_##id,
	MT_TAG_PROTOS(MT_TAG_PROTO_ENUM)
#undef MT_TAG_PROTO_ENUM
};
#define MT_TAG_PROTO_INTERNAL ((1u << MT_PROTO_DYNPROC) | (1u << MT_PROTO_AM))
const char *mt_tag_proto_name(enum mt_tag_proto proto);

enum mt_tag_in {			/* what the caller knows of the operation */
	MT_TAG_IN_DATA = 1u << 0,	/* CQ data present (send *data, CQE data) */
	MT_TAG_IN_TAG_WRAPPED = 1u << 1,/* this cid used internal tags down to the
					   field's limit: user-looking tags may be
					   wrapped internal ones */
};
enum mt_tag_valid { MT_V_CID = 1u << 0, MT_V_SOURCE = 1u << 1, MT_V_TAG = 1u << 2,
		    MT_V_PROTO = 1u << 3 };
enum mt_tag_flag {
	MT_F_INTERNAL = 1u << 0,	/* MPI library's own traffic (collectives) */
	MT_F_MAYBE_ALIASED = 1u << 1,	/* narrow tag field may have wrapped */
	MT_F_STRAY_BITS = 1u << 2,	/* bits outside every field of the layout */
	MT_F_CID_BEYOND_MTF = 1u << 3,	/* cid above what mem_tag_format allows */
	MT_F_DATA_EXTRA = 1u << 4,	/* CQ data has bits above the source */
	MT_F_SOURCE_IS_DEST = 1u << 5,	/* ssend ACK: source names the ssender */
};

struct mt_tag_fields {
	mt_comm_t cid;
	mt_rank_t source;	/* MT_RANK_ANY in a filter for MPI_ANY_SOURCE */
	int32_t tag;
	uint8_t proto;		/* enum mt_tag_proto */
	uint8_t valid;		/* enum mt_tag_valid */
	uint8_t flags;		/* enum mt_tag_flag */
};

enum mt_tag_recv_in {			/* the caller's view of a posted receive */
	MT_TAG_RECV_PEEK = 1u << 0,	/* FI_PEEK: a probe */
	MT_TAG_RECV_CLAIM = 1u << 1,	/* FI_CLAIM: mprobe or mrecv */
	MT_TAG_RECV_DIRECTED = 1u << 2,	/* src_addr was not FI_ADDR_UNSPEC */
};
enum mt_tag_recv_kind { MT_RECV_PLAIN, MT_RECV_PROBE, MT_RECV_MPROBE,
			MT_RECV_MRECV, MT_RECV_SSEND_ACK };
struct mt_tag_filter {
	struct mt_tag_fields f;	/* the values matched; wildcards below */
	bool any_source, any_tag;
	bool odd_ignore;	/* ignore mask is not one the layout produces */
	uint8_t kind;		/* enum mt_tag_recv_kind */
};
const char *mt_tag_recv_kind_name(enum mt_tag_recv_kind kind);

/* Encoded form: what goes on the wire (tag, CQ data) and the receive mask. */
struct mt_tag_wire {
	uint64_t tag, data, ignore;
	bool has_data;		/* send with CQ data (the *data calls) */
	bool directed;		/* receive: src_addr must name the peer */
	uint8_t truncated;	/* enum mt_tag_valid bits of fields that did not fit */
};

/* Layouts */
enum mt_status mt_tag_layout_get(enum mt_tag_layout_id id, uint64_t mem_tag_format,
		      struct mt_tag_layout *out);
enum mt_status mt_tag_layout_find(const char *name, enum mt_tag_layout_id *id);
const char *mt_tag_layout_name(enum mt_tag_layout_id id);

/*
 * Open MPI 5's exCID handshake: before its first message to a peer on a
 * communicator without a global index (made from a group or a session), the
 * OFI MTL sends the peer an untagged mca_mtl_ofi_cid_hdr_t (32 bytes:
 * extended cid, its c_index, its rank, two flags) with fi_send/fi_inject or
 * their data variants, and keeps a 32-byte fi_recv(FI_ADDR_UNSPEC) posted
 * for the answers (ompi/mca/mtl/ofi/mtl_ofi.h). True when an untagged
 * message of len bytes (a send, a posted receive, a receive completion) is
 * that handshake under layout l.
 */
#define MT_TAG_OMPI_CID_HDR_LEN 32
bool mt_tag_untagged_handshake(const struct mt_tag_layout *l, uint64_t len);

/* The layouts of the MPI library that uses layout id, in table order:
 * Open MPI's three, or every MPICH release's with and without CQ data (raw:
 * Open MPI's). Returns how many (writes at most max). */
size_t mt_tag_layout_family(enum mt_tag_layout_id id, enum mt_tag_layout_id *out,
			    size_t max);

/* Receive filters and encoding (decode.c); mt_tag_decode is below. */
void mt_tag_decode_recv(const struct mt_tag_layout *l, uint64_t tag,
			uint64_t ignore, unsigned recv_in, struct mt_tag_filter *out);
enum mt_status mt_tag_encode(const struct mt_tag_layout *l, const struct mt_tag_fields *in,
		  struct mt_tag_wire *out);
enum mt_status mt_tag_encode_recv(const struct mt_tag_layout *l,
		       const struct mt_tag_filter *in, struct mt_tag_wire *out);

/* Layout detection from the operations of one endpoint (detect.c) */
#define MT_TAG_DETECT_ITEMS 20
struct mt_tag_evidence_layout {		/* per candidate layout */
	uint64_t ok_send, bad_send, ok_recv, bad_recv;
	uint64_t bad_tag, bad_aux;	/* first inconsistent operation */
	uint8_t bad_why;
};
struct mt_tag_evidence {
	bool ep_known, directed_recv_cap;
	uint64_t cq_data_size, mem_tag_format;
	uint64_t sends, sends_data, recvs;
	struct mt_tag_evidence_layout per[MT_TAG_LAYOUT_COUNT];
};
enum mt_tag_confidence { MT_CONF_NONE, MT_CONF_LOW, MT_CONF_MEDIUM,
			 MT_CONF_HIGH, MT_CONF_OVERRIDE };
/* Why an operation rules a layout out (mt_tag_evidence_item.v[3]). */
enum mt_tag_mismatch {
	MT_TAG_MISMATCH_NONE,
	MT_TAG_MISMATCH_STRAY,		/* tag bits outside the layout's fields */
	MT_TAG_MISMATCH_PROTO,		/* a protocol bit combination never used */
	MT_TAG_MISMATCH_NO_DATA,		/* no CQ data; the source travels there */
	MT_TAG_MISMATCH_DATA,		/* CQ data; the source travels in the tag */
	MT_TAG_MISMATCH_DATA_RANGE,	/* CQ data that is not a rank */
	MT_TAG_MISMATCH_IGNORE,		/* an ignore mask never built */
	MT_TAG_MISMATCH_DIRECTED,		/* a source address, never given */
	MT_TAG_MISMATCH_COUNT
};

/* One piece of evidence: what was found and the values it names. The words
 * are made where they are printed (mt_sink_evidence_text); v[] per kind: */
enum mt_tag_evidence_kind {
	MT_TAG_EV_ENDPOINT,	/* v: cq_data_size, FI_DIRECTED_RECV (0/1),
				 * mem_tag_format, Open MPI's auto mode picks
				 * ofi_tag_full (0/1) */
	MT_TAG_EV_OBSERVED,	/* v: tagged sends, of them with CQ data,
				 * receives */
	MT_TAG_EV_RULED_MTF,	/* layout ruled out: v: mem_tag_format, the
				 * cid bits it leaves */
	MT_TAG_EV_RULED_CQ_DATA, /* layout ruled out: v: cq_data_size,
				 * FI_DIRECTED_RECV (0/1) */
	MT_TAG_EV_RULED_OP,	/* layout ruled out: v: a send (1) or receive
				 * (0), its tag, its CQ data or ignore mask,
				 * enum mt_tag_mismatch, operations of that kind
				 * it misfits, operations of that kind */
	MT_TAG_EV_NO_OPS,	/* no tagged operation on the endpoint */
	MT_TAG_EV_ONLY,		/* layout explains all: v: sends, receives,
				 * only one kind of operation seen (0/1) */
	MT_TAG_EV_SAME,		/* cand explain all v[0] sends and v[1]
				 * receives and decode them identically;
				 * layout, the newest, named */
	MT_TAG_EV_SUMMARY,	/* what layout is (its summary) */
	MT_TAG_EV_GUESS_FULL,	/* cand consistent; ofi_tag_full guessed from
				 * the endpoint attributes */
	MT_TAG_EV_UNDECIDED,	/* cand consistent, none chosen */
	MT_TAG_EV_BEST,		/* layout explains all but v[0] operations */
	MT_TAG_EV_NO_LAYOUT,	/* no MPI layout explains the operations */
	MT_TAG_EV_OVERRIDE,	/* --layout layout overrides layout2,
				 * detected with confidence v[0] */
	MT_TAG_EV_JOB,		/* the job's layout taken: v: endpoints that
				 * decided it, how (0: well-decided endpoints
				 * use it, 1: the only one every endpoint with
				 * operations allows) */
};

struct mt_tag_evidence_item {
	uint8_t kind;			/* enum mt_tag_evidence_kind */
	uint8_t layout, layout2;	/* enum mt_tag_layout_id */
	uint64_t cand;			/* candidate layouts, bit per id */
	uint64_t v[6];
};

struct mt_tag_detect_result {
	enum mt_tag_layout_id layout;	/* RAW when nothing can be said */
	enum mt_tag_confidence confidence;
	unsigned n_items;
	struct mt_tag_evidence_item item[MT_TAG_DETECT_ITEMS]; /* the evidence */
};
const char *mt_tag_confidence_name(enum mt_tag_confidence c);
void mt_tag_evidence_init(struct mt_tag_evidence *ev);
void mt_tag_evidence_set_ep(struct mt_tag_evidence *ev, uint64_t cq_data_size,
			    bool directed_recv, uint64_t mem_tag_format);
void mt_tag_evidence_add_send(struct mt_tag_evidence *ev, bool has_data,
			      uint64_t tag, uint64_t data);
void mt_tag_evidence_add_recv(struct mt_tag_evidence *ev, uint64_t tag,
			      uint64_t ignore, unsigned recv_in);
void mt_tag_detect(const struct mt_tag_evidence *ev, enum mt_tag_layout_id override,
		   struct mt_tag_detect_result *out);
/* After mt_tag_detect on each of a job's n endpoints: undecided ones take
 * the layout the decided ones agree on, when their evidence allows it. */
void mt_tag_detect_job(const struct mt_tag_evidence *ev,
		       struct mt_tag_detect_result *res, size_t n);

/*
 * Tag-mode analysis (tagmode.c): fed the decoded fields of every message of
 * a run, says how full each field was, what another layout (with another
 * mem_tag_format) would have done to the same values, and how many more
 * nonblocking-collective tags Open MPI can reserve on each communicator
 * before a narrow tag field wraps them into the user range. Fit and alias
 * are decided by mt_tag_encode/mt_tag_decode, never by separate arithmetic.
 */
#define MT_TAG_OMPI_NBC_BASE (-27)		/* first nonblocking-coll tag */
#define MT_TAG_OMPI_NBC_END (-(INT32_MAX / 2) + 1) /* Open MPI recycles here */
#define MT_TAG_WHATIF_EX 4			/* examples kept per field */

enum mt_tag_ufield { MT_TAG_U_CID, MT_TAG_U_SRC, MT_TAG_U_UTAG, MT_TAG_U_ITAG,
		     MT_TAG_U_COUNT };
const char *mt_tag_ufield_name(enum mt_tag_ufield f);

struct mt_tag_usage;
enum mt_status mt_tag_usage_new(struct mt_tag_usage **out);
void mt_tag_usage_free(struct mt_tag_usage *u);
/* One message. Fields not in f->valid are not counted; internal: MPI's own
 * traffic (f->flags & MT_F_INTERNAL); any_tag: the receive that took it
 * was MPI_ANY_TAG. */
enum mt_status mt_tag_usage_add(struct mt_tag_usage *u, const struct mt_tag_fields *f,
		     bool any_tag);

struct mt_tag_ustat {			/* values of one field in the run */
	uint64_t msgs, distinct;
	int64_t min, max;		/* 0, 0 when no message */
};
void mt_tag_usage_stat(const struct mt_tag_usage *u, enum mt_tag_ufield f,
		       struct mt_tag_ustat *out);
/* The distinct values of a field, ascending; returns how many there are
 * (writes at most max). */
size_t mt_tag_usage_values(const struct mt_tag_usage *u, enum mt_tag_ufield f,
			   int64_t *out, size_t max);

struct mt_tag_room {			/* a field's headroom in one layout */
	bool in_tag;		/* false: the layout has no such field */
	uint8_t bits;		/* usable width (cid: after mem_tag_format) */
	uint8_t bits_used;	/* width the extreme value needs (sign included) */
	int64_t limit;		/* largest value (internal tags: smallest) */
	uint64_t left;		/* values left beyond the extreme one */
	double pct_used;	/* extreme value over limit, in percent */
};
void mt_tag_usage_room(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
		       enum mt_tag_ufield f, struct mt_tag_room *out);

struct mt_tag_misfit {
	int64_t value;		/* as the run used it */
	int64_t becomes;	/* what the receiver would decode */
	bool alias;		/* becomes is a value the run also used, or
				 * what another misfit becomes too */
	bool flips;		/* tag: user becomes internal or back */
};
struct mt_tag_whatif_field {
	uint64_t values, misfit, alias, flips;
	unsigned n_ex;
	struct mt_tag_misfit ex[MT_TAG_WHATIF_EX];	/* first misfits, ascending */
};
struct mt_tag_whatif {
	enum mt_status layout_status;	/* MT_ERR_RANGE: Open MPI would not start */
	bool fits;		/* every value of every field fits */
	struct mt_tag_whatif_field f[MT_TAG_U_COUNT];
};
/* The run's values encoded with layout l (mem_tag_format applied by
 * mt_tag_layout_get, whose status goes in layout_status). */
enum mt_status mt_tag_usage_whatif(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
			enum mt_status layout_status, struct mt_tag_whatif *out);
/* Every misfit of field f under l, ascending; returns how many. */
size_t mt_tag_usage_misfits(const struct mt_tag_usage *u,
			    const struct mt_tag_layout *l, enum mt_tag_ufield f,
			    struct mt_tag_misfit *out, size_t max);

struct mt_tag_nbc {			/* one communicator's internal tags */
	mt_comm_t cid;
	int32_t min_tag;	/* most negative internal tag seen */
	bool narrow;		/* the tag field wraps before Open MPI recycles */
	bool wrapped;		/* min_tag reached the field's smallest value */
	uint64_t left;		/* nonblocking-collective reservations left */
	uint64_t user_msgs, wild_user_msgs; /* user-tag messages; by MPI_ANY_TAG */
};
/* Communicators with internal traffic, fewest reservations left first;
 * returns how many there are (writes at most max). */
size_t mt_tag_usage_nbc(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
			struct mt_tag_nbc *out, size_t max);

/* The hot path, inline: analysis decodes every operation of a trace. */
static inline int32_t mt_tag_value_(const struct mt_tag_layout *l, uint64_t tag)
{
	uint64_t v = tag & l->tag_mask;

	if (l->tag_signed) {
		/* Sign-extend from the field's top bit (bit 19 in ofi_tag_2). */
		uint64_t sign = (l->tag_mask >> 1) + 1;
		return (int32_t)(int64_t)((v ^ sign) - sign);
	}
	return (int32_t)v;
}

static inline enum mt_tag_proto mt_tag_proto_of_(const struct mt_tag_layout *l,
						 uint64_t tag)
{
	return (enum mt_tag_proto)l->proto_of[(tag & l->proto_mask) >> l->proto_shift];
}

/* The source rank of a message with protocol proto (MT_RANK_UNDEF when it
 * carries none), and the flags that say how it was found. */
static inline mt_rank_t mt_tag_source_(const struct mt_tag_layout *l, uint64_t tag,
				       uint64_t data, unsigned in,
				       enum mt_tag_proto proto, uint8_t *flags)
{
	if (l->src_in == MT_SRC_TAG) {
		*flags |= (proto == MT_PROTO_SSEND_ACK) * MT_F_SOURCE_IS_DEST;
		return (mt_rank_t)((tag & l->src_mask) >> l->src_shift);
	}
	if (l->src_in == MT_SRC_DATA && (in & MT_TAG_IN_DATA) &&
	    proto != MT_PROTO_SSEND_ACK) {
		uint64_t s = data & l->data_src_mask;
		if (s != data)
			*flags |= MT_F_DATA_EXTRA;
		if (s <= l->src_max)
			return (mt_rank_t)s;
	}
	return MT_RANK_UNDEF;
}

/*
 * The source alone, as mt_tag_decode gives it in out->source (MT_RANK_UNDEF
 * when out->valid would leave it out): for callers that need nothing else
 * of a message yet.
 */
static inline mt_rank_t mt_tag_decode_source(const struct mt_tag_layout *l,
					     uint64_t tag, uint64_t data, unsigned in)
{
	uint8_t flags = 0;

	return mt_tag_source_(l, tag, data, in, l->id != MT_TAG_LAYOUT_RAW ?
			      mt_tag_proto_of_(l, tag) : MT_PROTO_NORMAL, &flags);
}

/*
 * Decode one message: the tag of a send call or of a receive completion,
 * with the CQ data when `in` has MT_TAG_IN_DATA. Fields the layout or the
 * operation does not carry are left out of out->valid (cid MT_COMM_UNDEF,
 * source MT_RANK_UNDEF). The Open MPI ssend ACK carries no source in CQ
 * data; in the tag layouts its source field names the synchronous sender,
 * i.e. the ACK's destination (MT_F_SOURCE_IS_DEST).
 */
static inline void mt_tag_decode(const struct mt_tag_layout *l, uint64_t tag,
				 uint64_t data, unsigned in,
				 struct mt_tag_fields *out)
{
	uint8_t valid = 0, flags = 0;
	mt_comm_t cid = MT_COMM_UNDEF;
	mt_rank_t source;
	int32_t t = 0;
	enum mt_tag_proto proto = MT_PROTO_NORMAL;

	if (l->id != MT_TAG_LAYOUT_RAW) {
		cid = (mt_comm_t)((tag & l->cid_mask) >> l->cid_shift);
		t = mt_tag_value_(l, tag);
		proto = mt_tag_proto_of_(l, tag);
		valid = MT_V_CID | MT_V_TAG | MT_V_PROTO;
		/* Flags by arithmetic: the branches would mispredict on mixed
		 * user/internal and Send/Ssend traffic. MPICH's AM and
		 * DYNPROC tag spaces carry only its own traffic. */
		bool internal = (l->internal == MT_INT_NEG_TAG ? t < 0 : (cid & 1)) |
				((MT_TAG_PROTO_INTERNAL >> proto) & 1);
		flags = (uint8_t)(!!(tag & ~l->known_mask) * MT_F_STRAY_BITS |
				  (cid > l->cid_max) * MT_F_CID_BEYOND_MTF |
				  internal * MT_F_INTERNAL);
		if (__builtin_expect(!!(in & MT_TAG_IN_TAG_WRAPPED), 0) &&
		    !internal && l->tag_signed && l->tag_bits < 32)
			flags |= MT_F_MAYBE_ALIASED;
	}
	source = mt_tag_source_(l, tag, data, in, proto, &flags);
	if (source != MT_RANK_UNDEF)	/* the source fields hold no -1 */
		valid |= MT_V_SOURCE;
	out->cid = cid;
	out->source = source;
	out->tag = t;
	out->proto = (uint8_t)proto;
	out->valid = valid;
	out->flags = flags;
}

#endif /* MT_DECODE_H */

