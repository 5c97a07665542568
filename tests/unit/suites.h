/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The list of unit-test suites.  Adding a suite is one line here (and its
 * source file in Makefile.am's tests_unit_unit_tests_SOURCES): X(name)
 * declares `Suite *name_suite(void)`, which test-name.c defines.
 */
#ifndef GHEE_UNIT_SUITES_H
#define GHEE_UNIT_SUITES_H

#include <check.h>
#include <stdint.h>

#define GHEE_UNIT_SUITES(X) \
	X(csum) \
	X(rbtree) \
	X(extent_io_tree) \
	X(free_space) \
	X(ctree) \
	X(ctree_shared) \
	X(ranges) \
	X(array) \
	X(chunk_map) \
	X(eb_cache) \
	X(tree_checker) \
	X(alloc) \
	X(check_extents) \
	X(v1_cache) \
	X(compression) \
	X(v1_decode) \
	X(extent_owners) \
	X(rootdir) \
	X(rootdir_tar) \
	X(dev_overlay) \
	X(name_entry)

#define GHEE_DECLARE_SUITE(name) Suite *name##_suite(void);
GHEE_UNIT_SUITES(GHEE_DECLARE_SUITE)
#undef GHEE_DECLARE_SUITE

/*
 * Check's ck_assert_*() report their location to the runner even when
 * they pass, which dominates tight loops (and much more so under ASan);
 * these call into Check only on failure.
 */
#define REQUIRE(cond) do {						\
	if (!(cond))							\
		ck_abort_msg("assertion '%s' failed", #cond);		\
} while (0)
#define REQUIRE_INT(a, op, b) do {					\
	long long a_ = (long long)(a), b_ = (long long)(b);		\
	if (!(a_ op b_))						\
		ck_abort_msg("assertion '%s %s %s' failed: %lld vs %lld", \
			     #a, #op, #b, a_, b_);			\
} while (0)
#define REQUIRE_UINT(a, op, b) do {					\
	unsigned long long a_ = (unsigned long long)(a);		\
	unsigned long long b_ = (unsigned long long)(b);		\
	if (!(a_ op b_))						\
		ck_abort_msg("assertion '%s %s %s' failed: %llu vs %llu", \
			     #a, #op, #b, a_, b_);			\
} while (0)

/* xorshift64: cheap deterministic randomness, so a failing seed reproduces */
static inline uint64_t test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif
