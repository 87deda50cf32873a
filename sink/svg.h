/*
 * svg.h - small inline-SVG charts for the HTML report (private to sink/):
 * a bar or line chart over labelled categories and a square heatmap. They
 * write markup only (no scripts); styling comes from the page's CSS classes
 * (.ax, .grid, .axis, .s0, .s1, .line, .pt, .cell, .dense), so screen and
 * print CSS can differ.
 * Every label is escaped.
 */
#ifndef MT_SVG_H
#define MT_SVG_H

#include <stddef.h>
#include <stdio.h>

struct mt_trace;

/* Formats a value for a tick or tooltip: "1.5k", "2 MiB" ... */
typedef const char *(*svg_fmt)(double v, char *buf, size_t len);

const char *mt_sink_svg_fmt_si(double v, char *buf, size_t len);	/* 1.5k, 2M */
const char *mt_sink_svg_fmt_bytes(double v, char *buf, size_t len);	/* 1.5 KiB */

struct mt_sink_svg_chart {
	const char *title;		/* for screen readers and tooltips */
	const char *xlabel, *ylabel;
	size_t n;			/* categories */
	const char *const *cat;		/* n labels */
	const double *series[2];	/* n values each; series[1] may be NULL */
	const char *series_name[2];
	int logy;			/* log10 y axis (values <= 0 not drawn) */
	int line;			/* points joined by a line, not bars */
	svg_fmt fmt;			/* y ticks and tooltips */
};

/* A chart 560 x 300 (viewBox; it scales to its container). */
void mt_sink_svg_chart(FILE *f, const struct mt_sink_svg_chart *c);

struct svg_heat {
	const char *title;
	const char *what;		/* after a value: " messages", "" */
	size_t n;			/* ranks: v is n x n, v[row * n + col] */
	const struct mt_trace *trace;	/* names the ranks (mt_sink_rank) */
	const double *v;		/* row: sender, column: receiver */
	svg_fmt fmt;
};

/* A heatmap of at most SVG_HEAT_MAX x SVG_HEAT_MAX cells (ranks grouped
 * when there are more), with a colour legend; log colour scale. */
#define SVG_HEAT_MAX 64
void mt_sink_svg_heatmap(FILE *f, const struct svg_heat *h);

#endif /* MT_SVG_H */
