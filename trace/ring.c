/*
 * ring.c - reading a flight recorder's file (format version 3): its ring
 * and pinned area read whole, then put in time order
 * (mt_codec_ring_linear) into a buffer laid out as a version 1 file, which
 * the rest of the reader reads as one (f->map). A file still being written
 * is read as it stood when its header was read: the blocks its writer
 * began to overwrite while the bytes were read, and a call it took back
 * meanwhile, are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_int.h"

/* pread of len bytes at off; bytes past the end of the file read as 0
 * (a ring's part never grown is a hole, a truncated copy ends early). */
static int read_at(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	memset(buf + got, 0, len - got);
	return 0;
}

enum mt_status mt_trace_ring_read(struct mt_trace_file *f, int fd,
				  struct mt_err *err)
{
	const struct mt_file_hdr *h = &f->hdr_snap;
	struct mt_file_hdr now;
	struct mt_codec_ring st;
	uint64_t nblocks, min_seq = 0, cut = 0;
	size_t len;
	uint8_t *raw, *map;
	const char *why;

	if (h->data_off < sizeof(*h) || h->data_off % 8 ||
	    h->ring_size > SIZE_MAX / 2 || h->pinned > SIZE_MAX / 2 ||
	    !h->ring_block || h->ring_size % h->ring_block)
		return mt_err_set(err, MT_ERR_CORRUPT, "%s: offset %zu: ring of %"
				  PRIu64 " bytes in blocks of %" PRIu64 " bytes, "
				  "pinned records %" PRIu64 " bytes: not a ring's layout",
				  f->path, offsetof(struct mt_file_hdr, ring_size),
				  h->ring_size, h->ring_block, h->pinned);
	len = (size_t)(h->ring_size + h->pinned);
	raw = malloc(len ? len : 1);
	map = malloc(h->data_off + len);
	if (!raw || !map || read_at(fd, raw, len, h->data_off) ||
	    pread(fd, &now, sizeof(now), 0) != (ssize_t)sizeof(now)) {
		free(raw);
		free(map);
		return mt_err_set(err, errno == ENOMEM ? MT_ERR_NOMEM : MT_ERR_IO,
				  "%s: cannot read: %s", f->path, strerror(errno));
	}
	/* What the writer did while the bytes were read: a block it began
	 * to overwrite is left out; a call taken back may lie in the last
	 * bytes of the block being written. */
	nblocks = h->ring_size / h->ring_block;
	if (!(h->flags & MT_FILE_CLOSED)) {
		if (now.ring_seq >= nblocks)
			min_seq = now.ring_seq - nblocks + 1;
		if (now.eagain != h->eagain)
			cut = MT_TRACE_TAKEN_BACK;
	}
	f->ring_seq = h->ring_seq;
	f->ring_committed = h->committed;
	f->ring_pinned = h->pinned;
	memset(map + sizeof(*h), 0, h->data_off - sizeof(*h));
	f->hdr_snap.committed = mt_codec_ring_linear(h, raw, len, min_seq, cut,
						     map + h->data_off, &st, &why);
	f->hdr_snap.capacity = f->hdr_snap.committed;
	memcpy(map, &f->hdr_snap, sizeof(f->hdr_snap));
	free(raw);
	f->map = map;
	f->map_len = (size_t)(h->data_off + f->hdr_snap.committed);
	f->map_heap = 1;
	f->ring_why = why;
	f->wrapped = h->overwritten || st.first_seq > 1;
	return MT_OK;
}

int mt_trace_ring_moved(const struct mt_trace_file *f,
			const struct mt_file_hdr *now)
{
	return now->ring_seq != f->ring_seq || now->committed != f->ring_committed ||
	       now->pinned != f->ring_pinned || (now->flags & MT_FILE_CLOSED);
}
