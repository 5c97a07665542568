// SPDX-License-Identifier: GPL-2.0
/*
 * Range lists against a bitmap model: one bool per byte of a small
 * universe.  Ranges are added in ascending order (the fast path), in
 * random order, or mixed; after every step covers() and total() must
 * agree with the model, and after normalize the list must be exactly the
 * maximal runs of set bytes (sorted, disjoint, not even touching).
 * subtract() is compared with a & ~b.  The universe sits once at address
 * 0 and once at the very top of the u64 space, where end == 2^64 - 1.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "ranges.h"

#define RL_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)


#define UNIVERSE	1024

struct rl_model {
	struct range_list l;
	bool set[UNIVERSE];
	uint64_t base;		/* address of model byte 0 */
	uint64_t rand;
};

static unsigned int rnd_below(uint64_t *state, unsigned int n)
{
	return (unsigned int)((test_rand(state) >> 11) % n);
}

/* a random [*s, *s + *len) inside the universe, mostly short */
static void rnd_span(uint64_t *state, unsigned int *s, unsigned int *len)
{
	unsigned int l;

	switch (rnd_below(state, 8)) {
	case 0:
		l = 1 + rnd_below(state, UNIVERSE);
		break;
	case 1:
		l = 1 + rnd_below(state, 128);
		break;
	default:
		l = 1 + rnd_below(state, 16);
	}
	*s = rnd_below(state, UNIVERSE);
	if (*s + l > UNIVERSE)
		l = UNIVERSE - *s;
	*len = l;
}

static void model_add(struct rl_model *m, unsigned int s, unsigned int len)
{
	unsigned int i;

	range_list_add(&m->l, m->base + s, len);
	for (i = s; i < s + len; i++)
		m->set[i] = true;
}

/* after normalize the list must be the maximal runs of @set, in order */
static void check_runs(const struct range_list *l, const bool *set,
		       uint64_t base, const char *what)
{
	size_t idx = 0;
	unsigned int i = 0;

	RL_CHECK(!l->oom, "%s: out of memory flag set", what);
	RL_CHECK(!l->unsorted, "%s: still unsorted after normalize", what);
	while (i < UNIVERSE) {
		unsigned int start;

		if (!set[i]) {
			i++;
			continue;
		}
		start = i;
		while (i < UNIVERSE && set[i])
			i++;
		RL_CHECK(idx < l->nr,
			      "%s: run [%u, %u) missing, list has %zu ranges",
			      what, start, i, l->nr);
		RL_CHECK(l->r[idx].start == base + start &&
			      l->r[idx].end == base + i,
			      "%s: range %zu is [%llu, %llu), model run [%u, %u)",
			      what, idx,
			      (unsigned long long)(l->r[idx].start - base),
			      (unsigned long long)(l->r[idx].end - base), start, i);
		idx++;
	}
	RL_CHECK(idx == l->nr, "%s: list has %zu ranges, model %zu runs",
		      what, l->nr, idx);
}

static uint64_t model_total(const bool *set)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < UNIVERSE; i++)
		n += set[i];
	return n;
}

static bool model_covers(const bool *set, unsigned int s, unsigned int len)
{
	unsigned int i;

	for (i = s; i < s + len; i++) {
		if (!set[i])
			return false;
	}
	return true;
}

static void check_queries(struct rl_model *m, int nr_probes)
{
	int k;

	REQUIRE_UINT(range_list_total(&m->l), ==, model_total(m->set));
	for (k = 0; k < nr_probes; k++) {
		unsigned int s, len;

		rnd_span(&m->rand, &s, &len);
		RL_CHECK(range_list_covers(&m->l, m->base + s, len) ==
			      model_covers(m->set, s, len),
			      "covers(%u, %u): list %d model %d", s, len,
			      !model_covers(m->set, s, len),
			      model_covers(m->set, s, len));
	}
}

/* add one span: ascending after the last one, or anywhere */
static void random_add(struct rl_model *m, unsigned int *cursor, int order)
{
	unsigned int s, len;

	rnd_span(&m->rand, &s, &len);
	if (order == 0 || (order == 2 && rnd_below(&m->rand, 4))) {
		/* ascending: start at or after the previous start */
		s = *cursor + rnd_below(&m->rand, 24);
		if (s >= UNIVERSE)
			return;
		if (s + len > UNIVERSE)
			len = UNIVERSE - s;
		*cursor = s;
	}
	model_add(m, s, len);
}

static void run_model(uint64_t seed, uint64_t base, int order)
{
	struct rl_model *m = calloc(1, sizeof(*m));
	unsigned int cursor = 0;
	int round, step;

	REQUIRE((m) != NULL);
	m->rand = seed * 0x9E3779B97F4A7C15ULL + 1;
	m->base = base;
	for (round = 0; round < 20; round++) {
		range_list_init(&m->l);
		memset(m->set, 0, sizeof(m->set));
		cursor = 0;
		for (step = 0; step < 80; step++) {
			random_add(m, &cursor, order);
			if (step % 8 == 0)
				check_queries(m, 8);
		}
		check_queries(m, 32);
		range_list_normalize(&m->l);
		check_runs(&m->l, m->set, m->base, "after adds");
		/* adding after a normalize keeps working */
		for (step = 0; step < 10; step++)
			random_add(m, &cursor, 1);
		range_list_normalize(&m->l);
		check_runs(&m->l, m->set, m->base, "after more adds");
		range_list_release(&m->l);
	}
	free(m);
}

START_TEST(test_ascending)
{
	run_model(_i + 1, 0, 0);
	run_model(_i + 101, UINT64_MAX - UNIVERSE, 0);
}
END_TEST

START_TEST(test_random_order)
{
	run_model(_i + 11, 0, 1);
	run_model(_i + 111, UINT64_MAX - UNIVERSE, 1);
	run_model(_i + 211, 1ULL << 40, 1);
}
END_TEST

START_TEST(test_mixed_order)
{
	run_model(_i + 21, 0, 2);
	run_model(_i + 121, UINT64_MAX - UNIVERSE, 2);
}
END_TEST

/* fill @l and @set with random spans in random order */
static void fill_random(struct range_list *l, bool *set, uint64_t base,
		        uint64_t *state, int nr)
{
	int k;

	range_list_init(l);
	memset(set, 0, UNIVERSE * sizeof(*set));
	for (k = 0; k < nr; k++) {
		unsigned int s, len, i;

		rnd_span(state, &s, &len);
		range_list_add(l, base + s, len);
		for (i = s; i < s + len; i++)
			set[i] = true;
	}
}

static void run_subtract(uint64_t seed, uint64_t base)
{
	static bool sa[UNIVERSE], sb[UNIVERSE], sd[UNIVERSE];
	uint64_t state = seed * 0xD1B54A32D192ED03ULL + 7;
	int round;

	for (round = 0; round < 200; round++) {
		struct range_list a, b, out;
		unsigned int i;

		fill_random(&a, sa, base, &state, rnd_below(&state, 40));
		fill_random(&b, sb, base, &state, rnd_below(&state, 40));
		range_list_init(&out);
		range_list_subtract(&a, &b, &out);
		for (i = 0; i < UNIVERSE; i++)
			sd[i] = sa[i] && !sb[i];
		range_list_normalize(&out);
		check_runs(&out, sd, base, "a - b");
		REQUIRE_UINT(range_list_total(&out), ==, model_total(sd));
		/* the operands are only normalized, not changed */
		check_runs(&a, sa, base, "a after subtract");
		check_runs(&b, sb, base, "b after subtract");
		range_list_release(&out);
		/* a - a is empty; a - empty is a */
		range_list_init(&out);
		range_list_subtract(&a, &a, &out);
		REQUIRE_UINT(out.nr, ==, 0);
		range_list_release(&out);
		range_list_release(&b);
		range_list_init(&b);
		range_list_init(&out);
		range_list_subtract(&a, &b, &out);
		check_runs(&out, sa, base, "a - empty");
		range_list_release(&out);
		range_list_release(&a);
		range_list_release(&b);
	}
}

START_TEST(test_subtract)
{
	run_subtract(_i + 1, 0);
	run_subtract(_i + 51, UINT64_MAX - UNIVERSE);
}
END_TEST

/* overlap (shared bytes, not mere touching) and the raw byte count, in either order */
START_TEST(test_overlap_and_added)
{
	struct range_list l;

	range_list_init(&l);
	range_list_add(&l, 0, 10);
	range_list_add(&l, 10, 5);	/* touches */
	range_list_add(&l, 40, 10);
	range_list_add(&l, 20, 10);	/* out of order, no overlap */
	range_list_normalize(&l);
	REQUIRE(!l.overlap);
	REQUIRE_UINT(l.added, ==, 35);
	REQUIRE_UINT(range_list_total(&l), ==, 35);
	range_list_add(&l, 45, 10);	/* shares 45..50 with the last */
	REQUIRE(l.overlap);
	range_list_release(&l);

	range_list_init(&l);
	range_list_add(&l, 100, 50);
	range_list_add(&l, 10, 5);
	range_list_add(&l, 120, 1);	/* inside the first, found on normalize */
	range_list_normalize(&l);
	REQUIRE(l.overlap);
	REQUIRE_UINT(l.added, ==, 56);
	REQUIRE_UINT(range_list_total(&l), ==, 55);
	range_list_release(&l);
}
END_TEST

START_TEST(test_edges)
{
	struct range_list l;

	range_list_init(&l);
	/* empty list */
	REQUIRE(!range_list_covers(&l, 0, 1));
	REQUIRE_UINT(range_list_total(&l), ==, 0);
	/* zero length and wrapping ranges are ignored */
	range_list_add(&l, 100, 0);
	range_list_add(&l, UINT64_MAX - 10, 12);
	REQUIRE_UINT(l.nr, ==, 0);
	/* the highest representable range ends at 2^64 - 1 */
	range_list_add(&l, UINT64_MAX - 10, 10);
	REQUIRE(range_list_covers(&l, UINT64_MAX - 10, 10));
	REQUIRE(!range_list_covers(&l, UINT64_MAX - 11, 2));
	REQUIRE_UINT(range_list_total(&l), ==, 10);
	/* touching ranges merge, in either order */
	range_list_add(&l, 10, 10);
	range_list_add(&l, 0, 10);
	range_list_add(&l, 20, 5);
	REQUIRE(range_list_covers(&l, 0, 25));
	REQUIRE(!range_list_covers(&l, 0, 26));
	REQUIRE_UINT(l.nr, ==, 2);
	REQUIRE_UINT(range_list_total(&l), ==, 35);
	range_list_release(&l);

	/* many ranges: the array grows past its first allocation */
	range_list_init(&l);
	for (uint64_t i = 0; i < 5000; i++)
		range_list_add(&l, (4999 - i) * 3, 2);
	REQUIRE_UINT(range_list_total(&l), ==, 10000);
	REQUIRE_UINT(l.nr, ==, 5000);
	REQUIRE(range_list_covers(&l, 3 * 1234, 2));
	REQUIRE(!range_list_covers(&l, 3 * 1234 + 1, 2));
	range_list_release(&l);
}
END_TEST

Suite *ranges_suite(void)
{
	Suite *s = suite_create("ranges");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_overlap_and_added);
	tcase_add_loop_test(tc, test_ascending, 0, 4);
	tcase_add_loop_test(tc, test_random_order, 0, 4);
	tcase_add_loop_test(tc, test_mixed_order, 0, 4);
	tcase_add_loop_test(tc, test_subtract, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
