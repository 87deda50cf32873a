/*
 * clock_csv.h - reads the matched messages of a real trace, as written by
 * `msgtrace messages --csv`, into the clock stage's message times, so that
 * clock_validate can use a real run's event graph as its truth.
 */
#ifndef MT_CLOCK_CSV_H
#define MT_CLOCK_CSV_H

#include <stdio.h>

#include "mt_clock.h"

/* Reads every message with a known sender or receiver rank; *nprocs is the
 * highest rank + 1. Returns 0, or -1 with why = "<path>:<line>: <reason>". */
int clock_csv_read(const char *path, struct mt_clock_times **m, uint64_t *n,
		   uint32_t *nprocs, char *why, size_t why_len);

#endif /* MT_CLOCK_CSV_H */
