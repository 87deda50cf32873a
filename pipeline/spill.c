/*
 * spill.c - the spill file's packed messages (spill.h). A record is a
 * 64-bit header, then the bytes of each of the message's 26 32-bit fields
 * before its times that its value needs (little-endian, as many as the
 * field's 2-bit code in the header says: 0, 1, 2 or 4), then its times,
 * each as its 2-bit code in bits 52 to 59 says: none (not recorded, or one
 * the clock stage keeps), 2 or 4 bytes of difference from the time stored
 * before it, or all 8 bytes (the first stored, and any above INT64_MAX).
 * Ranks, endpoints, sites, tags and lengths are small numbers and most
 * flags are 0: a message of gen_trace's benign traffic takes 38 bytes, not
 * 136. The spill is written once and read once, at every size of run: the
 * fewer bytes to the page cache and the disk, the less of the run's time
 * no analysis rank can divide (msgtrace-mpi).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spill.h"

#define SLOTS 26			/* 32-bit fields before the times */
#define TIMES 4
#define REC_MAX (8 + SLOTS * 4 + TIMES * 8)
#define BUF_BYTES (64u << 10)
#define TIME_SHIFT(w) (2 * SLOTS + 2 * (w))
enum { T_NONE, T_DIFF16, T_DIFF32, T_FULL };	/* a time's code */
#define VECS ((SLOTS + 3) / 4)

typedef uint32_t v4u __attribute__((vector_size(16)));

_Static_assert(offsetof(struct mt_match_msg, t_send_post) == SLOTS * 4 &&
	       offsetof(struct mt_match_msg, t_recv_done) == SLOTS * 4 + 24 &&
	       sizeof(struct mt_match_msg) == SLOTS * 4 + TIMES * 8,
	       "a message is 26 32-bit fields, then its 4 times");

struct mt_pipe_spill {
	FILE *f;
	char dir[256];			/* for error messages */
	size_t have, at;		/* bytes in buf; get: the next one */
	int eof;			/* get: the file is all in buf */
	int times;			/* every recorded time is stored */
	int reading;			/* rewound: buf holds what get read */
	unsigned char buf[BUF_BYTES + 8];	/* + a field's or time's load
						 * past the end */
};

static const unsigned char len_of[4] = { 0, 1, 2, 4 };
static const uint32_t mask_of[4] = { 0, 0xff, 0xffff, 0xffffffff };
static const unsigned char time_len[4] = { 0, 2, 4, 8 };

/* why: what went wrong; NULL: errno says, or the file ended early. */
static enum mt_status fail(const struct mt_pipe_spill *sp, const char *why,
			   struct mt_err *err)
{
	return mt_err_set(err, MT_ERR_IO, "temporary file in %s for the clock "
			  "correction: %s", sp->dir, why ? why : errno ?
			  strerror(errno) : "short read");
}

enum mt_status mt_pipe_spill_open(struct mt_pipe_spill **spp, int times,
				  struct mt_err *err)
{
	const char *dir = getenv("TMPDIR");
	struct mt_pipe_spill *sp;
	char path[300];
	int fd;

	if (!(sp = calloc(1, sizeof(*sp))))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	if (!dir || !*dir || strlen(dir) >= sizeof(sp->dir))
		dir = "/tmp";
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/msgtrace-spill.XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0) {
		mt_err_set(err, MT_ERR_IO, "cannot create a temporary file in %s "
			   "for the clock correction: %s", dir, strerror(errno));
		free(sp);
		return MT_ERR_IO;
	}
	unlink(path);
	/* buf is the file's one buffer: stdio's would copy every byte again. */
	if (!(sp->f = fdopen(fd, "w+b")) || setvbuf(sp->f, NULL, _IONBF, 0)) {
		if (sp->f)
			fclose(sp->f);
		else
			close(fd);
		free(sp);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	sp->times = times;
	*spp = sp;
	return MT_OK;
}

void mt_pipe_spill_close(struct mt_pipe_spill *sp)
{
	if (!sp)
		return;
	fclose(sp->f);
	free(sp);
}

/* The code of time t, stored after prev (prev_ok 0: the first stored). */
static unsigned time_code(uint64_t t, uint64_t prev, int prev_ok, int store)
{
	int64_t d = (int64_t)(t - prev);

	if (t == MT_MATCH_NOTIME || (t <= INT64_MAX && !store))
		return T_NONE;
	if (!prev_ok || t > INT64_MAX)
		return T_FULL;
	return d == (int16_t)d ? T_DIFF16 : d == (int32_t)d ? T_DIFF32 : T_FULL;
}

/* m's record at out (store: every recorded time); its end. Writes up to
 * REC_MAX bytes. */
static unsigned char *pack(const struct mt_match_msg *m, int store,
			   unsigned char *out)
{
	uint32_t s[VECS * 4] = { 0 }, cv[VECS * 4];	/* the last vector's
							 * spare lanes: 0 */
	uint64_t t[TIMES], h = 0, prev = 0;
	int prev_ok = 0;
	unsigned char *p = out + 8;

	memcpy(s, m, SLOTS * sizeof(*s));
	memcpy(t, &m->t_send_post, sizeof(t));
	/* The codes four fields at a time (a compare of vectors is -1 where
	 * true), then, unrolled, the stores: the shifts are constants. */
	for (unsigned i = 0; i < VECS; i++) {
		v4u v;

		memcpy(&v, &s[4 * i], 16);
		v = -((v != 0) + (v > 0xff) + (v > 0xffff));
		memcpy(&cv[4 * i], &v, 16);
	}
#pragma GCC unroll 26
	for (unsigned i = 0; i < SLOTS; i++) {
		uint32_t c = cv[i];
		uint32_t le = htole32(s[i]);

		memcpy(p, &le, 4);	/* the bytes past its length: overwritten */
		p += len_of[c];
		h |= (uint64_t)c << 2 * i;
	}
	for (unsigned w = 0; w < TIMES; w++) {
		unsigned c = time_code(t[w], prev, prev_ok, store);
		uint64_t le = htole64(c == T_FULL ? t[w] : t[w] - prev);

		if (c == T_NONE)
			continue;
		memcpy(p, &le, 8);	/* the bytes past its length: overwritten */
		p += time_len[c];
		h |= (uint64_t)c << TIME_SHIFT(w);
		prev = t[w];
		prev_ok = 1;
	}
	h = htole64(h);
	memcpy(out, &h, 8);
	return p;
}

/* The length of the record whose header is h. */
static size_t rec_len(uint64_t h)
{
	size_t n = 8;

	for (unsigned i = 0; i < SLOTS; i++)
		n += len_of[h >> 2 * i & 3];
	for (unsigned w = 0; w < TIMES; w++)
		n += time_len[h >> TIME_SHIFT(w) & 3];
	return n;
}

/* The record at in (whose header is h) into m; its end. */
static const unsigned char *unpack(uint64_t h, const unsigned char *in, struct mt_match_msg *m)
{
	uint32_t s[SLOTS];
	uint64_t t[TIMES];

	in += 8;
#pragma GCC unroll 26
	for (unsigned i = 0; i < SLOTS; i++) {
		unsigned c = h >> 2 * i & 3;
		uint32_t le;

		memcpy(&le, in, 4);
		s[i] = le32toh(le) & mask_of[c];
		in += len_of[c];
	}
	for (unsigned w = 0, prev = 0; w < TIMES; w++) {
		unsigned c = h >> TIME_SHIFT(w) & 3;
		uint64_t le;

		t[w] = MT_MATCH_NOTIME;
		if (c == T_NONE)
			continue;
		memcpy(&le, in, 8);	/* a record's last bytes: within buf */
		le = le64toh(le);
		in += time_len[c];
		t[w] = c == T_FULL ? le : t[prev] + (uint64_t)(c == T_DIFF32 ?
			(int64_t)(int32_t)le : (int64_t)(int16_t)le);
		prev = w;
	}
	memcpy(m, s, sizeof(s));
	memcpy(&m->t_send_post, t, sizeof(t));
	return in;
}

static enum mt_status flush(struct mt_pipe_spill *sp, struct mt_err *err)
{
	errno = 0;
	if (fwrite(sp->buf, 1, sp->have, sp->f) != sp->have)
		return fail(sp, NULL, err);
	sp->have = 0;
	return MT_OK;
}

enum mt_status mt_pipe_spill_put(struct mt_pipe_spill *sp, const struct mt_match_msg *b,
				 size_t n, struct mt_err *err)
{
	enum mt_status s;

	for (size_t i = 0; i < n; i++) {
		if (BUF_BYTES - sp->have < REC_MAX && (s = flush(sp, err)))
			return s;
		sp->have = (size_t)(pack(&b[i], sp->times, sp->buf + sp->have) - sp->buf);
	}
	return MT_OK;
}

enum mt_status mt_pipe_spill_rewind(struct mt_pipe_spill *sp, struct mt_err *err)
{
	enum mt_status s;

	if (!sp->reading && (s = flush(sp, err)))
		return s;
	sp->reading = 1;
	errno = 0;
	if (fseek(sp->f, 0, SEEK_SET))
		return fail(sp, NULL, err);
	sp->at = sp->have = 0;
	sp->eof = 0;
	return MT_OK;
}

/* The unread bytes to the front of buf, and as many more as fit. */
static enum mt_status refill(struct mt_pipe_spill *sp, struct mt_err *err)
{
	size_t left = sp->have - sp->at;

	memmove(sp->buf, sp->buf + sp->at, left);
	sp->at = 0;
	errno = 0;
	sp->have = left + fread(sp->buf + left, 1, BUF_BYTES - left, sp->f);
	if (ferror(sp->f))
		return fail(sp, NULL, err);
	sp->eof = sp->have < BUF_BYTES;
	return MT_OK;
}

enum mt_status mt_pipe_spill_get(struct mt_pipe_spill *sp, struct mt_match_msg *b,
				 size_t max, size_t *n, struct mt_err *err)
{
	enum mt_status s;
	size_t k = 0;

	for (; k < max; k++) {
		size_t left = sp->have - sp->at;
		const unsigned char *at = sp->buf + sp->at;
		uint64_t h = 0;
		int damaged;

		if (left < REC_MAX && !sp->eof) {
			if ((s = refill(sp, err)))
				return s;
			left = sp->have;
			at = sp->buf;
		}
		if (!left)
			break;
		if (left >= 8) {
			memcpy(&h, at, 8);
			h = le64toh(h);
		}
		damaged = h >> TIME_SHIFT(TIMES) != 0;	/* no header of ours */
		/* Only the file's last records can reach past its end. */
		if (left < 8 || damaged || (left < REC_MAX && rec_len(h) > left))
			return fail(sp, damaged ? "damaged record" : "short read", err);
		sp->at += (size_t)(unpack(h, at, &b[k]) - at);
	}
	*n = k;
	return MT_OK;
}
