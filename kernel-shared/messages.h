/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine never prints: it hands each problem it meets (which block,
 * which field, expected vs found) to a report function chosen by the
 * caller.  A missing report function drops the message.
 */
#ifndef GHEE_MESSAGES_H
#define GHEE_MESSAGES_H

#include <stdarg.h>

enum btrfs_report_level {
	BTRFS_REPORT_ERROR,
	BTRFS_REPORT_WARNING,
	BTRFS_REPORT_INFO,
};

struct btrfs_reporter {
	void (*report)(void *ctx, enum btrfs_report_level level, const char *msg);
	void *ctx;
};

__attribute__((format(printf, 3, 4)))
void btrfs_report(const struct btrfs_reporter *rep,
		  enum btrfs_report_level level, const char *fmt, ...);

#define btrfs_err(rep, ...) btrfs_report(rep, BTRFS_REPORT_ERROR, __VA_ARGS__)
#define btrfs_warn(rep, ...) btrfs_report(rep, BTRFS_REPORT_WARNING, __VA_ARGS__)

#endif
