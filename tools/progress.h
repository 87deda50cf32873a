/*
 * progress.h - a one-line progress display on stderr for long pipeline runs
 * (private to tools/): events processed, rate and time left. Shown only
 * when stderr is a terminal, so logs and pipes never get it.
 */
#ifndef MT_PROGRESS_H
#define MT_PROGRESS_H

#include <stdint.h>

#define PROGRESS_EVERY 65536u	/* events between two clock reads */

struct progress {
	const char *cmd;
	uint64_t total;		/* events expected */
	double t_start, t_last;	/* seconds, CLOCK_MONOTONIC */
	int on, shown;
};

void progress_start(struct progress *p, const char *cmd, uint64_t total);
/* Redraws at most four times a second; cheap enough to call every
 * PROGRESS_EVERY events. */
void progress_tick(struct progress *p, uint64_t done);
/* Erases the line, if one was drawn. */
void progress_end(struct progress *p);

#endif /* MT_PROGRESS_H */
