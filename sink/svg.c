/*
 * svg.c - bar/line charts and heatmaps as inline SVG (see svg.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "escape.h"
#include "mt_sink.h"
#include "svg.h"

#define W 560.0
#define H 300.0
#define ML 80.0			/* margins: room for y ticks and label */
#define MR 12.0
#define MT 14.0
#define MB 70.0			/* room for slanted x labels and the x label */
#define MAX_XLABELS 16

const char *mt_sink_svg_fmt_si(double v, char *buf, size_t len)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P" };
	unsigned u = 0;

	while (fabs(v) >= 1000 && u < 5) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, fabs(v) < 10 && v != floor(v) ? "%.2g%s" : "%.0f%s", v,
		 sfx[u]);
	return buf;
}

const char *mt_sink_svg_fmt_bytes(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v != floor(v) ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

/* The y scale: value -> pixel, with its ticks. */
struct scale {
	int log;
	double lo, hi;		/* linear: 0..hi; log: decades lo..hi */
};

static double nice_ceil(double v)
{
	double p = pow(10, floor(log10(v))), m = v / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static struct scale make_scale(const struct mt_sink_svg_chart *c)
{
	struct scale s = { .log = c->logy, .lo = INFINITY, .hi = 0 };

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; c->series[k] && i < c->n; i++) {
			double v = c->series[k][i];

			if (v > s.hi)
				s.hi = v;
			if (v > 0 && v < s.lo)
				s.lo = v;
		}
	if (s.log) {
		s.lo = isinf(s.lo) ? 0 : floor(log10(s.lo));
		s.hi = s.hi > 0 ? ceil(log10(s.hi)) : s.lo + 1;
		if (s.hi <= s.lo)
			s.hi = s.lo + 1;
	} else {
		s.lo = 0;
		s.hi = s.hi > 0 ? nice_ceil(s.hi) : 1;
	}
	return s;
}

static double ypix(const struct scale *s, double v)
{
	double t = s->log ? (log10(v) - s->lo) / (s->hi - s->lo) : v / s->hi;

	return MT + (H - MT - MB) * (1 - t);
}

static void y_axis(FILE *f, const struct mt_sink_svg_chart *c, const struct scale *s)
{
	char b[32];
	int steps = s->log ? (int)(s->hi - s->lo) : 5;

	for (int i = 0; i <= steps; i++) {
		double v = s->log ? pow(10, s->lo + i) : s->hi * i / steps;
		double y = ypix(s, v);

		fprintf(f, "<line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
			"y2=\"%.1f\"/><text class=\"ax\" x=\"%.0f\" y=\"%.1f\" "
			"text-anchor=\"end\">", ML, W - MR, y, y, ML - 5, y + 4);
		mt_sink_esc_html(f, c->fmt(v, b, sizeof(b)));
		fputs("</text>", f);
	}
	fprintf(f, "<text class=\"ax\" transform=\"translate(11,%.0f) rotate(-90)\" "
		"text-anchor=\"middle\">", (H - MB + MT) / 2);
	mt_sink_esc_html(f, c->ylabel);
	fputs("</text>", f);
}

static void x_axis(FILE *f, const struct mt_sink_svg_chart *c, double bw)
{
	size_t every = (c->n + MAX_XLABELS - 1) / MAX_XLABELS;

	for (size_t i = 0; i < c->n; i += every ? every : 1) {
		double x = ML + bw * ((double)i + 0.5);

		fprintf(f, "<text class=\"ax\" transform=\"translate(%.1f,%.0f) "
			"rotate(-40)\" text-anchor=\"end\">", x + 3, H - MB + 14);
		mt_sink_esc_html(f, c->cat[i]);
		fputs("</text>", f);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" "
		"y2=\"%.0f\"/><text class=\"ax\" x=\"%.0f\" y=\"%.0f\" "
		"text-anchor=\"middle\">", ML, W - MR, H - MB, H - MB,
		(ML + W - MR) / 2, H - 4);
	mt_sink_esc_html(f, c->xlabel);
	fputs("</text>", f);
}

static void tooltip(FILE *f, const struct mt_sink_svg_chart *c, int k, size_t i)
{
	char b[32];

	fputs("<title>", f);
	mt_sink_esc_html(f, c->cat[i]);
	if (c->series_name[k]) {
		fputs(", ", f);
		mt_sink_esc_html(f, c->series_name[k]);
	}
	fputs(": ", f);
	mt_sink_esc_html(f, c->fmt(c->series[k][i], b, sizeof(b)));
	fputs("</title>", f);
}

static void legend(FILE *f, const struct mt_sink_svg_chart *c)
{
	double x = W - MR - 150;

	for (int k = 0; k < 2 && c->series[1]; k++) {
		fprintf(f, "<rect class=\"s%d\" x=\"%.0f\" y=\"%.0f\" width=\"10\" "
			"height=\"10\"/><text class=\"ax\" x=\"%.0f\" y=\"%.0f\">", k,
			x + 75.0 * k, MT - 2, x + 75.0 * k + 14, MT + 7);
		mt_sink_esc_html(f, c->series_name[k]);
		fputs("</text>", f);
	}
}

void mt_sink_svg_chart(FILE *f, const struct mt_sink_svg_chart *c)
{
	struct scale s = make_scale(c);
	double bw = c->n ? (W - ML - MR) / (double)c->n : 1;
	int ns = c->series[1] ? 2 : 1;
	double base = ypix(&s, s.log ? pow(10, s.lo) : 0);

	fprintf(f, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"aria-label=\"", W, H);
	mt_sink_esc_html(f, c->title);
	fputs("\">", f);
	y_axis(f, c, &s);
	if (c->line) {
		fputs("<polyline class=\"line\" points=\"", f);
		for (size_t i = 0; i < c->n; i++)
			if (c->series[0][i] > 0)
				fprintf(f, "%.1f,%.1f ", ML + bw * ((double)i + 0.5),
					ypix(&s, c->series[0][i]));
		fputs("\"/>", f);
	}
	for (int k = 0; k < ns; k++)
		for (size_t i = 0; i < c->n; i++) {
			double v = c->series[k][i], y;

			if (v <= 0)
				continue;
			y = ypix(&s, v);
			if (c->line)
				fprintf(f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" "
					"r=\"3.5\">", ML + bw * ((double)i + 0.5), y);
			else	/* a bar at the log floor still shows */
				fprintf(f, "<rect class=\"s%d\" x=\"%.1f\" y=\"%.1f\" "
					"width=\"%.1f\" height=\"%.1f\">", k,
					ML + bw * (double)i + bw * 0.1 + bw * 0.8 * k / ns,
					base - y > 3 ? y : base - 3, bw * 0.8 / ns,
					base - y > 3 ? base - y : 3);
			tooltip(f, c, k, i);
			fputs(c->line ? "</circle>" : "</rect>", f);
		}
	x_axis(f, c, bw);
	legend(f, c);
	fputs("</svg>\n", f);
}

/* Colour of t in [0, 1]: light to dark blue. */
static void heat_colour(FILE *f, double t)
{
	static const double a[3] = { 239, 246, 255 }, b[3] = { 8, 48, 107 };

	fprintf(f, "rgb(%d,%d,%d)", (int)(a[0] + (b[0] - a[0]) * t),
		(int)(a[1] + (b[1] - a[1]) * t), (int)(a[2] + (b[2] - a[2]) * t));
}

#define HW 300.0		/* heatmap viewBox */
#define HL 36.0			/* left and top room for rank labels */
#define HLEG 30.0		/* legend below */

static void heat_labels(FILE *f, const struct mt_trace *t, size_t g, size_t per,
			size_t n, double cell)
{
	size_t every = (g + 7) / 8;

	for (size_t i = 0; i < g; i += every) {
		char lab[2 * MT_SINK_RANK_LEN + 1], a[MT_SINK_RANK_LEN], b[MT_SINK_RANK_LEN];
		size_t lo = i * per, hi = (i + 1) * per - 1 < n - 1 ? (i + 1) * per - 1 : n - 1;

		mt_sink_rank(t, (int64_t)lo, a, sizeof(a));
		if (per == 1)
			snprintf(lab, sizeof(lab), "%s", a);
		else
			snprintf(lab, sizeof(lab), "%s-%s", a,
				 mt_sink_rank(t, (int64_t)hi, b, sizeof(b)));
		fprintf(f, "<text class=\"ax\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">"
			"%s</text><text class=\"ax\" x=\"%.0f\" y=\"%.1f\" "
			"text-anchor=\"end\">%s</text>", HL + cell * ((double)i + 0.5),
			HL - 4, lab, HL - 4, HL + cell * ((double)i + 0.5) + 4, lab);
	}
	fprintf(f, "<text class=\"ax\" x=\"%.0f\" y=\"11\" text-anchor=\"middle\">"
		"receiver rank</text><text class=\"ax\" transform=\"translate(10,%.0f) "
		"rotate(-90)\" text-anchor=\"middle\">sender rank</text>",
		HL + (HW - HL) / 2, HL + (HW - HL) / 2);
}

void mt_sink_svg_heatmap(FILE *f, const struct svg_heat *h)
{
	size_t per = (h->n + SVG_HEAT_MAX - 1) / SVG_HEAT_MAX, g;
	static unsigned ramp_id;	/* gradient ids unique in the page */
	double *cell, max = 0, side = HW - HL - 4, sz;
	char a[32], rs[MT_SINK_RANK_LEN], cs[MT_SINK_RANK_LEN];

	per = per ? per : 1;
	g = (h->n + per - 1) / per;
	cell = calloc(g * g + 1, sizeof(*cell));
	if (!cell)
		return;
	for (size_t r = 0; r < h->n; r++)
		for (size_t c = 0; c < h->n; c++)
			cell[(r / per) * g + c / per] += h->v[r * h->n + c];
	for (size_t i = 0; i < g * g; i++)
		max = cell[i] > max ? cell[i] : max;
	sz = g ? side / (double)g : side;
	/* Many small cells: no gaps between them (crisp edges, no stroke). */
	fprintf(f, "<svg class=\"heat\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"%s "
		"aria-label=\"", HW, HW + HLEG,
		g > 24 ? " shape-rendering=\"crispEdges\"" : "");
	mt_sink_esc_html(f, h->title);
	fputs("\">", f);
	for (size_t r = 0; r < g; r++)
		for (size_t c = 0; c < g; c++) {
			double v = cell[r * g + c];

			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"", HL + sz * (double)c,
				HL + sz * (double)r, sz, sz);
			if (v > 0)
				heat_colour(f, 0.12 + 0.88 * log1p(v) / log1p(max));
			else
				fputs("#fafafa", f);
			fprintf(f, "\" class=\"%s\"><title>", g > 24 ? "cell dense" : "cell");
			fprintf(f, "%s%s \u2192 %s%s: %s%s</title>"
				"</rect>", per > 1 ? "ranks from " : "",
				mt_sink_rank(h->trace, (int64_t)(r * per), rs, sizeof(rs)),
				per > 1 ? "ranks from " : "",
				mt_sink_rank(h->trace, (int64_t)(c * per), cs, sizeof(cs)),
				h->fmt(v, a, sizeof(a)), h->what);
		}
	heat_labels(f, h->trace, g, per, h->n, sz);
	/* Legend: the colour ramp from nothing to the largest cell. */
	fprintf(f, "<defs><linearGradient id=\"ramp%u\">", ++ramp_id);
	for (int i = 0; i <= 4; i++) {
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"", i * 25);
		heat_colour(f, 0.12 + 0.22 * i);
		fputs("\"/>", f);
	}
	fprintf(f, "</linearGradient></defs><rect x=\"%.0f\" y=\"%.0f\" width=\"100\" "
		"height=\"9\" fill=\"url(#ramp%u)\"/><text class=\"ax\" x=\"%.0f\" "
		"y=\"%.0f\" text-anchor=\"end\">0</text><text class=\"ax\" x=\"%.0f\" "
		"y=\"%.0f\">%s, log scale</text></svg>\n", HL, HW + 10, ramp_id, HL - 4,
		HW + 18, HL + 104, HW + 18, h->fmt(max, a, sizeof(a)));
	free(cell);
}
