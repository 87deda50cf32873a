/*
 * joined.c - a fabric trace and an OTF2 archive of the same run, joined
 * (`msgtrace report FABRIC... ARCHIVE`, `msgtrace export --otf2 ...
 * FABRIC... ARCHIVE`): the archive's MPI calls are read first, the fabric
 * trace runs through the pipeline, and a sink in front of the command's
 * own hands every batch of messages to the join (mt_join.h) as well; at
 * the end the join aligns the clocks and ties the messages to the calls,
 * and the command's sink finalizes with it (mt_run.join), adding the
 * joined view to its output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "mt_join.h"
#include "mt_otf2in.h"

struct tee {
	const struct mt_sink_ops *sink;	/* the command's */
	void *sink_arg;			/* its settings */
	void *state;
	struct mt_join *j;
	const struct mt_otf2in_calls *calls;
	size_t nprocs;
	const char *archive;
};

/* The tee's state for the one run of the command (sinks get it through
 * mt_pipe_opts.sink_arg). */
static enum mt_status tee_init(void **state, FILE *out, const struct mt_run *run,
			       struct mt_err *err)
{
	struct tee *t = *state;
	enum mt_status s = mt_join_new(t->calls, t->nprocs, run->nranks,
				       &t->j, err);

	if (s) {
		if (s == MT_ERR_ARG)	/* err says why: name the file */
			mt_err_set(err, s, "%s: %.3900s", t->archive, err->msg);
		return s;
	}
	t->state = t->sink_arg;
	return t->sink->init(&t->state, out, run, err);
}

static enum mt_status tee_consume(void *state, const struct mt_match_msg *b, size_t n,
				  struct mt_err *err)
{
	struct tee *t = state;

	if (mt_join_add(t->j, b, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	return t->sink->consume(t->state, b, n, err);
}

/* When the join fails (the archive is not of this run), the command's
 * output is still written, without the joined view, and the failure
 * named after it. */
static enum mt_status tee_finalize(void *state, const struct mt_run *run,
				   const struct mt_match_summary *sum, struct mt_err *err)
{
	struct tee *t = state;
	struct mt_run joined = *run;
	struct mt_err jerr = { { 0 } };
	enum mt_status js = mt_join_pending(t->j, sum->pending, sum->n_pending), s;

	if (js)
		mt_err_set(&jerr, js, "out of memory");
	else
		js = mt_join_finish(t->j, &jerr);

	if (!js) {
		joined.join = t->j;
		joined.join_archive = t->archive;
	}
	s = t->sink->finalize(t->state, &joined, sum, err);
	if (s || !js)
		return s;
	return mt_err_set(err, js, "%s: %.3900s", t->archive, jerr.msg);
}

static const struct mt_sink_ops tee_ops = {
	.key = "joined", .name = "joined view",
	.init = tee_init, .consume = tee_consume, .finalize = tee_finalize,
};

int mt_cmd_joined(const char *cmd, struct mt_pipe_opts *o,
		  const struct mt_sink_ops *sink, FILE *out)
{
	const char *archive = o->paths[o->npaths - 1];
	struct mt_err err = { { 0 } };
	struct mt_otf2in *in = NULL;
	struct mt_otf2in_calls calls = { 0 };
	struct tee t = { .sink = sink, .sink_arg = o->sink_arg, .archive = archive };
	int rc = MT_EXIT_BAD_INPUT;

	if (!sink->joins) {
		fprintf(stderr, "%s: the %s output does not take an OTF2 archive to "
			"join (report: text, --json, --html; export: --otf2)\n", cmd,
			sink->name);
		return MT_EXIT_USAGE;
	}
	for (size_t i = 0; i + 1 < o->npaths; i++)
		if (mt_otf2in_is_archive(o->paths[i])) {
			fprintf(stderr, "%s: %s: the joined view takes fabric traces "
				"and one OTF2 archive, last\n", cmd, o->paths[i]);
			return MT_EXIT_USAGE;
		}
	if (mt_otf2in_open(archive, &in, &err) ||
	    mt_otf2in_calls(in, &calls, &err)) {
		mt_cmd_say((void *)cmd, err.msg);
		goto out;
	}
	t.calls = &calls;
	t.nprocs = mt_otf2in_trace(in)->nprocs;
	o->npaths--;
	o->sink_arg = &t;
	rc = mt_cmd_pipe_run(cmd, o, &tee_ops, out);
out:
	mt_join_free(t.j);
	mt_otf2in_calls_free(&calls);
	mt_otf2in_close(in);
	return rc;
}
