/*
 * cli.c - command-line parsing that several subcommands share (see cmd.h).
 * Kept out of the cmd_*.c files so that a pipeline user (bench/) links it
 * without pulling in a subcommand.
 */
#include <stdio.h>

#include "cmd.h"

/* --layout NAME for any subcommand (cmd: "msgtrace report"): 0, or -1
 * after saying what is valid. */
int mt_cmd_parse_layout(const char *cmd, const char *name, enum mt_tag_layout_id *id)
{
	if (!mt_tag_layout_find(name, id))
		return 0;
	fprintf(stderr, "%s: --layout: unknown layout '%s'; valid:", cmd, name);
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++)
		fprintf(stderr, " %s", mt_tag_layout_name(i));
	fprintf(stderr, "\n");
	return -1;
}
