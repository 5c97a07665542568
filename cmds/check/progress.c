// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <time.h>
#include "progress.h"

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void draw(struct check_progress *p, double now)
{
	double elapsed = now - p->start;
	double rate = elapsed > 0 ? p->done / elapsed : 0;
	unsigned int pct = p->total ? (unsigned int)(p->done * 100 / p->total) : 0;

	if (pct > 100)
		pct = 100;
	fprintf(stderr, "\r    %llu/%llu %s (%u%%), %.0f/s",
		(unsigned long long)p->done, (unsigned long long)p->total,
		p->what, pct, rate);
	if (rate > 0 && p->total > p->done)
		fprintf(stderr, ", ETA %.0fs   ", (p->total - p->done) / rate);
	else
		fprintf(stderr, "            ");
	p->last_draw = now;
}

void progress_start(struct check_progress *p, const char *what, uint64_t total)
{
	p->what = what;
	p->total = total;
	p->done = 0;
	p->start = now_seconds();
	p->last_draw = 0;
	p->active = p->enabled;
}

void progress_update(struct check_progress *p, uint64_t done)
{
	double now;

	p->done = done;
	if (!p->active)
		return;
	now = now_seconds();
	if (now - p->last_draw >= 0.1)
		draw(p, now);
}

void progress_end(struct check_progress *p)
{
	if (!p->active)
		return;
	draw(p, now_seconds());
	fprintf(stderr, "\n");
	p->active = false;
}
