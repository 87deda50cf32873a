/*
 * mt_join.h - both views of one run joined (library mt_join): the MPI
 * calls an OTF2 archive recorded (mt_otf2in_calls) and the fabric
 * messages the matcher paired from the msgtrace trace of the same run.
 *
 * Per process (rank), the archive's clock is aligned to the fabric's:
 * the k-th send the archive records from the rank to one receiver with
 * one tag and length was posted on the fabric as the k-th data send (kind
 * user or ssend) of that receiver, tag and length, inside the send's MPI
 * call; the offset lies in the intersection of [post - leave, post -
 * enter] over all of them; its middle is taken and half its width is the
 * uncertainty. The receives of MPI_Recv calls (MpiRecv: sender, tag and
 * length) narrow it the same way, with the receive posts of matched
 * messages. Within that range, the offset is the one that puts the most
 * data receive posts inside MPI calls that receive (MPI_Irecv, recorded
 * without source or tag; MPI_Recv, MPI_Sendrecv, ...), the range's middle
 * when none helps. Fabric operations the archive does not hold (a
 * tracer's own messages, calls it does not record) are left over, never
 * used. Then each fabric message is tied to
 * the innermost MPI call of its sender around its send post, and of its
 * receiver around its receive post, and counted per call kind (name and
 * recorded size).
 *
 * It knows the matcher's messages and otf2in's calls; nothing of
 * libotf2, libfabric or trace files. It never prints.
 */
#ifndef MT_JOIN_H
#define MT_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "mt_match.h"
#include "mt_otf2in.h"
#include "mt_status.h"

#define MT_JOIN_PROBLEMS 8	/* messages not matched kept with their calls */

/* One rank's clock alignment. */
struct mt_join_align {
	int64_t offset_ns;		/* fabric time = archive time + offset */
	uint64_t uncertainty_ns;	/* half the width of the range of
					 * offsets that fit the sends */
	uint64_t anchors;		/* sends and receives it rests on */
	uint8_t ok;			/* 0: no send to rest on, not aligned */
};

/* One MPI call kind: its name and recorded size. */
struct mt_join_kind {
	const char *name;		/* NULL: fabric operations in no call */
	uint64_t bytes;
	uint8_t has_bytes;
	uint64_t calls, call_ns;	/* calls, time in them (ended ones) */
	uint64_t sent;			/* fabric messages sent from inside */
	uint64_t status[MT_MATCH_ST_COUNT]; /* their outcomes */
	uint64_t sent_bytes, min_bytes, max_bytes;
	uint64_t wire_ns;		/* matched: receive done - send post */
	uint64_t recvs;			/* fabric receives posted inside */
};

/* A message not matched, with the calls it was made in (NULL: none). */
struct mt_join_problem {
	struct mt_match_msg msg;
	const struct mt_otf2in_call *send_call, *recv_call;
};

struct mt_join;

/* The calls of an archive of nprocs processes (kept, not copied), for a
 * fabric trace of nranks ranks. MT_ERR_ARG (err says why: not the same
 * run) when the counts differ. */
enum mt_status mt_join_new(const struct mt_otf2in_calls *calls, size_t nprocs,
			   size_t nranks, struct mt_join **out, struct mt_err *err);
void mt_join_free(struct mt_join *j);
/* The fabric messages, in batches (copied). */
enum mt_status mt_join_add(struct mt_join *j, const struct mt_match_msg *m, size_t n);
/* The operations pending at the end of the trace (their data receives'
 * ranks and posts copied): like the messages' receive posts, they settle
 * each rank's offset (a hang's receive may be the only one a rank has). */
enum mt_status mt_join_pending(struct mt_join *j, const struct mt_match_pending *p,
			       size_t n);
/* Aligns the clocks and ties every message to its calls. MT_ERR_ARG when
 * a rank's sends cannot be put inside their calls (the fabric trace lacks
 * some, or no single offset fits them all): err names the rank. */
enum mt_status mt_join_finish(struct mt_join *j, struct mt_err *err);

/* After mt_join_finish: the innermost MPI call of rank around fabric
 * time t (an operation's post), NULL when in none or rank not aligned. */
const struct mt_otf2in_call *mt_join_call_at(const struct mt_join *j,
					      int32_t rank, uint64_t t);

size_t mt_join_nranks(const struct mt_join *j);
/* The archive's calls it was made with. */
const struct mt_otf2in_calls *mt_join_calls(const struct mt_join *j);
const struct mt_join_align *mt_join_align(const struct mt_join *j, size_t rank);
/* The kinds, in order of first call (the kind with name NULL last). */
size_t mt_join_nkinds(const struct mt_join *j);
const struct mt_join_kind *mt_join_kind(const struct mt_join *j, size_t i);
size_t mt_join_nproblems(const struct mt_join *j, uint64_t *total);
const struct mt_join_problem *mt_join_problem(const struct mt_join *j, size_t i);

#endif /* MT_JOIN_H */
