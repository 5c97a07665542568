/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Phase 6 internals:
 *   phase-free-space.c  the driver and the free space tree
 *   free-space-v1.c     the v1 free space cache (inodes in the root tree)
 *   free-space-ext.c    the free space the extent tree implies
 */
#ifndef GHEE_CHECK_PHASE_FREE_SPACE_H
#define GHEE_CHECK_PHASE_FREE_SPACE_H

#include "check.h"

/* v1 cache: inode modes always, contents when the cache is current */
int check_free_space_cache_v1(struct check_ctx *ctx, bool compare_contents);

/*
 * Compare two ascending sequences of maximal free runs one step at a
 * time: @a from the extent tree, @b from a free space store.  Says which
 * sequences to advance next; the first difference is described in
 * c->detail (and c->differs set).
 */
struct free_run_cmp {
	const char *store;	/* "free space tree", "free space cache" */
	bool differs;
	char detail[200];
};

void free_run_cmp_step(struct free_run_cmp *c, bool have_a, u64 as, u64 ae,
		       bool have_b, u64 bs, u64 be, bool *adv_a, bool *adv_b);

#endif
