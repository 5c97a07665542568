/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The list of unit-test suites.  Adding a suite is one line here (and its
 * source file in Makefile.am's tests_unit_unit_tests_SOURCES): X(name)
 * declares `Suite *name_suite(void)`, which test-name.c defines.
 */
#ifndef GHEE_UNIT_SUITES_H
#define GHEE_UNIT_SUITES_H

#include <check.h>

#define GHEE_UNIT_SUITES(X) \
	X(csum) \
	X(rbtree) \
	X(extent_io_tree) \
	X(free_space) \
	X(ctree) \
	X(ranges) \
	X(chunk_map) \
	X(eb_cache) \
	X(tree_checker) \
	X(alloc) \
	X(check_extents)

#define GHEE_DECLARE_SUITE(name) Suite *name##_suite(void);
GHEE_UNIT_SUITES(GHEE_DECLARE_SUITE)
#undef GHEE_DECLARE_SUITE

#endif
