/*
 * mt_proc.h - private to provider/: what a trace says about its process and
 * its clock. The process identity (launcher rank variables, job id, host,
 * hwloc binding) goes into MT_REC_PROC; the clock is chosen and calibrated
 * once, and CLOCK records pair its ticks with CLOCK_REALTIME/MONOTONIC.
 */
#ifndef MT_PROC_H
#define MT_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "mt_format.h"

/* Picks the invariant TSC when /proc/cpuinfo has constant_tsc and
 * nonstop_tsc (else CLOCK_MONOTONIC) and measures its rate. Idempotent. */
void mt_rec_proc_clock_init(void);
void mt_rec_proc_clock_pair(struct mt_rec_clock *r, enum mt_clock_phase phase);
void mt_rec_proc_fill(struct mt_rec_proc *r, uint32_t fi_version);

/* The launcher's job id, "" when there is none; characters that cannot be
 * part of a file name are replaced by '_', but '@' is kept: Open MPI 5
 * names a launch's jobs NAME@1, NAME@2 ..., and the reader finds a spawned
 * job's launch by it (trace/jobs.c). */
void mt_rec_proc_job_id(char *buf, size_t len);

#endif /* MT_PROC_H */
