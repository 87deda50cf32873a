/*
 * layouts.c - the layout table (MT_TAG_LAYOUTS in mt_decode.h) turned into
 * resolved struct mt_tag_layout values, plus the small name tables.
 */
#include <string.h>

#include "mt_decode.h"

#define BIT(n) ((n) < 0 ? 0 : 1ull << ((n) < 0 ? 0 : (n)))
/* The branch not taken is still checked: clang 19 rejects a shift by 64
 * there, so its count stays in range for bits == 0 too (as in BIT). */
#define FIELD(shift, bits) \
	((bits) ? ((~0ull >> (64 - ((bits) ? (bits) : 64))) << (shift)) : 0)
#define PROTO(sy, ak, hg, dp, rv, am) \
	(BIT(sy) | BIT(ak) | BIT(hg) | BIT(dp) | BIT(rv) | BIT(am))

/* Open MPI refuses to start when mem_tag_format leaves fewer cid bits. */
#define MIN_CID_BITS 8

static const struct mt_tag_layout table[MT_TAG_LAYOUT_COUNT] = {
#define ROW(id_, name_, cs, cb, ss, sb, dsb, tb, sgn, sy, ak, hg, dp, rv, am_, \
	    syrv, always, keeptop, intern, shrink, directed, summary_) \
	[MT_TAG_LAYOUT_##id_] = { \
		.id = MT_TAG_LAYOUT_##id_, .name = name_, .summary = summary_, \
		.cid_shift = cs, .cid_bits = cb, .src_shift = ss, .src_bits = sb, \
		.data_src_bits = dsb, .tag_bits = tb, .cid_usable_bits = cb, \
		.tag_signed = sgn, .anytag_keeps_top_bit = keeptop, \
		.mtf_shrinks_cid = shrink, \
		.src_in = sb ? MT_SRC_TAG : dsb ? MT_SRC_DATA : MT_SRC_NONE, \
		.internal = intern, .directed_recv = directed, \
		.cid_mask = FIELD(cs, cb), .src_mask = FIELD(ss, sb), \
		.tag_mask = FIELD(0, tb), .data_src_mask = FIELD(0, dsb), \
		.proto_mask = PROTO(sy, ak, hg, dp, rv, am_), \
		.known_mask = FIELD(cs, cb) | FIELD(ss, sb) | FIELD(0, tb) | \
			      PROTO(sy, ak, hg, dp, rv, am_), \
		.sync = BIT(sy), .ack = BIT(ak), .huge = BIT(hg), .dynproc = BIT(dp), \
		.rndv = BIT(rv), .am = BIT(am_), .sync_rndv = syrv, \
		.recv_always_ignored = always, \
		.cid_max = FIELD(0, cb), \
		.src_max = sb ? FIELD(0, sb) : dsb >= 32 ? 0x7fffffffull : FIELD(0, dsb), \
		.tag_ub = sgn ? FIELD(0, tb) >> 1 : FIELD(0, tb), \
	},
	MT_TAG_LAYOUTS(ROW)
#undef ROW
};

static const char *const proto_names[] = {
#define PROTO_NAME(id, name) name,
	MT_TAG_PROTOS(PROTO_NAME)
#undef PROTO_NAME
};

const char *mt_tag_proto_name(enum mt_tag_proto proto)
{
	return (unsigned)proto < sizeof(proto_names) / sizeof(proto_names[0]) ?
	       proto_names[proto] : "?";
}

const char *mt_tag_recv_kind_name(enum mt_tag_recv_kind kind)
{
	static const char *const names[] = { "recv", "probe", "mprobe", "mrecv",
					     "ssend-ack-recv" };
	return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *mt_tag_layout_name(enum mt_tag_layout_id id)
{
	return (unsigned)id < MT_TAG_LAYOUT_COUNT ? table[id].name : "none";
}

enum mt_status mt_tag_layout_find(const char *name, enum mt_tag_layout_id *id)
{
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++)
		if (!strcmp(name, table[i].name)) {
			*id = (enum mt_tag_layout_id)i;
			return MT_OK;
		}
	return MT_ERR_ARG;
}

/* The protocol bits of every layout fit in 6 consecutive bits: decode them
 * with one look-up instead of a chain of compares. */
static void fill_proto_table(struct mt_tag_layout *l)
{
	const uint64_t bits[] = { l->sync, l->ack, l->huge, l->dynproc, l->rndv,
				  l->am, l->sync | l->huge, l->sync | l->rndv };
	const enum mt_tag_proto kinds[] = { MT_PROTO_SSEND, MT_PROTO_SSEND_ACK,
					    MT_PROTO_HUGE, MT_PROTO_DYNPROC,
					    MT_PROTO_RNDV, MT_PROTO_AM,
					    MT_PROTO_RNDV, MT_PROTO_RNDV };
	unsigned n = l->sync_rndv ? 8 : 6;

	l->proto_shift = l->proto_mask ? (uint8_t)__builtin_ctzll(l->proto_mask) : 0;
	/* Only the entries the mask can index: detection resolves every
	 * layout for every operation it looks at. */
	unsigned used = (unsigned)(l->proto_mask >> l->proto_shift) + 1;

	l->proto_of[0] = MT_PROTO_NORMAL;
	memset(l->proto_of + 1, MT_PROTO_BAD, used - 1);
	for (unsigned k = 0; k < n; k++)
		if (bits[k] && (k < 6 || bits[k] != l->sync))
			l->proto_of[bits[k] >> l->proto_shift] = (uint8_t)kinds[k];
}

/*
 * Copy a layout row and apply the endpoint's mem_tag_format: every leading
 * zero bit of it removes one usable cid bit (the fields do not move). A
 * mem_tag_format of 0 means "not known" and changes nothing. Fails with
 * MT_ERR_RANGE when fewer than 8 cid bits would remain (Open MPI does not
 * start then); *out is still filled so a what-if analysis can go on.
 */
enum mt_status mt_tag_layout_get(enum mt_tag_layout_id id, uint64_t mem_tag_format,
		      struct mt_tag_layout *out)
{
	if ((unsigned)id >= MT_TAG_LAYOUT_COUNT)
		return MT_ERR_ARG;
	*out = table[id];
	fill_proto_table(out);
	if (!out->mtf_shrinks_cid || !mem_tag_format)
		return MT_OK;
	int lz = __builtin_clzll(mem_tag_format);
	int usable = lz >= out->cid_bits ? 0 : out->cid_bits - lz;
	out->cid_usable_bits = (uint8_t)usable;
	out->cid_max = usable ? ~0ull >> (64 - usable) : 0;
	return usable < MIN_CID_BITS ? MT_ERR_RANGE : MT_OK;
}

size_t mt_tag_layout_family(enum mt_tag_layout_id id, enum mt_tag_layout_id *out,
			    size_t max)
{
	/* Open MPI marks its own traffic with negative tags, MPICH with odd
	 * context ids: that tells the two families apart. */
	enum mt_tag_internal fam = (unsigned)id < MT_TAG_LAYOUT_COUNT &&
		table[id].internal != MT_INT_NONE ? table[id].internal : MT_INT_NEG_TAG;
	size_t n = 0;

	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++)
		if (table[i].internal == fam) {
			if (n < max)
				out[n] = (enum mt_tag_layout_id)i;
			n++;
		}
	return n;
}
