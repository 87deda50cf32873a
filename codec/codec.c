/*
 * codec.c - the compact record stream (format in mt_codec.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt_codec.h"

enum {
	M_RAW = 1u << 0,
	M_LAYER = 1u << 1,
	M_SIZE = 1u << 2,
	M_AUX = 1u << 3,
	M_WORDS = 4,		/* shift of the word bits */
};

#define HDR_WORDS 2		/* struct mt_rec_hdr: type..aux, ts */

void mt_codec_reset(struct mt_codec_state *s)
{
	s->ts = 0;
	s->used = 0;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* 0 and *v, or -1 when the input ends first or runs over 64 bits; *off is
 * past the bytes read either way. Ten bytes hold any value, so with that
 * many left no byte needs its own bound check. */
static int get_varint_long(const uint8_t *file, uint64_t *off, uint64_t end,
			   uint64_t *v)
{
	uint64_t o = *off, stop = end - o >= 10 ? o + 10 : end, r = 0;

	for (unsigned shift = 0; o < stop; shift += 7) {
		uint8_t b = file[o++];

		if (shift == 63 && b > 1)
			break;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*off = o;
			*v = r;
			return 0;
		}
	}
	*off = o;
	return -1;
}

/*
 * get_varint_long() for the common cases, inline: most values take one
 * byte; most others end within the next 8 bytes, read as one little-endian
 * word (the byte order of the whole format), whose 7-bit groups three
 * shift-and-merge steps pack, with no loop over the bytes.
 */
static inline int get_varint(const uint8_t *file, uint64_t *off, uint64_t end,
			     uint64_t *v)
{
	uint64_t o = *off, w, stops;

	if (o < end && file[o] < 0x80) {
		*v = file[o];
		*off = o + 1;
		return 0;
	}
	if (o + 8 > end)
		return get_varint_long(file, off, end, v);
	memcpy(&w, file + o, 8);
	stops = ~w & 0x8080808080808080ull;	/* bytes that end a varint */
	if (!stops)
		return get_varint_long(file, off, end, v);
	w &= stops ^ (stops - 1);		/* up to the first of them */
	w = (w & 0x007f007f007f007full) | (w & 0x7f007f007f007f00ull) >> 1;
	w = (w & 0x00003fff00003fffull) | (w & 0x3fff00003fff0000ull) >> 2;
	w = (w & 0x000000000fffffffull) | (w & 0x0fffffff00000000ull) >> 4;
	*v = w;
	*off = o + (unsigned)__builtin_ctzll(stops) / 8 + 1;
	return 0;
}

static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ -(z & 1);
}

/* The reference words of a record of this type and size: its slot's
 * record when it matches, else the slot cleared to zeros. */
static uint64_t *reference(struct mt_codec_state *s, uint8_t type, uint16_t size)
{
	unsigned i = type % MT_CODEC_REF_SLOTS;
	struct mt_rec_hdr *h = (struct mt_rec_hdr *)s->ref[i].w;

	if (!(s->used & (1u << i)) || h->type != type || h->size != size) {
		memset(s->ref[i].w, 0, size);
		s->used |= (uint16_t)(1u << i);
	}
	return s->ref[i].w;
}

size_t mt_codec_encode(struct mt_codec_state *s, const struct mt_rec_hdr *r,
		       uint8_t *out, uint64_t out_off)
{
	const uint64_t *w = (const uint64_t *)r;
	unsigned words = r->size / 8 - HDR_WORDS;
	uint8_t *p = out;

	*p++ = r->type;
	if (r->size > MT_CODEC_REF_MAX || r->layer > 1) {
		*p++ = M_RAW;
		p += put_varint(p, r->size / 8);
		while ((out_off + (uint64_t)(p - out)) % 8)
			*p++ = 0;
		memcpy(p, r, r->size);
		s->ts = r->ts;
		return (size_t)(p - out) + r->size;
	}

	unsigned i = r->type % MT_CODEC_REF_SLOTS;
	int had = (s->used >> i) & 1;
	struct mt_rec_hdr *rh = (struct mt_rec_hdr *)s->ref[i].w;
	int same_shape = had && rh->type == r->type && rh->size == r->size;
	uint64_t *ref = reference(s, r->type, r->size);
	uint64_t m = (r->layer ? M_LAYER : 0);

	if (!same_shape)
		m |= M_SIZE;
	if (r->aux != ((struct mt_rec_hdr *)ref)->aux)
		m |= M_AUX;
	for (unsigned k = 0; k < words; k++)
		if (w[HDR_WORDS + k] != ref[HDR_WORDS + k])
			m |= 1ull << (M_WORDS + k);
	p += put_varint(p, m);
	if (m & M_SIZE)
		p += put_varint(p, r->size / 8);
	if (m & M_AUX)
		p += put_varint(p, r->aux);
	p += put_varint(p, zigzag(r->ts - s->ts));
	for (unsigned k = 0; k < words; k++)
		if (m & (1ull << (M_WORDS + k)))
			p += put_varint(p, w[HDR_WORDS + k] ^ ref[HDR_WORDS + k]);
	memcpy(ref, r, r->size);
	s->ts = r->ts;
	return (size_t)(p - out);
}

static const struct mt_rec_hdr *fail(const char **why, const char *msg)
{
	*why = msg;
	return NULL;
}

static const struct mt_rec_hdr *decode_raw(struct mt_codec_state *s,
					   uint8_t type, const uint8_t *file,
					   uint64_t *off, uint64_t end,
					   const char **why)
{
	const struct mt_rec_hdr *r;
	uint64_t nw;

	if (get_varint(file, off, end, &nw))
		return fail(why, "cut inside a raw record's size");
	if (nw < HDR_WORDS || nw > MT_CODEC_REC_MAX / 8)
		return fail(why, "raw record size out of range");
	while (*off % 8) {
		if (*off >= end)
			return fail(why, "cut inside a raw record's padding");
		if (file[(*off)++])
			return fail(why, "raw record padding is not zero");
	}
	if (end - *off < nw * 8)
		return fail(why, "cut inside a raw record");
	r = (const struct mt_rec_hdr *)(file + *off);
	if (r->type != type || r->size != nw * 8)
		return fail(why, "raw record's header disagrees with its frame");
	*off += nw * 8;
	s->ts = r->ts;
	return r;
}

/* mt_codec_decode() on an offset of its own, which the compiler can keep in
 * a register through the inline varint reads. */
static inline const struct mt_rec_hdr *decode(struct mt_codec_state *s,
					      const uint8_t *file, uint64_t *off,
					      uint64_t end, const char **why)
{
	struct mt_rec_hdr *h;
	uint64_t m, v, *ref;
	unsigned i, words;
	uint16_t size;
	uint8_t type;

	if (*off >= end)
		return fail(why, "cut before a record");
	type = file[(*off)++];
	if (get_varint(file, off, end, &m))
		return fail(why, "cut inside a record's field mask");
	if (m & M_RAW)
		return m == M_RAW ? decode_raw(s, type, file, off, end, why) :
			fail(why, "raw record with coded-record bits");
	i = type % MT_CODEC_REF_SLOTS;
	h = (struct mt_rec_hdr *)s->ref[i].w;
	if (m & M_SIZE) {
		if (get_varint(file, off, end, &v))
			return fail(why, "cut inside a record's size");
		if (v < HDR_WORDS || v > MT_CODEC_REF_MAX / 8)
			return fail(why, "coded record size out of range");
		size = (uint16_t)(v * 8);
	} else {
		if (!((s->used >> i) & 1) || h->type != type)
			return fail(why, "record refers to a previous record of its type that does not exist");
		size = h->size;
	}
	words = size / 8 - HDR_WORDS;
	if (m >> (M_WORDS + words))
		return fail(why, "field mask names words past the record's size");
	ref = reference(s, type, size);
	h = (struct mt_rec_hdr *)ref;
	if (m & M_AUX) {
		if (get_varint(file, off, end, &v))
			return fail(why, "cut inside a record's aux");
		if (v > UINT32_MAX)
			return fail(why, "record aux out of range");
		h->aux = (uint32_t)v;
	}
	if (get_varint(file, off, end, &v))
		return fail(why, "cut inside a record's timestamp");
	for (uint64_t diff = m >> M_WORDS; diff; diff &= diff - 1) {	/* words that differ */
		uint64_t x;

		if (get_varint(file, off, end, &x))
			return fail(why, "cut inside a record's field");
		ref[HDR_WORDS + __builtin_ctzll(diff)] ^= x;
	}
	s->ts += unzigzag(v);
	h->type = type;
	h->layer = (m & M_LAYER) ? 1 : 0;
	h->size = size;
	h->ts = s->ts;
	return h;
}

const struct mt_rec_hdr *mt_codec_decode(struct mt_codec_state *s,
					 const uint8_t *file, uint64_t *off,
					 uint64_t end, const char **why)
{
	uint64_t o = *off;
	const struct mt_rec_hdr *r = decode(s, file, &o, end, why);

	*off = o;
	return r;
}

/* Buffered writer of the .tmp file. */
struct out {
	int fd;
	uint64_t off;		/* file offset of buf[0] */
	size_t len;
	uint8_t buf[1 << 16];
};

static int flush(struct out *o)
{
	size_t done = 0;

	while (done < o->len) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	o->off += o->len;
	o->len = 0;
	return 0;
}

static int encode_all(struct out *o, const struct mt_file_hdr *hdr,
		      const uint8_t *recs)
{
	struct mt_codec_state *s = malloc(sizeof(*s));
	uint64_t off = 0;
	int ret = 0;

	if (!s)
		return -1;
	mt_codec_reset(s);
	while (off < hdr->committed) {
		const struct mt_rec_hdr *r = (const void *)(recs + off);

		if (r->size < sizeof(*r) || r->size % 8 ||
		    r->size > hdr->committed - off) {
			errno = EINVAL;
			ret = -1;
			break;
		}
		if (sizeof(o->buf) - o->len < MT_CODEC_BOUND(r->size) && flush(o)) {
			ret = -1;
			break;
		}
		o->len += mt_codec_encode(s, r, o->buf + o->len, o->off + o->len);
		off += r->size;
	}
	free(s);
	return ret;
}

int mt_codec_compact(int dirfd, const char *name, unsigned mode,
		     const struct mt_file_hdr *hdr, const uint8_t *recs)
{
	char tmp[512];
	struct out *o;
	struct mt_file_hdr h2 = *hdr;
	int err = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -1;
	unlinkat(dirfd, tmp, 0);	/* left by a process killed while compacting */
	o->fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		       (mode_t)mode);
	if (o->fd < 0) {
		free(o);
		return -1;
	}
	fchmod(o->fd, (mode_t)mode);
	/* The header last, at offset 0, once the stream's length is known. */
	o->len = MT_CODEC_DATA_OFF;
	if (encode_all(o, hdr, recs) || flush(o))
		err = errno ? errno : EIO;
	if (!err) {
		h2.version = MT_TRACE_VERSION_COMPACT;
		h2.hdr_size = sizeof(h2);
		h2.data_off = MT_CODEC_DATA_OFF;
		h2.committed = o->off - MT_CODEC_DATA_OFF;
		h2.raw_bytes = hdr->committed;
		if (pwrite(o->fd, &h2, sizeof(h2), 0) != (ssize_t)sizeof(h2))
			err = errno ? errno : EIO;
	}
	if (close(o->fd) && !err)
		err = errno;
	if (!err && renameat(dirfd, tmp, dirfd, name))
		err = errno;
	free(o);
	if (err) {
		unlinkat(dirfd, tmp, 0);
		errno = err;
		return -1;
	}
	return 0;
}
