/*
 * mt_trace.h - the msgtrace trace file format (version 1) and its reader.
 *
 * This header is the one contract between the recording half (provider/)
 * and the analysis half (decode/, match/, tools/). The provider writes these
 * structs into mmap'd files; the reader validates them and hands them out.
 * Nobody else defines on-disk structures, and nothing here knows libfabric
 * objects: ids are the recording process's object addresses, flags and class
 * numbers are libfabric's public constants stored as plain integers.
 *
 * File: one per recording thread, "<dir>/<host>.<pid>.<thread_seq>.mt".
 *   [struct mt_file_hdr, MT_FILE_HDR_SIZE bytes]
 *   [records: hdr.committed bytes starting at hdr.data_off]
 * Each record starts with struct mt_rec_hdr; size is a multiple of 8 and
 * >= sizeof(struct mt_rec_hdr). A writer publishes a record by a
 * store-release of hdr.committed after the record bytes, so a file cut short
 * by a crash or SIGKILL always holds a valid prefix of whole records.
 * Readers skip (and count) record types they do not know.
 * All integers are little-endian host order of the recording machine (x86-64).
 *
 * The second half of this header (after "Reader API") is the reader library
 * mt_trace (trace/ sources): it maps files read-only, validates every byte it
 * hands out, groups thread files into processes, converts clock ticks to
 * nanoseconds, merges all files in time order and resolves fi_addr values
 * to processes. It never includes libfabric headers and knows nothing of
 * MPI; it prints nothing and returns an mt_status plus an mt_err message.
 */
#ifndef MT_TRACE_H
#define MT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define MT_TRACE_MAGIC "MSGTRACE"	/* 8 bytes, no terminator on disk */
#define MT_TRACE_VERSION 1u
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
	X(CLOSE, 9)	/* object closed (struct mt_rec_close) */

enum mt_rec_type {
#define MT_REC_ENUM(name, val) MT_REC_##name = val,
	MT_REC_TYPES(MT_REC_ENUM)
#undef MT_REC_ENUM
};

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

/* aux = fid class. */
struct mt_rec_close {
	struct mt_rec_hdr h;
	uint64_t id;
	int32_t ret;
	uint32_t pad;
};

/* ======================================================================
 * Reader API (library mt_trace). Everything above is the on-disk format.
 * ====================================================================== */

/*
 * Status of every msgtrace library call (trace/, decode/, match/ share it):
 * MT_OK, MT_END (normal end of a stream, not an error), negative errors.
 */
enum mt_status {
	MT_OK = 0,
	MT_END = 1,
	MT_ERR_IO = -1,		/* open/stat/mmap/readdir failed */
	MT_ERR_CORRUPT = -2,	/* input violates its format */
	MT_ERR_VERSION = -3,	/* input has a format version we do not read */
	MT_ERR_NOMEM = -4,
	MT_ERR_ARG = -5,	/* caller passed something unusable */
};

const char *mt_status_str(enum mt_status s);

/* Why a call failed, one sentence: "<path>: offset <n>: <reason>". */
struct mt_err {
	char msg[512];
};

/* Fills err (if non-NULL) with a printf-style message; returns st. Every
 * library reports its failures through this one helper. */
enum mt_status mt_err_set(struct mt_err *err, enum mt_status st,
			  const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * libfabric's enum fi_class values (rdma/fabric.h), as stored in
 * mt_rec_obj.h.aux and mt_rec_close.h.aux. Mirrored here because trace/
 * must not include libfabric headers; tools/names.c static-asserts that
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

/* Size of the fixed struct of a known record type, 0 for unknown types. */
size_t mt_trace_rec_min_size(unsigned type);
/* "PROC", "CLOCK", ... as in MT_REC_TYPES, NULL for unknown types. */
const char *mt_trace_rec_name(unsigned type);
/* "TSEND", "TRECVMSG", ... as in MT_OPS, NULL for unknown ops. */
const char *mt_trace_op_name(unsigned op);

/* How a process's ticks become CLOCK_MONOTONIC nanoseconds. */
enum mt_trace_clock_kind {
	MT_TRACE_CLOCK_PAIRS,	/* START and END pairs: exact linear map */
	MT_TRACE_CLOCK_HZ,	/* START pair (or nothing) and clock_hz */
	MT_TRACE_CLOCK_RAW,	/* no PROC record: ticks taken as ns */
};

/*
 * ticks -> ns = base_ns + round((ticks - base_ticks) * mult / 2^shift):
 * mult is ns per tick as a fixed-point number with as many fraction bits
 * as fit in 64 bits, so a day of 3 GHz ticks is off by well under 1 ns.
 */
struct mt_trace_clock {
	enum mt_trace_clock_kind kind;
	uint32_t shift;
	uint64_t mult;
	uint64_t base_ticks;
	int64_t base_ns;
};

static inline int64_t mt_trace_ticks_ns(const struct mt_trace_clock *c,
					uint64_t ticks)
{
	/* Unsigned throughout: garbage ticks must wrap, not overflow. */
	uint64_t d = ticks - c->base_ticks;
	int neg = (int64_t)d < 0;
	unsigned __int128 p = (unsigned __int128)(neg ? -d : d) * c->mult;
	uint64_t ns = (uint64_t)((p + (((unsigned __int128)1 << c->shift) >> 1)) >>
				 c->shift);

	return (int64_t)((uint64_t)c->base_ns + (neg ? -ns : ns));
}

#define MT_TRACE_TYPE_SLOTS 16	/* record types counted per file: 0..15 */

/*
 * One mapped, validated file. Opening scans every record once: the records
 * in [data_off, valid_end) are all well-formed (size >= header, multiple of
 * 8, known types at least their struct size), so iterating them needs no
 * further checks. A bad record does not fail the open: it ends the valid
 * range and its message waits in scan_status/scan_err, which iteration
 * returns after the last good record.
 */
struct mt_trace_file {
	char *path;
	const uint8_t *map;
	size_t map_len;
	const struct mt_file_hdr *hdr;	/* points into map */
	char host[64];			/* from the file name, "" if it has none */
	uint64_t valid_end;		/* file offset after the last good record */
	enum mt_status scan_status;	/* MT_OK or the error that ended the scan */
	struct mt_err scan_err;
	uint64_t nrecs;			/* good records, unknown types included */
	uint64_t type_count[MT_TRACE_TYPE_SLOTS];	/* per record type */
	uint64_t unknown;		/* records of types this reader skips */
	uint64_t first_ts, last_ts;	/* ticks of first/last good record */
	uint64_t *setup_off;		/* offsets of records other than OP/CQE */
	size_t nsetup;
	uint32_t proc;			/* index in its trace's procs[] (mt_trace_open) */
	uint32_t index;			/* index in its process's files[] (mt_trace_open) */
};

/*
 * Open and scan one file. Header errors fail the open. MT_END (with a
 * message) for a file whose header was never written: size 0 or an
 * all-zero magic, what a writer killed while creating it leaves.
 */
enum mt_status mt_trace_file_open(const char *path, struct mt_trace_file **out,
				  struct mt_err *err);
void mt_trace_file_close(struct mt_trace_file *f);
static inline int mt_trace_file_clean(const struct mt_trace_file *f)
{
	return (f->hdr->flags & MT_FILE_CLOSED) != 0;
}

/* Record iteration over one file; unknown types are skipped (counted). */
struct mt_trace_cursor {
	const struct mt_trace_file *f;
	uint64_t off;
};

void mt_trace_cursor_init(struct mt_trace_cursor *c,
			  const struct mt_trace_file *f);
/* MT_OK with *rec set, MT_END after the last record, or the scan's error. */
enum mt_status mt_trace_cursor_next(struct mt_trace_cursor *c,
				    const struct mt_rec_hdr **rec,
				    struct mt_err *err);

/*
 * A process: the files sharing (host from the file name, pid from the
 * header). Its identity comes from the MT_REC_PROC record that opens its
 * thread_seq 0 file; threads share it and its clock.
 */
struct mt_trace_proc {
	char host[64];
	uint32_t pid;
	int32_t world_rank;		/* -1 when unknown */
	const struct mt_rec_proc *rec;	/* NULL when no thread_seq 0 PROC */
	const struct mt_rec_clock *clock_start, *clock_end;	/* or NULL */
	struct mt_trace_clock clock;
	int64_t merge_offset_ns;	/* added to ns when merging (struct mt_trace) */
	int64_t first_ns, last_ns;	/* span of its files' first and last
					 * records; first > last when none */
	struct mt_trace_file **files;	/* sorted by thread_seq */
	size_t nfiles;
};

/* An enabled endpoint (MT_REC_EP) and the AV bound to it. */
struct mt_trace_ep {
	uint32_t proc;
	const struct mt_rec_ep *rec;
	uint64_t av;			/* bound AV id, 0 if none recorded */
};

/* A CQ bound to an endpoint (MT_REC_BIND whose target is a CQ). */
struct mt_trace_cq_bind {
	uint32_t proc;
	uint64_t cq;
	uint64_t ep_id;
	const struct mt_trace_ep *ep;	/* NULL if ep_id was never enabled */
	uint64_t flags;			/* bind flags: FI_TRANSMIT, FI_RECV ... */
};

struct mt_trace_index;			/* private lookup tables */

/*
 * A whole trace: processes sorted by world rank (unknown ranks last, then
 * by host and pid). Timestamps merge on CLOCK_MONOTONIC ns when every
 * process ran on one host; across hosts on CLOCK_REALTIME ns derived from
 * each process's START pair (merge_offset_ns = realtime - monotonic).
 */
struct mt_trace {
	struct mt_trace_proc *procs;
	size_t nprocs;
	size_t nhosts;			/* distinct host names among procs */
	struct mt_trace_file **files;	/* every file, grouped by process */
	size_t nfiles;
	size_t nempty;			/* files skipped: header never written */
	struct mt_trace_ep *eps;	/* sorted by (proc, ep id, record order) */
	size_t neps;
	struct mt_trace_cq_bind *cqbinds;	/* sorted by (proc, cq, ep id) */
	size_t ncqbinds;
	struct mt_trace_index *index;
};

/*
 * Open paths[0..n): each a trace directory (all *.mt files in it) or one
 * file. The host of a file is taken from its name <host>.<pid>.<seq>.mt
 * (a name of another form gives host "", then the PROC record's hostname);
 * pid and thread_seq come from the header and must agree with the name.
 * A header error in any file fails the open; a bad record does not (see
 * struct mt_trace_file) and is returned by the merge when reached. Files
 * whose header was never written are skipped and counted in nempty.
 */
enum mt_status mt_trace_open(const char *const *paths, size_t n,
			     struct mt_trace **out, struct mt_err *err);
void mt_trace_close(struct mt_trace *t);

/*
 * Address resolution: process proc's AV av maps fi_addr to address bytes
 * (MT_REC_AV); the endpoint whose own name (MT_REC_EP) has those bytes is
 * the answer (the application-visible one when an internal layer's
 * endpoint has the same name), NULL when none does. Object ids are per
 * process; when an id was reused after a close, the last record wins.
 */
const struct mt_trace_ep *mt_trace_resolve(const struct mt_trace *t,
					   uint32_t proc, uint64_t av,
					   uint64_t fi_addr);
/* The same through the AV bound to endpoint ep of process proc. */
const struct mt_trace_ep *mt_trace_resolve_ep(const struct mt_trace *t,
					      uint32_t proc, uint64_t ep,
					      uint64_t fi_addr);
/* Endpoint record of (proc, ep id), or NULL. */
const struct mt_trace_ep *mt_trace_find_ep(const struct mt_trace *t,
					   uint32_t proc, uint64_t ep);
/* The binds of CQ cq in process proc: *first and count, none -> 0. */
size_t mt_trace_cq_binds(const struct mt_trace *t, uint32_t proc, uint64_t cq,
			 const struct mt_trace_cq_bind **first);

/* One record out of the merge. */
struct mt_trace_event {
	uint32_t proc;			/* index in procs[] */
	uint32_t file;			/* index in procs[proc].files[] */
	const struct mt_rec_hdr *rec;
	int64_t ns;			/* the process's CLOCK_MONOTONIC ns */
};

struct mt_trace_merge;

/*
 * Time-ordered k-way merge over every file of t: a loser tree keyed by
 * ns + merge_offset_ns, ties broken by process index, then file index.
 * A file's own records always keep their file order, so the output is
 * sorted when each file's timestamps are; a record written after a nested
 * one but stamped before it (all-layers traces) stays in file order.
 * Memory is O(files).
 */
enum mt_status mt_trace_merge_open(const struct mt_trace *t,
				   struct mt_trace_merge **out);
/* MT_OK with *ev set, MT_END when all files are done, or a file's error. */
enum mt_status mt_trace_merge_next(struct mt_trace_merge *m,
				   struct mt_trace_event *ev,
				   struct mt_err *err);
void mt_trace_merge_close(struct mt_trace_merge *m);

#endif /* MT_TRACE_H */
