/*
 * sink_csv.c - one CSV line per message (`msgtrace messages --csv`).
 * Unknown values are empty fields; times are ns on the merged trace clock.
 * A trace with call sites gets two more columns at the end, send_site and
 * recv_site: "file.c:12 (main) via MPI_Send" (mt_sym.h), empty when none.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mt_sink.h"

#define CSV_HEADER "send_rank,recv_rank,cid,comm_src,tag,kind,bytes," \
	"t_send_post_ns,t_send_done_ns,t_recv_post_ns,t_recv_done_ns,status"
#define CSV_SITES ",send_site,recv_site"

/* What a line needs besides its message (mt_sink_lines). */
struct csv_lines {
	const struct mt_trace *trace;	/* to name processes */
	struct mt_sym *sym;		/* call sites, NULL: the trace has none */
};

struct csv {
	FILE *out;
	struct csv_lines *l;
};

static void *lines_open(const struct mt_trace *t)
{
	struct csv_lines *l = malloc(sizeof(*l));

	if (l)
		*l = (struct csv_lines){ t, mt_sink_sym(t) };
	return l;
}

static void lines_close(void *arg)
{
	struct csv_lines *l = arg;

	if (l)
		mt_sym_free(l->sym);
	free(l);
}

static enum mt_status csv_init(void **state, FILE *out, const struct mt_run *run,
			       struct mt_err *err)
{
	struct csv *c = malloc(sizeof(*c));
	struct csv_lines *l = lines_open(run->trace);

	if (!c || !l) {
		free(c);
		lines_close(l);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	*c = (struct csv){ out, l };
	fputs(l->sym ? CSV_HEADER CSV_SITES "\n" : CSV_HEADER "\n", out);
	if (mt_sink_written(out, 0, err) != MT_OK) {
		lines_close(l);
		free(c);
		return MT_ERR_IO;
	}
	*state = c;
	return MT_OK;
}

/* A rank as mt_sink_rank names it, empty when unknown. */
static void rank_field(FILE *out, const struct mt_trace *t, int32_t key)
{
	char b[MT_SINK_RANK_LEN];

	if (key >= 0)
		fputs(mt_sink_rank(t, key, b, sizeof(b)), out);
	fputc(',', out);
}

static void num(FILE *out, int known, int64_t v)
{
	if (known)
		fprintf(out, "%" PRId64, v);
	fputc(',', out);
}

static void time_field(FILE *out, uint64_t t)
{
	num(out, t != MT_MATCH_NOTIME, (int64_t)t);
}

/* ",TEXT" for a call site, quoted when it holds a comma or a quote. */
static void site_field(FILE *out, struct mt_sym *sym, uint32_t site)
{
	const struct mt_sym_loc *l = mt_sym_site(sym, site);

	fputc(',', out);
	if (!l)
		return;
	if (!l->text[strcspn(l->text, ",\"\n")]) {
		fputs(l->text, out);
		return;
	}
	fputc('"', out);
	for (const char *p = l->text; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void lines_write(void *arg, const struct mt_match_msg *b, size_t n,
			FILE *out)
{
	const struct csv_lines *l = arg;

	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &b[i];
		int has_send = m->t_send_post != MT_MATCH_NOTIME;

		rank_field(out, l->trace, m->send_rank);
		rank_field(out, l->trace, m->recv_rank);
		num(out, m->f.cid >= 0, m->f.cid);
		num(out, m->f.comm_src >= 0, m->f.comm_src);
		num(out, m->f.has_tag, m->f.tag);
		fprintf(out, "%s,", mt_match_kind_str(m->f.kind));
		if (has_send || m->t_recv_done != MT_MATCH_NOTIME)
			fprintf(out, "%" PRIu64, m->bytes);
		fputc(',', out);
		time_field(out, m->t_send_post);
		time_field(out, m->t_send_done);
		time_field(out, m->t_recv_post);
		time_field(out, m->t_recv_done);
		fputs(mt_match_status_str(m->status), out);
		if (l->sym) {
			site_field(out, l->sym, m->send_site);
			site_field(out, l->sym, m->recv_site);
		}
		fputc('\n', out);
	}
}

static enum mt_status csv_consume(void *state, const struct mt_match_msg *b,
				  size_t n, struct mt_err *err)
{
	const struct csv *c = state;

	lines_write(c->l, b, n, c->out);
	return mt_sink_written(c->out, 0, err);
}

/* The messages are those of the traces' spans: a rank whose trace is a
 * window or ends early is said in a note, since its messages outside
 * that span are missing from the lines. */
static void span_notes(const struct mt_run *run)
{
	char line[256];

	for (size_t p = 0; run->trace && p < run->trace->nprocs; p++)
		if (mt_sink_span_partial_line(run, p, line, sizeof(line)))
			mt_note_say(run->note, "%s (s after the first record)", line);
}

static enum mt_status csv_finalize(void *state, const struct mt_run *run,
				   const struct mt_match_summary *sum,
				   struct mt_err *err)
{
	struct csv *c = state;
	enum mt_status st = mt_sink_written(c->out, 1, err);

	(void)sum;
	span_notes(run);
	lines_close(c->l);
	free(c);
	return st;
}

const struct mt_sink_ops mt_sink_csv = {
	.key = "csv",
	.name = "csv",
	.init = csv_init,
	.consume = csv_consume,
	.finalize = csv_finalize,
	.lines = &(const struct mt_sink_lines){ lines_open, lines_write,
						lines_close },
};
