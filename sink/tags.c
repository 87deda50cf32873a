/*
 * tags.c - the gathering half of `msgtrace tags` (see tags.h). All the
 * arithmetic is decode/'s (mt_tag_usage_*) and match/'s
 * (mt_match_trunc_cause); this file only feeds them and lists the cases.
 */
#include <stdlib.h>
#include <string.h>

#include "tags.h"

enum mt_status mt_sink_tags_start(void **state, FILE *out,
				 const struct mt_run *run, struct mt_err *err)
{
	struct tags *t = calloc(1, sizeof(*t));

	if (!t)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	t->out = out;
	t->sym = mt_sink_sym(run->trace);
	if (*state)
		t->opts = *(const struct mt_sink_tags_opts *)*state;
	t->trunc = malloc(TAGS_TRUNC_KEEP * sizeof(*t->trunc));
	if (!t->trunc || mt_tag_usage_new(&t->u)) {
		mt_sink_tags_free(t);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	*state = t;
	return MT_OK;
}

void mt_sink_tags_free(struct tags *t)
{
	if (!t)
		return;
	mt_sym_free(t->sym);
	mt_tag_usage_free(t->u);
	free(t->trunc);
	free(t);
}

/* The matcher's view of a message back into decode/'s fields. */
static void to_tag_fields(const struct mt_match_fields *m, struct mt_tag_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->valid = (m->cid >= 0 ? MT_V_CID : 0) | (m->comm_src >= 0 ? MT_V_SOURCE : 0) |
		   (m->has_tag ? MT_V_TAG : 0);
	f->cid = m->cid >= 0 ? (mt_comm_t)m->cid : MT_COMM_UNDEF;
	f->source = m->comm_src;
	f->tag = m->tag;
	f->flags = m->internal ? MT_F_INTERNAL : 0;
}

enum mt_status mt_sink_tags_consume(void *state, const struct mt_match_msg *batch,
				   size_t n, struct mt_err *err)
{
	struct tags *t = state;

	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &batch[i];
		struct mt_tag_fields f;

		t->msgs++;
		if (m->status == MT_MATCH_ST_TRUNCATED) {
			if (t->n_trunc_kept < TAGS_TRUNC_KEEP)
				t->trunc[t->n_trunc_kept++] = *m;
			t->n_trunc++;
		}
		/* An Ssend ACK repeats its message's fields (its source names
		 * the destination); untagged traffic has none; a cancelled
		 * receive never saw a message. */
		if (m->f.kind == MT_MATCH_SSEND_ACK || m->f.kind == MT_MATCH_UNTAGGED ||
		    m->f.kind == MT_MATCH_HANDSHAKE ||
		    m->status == MT_MATCH_ST_CANCELLED)
			continue;
		to_tag_fields(&m->f, &f);
		bool any_tag = m->t_recv_post != MT_MATCH_NOTIME && !m->recv_f.has_tag;
		if (mt_tag_usage_add(t->u, &f, any_tag))
			return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		t->counted++;
	}
	return MT_OK;
}

uint64_t mt_sink_tags_run_mtf(const struct mt_run *run)
{
	return run->trace && run->trace->neps ? run->trace->eps[0].rec->mem_tag_format : 0;
}

double mt_sink_tags_sec(const struct mt_run *run, uint64_t t)
{
	return t == MT_MATCH_NOTIME ? 0.0 : ((double)(int64_t)t - (double)run->t0_ns) / 1e9;
}

static void add_case(struct tags *t, enum mt_tag_layout_id id, uint64_t mtf,
		     const char *origin, const struct mt_run *run)
{
	for (size_t i = 0; i < t->n_cases; i++)
		if (t->cases[i].l.id == id && t->cases[i].mtf == mtf)
			return;
	if (t->n_cases == TAGS_CASES_MAX)
		return;
	struct tags_case *c = &t->cases[t->n_cases++];
	enum mt_status st = mt_tag_layout_get(id, mtf, &c->l);

	c->mtf = mtf;
	c->origin = origin;
	c->in_force = id == run->layout.id && mtf == mt_sink_tags_run_mtf(run);
	mt_tag_usage_whatif(t->u, &c->l, st, &c->w);
}

int mt_sink_tags_finish(struct tags *t, const struct mt_run *run)
{
	enum mt_tag_layout_id fam[MT_TAG_LAYOUT_COUNT];
	size_t nf = mt_tag_layout_family(run->layout.id, fam, MT_TAG_LAYOUT_COUNT);
	uint64_t mine = mt_sink_tags_run_mtf(run);

	t->n_cases = 0;
	for (size_t k = 0; k < nf; k++)
		add_case(t, fam[k], mine, "this provider", run);
	/* mem_tag_format changes only Open MPI's cid width (MPICH ignores it). */
	if (run->layout.internal == MT_INT_ODD_CID)
		return 0;
	for (size_t k = 0; k < nf; k++)
		add_case(t, fam[k], TAGS_MTF_RESERVING, "reserving provider (net)", run);
	for (size_t m = 0; m < t->opts.n_mtf; m++)
		for (size_t k = 0; k < nf; k++)
			add_case(t, fam[k], t->opts.mtf[m], "--mem-tag-format", run);
	return 0;
}

size_t mt_sink_tags_nbc(const struct tags *t, const struct mt_tag_layout *l,
		struct mt_tag_nbc **out)
{
	struct mt_tag_nbc probe;
	size_t n = mt_tag_usage_nbc(t->u, l, &probe, 0);

	*out = n ? malloc(n * sizeof(**out)) : NULL;
	if (!*out)
		return 0;
	return mt_tag_usage_nbc(t->u, l, *out, n);
}

const struct tags_case *mt_sink_tags_tag2(const struct tags *t)
{
	for (size_t i = 0; i < t->n_cases; i++)
		if (t->cases[i].l.id == MT_TAG_LAYOUT_OMPI_TAG2)
			return &t->cases[i];
	return NULL;
}

/* Open MPI never truncates user-visible fields itself (TAG-LAYOUTS.md): it
 * refuses what does not fit, except its own negative tags, which wrap;
 * MPICH sizes its context ids and MPI_TAG_UB to its layout the same way. */
const char *mt_sink_tags_consequence(enum mt_tag_ufield f)
{
	static const char *const what[MT_TAG_U_COUNT] = {
		"the MPI would refuse to create these communicators: "
		"MPI_Comm_dup/split fail",
		"the MTL has no room for these ranks: the job cannot run",
		"above MPI_TAG_UB: MPI would reject these sends with MPI_ERR_TAG",
		"internal tags wrap silently on the wire",
	};
	return (unsigned)f < MT_TAG_U_COUNT ? what[f] : "?";
}
