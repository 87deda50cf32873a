/*
 * joined.h - the joined view's part of each report (private to sink/):
 * when run->join is set, the MPI calls of an OTF2 archive of the same run
 * tied to the fabric messages (mt_join.h), written after the report's own
 * sections in its format.
 */
#ifndef MT_SINK_JOINED_H
#define MT_SINK_JOINED_H

#include <stdio.h>

#include "mt_sink.h"

/* The JOINED VIEW section of the text report. */
void mt_sink_joined_text(FILE *o, const struct mt_run *run,
			 const struct mt_match_summary *sum);
/* ,"joined":{...} inside the JSON report's object. */
void mt_sink_joined_json(FILE *o, const struct mt_run *run,
			 const struct mt_match_summary *sum);
/* The HTML report's "MPI calls" section. */
void mt_sink_joined_html(FILE *f, const struct mt_run *run,
			 const struct mt_match_summary *sum);

#endif /* MT_SINK_JOINED_H */
