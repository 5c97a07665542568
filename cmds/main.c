// SPDX-License-Identifier: GPL-2.0
/* ghee: one binary, one subcommand per btrfs job. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "cmds/undo.h"

const char ghee_version_string[] = "ghee v" PACKAGE_VERSION;

static const struct ghee_command commands[] = {
	{ "mkfs", "create a filesystem", cmd_mkfs },
	{ "check", "verify a filesystem (read-only), or repair it", cmd_check },
	{ "undo", "put back what a repair overwrote (check --undo)", cmd_undo },
	{ "dump-super", "print superblocks", cmd_dump_super },
	{ "dump-tree", "print tree blocks and items", cmd_dump_tree },
	{ "dump-free-space", "free space of each block group, fragmentation", cmd_dump_free_space },
	{ "dump-extents", "extents and their owners (files, paths, trees)", cmd_dump_extents },
	{ "usage", "space allocated and used, per profile and device", cmd_usage },
	{ "tree-stats", "nodes, leaves, levels and fill of each tree", cmd_tree_stats },
	{ "map", "an SVG picture of the block groups and their use", cmd_map },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: ghee COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-18s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'ghee COMMAND --help' or 'ghee help COMMAND' for the options of a\n"
		"command, 'ghee --version' for the version.\n");
}

static const struct ghee_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	}
	return NULL;
}

/* "ghee help CMD": the command's own --help */
static int help_command(const char *name)
{
	const struct ghee_command *cmd = find_command(name);
	char *argv[] = { (char *)name, "--help", NULL };

	if (!cmd) {
		cmd_error("unknown command '%s'", name);
		cmd_try_help(NULL);
		return GHEE_EXIT_USAGE;
	}
	return cmd->run(2, argv);
}

int main(int argc, char **argv)
{
	const struct ghee_command *cmd;

	if (argc < 2) {
		usage(stderr);
		return GHEE_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help_command(argv[2]);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return GHEE_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
	    !strcmp(argv[1], "version")) {
		printf("%s\n", ghee_version_string);
		return GHEE_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	cmd_error("unknown command '%s'", argv[1]);
	cmd_try_help(NULL);
	return GHEE_EXIT_USAGE;
}
