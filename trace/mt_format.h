/*
 * mt_format.h - the msgtrace trace file format (version 1): the one contract
 * between the recording half (provider/, which writes these structs into
 * mmap'd files) and the analysis half (trace/'s reader, which validates
 * every byte before handing it out). Nobody else defines on-disk
 * structures. Nothing here knows libfabric objects or MPI: ids are the
 * recording process's object addresses, flags and class numbers are
 * libfabric's public constants stored as plain integers.
 *
 * File: one per recording thread, "<dir>/<host>.<pid>.<thread_seq>.mt".
 *   [struct mt_file_hdr, MT_FILE_HDR_SIZE bytes]
 *   [records: hdr.committed bytes starting at hdr.data_off]
 * Each record starts with struct mt_rec_hdr; size is a multiple of 8 and
 * >= sizeof(struct mt_rec_hdr). A writer publishes a record by a
 * store-release of hdr.committed after the record bytes, so a file cut short
 * by a crash or SIGKILL always holds a valid prefix of whole records.
 * Readers skip (and count) record types they do not know.
 *
 * Version 2 (MT_TRACE_VERSION_COMPACT) is a closed version 1 file compacted
 * when its writer closed it (or by `msgtrace compact`): the same header
 * with version 2, hdr_size = sizeof(struct mt_file_hdr), data_off =
 * MT_CODEC_DATA_OFF, committed = the bytes of the compact stream that
 * follows (capacity is kept: it bounds raw_bytes), raw_bytes = the version
 * 1 record bytes it decodes to. The
 * stream (codec/mt_codec.h) decodes to exactly the version 1 records, in
 * order, whatever their type. A writer produces it as "<name>.tmp" and
 * renames it over the version 1 file, so a file is always one or the other,
 * whole; files left open (crash, abandoned at exit) stay version 1.
 *
 * Version 4 (MT_TRACE_VERSION_RING) is a flight recorder's file
 * (FI_OFI_HOOK_MSGTRACE_MODE=ring): the same header, then
 *   [ring: ring_size bytes at data_off, ring_size / ring_block blocks]
 *   [pinned: hdr.pinned bytes at data_off + ring_size]
 * The records analysis needs whatever their age (mt_rec_pinned_type: PROC,
 * CLOCK, OBJ, EP, BIND, AV, CLOSE, MAP, SITE) go to the pinned area, which
 * only grows (store-release of hdr.pinned after the bytes). The others (OP,
 * CQE) go to the ring. Each ring block starts with struct mt_ring_block
 * and holds whole records; the writer fills blocks in sequence (block
 * number seq, from 1, lies at index (seq - 1) % blocks) and, when the next
 * record does not fit, closes the block (its 'used'), raises hdr.ring_seq
 * and starts the next block, overwriting the oldest: hdr.overwritten
 * counts the records it held. hdr.committed is the write position in the
 * ring (an offset from data_off within block ring_seq), published as in
 * version 1, so the block being written holds whole records up to it; a
 * take-back (see struct mt_rec_op) works as in version 1 within it. A
 * block whose header does not carry the seq its index expects is not
 * (yet, or any more) part of the ring. The records of the file in time
 * order: the pinned records merged by h.ts with the ring's blocks from the
 * oldest kept (mt_codec_ring_linear). A block is written over as it is:
 * bytes of an older lap stay in the fields a record does not write, which
 * the records the hooks write inline say by MT_AUX_UNWRITTEN (below); the
 * reader takes those fields as 0. A version 4 file closed normally is
 * compacted (version 2) from that order, or, uncompacted, stays version 4;
 * either way its header keeps MT_FILE_RING and overwritten.
 * Version 3 (MT_TRACE_VERSION_RING_ZEROED, still read) is version 4 with
 * every block zeroed before it was written over, and no record carrying
 * MT_AUX_UNWRITTEN.
 * All integers are little-endian host order of the recording machine (x86-64).
 */
#ifndef MT_FORMAT_H
#define MT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define MT_TRACE_MAGIC "MSGTRACE"	/* 8 bytes, no terminator on disk */
#define MT_TRACE_VERSION 1u
#define MT_TRACE_VERSION_COMPACT 2u
#define MT_TRACE_VERSION_RING 4u
#define MT_TRACE_VERSION_RING_ZEROED 3u
#define MT_FILE_HDR_SIZE 4096u
#define MT_TRACE_SUFFIX ".mt"

/* Why records were not written. Counted, never logged on the hot path. */
enum mt_loss {
	MT_LOSS_FULL,		/* file reached its configured size limit */
	MT_LOSS_NOSPACE,	/* file could not grow: disk full, RLIMIT_FSIZE */
	MT_LOSS_NOFILE,		/* thread has no file (creation failed) */
	MT_LOSS_COUNT
};

enum mt_file_flags {
	MT_FILE_CLOSED = 1u << 0,	/* writer closed the file normally */
	MT_FILE_ALL_LAYERS = 1u << 1,	/* internal layers were recorded too */
	MT_FILE_RING = 1u << 2,		/* written as a ring (versions 3 and
					 * 4, or compacted from one) */
};

struct mt_file_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;		/* MT_FILE_HDR_SIZE */
	uint64_t data_off;		/* offset of the first record */
	uint64_t committed;		/* record bytes published (store-release) */
	uint64_t capacity;		/* record bytes this file may grow to */
	uint32_t pid;
	uint32_t tid;
	uint32_t thread_seq;		/* 0: the process's first file, holds MT_REC_PROC */
	uint32_t flags;			/* enum mt_file_flags */
	uint64_t lost[MT_LOSS_COUNT];	/* records dropped, per enum mt_loss */
	uint64_t empty_polls;		/* CQ reads that returned nothing */
	uint64_t eagain;		/* posting calls that returned -FI_EAGAIN */
	/* Appended within version 1 (older files hold 0 here): records made
	 * in a signal handler while the thread was inside another record,
	 * dropped so that they never tear it. */
	uint64_t lost_nested;
	/* Version 2 only (0 in version 1): the record bytes the compact
	 * stream decodes to, the version 1 file's committed. */
	uint64_t raw_bytes;
	/* Ring files (MT_FILE_RING; 0 otherwise). Version 3: the ring's
	 * layout and state; after compaction only overwritten is kept. */
	uint64_t ring_size;		/* bytes of the ring, from data_off */
	uint64_t ring_block;		/* bytes of one block, divides ring_size */
	uint64_t ring_seq;		/* seq of the block being written (from 1) */
	uint64_t pinned;		/* bytes of pinned records (store-release) */
	uint64_t overwritten;		/* ring records overwritten by later ones */
};

/* A flight recorder's file as written (version 4) or by older writers. */
static inline int mt_trace_version_ring(uint32_t version)
{
	return version == MT_TRACE_VERSION_RING ||
	       version == MT_TRACE_VERSION_RING_ZEROED;
}

/* Files of versions 1 and 2 written before the ring's fields were appended
 * hold a header of this many bytes (hdr_size); the reader takes the ring's
 * fields of such a file as 0. */
#define MT_FILE_HDR_SIZE_V1 offsetof(struct mt_file_hdr, ring_size)

/* The start of every block of a ring (versions 3 and 4). seq: its number, from 1
 * (0: never used); used: bytes of records after this struct, stored when
 * the writer left the block (the block being written: hdr.committed). */
struct mt_ring_block {
	uint64_t seq;
	uint64_t used;
};

/* Record types. Values are stable: never renumber, only append. */
#define MT_REC_TYPES(X)	\
	X(PROC, 1)	/* process identity, clock source (struct mt_rec_proc) */ \
	X(CLOCK, 2)	/* calibration pair (struct mt_rec_clock) */ \
	X(OBJ, 3)	/* object opened (struct mt_rec_obj) */ \
	X(EP, 4)	/* endpoint enabled: attributes and name (struct mt_rec_ep) */ \
	X(BIND, 5)	/* fi_*_bind (struct mt_rec_bind) */ \
	X(AV, 6)	/* one address inserted into an AV (struct mt_rec_av) */ \
	X(OP, 7)	/* data-transfer call or cancel (struct mt_rec_op) */ \
	X(CQE, 8)	/* one completion or error entry read (struct mt_rec_cqe) */ \
	X(CLOSE, 9)	/* object closed (struct mt_rec_close) */ \
	X(MAP, 10)	/* a loaded object call sites lie in (struct mt_rec_map) */ \
	X(SITE, 11)	/* a distinct call site (struct mt_rec_site) */

enum mt_rec_type {
#define MT_REC_ENUM(name, val) MT_REC_##name = val,
	MT_REC_TYPES(MT_REC_ENUM)
#undef MT_REC_ENUM
};

/* Record types a ring keeps whatever their age (its pinned
 * area); every other type, unknown ones included, goes to the ring. */
static inline int mt_rec_pinned_type(unsigned type)
{
	return type != MT_REC_OP && type != MT_REC_CQE && type >= MT_REC_PROC &&
	       type <= MT_REC_SITE;
}

struct mt_rec_hdr {
	uint8_t type;		/* enum mt_rec_type */
	uint8_t layer;		/* 0: application-visible, 1: internal layer */
	uint16_t size;		/* bytes including this header, multiple of 8 */
	uint32_t aux;		/* per type, see each record */
	uint64_t ts;		/* trace clock ticks; see mt_rec_proc.clock_* */
};

enum mt_clock_source {
	MT_CLOCK_TSC = 1,	/* invariant TSC ticks */
	MT_CLOCK_MONOTONIC = 2,	/* CLOCK_MONOTONIC nanoseconds */
};

/*
 * Written once per process, first record of thread_seq 0. aux = 0, or the
 * pid of the traced process this one is a fork() of: a forked child keeps
 * its parent's launcher identity (world_rank, job_id ...) and clock, with
 * its own pid, and records into files of its own.
 */
struct mt_rec_proc {
	struct mt_rec_hdr h;
	uint32_t pid;
	int32_t world_rank;		/* -1 when the launcher did not say */
	int32_t world_size;		/* -1 when unknown */
	int32_t local_rank;		/* -1 when unknown */
	uint32_t fi_version;		/* fi_version() of the loaded libfabric */
	uint32_t clock_source;		/* enum mt_clock_source */
	uint64_t clock_hz;		/* ticks per second estimated at start */
	uint64_t start_realtime_ns;
	char hostname[64];
	char job_id[64];		/* launcher's job id, or "" */
	char cpuset[128];		/* hwloc binding, hwloc_bitmap_list_asprintf */
	char numa[32];			/* NUMA node(s) the binding covers, list form */
	char package[32];		/* package(s) the binding covers, list form */
};

enum mt_clock_phase { MT_CLOCK_START, MT_CLOCK_EXTEND, MT_CLOCK_END };

/* aux = enum mt_clock_phase; h.ts = the tick value read between the two. */
struct mt_rec_clock {
	struct mt_rec_hdr h;
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
};

/* aux = fid class (FI_CLASS_*). One per object the hook sees opened. */
struct mt_rec_obj {
	struct mt_rec_hdr h;
	uint64_t id;			/* the object's fid address in the process */
	uint64_t parent;		/* fabric/domain/sep it was opened from, or 0 */
	uint64_t attr;			/* class-specific: cq format, av type ... */
	char prov_name[32];		/* provider that owns the object */
};

/* aux = 0. Written when an endpoint is enabled (FI_ENABLE). */
struct mt_rec_ep {
	struct mt_rec_hdr h;
	uint64_t ep;
	uint64_t domain;
	uint64_t caps;
	uint64_t mode;
	uint64_t mem_tag_format;
	uint64_t msg_order;		/* tx_attr->msg_order */
	uint64_t tx_op_flags;
	uint64_t rx_op_flags;
	uint64_t inject_size;
	uint64_t cq_data_size;
	uint32_t threading;		/* enum fi_threading */
	uint32_t ep_type;		/* enum fi_ep_type */
	uint32_t addr_format;
	uint32_t name_len;		/* bytes of name[] used */
	char prov_name[32];
	char fabric_name[32];
	uint8_t name[64];		/* fi_getname() bytes, truncated to 64 */
};

/* aux = 0. */
struct mt_rec_bind {
	struct mt_rec_hdr h;
	uint64_t obj;			/* endpoint (or other) being bound */
	uint64_t target;		/* cq, av, cntr, eq ... */
	uint64_t flags;			/* FI_TRANSMIT, FI_RECV, FI_SELECTIVE_COMPLETION ... */
};

enum mt_av_call { MT_AV_INSERT, MT_AV_INSERTSVC, MT_AV_INSERTSYM };

/* aux = enum mt_av_call. One record per address that got an fi_addr. */
struct mt_rec_av {
	struct mt_rec_hdr h;
	uint64_t av;
	uint64_t fi_addr;
	uint64_t flags;
	uint32_t addr_len;		/* bytes of addr[] used */
	uint32_t pad;
	uint8_t addr[64];		/* address bytes, truncated to 64 */
};

/* Data-transfer calls: aux = enum mt_op. */
#define MT_OPS(X)	\
	X(TRECV, 1) X(TRECVV, 2) X(TRECVMSG, 3) \
	X(TSEND, 4) X(TSENDV, 5) X(TSENDMSG, 6) X(TINJECT, 7) \
	X(TSENDDATA, 8) X(TINJECTDATA, 9) \
	X(RECV, 10) X(RECVV, 11) X(RECVMSG, 12) \
	X(SEND, 13) X(SENDV, 14) X(SENDMSG, 15) X(INJECT, 16) \
	X(SENDDATA, 17) X(INJECTDATA, 18) \
	X(CANCEL, 19)

enum mt_op {
#define MT_OP_ENUM(name, val) MT_OP_##name = val,
	MT_OPS(MT_OP_ENUM)
#undef MT_OP_ENUM
};

/*
 * One posting call that did not return -FI_EAGAIN (those are counted in
 * 'retries' of the next record of the same thread, and in the file header).
 * Fields a call does not have are 0 (ignore, data, flags) or FI_ADDR_UNSPEC
 * as passed. len is the sum of the iov lengths for vector calls.
 * For MT_OP_CANCEL: ep = the fid cancelled, context = the context argument.
 * h.ts is read before the call. The writer publishes the record before
 * calling the provider and stores ret when the call returns, so two rare
 * cases exist: ret == MT_OP_RET_PENDING (the process died inside the call),
 * and ret == -FI_EAGAIN (-11) when a nested record on the same thread
 * already followed it (otherwise it is taken back): treat both as not posted.
 * In a file still being written, MT_OP_RET_PENDING is a call in progress,
 * which the writer may still take back: readers stop before it
 * (trace/mt_trace.h, struct mt_trace_file).
 */
#define MT_OP_RET_PENDING INT32_MIN
struct mt_rec_op {
	struct mt_rec_hdr h;
	uint64_t ep;
	uint64_t addr;			/* dest_addr / src_addr argument */
	uint64_t tag;
	uint64_t ignore;
	uint64_t len;
	uint64_t data;
	uint64_t context;
	uint64_t flags;			/* *msg calls: the flags argument */
	int32_t ret;			/* return value of the call */
	uint32_t retries;		/* -FI_EAGAIN returns just before this call */
};

/*
 * Ring files (version 4): an OP or CQE record whose h.aux carries
 * MT_AUX_UNWRITTEN was written where a block of an older lap may have left
 * bytes, by a writer that stored only the fields its call has: the fields
 * mt_op_lacks(op) names and retries of an OP; of a CQE, those its CQ's
 * format (MT_CQ_FORMAT_*, in h.aux bits 8-15 under the flag, the enum
 * mt_cq_call in bits 0-7) does not carry, and olen, err and prov_errno.
 * Their bytes are not the record's: a reader takes them as 0 and the aux
 * without these bits (mt_codec_ring_linear does), which gives the record
 * as a version 1 file holds it. No other file carries the flag.
 */
#define MT_AUX_UNWRITTEN (1u << 31)
#define MT_AUX_CQ_FORMAT_SHIFT 8

/* Fields of struct mt_rec_op some calls do not have (stored as 0). */
enum mt_op_field {
	MT_OPF_TAG = 1u << 0,
	MT_OPF_IGNORE = 1u << 1,
	MT_OPF_LEN = 1u << 2,
	MT_OPF_DATA = 1u << 3,
	MT_OPF_CONTEXT = 1u << 4,
	MT_OPF_FLAGS = 1u << 5,
};

/* The fields of struct mt_rec_op the call op does not have: libfabric's
 * signatures (fi_tinject has no context, only *msg calls have flags,
 * untagged calls no tag ...). 0 for an op this header does not know. */
static inline unsigned mt_op_lacks(unsigned op)
{
	const unsigned untagged = MT_OPF_TAG | MT_OPF_IGNORE;

	switch (op) {
	case MT_OP_TRECV: case MT_OP_TRECVV:
		return MT_OPF_DATA | MT_OPF_FLAGS;
	case MT_OP_TRECVMSG:
		return 0;
	case MT_OP_TSEND: case MT_OP_TSENDV:
		return MT_OPF_IGNORE | MT_OPF_DATA | MT_OPF_FLAGS;
	case MT_OP_TSENDMSG:
		return MT_OPF_IGNORE;
	case MT_OP_TINJECT:
		return MT_OPF_IGNORE | MT_OPF_DATA | MT_OPF_CONTEXT | MT_OPF_FLAGS;
	case MT_OP_TSENDDATA:
		return MT_OPF_IGNORE | MT_OPF_FLAGS;
	case MT_OP_TINJECTDATA:
		return MT_OPF_IGNORE | MT_OPF_CONTEXT | MT_OPF_FLAGS;
	case MT_OP_RECV: case MT_OP_RECVV: case MT_OP_RECVMSG: case MT_OP_SEND:
	case MT_OP_SENDV: case MT_OP_SENDMSG: case MT_OP_INJECT:
	case MT_OP_SENDDATA: case MT_OP_INJECTDATA:
		/* fi_recv ... fi_injectdata: fi_trecv ... without a tag */
		return untagged | mt_op_lacks(op - MT_OP_RECV + MT_OP_TRECV);
	case MT_OP_CANCEL:
		return untagged | MT_OPF_LEN | MT_OPF_DATA | MT_OPF_FLAGS;
	default:
		return 0;
	}
}

/*
 * Call sites (FI_OFI_HOOK_MSGTRACE_CALLSITE=1): every OP record is then
 * struct mt_rec_op_site, h.size 96 instead of 88, and names the call site of
 * the posting call by an index into its own file's MT_REC_SITE records
 * (each file, i.e. each recording thread, numbers its sites from 1). Readers
 * accept both sizes; the OP fields keep their offsets.
 */
#define MT_SITE_NONE 0u			/* no application frame on the stack */
#define MT_SITE_LOST UINT32_MAX		/* the thread's site table was full */
#define MT_SITE_MAX 4096u		/* a file's site indexes: 1..MT_SITE_MAX */
struct mt_rec_op_site {
	struct mt_rec_op op;
	uint32_t site;			/* MT_REC_SITE index, or NONE / LOST */
	uint32_t pad;
};

/*
 * aux = the site's index in its file (1, 2, ...), written once, before the
 * first OP that names it. app: the first return address on the stack that
 * lies outside the objects the hook skips (libfabric, the MPI library, the
 * hook itself: see MT_MAP_SKIPPED); entry: the last return address inside a
 * skipped object before it, i.e. inside the MPI entry point the application
 * called (PMPI_Recv ...), 0 if none. Both are run-time addresses: an
 * MT_REC_MAP record of the same file, written before this one, covers each.
 */
struct mt_rec_site {
	struct mt_rec_hdr h;
	uint64_t app;
	uint64_t entry;
};

/* mt_rec_map.h.aux */
enum mt_map_class {
	MT_MAP_APP = 0,		/* the application's own code */
	MT_MAP_SKIPPED = 1,	/* libfabric, the MPI library or the hook */
};

/*
 * One loaded object (executable or shared library) that a call site's
 * address lies in, written by a thread before the first MT_REC_SITE of its
 * file that needs it. base is the load bias (dl_phdr_info.dlpi_addr: 0 for
 * a non-PIE executable), so address - base is the ELF virtual address;
 * [start, end) the run-time range of its PT_LOAD segments. path is
 * NUL-terminated and fills the rest of the record (h.size rounded up to 8,
 * at least sizeof(struct mt_rec_map));
 * the executable's is /proc/self/exe resolved. build_id: the
 * NT_GNU_BUILD_ID note's first build_id_len bytes (0: none), so an analysis
 * can tell a rebuilt binary from the recorded one.
 */
struct mt_rec_map {
	struct mt_rec_hdr h;
	uint64_t base;
	uint64_t start;
	uint64_t end;
	uint32_t build_id_len;
	uint32_t pad;
	uint8_t build_id[32];
	char path[8];			/* its start: the path runs on to h.size */
};

/* libfabric's enum fi_cq_format values the CQ hooks record (mirrored:
 * the reader includes no libfabric header; provider/hook_cq.c asserts
 * each equals its FI_CQ_FORMAT_* counterpart). */
enum mt_cq_format {
	MT_CQ_FORMAT_CONTEXT = 1,
	MT_CQ_FORMAT_MSG = 2,
	MT_CQ_FORMAT_DATA = 3,
	MT_CQ_FORMAT_TAGGED = 4,
};

enum mt_cq_call { MT_CQ_READ, MT_CQ_READFROM, MT_CQ_READERR, MT_CQ_SREAD,
		  MT_CQ_SREADFROM };

/*
 * aux = enum mt_cq_call. One record per entry returned. Fields the CQ format
 * does not carry are 0; src is FI_ADDR_NOTAVAIL unless a *from call gave it.
 * err, prov_errno and olen are set only for MT_CQ_READERR entries.
 * h.ts is read when the read returned. The CQ's format is in the attr of
 * its MT_REC_OBJ (FI_CQ_FORMAT_*; an UNSPEC request is stored as the format
 * the provider delivers, CONTEXT for util-based providers and sockets).
 */
struct mt_rec_cqe {
	struct mt_rec_hdr h;
	uint64_t cq;
	uint64_t context;
	uint64_t flags;
	uint64_t len;
	uint64_t tag;
	uint64_t data;
	uint64_t src;
	uint64_t olen;
	int32_t err;
	int32_t prov_errno;
};

/* aux = fid class; h.ts = when the close returned. */
struct mt_rec_close {
	struct mt_rec_hdr h;
	uint64_t id;
	int32_t ret;
	uint32_t pad;
};

/*
 * libfabric's enum fi_class values (rdma/fabric.h), as stored in
 * mt_rec_obj.h.aux and mt_rec_close.h.aux. Mirrored here because the reader
 * must not include libfabric headers; sink/names.c static-asserts that
 * each one equals its FI_CLASS_* counterpart.
 */
enum mt_fid_class {
	MT_FID_CLASS_FABRIC = 1,
	MT_FID_CLASS_DOMAIN = 2,
	MT_FID_CLASS_EP = 3,
	MT_FID_CLASS_SEP = 4,
	MT_FID_CLASS_RX_CTX = 5,
	MT_FID_CLASS_SRX_CTX = 6,
	MT_FID_CLASS_TX_CTX = 7,
	MT_FID_CLASS_AV = 11,
	MT_FID_CLASS_EQ = 13,
	MT_FID_CLASS_CQ = 14,
	MT_FID_CLASS_CNTR = 15,
};

#endif /* MT_FORMAT_H */
