/*
 * mt_codec.h - the compact record stream of trace format version 2 (library
 * mt_codec), shared by its writer (provider/, which compacts each file when
 * it is closed, and `msgtrace compact`) and its reader (trace/).
 *
 * The stream is a field-wise codec over the version 1 records, generic in
 * the record type: a record is taken as its header plus 64-bit words, and
 * coded against the previous record of the same type and size (its
 * "reference"); only the words that differ are stored, as varints of their
 * XOR with the reference word. Timestamps are zigzag varint deltas to the
 * previous record of the stream. Records larger than MT_CODEC_REF_MAX, or
 * whose layer is not 0/1, are stored raw (verbatim, 8-byte aligned in the
 * file), so no record type, known or not, is ever lost or changed: decoding
 * gives back the version 1 records byte for byte.
 *
 * Encoded record (varint: LEB128, 7 bits a byte, low first, at most 10):
 *   u8 type
 *   varint m: bit 0 raw
 *     raw:   varint size/8, zero bytes up to an 8-byte file offset, then
 *            the size bytes of the record as version 1 wrote them
 *     coded: bit 1 layer; bit 2 size given; bit 3 aux given; bits 4.. one
 *            bit per word after the header (size/8 - 2 words), set when it
 *            differs from the reference word
 *            [varint size/8]        when bit 2 (else the reference's size)
 *            [varint aux]           when bit 3 (else the reference's aux)
 *            varint zigzag(ts - previous record's ts)
 *            varint (word ^ reference word), for each bit set, in order
 * The reference of a coded record is the last coded record whose type had
 * the same low 4 bits, if it has the same type and size; otherwise all
 * zero (aux 0). A coded record becomes its slot's new reference; raw
 * records leave every reference as it was.
 */
#ifndef MT_CODEC_H
#define MT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "mt_format.h"

#define MT_CODEC_REF_SLOTS 16
#define MT_CODEC_REF_MAX 256		/* larger records are stored raw */
#define MT_CODEC_REC_MAX 65528u		/* largest record (uint16 size, 8-aligned) */

/* Bytes one record of size bytes may take encoded (raw: type, m, size
 * varint, alignment padding, the record). */
#define MT_CODEC_BOUND(size) ((size_t)(size) + 1 + 10 + 3 + 7)

struct mt_codec_ref {
	uint64_t w[MT_CODEC_REF_MAX / 8];	/* the record, header first */
};

/* Coding state of one stream: both sides start from mt_codec_reset(). */
struct mt_codec_state {
	uint64_t ts;
	uint16_t used;			/* bit i: ref[i] holds a record */
	struct mt_codec_ref ref[MT_CODEC_REF_SLOTS];
};

void mt_codec_reset(struct mt_codec_state *s);

/*
 * Appends the coded form of record r (size a multiple of 8, 16 to
 * MT_CODEC_REC_MAX, as its header says) at out, which starts at file offset
 * out_off and has room for MT_CODEC_BOUND(r->size). Returns the bytes written.
 */
size_t mt_codec_encode(struct mt_codec_state *s, const struct mt_rec_hdr *r,
		       uint8_t *out, uint64_t out_off);

/*
 * Decodes the record at file offset *off of file (whose bytes up to end
 * are readable) and advances *off past it. Returns the record (in s for a
 * coded record, in file for a raw one), valid until the next call with s;
 * NULL on bad or cut input, with *why saying what is wrong. Checks the
 * record's framing only (size a multiple of 8, at least a header).
 */
const struct mt_rec_hdr *mt_codec_decode(struct mt_codec_state *s,
					 const uint8_t *file, uint64_t *off,
					 uint64_t end, const char **why);

/*
 * Writes the version 2 (compacted) form of a version 1 file, whose header
 * is hdr and whose hdr->committed record bytes are recs, as name in dirfd:
 * it writes "<name>.tmp" (mode mode) and renames it over name, so a
 * process killed meanwhile leaves the version 1 file whole (and maybe a
 * .tmp file no reader opens). The records must be well formed. Returns 0,
 * or -1 with errno set and the .tmp file removed.
 */
int mt_codec_compact(int dirfd, const char *name, unsigned mode,
		     const struct mt_file_hdr *hdr, const uint8_t *recs);

/*
 * A ring file (version 3 or 4, mt_format.h) as the version 1 record
 * stream it stands for: its pinned records merged by h.ts with the records
 * of its kept blocks, oldest block first (pinned first on equal times),
 * the fields their writer left unwritten as 0 (MT_AUX_UNWRITTEN). h is the
 * header as read, data the len bytes read from h->data_off (ring, then
 * pinned area). Blocks numbered below min_seq are left out (a reader of a
 * live file passes those its writer overwrote, or began to, while it
 * read); so are the records of the block being written that start in its
 * last cut bytes (a call its writer took back meanwhile may lie there).
 * out has room for h->ring_size + h->pinned bytes. Returns the bytes of
 * records written to out; a malformed layout or record ends the stream
 * there and sets *why (else NULL). st gets what the ring kept.
 */
struct mt_codec_ring {
	uint64_t first_seq;		/* number of the oldest block kept, 0: none */
	uint64_t oldest_ts;		/* h.ts of the oldest ring record kept */
	uint64_t ring_recs;		/* ring records written to out */
};

size_t mt_codec_ring_linear(const struct mt_file_hdr *h, const uint8_t *data,
			    size_t len, uint64_t min_seq, uint64_t cut,
			    uint8_t *out, struct mt_codec_ring *st,
			    const char **why);

/* data_off of a version 2 file: the header, rounded to 64 bytes. */
#define MT_CODEC_DATA_OFF ((sizeof(struct mt_file_hdr) + 63) / 64 * 64)

#endif /* MT_CODEC_H */
