/*
 * rec_dir.h - the recording tests' temporary directory: a fresh one per
 * test (Criterion runs each in its own process), the trace directory
 * inside it, removed whatever the test's outcome.
 */
#ifndef REC_DIR_H
#define REC_DIR_H

#include <limits.h>

extern char rec_tmp[PATH_MAX];
extern char rec_dir[PATH_MAX + 16];	/* rec_tmp/trace, not created */

void rec_dir_setup(void);
void rec_dir_teardown(void);

#endif /* REC_DIR_H */
