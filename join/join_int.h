/*
 * join_int.h - the join's state, shared by join/ sources only.
 */
#ifndef JOIN_INT_H
#define JOIN_INT_H

#include "mt_join.h"

struct mt_join {
	const struct mt_otf2in_calls *c;
	const struct mt_otf2in_call *calls;	/* c->call */
	size_t ncalls;
	size_t nranks;
	uint32_t *by_rank;		/* call indices by (rank, enter) */
	size_t *rank_at;		/* rank r's: by_rank[rank_at[r], rank_at[r+1]) */
	struct mt_match_msg *msg;
	size_t nmsg, cap_msg;
	struct mt_join_post { int32_t rank; uint64_t ts; } *pend; /* pending
					 * data receives' posts */
	size_t npend, cap_pend;
	struct mt_join_align *align;	/* per rank */
	struct mt_join_kind *kinds;
	size_t nkinds, cap_kinds;
	uint32_t *call_kind;		/* per call: its kind */
	struct mt_join_problem problem[MT_JOIN_PROBLEMS];
	size_t nproblems;
	uint64_t problems;
};

/* align.c: every rank's offset, or MT_ERR_ARG naming the rank. */
enum mt_status mt_join_align_all(struct mt_join *j, struct mt_err *err);
/* settle.c: whether a receive of this kind takes the application's data
 * (what MPI_Irecv, MPI_Recv, ... post). */
int mt_join_data_kind(uint8_t kind);
/* settle.c: rank r's offset in [lo, hi] (MT_ERR_NOMEM). */
enum mt_status mt_join_settle(struct mt_join *j, int32_t r, int64_t lo, int64_t hi,
			      int64_t *offset);
/* kinds.c: the kind of every call (MT_ERR_NOMEM), then each message
 * counted where its calls are. */
enum mt_status mt_join_kinds(struct mt_join *j);

#endif /* JOIN_INT_H */
