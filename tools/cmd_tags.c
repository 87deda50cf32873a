/*
 * cmd_tags.c - `msgtrace tags`: tag-mode truncation analysis of a trace
 * (sink_tags.c, sink_tags_json.c) over the common pipeline.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "cmd.h"
#include "mt_sink.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace tags [OPTIONS] DIR|FILE...\n"
		"How Open MPI's OFI MTL squeezed communicator id, source rank and MPI\n"
		"tag into the 64-bit fabric tag in this run, and what other tag layouts\n"
		"would have done to the same values:\n"
		"  LAYOUT IN FORCE  per endpoint: ofi_tag_full, ofi_tag_1 or ofi_tag_2,\n"
		"                   how sure, the evidence, each field's width after\n"
		"                   the provider's mem_tag_format\n"
		"  FIELD USAGE      communicator id, source rank, MPI tag (user) and\n"
		"                   MPI tag (internal, negative): messages, distinct\n"
		"                   values, smallest, largest, headroom in bits and\n"
		"                   percent of the field\n"
		"  WHAT-IF          ofi_tag_full, ofi_tag_1 and ofi_tag_2 with this\n"
		"                   provider's mem_tag_format, with a provider reserving\n"
		"                   bits (0x5555555555555555, like `net`) and with each\n"
		"                   --mem-tag-format: the values that would not fit, what\n"
		"                   each becomes on the wire and whether it aliases a\n"
		"                   value the run used\n"
		"  INTERNAL TAGS    per communicator the most negative internal tag and\n"
		"                   the nonblocking-collective tag reservations left\n"
		"                   before ofi_tag_2's 20-bit field wraps them into the\n"
		"                   user range (and whether it already did)\n"
		"  TRUNCATION ERRORS  every receive that got more than its buffer\n"
		"                   (FI_ETRUNC or a longer completion): its filter and\n"
		"                   buffer, the send that caused it, the likely cause\n"
		"                   (tag collision after truncation, wildcard receive\n"
		"                   matched another stream, buffer too small)\n\n"
		"Options:\n"
		"  --json                  the same content as one JSON object\n"
		"  --mem-tag-format HEX    add what-if cases for a provider with this\n"
		"                          mem_tag_format (repeatable, up to %d)\n"
		"  -o, --output F          write to F instead of standard output\n"
		"  --layout NAME           decode tags with this layout instead of\n"
		"                          detecting it (names: msgtrace tag --help)\n",
		MT_SINK_TAGS_MTF_MAX);
	mt_cmd_clock_help(out);
	fprintf(out,
		"  -h, --help              this text\n\n"
		"Times are seconds since the first record (ns on the trace clock in JSON).\n"
		"Exit status: 0 success, 1 bad trace, 2 usage error.\n");
}

static int parse_mtf(const char *arg, struct mt_sink_tags_opts *o)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(arg, &end, 16);
	if (errno || end == arg || *end || !v || arg[0] == '-') {
		fprintf(stderr, "msgtrace tags: --mem-tag-format: '%s' is not a non-zero "
			"64-bit hex number (e.g. 0x5555555555555555)\n", arg);
		return -1;
	}
	if (o->n_mtf == MT_SINK_TAGS_MTF_MAX) {
		fprintf(stderr, "msgtrace tags: --mem-tag-format: at most %d values\n",
			MT_SINK_TAGS_MTF_MAX);
		return -1;
	}
	o->mtf[o->n_mtf++] = v;
	return 0;
}

static int option(int val, const char *arg, void *sink_arg)
{
	(void)val;	/* --mem-tag-format is the only one */
	return parse_mtf(arg, sink_arg);
}

static int run(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "mem-tag-format", required_argument, NULL, 256 },
		{ NULL, 0, NULL, 0 }
	};
	static struct mt_sink_tags_opts opts;
	static const struct mt_cmd_pipe cli = {
		.cmd = "msgtrace tags", .usage = usage,
		.sink = &mt_sink_tags, .json = &mt_sink_tags_json,
		.extra = extra, .opt = option, .sink_arg = &opts,
	};

	opts.n_mtf = 0;
	return mt_cmd_pipe_main(&cli, argc, argv);
}

const struct mt_cmd mt_cmd_tags = {
	.name = "tags",
	.summary = "tag-mode analysis: field usage, what-if layouts, truncations",
	.run = run,
};
