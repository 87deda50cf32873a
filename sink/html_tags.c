/*
 * html_tags.c - the tag layout in force, for the HTML report (see
 * html_tags.h): a map of the 64 tag bits and a table of the fields.
 */
#include <inttypes.h>

#include "escape.h"
#include "html_tags.h"

struct field {
	const char *name, *cls;
	const char *brief;	/* in the bit map, where room is short */
	uint64_t mask;
	const char *range;	/* what the field can hold */
};

static unsigned low_bit(uint64_t m)
{
	return m ? (unsigned)__builtin_ctzll(m) : 0;
}

static unsigned width(uint64_t m)
{
	return (unsigned)__builtin_popcountll(m);
}

/* The 64 bits, high to low, one box per field. */
static void bit_map(FILE *f, const struct field *fl, size_t n)
{
	fputs("<div class=\"bits\" role=\"img\" aria-label=\"tag bits 63 to 0\">", f);
	for (int b = 63; b >= 0;) {
		const struct field *in = NULL;
		int lo = b;

		for (size_t i = 0; i < n; i++)
			if (fl[i].mask >> b & 1)
				in = &fl[i];
		while (lo > 0) {
			const struct field *next = NULL;

			for (size_t i = 0; i < n; i++)
				if (fl[i].mask >> (lo - 1) & 1)
					next = &fl[i];
			if (next != in)
				break;
			lo--;
		}
		fprintf(f, "<span class=\"bf %s\" style=\"flex:%d\" title=\"bits %d-%d\">"
			"<b>%s</b><i>%d</i></span>", in ? in->cls : "unused", b - lo + 1,
			b, lo, in ? in->brief : "unused", b - lo + 1);
		b = lo - 1;
	}
	fputs("</div><div class=\"bitscale\"><span>bit 63</span><span>bit 0</span>"
	      "</div>\n", f);
}

void mt_sink_html_tags(FILE *f, const struct mt_run *run,
		       const struct report *r, struct tags *tg)
{
	const struct mt_tag_layout *l = &run->layout;
	char cid[48], src[64], tag[48];
	struct field fl[] = {
		{ "cid", "f-cid", "cid", l->cid_mask, cid },
		{ "source", "f-src", "src", l->src_mask, src },
		{ "protocol", "f-proto", "pr", l->proto_mask,
		  "SYNC_SEND, SYNC_SEND_ACK, ..." },
		{ "tag", "f-tag", "tag", l->tag_mask, tag },
	};

	(void)r;
	snprintf(cid, sizeof(cid), "0 .. %" PRIu64, l->cid_max);
	if (l->src_in == MT_SRC_DATA)
		snprintf(src, sizeof(src), "in CQ data (%u bits)", l->data_src_bits);
	else
		snprintf(src, sizeof(src), "0 .. %" PRIu64, l->src_max);
	snprintf(tag, sizeof(tag), "%s0 .. %" PRIu64, l->tag_signed ?
		 "negative (internal) and " : "", l->tag_ub);
	fputs("<section id=\"tags\"><h2>Tag layout</h2><p>Layout in force: <b>", f);
	mt_sink_esc_html(f, l->name);
	fputs("</b> (", f);
	mt_sink_esc_html(f, mt_tag_confidence_name(run->layout_conf));
	fputs(" confidence)", f);
	if (l->summary && l->summary[0]) {
		fputs(": ", f);
		mt_sink_esc_html(f, l->summary);
	}
	fputs(".", f);
	if (run->layouts_differ)
		fprintf(f, " <span class=\"warn\">%zu endpoints use another layout.</span>",
			run->layouts_differ);
	fputs("</p>\n", f);
	bit_map(f, fl, sizeof(fl) / sizeof(fl[0]));
	fputs("<table class=\"num\"><thead><tr><th>field</th><th>bits</th>"
	      "<th>position</th><th>holds</th></tr></thead><tbody>", f);
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		if (!fl[i].mask && i != 1)
			continue;
		fprintf(f, "<tr><td><span class=\"sw %s\"></span>%s</td><td>%u</td>",
			fl[i].cls, fl[i].name, width(fl[i].mask));
		if (fl[i].mask)
			fprintf(f, "<td>%u-%u</td><td>", low_bit(fl[i].mask) +
				width(fl[i].mask) - 1, low_bit(fl[i].mask));
		else
			fputs("<td>-</td><td>", f);
		mt_sink_esc_html(f, fl[i].range);
		fputs("</td></tr>", f);
	}
	fputs("</tbody></table>", f);
	if (l->cid_usable_bits != l->cid_bits)
		fprintf(f, "<p>The provider's mem_tag_format leaves %u of the %u cid "
			"bits usable.</p>", l->cid_usable_bits, l->cid_bits);
	if (tg && run->trace->neps)
		mt_sink_html_tagmode(f, run, tg);
	fputs("</section>\n", f);
}
