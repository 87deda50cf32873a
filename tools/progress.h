/*
 * progress.h - a one-line progress display on stderr for long pipeline runs
 * (private to tools/): events processed, rate and time left. Shown only
 * when stderr is a terminal, so logs and pipes never get it.
 */
#ifndef MT_PROGRESS_H
#define MT_PROGRESS_H

#include <stdint.h>

#include "mt_pipe.h"

struct progress {
	const char *cmd;
	uint64_t total;		/* events expected */
	double t_start, t_last;	/* seconds, CLOCK_MONOTONIC */
	int on, shown;
	struct mt_pipe_progress cb;	/* the pipeline calls these with p */
};

/* Readies p for a pipeline run of cmd: hand &p->cb to mt_pipe_opts. The
 * line redraws at most four times a second, erased at the end. */
void mt_cmd_progress_init(struct progress *p, const char *cmd);

#endif /* MT_PROGRESS_H */
