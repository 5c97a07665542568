// SPDX-License-Identifier: GPL-2.0
/*
 * Extent-io trees against a byte-granular model: a u8 of bits per byte
 * of a 4 KiB universe.  Random set/clear/test/find steps; after each
 * step the tree's records must be exactly the maximal runs of equal
 * non-zero bits in the model.  The universe sits once at address 0 and
 * once at the very top of the u64 space, and every combination of the
 * benchmark knobs (trim, premerge) must give the same records.  Injected
 * allocation failures must leave a valid tree with a prefix applied.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "extent-io-tree.h"

#define EIT_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

#define UNIVERSE	4096
#define NR_BITS		4		/* bits 0..3 are used */

struct eit_model {
	struct extent_io_tree tree;
	u8 bits[UNIVERSE];
	u64 base;			/* address of model byte 0 */
	uint64_t rand;
	int nr_enomem;			/* injected failures actually hit */
};

static uint64_t rnd(struct eit_model *m)
{
	return test_rand(&m->rand);
}

static unsigned int rnd_below(struct eit_model *m, unsigned int n)
{
	return (unsigned int)((rnd(m) >> 11) % n);
}

static u32 rnd_mask(struct eit_model *m)
{
	/* mostly single bits, like real users; sometimes combinations */
	if (rnd_below(m, 4))
		return 1U << rnd_below(m, NR_BITS);
	return 1 + rnd_below(m, (1U << NR_BITS) - 1);
}

/* a random [*s, *e] in model indexes: mostly short, sometimes wide */
static void rnd_range(struct eit_model *m, unsigned int *s, unsigned int *e)
{
	unsigned int len;

	switch (rnd_below(m, 10)) {
	case 0:
		len = 1 + rnd_below(m, UNIVERSE);
		break;
	case 1:
	case 2:
		len = 1 + rnd_below(m, 256);
		break;
	default:
		len = 1 + rnd_below(m, 24);
	}
	*s = rnd_below(m, UNIVERSE);
	if (*s + len > UNIVERSE)
		len = UNIVERSE - *s;
	*e = *s + len - 1;
}

/* the tree's records must be the model's maximal equal-bit runs */
static void compare_all(struct eit_model *m)
{
	struct extent_state *st = extent_io_tree_first(&m->tree);
	unsigned int i = 0, run;
	u64 nr = 0;

	while (i < UNIVERSE) {
		if (!m->bits[i]) {
			i++;
			continue;
		}
		for (run = i; run + 1 < UNIVERSE && m->bits[run + 1] == m->bits[i]; run++)
			;
		EIT_CHECK(st, "missing record [%u, %u] bits %#x", i, run, m->bits[i]);
		EIT_CHECK(st->start == m->base + i && st->end == m->base + run &&
			  st->bits == m->bits[i],
			  "record [%llu, %llu] bits %#x, expected [%u, %u] bits %#x",
			  (unsigned long long)(st->start - m->base),
			  (unsigned long long)(st->end - m->base), st->bits,
			  i, run, m->bits[i]);
		st = extent_state_next(st);
		nr++;
		i = run + 1;
	}
	EIT_CHECK(!st, "extra record at %llu",
		  (unsigned long long)(st->start - m->base));
	EIT_CHECK(m->tree.nr_states == nr, "nr_states %llu, expected %llu",
		  (unsigned long long)m->tree.nr_states, (unsigned long long)nr);
}

static u8 apply(u8 old, u32 mask, bool set)
{
	return set ? old | mask : old & ~mask;
}

/*
 * After an -ENOMEM, bytes outside [s, e] must be untouched and bytes
 * inside must show the update on a prefix only.  The model then adopts
 * what the tree did.
 */
static void adopt_partial(struct eit_model *m, unsigned int s, unsigned int e,
			  u32 mask, bool set)
{
	u8 got[UNIVERSE];
	struct extent_state *st;
	bool stopped = false;
	unsigned int i;

	memset(got, 0, sizeof(got));
	/* model indexes: the records may end at U64_MAX */
	extent_io_tree_for_each(st, &m->tree)
		for (i = st->start - m->base; i <= st->end - m->base; i++)
			got[i] = st->bits;
	for (i = 0; i < UNIVERSE; i++) {
		u8 want = apply(m->bits[i], mask, set);

		if (i < s || i > e) {
			EIT_CHECK(got[i] == m->bits[i], "byte %u changed outside range", i);
			continue;
		}
		if (want == m->bits[i])
			EIT_CHECK(got[i] == want, "byte %u got bits %#x", i, got[i]);
		else if (got[i] == m->bits[i])
			stopped = true;
		else
			EIT_CHECK(got[i] == want && !stopped,
				  "byte %u updated after the failure point", i);
	}
	memcpy(m->bits, got, sizeof(got));
}

static void step_update(struct eit_model *m, bool set)
{
	unsigned int s, e, i;
	u32 mask = rnd_mask(m);
	bool inject = rnd_below(m, 16) == 0;
	int ret;

	rnd_range(m, &s, &e);
	if (inject)
		m->tree.fail_alloc_in = 1 + rnd_below(m, 3);
	if (set)
		ret = set_extent_bits(&m->tree, m->base + s, m->base + e, mask);
	else
		ret = clear_extent_bits(&m->tree, m->base + s, m->base + e, mask);
	m->tree.fail_alloc_in = 0;
	if (ret == -ENOMEM && inject) {
		m->nr_enomem++;
		adopt_partial(m, s, e, mask, set);
		return;
	}
	EIT_CHECK(ret == 0, "%s [%u, %u] returned %d", set ? "set" : "clear", s, e, ret);
	for (i = s; i <= e; i++)
		m->bits[i] = apply(m->bits[i], mask, set);
}

static bool model_test(const struct eit_model *m, unsigned int s,
		       unsigned int e, u32 mask, bool all)
{
	unsigned int i;

	for (i = s; i <= e; i++) {
		bool has = all ? (m->bits[i] & mask) == mask : (m->bits[i] & mask);

		if (all && !has)
			return false;
		if (!all && has)
			return true;
	}
	return all;
}

static void step_test(struct eit_model *m)
{
	unsigned int s, e;
	u32 mask = rnd_mask(m);
	bool all = rnd_below(m, 2);
	bool got;

	rnd_range(m, &s, &e);
	got = test_range_bit(&m->tree, m->base + s, m->base + e, mask, all);
	EIT_CHECK(got == model_test(m, s, e, mask, all),
		  "test_range_bit [%u, %u] %#x all=%d gave %d", s, e, mask, all, got);
}

static void step_find(struct eit_model *m)
{
	unsigned int start = rnd_below(m, UNIVERSE), i, j;
	u32 mask = rnd_mask(m);
	u64 fs = 0, fe = 0;
	int ret;

	ret = find_first_extent_bit(&m->tree, m->base + start, mask, &fs, &fe);
	for (i = start; i < UNIVERSE && !(m->bits[i] & mask); i++)
		;
	if (i == UNIVERSE) {
		EIT_CHECK(ret == 1, "find from %u mask %#x found %llu", start, mask,
			  (unsigned long long)(fs - m->base));
		return;
	}
	for (j = i; j + 1 < UNIVERSE && (m->bits[j + 1] & mask); j++)
		;
	EIT_CHECK(ret == 0 && fs == m->base + i && fe == m->base + j,
		  "find from %u mask %#x: ret %d [%llu, %llu], expected [%u, %u]",
		  start, mask, ret, (unsigned long long)(fs - m->base),
		  (unsigned long long)(fe - m->base), i, j);
}

/* the first record ending at or after a random position */
static void step_search(struct eit_model *m)
{
	unsigned int pos = rnd_below(m, UNIVERSE), i;
	struct extent_state *st;

	st = extent_io_tree_search(&m->tree, m->base + pos);
	for (i = pos; i < UNIVERSE && !m->bits[i]; i++)
		;
	if (i == UNIVERSE) {
		EIT_CHECK(!st, "search %u found a record past the end", pos);
		return;
	}
	EIT_CHECK(st && st->start <= m->base + i && st->end >= m->base + i,
		  "search %u: wrong record", pos);
}

/*
 * @variant: bit 0 puts the universe at the top of the u64 space, bit 1
 * disables trimming, bit 2 disables merge-before-insert.
 */
static void run_random(uint64_t seed, int variant, int steps)
{
	struct eit_model *m = calloc(1, sizeof(*m));
	int step;

	ck_assert_ptr_nonnull(m);
	extent_io_tree_init(&m->tree);
	m->base = (variant & 1) ? UINT64_MAX - (UNIVERSE - 1) : 0;
	m->tree.trim_disabled = variant & 2;
	m->tree.premerge_disabled = variant & 4;
	m->rand = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (step = 0; step < steps; step++) {
		unsigned int op = rnd_below(m, 100);

		if (op < 40)
			step_update(m, true);
		else if (op < 75)
			step_update(m, false);
		else if (op < 85)
			step_test(m);
		else if (op < 95)
			step_find(m);
		else
			step_search(m);
		compare_all(m);
	}
	ck_assert_int_gt(m->nr_enomem, 0);
	extent_io_tree_release(&m->tree);
	ck_assert(extent_io_tree_empty(&m->tree));
	free(m);
}

START_TEST(test_random_model)
{
	/* 8 variants x 2 seeds */
	run_random(1000 + _i, _i % 8, 4000);
}
END_TEST

static void expect_records(struct extent_io_tree *tree, const u64 *want, int nr)
{
	struct extent_state *st;
	int i = 0;

	extent_io_tree_for_each(st, tree) {
		ck_assert_int_lt(i, nr);
		ck_assert_uint_eq(st->start, want[3 * i]);
		ck_assert_uint_eq(st->end, want[3 * i + 1]);
		ck_assert_uint_eq(st->bits, want[3 * i + 2]);
		i++;
	}
	ck_assert_int_eq(i, nr);
}

START_TEST(test_basic_merge_and_trim)
{
	struct extent_io_tree tree;
	static const u64 after_sets[] = { 0, 29, EXTENT_DIRTY };
	static const u64 after_clear[] = { 0, 4, EXTENT_DIRTY, 26, 29, EXTENT_DIRTY };
	static const u64 after_mixed[] = {
		0, 1, EXTENT_DIRTY,
		2, 3, EXTENT_DIRTY | EXTENT_LOCKED,
		4, 4, EXTENT_DIRTY,
		26, 29, EXTENT_DIRTY,
	};
	u64 s, e;

	extent_io_tree_init(&tree);
	ck_assert_int_eq(set_extent_bits(&tree, 10, 19, EXTENT_DIRTY), 0);
	ck_assert_int_eq(set_extent_bits(&tree, 20, 29, EXTENT_DIRTY), 0);
	ck_assert_int_eq(set_extent_bits(&tree, 0, 9, EXTENT_DIRTY), 0);
	expect_records(&tree, after_sets, 1);
	ck_assert_int_eq(clear_extent_bits(&tree, 5, 25, EXTENT_DIRTY), 0);
	expect_records(&tree, after_clear, 2);
	ck_assert_int_eq(set_extent_bits(&tree, 2, 3, EXTENT_LOCKED), 0);
	expect_records(&tree, after_mixed, 4);
	ck_assert(test_range_bit(&tree, 0, 4, EXTENT_DIRTY, true));
	ck_assert(!test_range_bit(&tree, 0, 5, EXTENT_DIRTY, true));
	ck_assert(test_range_bit(&tree, 5, 26, EXTENT_DIRTY, false));
	ck_assert(!test_range_bit(&tree, 5, 25, EXTENT_DIRTY, false));
	ck_assert_int_eq(find_first_extent_bit(&tree, 1, EXTENT_DIRTY, &s, &e), 0);
	ck_assert_uint_eq(s, 1);
	ck_assert_uint_eq(e, 4);
	ck_assert_int_eq(find_first_extent_bit(&tree, 0, EXTENT_LOCKED, &s, &e), 0);
	ck_assert_uint_eq(s, 2);
	ck_assert_uint_eq(e, 3);
	ck_assert_int_eq(find_first_extent_bit(&tree, 30, EXTENT_DIRTY, &s, &e), 1);
	ck_assert_int_eq(set_extent_bits(&tree, 5, 4, EXTENT_DIRTY), -EINVAL);
	ck_assert_int_eq(clear_extent_bits(&tree, 5, 4, EXTENT_DIRTY), -EINVAL);
	ck_assert_int_eq(clear_extent_bits(&tree, 0, UINT64_MAX, EXTENT_LOCKED |
					   EXTENT_DIRTY), 0);
	ck_assert(extent_io_tree_empty(&tree));
	ck_assert_uint_eq(tree.nr_states, 0);
	extent_io_tree_release(&tree);
}
END_TEST

/* the whole u64 space in one record, then cut at both extremes */
START_TEST(test_full_range)
{
	struct extent_io_tree tree;
	static const u64 full[] = { 0, UINT64_MAX, EXTENT_DIRTY };
	static const u64 cut[] = { 1, UINT64_MAX - 1, EXTENT_DIRTY };
	u64 s, e;

	extent_io_tree_init(&tree);
	ck_assert_int_eq(set_extent_bits(&tree, 0, UINT64_MAX, EXTENT_DIRTY), 0);
	expect_records(&tree, full, 1);
	ck_assert(test_range_bit(&tree, 0, UINT64_MAX, EXTENT_DIRTY, true));
	ck_assert_int_eq(clear_extent_bits(&tree, 0, 0, EXTENT_DIRTY), 0);
	ck_assert_int_eq(clear_extent_bits(&tree, UINT64_MAX, UINT64_MAX,
					   EXTENT_DIRTY), 0);
	expect_records(&tree, cut, 1);
	ck_assert_int_eq(find_first_extent_bit(&tree, 0, EXTENT_DIRTY, &s, &e), 0);
	ck_assert_uint_eq(s, 1);
	ck_assert_uint_eq(e, UINT64_MAX - 1);
	ck_assert_int_eq(set_extent_bits(&tree, 0, UINT64_MAX, EXTENT_DIRTY), 0);
	expect_records(&tree, full, 1);
	extent_io_tree_release(&tree);
}
END_TEST

Suite *extent_io_tree_suite(void)
{
	Suite *s = suite_create("extent_io_tree");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_basic_merge_and_trim);
	tcase_add_test(tc, test_full_range);
	tcase_add_loop_test(tc, test_random_model, 0, 16);
	suite_add_tcase(s, tc);
	return s;
}
