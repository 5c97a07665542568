/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one phase of the checker leaves for later phases.  Each phase owns
 * the fields in its section: it fills them, later phases only read them.
 */
#ifndef GHEE_CHECK_SHARED_H
#define GHEE_CHECK_SHARED_H

#include <stddef.h>
#include "kernel-shared/format.h"

struct extent_tally;	/* phase 3 -> 5: references found by walking trees */
struct block_set;	/* phase 3: tree blocks that could not be read */

struct check_shared {
	/* the last message the engine reported, quoted in findings */
	char last_engine_msg[512];

	/* phase 3 (tree blocks) */
	struct extent_tally *tally;
	struct block_set *bad_blocks;
	u64 *fs_roots;		/* subvolume/snapshot tree ids, ascending */
	size_t nr_fs_roots;
	u64 tree_blocks_seen;
};

void check_shared_init(struct check_shared *shared);
void check_shared_release(struct check_shared *shared);

#endif
