/*
 * tags.h - what `msgtrace tags` gathers from the pipeline (private to
 * sink/): the decoded fields of every message into decode/'s tag-mode
 * analysis (mt_tag_usage), the truncated receives with their sends, and
 * the what-if cases (each Open MPI layout with this provider's
 * mem_tag_format, a reserving provider's and the user's). The sinks
 * sink_tags.c (text), sink_tags_json.c and the HTML report render it.
 */
#ifndef MT_TAGS_H
#define MT_TAGS_H

#include "mt_sink.h"

#define TAGS_TRUNC_KEEP 1000	/* truncated receives listed */
#define TAGS_MTF_RESERVING 0x5555555555555555ull /* like the `net` provider */

/* One what-if case: a layout with a mem_tag_format. */
struct tags_case {
	struct mt_tag_layout l;
	uint64_t mtf;
	const char *origin;	/* "this provider", "reserving provider", ... */
	bool in_force;		/* the run's own layout and mem_tag_format */
	struct mt_tag_whatif w;
};
#define TAGS_CASES_MAX (3 * (2 + MT_SINK_TAGS_MTF_MAX))

struct tags {
	FILE *out;
	struct mt_sink_tags_opts opts;
	struct mt_tag_usage *u;
	struct mt_match_msg *trunc;	/* the first TAGS_TRUNC_KEEP */
	struct mt_sym *sym;		/* call sites, NULL: none in the trace */
	size_t n_trunc, n_trunc_kept;
	uint64_t msgs, counted;		/* messages seen; fed to the usage */
	struct tags_case cases[TAGS_CASES_MAX];
	size_t n_cases;
};

/* The sinks' init and consume: init takes the mt_sink_tags_opts from *state
 * (mt_pipe_opts.sink_arg) and replaces it with a struct tags. */
enum mt_status mt_sink_tags_start(void **state, FILE *out,
				 const struct mt_run *run, struct mt_err *err);
enum mt_status mt_sink_tags_consume(void *state, const struct mt_match_msg *batch,
				   size_t n, struct mt_err *err);
/* Computes the what-if cases for the run (at finalize). */
int mt_sink_tags_finish(struct tags *t, const struct mt_run *run);
void mt_sink_tags_free(struct tags *t);

/* Every communicator's internal-tag state under l, in *out (malloc'd,
 * fewest reservations left first); returns how many (0: *out NULL). */
size_t mt_sink_tags_nbc(const struct tags *t, const struct mt_tag_layout *l,
		struct mt_tag_nbc **out);
/* The ofi_tag_2 case with this provider's mem_tag_format (after finish). */
const struct tags_case *mt_sink_tags_tag2(const struct tags *t);
/* What Open MPI does with values of field f that do not fit its width. */
const char *mt_sink_tags_consequence(enum mt_tag_ufield f);
/* mem_tag_format of the run's first endpoint (0: not recorded). */
uint64_t mt_sink_tags_run_mtf(const struct mt_run *run);
/* Seconds since the start of the run, for a message time. */
double mt_sink_tags_sec(const struct mt_run *run, uint64_t t);

#endif /* MT_TAGS_H */
