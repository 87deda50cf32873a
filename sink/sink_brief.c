/*
 * sink_brief.c - the report in four lines, for `msgtrace run` at the end of
 * a job: who ran, the messages and how they paired, records lost, and
 * whether operations were left pending (hang suspects). The full report
 * (sink_text) says the rest.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "report.h"
#include "mt_sink.h"

static void messages_line(FILE *o, const struct report *r,
			  const struct mt_match_summary *s)
{
	uint64_t user = 0;
	const char *sep = ": ";

	for (unsigned c = 0; c < REPORT_CLASSES; c++)
		user += r->size[c].msgs[REPORT_USER];
	fprintf(o, "  %" PRIu64 " messages (%" PRIu64 " user, %" PRIu64
		" internal)", r->msgs, user, r->msgs - user);
	for (unsigned st = 0; st < MT_MATCH_ST_COUNT; st++) {
		if (!s->by_status[st] || st == MT_MATCH_ST_CANCELLED)
			continue;
		fprintf(o, "%s%" PRIu64 " %s", sep, s->by_status[st],
			mt_match_status_str(st));
		sep = ", ";
	}
	if (s->by_status[MT_MATCH_ST_CANCELLED])
		fprintf(o, " (%" PRIu64 " cancelled, not counted)",
			s->by_status[MT_MATCH_ST_CANCELLED]);
	fputc('\n', o);
	if (mt_sink_report_bypassed(r, s))
		fprintf(o, "  no send reached libfabric, yet receives were "
			"posted: the messages went another way\n");
}

static void records_line(FILE *o, const struct mt_run *run)
{
	fprintf(o, "  %" PRIu64 " records, %" PRIu64 " lost", run->events,
		run->lost);
	if (run->unclean_files)
		fprintf(o, ", %zu file%s not closed (killed or aborted)",
			run->unclean_files, run->unclean_files == 1 ? "" : "s");
	fputc('\n', o);
}

static void pending_line(FILE *o, const struct mt_match_summary *s)
{
	if (!s->n_pending) {
		fprintf(o, "  hang suspects: none\n");
		return;
	}
	fprintf(o, "  hang suspects: %zu operation%s pending at the end (the "
		"report says who waits on whom)\n", s->n_pending,
		s->n_pending == 1 ? "" : "s");
}

static enum mt_status brief_finalize(void *state, const struct mt_run *run,
				     const struct mt_match_summary *s,
				     struct mt_err *err)
{
	struct report_sink *x = state;
	char who[96], prov[MT_NAME_TEXT_LEN(run->provider)];

	mt_sink_run_who(run, who, sizeof(who));
	mt_sink_name_text(prov, sizeof(prov), run->provider,
			  sizeof(run->provider));
	fprintf(x->out, "  %s on %zu host%s, provider %s, %.3f s\n", who,
		run->nhosts, run->nhosts == 1 ? "" : "s", prov[0] ? prov : "?",
		((double)run->t1_ns - (double)run->t0_ns) / 1e9);
	messages_line(x->out, &x->r, s);
	records_line(x->out, run);
	pending_line(x->out, s);
	return mt_sink_report_end(x, err);
}

const struct mt_sink_ops mt_sink_brief = {
	.key = "brief",
	.name = "brief summary",
	.init = mt_sink_report_start,
	.consume = mt_sink_report_consume,
	.finalize = brief_finalize,
};
