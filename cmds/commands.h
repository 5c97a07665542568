/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GHEE_COMMANDS_H
#define GHEE_COMMANDS_H

/* exit codes shared by every command */
#define GHEE_EXIT_OK		0
#define GHEE_EXIT_FAILURE	1
#define GHEE_EXIT_USAGE		2

struct ghee_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_dump_super(int argc, char **argv);
int cmd_dump_tree(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_mkfs(int argc, char **argv);
int cmd_dump_free_space(int argc, char **argv);
int cmd_usage(int argc, char **argv);
int cmd_tree_stats(int argc, char **argv);
int cmd_dump_extents(int argc, char **argv);
int cmd_map(int argc, char **argv);

/* "ERROR: ..." / "WARNING: ..." on stderr, after flushing stdout */
__attribute__((format(printf, 1, 2))) void cmd_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void cmd_warning(const char *fmt, ...);
/*
 * A getopt_long() failure of command @cmd (run with opterr = 0 and a ':'
 * leading the short options): @c is what getopt returned, '?' for an
 * unknown option, ':' for a missing argument.  Names the option, then
 * points at --help.
 */
void cmd_option_error(const char *cmd, char *const *argv, int c);
/* "Try 'ghee CMD --help' ..." after a usage error; @cmd NULL for ghee itself */
void cmd_try_help(const char *cmd);

/* "ghee" program name and version for messages and the first output line */
extern const char ghee_version_string[];

#endif
