/*
 * mt_otf2in.h - msgtrace's second front end (library mt_otf2in): an OTF2
 * archive written by an MPI-level tracer (Score-P, EZTrace) read through
 * libotf2 and turned into the operations the matcher takes (mt_match.h),
 * as the fabric front end (pipeline/feed.c) turns trace records into them.
 *
 * Locations are endpoints, location groups processes, numbered (one job)
 * by location group order: the MPI world rank for Score-P and EZTrace. A
 * communicator's ranks reach locations through its group definitions.
 * Each point-to-point message is keyed by (communicator, MPI tag) in a
 * 64-bit tag of its own (MT_OTF2IN_CID_SHIFT), its source identity the
 * sending location. An archive msgtrace exported also names each
 * receive's filter on its request (tag or any, source or any), untagged
 * traffic and synchronous-send ACKs: those post as the fabric's did. Sends post at their MpiSend/MpiIsend and complete at
 * the Leave of their MPI call (blocking) or at MpiIsendComplete;
 * receives enter the matcher in the order they were posted (MpiRecv,
 * MpiIrecvRequest), each once its completion (MpiRecv, MpiIrecv,
 * MpiRequestCancelled) names what it received. Nothing is invented: an
 * operation whose completion the archive does not hold is left pending,
 * or, where the producer never records that kind of completion, left out
 * of the hang analysis and counted (mt_otf2in_facts).
 *
 * It knows libotf2, the matcher's input and the trace description the
 * sinks read (struct mt_trace, built here for the archive's processes);
 * nothing of libfabric traces, tag layouts or sinks. It never prints.
 */
#ifndef MT_OTF2IN_H
#define MT_OTF2IN_H

#include <stdint.h>

#include "mt_match.h"
#include "mt_status.h"
#include "mt_trace.h"

#define MT_OTF2IN_CID_SHIFT 32	/* tag = communicator << 32 | MPI tag */
#define MT_OTF2IN_ACK_BIT (1ull << 63)	/* set in a synchronous send's ACK */

struct mt_otf2in;

/* What the archive held beyond the messages, for the report's notes. */
struct mt_otf2in_facts {
	uint64_t events;		/* events read */
	uint64_t sends, recvs;		/* point-to-point operations fed */
	uint64_t isends, isend_done;	/* MpiIsend, MpiIsendComplete */
	uint64_t irecv_requests, irecv_done; /* MpiIrecvRequest, MpiIrecv */
	uint64_t cancels, tests;	/* MpiRequestCancelled, MpiRequestTest */
	uint64_t irecv_unrecorded;	/* MPI_Irecv requests never completed by
					 * a producer that records no MpiIrecv:
					 * left out, their messages unmatched */
	uint64_t irecv_open;		/* never completed, the producer does
					 * record completions: pending */
	uint64_t colls, colls_open;	/* MpiCollectiveBegin/End pairs; begun
					 * and never ended */
	uint64_t coll_sent, coll_recvd;	/* their bytes */
	uint64_t sendrecv_empty;	/* MPI_Sendrecv calls holding no
					 * point-to-point event (EZTrace 2.0
					 * records none): their messages are
					 * not in the archive */
	uint64_t skipped;		/* events naming an undefined location,
					 * communicator or rank */
	uint64_t joined_calls;		/* MpiSend/MpiRecv of the MPI calls a
					 * joined export added: not read, its
					 * fabric events hold the messages */
	int32_t open_rank;		/* first rank inside an MPI call at the
					 * end of the archive, -1: none */
	char open_call[64];		/* that call's region name */
	uint64_t ranks_in_calls;	/* ranks inside an MPI call at the end */
	char creator[64];		/* the archive's creator, "" if none */
	uint64_t start_ns, length_ns;	/* the trace's span (clock properties) */
	uint64_t defined_events;	/* events its locations declare */
};

/* 1 when path is an OTF2 archive: its anchor file (*.otf2) or a
 * directory holding exactly one. */
int mt_otf2in_is_archive(const char *path);
/* 1 when the directory path has no anchor file but a subdirectory
 * holding OTF2 event and local definition files (*.evt, *.def) and
 * nothing else: an archive whose tracer never finalized (the
 * anchor and the global definitions are written last). Its name into
 * sub, its event files into *nevt. */
int mt_otf2in_unfinished(const char *path, char *sub, size_t len, size_t *nevt);

/* Opens the archive at path and reads its definitions. Errors name the
 * file: MT_ERR_IO, MT_ERR_CORRUPT (libotf2 refused it, or a definition is
 * missing or inconsistent), MT_ERR_NOMEM. */
enum mt_status mt_otf2in_open(const char *path, struct mt_otf2in **out,
			      struct mt_err *err);
void mt_otf2in_close(struct mt_otf2in *in);

/* 1 when the archive says all its times are on one clock (msgtrace's own
 * export, property MSGTRACE::ONE_CLOCK): nothing to correct. */
int mt_otf2in_one_clock(const struct mt_otf2in *in);

/* The archive's processes as a trace description: one job, a process per
 * location group (host: its system tree node), an endpoint and a thread
 * (a file without records, named after the archive) per location; after
 * mt_otf2in_finish, a thread that was inside no call at the end is closed
 * (MT_FILE_CLOSED). Valid until mt_otf2in_close. */
const struct mt_trace *mt_otf2in_trace(const struct mt_otf2in *in);
/* The path of the anchor file. */
const char *mt_otf2in_path(const struct mt_otf2in *in);

/* The matcher's configuration for OTF2 input (its tag fields), and the
 * endpoints registered with m, which the events are fed to. */
void mt_otf2in_match_cfg(struct mt_match_cfg *cfg);
enum mt_status mt_otf2in_attach(struct mt_otf2in *in, struct mt_match *m);

/* Reads and feeds up to max events (*n of them): MT_OK (more may follow),
 * MT_END (all read), or an error naming the file (the events before it
 * were fed), MT_ERR_NOMEM, or the matcher's failure. */
enum mt_status mt_otf2in_read(struct mt_otf2in *in, uint64_t max, uint64_t *n,
			      struct mt_err *err);
/* End of the archive: the receives held back behind a nonblocking receive
 * never completed go to the matcher, in posting order; those requests
 * themselves are posted as pending receives (any source, any tag) when
 * the producer records MpiIrecv, else counted in irecv_unrecorded. */
enum mt_status mt_otf2in_finish(struct mt_otf2in *in);
const struct mt_otf2in_facts *mt_otf2in_facts(const struct mt_otf2in *in);

/* 1 when op, pending at the end, waits only for a completion the producer
 * never records (MpiIsendComplete of an archive holding none): not a
 * hang, its completion time unknown. */
int mt_otf2in_unrecorded(const struct mt_otf2in *in, const struct mt_match_op *op);

/* Times: ns on the archive's clock (ticks over its resolution), moved up
 * by 1000 s when the clock starts below that (times are unsigned, and
 * clock correction may move events before the first). */
uint64_t mt_otf2in_ns(const struct mt_otf2in *in, uint64_t ticks);

/* An MPI call: a region named MPI_* on one location (thread), with the
 * first size recorded inside it. Times as mt_otf2in_ns. */
struct mt_otf2in_call {
	uint64_t enter_ns, leave_ns;	/* leave UINT64_MAX: never left */
	uint64_t bytes;			/* message length or collective bytes */
	const char *name;		/* region name, valid until close */
	int64_t parent;			/* the MPI call around it, -1: none */
	int32_t proc;			/* process (location group) */
	int32_t thread;			/* location index */
	uint32_t sends;			/* MpiSend/MpiIsend events inside */
	uint8_t has_bytes;
};

/* A point-to-point send (MpiSend, MpiIsend) or blocking receive
 * (MpiRecv) inside a call. */
struct mt_otf2in_p2p {
	size_t call;			/* index in mt_otf2in_calls.call */
	uint64_t len;
	int32_t peer;			/* receiver's / sender's process */
	int32_t tag;			/* MPI tag */
};

struct mt_otf2in_calls {
	struct mt_otf2in_call *call;	/* in the order they were entered */
	size_t n;
	struct mt_otf2in_p2p *send;	/* in the order they were made */
	size_t nsend;
	struct mt_otf2in_p2p *recv;	/* MpiRecv, in order */
	size_t nrecv;
};

/* Reads the whole archive of a freshly opened in for its MPI calls, their
 * sends and blocking receives (instead of mt_otf2in_read: one or the other). Free with
 * mt_otf2in_calls_free. Errors name the file. */
enum mt_status mt_otf2in_calls(struct mt_otf2in *in, struct mt_otf2in_calls *out,
			       struct mt_err *err);
void mt_otf2in_calls_free(struct mt_otf2in_calls *c);

/* Appends one zeroed element to a growing array (*arr of *n, room for
 * *cap): its index, or -1 when out of memory. For the arrays built from
 * an archive, here and in the libraries that take its calls (join/). */
long mt_otf2in_push(void **arr, size_t *n, size_t *cap, size_t elem);

#endif /* MT_OTF2IN_H */
