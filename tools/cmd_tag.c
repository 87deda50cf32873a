/*
 * cmd_tag.c - `msgtrace tag`: decode one 64-bit tag (and CQ data, or a
 * receive's ignore mask) under one layout or under all of them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "mt_decode.h"

struct opts {
	uint64_t tag, data, ignore, mtf;
	bool has_data, has_ignore;
	unsigned recv_in;
	enum mt_tag_layout_id layout;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace tag HEX [--data N] [--ignore HEX] [--layout NAME]\n"
		"                    [--mem-tag-format HEX] [--peek] [--claim] [--directed]\n"
		"Decode a 64-bit libfabric tag into communicator id, source rank, MPI tag\n"
		"and protocol kind. Without --layout, a table under every layout.\n\n"
		"  --data N              CQ data of the message (decimal or 0x hex); the\n"
		"                        source rank travels there in ofi_tag_full/mpich-*-data\n"
		"  --ignore HEX          decode HEX as a posted receive with this ignore mask:\n"
		"                        shows the filter and its wildcards\n"
		"  --peek, --claim       the receive had FI_PEEK / FI_CLAIM (probe, mprobe, mrecv)\n"
		"  --directed            the receive named a source address (not FI_ADDR_UNSPEC)\n"
		"  --layout NAME         one layout (see the list below)\n"
		"  --mem-tag-format HEX  endpoint's mem_tag_format: leading zero bits shrink\n"
		"                        Open MPI's cid field\n"
		"  -h, --help            this text\n\nLayouts:\n");
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++) {
		struct mt_tag_layout l;
		mt_tag_layout_get((enum mt_tag_layout_id)i, 0, &l);
		fprintf(out, "  %-18s %s\n", l.name, l.summary);
	}
	fprintf(out, "\nExit status: 0 decoded, 2 usage error.\n");
}

static int parse_u64(const char *opt, const char *s, int base, uint64_t *v)
{
	char *end;

	errno = 0;
	if (base == 16 && (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)))
		s += 2;
	*v = strtoull(s, &end, base);
	if (!*s || *end || errno || *s == '-' || *s == '+' || *s == ' ') {
		fprintf(stderr, "msgtrace tag: %s: '%s' is not a %s 64-bit number\n",
			opt, s, base == 16 ? "hexadecimal" : "");
		return -1;
	}
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "ignore", required_argument, NULL, 'i' },
		{ "layout", required_argument, NULL, 'l' },
		{ "mem-tag-format", required_argument, NULL, 'm' },
		{ "peek", no_argument, NULL, 'p' },
		{ "claim", no_argument, NULL, 'c' },
		{ "directed", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->layout = MT_TAG_LAYOUT_NONE;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_u64("--data", optarg, 0, &o->data))
				return MT_EXIT_USAGE;
			o->has_data = true;
			break;
		case 'i':
			if (parse_u64("--ignore", optarg, 16, &o->ignore))
				return MT_EXIT_USAGE;
			o->has_ignore = true;
			break;
		case 'm':
			if (parse_u64("--mem-tag-format", optarg, 16, &o->mtf))
				return MT_EXIT_USAGE;
			break;
		case 'l':
			if (mt_cmd_parse_layout("msgtrace tag", optarg, &o->layout))
				return MT_EXIT_USAGE;
			break;
		case 'p': o->recv_in |= MT_TAG_RECV_PEEK; break;
		case 'c': o->recv_in |= MT_TAG_RECV_CLAIM; break;
		case 'r': o->recv_in |= MT_TAG_RECV_DIRECTED; break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, "msgtrace tag: unknown or incomplete option '%s' "
				"(see msgtrace tag --help)\n", argv[optind - 1]);
			return MT_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "msgtrace tag: expected exactly one tag (HEX) "
			"(see msgtrace tag --help)\n");
		return MT_EXIT_USAGE;
	}
	if (parse_u64("tag", argv[optind], 16, &o->tag))
		return MT_EXIT_USAGE;
	if (o->recv_in && !o->has_ignore) {
		fprintf(stderr, "msgtrace tag: --peek, --claim and --directed "
			"describe a receive: give its --ignore mask too\n");
		return MT_EXIT_USAGE;
	}
	return MT_EXIT_OK;
}

static void fmt_num(char *buf, size_t len, bool valid, long long v)
{
	if (valid)
		snprintf(buf, len, "%lld", v);
	else
		snprintf(buf, len, "-");
}

static void fmt_notes(char *buf, size_t len, const struct mt_tag_layout *l,
		      const struct mt_tag_fields *f, bool odd_ignore)
{
	static const struct { unsigned bit; const char *text; } notes[] = {
		{ MT_F_INTERNAL, "internal" },
		{ MT_F_MAYBE_ALIASED, "maybe-aliased" },
		{ MT_F_STRAY_BITS, "stray-bits" },
		{ MT_F_CID_BEYOND_MTF, "cid-beyond-mem_tag_format" },
		{ MT_F_DATA_EXTRA, "data-extra-bits" },
		{ MT_F_SOURCE_IS_DEST, "source=ssender" },
	};
	size_t n = 0;

	buf[0] = 0;
	if (l->id != MT_TAG_LAYOUT_RAW && (f->valid & MT_V_TAG) &&
	    !(f->flags & MT_F_INTERNAL))
		n += (size_t)snprintf(buf + n, len - n, "user");
	for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]) && n < len; i++)
		if (f->flags & notes[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					      notes[i].text);
	if (odd_ignore && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sodd-ignore", n ? "," : "");
	if (!n)
		snprintf(buf, len, "-");
}

/* One row of the all-layouts table. */
static void row(const struct opts *o, const struct mt_tag_layout *l)
{
	char cid[24], src[24], tag[24], notes[128];
	const char *proto;
	struct mt_tag_fields f;
	struct mt_tag_filter flt;

	if (o->has_ignore) {
		mt_tag_decode_recv(l, o->tag, o->ignore, o->recv_in, &flt);
		f = flt.f;
	} else {
		mt_tag_decode(l, o->tag, o->data, o->has_data ? MT_TAG_IN_DATA : 0, &f);
	}
	fmt_num(cid, sizeof(cid), f.valid & MT_V_CID, f.cid);
	fmt_num(src, sizeof(src), f.valid & MT_V_SOURCE, f.source);
	fmt_num(tag, sizeof(tag), f.valid & MT_V_TAG, f.tag);
	fmt_notes(notes, sizeof(notes), l, &f, o->has_ignore && flt.odd_ignore);
	proto = (f.valid & MT_V_PROTO) ? mt_tag_proto_name(f.proto) : "-";
	if (o->has_ignore && l->id != MT_TAG_LAYOUT_RAW) {
		if (flt.any_source)
			snprintf(src, sizeof(src), "ANY");
		if (flt.any_tag)
			snprintf(tag, sizeof(tag), "ANY");
		proto = mt_tag_recv_kind_name(flt.kind);
	}
	printf("%-18s %-10s %-8s %-11s %-14s %s\n", l->name, cid, src, tag, proto,
	       notes);
}

static void show_one(const struct opts *o, const struct mt_tag_layout *l)
{
	struct mt_tag_fields f;
	struct mt_tag_filter flt;
	char notes[128];

	printf("layout    %s (%s)\n", l->name, l->summary);
	printf("tag       0x%016" PRIx64 "\n", o->tag);
	if (o->has_data)
		printf("data      0x%" PRIx64 "\n", o->data);
	if (o->has_ignore)
		printf("ignore    0x%016" PRIx64 "\n", o->ignore);
	if (l->id == MT_TAG_LAYOUT_RAW)
		return;
	if (o->has_ignore) {
		mt_tag_decode_recv(l, o->tag, o->ignore, o->recv_in, &flt);
		f = flt.f;
		printf("receive   %s%s\n", mt_tag_recv_kind_name(flt.kind),
		       flt.odd_ignore ? " (ignore mask not built by this layout's MPI)" : "");
	} else {
		mt_tag_decode(l, o->tag, o->data, o->has_data ? MT_TAG_IN_DATA : 0, &f);
		printf("protocol  %s\n", mt_tag_proto_name(f.proto));
	}
	printf("cid       %u (max %" PRIu64 ", %u usable bits)\n", f.cid, l->cid_max,
	       l->cid_usable_bits);
	if (o->has_ignore && flt.any_source)
		printf("source    ANY (MPI_ANY_SOURCE)\n");
	else if (f.valid & MT_V_SOURCE)
		printf("source    %d\n", f.source);
	else
		printf("source    unknown (%s)\n", l->src_in == MT_SRC_DATA ?
		       (o->has_ignore ? "the receive's src_addr names it" :
			"travels in CQ data: give --data") : "not in this layout");
	if (o->has_ignore && flt.any_tag)
		printf("mpi tag   ANY (MPI_ANY_TAG)\n");
	else
		printf("mpi tag   %d\n", f.tag);
	fmt_notes(notes, sizeof(notes), l, &f, false);
	printf("notes     %s\n", notes);
}

static int run(int argc, char **argv)
{
	struct opts o;
	struct mt_tag_layout l;
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? MT_EXIT_OK : ret;
	if (o.layout != MT_TAG_LAYOUT_NONE) {
		if (mt_tag_layout_get(o.layout, o.mtf, &l) == MT_ERR_RANGE)
			printf("warning   mem_tag_format 0x%016" PRIx64 " leaves %u cid "
			       "bits: Open MPI would refuse to start\n", o.mtf,
			       l.cid_usable_bits);
		show_one(&o, &l);
		return MT_EXIT_OK;
	}
	printf("tag 0x%016" PRIx64, o.tag);
	if (o.has_data)
		printf("  data 0x%" PRIx64, o.data);
	if (o.has_ignore)
		printf("  ignore 0x%016" PRIx64, o.ignore);
	printf("\n%-18s %-10s %-8s %-11s %-14s %s\n", "LAYOUT", "CID", "SOURCE",
	       "MPI-TAG", o.has_ignore ? "RECEIVE" : "PROTOCOL", "NOTES");
	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++) {
		mt_tag_layout_get((enum mt_tag_layout_id)i, o.mtf, &l);
		row(&o, &l);
	}
	return MT_EXIT_OK;
}

const struct mt_cmd mt_cmd_tag = {
	.name = "tag",
	.summary = "decode a 64-bit tag under one or every tag layout",
	.run = run,
};
