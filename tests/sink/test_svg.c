/*
 * test_svg.c - the HTML report's SVG charts (sink/svg.c): rank grouping in
 * heatmaps, log scales that skip empty values, escaping of labels.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

static char *buf;
static size_t len;

static FILE *open_out(void)
{
	FILE *m = open_memstream(&buf, &len);

	cr_assert_not_null(m);
	return m;
}

static void fini(void)
{
	free(buf);
	buf = NULL;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

TestSuite(svg, .fini = fini);

Test(svg, heatmap_one_cell_per_pair_up_to_the_limit)
{
	size_t n = SVG_HEAT_MAX;
	double *v = calloc(n * n, sizeof(*v));
	FILE *f = open_out();

	v[1] = 5;		/* 0 -> 1 */
	mt_sink_svg_heatmap(f, &(struct svg_heat){ .title = "t", .what = " messages",
		    .n = n, .v = v, .fmt = mt_sink_svg_fmt_si });
	fclose(f);
	cr_expect_eq(count(buf, "class=\"cell"), n * n);
	cr_expect(strstr(buf, "0 \u2192 1: 5 messages") != NULL, "%s", "cell 0->1");
	free(v);
}

Test(svg, heatmap_groups_ranks_beyond_the_limit)
{
	size_t n = SVG_HEAT_MAX + 1;	/* 2 ranks per cell: 33 x 33 */
	double *v = calloc(n * n, sizeof(*v));
	FILE *f = open_out();

	for (size_t i = 0; i < n * n; i++)
		v[i] = 1;
	mt_sink_svg_heatmap(f, &(struct svg_heat){ .title = "t", .what = "",
		    .n = n, .v = v, .fmt = mt_sink_svg_fmt_si });
	fclose(f);
	cr_expect_eq(count(buf, "class=\"cell"), 33u * 33u);
	/* Full groups hold 2 x 2 pairs; the last row and column 1 rank. */
	cr_expect(strstr(buf, "ranks from 0 \u2192 ranks from 0: 4<") != NULL);
	cr_expect(strstr(buf, "ranks from 64 \u2192 ranks from 64: 1<") != NULL);
	cr_expect(strstr(buf, "4, log scale") != NULL, "legend names the largest cell");
	free(v);
}

Test(svg, log_chart_skips_empty_values)
{
	const char *cat[] = { "a", "b", "c" };
	double v[] = { 10, 0, 1000 };
	FILE *f = open_out();

	mt_sink_svg_chart(f, &(struct mt_sink_svg_chart){ .title = "t", .xlabel = "x",
		  .ylabel = "y", .n = 3, .cat = cat, .series = { v },
		  .logy = 1, .fmt = mt_sink_svg_fmt_si });
	fclose(f);
	cr_expect_eq(count(buf, "<rect class=\"s0\""), 2u);
	/* Decades 10^1 .. 10^3: ticks 10, 100, 1k. */
	cr_expect(strstr(buf, ">10<") && strstr(buf, ">100<") && strstr(buf, ">1k<"));
}

Test(svg, labels_are_escaped)
{
	const char *cat[] = { "<a&b>" };
	double v[] = { 1 };
	FILE *f = open_out();

	mt_sink_svg_chart(f, &(struct mt_sink_svg_chart){ .title = "\"t\"", .xlabel = "<x>",
		  .ylabel = "y", .n = 1, .cat = cat, .series = { v },
		  .fmt = mt_sink_svg_fmt_si });
	fclose(f);
	cr_expect(strstr(buf, "&lt;a&amp;b&gt;") != NULL);
	cr_expect(strstr(buf, "&lt;x&gt;") != NULL);
	cr_expect(strstr(buf, "&quot;t&quot;") != NULL);
	cr_expect(strstr(buf, "<a&b>") == NULL);
}

Test(svg, number_formats)
{
	char b[32];

	cr_expect_str_eq(mt_sink_svg_fmt_si(0, b, sizeof(b)), "0");
	cr_expect_str_eq(mt_sink_svg_fmt_si(1500, b, sizeof(b)), "1.5k");
	cr_expect_str_eq(mt_sink_svg_fmt_si(2e6, b, sizeof(b)), "2M");
	cr_expect_str_eq(mt_sink_svg_fmt_bytes(1024, b, sizeof(b)), "1 KiB");
	cr_expect_str_eq(mt_sink_svg_fmt_bytes(1536, b, sizeof(b)), "1.5 KiB");
	cr_expect_str_eq(mt_sink_svg_fmt_bytes(100, b, sizeof(b)), "100 B");
}
