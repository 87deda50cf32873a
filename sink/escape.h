/*
 * escape.h - writing strings that came from a trace into JSON and HTML
 * (private to sink/). Trace bytes are untrusted: host names, job ids and
 * provider names may hold quotes, markup or control bytes.
 */
#ifndef MT_ESCAPE_H
#define MT_ESCAPE_H

#include <stdio.h>

/* "s" with JSON escapes (quotes included); bytes >= 0x7f and
 * control bytes become \u00XX (the output stays ASCII). */
void mt_sink_esc_json(FILE *f, const char *s);
/* s with &, <, >, " and ' as entities; control bytes become U+FFFD. */
void mt_sink_esc_html(FILE *f, const char *s);

#endif /* MT_ESCAPE_H */
