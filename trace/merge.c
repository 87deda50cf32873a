/*
 * merge.c - time-ordered k-way merge of every file of a trace.
 *
 * A loser tree (tournament) over one source per file: each step replays
 * one leaf-to-root path, log2(k) comparisons, about half a binary heap's.
 * Sources are ordered by (merge ns, slot), where the slot is the file's
 * position in process order then thread order: ties are deterministic.
 * Files were validated when opened, so advancing is a pointer bump past
 * unknown record types.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

_Static_assert(MT_TRACE_DECODED_MAX == MT_CODEC_REF_MAX,
	       "the merge hands out decoded records up to the codec's limit");

#define DONE UINT64_MAX		/* key of an exhausted source */
#define PREFETCH_MIN_FILES 8	/* bench_trace_merge: slower below, faster above */

/* A compacted file's decoding: bounded whatever the file's size. */
struct dec {
	struct mt_codec_state st;
	uint64_t off;			/* stream offset after the current record */
	uint64_t cur[MT_CODEC_REF_MAX / 8];	/* the record handed out */
};

struct src {
	const uint8_t *pos;		/* current record */
	const uint8_t *end;		/* valid_end in the mapping */
	struct dec *dec;		/* compacted files only */
	const struct mt_trace_clock *clock;
	int64_t offset_ns;		/* merge_offset_ns of the process */
	const struct mt_trace_file *f;
	uint32_t proc, file;
};

struct mt_trace_merge {
	struct src *src;
	uint64_t *key;		/* per source: ns as an order-preserving uint64 */
	uint32_t *tree;		/* [0] winner, [1..k-1] losers */
	uint32_t k;
	const struct mt_trace_file *failed;	/* error to return next */
};

static const uint8_t known[256] = {
#define KNOWN(name, val) [val] = 1,
	MT_REC_TYPES(KNOWN)
#undef KNOWN
};

static inline int less(const struct mt_trace_merge *m, uint32_t a, uint32_t b)
{
	return m->key[a] < m->key[b] || (m->key[a] == m->key[b] && a < b);
}

/* The merge key of record r, now s's current record. */
static inline uint64_t key_of(struct src *s, const struct mt_rec_hdr *r)
{
	/* Unsigned: a corrupt clock must wrap, not overflow. */
	int64_t ns = (int64_t)((uint64_t)mt_trace_ticks_ns(s->clock, r->ts) +
			       (uint64_t)s->offset_ns);
	/* Flip the sign bit so unsigned order is signed order; the largest
	 * time stays below DONE. */
	uint64_t k = (uint64_t)ns ^ (1ull << 63);

	s->pos = (const uint8_t *)r;
	return k == DONE ? DONE - 1 : k;
}

/* Point s at its first known-type record at or after p; DONE at the end. */
static inline uint64_t seek(struct src *s, const uint8_t *p)
{
	while (p < s->end) {
		const struct mt_rec_hdr *r = (const struct mt_rec_hdr *)p;

		if (known[r->type])
			return key_of(s, r);
		p += r->size;
	}
	s->pos = s->end;
	return DONE;
}

/* seek() of a compacted file: decode up to its next known-type record
 * (the scan validated the stream: it decodes as it did then). */
static uint64_t seek_compact(struct src *s)
{
	uint64_t end = (uint64_t)(s->end - s->f->map);
	const char *why;

	while (s->dec->off < end) {
		const struct mt_rec_hdr *r =
			mt_codec_decode(&s->dec->st, s->f->map, &s->dec->off, end, &why);

		if (!r)
			break;
		if (known[r->type])
			return key_of(s, r);
	}
	s->pos = s->end;
	return DONE;
}

/* Winner of the subtree at node, storing losers on the way (init only). */
static uint32_t build(struct mt_trace_merge *m, uint32_t node)
{
	uint32_t a, b;

	if (node >= m->k)
		return node - m->k;
	a = build(m, 2 * node);
	b = build(m, 2 * node + 1);
	if (less(m, b, a)) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	m->tree[node] = b;
	return a;
}

static inline void replay(struct mt_trace_merge *m, uint32_t leaf)
{
	uint32_t w = leaf;

	for (uint32_t node = (m->k + leaf) / 2; node; node /= 2) {
		uint32_t l = m->tree[node];

		if (less(m, l, w)) {
			m->tree[node] = w;
			w = l;
		}
	}
	m->tree[0] = w;
}

enum mt_status mt_trace_merge_open(const struct mt_trace *t,
				   struct mt_trace_merge **out)
{
	return mt_trace_merge_open_some(t, NULL, out);
}

enum mt_status mt_trace_merge_open_some(const struct mt_trace *t,
					const uint8_t *keep,
					struct mt_trace_merge **out)
{
	struct mt_trace_merge *m = calloc(1, sizeof(*m));
	size_t n = t->nfiles ? t->nfiles : 1;
	uint32_t slot = 0;

	if (!m)
		return MT_ERR_NOMEM;
	m->src = calloc(n, sizeof(*m->src));
	m->key = calloc(n, sizeof(*m->key));
	m->tree = calloc(n, sizeof(*m->tree));
	if (!m->src || !m->key || !m->tree) {
		mt_trace_merge_close(m);
		return MT_ERR_NOMEM;
	}
	for (uint32_t p = 0; p < t->nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];

		if (keep && !keep[p])
			continue;
		for (uint32_t i = 0; i < pr->nfiles; i++, slot++) {
			const struct mt_trace_file *f = pr->files[i];
			struct src *s = &m->src[slot];

			*s = (struct src){ NULL, f->map + f->valid_end, NULL,
					   &pr->clock, pr->merge_offset_ns, f, p, i };
			if (f->compact) {
				s->dec = malloc(sizeof(*s->dec));
				if (!s->dec) {
					m->k = slot;
					mt_trace_merge_close(m);
					return MT_ERR_NOMEM;
				}
				mt_codec_reset(&s->dec->st);
				s->dec->off = f->hdr->data_off;
				m->key[slot] = seek_compact(s);
			} else
				m->key[slot] = seek(s, f->map + f->hdr->data_off);
			if (m->key[slot] == DONE && f->scan_status != MT_OK &&
			    !m->failed)
				m->failed = f;
		}
	}
	m->k = slot;
	if (m->k)
		m->tree[0] = m->k == 1 ? 0 : build(m, 1);
	*out = m;
	return MT_OK;
}

enum mt_status mt_trace_merge_next(struct mt_trace_merge *m,
				   struct mt_trace_event *ev,
				   struct mt_err *err)
{
	uint32_t w;
	struct src *s;

	if (m->failed) {
		if (err)
			*err = m->failed->scan_err;
		return m->failed->scan_status;
	}
	if (!m->k || m->key[w = m->tree[0]] == DONE)
		return MT_END;
	s = &m->src[w];
	ev->proc = s->proc;
	ev->file = s->file;
	ev->rec = (const struct mt_rec_hdr *)s->pos;
	ev->ns = (int64_t)((m->key[w] ^ (1ull << 63)) - (uint64_t)s->offset_ns);
	if (s->dec) {
		/* Decoding the next record may overwrite this one: the
		 * caller gets a copy (a raw record >REF_MAX is in the map). */
		if (ev->rec->size <= sizeof(s->dec->cur)) {
			memcpy(s->dec->cur, ev->rec, ev->rec->size);
			ev->rec = (const struct mt_rec_hdr *)s->dec->cur;
		}
		m->key[w] = seek_compact(s);
	} else {
		m->key[w] = seek(s, s->pos + ev->rec->size);
		/* With many files a source comes back only after others had
		 * their turn: fetch its following record now, not when it is
		 * needed. With a few files the hardware prefetcher keeps up
		 * by itself. */
		if (m->k > PREFETCH_MIN_FILES)
			__builtin_prefetch(s->pos + 2 * ev->rec->size);
	}
	/* File done: a scan error surfaces on the following call. */
	if (m->key[w] == DONE && s->f->scan_status != MT_OK)
		m->failed = s->f;
	replay(m, w);
	return MT_OK;
}

void mt_trace_merge_close(struct mt_trace_merge *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; m->src && i < m->k; i++)
		free(m->src[i].dec);
	free(m->src);
	free(m->key);
	free(m->tree);
	free(m);
}
