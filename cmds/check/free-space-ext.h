/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free space of block groups as the extent tree implies it: the
 * block group's range minus its extents (tree blocks count nodesize).
 * One path over the extent tree serves every block group in ascending
 * order, handing out maximal free runs one at a time, so nothing is
 * built in memory.
 */
#ifndef GHEE_CHECK_FREE_SPACE_EXT_H
#define GHEE_CHECK_FREE_SPACE_EXT_H

#include <stdbool.h>
#include "kernel-shared/ctree.h"

struct check_block_group;

#define FSE_MAX_EXCLUDED 16

struct free_space_ext {
	struct btrfs_fs_info *fs_info;
	struct btrfs_path path;
	bool started;
	bool tree_done;		/* no extent items left */
	bool have_ext;		/* [ext_start, ext_end) is the next extent */
	u64 ext_start;
	u64 ext_end;
	/* the block group being walked */
	u64 bg_start;
	u64 bg_end;
	u64 cursor;		/* everything below is handed out */
	/* ranges that are never free (superblock copies), sorted */
	u64 excl[FSE_MAX_EXCLUDED][2];
	int nr_excl;
	int excl_idx;
};

void free_space_ext_init(struct free_space_ext *it, struct btrfs_fs_info *fs_info);
void free_space_ext_release(struct free_space_ext *it);

/*
 * Start on block group @bg (block groups must come in ascending order).
 * With @exclude_super, the ranges holding superblock copies are not free
 * (the in-memory free space, and so the v1 cache, leaves them out; the
 * free space tree keeps them).
 */
void free_space_ext_begin(struct free_space_ext *it,
			  const struct check_block_group *bg, bool exclude_super);

/* the next maximal free run of the block group; false when there is none */
bool free_space_ext_next(struct free_space_ext *it, u64 *start, u64 *end);

#endif
