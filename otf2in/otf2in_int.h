/*
 * otf2in_int.h - the OTF2 front end's state, shared by otf2in/ sources only.
 */
#ifndef OTF2IN_INT_H
#define OTF2IN_INT_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "mt_otf2in.h"

#define OI_NONE UINT32_MAX
#define OI_DEPTH 32		/* nested regions remembered per location */
#define OI_CTX_BLOCK (1ull << 63)	/* contexts of blocking operations */
/* Times are ns on the archive's own clock. One that starts near zero
 * (EZTrace counts from each process's start) is moved this far up: times
 * are unsigned, and the clock correction may move events earlier than
 * the first. msgtrace's own export (OI_ONE_CLOCK), never corrected, is
 * not moved. */
#define OI_BASE_NS 1000000000000ull

/* Archive property written by msgtrace's export: its times are on one
 * clock already (the trace's, or the corrected merged clock). */
#define OI_ONE_CLOCK "MSGTRACE::ONE_CLOCK"
/* Archive property written by a joined export: the communicator (its
 * reference, in decimal) of the MPI calls' point-to-point events, which
 * restate messages the fabric events already hold. */
#define OI_CALLS_COMM "MSGTRACE::MPI_CALLS_COMM"

/* OTF2 reference -> dense index: open addressing, power-of-two table. */
struct oi_map {
	uint64_t *key;
	uint32_t *val;
	uint32_t cap, n;
};

int mt_otf2in_map_put(struct oi_map *m, uint64_t key, uint32_t val);
uint32_t mt_otf2in_map_get(const struct oi_map *m, uint64_t key);
void mt_otf2in_map_free(struct oi_map *m);

/* msgtrace's own attributes (attrs.c), by name: the fabric fields its
 * export writes (sink/sink_otf2.h). */
enum { OI_A_KIND, OI_A_CID, OI_A_COMM_SRC, OI_A_FLAGS, OI_A_TAG, OI_A_PEER,
       OI_A_COMM, OI_A_RECV_BUF, OI_A_COUNT };
#define OI_F_INTERNAL 1u
#define OI_F_HAS_TAG 2u
#define OI_F_ANY_SRC 4u

/* What an event's attributes say of its message. */
struct oi_fab {
	struct mt_match_fields f;	/* tag: a request's posted tag */
	uint64_t recv_buf;		/* a receive's posted length: given on
					 * its request, and on its completion
					 * when it was truncated */
	uint64_t comm;			/* a request's communicator (ref) */
	int32_t peer;			/* a request's posted world rank, -1 */
	uint8_t has;			/* f and peer are given */
	uint8_t has_comm;		/* comm is given */
	uint8_t has_buf;		/* recv_buf is given */
};

/* A receive in its location's posting order: waiting for its completion,
 * or completed and held behind an earlier one that is not. */
struct oi_recv {
	uint64_t req;		/* request id; 0 for MpiRecv */
	uint64_t post_ts, done_ts, len, ctx;
	int32_t peer;		/* sending location */
	int32_t comm_src;
	uint32_t comm;		/* communicator index */
	uint32_t tag;
	uint8_t done, cancelled;
	uint8_t posted;		/* given to the matcher at its request */
	uint8_t fed;		/* its completion given too */
	struct oi_fab fab;	/* msgtrace's attributes, fab.has 0: none */
};

struct oi_loc {
	uint64_t ref;
	uint32_t proc;		/* location group index: trace process */
	uint32_t seq;		/* contexts of blocking operations */
	struct oi_recv *rq;	/* receives in posting order: [head, n) */
	size_t rq_head, rq_n, rq_cap;
	uint64_t send_ctx;	/* blocking send completing at Leave, 0: none */
	uint32_t depth;		/* regions entered */
	uint32_t region[OI_DEPTH];
	uint64_t enter_ts[OI_DEPTH];
	uint8_t in_coll;
	uint8_t p2p;		/* a point-to-point event since the last Enter */
};

struct oi_group {		/* a COMM_GROUP or COMM_SELF definition */
	uint8_t self;
	uint32_t n;
	uint64_t *members;	/* ranks in the COMM_LOCATIONS group */
};

struct oi_comm {
	uint64_t ref;
	uint32_t group;		/* index in groups, OI_NONE: undefined */
	uint32_t n;		/* its ranks' locations, resolved */
	int32_t *loc;		/* rank -> location index, -1 unknown */
};

struct mt_otf2in {
	char path[4096];
	OTF2_Reader *rd;
	OTF2_GlobalEvtReader *ger;
	struct mt_match *m;
	struct mt_err *err;	/* the read's, for callbacks */
	enum mt_status fail;	/* a callback's failure */
	uint64_t resolution, offset, length;
	uint64_t base_ns;	/* added to every time (mt_otf2in_ns) */
	int one_clock;		/* OI_ONE_CLOCK */
	uint64_t calls_comm;	/* OI_CALLS_COMM, OTF2_UNDEFINED_COMM: none */
	uint32_t attr[OI_A_COUNT];	/* msgtrace's attribute refs, OI_NONE */
	uint32_t kind_str[MT_MATCH_KIND_COUNT];	/* their names' string refs */
	/* definitions */
	char **str;
	struct oi_map str_map;
	size_t nstr, cap_str;
	struct { uint64_t ref; uint32_t name, parent; } *stn;
	size_t nstn, cap_stn;
	struct { uint64_t ref; uint32_t name, stn; } *lg;
	size_t nlg, cap_lg;
	struct { uint64_t ref, events; uint32_t name, lg; } *ldef;
	size_t nldef, cap_ldef;
	uint64_t *world;	/* the COMM_LOCATIONS group of MPI: locations */
	uint32_t nworld;
	struct oi_group *groups;
	struct oi_map group_map;
	size_t ngroups, cap_groups;
	struct oi_comm *comms;
	struct oi_map comm_map;
	size_t ncomms, cap_comms;
	struct oi_map src_map;	/* comm << 32 | location -> rank + 1 */
	struct { uint64_t ref; uint32_t name; uint8_t sendrecv; } *regions;
	struct oi_map region_map;
	size_t nregions, cap_regions;
	/* per location group: clock offsets (local definitions) */
	struct { uint64_t ns; int64_t off; } (*cal)[2];
	uint8_t *ncal;
	/* locations, by index = endpoint */
	struct oi_loc *loc;
	size_t nloc;
	struct oi_map loc_map;
	/* the trace description */
	struct mt_trace t;
	struct mt_trace_proc *procs;
	struct mt_trace_ep *eps;
	struct mt_rec_ep *ep_recs;
	struct mt_rec_clock *clk;
	struct mt_trace_file *files;	/* one per location: its thread */
	struct mt_trace_file **file_ptrs;
	struct mt_trace_job job;
	struct mt_otf2in_facts facts;
};

/* defs.c */
enum mt_status mt_otf2in_read_defs(struct mt_otf2in *in, struct mt_err *err);
void mt_otf2in_free_defs(struct mt_otf2in *in);
const char *mt_otf2in_string(const struct mt_otf2in *in, uint32_t ref);
/* attrs.c */
OTF2_CallbackCode mt_otf2in_def_attribute(void *arg, OTF2_AttributeRef self,
					  OTF2_StringRef name, OTF2_StringRef descr,
					  OTF2_Type type);
/* 1 when al holds msgtrace's fields of a message (x filled); x->has_buf may
 * be set either way. */
int mt_otf2in_fab(const struct mt_otf2in *in, const OTF2_AttributeList *al,
		  struct oi_fab *x);
/* Notes string s (ref) if it names a message kind. */
void mt_otf2in_def_kind(struct mt_otf2in *in, uint32_t ref, const char *s);
/* events.c */
void mt_otf2in_set_callbacks(OTF2_GlobalEvtReaderCallbacks *cb);
enum mt_status mt_otf2in_flush_all(struct mt_otf2in *in);
/* Communicator index of comm, and the location of its rank r (-1: none);
 * self: the location asking (MPI_COMM_SELF). */
uint32_t mt_otf2in_comm_peer(struct mt_otf2in *in, int32_t self, OTF2_CommRef comm,
			     uint32_t r, int32_t *peer);

#endif /* OTF2IN_INT_H */
