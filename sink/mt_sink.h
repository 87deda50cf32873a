/*
 * mt_sink.h - msgtrace's outputs (library mt_sink): the report, export and
 * tags families, each a sink the pipeline (mt_pipe.h) feeds, and the names
 * every printer gives libfabric constants and trace strings.
 *
 * Sinks only see struct mt_match_msg batches, times in ns on the corrected
 * clock (as recorded when nothing needed correcting; run->clock says
 * which). A sink is started once with the run's description, consumes
 * batches of finished messages, and finalizes with the matcher's summary
 * (warnings, probes, pending ops). It writes its output to the stream it
 * is given and nothing else to the terminal: failures come back as an
 * mt_status with an mt_err, remarks go to run->note. It must not know the
 * command line, nor how the pipeline reads and matches.
 */
#ifndef MT_SINK_H
#define MT_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "mt_clock.h"
#include "mt_decode.h"
#include "mt_join.h"
#include "mt_match.h"
#include "mt_status.h"
#include "mt_sym.h"
#include "mt_trace.h"

/* What the pipeline's clock stage did to the times the sink sees. */
struct mt_run_clock {
	enum mt_clock_mode asked;	/* --clock */
	uint32_t declared;		/* clock domains: distinct (host, clock) */
	/* The correction that ran (every figure of the CLOCKS section), or
	 * NULL: times are as recorded. Its processes are process keys, each
	 * described by procs[key] (procs[key].host NULL: not traced). */
	const struct mt_clock_result *res;
	const struct mt_clock_proc *procs;
	uint32_t nranks;
	/* res NULL: messages whose clock condition could be checked, and
	 * those received at or before the time they were sent. */
	uint64_t checked, violations;
};

/* What the pipeline knows about the run. */
struct mt_run {
	const struct mt_trace *trace;
	size_t nranks;			/* processes in the trace */
	size_t nhosts;
	char provider[32], fabric[32];
	struct mt_tag_layout layout;	/* of the first endpoint */
	enum mt_tag_confidence layout_conf;
	size_t layouts_differ;		/* endpoints using another layout */
	/* Endpoints on another provider than the first endpoint's (provider):
	 * how many, the first one's provider and host, and whether others
	 * differ from that one's in provider or host. */
	size_t providers_differ;
	char other_provider[32], other_provider_host[64];
	uint8_t other_providers_more;
	/* Per endpoint (index in trace->eps): the layout in force, with
	 * mem_tag_format applied, and the evidence for it. */
	const struct mt_tag_layout *ep_layout;
	const struct mt_tag_detect_result *ep_detect;
	int64_t t0_ns, t1_ns;		/* first and last record, merged clock */
	uint64_t events;		/* records read (final at finalize) */
	uint64_t lost;			/* records the writers dropped */
	uint64_t skipped;		/* ops on endpoints never enabled */
	size_t unclean_files;		/* files whose writer did not close and
					 * is gone (killed or aborted) */
	size_t live_files;		/* files still being written */
	struct mt_run_clock clock;	/* final at finalize */
	const struct mt_note *note;	/* where a sink's remarks go */
	uint8_t mpi_level;		/* an OTF2 archive of MPI calls: its
					 * events name communicator, rank and
					 * tag; no tag layout */
	/* The MPI calls of an OTF2 archive of the same run (join_archive)
	 * tied to these messages, final at finalize (mt_join.h), or NULL.
	 * The report's sinks add the joined view; export --otf2 adds the
	 * calls to the fabric's events. */
	const struct mt_join *join;
	const char *join_archive;
};

/*
 * The output of a sink whose every message is written from the message and
 * the trace alone (csv): any process that opened the trace can write a
 * batch, and the texts put in order are the sink's. consume writes into
 * its stream exactly what write writes; init's header and finalize's
 * notes are the sink's own.
 */
struct mt_sink_lines {
	void *(*open)(const struct mt_trace *t);	/* NULL: out of memory */
	void (*write)(void *l, const struct mt_match_msg *batch, size_t n,
		      FILE *out);
	void (*close)(void *l);
};

/* A sink. Each call returns MT_OK or a failure with err saying why (empty:
 * a generic "cannot start the NAME output" is said for init). */
struct mt_sink_ops {
	const char *key;		/* registry name: "text", "otf2" ... */
	const char *name;		/* for messages: "Chrome JSON" ... */
	/* *state holds mt_pipe_opts.sink_arg on entry (the sink's settings,
	 * e.g. an output path; NULL for sinks that take none). */
	enum mt_status (*init)(void **state, FILE *out, const struct mt_run *run,
			       struct mt_err *err);
	enum mt_status (*consume)(void *state, const struct mt_match_msg *batch,
				  size_t n, struct mt_err *err);
	/* Writes what is left; frees state, whatever it returns. */
	enum mt_status (*finalize)(void *state, const struct mt_run *run,
				   const struct mt_match_summary *sum,
				   struct mt_err *err);
	uint8_t joins;			/* adds the joined view (run->join) */
	const struct mt_sink_lines *lines;	/* NULL: not offered */
};

/* The sinks, by name (the registry: sinks.c). */
extern const struct mt_sink_ops mt_sink_csv, mt_sink_text, mt_sink_json,
	mt_sink_html;			/* msgtrace messages, report */
extern const struct mt_sink_ops mt_sink_tags, mt_sink_tags_json; /* tags */
extern const struct mt_sink_ops mt_sink_otf2, mt_sink_chrome,
	mt_sink_csvset;			/* export */
/* msgtrace watch: one view of a live trace (the hang's causes, the waits
 * grouped with how long each has waited, the sends never received). Its
 * sink_arg: the time of the view on both clocks a trace may merge on; the
 * sink says there whether every writer had closed its file. */
extern const struct mt_sink_ops mt_sink_watch;
struct mt_sink_watch_opts {
	uint64_t now_monotonic_ns, now_realtime_ns;
	int all_closed;			/* set by the view */
};
/* msgtrace run: the report in four lines (who ran; messages, user and
 * internal, by status; records and records lost; hang suspects). */
extern const struct mt_sink_ops mt_sink_brief;
/* The sink whose key is key ("text", "otf2", ...), or NULL. */
const struct mt_sink_ops *mt_sink_find(const char *key);

/* The tags sinks' settings (their sink_arg): extra what-if mem_tag_formats. */
#define MT_SINK_TAGS_MTF_MAX 4
struct mt_sink_tags_opts {
	uint64_t mtf[MT_SINK_TAGS_MTF_MAX];
	size_t n_mtf;
};

/*
 * Names for the numbers a trace stores (names.c): libfabric flag bits, fid
 * classes, error codes, and address bytes and trace strings made printable.
 * The sinks may use libfabric's public constants; the trace reader may not,
 * which is why these live here.
 */
/* Which meaning to give bits that libfabric reuses (bit 58/59). */
enum mt_name_flag_set {
	MT_NAME_OP_FLAGS,	/* op and CQ entry flags: FI_CLAIM ... */
	MT_NAME_CAPS,		/* endpoint caps: FI_DIRECTED_RECV ... */
	MT_NAME_BIND_FLAGS,	/* bind flags: FI_SELECTIVE_COMPLETION ... */
};

/* "FI_TAGGED|FI_RECV|0x1000" into buf; "0" for no bits. Returns buf. */
char *mt_sink_name_flags(char *buf, size_t len, uint64_t flags,
		    enum mt_name_flag_set set);
/* "cq", "ep", ... for a fid class, NULL when unknown. */
const char *mt_sink_name_fid_class(uint32_t fclass);
/* "FI_ETRUNC" for 265 (positive libfabric errno), NULL when unknown. */
const char *mt_sink_name_errno(int err);
/* "0a000001..." hex, followed by " (1.2.3.4:5)" for a sockaddr_in/in6. */
char *mt_sink_name_addr(char *buf, size_t len, const uint8_t *addr, size_t n);
/*
 * s, up to its NUL or max bytes, made safe for a terminal or a script:
 * printable ASCII except '\\' is kept, every other byte becomes \\xNN
 * (a trace is data, and a hostname or file name must not be able to move
 * the cursor or fake output lines). Truncated to fit len. Returns buf.
 */
char *mt_sink_name_text(char *buf, size_t len, const char *s, size_t max);
/* Buffer big enough for mt_sink_name_text of a char array field. */
#define MT_NAME_TEXT_LEN(field) (4 * sizeof(field) + 1)
/* Lower-case copy of a record or op name ("tsend"), "?" when NULL. */
const char *mt_sink_name_lower(char *buf, size_t len, const char *name);

/* decode/'s layout evidence in words (evidence.c): one sentence into buf,
 * returned; MT_SINK_EVIDENCE_LEN holds every one. */
#define MT_SINK_EVIDENCE_LEN 512
const char *mt_sink_evidence_text(const struct mt_tag_evidence_item *it,
				  char *buf, size_t len);
/* 1 for evidence that rules a layout out. */
int mt_sink_evidence_ruled_out(const struct mt_tag_evidence_item *it);

/* What a receive before its send says about the run, from what the clock
 * stage found on the data. */
enum mt_sink_clock_problem {
	MT_SINK_CLOCK_OK,	/* no receive before its send as recorded */
	MT_SINK_CLOCK_CLOCKS,	/* clocks disagree; a per-process map, or
				 * the clc without dropping a constraint,
				 * explains every one */
	MT_SINK_CLOCK_PAIRING,	/* messages no clock can order (cycles): some
				 * sends and receives are paired wrongly */
	MT_SINK_CLOCK_UNCHECKED, /* times as recorded (--clock none), or
				 * violations left by --clock linear: unknown */
};

/* "none", "clock", "pairing", "unchecked". */
enum mt_sink_clock_problem mt_sink_clock_problem(const struct mt_run_clock *c);
const char *mt_sink_clock_problem_name(enum mt_sink_clock_problem p);
/* Processes declared to share a clock that the data split apart (each
 * then a domain of its own). */
uint32_t mt_sink_clock_splits(const struct mt_run_clock *c);

/* The ranks in clock domain d of c->res as ranges: "0-3,7,1:0-1:1". */
const char *mt_sink_clock_ranks(const struct mt_run_clock *c,
				const struct mt_trace *t, uint32_t d,
				char *buf, size_t len);

/*
 * How every output names the process numbered key (mt_trace_proc.key,
 * mt_match_msg.send_rank ...): the first job's ranks as plain numbers
 * ("3"), other jobs' as JOB:RANK ("1:0"; jobs numbered in order of
 * appearance), a forked process as its rank and "+fN" ("3+f1", "1:0+f2";
 * struct mt_trace_fork); an unknown key (< 0) as the number it is, "?"
 * when no job has that key. Returns buf.
 */
#define MT_SINK_RANK_LEN 40
const char *mt_sink_rank(const struct mt_trace *t, int64_t key, char *buf,
			 size_t len);
/* Whether mt_sink_rank names key by a plain number (formats that keep
 * numbers as numbers: JSON). */
int mt_sink_rank_plain(const struct mt_trace *t, int64_t key);
/* Whether key b continues a range of ranks ending at a ("0-3"): the next
 * key, neither a fork. */
int mt_sink_rank_joins(const struct mt_trace *t, int64_t a, int64_t b);
/* key as a JSON value: a number for the first job's ranks, a "JOB:RANK"
 * string for the others, null when key < 0. */
void mt_sink_rank_json(FILE *o, const struct mt_trace *t, int64_t key);
/* When some processes recorded call sites and others none (the option set
 * on some hosts only): a calloc'ed array, per process of t, 1 for those
 * that recorded one, and in *without how many did not; else NULL (no
 * process recorded any, or every one did, or out of memory). */
unsigned char *mt_sink_site_procs(const struct mt_trace *t, size_t *without);
/* A resolver of t's call sites (mt_sym.h) for a sink that shows them, or
 * NULL when the trace has none (or memory ran out: shown without). */
struct mt_sym *mt_sink_sym(const struct mt_trace *t);
/* ,"key":{"text":...,"file":...,"line":...,"function":...,"object":...,
 * "offset":...,"mpi":...} for call site site (null when it has none);
 * nothing at all when sym is NULL (a trace without call sites). */
void mt_sink_site_json(FILE *o, struct mt_sym *sym, const char *key,
		       uint32_t site);
/* ", WHAT <code class="site">file.c:12 (main) via MPI_Recv</code>" for
 * call site site, nothing when it has none (or sym is NULL). */
void mt_sink_site_html(FILE *f, struct mt_sym *sym, const char *what,
		       uint32_t site);

/* What one process's trace covers, on the merged clock (ns). */
struct mt_sink_span {
	int64_t first_ns, last_ns;	/* its first and last record */
	int ended;			/* a file of it stopped taking records
					 * (full, or could not grow) while its
					 * thread went on: the trace ends early */
	int64_t end_ns;			/* ended: where the first such file's
					 * records stop */
	uint64_t lost;			/* records lost, all its files */
	int wrapped;			/* a thread kept only its latest
					 * records (ring): a window */
	int64_t window_ns;		/* wrapped: where the window starts,
					 * the latest of its wrapped files'
					 * oldest kept records */
	uint64_t overwritten;		/* ring records written over */
};

/* The span of process p. */
void mt_sink_proc_span(const struct mt_trace_proc *p, struct mt_sink_span *s);
/* Where s's records start: a window's start, else its first record. */
int64_t mt_sink_span_start(const struct mt_sink_span *s);
/* What s covers in seconds after t0, for a reader: "0.000100 to 1.234567
 * s", then ", a window: 1234 records overwritten before it" or ", ends
 * early at 0.9 s: 56 records lost after it" as it is. Returns buf. */
const char *mt_sink_span_text(const struct mt_sink_span *s, int64_t t0,
			      char *buf, size_t len);
/* Whether s needs saying where only some spans are said: it is a window,
 * or it ends early. */
int mt_sink_span_partial(const struct mt_sink_span *s);
/* "rank 3's trace covers " and mt_sink_span_text (from run->t0_ns) of
 * run's process p when its span is partial, else NULL. */
const char *mt_sink_span_partial_line(const struct mt_run *run, size_t p,
				      char *buf, size_t len);

/* Who ran, for a report's first line: "4 ranks", "4 processes in 2 jobs",
 * "6 processes (4 forked)". Returns buf. */
const char *mt_sink_run_who(const struct mt_run *run, char *buf, size_t len);

/* MT_OK, or MT_ERR_IO when writing f failed (flush: fflush it first). */
enum mt_status mt_sink_written(FILE *f, int flush, struct mt_err *err);
/* MT_ERR_IO with the error of an output that could not be written, for a
 * writer other than f's (mt_sink_written's, word for word). */
enum mt_status mt_sink_unwritten(struct mt_err *err);

#endif /* MT_SINK_H */
