/*
 * merge.c - time-ordered k-way merge of every file of a trace.
 *
 * A binary min-heap holds one entry per file that still has records, keyed
 * by (merge ns, file slot): the slot is the file's position in process
 * order then thread order, which makes ties deterministic. Files were
 * validated when opened, so advancing is a pointer bump past unknown types.
 */
#include <stdlib.h>

#include "trace_int.h"

struct src {
	const uint8_t *end;		/* valid_end in the mapping */
	const struct mt_trace_file *f;
	const struct mt_trace_clock *clock;
	int64_t offset_ns;		/* merge_offset_ns of the process */
	uint32_t proc, file;
};

struct ent {
	int64_t key;
	uint32_t slot;
	const uint8_t *pos;		/* current record */
};

struct mt_trace_merge {
	struct src *src;
	struct ent *heap;
	size_t n;
	const struct mt_trace_file *failed;	/* error to return next */
};

static inline int less(const struct ent *a, const struct ent *b)
{
	return a->key < b->key || (a->key == b->key && a->slot < b->slot);
}

static void sift_down(struct ent *h, size_t n, size_t i)
{
	struct ent e = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && less(&h[c + 1], &h[c]))
			c++;
		if (!less(&h[c], &e))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = e;
}

/* First known-type record at or after p, or NULL at the end. */
static inline const uint8_t *skip_unknown(const struct src *s, const uint8_t *p)
{
	while (p < s->end) {
		const struct mt_rec_hdr *r = (const struct mt_rec_hdr *)p;

		if (r->type && mt_trace_rec_min_size(r->type))
			return p;
		p += r->size;
	}
	return NULL;
}

static inline int64_t key_of(const struct src *s, const uint8_t *p)
{
	return mt_trace_ticks_ns(s->clock, ((const struct mt_rec_hdr *)p)->ts) +
	       s->offset_ns;
}

enum mt_status mt_trace_merge_open(const struct mt_trace *t,
				   struct mt_trace_merge **out)
{
	struct mt_trace_merge *m = calloc(1, sizeof(*m));
	uint32_t slot = 0;

	if (!m)
		return MT_ERR_NOMEM;
	m->src = calloc(t->nfiles ? t->nfiles : 1, sizeof(*m->src));
	m->heap = calloc(t->nfiles ? t->nfiles : 1, sizeof(*m->heap));
	if (!m->src || !m->heap) {
		mt_trace_merge_close(m);
		return MT_ERR_NOMEM;
	}
	for (uint32_t p = 0; p < t->nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];

		for (uint32_t i = 0; i < pr->nfiles; i++, slot++) {
			const struct mt_trace_file *f = pr->files[i];
			struct src *s = &m->src[slot];
			const uint8_t *first;

			*s = (struct src){ f->map + f->valid_end, f, &pr->clock,
					   pr->merge_offset_ns, p, i };
			first = skip_unknown(s, f->map + f->hdr->data_off);
			if (first)
				m->heap[m->n++] = (struct ent){ key_of(s, first),
								slot, first };
			else if (f->scan_status != MT_OK && !m->failed)
				m->failed = f;
		}
	}
	for (size_t i = m->n / 2; i-- > 0;)
		sift_down(m->heap, m->n, i);
	*out = m;
	return MT_OK;
}

enum mt_status mt_trace_merge_next(struct mt_trace_merge *m,
				   struct mt_trace_event *ev,
				   struct mt_err *err)
{
	struct ent *top = &m->heap[0];
	const struct src *s;
	const uint8_t *next;

	if (m->failed) {
		if (err)
			*err = m->failed->scan_err;
		return m->failed->scan_status;
	}
	if (!m->n)
		return MT_END;
	s = &m->src[top->slot];
	ev->proc = s->proc;
	ev->file = s->file;
	ev->rec = (const struct mt_rec_hdr *)top->pos;
	ev->ns = top->key - s->offset_ns;
	next = skip_unknown(s, top->pos + ev->rec->size);
	if (next) {
		top->pos = next;
		top->key = key_of(s, next);
	} else {
		/* File done: a scan error surfaces on the following call. */
		if (s->f->scan_status != MT_OK)
			m->failed = s->f;
		*top = m->heap[--m->n];
	}
	if (m->n)
		sift_down(m->heap, m->n, 0);
	return MT_OK;
}

void mt_trace_merge_close(struct mt_trace_merge *m)
{
	if (!m)
		return;
	free(m->src);
	free(m->heap);
	free(m);
}
