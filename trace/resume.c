/*
 * resume.c - reading on where the last read of a file stopped, while its
 * writer appends (`msgtrace watch`): the header again, then only the bytes
 * committed since, into the caller's buffer. The file's mapping, records
 * and valid range stay as they were opened (the merge and every pointer
 * into them stay valid); its header snapshot, counts and last time follow
 * what was read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

/* Reads [off, off + len) of fd into tail->buf (grown); bytes read. */
static ssize_t read_tail(int fd, struct mt_trace_tail *tail, uint64_t off,
			 size_t len)
{
	size_t got = 0;

	if (len > tail->cap) {
		uint8_t *b = realloc(tail->buf, len);

		if (!b)
			return -1;
		tail->buf = b;
		tail->cap = len;
	}
	while (got < len) {
		ssize_t n = pread(fd, tail->buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* The records in tail->buf[0, len) that start before lim: counted into f;
 * tail->len is what is whole and well-formed, a bad record ends the file's
 * valid records for good (f->scan_status, as the open's scan would say).
 * While the writer runs, a call in progress ends tail->len: the next read
 * starts there. */
static void take(struct mt_trace_file *f, struct mt_trace_tail *tail, size_t len,
		 size_t lim)
{
	int stop = f->live && !mt_trace_file_clean(f);
	size_t off = 0;

	while (off < lim && off + sizeof(struct mt_rec_hdr) <= len) {
		const struct mt_rec_hdr *r = (const void *)(tail->buf + off);
		size_t min = mt_trace_rec_min_size(r->type);

		if (r->size < sizeof(*r) || r->size % 8 || off + r->size > len ||
		    r->size < min) {
			f->scan_status = mt_err_set(&f->scan_err, MT_ERR_CORRUPT,
				"%s: offset %" PRIu64 ": bad record (size %u, type %u)",
				f->path, tail->from + off, r->size, r->type);
			break;
		}
		if (stop && mt_trace_rec_in_flight(r))
			break;
		if (!f->nrecs)
			f->first_ts = r->ts;
		f->last_ts = r->ts;
		f->nrecs++;
		if (!min)
			f->unknown++;
		else if (r->type < MT_TRACE_TYPE_SLOTS)
			f->type_count[r->type]++;
		tail->setup |= min && r->type != MT_REC_OP && r->type != MT_REC_CQE &&
			       r->type != MT_REC_CLOSE && r->type != MT_REC_CLOCK;
		off += r->size;
	}
	tail->len = off;
}

enum mt_status mt_trace_file_resume(struct mt_trace_file *f, uint64_t from,
				    struct mt_trace_tail *tail,
				    struct mt_err *err)
{
	struct mt_file_hdr h;
	uint64_t end, eagain, lim;
	ssize_t got;
	int fd;

	tail->from = from;
	tail->len = 0;
	tail->setup = 0;
	/* A closed file has all it will ever have; a bad record ends it. */
	if (mt_trace_file_clean(f) || f->scan_status != MT_OK)
		return MT_OK;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_err_set(err, MT_ERR_IO, "%s: cannot open: %s", f->path,
				  strerror(errno));
	got = pread(fd, &h, sizeof(h), 0);
	/* A ring is read whole, in time order: once its writer wrote on,
	 * the file is read anew. */
	if (mt_trace_version_ring(f->hdr_snap.version)) {
		close(fd);
		tail->setup = got != (ssize_t)sizeof(h) || mt_trace_ring_moved(f, &h);
		return MT_OK;
	}
	/* A file closed meanwhile may have been compacted into version 2 and
	 * renamed over the path: that is a new file, to be opened anew.
	 * Committed goes back only over a call in progress, which no read
	 * took (take): below from, what was read is gone. */
	if (got != (ssize_t)sizeof(h) || memcmp(h.magic, f->hdr_snap.magic, sizeof(h.magic)) ||
	    h.version != f->hdr_snap.version || h.pid != f->hdr_snap.pid || h.data_off != f->hdr_snap.data_off ||
	    h.committed > UINT64_MAX - h.data_off || h.data_off + h.committed < from) {
		close(fd);
		return mt_err_set(err, MT_ERR_CORRUPT, "%s: offset 0: the header "
				  "no longer describes the file read before", f->path);
	}
	end = h.data_off + h.committed;
	/* The header before the bytes: whatever it says is committed is
	 * there (the writer grows the file first). */
	if (end > from && (got = read_tail(fd, tail, from, (size_t)(end - from))) < 0) {
		close(fd);
		return mt_err_set(err, MT_ERR_NOMEM, "%s: out of memory", f->path);
	}
	/* A call taken back meanwhile (the writer raises the EAGAIN count
	 * first) may have been written over while it was read: the bytes
	 * that can hold it are left to the next read (file.c, scan). */
	lim = end;
	if (pread(fd, &eagain, sizeof(eagain), offsetof(struct mt_file_hdr, eagain)) !=
	    (ssize_t)sizeof(eagain) || eagain != h.eagain)
		lim = end - MT_TRACE_TAKEN_BACK;
	close(fd);
	f->hdr_snap = h;
	if (end > from)
		take(f, tail, (size_t)got, lim > from ? (size_t)(lim - from) : 0);
	return MT_OK;
}

void mt_trace_resume_alive(struct mt_trace *t)
{
	for (size_t p = 0; p < t->nprocs; p++)
		if (t->procs[p].alive)
			mt_trace_proc_live(&t->procs[p]);
}
