// SPDX-License-Identifier: GPL-2.0
/* "ERROR: ..." and "WARNING: ..." lines on stderr, the way btrfs-progs prints them. */
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

void cmd_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("WARNING: ", fmt, ap);
	va_end(ap);
}
