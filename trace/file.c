/*
 * file.c - open one trace file: read its header, map its committed bytes
 * read-only, validate the header, then scan every record once (from a
 * copy, when the caller gives a buffer for it) so that iteration can trust
 * [data_off, valid_end).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_int.h"

#define HDR_FIELD_OFF(field) ((uint64_t)offsetof(struct mt_file_hdr, field))

/*
 * "<host>.<pid>.<thread_seq>.mt": the host may itself contain dots, so the
 * numbers are taken from the right. Returns 0 when the name has that form.
 */
static int parse_name(const char *path, char *host, size_t host_len,
		      uint32_t *pid, uint32_t *seq)
{
	const char *base = strrchr(path, '/');
	size_t len, sfx = strlen(MT_TRACE_SUFFIX);
	unsigned long long v[2];
	char buf[256], *end, *dot;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len <= sfx || len - sfx >= sizeof(buf) ||
	    strcmp(base + len - sfx, MT_TRACE_SUFFIX))
		return -1;
	memcpy(buf, base, len - sfx);
	buf[len - sfx] = '\0';
	for (int i = 1; i >= 0; i--) {
		dot = strrchr(buf, '.');
		if (!dot || !dot[1] || dot[1] < '0' || dot[1] > '9')
			return -1;
		errno = 0;
		v[i] = strtoull(dot + 1, &end, 10);
		if (*end || errno || v[i] > UINT32_MAX)
			return -1;
		*dot = '\0';
	}
	if (!buf[0] || strlen(buf) >= host_len)
		return -1;
	strcpy(host, buf);
	*pid = (uint32_t)v[0];
	*seq = (uint32_t)v[1];
	return 0;
}

static enum mt_status check_header(struct mt_trace_file *f, struct mt_err *err)
{
	const struct mt_file_hdr *h = f->hdr;
	const char *p = f->path;

	/* A writer killed between sizing the file and writing its header. */
	if (!memcmp(h->magic, "\0\0\0\0\0\0\0\0", sizeof(h->magic)))
		return mt_err_set(err, MT_END, "%s: header never written "
				  "(created, then killed?)", p);
	if (memcmp(h->magic, MT_TRACE_MAGIC, sizeof(h->magic)))
		return mt_err_set(err, MT_ERR_CORRUPT,
				  "%s: offset 0: bad magic, not a msgtrace trace file", p);
	if (h->version != MT_TRACE_VERSION && h->version != MT_TRACE_VERSION_COMPACT &&
	    !mt_trace_version_ring(h->version))
		return mt_err_set(err, MT_ERR_VERSION,
				  "%s: offset %" PRIu64 ": format version %" PRIu32
				  ", this reader reads versions %u, %u, %u and %u", p,
				  HDR_FIELD_OFF(version), h->version, MT_TRACE_VERSION,
				  MT_TRACE_VERSION_COMPACT, MT_TRACE_VERSION_RING_ZEROED,
				  MT_TRACE_VERSION_RING);
	size_t least = mt_trace_version_ring(h->version) ? sizeof(*h) :
		       MT_FILE_HDR_SIZE_V1;

	if (h->hdr_size < least || h->hdr_size > h->data_off)
		return mt_err_set(err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": header size %" PRIu32
				  " is not within [%zu, data offset %" PRIu64 "]", p,
				  HDR_FIELD_OFF(hdr_size), h->hdr_size, least,
				  h->data_off);
	if (h->data_off % 8 || h->data_off > f->map_len)
		return mt_err_set(err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": data offset %" PRIu64
				  " is not 8-byte aligned within the file (%zu bytes)",
				  p, HDR_FIELD_OFF(data_off), h->data_off, f->map_len);
	if (h->committed > h->capacity || h->committed > UINT64_MAX - h->data_off)
		return mt_err_set(err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": committed bytes %" PRIu64
				  " exceed the capacity %" PRIu64, p,
				  HDR_FIELD_OFF(committed), h->committed, h->capacity);
	return MT_OK;
}

/* What is wrong with a MAP record on its own, or NULL. */
static const char *map_fault(const struct mt_rec_map *m)
{
	if (m->build_id_len > sizeof(m->build_id))
		return "has a build id longer than 32 bytes";
	if (m->start > m->end)
		return "ends before it starts";
	if (!memchr(mt_trace_map_path(m), 0,
		    m->h.size - offsetof(struct mt_rec_map, path)))
		return "has a path without its terminating NUL";
	return NULL;
}

#define NO_REC UINT64_MAX	/* where(): a location without a record number */

/* "offset OFF", or "offset OFF: record NREC": where a record is, for an
 * error message (formatted only then: once per record, it cost more than
 * the rest of the scan). */
static const char *where(char *buf, size_t len, uint64_t off, uint64_t nrec)
{
	if (nrec == NO_REC)
		snprintf(buf, len, "offset %" PRIu64, off);
	else
		snprintf(buf, len, "offset %" PRIu64 ": record %" PRIu64, off, nrec);
	return buf;
}

/* The record's size against its type's struct, and what its fields must
 * hold whatever the other records say: MT_OK or MT_ERR_CORRUPT in
 * f->scan_err (naming the record by off and nrec, as where() does). Every
 * reader of the file goes through here, so they all give one verdict on
 * it. */
static enum mt_status check_contents(struct mt_trace_file *f,
				     const struct mt_rec_hdr *r, uint64_t off,
				     uint64_t nrec)
{
	size_t min = mt_trace_rec_min_size(r->type);
	const char *fault;
	char at[64];

	if (r->size < min)
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				  "%s: %s: %s record size %u is smaller than its "
				  "struct (%zu bytes)", f->path,
				  where(at, sizeof(at), off, nrec),
				  mt_trace_rec_name(r->type), r->size, min);
	if (r->type == MT_REC_MAP && (fault = map_fault((const void *)r)))
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT, "%s: %s: MAP "
				  "record %s", f->path, where(at, sizeof(at), off, nrec),
				  fault);
	if (r->type == MT_REC_SITE && (!r->aux || r->aux > MT_SITE_MAX))
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT, "%s: %s: SITE "
				  "record index %" PRIu32 " out of range (1 to %u)",
				  f->path, where(at, sizeof(at), off, nrec), r->aux,
				  MT_SITE_MAX);
	return MT_OK;
}

/* MT_OK, or MT_ERR_CORRUPT with f->scan_err saying what is wrong at off
 * (src: f's bytes, mapped or copied). */
static enum mt_status check_record(struct mt_trace_file *f, const uint8_t *src,
				   uint64_t off, uint64_t end)
{
	const struct mt_rec_hdr *r;

	if (off + sizeof(*r) > f->map_len)
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": file ends at %zu but the "
				  "header says records are committed up to %" PRIu64
				  " (truncated copy?)", f->path, off, f->map_len, end);
	if (off + sizeof(*r) > end)
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": %" PRIu64 " committed bytes "
				  "left, too few for a record header", f->path, off,
				  end - off);
	r = (const struct mt_rec_hdr *)(src + off);
	if (r->size < sizeof(*r) || r->size % 8)
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": record size %u is %s",
				  f->path, off, r->size, r->size % 8 ?
				  "not a multiple of 8" : "smaller than a record header");
	if (off + r->size > end)
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": record size %u runs past "
				  "the committed end %" PRIu64, f->path, off, r->size,
				  end);
	if (off + r->size > f->map_len)
		return mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				  "%s: offset %" PRIu64 ": record size %u runs past "
				  "the end of the file (%zu bytes; truncated copy?)",
				  f->path, off, r->size, f->map_len);
	return check_contents(f, r, off, NO_REC);
}

static int is_setup(unsigned type)
{
	return type != MT_REC_OP && type != MT_REC_CQE &&
	       mt_trace_rec_min_size(type);
}

/* Count one good record r and index it if it is a setup record: off is
 * its offset in the mapping, or, given buf_cap (a compacted file, or one
 * scanned from a copy), it is copied into setup_buf. */
static enum mt_status count(struct mt_trace_file *f, const struct mt_rec_hdr *r,
			    uint64_t off, size_t *cap, size_t *buf_cap,
			    struct mt_err *err)
{
	if (!f->nrecs) {
		f->first_ts = r->ts;
		f->setup_first = is_setup(r->type);
	}
	f->last_ts = r->ts;
	if (!f->oldest_ts && !mt_rec_pinned_type(r->type))
		f->oldest_ts = r->ts;
	f->nrecs++;
	if (!mt_trace_rec_min_size(r->type))
		f->unknown++;
	else if (r->type < MT_TRACE_TYPE_SLOTS)
		f->type_count[r->type]++;
	if (is_setup(r->type)) {
		uint64_t *slot = mt_trace_push((void **)&f->setup_off,
					       &f->nsetup, cap, sizeof(*slot));

		if (slot && buf_cap) {
			if (f->setup_len + r->size > *buf_cap) {
				size_t nc = *buf_cap ? *buf_cap * 2 : 4096;
				uint8_t *nb;

				while (nc < f->setup_len + r->size)
					nc *= 2;
				nb = realloc(f->setup_buf, nc);
				if (!nb)
					slot = NULL;
				else {
					f->setup_buf = nb;
					*buf_cap = nc;
				}
			}
			if (slot) {
				memcpy(f->setup_buf + f->setup_len, r, r->size);
				off = f->setup_len;
				f->setup_len += r->size;
			}
		}
		if (!slot)
			return mt_err_set(err, MT_ERR_NOMEM, "%s: out of memory",
					  f->path);
		*slot = off;
	}
	return MT_OK;
}

/* Validate the records of src (f's bytes) that start in [off, lim), count
 * them and index the non-hot ones (copied with buf_cap: count()); with
 * stop, end at a call in progress (f->inflight). */
static enum mt_status walk(struct mt_trace_file *f, const uint8_t *src, uint64_t off,
			   uint64_t lim, int stop, size_t *buf_cap, struct mt_err *err)
{
	uint64_t end = f->hdr->data_off + f->hdr->committed;
	size_t cap = f->nsetup;		/* pushing past it grows the index */

	f->inflight = 0;
	f->scan_status = MT_OK;
	while (off < lim) {
		const struct mt_rec_hdr *r;

		f->scan_status = check_record(f, src, off, end);
		if (f->scan_status != MT_OK)
			break;
		r = (const struct mt_rec_hdr *)(src + off);
		if (stop && mt_trace_rec_in_flight(r)) {
			f->inflight = off;
			break;
		}
		if (count(f, r, off, &cap, buf_cap, err) != MT_OK)
			return MT_ERR_NOMEM;
		off += r->size;
	}
	f->valid_end = off;
	return MT_OK;
}

/* Whether the writer took a call back since f's header was read: the
 * header's EAGAIN count, which it raises first (mapping, file offset 0),
 * moved. */
static int taken_back(const struct mt_trace_file *f)
{
	const struct mt_file_hdr *now = (const void *)f->map;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* after the records */
	return __atomic_load_n(&now->eagain, __ATOMIC_RELAXED) != f->hdr->eagain;
}

/*
 * Every record from off on; a file not closed ends at its first call in
 * progress unless read_past, and when its writer took a call back during
 * the walk, it is walked again without the last MT_TRACE_TAKEN_BACK bytes
 * the header said were committed: the one record a take-back rewrites lies
 * there, and may have been read half old, half new. Read from the mapping,
 * or from copy (a closed file's bytes, read once), out of which the setup
 * records are then copied.
 */
static enum mt_status scan(struct mt_trace_file *f, uint64_t off, int read_past,
			   const uint8_t *copy, struct mt_err *err)
{
	uint64_t end = f->hdr->data_off + f->hdr->committed;
	int stop = !read_past && !mt_trace_file_clean(f);
	const uint8_t *src = copy ? copy : f->map;
	size_t buf_cap = 0, *keep = copy ? &buf_cap : NULL;
	enum mt_status st = walk(f, src, off, end, stop, keep, err);

	if (st == MT_OK && stop && taken_back(f)) {
		f->nrecs = f->unknown = f->first_ts = f->last_ts = f->oldest_ts = 0;
		memset(f->type_count, 0, sizeof(f->type_count));
		f->nsetup = f->setup_len = 0;
		f->setup_first = 0;
		st = walk(f, src, f->hdr->data_off, end - MT_TRACE_TAKEN_BACK, stop,
			  keep, err);
	}
	if (copy) {
		f->setup_base = f->setup_buf;
	} else {
		f->setup_base = f->map;
		f->setup_len = f->map_len;
	}
	return st;
}

enum mt_status mt_trace_file_settle(struct mt_trace_file *f, struct mt_err *err)
{
	return f->inflight ? scan(f, f->inflight, 1, NULL, err) : MT_OK;
}

/* scan() of a compacted file (src: its bytes, mapped or copied): the
 * stream decoded once, in a bounded state; the setup records kept (copied),
 * the rest only counted. */
static enum mt_status scan_compact(struct mt_trace_file *f, const uint8_t *src,
				   struct mt_err *err)
{
	uint64_t off = f->hdr->data_off, end = off + f->hdr->committed;
	uint64_t lim = end < f->map_len ? end : f->map_len, raw = 0;
	struct mt_codec_state *s = malloc(sizeof(*s));
	size_t cap = 0, buf_cap = 0;
	enum mt_status st = MT_OK;

	if (!s)
		return mt_err_set(err, MT_ERR_NOMEM, "%s: out of memory", f->path);
	mt_codec_reset(s);
	f->valid_end = off;
	while (off < end) {
		const struct mt_rec_hdr *r;
		const char *why;
		uint64_t at = off;
		char loc[64];

		r = mt_codec_decode(s, src, &off, lim, &why);
		if (!r) {
			where(loc, sizeof(loc), at, f->nrecs);
			if (lim < end)
				f->scan_status = mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
					"%s: %s: %s: the file ends at %zu but the header "
					"says the stream ends at %" PRIu64 " (truncated copy?)",
					f->path, loc, why, f->map_len, end);
			else
				f->scan_status = mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
					"%s: %s: %s", f->path, loc, why);
			break;
		}
		f->scan_status = check_contents(f, r, at, f->nrecs);
		if (f->scan_status != MT_OK)
			break;
		st = count(f, r, 0, &cap, &buf_cap, err);
		if (st != MT_OK)
			break;
		raw += r->size;
		f->valid_end = off;
	}
	if (st == MT_OK && f->scan_status == MT_OK && raw != f->hdr->raw_bytes)
		f->scan_status = mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
			"%s: offset %" PRIu64 ": the stream decodes to %" PRIu64
			" record bytes, the header says %" PRIu64, f->path,
			HDR_FIELD_OFF(raw_bytes), raw, f->hdr->raw_bytes);
	free(s);
	f->setup_base = f->setup_buf;
	return st;
}

/* Bytes to map: the committed records as the header snapshot says (all of
 * the file when the header cannot say: check_header then tells why). */
static size_t map_want(const struct mt_file_hdr *h, uint64_t size)
{
	uint64_t want = size;

	if (h->data_off <= size && h->committed <= size - h->data_off)
		want = h->data_off + h->committed;
	return (size_t)(want < sizeof(*h) ? sizeof(*h) : want);
}

/*
 * A closed file of at most COPY_MAX bytes read into c (*copied), for a
 * scan that leaves the mapping untouched: a reader that gives the pages
 * back anyway (mt_trace_open_lean) then maps, and unmaps, nothing but what
 * it reads later. On one host beside another rank doing the same, giving a
 * file's pages back (madvise) cost 0.55 to 0.63 ms a call against 0.06
 * alone: a copy costs no call. Any short read leaves the mapping to scan.
 */
#define COPY_MAX (64u << 20)

static int read_copy(struct mt_trace_file *f, int fd, struct mt_trace_copy *c)
{
	size_t done = 0;

	if (!(f->hdr_snap.flags & MT_FILE_CLOSED) || f->map_len > COPY_MAX)
		return 0;
	if (c->cap < f->map_len) {
		uint8_t *p = realloc(c->p, f->map_len);

		if (!p)
			return 0;
		c->p = p;
		c->cap = f->map_len;
	}
	while (done < f->map_len) {
		ssize_t got = pread(fd, c->p + done, f->map_len - done, (off_t)done);

		if (got <= 0)
			return 0;
		done += (size_t)got;
	}
	return 1;
}

/* f's header read and its committed bytes mapped, *fd left open for a copy
 * (-1: a ring file, read whole already: mt_trace_ring_read). */
static enum mt_status map_file(struct mt_trace_file *f, int *fd_out, struct mt_err *err)
{
	struct stat st;
	ssize_t got;
	void *map;
	int fd;

	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_err_set(err, MT_ERR_IO, "%s: cannot open: %s", f->path,
				  strerror(errno));
	/* The header before the size: a writer grows its file before it
	 * commits, so the size seen after the header covers every byte that
	 * header says is committed. */
	got = pread(fd, &f->hdr_snap, sizeof(f->hdr_snap), 0);
	if (got < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return mt_err_set(err, MT_ERR_IO, "%s: not a regular file", f->path);
	}
	if (st.st_size == 0) {
		close(fd);
		return mt_err_set(err, MT_END, "%s: empty file (created, never "
				  "written)", f->path);
	}
	if ((uint64_t)st.st_size < MT_FILE_HDR_SIZE_V1 ||
	    (size_t)got < MT_FILE_HDR_SIZE_V1) {
		close(fd);
		return mt_err_set(err, MT_ERR_CORRUPT, "%s: offset 0: file is %jd "
				  "bytes, shorter than a trace header (%zu)", f->path,
				  (intmax_t)st.st_size, MT_FILE_HDR_SIZE_V1);
	}
	/* A header of versions 1 and 2 may end before the ring's fields: what
	 * pread took past it is records, not header. */
	if (!mt_trace_version_ring(f->hdr_snap.version) &&
	    f->hdr_snap.hdr_size < sizeof(f->hdr_snap)) {
		size_t keep = f->hdr_snap.hdr_size > MT_FILE_HDR_SIZE_V1 ?
			      f->hdr_snap.hdr_size : MT_FILE_HDR_SIZE_V1;

		memset((char *)&f->hdr_snap + keep, 0, sizeof(f->hdr_snap) - keep);
	}
	f->hdr = &f->hdr_snap;
	if (mt_trace_version_ring(f->hdr_snap.version) &&
	    !memcmp(f->hdr_snap.magic, MT_TRACE_MAGIC, sizeof(f->hdr_snap.magic))) {
		enum mt_status s = mt_trace_ring_read(f, fd, (uint64_t)st.st_size, err);

		close(fd);
		return s;
	}
	f->map_len = map_want(f->hdr, (uint64_t)st.st_size);
	map = mmap(NULL, f->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return mt_err_set(err, MT_ERR_IO, "%s: cannot map: %s", f->path,
				  strerror(errno));
	}
	f->map = map;
	*fd_out = fd;
	return MT_OK;
}

/* The scan of f, from c's copy of it when copied (its setup records then
 * kept apart, as a compacted file's are: nothing reads the mapping later
 * but the records of the files a reader merges). */
static enum mt_status scan_file(struct mt_trace_file *f, const struct mt_trace_copy *c,
				int copied, struct mt_err *err)
{
	const uint8_t *copy = copied ? c->p : NULL;

	return f->compact ? scan_compact(f, copy ? copy : f->map, err) :
		scan(f, f->hdr->data_off, 0, copy, err);
}

enum mt_status mt_trace_file_open_copy(const char *path, struct mt_trace_copy *c,
				       struct mt_trace_plan *plan,
				       struct mt_trace_file **out, struct mt_err *err)
{
	struct mt_trace_file *f;
	uint32_t pid, seq;
	enum mt_status st;
	int copied, fd = -1;

	if (!path || !out)
		return mt_err_set(err, MT_ERR_ARG, "mt_trace_file_open: no path");
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return mt_err_set(err, MT_ERR_NOMEM, "%s: out of memory", path);
	}
	f->scan_part = -1;
	st = map_file(f, &fd, err);
	if (st == MT_OK)
		st = check_header(f, err);
	f->compact = f->hdr && f->hdr->version == MT_TRACE_VERSION_COMPACT;
	if (st == MT_OK && !parse_name(path, f->host, sizeof(f->host), &pid, &seq) &&
	    (pid != f->hdr->pid || seq != f->hdr->thread_seq))
		st = mt_err_set(err, MT_ERR_CORRUPT, "%s: offset %" PRIu64
				": header says pid %" PRIu32 " thread %" PRIu32
				", the file name says pid %" PRIu32 " thread %" PRIu32,
				path, HDR_FIELD_OFF(pid), f->hdr->pid,
				f->hdr->thread_seq, pid, seq);
	if (st == MT_OK && !mt_trace_plan_elsewhere(plan, f)) {
		copied = fd >= 0 && c && read_copy(f, fd, c);
		st = scan_file(f, c, copied, err);
		if (st == MT_OK && c && !copied)
			mt_trace_file_release(f);
	}
	if (fd >= 0)
		close(fd);
	if (st == MT_OK && f->ring_why && f->scan_status == MT_OK)
		f->scan_status = mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
					    "%s: ring block %" PRIu64 " or before: %s",
					    path, f->ring_seq, f->ring_why);
	if (st == MT_OK) {
		f->ring = (f->hdr->flags & MT_FILE_RING) != 0;
		f->overwritten = f->ring ? f->hdr->overwritten : 0;
		f->wrapped |= f->overwritten > 0;
	}
	if (st != MT_OK) {
		mt_trace_file_close(f);
		return st;
	}
	*out = f;
	return MT_OK;
}

enum mt_status mt_trace_file_open(const char *path, struct mt_trace_file **out,
				  struct mt_err *err)
{
	return mt_trace_file_open_copy(path, NULL, NULL, out, err);
}

void mt_trace_file_close(struct mt_trace_file *f)
{
	if (!f)
		return;
	if (f->map_heap)
		free((void *)f->map);
	else if (f->map)
		munmap((void *)f->map, f->map_len);
	free(f->setup_off);
	free(f->setup_buf);
	free(f->path);
	free(f);
}

void mt_trace_file_release(const struct mt_trace_file *f)
{
	/* A private read-only mapping's pages are the file's: dropped, they
	 * read the same again. */
	if (f->map && !f->map_heap)
		madvise((void *)f->map, f->map_len, MADV_DONTNEED);
}

void mt_trace_cursor_init(struct mt_trace_cursor *c,
			  const struct mt_trace_file *f)
{
	c->f = f;
	c->off = f->hdr->data_off;
	mt_codec_reset(&c->dec);
}

enum mt_status mt_trace_cursor_next(struct mt_trace_cursor *c,
				    const struct mt_rec_hdr **rec,
				    struct mt_err *err)
{
	const struct mt_trace_file *f = c->f;

	while (c->off < f->valid_end) {
		const struct mt_rec_hdr *r;
		const char *why;

		if (f->compact)
			/* Validated by the scan: decodes as it did then. */
			r = mt_codec_decode(&c->dec, f->map, &c->off, f->valid_end, &why);
		else {
			r = (const struct mt_rec_hdr *)(f->map + c->off);
			c->off += r->size;
		}
		if (!r)
			break;
		if (mt_trace_rec_min_size(r->type)) {
			*rec = r;
			return MT_OK;
		}
	}
	if (f->scan_status != MT_OK) {
		if (err)
			*err = f->scan_err;
		return f->scan_status;
	}
	return MT_END;
}
