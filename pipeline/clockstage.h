/*
 * clockstage.h - the clock-correction stage of the pipeline (private to
 * pipeline/): describes each traced process's clock to mt_clock_*, decides
 * whether the run needs correcting, and carries corrected times to the
 * messages the pipeline kept aside meanwhile.
 *
 * When the times stay as recorded (--clock none, or auto on a trace of one
 * process) nothing is kept: messages stream to the sink as before and the
 * stage only counts clock-condition violations. auto keeps the times of
 * any trace of two processes or more, one host or not: a clock the
 * metadata declare shared is checked on the data (mt_clock_domains)
 * before it is trusted.
 * Otherwise the messages wait in the pipeline's spill file while the stage
 * collects 40 bytes per message (struct mt_clock_times), or, in auto on
 * one declared clock, only what the solve needs if no time moves: counts,
 * extremes and 56 bytes per pair of processes that talk (mt_clock_rest).
 * Should times move after all, the spill is read once more to collect
 * each message's. The stage corrects the times, and the spilled messages,
 * read back in the same order, get theirs replaced before the sink sees
 * them. The solve itself peaks at about 160 bytes per message, 185 with
 * the CLC, when it moves times (bench/clock_pipeline.sh: two hosts); when
 * none moves (auto on one clock that holds), it works on one entry per
 * pair of processes.
 */
#ifndef MT_CLOCKSTAGE_H
#define MT_CLOCKSTAGE_H

#include "mt_pipe.h"

struct clockstage;

/* NULL when out of memory. */
struct clockstage *mt_pipe_clock_new(enum mt_clock_mode mode,
				  const struct mt_trace *t);
void mt_pipe_clock_free(struct clockstage *cs);
/* 1: messages must be collected and corrected before any reaches a sink. */
int mt_pipe_clock_buffers(const struct clockstage *cs);
/* 1: collect keeps no times (until mt_pipe_clock_keep_times): the spilled
 * messages must keep theirs. */
int mt_pipe_clock_gathers(const struct clockstage *cs);
/* Keeps the times of the next n messages, or, on one declared clock in
 * auto, only the figures the solve needs if no time moves (mt_clock_rest).
 * -1 when out of memory. */
int mt_pipe_clock_collect(struct clockstage *cs, const struct mt_match_msg *b,
		       size_t n);
/* Corrects every collected message's times. MT_END: the figures gathered
 * show that times move; the caller calls mt_pipe_clock_keep_times, collects
 * every message again, in the same order, and solves again. */
enum mt_status mt_pipe_clock_solve(struct clockstage *cs, struct mt_err *err);
/* From now on collect keeps every message's times. */
void mt_pipe_clock_keep_times(struct clockstage *cs);
/* The next n messages (in collecting order) get their corrected times, or,
 * when nothing was collected, are checked for violations. */
void mt_pipe_clock_apply(struct clockstage *cs, struct mt_match_msg *b, size_t n);
/* The matcher's summary on the corrected time base: s itself when times
 * stay as recorded, else a copy (the stage's, until the next call or
 * mt_pipe_clock_free) whose warning examples, pending operations and near
 * misses moved by their ranks' linear maps (the CLC moves the matched
 * messages only: these are copies, or have no partner). NULL when out of
 * memory. */
const struct mt_match_summary *mt_pipe_clock_summary(struct clockstage *cs,
						  const struct mt_match_summary *s);
/* What the stage did into run->clock; the run's span onto the corrected
 * time base. */
void mt_pipe_clock_describe(const struct clockstage *cs, struct mt_run *run);

#endif /* MT_CLOCKSTAGE_H */
