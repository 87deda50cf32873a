/*
 * progress.c - the stderr progress line (see progress.h).
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define REDRAW_S 0.25
#define FIRST_S 1.0		/* quick runs never show a line */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void start(void *arg, uint64_t total)
{
	struct progress *p = arg;

	p->total = total;
	p->on = isatty(STDERR_FILENO);
	p->shown = 0;
	p->t_start = p->t_last = p->on ? now_s() : 0;
}

static void tick(void *arg, uint64_t done)
{
	struct progress *p = arg;
	double t, rate;

	if (!p->on)
		return;
	t = now_s();
	if (t - p->t_last < REDRAW_S || t - p->t_start < FIRST_S)
		return;
	p->t_last = t;
	p->shown = 1;
	rate = (double)done / (t - p->t_start);
	fprintf(stderr, "\r%s: %.1fM of %.1fM records (%.0f%%), %.1fM records/s",
		p->cmd, (double)done / 1e6, (double)p->total / 1e6,
		p->total ? 100.0 * (double)done / (double)p->total : 0.0, rate / 1e6);
	if (done < p->total && rate > 0)
		fprintf(stderr, ", %.0f s left", (double)(p->total - done) / rate);
	fputs("\033[K", stderr);
	fflush(stderr);		/* no newline: stderr is line buffered */
}

static void end(void *arg)
{
	struct progress *p = arg;

	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = 0;
}

void mt_cmd_progress_init(struct progress *p, const char *cmd)
{
	*p = (struct progress){
		.cmd = cmd,
		.cb = { .start = start, .tick = tick, .end = end, .arg = p },
	};
}
