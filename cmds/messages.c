// SPDX-License-Identifier: GPL-2.0
/* "ERROR: ..." and "WARNING: ..." lines on stderr, the way btrfs-progs prints them. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include "commands.h"

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	/* keep the order with what was printed on stdout so far */
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("ERROR: ", fmt, ap);
	va_end(ap);
}

void cmd_option_error(const char *cmd, char *const *argv, int c)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':')
		cmd_error("option '%s' requires an argument", arg);
	else if (optopt > 0 && optopt < 128 && arg[0] == '-' && arg[1] != '-')
		cmd_error("unknown option '-%c'", optopt);
	else
		cmd_error("unknown option '%s'", arg);
	cmd_try_help(cmd);
}

void cmd_try_help(const char *cmd)
{
	fprintf(stderr, "Try 'ghee %s%s--help' for more information.\n",
		cmd ? cmd : "", cmd ? " " : "");
}

void cmd_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("WARNING: ", fmt, ap);
	va_end(ap);
}
