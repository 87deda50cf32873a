/*
 * tagmode.c - how full the tag fields were in a run and what other layouts
 * would have made of the same values (the tag-mode analysis of
 * mt_decode.h). Values are kept as distinct sets per field; fit and alias
 * come from encoding each value with the other layout and decoding it back,
 * so this file holds no bit arithmetic of its own beyond field widths.
 */
#include <stdlib.h>
#include <string.h>

#include "mt_decode.h"

struct slot {
	int64_t key;
	uint64_t msgs;
	uint64_t user, wild;	/* cid: user-tag messages, by MPI_ANY_TAG */
	int32_t min_itag;	/* cid: most negative internal tag, 0 none */
	bool used;
};

struct vmap {
	struct slot *s;
	size_t cap, n;		/* cap: 0 or a power of two */
};

struct mt_tag_usage {
	struct vmap m[MT_TAG_U_COUNT];
};

const char *mt_tag_ufield_name(enum mt_tag_ufield f)
{
	static const char *const names[MT_TAG_U_COUNT] = {
		"communicator id", "source rank", "MPI tag (user)",
		"MPI tag (internal)"
	};
	return (unsigned)f < MT_TAG_U_COUNT ? names[f] : "?";
}

static size_t index_of(const struct vmap *m, int64_t key)
{
	size_t i = (size_t)((uint64_t)key * 0x9e3779b97f4a7c15ull >> 17) & (m->cap - 1);

	while (m->s[i].used && m->s[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static const struct slot *vmap_get(const struct vmap *m, int64_t key)
{
	if (!m->cap)
		return NULL;
	const struct slot *s = &m->s[index_of(m, key)];
	return s->used ? s : NULL;
}

static struct slot *vmap_add(struct vmap *m, int64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		struct vmap big = { calloc(m->cap ? 2 * m->cap : 64, sizeof(struct slot)),
				    m->cap ? 2 * m->cap : 64, m->n };
		if (!big.s)
			return NULL;
		for (size_t i = 0; i < m->cap; i++)
			if (m->s[i].used)
				big.s[index_of(&big, m->s[i].key)] = m->s[i];
		free(m->s);
		*m = big;
	}
	struct slot *s = &m->s[index_of(m, key)];
	if (!s->used) {
		*s = (struct slot){ .key = key, .used = true };
		m->n++;
	}
	return s;
}

enum mt_status mt_tag_usage_new(struct mt_tag_usage **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? MT_OK : MT_ERR_NOMEM;
}

void mt_tag_usage_free(struct mt_tag_usage *u)
{
	if (!u)
		return;
	for (int f = 0; f < MT_TAG_U_COUNT; f++)
		free(u->m[f].s);
	free(u);
}

enum mt_status mt_tag_usage_add(struct mt_tag_usage *u, const struct mt_tag_fields *f,
		     bool any_tag)
{
	bool internal = f->flags & MT_F_INTERNAL;
	struct slot *c = NULL, *s;

	if (f->valid & MT_V_CID) {
		if (!(c = vmap_add(&u->m[MT_TAG_U_CID], f->cid)))
			return MT_ERR_NOMEM;
		c->msgs++;
	}
	if ((f->valid & MT_V_SOURCE) && f->source >= 0) {
		if (!(s = vmap_add(&u->m[MT_TAG_U_SRC], f->source)))
			return MT_ERR_NOMEM;
		s->msgs++;
	}
	if (!(f->valid & MT_V_TAG))
		return MT_OK;
	if (!(s = vmap_add(&u->m[internal ? MT_TAG_U_ITAG : MT_TAG_U_UTAG], f->tag)))
		return MT_ERR_NOMEM;
	s->msgs++;
	if (c && internal && f->tag < c->min_itag)
		c->min_itag = f->tag;
	if (c && !internal) {
		c->user++;
		c->wild += any_tag;
	}
	return MT_OK;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

size_t mt_tag_usage_values(const struct mt_tag_usage *u, enum mt_tag_ufield f,
			   int64_t *out, size_t max)
{
	const struct vmap *m = &u->m[f];
	int64_t *all = malloc((m->n ? m->n : 1) * sizeof(*all));
	size_t n = 0;

	if (!all)
		return 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->s[i].used)
			all[n++] = m->s[i].key;
	qsort(all, n, sizeof(*all), cmp_i64);
	if (max)
		memcpy(out, all, (n < max ? n : max) * sizeof(*out));
	free(all);
	return n;
}

void mt_tag_usage_stat(const struct mt_tag_usage *u, enum mt_tag_ufield f,
		       struct mt_tag_ustat *out)
{
	const struct vmap *m = &u->m[f];

	memset(out, 0, sizeof(*out));
	out->distinct = m->n;
	for (size_t i = 0; i < m->cap; i++) {
		const struct slot *s = &m->s[i];

		if (!s->used)
			continue;
		if (out->msgs == 0 || s->key < out->min)
			out->min = s->key;
		if (out->msgs == 0 || s->key > out->max)
			out->max = s->key;
		out->msgs += s->msgs;
	}
}

static uint8_t bit_length(uint64_t v)
{
	return v ? (uint8_t)(64 - __builtin_clzll(v)) : 0;
}

void mt_tag_usage_room(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
		       enum mt_tag_ufield f, struct mt_tag_room *out)
{
	struct mt_tag_ustat st;
	bool neg_tags = l->internal == MT_INT_NEG_TAG && l->tag_signed;

	mt_tag_usage_stat(u, f, &st);
	memset(out, 0, sizeof(*out));
	switch (f) {
	case MT_TAG_U_CID:
		out->in_tag = l->cid_bits > 0;
		out->bits = l->cid_usable_bits;
		out->limit = (int64_t)l->cid_max;
		out->bits_used = bit_length((uint64_t)st.max);
		break;
	case MT_TAG_U_SRC:
		out->in_tag = l->src_in != MT_SRC_NONE;
		out->bits = l->src_in == MT_SRC_TAG ? l->src_bits : l->data_src_bits;
		out->limit = (int64_t)l->src_max;
		out->bits_used = bit_length((uint64_t)st.max);
		break;
	case MT_TAG_U_UTAG:
		out->in_tag = l->tag_bits > 0;
		out->bits = l->tag_bits;
		out->limit = (int64_t)l->tag_ub;
		out->bits_used = (uint8_t)(bit_length(st.max > 0 ? (uint64_t)st.max : 0) +
					   (l->tag_signed && st.msgs));
		break;
	case MT_TAG_U_ITAG:
		/* Negative tags: two's complement in the field, sign bit included. */
		out->in_tag = neg_tags;
		out->bits = l->tag_bits;
		out->limit = -(int64_t)l->tag_ub - 1;
		out->bits_used = st.msgs ? (uint8_t)(bit_length(~(uint64_t)st.min) + 1) : 0;
		break;
	default:
		return;
	}
	if (!out->in_tag || !out->limit)
		return;
	/* Internal tags grow downwards: their extreme is the minimum. */
	int64_t ext = f == MT_TAG_U_ITAG ? st.min : st.max;
	int64_t gap = out->limit < 0 ? ext - out->limit : out->limit - ext;

	out->left = gap > 0 ? (uint64_t)gap : 0;
	out->pct_used = 100.0 * (double)ext / (double)out->limit;
}

/* Value v of field f encoded with l and decoded back: truncated or not,
 * and what the receiver would see. False when l lacks the field. */
static bool roundtrip(const struct mt_tag_layout *l, enum mt_tag_ufield f,
		      int64_t v, bool *trunc, int64_t *becomes)
{
	static const uint8_t bit[MT_TAG_U_COUNT] = { MT_V_CID, MT_V_SOURCE,
						     MT_V_TAG, MT_V_TAG };
	struct mt_tag_fields in = { 0 }, o;
	struct mt_tag_wire w;

	if ((f == MT_TAG_U_SRC && l->src_in == MT_SRC_NONE) ||
	    (f >= MT_TAG_U_UTAG && !l->tag_bits))
		return false;
	if (f == MT_TAG_U_CID)
		in.cid = (mt_comm_t)v;
	else if (f == MT_TAG_U_SRC)
		in.source = (mt_rank_t)v;
	else
		in.tag = (int32_t)v;
	in.valid = bit[f];
	if (mt_tag_encode(l, &in, &w) == MT_ERR_ARG)
		return false;
	*trunc = w.truncated & bit[f];
	mt_tag_decode(l, w.tag, w.data, w.has_data ? MT_TAG_IN_DATA : 0, &o);
	*becomes = f == MT_TAG_U_CID ? (int64_t)o.cid :
		   f == MT_TAG_U_SRC ? (int64_t)o.source : (int64_t)o.tag;
	return true;
}

static bool used(const struct mt_tag_usage *u, enum mt_tag_ufield f, int64_t v)
{
	if (f == MT_TAG_U_UTAG || f == MT_TAG_U_ITAG)
		return vmap_get(&u->m[MT_TAG_U_UTAG], v) ||
		       vmap_get(&u->m[MT_TAG_U_ITAG], v);
	return vmap_get(&u->m[f], v) != NULL;
}

/* Does v occur twice in the sorted to[0..n)? */
static bool twice(const int64_t *to, size_t n, int64_t v)
{
	const int64_t *p = bsearch(&v, to, n, sizeof(*to), cmp_i64);

	return p && ((p > to && p[-1] == v) || (p + 1 < to + n && p[1] == v));
}

/* Runs every value of field f through l: counts into wf (may be NULL),
 * every misfit into out[0..max). Returns the number of misfits. A misfit
 * aliases when what it becomes is a value the run used, or what another
 * misfit becomes too (5000 and 9096 both arrive as cid 904). */
static size_t check_field(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
			  enum mt_tag_ufield f, struct mt_tag_whatif_field *wf,
			  struct mt_tag_misfit *out, size_t max)
{
	const struct vmap *m = &u->m[f];
	size_t cap = m->n ? m->n : 1, n, bad = 0;
	int64_t *vals = malloc(cap * sizeof(*vals)), *to = malloc(cap * sizeof(*to));
	struct mt_tag_misfit *mis = malloc(cap * sizeof(*mis));
	bool trunc;

	if (!vals || !to || !mis)
		goto out;
	n = mt_tag_usage_values(u, f, vals, m->n);
	for (size_t i = 0; i < n; i++) {
		struct mt_tag_misfit *mf = &mis[bad];

		if (!roundtrip(l, f, vals[i], &trunc, &mf->becomes))
			break;
		if (wf)
			wf->values++;
		if (trunc) {
			mf->value = vals[i];
			to[bad++] = mf->becomes;
		}
	}
	qsort(to, bad, sizeof(*to), cmp_i64);
	for (size_t i = 0; i < bad; i++) {
		struct mt_tag_misfit *mf = &mis[i];

		mf->alias = mf->becomes != mf->value &&
			    (used(u, f, mf->becomes) || twice(to, bad, mf->becomes));
		mf->flips = f >= MT_TAG_U_UTAG && (mf->value < 0) != (mf->becomes < 0);
		if (i < max)
			out[i] = *mf;
		if (wf) {
			wf->alias += mf->alias;
			wf->flips += mf->flips;
		}
	}
out:
	free(vals);
	free(to);
	free(mis);
	return bad;
}

enum mt_status mt_tag_usage_whatif(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
			enum mt_status layout_status, struct mt_tag_whatif *out)
{
	memset(out, 0, sizeof(*out));
	out->layout_status = layout_status;
	out->fits = layout_status == MT_OK;
	for (int f = 0; f < MT_TAG_U_COUNT; f++) {
		struct mt_tag_whatif_field *wf = &out->f[f];

		wf->misfit = check_field(u, l, (enum mt_tag_ufield)f, wf, wf->ex,
					 MT_TAG_WHATIF_EX);
		wf->n_ex = wf->misfit < MT_TAG_WHATIF_EX ? (unsigned)wf->misfit :
			   MT_TAG_WHATIF_EX;
		out->fits &= wf->misfit == 0;
	}
	return MT_OK;
}

size_t mt_tag_usage_misfits(const struct mt_tag_usage *u,
			    const struct mt_tag_layout *l, enum mt_tag_ufield f,
			    struct mt_tag_misfit *out, size_t max)
{
	return check_field(u, l, f, NULL, out, max);
}

static int cmp_nbc(const void *a, const void *b)
{
	const struct mt_tag_nbc *x = a, *y = b;

	if (x->left != y->left)
		return x->left < y->left ? -1 : 1;
	return (x->cid > y->cid) - (x->cid < y->cid);
}

size_t mt_tag_usage_nbc(const struct mt_tag_usage *u, const struct mt_tag_layout *l,
			struct mt_tag_nbc *out, size_t max)
{
	const struct vmap *m = &u->m[MT_TAG_U_CID];
	struct mt_tag_nbc *all = malloc((m->n ? m->n : 1) * sizeof(*all));
	/* Open MPI reserves tags from BASE downwards and recycles at END; a
	 * field narrower than that wraps them first (ofi_tag_2: at -2^19). */
	int64_t field_min = -(int64_t)l->tag_ub - 1;
	bool narrow = l->tag_signed && field_min > MT_TAG_OMPI_NBC_END;
	int64_t floor = narrow ? field_min : MT_TAG_OMPI_NBC_END;
	size_t n = 0;

	if (!all || l->internal != MT_INT_NEG_TAG) {
		free(all);
		return 0;
	}
	for (size_t i = 0; i < m->cap; i++) {
		const struct slot *s = &m->s[i];

		if (!s->used || s->min_itag >= 0)
			continue;
		int64_t next = s->min_itag <= MT_TAG_OMPI_NBC_BASE ?
			(int64_t)s->min_itag - 1 : MT_TAG_OMPI_NBC_BASE;
		all[n++] = (struct mt_tag_nbc){
			.cid = (mt_comm_t)s->key, .min_tag = s->min_itag,
			.narrow = narrow, .wrapped = narrow && s->min_itag <= floor,
			.left = next >= floor ? (uint64_t)(next - floor + 1) : 0,
			.user_msgs = s->user, .wild_user_msgs = s->wild,
		};
	}
	qsort(all, n, sizeof(*all), cmp_nbc);
	if (max)
		memcpy(out, all, (n < max ? n : max) * sizeof(*out));
	free(all);
	return n;
}
