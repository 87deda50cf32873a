/*
 * cmd.h - the msgtrace command (tools/): its subcommands, their options,
 * and the one place that prints what the libraries report.
 *
 * Each subcommand lives in cmd_<name>.c and exports one struct mt_cmd;
 * msgtrace.c lists them. A subcommand returns the process exit status:
 * 0 success, 1 the input is bad (malformed trace, failed analysis),
 * 2 usage error (unknown option, missing argument). The command must not
 * know how the stages work inside: it runs the pipeline (mt_pipe.h) into a
 * sink it picks from the registry (mt_sink.h) and prints their statuses,
 * errors and notes.
 */
#ifndef MT_CMD_H
#define MT_CMD_H

#include <stdio.h>

#include "mt_pipe.h"

struct option;				/* <getopt.h> */

enum { MT_EXIT_OK = 0, MT_EXIT_BAD_INPUT = 1, MT_EXIT_USAGE = 2 };

struct mt_cmd {
	const char *name;
	const char *summary;	/* one line for `msgtrace --help` */
	int (*run)(int argc, char **argv);	/* argv[0] is the subcommand */
};

extern const struct mt_cmd mt_cmd_dump;
extern const struct mt_cmd mt_cmd_tag;
extern const struct mt_cmd mt_cmd_decode;
extern const struct mt_cmd mt_cmd_messages;
extern const struct mt_cmd mt_cmd_report;
extern const struct mt_cmd mt_cmd_export;
extern const struct mt_cmd mt_cmd_tags;
extern const struct mt_cmd mt_cmd_watch;
extern const struct mt_cmd mt_cmd_compact;
extern const struct mt_cmd mt_cmd_run;

/* A program made of subcommands (msgtrace, msgtrace-mpi). */
struct mt_cmd_prog {
	const char *name, *version;
	void (*usage)(FILE *out);
	const struct mt_cmd *const *cmds;	/* NULL-terminated */
	/* Runs the subcommand cmd (argv[0] its name); NULL: cmd->run. */
	int (*run)(const struct mt_cmd *cmd, int argc, char **argv);
};

/* cli.c: the program's command line: --help, --version, or one of its
 * subcommands; returns the exit status (MT_EXIT_*). */
int mt_cmd_dispatch(const struct mt_cmd_prog *p, int argc, char **argv);

/* cli.c: parses --layout NAME, printing the valid names when unknown;
 * cmd is the command as the user typed it ("msgtrace tag"). */
int mt_cmd_parse_layout(const char *cmd, const char *name, enum mt_tag_layout_id *id);

/* cli.c: a note of a library (arg: the command, "msgtrace report"), said
 * on stderr as the command's (struct mt_note's fn). */
void mt_cmd_say(void *arg, const char *msg);
/* What runs a pipeline command's analysis: mt_pipe_run, unless a program
 * built on the command (msgtrace-mpi) sets its own before running one. */
typedef enum mt_status mt_cmd_engine_fn(const struct mt_pipe_opts *o,
					const struct mt_sink_ops *sink, FILE *out,
					struct mt_err *err);
extern mt_cmd_engine_fn *mt_cmd_pipe_engine;
/* Whether this process creates the files a command writes (-o): 1, unless
 * a program running the command on several processes (msgtrace-mpi) leaves
 * them to one of its processes; the others write nothing (the engine gives
 * them no output), so a path only that one can reach does not stop them. */
extern int mt_cmd_writes_files;
/* cli.c: runs the pipeline for cmd ("msgtrace report"), printing its notes
 * and error as cmd's, a progress line on a terminal; returns the exit
 * status (MT_EXIT_*). */
int mt_cmd_pipe_run(const char *cmd, struct mt_pipe_opts *o,
		    const struct mt_sink_ops *sink, FILE *out);

/* A command that runs the pipeline: its options and the sinks they pick. */
struct mt_cmd_pipe {
	const char *cmd;		/* "msgtrace report" */
	void (*usage)(FILE *out);
	const struct mt_sink_ops *sink;	/* default */
	const struct mt_sink_ops *csv;	/* --csv, NULL: not offered */
	const struct mt_sink_ops *json;	/* --json, NULL: not offered */
	const struct mt_sink_ops *html;	/* --html, NULL: not offered */
	/* The command's own options, if any: getopt_long entries (val >= 256,
	 * at most 4) each handed to opt(val, optarg, sink_arg),
	 * which prints its own error and returns non-zero on a bad value. */
	const struct option *extra;
	int (*opt)(int val, const char *arg, void *sink_arg);
	void *sink_arg;			/* mt_pipe_opts.sink_arg */
	/* Given fabric traces then an OTF2 archive of the same run, NULL:
	 * not offered (the pipeline refuses the mix). Runs instead of
	 * mt_cmd_pipe_run, with the archive last in o->paths. */
	int (*joined)(const char *cmd, struct mt_pipe_opts *o,
		      const struct mt_sink_ops *sink, FILE *out);
};

/* Fabric traces then an OTF2 archive of the same run (last in o->paths):
 * the pipeline over the traces with sink, finalized with the joined view
 * (mt_run.join); sinks that do not add it (mt_sink_ops.joins 0) are
 * refused (joined.c). */
int mt_cmd_joined(const char *cmd, struct mt_pipe_opts *o,
		  const struct mt_sink_ops *sink, FILE *out);

/* Parses DIR|FILE... --csv --json --html -o FILE --layout NAME --clock
 * MODE --help and runs the pipeline; returns the exit status. */
int mt_cmd_pipe_main(const struct mt_cmd_pipe *cli, int argc, char **argv);
/* -o PATH of a command (cmd: "msgtrace report") created and written in
 * big blocks: the stream, or NULL after saying why it cannot be created.
 * One at a time: its buffer is static. */
FILE *mt_cmd_out_open(const char *cmd, const char *path);
/* Closes what mt_cmd_out_open opened; returns rc, or MT_EXIT_BAD_INPUT
 * after saying path could not be written when rc was MT_EXIT_OK. */
int mt_cmd_out_close(const char *cmd, FILE *out, const char *path, int rc);
/* --clock MODE for commands parsing their own options: 0, or -1 after
 * saying what is wrong (exit with MT_EXIT_USAGE). */
int mt_cmd_parse_clock(const char *cmd, const char *arg,
			enum mt_clock_mode *mode);
/* The options every pipeline command has, as getopt_long returns them:
 * 'l' (--layout NAME) and 'k' (--clock MODE) into o. 0, or -1 after saying
 * what is wrong (exit with MT_EXIT_USAGE). */
int mt_cmd_pipe_opt(const char *cmd, int c, const char *arg,
		    struct mt_pipe_opts *o);
/* notrace.c: whether path names nothing, or a directory holding no trace
 * file. */
int mt_cmd_trace_absent(const char *path);
/* notrace.c: when one of paths is missing or a directory without trace
 * files, says on stderr what usually causes it and how to check (and,
 * with suggest_run, that `msgtrace run` avoids it); 1 then, else 0. */
int mt_cmd_untraced(const char *cmd, const char *const *paths, size_t n,
		    int suggest_run);
/* The --clock lines of a pipeline command's --help. */
void mt_cmd_clock_help(FILE *out);


#endif /* MT_CMD_H */
