/*
 * cmd.h - the msgtrace command's subcommands (private to tools/).
 * Each subcommand lives in cmd_<name>.c and exports one struct mt_cmd;
 * msgtrace.c lists them. A subcommand returns the process exit status:
 * 0 success, 1 the input is bad (malformed trace, failed analysis),
 * 2 usage error (unknown option, missing argument).
 */
#ifndef MT_CMD_H
#define MT_CMD_H

#include "mt_decode.h"

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

/* cli.c: parses --layout NAME, printing the valid names when unknown;
 * cmd is the command as the user typed it ("msgtrace tag"). */
int mt_cmd_parse_layout(const char *cmd, const char *name, enum mt_tag_layout_id *id);

#endif /* MT_CMD_H */
