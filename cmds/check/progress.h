/* SPDX-License-Identifier: GPL-2.0 */
/* A progress line on stderr: done/total, rate and ETA, redrawn at most 10x/s. */
#ifndef GHEE_CHECK_PROGRESS_H
#define GHEE_CHECK_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct check_progress {
	bool enabled;
	bool active;
	const char *what;	/* unit, e.g. "blocks" */
	uint64_t total;
	uint64_t done;
	double start;
	double last_draw;
};

void progress_start(struct check_progress *p, const char *what, uint64_t total);
void progress_update(struct check_progress *p, uint64_t done);
void progress_end(struct check_progress *p);

#endif
