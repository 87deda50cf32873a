/*
 * spill.h - the pipeline's spill file (private to pipeline/): the finished
 * messages kept aside, in order, while the clock stage collects their
 * times for the correction; read back once the times are corrected.
 *
 * A message is stored packed, not as its 136 bytes: its times are left out
 * where the clock stage holds them (mt_clock_times, written back into the
 * message it reads; see mt_pipe_spill_get), else each takes 2 or 4 bytes
 * of difference from the one before it; each 32-bit field takes the bytes
 * its value needs (0, 1, 2 or 4), with 2 bits a field or time to say
 * which. A message of gen_trace's benign traffic takes about 38 bytes, 52
 * with its times. The file is
 * the process's own: it is written and read by this code alone, in the
 * byte order of the machine.
 */
#ifndef MT_PIPE_SPILL_H
#define MT_PIPE_SPILL_H

#include <stdio.h>

#include "mt_match.h"
#include "mt_status.h"

struct mt_pipe_spill;

/* An unlinked temporary file in $TMPDIR (or /tmp): it vanishes with the
 * process, however the process ends. times: every recorded time is stored
 * (the clock stage keeps none of them). */
enum mt_status mt_pipe_spill_open(struct mt_pipe_spill **sp, int times,
				  struct mt_err *err);
void mt_pipe_spill_close(struct mt_pipe_spill *sp);
/* Appends n messages. */
enum mt_status mt_pipe_spill_put(struct mt_pipe_spill *sp, const struct mt_match_msg *b,
				 size_t n, struct mt_err *err);
/* After the last put, or gets: the next get reads from the first message. */
enum mt_status mt_pipe_spill_rewind(struct mt_pipe_spill *sp, struct mt_err *err);
/* Up to max messages into b, in the order they were put, *n of them (0 at
 * the end). Each byte is as put, except, in a file opened without times,
 * a time of at most INT64_MAX, which reads as MT_MATCH_NOTIME: it is one
 * the clock stage keeps (mt_clock_times_of_msg) and writes back
 * (mt_clock_times_to_msg); a time above INT64_MAX, which the clock stage
 * does not keep, is stored. */
enum mt_status mt_pipe_spill_get(struct mt_pipe_spill *sp, struct mt_match_msg *b,
				 size_t max, size_t *n, struct mt_err *err);
/* The bytes written so far. */
uint64_t mt_pipe_spill_bytes(const struct mt_pipe_spill *sp);

#endif /* MT_PIPE_SPILL_H */
