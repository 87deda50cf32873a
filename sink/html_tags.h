/*
 * html_tags.h - the tag-layout section of the HTML report (private to
 * sink/). mt_sink_html_tags is the one place the report's tag content is
 * written: today the layout in force with its field widths, value ranges
 * and a 64-bit map; the tag-mode truncation analysis (`msgtrace tags`)
 * adds its findings (how full each field is, what each other mode would
 * truncate or alias) here, from the same report data.
 */
#ifndef MT_HTML_TAGS_H
#define MT_HTML_TAGS_H

#include <stdio.h>

#include "report.h"
#include "tags.h"

/* Writes <section id="tags">...</section>, with the tag-mode analysis of
 * tg (gathered by mt_sink_tags_start/mt_sink_tags_consume) when tg is not NULL. */
void mt_sink_html_tags(FILE *f, const struct mt_run *run,
		       const struct report *r, struct tags *tg);
/* html_tagmode.c: field usage, what-if, internal tags, truncations. */
void mt_sink_html_tagmode(FILE *f, const struct mt_run *run, struct tags *tg);

#endif /* MT_HTML_TAGS_H */
