// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "messages.h"

void btrfs_report(const struct btrfs_reporter *rep,
		  enum btrfs_report_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!rep || !rep->report)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rep->report(rep->ctx, level, buf);
}
