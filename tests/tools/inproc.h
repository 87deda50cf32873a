/*
 * inproc.h - a msgtrace subcommand run inside the calling process, as the
 * binary runs it, with what it writes to stderr caught: for the tests that
 * feed the command thousands of hostile inputs (fuzz_replay, malformed),
 * where a process per input cost most of their time. Each input also gets
 * the binary's per-process guards: a time limit (SIGALRM: the input named,
 * the process stopped) and, outside ASan builds, an address-space limit.
 */
#ifndef INPROC_H
#define INPROC_H

#include "cmd.h"

struct inproc_result {
	int rc;			/* the subcommand's exit status */
	char err[4096];		/* its stderr (the start of it), NUL-ended */
};

/* Limits every later run: address space mb MiB (not under ASan, which
 * reserves terabytes), stdout to /dev/null. Returns 0, or -1 (errno). */
int inproc_init(unsigned mb);

/* Runs cmd on argv (argv[0] its name, argc entries) within seconds s;
 * what names the input in the message if it runs out of time or crashes. */
void inproc_run(const struct mt_cmd *cmd, int argc, const char **argv,
		unsigned s, const char *what, struct inproc_result *out);

#endif /* INPROC_H */
