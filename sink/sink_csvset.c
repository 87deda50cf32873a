/*
 * sink_csvset.c - `msgtrace export --csv PREFIX`: three CSV files.
 *   PREFIX.messages.csv  one line per message: the `msgtrace messages`
 *                        sink (sink_csv.c) writes it
 *   PREFIX.pairs.csv     per sender and receiver (ranks) with traffic
 *   PREFIX.sizes.csv     per power-of-two message-size class with traffic
 *   PREFIX.processes.csv per process what time its trace covers: first and
 *                        last record (ns, merged clock), whether it is a
 *                        window (ring: records overwritten before it, where
 *                        it starts) or ends early (records lost after it)
 * Traffic: messages and bytes, user and internal (report.h's split), and
 * the effective bandwidth of the matched messages (bytes over receive
 * completion minus send post, MB/s = 10^6 B/s).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mt_sink.h"
#include "report.h"

#define TRAFFIC_HEADER "user_msgs,user_bytes,internal_msgs,internal_bytes," \
	"bw_bytes,bw_ns,bw_mbps\n"

enum { F_MESSAGES, F_PAIRS, F_SIZES, F_PROCS, F_COUNT };

static const char *const suffix[F_COUNT] = { ".messages.csv", ".pairs.csv",
					     ".sizes.csv", ".processes.csv" };

struct csvset {
	FILE *f[F_COUNT];
	void *msgs;		/* mt_sink_csv's state */
	struct report r;
	int r_ok;
};

static void close_all(struct csvset *c)
{
	for (int i = 0; i < F_COUNT; i++)
		if (c->f[i])
			fclose(c->f[i]);
	if (c->r_ok)
		mt_sink_report_fini(&c->r);
	free(c);
}

/* *state: the prefix (-o). */
static enum mt_status set_init(void **state, FILE *out, const struct mt_run *run,
			       struct mt_err *err)
{
	const char *prefix = *state;
	struct csvset *c = calloc(1, sizeof(*c));
	char path[4096];

	(void)out;
	*state = NULL;
	enum mt_status s;

	if (!c)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (int i = 0; i < F_COUNT; i++) {
		snprintf(path, sizeof(path), "%s%s", prefix, suffix[i]);
		if (!(c->f[i] = fopen(path, "w"))) {
			s = mt_err_set(err, MT_ERR_IO, "cannot create '%s': %s",
				       path, strerror(errno));
			close_all(c);
			return s;
		}
	}
	c->r_ok = !mt_sink_report_init(&c->r, run);
	if (!c->r_ok)
		s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	else
		s = mt_sink_csv.init(&c->msgs, c->f[F_MESSAGES], run, err);
	if (s) {
		close_all(c);
		return s;
	}
	*state = c;
	return MT_OK;
}

static enum mt_status set_consume(void *state, const struct mt_match_msg *b,
				  size_t n, struct mt_err *err)
{
	struct csvset *c = state;

	if (mt_sink_report_add(&c->r, b, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	return mt_sink_csv.consume(c->msgs, b, n, err);
}

static void traffic(FILE *f, const struct report_cell *x)
{
	fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%.3f\n", x->msgs[REPORT_USER], x->bytes[REPORT_USER],
		x->msgs[REPORT_INTERNAL], x->bytes[REPORT_INTERNAL], x->bw_bytes,
		x->bw_ns, mt_sink_report_mbps(x->bw_bytes, x->bw_ns));
}

static int empty(const struct report_cell *x)
{
	return !x->msgs[REPORT_USER] && !x->msgs[REPORT_INTERNAL];
}

/* Per process, what time its trace covers; a field that does not apply
 * is empty. */
static void spans(FILE *f, const struct mt_trace *t)
{
	fputs("rank,first_ns,last_ns,window,window_start_ns,overwritten,"
	      "ended_early,end_ns,lost\n", f);
	for (size_t p = 0; t && p < t->nprocs; p++) {
		char k[MT_SINK_RANK_LEN];
		struct mt_sink_span sp;

		mt_sink_proc_span(&t->procs[p], &sp);
		fprintf(f, "%s,%" PRId64 ",%" PRId64 ",%d,",
			mt_sink_rank(t, t->procs[p].key, k, sizeof(k)), sp.first_ns,
			sp.last_ns, sp.wrapped);
		if (sp.wrapped)
			fprintf(f, "%" PRId64, sp.window_ns);
		fprintf(f, ",%" PRIu64 ",%d,", sp.overwritten, sp.ended);
		if (sp.ended)
			fprintf(f, "%" PRId64, sp.end_ns);
		fprintf(f, ",%" PRIu64 "\n", sp.lost);
	}
}

static enum mt_status set_finalize(void *state, const struct mt_run *run,
				   const struct mt_match_summary *sum,
				   struct mt_err *err)
{
	struct csvset *c = state;
	struct report *r = &c->r;
	const size_t *pairs;
	char label[32];
	enum mt_status rc = mt_sink_csv.finalize(c->msgs, run, sum, err);

	fputs("send_rank,recv_rank," TRAFFIC_HEADER, c->f[F_PAIRS]);
	pairs = mt_sink_report_pairs(r);
	for (size_t j = 0; j < r->npairs; j++) {
		char a[MT_SINK_RANK_LEN], b[MT_SINK_RANK_LEN];

		fprintf(c->f[F_PAIRS], "%s,%s,",
			mt_sink_rank(run->trace, (int64_t)(pairs[j] / r->n), a, sizeof(a)),
			mt_sink_rank(run->trace, (int64_t)(pairs[j] % r->n), b, sizeof(b)));
		traffic(c->f[F_PAIRS], &r->pair[pairs[j]]);
	}
	fputs("size_min_bytes,size_class," TRAFFIC_HEADER, c->f[F_SIZES]);
	for (unsigned k = 0; k < REPORT_CLASSES; k++)
		if (!empty(&r->size[k])) {
			fprintf(c->f[F_SIZES], "%llu,%s,", k ? 1ull << (k - 1) : 0ull,
				mt_sink_report_class_label(k, label, sizeof(label)));
			traffic(c->f[F_SIZES], &r->size[k]);
		}
	spans(c->f[F_PROCS], run->trace);
	for (int i = 0; i < F_COUNT; i++) {
		if (ferror(c->f[i]) || fclose(c->f[i]))
			rc = MT_ERR_IO;
		c->f[i] = NULL;
	}
	if (rc)
		rc = mt_err_set(err, MT_ERR_IO, "writing the CSV files failed");
	close_all(c);
	return rc;
}

const struct mt_sink_ops mt_sink_csvset = {
	.key = "csv-files",
	.name = "CSV files",
	.init = set_init,
	.consume = set_consume,
	.finalize = set_finalize,
};
