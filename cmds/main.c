// SPDX-License-Identifier: GPL-2.0
/* ghee: one binary, one subcommand per btrfs job. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cmds/undo.h"

const char ghee_version_string[] = "ghee v" PACKAGE_VERSION;

static const struct ghee_command commands[] = {
	{ "dump-super", "print superblocks", cmd_dump_super },
	{ "dump-tree", "print tree blocks and items", cmd_dump_tree },
	{ "check", "verify a filesystem (read-only), or repair it", cmd_check },
	{ "undo", "put back what a repair overwrote (check --undo)", cmd_undo },
	{ "mkfs", "create a filesystem", cmd_mkfs },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: ghee COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-18s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'ghee COMMAND --help' for the options of a command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return GHEE_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return GHEE_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s\n", ghee_version_string);
		return GHEE_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "ghee: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return GHEE_EXIT_USAGE;
}
