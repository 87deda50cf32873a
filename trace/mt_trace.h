/*
 * mt_trace.h - the trace reader (library mt_trace): maps trace files
 * read-only, validates every byte it hands out, groups thread files into
 * processes, converts clock ticks to nanoseconds, merges all files in time
 * order and resolves fi_addr values to processes. The records themselves
 * are defined in mt_format.h, the provider's output contract.
 *
 * It must not know libfabric (no libfabric header) nor MPI (tags are
 * opaque integers here); it prints nothing and returns an mt_status plus an
 * mt_err message.
 */
#ifndef MT_TRACE_H
#define MT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "mt_codec.h"
#include "mt_format.h"
#include "mt_status.h"

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
 *
 * Safe on a file its writer is still writing: the header is read once
 * (hdr is that snapshot, not the live page) and only the bytes it says are
 * committed are mapped (its close truncates the file to its final
 * committed size, never below). A file shorter than that (a truncated
 * copy) maps what there is. Of those bytes the writer changes only a call
 * in progress: an OP it publishes before the call, whose ret it stores
 * after, or which it takes back after -FI_EAGAIN (committed goes back over
 * it, and what comes next is written there). So the valid range of a file
 * being written ends before its first call in progress (inflight): every
 * reader sees a call once it returned, the same whenever it reads. A file
 * left by a killed writer reads past it (ret stays MT_OP_RET_PENDING).
 * When the writer took a call back while the file was read (its header's
 * EAGAIN count moved), the bytes that call may have held, and what was
 * written over them, are left out: the range ends before the last 96
 * bytes the header said were committed.
 */
struct mt_trace_file {
	char *path;
	const uint8_t *map;
	size_t map_len;			/* bytes mapped: committed, or the file */
	const struct mt_file_hdr *hdr;	/* &hdr_snap */
	struct mt_file_hdr hdr_snap;	/* the header as read at open */
	int live;			/* not closed and its writer still runs
					 * (set by mt_trace_open) */
	char host[64];			/* from the file name, "" if it has none */
	uint64_t valid_end;		/* file offset after the last good record */
	uint64_t inflight;		/* where the valid range stopped at a call
					 * in progress (its writer runs), or 0 */
	enum mt_status scan_status;	/* MT_OK or the error that ended the scan */
	struct mt_err scan_err;
	uint64_t nrecs;			/* good records, unknown types included */
	uint64_t type_count[MT_TRACE_TYPE_SLOTS];	/* per record type */
	uint64_t unknown;		/* records of types this reader skips */
	uint64_t first_ts, last_ts;	/* ticks of first/last good record */
	uint64_t *setup_off;		/* offsets of records other than OP/CQE,
					 * in setup_base (mt_trace_file_setup) */
	size_t nsetup;
	int setup_first;		/* the first record is setup_off[0]'s */
	/* Version 2 (compacted) files: the stream is decoded on the fly
	 * (valid_end is a stream offset), its setup records are copied here
	 * at open; version 1: setup_base is map. */
	int compact;
	const uint8_t *setup_base;
	uint8_t *setup_buf;
	size_t setup_len;
	uint32_t proc;			/* index in its trace's procs[] (mt_trace_open) */
	uint32_t index;			/* index in its process's files[] (mt_trace_open) */
	uint32_t *site_ids;		/* its MT_REC_SITE index - 1 -> trace site
					 * number (0: no such record) */
	uint32_t nsite_ids;
	/*
	 * Flight recorder files (MT_FILE_RING: version 3, or compacted from
	 * one). A ring's records are read in time order from the oldest
	 * kept (struct mt_file_hdr, mt_codec_ring_linear): the pinned ones
	 * (mt_rec_pinned_type) whatever their age, the others only from
	 * oldest_ts on when it wrapped. map then is a buffer of the reader's
	 * holding them as a version 1 file; hdr_snap's committed and
	 * capacity are its size, the other fields as read.
	 */
	int ring;			/* written in ring mode */
	int wrapped;			/* records of its ring were overwritten */
	uint64_t overwritten;		/* how many (as its header said) */
	uint64_t oldest_ts;		/* ticks of its first record that is not
					 * pinned (OP, CQE ...): where a wrapped
					 * file's window starts; 0: none */
	int map_heap;			/* map is the reader's buffer (free) */
	const char *ring_why;		/* the ring's layout error, or NULL */
	uint64_t ring_seq, ring_committed, ring_pinned;	/* as read */
	/* An opening divided among readers (mt_trace_open_part): the part
	 * that scans this file (-1: each part scans it), and whether the
	 * fields above that a scan sets are still owed by that part. */
	int32_t scan_part;
	int scan_owed;
};

/*
 * Open and scan one file. Header errors fail the open. MT_END (with a
 * message) for a file whose header was never written: size 0 or an
 * all-zero magic, what a writer killed while creating it leaves.
 */
enum mt_status mt_trace_file_open(const char *path, struct mt_trace_file **out,
				  struct mt_err *err);
void mt_trace_file_close(struct mt_trace_file *f);
/* f's mapped pages given back (to the page cache): the mapping stays valid
 * and is read again where touched, so a reader that goes on to read few
 * files does not keep every scanned page resident. */
void mt_trace_file_release(const struct mt_trace_file *f);
/* Setup record j of f (a pointer valid while f is open). */
static inline const struct mt_rec_hdr *mt_trace_file_setup(const struct mt_trace_file *f,
							   size_t j)
{
	return (const struct mt_rec_hdr *)(f->setup_base + f->setup_off[j]);
}
/* Whether rec (a setup record) belongs to f. */
static inline int mt_trace_file_owns(const struct mt_trace_file *f, const void *rec)
{
	/* As integers: a compacted file without setup records has no
	 * setup_base (NULL, setup_len 0). */
	uintptr_t r = (uintptr_t)rec, base = (uintptr_t)f->setup_base;

	return r - base < f->setup_len;
}
static inline int mt_trace_file_clean(const struct mt_trace_file *f)
{
	return (f->hdr->flags & MT_FILE_CLOSED) != 0;
}

/*
 * Whether the process that wrote a file with this PROC record still runs:
 * the same host as this one, and a process of that pid that started no
 * later than the record (a pid reused since started after it). 0 when it
 * cannot tell (another host, no /proc).
 */
int mt_trace_writer_alive(const char *host, const struct mt_rec_proc *rec);

/*
 * Reading on as a writer appends (resume.c): the records committed in f
 * past file offset from (where the last read stopped: f->valid_end, then
 * from + the last tail's len), read into tail->buf, which the caller keeps
 * between calls and frees. tail->len is the whole, well-formed records
 * read up to a call in progress while f is live (the next read starts
 * there: its writer may still take it back); a bad record ends f's valid
 * records, f->scan_status says why;
 * tail->setup says one of them is a record the reader's tables are built
 * from (PROC, OBJ, EP, BIND, AV: the caller then opens the trace again,
 * those tables are as opened); OP, CQE, CLOSE and CLOCK records are not
 * (a CLOCK pair read on leaves the process's clock map as opened). f's
 * mapping and valid range stay as opened; hdr_snap, nrecs, the counts and
 * last_ts follow the read. A closed file (or one with a bad record) reads
 * nothing more. MT_OK, or the file cannot be read again.
 */
struct mt_trace_tail {
	uint8_t *buf;
	size_t cap, len;
	uint64_t from;			/* file offset of buf[0] */
	int setup;
};

enum mt_status mt_trace_file_resume(struct mt_trace_file *f, uint64_t from,
				    struct mt_trace_tail *tail,
				    struct mt_err *err);

/* Record iteration over one file; unknown types are skipped (counted). A
 * record handed out is valid until the next call (a compacted file's is
 * decoded into dec: memory stays bounded whatever the file's size). */
struct mt_trace_cursor {
	const struct mt_trace_file *f;
	uint64_t off;
	struct mt_codec_state dec;
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
 * thread_seq 0 file; threads share it and its clock. Across jobs a process
 * is (job, rank), and key numbers it for every later stage: the first
 * job's ranks as they are, each later job's ranks after the previous
 * job's highest (struct mt_trace_job), forked processes after them all
 * (struct mt_trace_fork).
 */
struct mt_trace_proc {
	char host[64];
	uint32_t pid;
	int32_t world_rank;		/* as recorded, -1 when unknown */
	int alive;			/* it still runs and a file of it is not
					 * closed (mt_trace_writer_alive) */
	uint32_t job;			/* index in its trace's jobs[] */
	int32_t key;			/* (job, rank) numbered, -1 when unknown */
	const struct mt_rec_proc *rec;	/* NULL when no thread_seq 0 PROC */
	const struct mt_rec_clock *clock_start, *clock_end;	/* or NULL */
	struct mt_trace_clock clock;
	int64_t merge_offset_ns;	/* added to ns when merging (struct mt_trace) */
	int64_t first_ns, last_ns;	/* span of its files' first and last
					 * records; first > last when none */
	struct mt_trace_file **files;	/* sorted by thread_seq */
	size_t nfiles;
};

/* Whether p's trace is a window (a thread's ring wrapped); then *start_ns
 * is where it starts, as merged (ns + merge_offset_ns): the latest of its
 * wrapped threads' oldest kept records. */
int mt_trace_proc_window(const struct mt_trace_proc *p, int64_t *start_ns);

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

/* A MAP record's path, which runs on past the path[8] of its struct
 * (checked by the reader to end within the record). */
static inline const char *mt_trace_map_path(const struct mt_rec_map *r)
{
	return (const char *)r + offsetof(struct mt_rec_map, path);
}

/* A loaded object call sites lie in (MT_REC_MAP). */
struct mt_trace_map {
	uint32_t proc;
	const struct mt_rec_map *rec;
};

/*
 * A call site (MT_REC_SITE): return addresses in process proc, app the
 * application's, entry inside the MPI entry point (0: none). The maps
 * covering them, NULL when no MAP record does.
 */
struct mt_trace_site {
	uint32_t proc;
	uint64_t app, entry;
	const struct mt_trace_map *app_map, *entry_map;
};

/*
 * A job: the processes one launch started, by the launcher's job id (the
 * PROC record's job_id: Open MPI's job id or PMIx namespace; a job started
 * by MPI_Comm_spawn has an id of its own). Processes with a rank but no
 * job id form one job; a process with neither (no launcher) is a job of
 * its own, named host:pid, as rank 0. Jobs are numbered in order of
 * appearance (the earliest process start); a process's key is base + rank.
 */
struct mt_trace_job {
	char id[80];			/* job id, host:pid, or "" */
	int64_t start_ns;		/* earliest start_realtime_ns, INT64_MAX: none */
	size_t nprocs;
	int64_t base;			/* key of its rank 0 */
	uint32_t span;			/* highest rank + 1 (0: no rank known) */
	/* Index of the first job of its launch: spawned jobs share their
	 * parent's launch (Open MPI: the job family, the id's high 16 bits;
	 * PMIx: the namespace before '@'); a job launched alone has its own. */
	uint32_t launch;
};

/*
 * A forked process (its PROC record's aux is its parent's pid): it keeps
 * its parent's job and rank, so it is keyed apart, after every job's ranks
 * (mt_trace.fork_base + its index), and numbered n from 1 among its rank's
 * forks: depth first (a fork, then its own forks), siblings in order of
 * appearance (first record, then pid). Printed "3+f1".
 */
struct mt_trace_fork {
	uint32_t job;
	int32_t rank;
	uint32_t n;
};

/*
 * A whole trace: processes sorted by key (unknown keys last, then by host
 * and pid). Timestamps merge on CLOCK_MONOTONIC ns when every
 * process ran on one host; across hosts on CLOCK_REALTIME ns derived from
 * each process's START pair (merge_offset_ns = realtime - monotonic).
 */
struct mt_trace {
	struct mt_trace_proc *procs;
	size_t nprocs;
	struct mt_trace_job *jobs;	/* in order of appearance */
	size_t njobs;
	size_t nlaunches;		/* jobs that are their own launch */
	struct mt_trace_fork *forks;	/* by key - fork_base */
	size_t nforks;
	int64_t fork_base;		/* key of the first fork: every job's span */
	size_t nhosts;			/* distinct host names among procs */
	struct mt_trace_file **files;	/* every file, grouped by process */
	size_t nfiles;
	size_t nempty;			/* files skipped: header never written */
	struct mt_trace_ep *eps;	/* sorted by (proc, ep id, record order) */
	size_t neps;
	struct mt_trace_cq_bind *cqbinds;	/* sorted by (proc, cq, ep id) */
	size_t ncqbinds;
	struct mt_trace_map *maps;	/* every MAP record, by (proc, start) */
	size_t nmaps;
	struct mt_trace_site *sites;	/* site number n is sites[n - 1] */
	size_t nsites;
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
 * The opening of a trace divided among nparts readers that each read only
 * some files' records (msgtrace-mpi's analysis ranks), as part number part
 * of them:
 *  - mt_trace_open_part opens every file (header errors fail it, as
 *    mt_trace_open) but scans only its share of the closed ones: the
 *    division gives each closed file, in the order the paths list them,
 *    to the part with the fewest bytes so far; a file not closed, or a
 *    ring read at open, every part scans. A closed file small enough is
 *    scanned from a copy read into a buffer and its setup records kept
 *    apart (its mapping untouched); any other is released
 *    (mt_trace_file_release) once scanned: a reader's memory is the files
 *    it reads.
 *  - mt_trace_part_scans gives what this part's scans found (the counts,
 *    the valid range, the error, the setup records) as bytes, for every
 *    other part's mt_trace_part_take: the parts must have opened the same
 *    files, which take checks (a file changed meanwhile fails it).
 *  - mt_trace_part_done, once every other part's scans are in, finishes
 *    the opening: t is then what mt_trace_open gives.
 * One part alone (nparts 1) scans every file: a lean open.
 */
enum mt_status mt_trace_open_part(const char *const *paths, size_t n,
				  unsigned part, unsigned nparts,
				  struct mt_trace **out, struct mt_err *err);
/* *buf (malloc'd, the caller's to free) of *len bytes; MT_ERR_NOMEM. */
enum mt_status mt_trace_part_scans(const struct mt_trace *t, unsigned part,
				   void **buf, size_t *len);
/* The scans of part from (its mt_trace_part_scans) into t. */
enum mt_status mt_trace_part_take(struct mt_trace *t, unsigned from,
				  const void *buf, size_t len, struct mt_err *err);
enum mt_status mt_trace_part_done(struct mt_trace *t, struct mt_err *err);

/* Whether each process of t seen running still runs (its files' live
 * flags follow): after reading on with mt_trace_file_resume. */
void mt_trace_resume_alive(struct mt_trace *t);

/* The job and rank of the process numbered key (mt_trace_proc.key; a
 * fork's are its parent's): 0, or -1 when no job has that key. */
int mt_trace_key_rank(const struct mt_trace *t, int32_t key, uint32_t *job,
		      int32_t *rank);
/* n of the fork numbered key (struct mt_trace_fork), 0 when key is no fork. */
uint32_t mt_trace_key_fork(const struct mt_trace *t, int32_t key);

/*
 * Address resolution: process proc's AV av maps fi_addr to address bytes
 * (MT_REC_AV); the endpoint whose own name (MT_REC_EP) has those bytes is
 * the answer (the application-visible one when an internal layer's
 * endpoint has the same name; one of proc's launch when launches run one
 * after another reused the name), NULL when none does. Object ids are per
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
/* The same over the files of the processes p with keep[p] set (NULL: all):
 * their records in the order the merge of every file gives them. */
enum mt_status mt_trace_merge_open_some(const struct mt_trace *t,
					const uint8_t *keep,
					struct mt_trace_merge **out);
/*
 * MT_OK with *ev set, MT_END when all files are done, or a file's error.
 * ev->rec of a compacted file's record is decoded into the merge and valid
 * until the next call (at most MT_TRACE_DECODED_MAX bytes; a larger record
 * stays in the file's mapping, as every record of a version 1 file does).
 */
#define MT_TRACE_DECODED_MAX 256u
enum mt_status mt_trace_merge_next(struct mt_trace_merge *m,
				   struct mt_trace_event *ev,
				   struct mt_err *err);
void mt_trace_merge_close(struct mt_trace_merge *m);

/* The call site number (index in sites[] + 1) of an OP event, 0 when it
 * names none (call sites off, no application frame, table full). Inline:
 * the matcher's feed asks it for every operation, and out of line the call
 * cost more than the look-up. */
static inline uint32_t mt_trace_op_site(const struct mt_trace *t,
					const struct mt_trace_event *ev)
{
	const struct mt_rec_op_site *r = (const void *)ev->rec;

	/* The record first: without call sites, the file is never looked up. */
	if (ev->rec->size < sizeof(*r) || !r->site)
		return 0;
	const struct mt_trace_file *f = t->procs[ev->proc].files[ev->file];

	return r->site > f->nsite_ids ? 0 : f->site_ids[r->site - 1];
}

#endif /* MT_TRACE_H */
