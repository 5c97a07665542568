// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's extent bookkeeping: the block set and the reference tally
 * against simple reference models on random input, the order-independence
 * of the tally sums, and the keyed data ref hash against key offsets a
 * kernel wrote (an extent reflinked 120 times, so its refs spilled out of
 * the extent item into EXTENT_DATA_REF items).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "cmds/check/block-set.h"
#include "cmds/check/extent-tally.h"
#include "cmds/check/extent-refs.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(test_block_set_model)
{
	enum { N = 20000 };
	struct block_set *set = block_set_create();
	uint64_t *vals = malloc(N * sizeof(*vals)), state = 0x1234567, *sorted;
	size_t nr, i, uniq = 0;

	ck_assert_ptr_nonnull(set);
	ck_assert_ptr_nonnull(vals);
	for (i = 0; i < N; i++) {
		/* sector-aligned, many duplicates, and 0 once in a while */
		vals[i] = (test_rand(&state) % 5000) * 4096;
		ck_assert_int_ge(block_set_add(set, vals[i]), 0);
		ck_assert(block_set_has(set, vals[i]));
	}
	qsort(vals, N, sizeof(*vals), cmp_u64);
	for (i = 0; i < N; i++) {
		if (!i || vals[i] != vals[i - 1])
			vals[uniq++] = vals[i];
	}
	ck_assert_uint_eq(block_set_count(set), uniq);
	ck_assert_int_eq(block_set_add(set, vals[0]), 0);
	ck_assert(!block_set_has(set, 4096ULL * 6000));
	sorted = block_set_sorted(set, &nr);
	ck_assert_uint_eq(nr, uniq);
	ck_assert_int_eq(memcmp(sorted, vals, nr * sizeof(*vals)), 0);
	free(sorted);
	free(vals);
	block_set_destroy(set);
}
END_TEST

START_TEST(test_tally_model)
{
	enum { N = 50000, EXTENTS = 3000 };
	struct extent_tally *t = tally_create();
	uint64_t counts[EXTENTS] = { 0 }, state = 99;
	struct tally_entry *e;
	size_t pos = 0, seen = 0, i;

	ck_assert_ptr_nonnull(t);
	tally_reserve(t, 100);	/* too small on purpose: it must grow */
	for (i = 0; i < N; i++) {
		uint64_t k = test_rand(&state) % EXTENTS;

		e = tally_insert(t, (k + 1) * 16384);
		ck_assert_ptr_nonnull(e);
		tally_entry_add(e, tally_ref_ident(BTRFS_TREE_BLOCK_REF_KEY, k, 0, 0, 0), 1);
		counts[k]++;
	}
	for (i = 0; i < EXTENTS; i++) {
		e = tally_lookup(t, (i + 1) * 16384);
		if (!counts[i]) {
			ck_assert_ptr_null(e);
			continue;
		}
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->count, counts[i]);
		ck_assert_uint_eq(e->sum, counts[i] *
				  tally_ref_ident(BTRFS_TREE_BLOCK_REF_KEY, i, 0, 0, 0));
	}
	while ((e = tally_next(t, &pos)))
		seen++;
	ck_assert_uint_eq(seen, tally_count(t));
	tally_destroy(t);
}
END_TEST

/* the same references in another order and grouping give the same sum */
START_TEST(test_tally_order_independent)
{
	struct backref refs[] = {
		{ .type = BTRFS_EXTENT_DATA_REF_KEY, .a = 5, .b = 257, .c = 0, .len = 4096, .count = 2 },
		{ .type = BTRFS_EXTENT_DATA_REF_KEY, .a = 5, .b = 258, .c = 0, .len = 4096, .count = 1 },
		{ .type = BTRFS_SHARED_DATA_REF_KEY, .a = 30408704, .len = 4096, .count = 3 },
	};
	struct tally_entry one = { 0 }, other = { 0 };
	int i, j;

	for (i = 0; i < 3; i++)
		tally_entry_add(&one, backref_ident(&refs[i]), refs[i].count);
	for (i = 2; i >= 0; i--) {
		for (j = 0; j < (int)refs[i].count; j++)
			tally_entry_add(&other, backref_ident(&refs[i]), 1);
	}
	ck_assert_uint_eq(one.count, 6);
	ck_assert_uint_eq(one.count, other.count);
	ck_assert_uint_eq(one.sum, other.sum);
	/* a different inode, length or type changes the sum */
	refs[1].b = 259;
	other.sum = other.count = 0;
	for (i = 0; i < 3; i++)
		tally_entry_add(&other, backref_ident(&refs[i]), refs[i].count);
	ck_assert_uint_ne(one.sum, other.sum);
	ck_assert_uint_ne(tally_ref_ident(BTRFS_EXTENT_DATA_REF_KEY, 5, 257, 0, 4096),
			  tally_ref_ident(BTRFS_EXTENT_DATA_REF_KEY, 5, 257, 0, 8192));
	ck_assert_uint_ne(tally_ref_ident(BTRFS_TREE_BLOCK_REF_KEY, 5, 0, 0, 0),
			  tally_ref_ident(BTRFS_SHARED_BLOCK_REF_KEY, 5, 0, 0, 0));
}
END_TEST

START_TEST(test_data_ref_hash)
{
	ck_assert_uint_eq(extent_data_ref_hash(5, 320, 0), 1007496931369892584ULL);
	ck_assert_uint_eq(extent_data_ref_hash(5, 339, 0), 1007496931448418980ULL);
	ck_assert_uint_eq(extent_data_ref_hash(5, 314, 0), 1007496931468551167ULL);
	ck_assert_uint_eq(extent_data_ref_hash(5, 358, 0), 1007496931479759472ULL);
}
END_TEST

Suite *check_extents_suite(void)
{
	Suite *s = suite_create("check_extents");
	TCase *tc = tcase_create("bookkeeping");

	tcase_add_test(tc, test_block_set_model);
	tcase_add_test(tc, test_tally_model);
	tcase_add_test(tc, test_tally_order_independent);
	tcase_add_test(tc, test_data_ref_hash);
	suite_add_tcase(s, tc);
	return s;
}
