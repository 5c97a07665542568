/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the C micro-benchmarks: a clock, a seeded random
 * generator and the report format.  Each benchmark times the plain and
 * the improved way alternately in one process, BENCH_ROUNDS times, and
 * reports the fastest round of each (the least disturbed by the rest of
 * the machine), then "ratio: X.XX" = plain / improved.
 *
 * The clock is the thread's CPU time: time spent descheduled while other
 * work runs on the machine does not count (cache pollution still does).
 */
#ifndef GHEE_BENCH_H
#define GHEE_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_ROUNDS 11

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift64*: fast, deterministic for a given seed */
static inline uint64_t bench_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline uint64_t bench_rand_below(uint64_t *state, uint64_t n)
{
	return (bench_rand(state) >> 11) % n;
}

static inline void bench_min(double *best, double t)
{
	if (*best == 0 || t < *best)
		*best = t;
}

static inline void bench_die(const char *name, const char *why)
{
	fprintf(stderr, "%s: %s\n", name, why);
	exit(1);
}

/*
 * The result block: what was measured, both timings with the amount of
 * work, and the ratio line that bench/run-all.sh collects.
 */
static inline void bench_report(const char *plain, double plain_s,
				const char *improved, double improved_s,
				double ops, const char *unit)
{
	printf("  %-34s %9.3f ms  %8.1f ns/%s\n", plain, plain_s * 1e3,
	       plain_s * 1e9 / ops, unit);
	printf("  %-34s %9.3f ms  %8.1f ns/%s\n", improved, improved_s * 1e3,
	       improved_s * 1e9 / ops, unit);
	printf("ratio: %.2f\n", plain_s / improved_s);
}

#endif
