/*
 * sink_watch.c - `msgtrace watch`: one view of a trace still being written.
 * The hang's causes and grouped waits (sink_text.c's view) with how long
 * each group has waited, and the sends no receive has taken yet. Times are
 * measured against the moment of the view (struct mt_sink_watch_opts) on
 * the clock the trace merges on: CLOCK_MONOTONIC on one host,
 * CLOCK_REALTIME across hosts (mt_trace.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "mt_sink.h"

#define OLDEST 3		/* sends never received shown, oldest first */

struct watch {
	FILE *out;
	struct mt_sink_watch_opts *opts;	/* NULL: no time, nothing said back */
	struct mt_sink_watch_opts now;
	uint64_t unmatched, by_kind[MT_MATCH_KIND_COUNT];
	struct mt_match_msg oldest[OLDEST];
	size_t n_oldest;
};

static enum mt_status watch_init(void **state, FILE *out,
				 const struct mt_run *run, struct mt_err *err)
{
	struct mt_sink_watch_opts *o = *state;
	struct watch *w = calloc(1, sizeof(*w));

	(void)run;
	if (!w)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	w->out = out;
	w->opts = o;
	if (o)
		w->now = *o;
	*state = w;
	return MT_OK;
}

/* Keeps the OLDEST sends never received, sorted by post time. */
static enum mt_status watch_consume(void *state, const struct mt_match_msg *b,
				    size_t n, struct mt_err *err)
{
	struct watch *w = state;

	(void)err;
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (b[i].status != MT_MATCH_ST_UNMATCHED_SEND)
			continue;
		w->unmatched++;
		w->by_kind[b[i].f.kind < MT_MATCH_KIND_COUNT ? b[i].f.kind : 0]++;
		for (k = w->n_oldest; k > 0 &&
		     w->oldest[k - 1].t_send_post > b[i].t_send_post; k--)
			if (k < OLDEST)
				w->oldest[k] = w->oldest[k - 1];
		if (k < OLDEST) {
			w->oldest[k] = b[i];
			w->n_oldest += w->n_oldest < OLDEST;
		}
	}
	return MT_OK;
}

static double ago(uint64_t now, int64_t t)
{
	return t > 0 && (uint64_t)t <= now ? (double)(now - (uint64_t)t) / 1e9 : 0;
}

static void sends_section(FILE *o, const struct watch *w,
			  const struct report *r, uint64_t now)
{
	char line[200];

	fprintf(o, "\nSENDS NEVER RECEIVED: %" PRIu64, w->unmatched);
	for (unsigned k = 0, first = 1; k < MT_MATCH_KIND_COUNT; k++)
		if (w->by_kind[k]) {
			fprintf(o, "%s%" PRIu64 " %s", first ? " (" : ", ",
				w->by_kind[k], mt_match_kind_str(k));
			first = 0;
		}
	fprintf(o, "%s\n", w->unmatched ? ")" : "");
	for (size_t i = 0; i < w->n_oldest; i++) {
		mt_sink_report_msg_line(r, &w->oldest[i], line, sizeof(line));
		fprintf(o, "  %s, waiting %.1f s\n", line,
			ago(now, (int64_t)w->oldest[i].t_send_post));
	}
}

/* The ranks whose trace is a window (ring) or ends early, with what time
 * it covers: what is pending is read at that end. */
static void spans_lines(FILE *o, const struct mt_run *run)
{
	char line[256];

	for (size_t p = 0; run->trace && p < run->trace->nprocs; p++)
		if (mt_sink_span_partial_line(run, p, line, sizeof(line)))
			fprintf(o, "  %s\n", line);
}

static enum mt_status watch_finalize(void *state, const struct mt_run *run,
				     const struct mt_match_summary *sum,
				     struct mt_err *err)
{
	struct watch *w = state;
	struct report r = { .t0 = run->t0_ns, .t1 = run->t1_ns,
			    .trace = run->trace };
	struct mt_match_hang *h = NULL;
	size_t files = run->trace ? run->trace->nfiles : 0;
	uint64_t now = run->nhosts > 1 ? w->now.now_realtime_ns :
		w->now.now_monotonic_ns;
	FILE *o = w->out;
	enum mt_status rc;
	char who[96];

	if (mt_sink_report_hang(run, sum, &h)) {
		free(w);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	fprintf(o, "%s, %zu of %zu files still being written, %zu left "
		"by a kill,\n  last record %.1f s ago\n",
		mt_sink_run_who(run, who, sizeof(who)), run->live_files, files,
		run->unclean_files, ago(now, run->t1_ns));
	spans_lines(o, run);
	fprintf(o, "\nPENDING (hang suspects)\n");
	r.sym = mt_sink_sym(run->trace);	/* call sites, when recorded */
	if (sum->n_pending)
		mt_sink_text_hang_view(o, &r, sum, h, now);
	else
		fprintf(o, "  none\n");
	sends_section(o, w, &r, now);
	mt_sym_free(r.sym);
	mt_match_hang_free(h);
	if (w->opts)
		w->opts->all_closed = files > 0 && !run->unclean_files &&
				      !run->live_files;
	rc = mt_sink_written(o, 1, err);
	free(w);
	return rc;
}

const struct mt_sink_ops mt_sink_watch = {
	.key = "watch",
	.name = "watch",
	.init = watch_init,
	.consume = watch_consume,
	.finalize = watch_finalize,
};
