/*
 * fuzz_msgtrace.h - the fuzz target's entry points (libFuzzer's), and what
 * the replay driver (fuzz_replay.c) sets before calling them.
 */
#ifndef FUZZ_MSGTRACE_H
#define FUZZ_MSGTRACE_H

#include <stddef.h>
#include <stdint.h>

/* Seconds each command may take; 0: no limit of ours (libFuzzer times
 * its runs with the same timer). */
extern unsigned fuzz_time_limit;
/* The input being run, named in the messages of a failure. */
extern const char *fuzz_input_name;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* FUZZ_MSGTRACE_H */
