// SPDX-License-Identifier: GPL-2.0
/* ghee: one binary, one subcommand per btrfs job. */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "commands.h"

const char ghee_version_string[] = "ghee v" PACKAGE_VERSION;

static const struct ghee_command commands[] = {
	{ "mkfs", "create a filesystem", cmd_mkfs },
	{ "check", "verify a filesystem, read-only", cmd_check },
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
