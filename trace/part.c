/*
 * part.c - an opening divided among readers (mt_trace_open_part): which
 * part scans each closed file, and what a scan found, as bytes that go
 * from the part that scanned the file to the others. The bytes are read by
 * this code alone, on machines of one byte order (the parts of one job).
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

int mt_trace_plan_elsewhere(struct mt_trace_plan *plan, struct mt_trace_file *f)
{
	unsigned best = 0;

	/* A file being written, or a ring read whole at open (map_heap),
	 * each part reads as it finds it. */
	if (!plan || !mt_trace_file_clean(f) || f->map_heap)
		return 0;
	for (unsigned p = 1; p < plan->nparts; p++)
		if (plan->load[p] < plan->load[best])
			best = p;
	plan->load[best] += f->map_len;
	f->scan_part = (int32_t)best;
	f->scan_owed = best != plan->part;
	return f->scan_owed;
}

/* One file's scan as it travels: this, its path (to check the parts opened
 * the same file), its error when it has one, then its setup records. */
struct scan_head {
	uint64_t map_len, valid_end, nrecs, unknown, first_ts, last_ts, oldest_ts;
	uint64_t type_count[MT_TRACE_TYPE_SLOTS];
	uint64_t nsetup, setup_bytes, path_len;
	int32_t scan_status, setup_first;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static size_t setup_bytes(const struct mt_trace_file *f)
{
	size_t n = 0;

	for (size_t j = 0; j < f->nsetup; j++)
		n += mt_trace_file_setup(f, j)->size;
	return n;
}

static size_t scan_len(const struct mt_trace_file *f, const struct scan_head *h)
{
	return sizeof(*h) + pad8(h->path_len) +
	       (h->scan_status ? sizeof(f->scan_err) : 0) + h->setup_bytes;
}

static struct scan_head head_of(const struct mt_trace_file *f)
{
	struct scan_head h = {
		f->map_len, f->valid_end, f->nrecs, f->unknown, f->first_ts,
		f->last_ts, f->oldest_ts, { 0 }, f->nsetup, setup_bytes(f),
		strlen(f->path), f->scan_status, f->setup_first,
	};

	memcpy(h.type_count, f->type_count, sizeof(h.type_count));
	return h;
}

static uint8_t *put_scan(uint8_t *p, const struct mt_trace_file *f,
			 const struct scan_head *h)
{
	memcpy(p, h, sizeof(*h));
	p += sizeof(*h);
	memset(p, 0, pad8(h->path_len));
	memcpy(p, f->path, h->path_len);
	p += pad8(h->path_len);
	if (h->scan_status) {
		memcpy(p, &f->scan_err, sizeof(f->scan_err));
		p += sizeof(f->scan_err);
	}
	for (size_t j = 0; j < f->nsetup; j++) {
		const struct mt_rec_hdr *r = mt_trace_file_setup(f, j);

		memcpy(p, r, r->size);
		p += r->size;
	}
	return p;
}

enum mt_status mt_trace_part_scans(const struct mt_trace *t, unsigned part,
				   void **buf, size_t *len)
{
	size_t n = 0;
	uint8_t *p;

	for (size_t i = 0; i < t->nfiles; i++)
		if (t->files[i]->scan_part == (int32_t)part) {
			struct scan_head h = head_of(t->files[i]);

			n += scan_len(t->files[i], &h);
		}
	if (!(*buf = p = malloc(n ? n : 1)))
		return MT_ERR_NOMEM;
	*len = n;
	for (size_t i = 0; i < t->nfiles; i++)
		if (t->files[i]->scan_part == (int32_t)part) {
			struct scan_head h = head_of(t->files[i]);

			p = put_scan(p, t->files[i], &h);
		}
	return MT_OK;
}

/* The setup records of a scan (n bytes at p, h->nsetup of them) into f, as
 * a copied file keeps them; -1: out of memory, 1: they do not add up. */
static int take_setup(struct mt_trace_file *f, const struct scan_head *h,
		      const uint8_t *p, size_t n)
{
	size_t off = 0;

	f->setup_buf = malloc(n ? n : 1);
	f->setup_off = malloc((h->nsetup ? h->nsetup : 1) * sizeof(*f->setup_off));
	if (!f->setup_buf || !f->setup_off)
		return -1;
	memcpy(f->setup_buf, p, n);
	for (f->nsetup = 0; f->nsetup < h->nsetup; f->nsetup++) {
		const struct mt_rec_hdr *r = (const void *)(f->setup_buf + off);

		if (n - off < sizeof(*r) || r->size < sizeof(*r) || r->size > n - off)
			return 1;
		f->setup_off[f->nsetup] = off;
		off += r->size;
	}
	f->setup_base = f->setup_buf;
	f->setup_len = n;
	return off != n;
}

/* One file's scan at p (left bytes) into f: its length, or 0 when it is no
 * scan of f (*st says why). */
static size_t take_scan(struct mt_trace_file *f, const uint8_t *p, size_t left,
			enum mt_status *st, struct mt_err *err)
{
	struct scan_head h;
	size_t n;
	int bad;

	if (left < sizeof(h))
		goto short_scan;
	memcpy(&h, p, sizeof(h));
	if (h.path_len != strlen(f->path) || h.map_len != f->map_len ||
	    left - sizeof(h) < pad8(h.path_len) ||
	    memcmp(p + sizeof(h), f->path, h.path_len)) {
		*st = mt_err_set(err, MT_ERR_IO, "%s: not the file part %d scanned "
				 "(changed while the trace was opened?)", f->path,
				 f->scan_part);
		return 0;
	}
	if ((n = scan_len(f, &h)) > left)
		goto short_scan;
	p += sizeof(h) + pad8(h.path_len);
	f->scan_status = (enum mt_status)h.scan_status;
	if (h.scan_status) {
		memcpy(&f->scan_err, p, sizeof(f->scan_err));
		p += sizeof(f->scan_err);
	}
	if ((bad = take_setup(f, &h, p, h.setup_bytes))) {
		*st = bad < 0 ? mt_err_set(err, MT_ERR_NOMEM, "out of memory") :
			mt_err_set(err, MT_ERR_IO, "%s: part %d's scan of it is "
				   "cut", f->path, f->scan_part);
		return 0;
	}
	f->valid_end = h.valid_end;
	f->nrecs = h.nrecs;
	f->unknown = h.unknown;
	f->first_ts = h.first_ts;
	f->last_ts = h.last_ts;
	f->oldest_ts = h.oldest_ts;
	memcpy(f->type_count, h.type_count, sizeof(f->type_count));
	f->setup_first = h.setup_first;
	f->scan_owed = 0;
	return n;
short_scan:
	*st = mt_err_set(err, MT_ERR_IO, "%s: part %d's scan of it is cut",
			 f->path, f->scan_part);
	return 0;
}

enum mt_status mt_trace_part_take(struct mt_trace *t, unsigned from,
				  const void *buf, size_t len, struct mt_err *err)
{
	const uint8_t *p = buf;
	enum mt_status st = MT_OK;
	size_t used = 0;

	for (size_t i = 0; i < t->nfiles; i++) {
		struct mt_trace_file *f = t->files[i];
		size_t n;

		if (f->scan_part != (int32_t)from || !f->scan_owed)
			continue;
		if (!(n = take_scan(f, p + used, len - used, &st, err)))
			return st;
		used += n;
	}
	if (used != len)
		return mt_err_set(err, MT_ERR_IO, "part %u scanned files this part "
				  "did not open (the trace changed while it was "
				  "opened?)", from);
	return MT_OK;
}
