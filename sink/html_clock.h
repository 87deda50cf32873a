/*
 * html_clock.h - the clock-correction section of the HTML report (private
 * to sink/): what --clock did, from run->clock (see struct mt_run_clock).
 */
#ifndef MT_HTML_CLOCK_H
#define MT_HTML_CLOCK_H

#include <stdio.h>

#include "mt_sink.h"

/* Writes <section id="clocks">...</section>. */
void mt_sink_html_clock(FILE *f, const struct mt_run *run);

#endif /* MT_HTML_CLOCK_H */
