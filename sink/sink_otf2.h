/*
 * sink_otf2.h - the OTF2 export's state shared by its two files (private to
 * sink/): sink_otf2.c turns messages into per-location event streams,
 * otf2_defs.c writes the global definitions once they are all known.
 */
#ifndef MT_SINK_OTF2_H
#define MT_SINK_OTF2_H

#include <otf2/otf2.h>

#include "mt_sink.h"
#include "tracks.h"

/* Fabric operation phases: one region each per message kind. */
enum otf2_phase { PH_SEND, PH_SEND_DONE, PH_RECV, PH_RECV_DONE, PH_CANCEL,
		  PH_COUNT };

#define OTF2_REGION(phase, kind) ((OTF2_RegionRef)((phase) * MT_MATCH_KIND_COUNT + (kind)))
#define OTF2_NREGIONS (PH_COUNT * MT_MATCH_KIND_COUNT)

/* One communicator seen, by (job, cid): cids are numbered per job, so two
 * jobs' communicators of one cid are two. A message's job is the earlier
 * of its two processes' jobs: an intercommunicator (whose cid both sides
 * agree on) is one communicator, keyed by its earlier job. Its members in
 * order of first appearance (the MPI rank fields of the events index this
 * list). */
struct otf2_comm {
	uint32_t job;
	int64_t cid;
	uint32_t n, cap;
	int32_t *member;	/* world ranks */
	uint32_t *index_of;	/* per world rank: index + 1, 0 = not a member */
	uint32_t nindex;
};

/* Attributes carried by events of messages that are not plainly matched:
 * the status is a string ref, mt_match_status (0..MT_MATCH_ST_COUNT-1) or
 * OTF2_STATUS_PENDING (an operation never completed). ATTR_SITE (traces
 * with call sites only): where the application called MPI, a
 * SourceCodeLocation, call site number n being definition n - 1.
 * The fabric fields of the message (mt_match_fields), which OTF2's events
 * do not hold, on the events naming its tag (MpiIsend, MpiIrecv): its
 * kind, the MPI communicator id and sender rank as the fabric carried them
 * (-1: unknown), the flags ATTR_F_*; on a receive's request, the same of
 * what it was posted for, with the posted tag, the world rank it was
 * posted for (-1: any), the communicator and its buffer (ATTR_RECV_BUF,
 * which elsewhere marks a truncated message); on a cancel (which names
 * no tag), the message's fields, tag and the other side's world rank. Reading the archive back
 * (otf2in/) posts and pairs as the fabric trace did: the same messages in
 * the same order. */
enum { ATTR_STATUS, ATTR_RECV_BUF, ATTR_KIND, ATTR_CID, ATTR_COMM_SRC,
       ATTR_FLAGS, ATTR_TAG, ATTR_PEER, ATTR_COMM, ATTR_SITE, ATTR_COUNT };
#define ATTR_F_INTERNAL 1u
#define ATTR_F_HAS_TAG 2u
#define ATTR_F_ANY_SRC 4u
#define OTF2_STATUS_PENDING MT_MATCH_ST_COUNT
#define OTF2_KIND_STR(kind) ((OTF2_StringRef)(OTF2_STATUS_PENDING + 1 + (kind)))

struct otf2_out {
	OTF2_Archive *ar;
	const struct mt_run *run;
	struct tracks tr;
	uint64_t *nevents;	/* per location (= thread) */
	uint64_t t_min, t_max;	/* timestamps written */
	struct otf2_comm *comm;	/* by OTF2_CommRef */
	uint32_t ncomm, cap_comm;
	int32_t *comm_of_slot;	/* open-addressing (job, cid) -> comm ref + 1 */
	uint32_t slot_mask;
	struct mt_err *err;	/* the first failure, said once */
	/* A joined run (otf2_calls.c): its MPI calls' locations, after the
	 * fabric's (location tr.nthreads + i holds rank call_rank[i]'s calls,
	 * call_events[i] events), regions (OTF2_NREGIONS + i is named
	 * call_name[i]) and communicator (ref ncomm, world ranks). */
	const struct mt_join *join;
	int32_t *call_rank;
	uint64_t *call_events;
	size_t ncall_locs, calls_unaligned;
	const char **call_name;
	uint32_t ncall_names;
	size_t cap_call_names;
};

/* Archive property: true when every time is on one clock. */
#define MT_SINK_OTF2_ONE_CLOCK "MSGTRACE::ONE_CLOCK"
/* Archive property of a joined export: its MPI calls' communicator. */
#define MT_SINK_OTF2_CALLS_COMM "MSGTRACE::MPI_CALLS_COMM"

/* Writes the MPI calls of o->join on locations of their own, after the
 * fabric's events (their writers closed, the event files still open).
 * 0, or -1 with o->err saying why (empty: out of memory). */
int mt_sink_otf2_calls(struct otf2_out *o, const struct mt_join *j);
/* Writes every global and (empty) local definition. 0 or -1 (printed). */
int mt_sink_otf2_defs(struct otf2_out *o);
/* 0 for OTF2_SUCCESS; else -1, and o->err names what failed (if nothing
 * failed before). */
/* Prints "msgtrace export: OTF2 <what>: <error name>" and returns -1 when
 * e is not OTF2_SUCCESS, else 0. */
int mt_sink_otf2_check(const struct otf2_out *o, OTF2_ErrorCode e,
		       const char *what);

#endif /* MT_SINK_OTF2_H */
