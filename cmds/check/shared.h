/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one phase of the checker leaves for later phases.  Each phase owns
 * the fields in its section: it fills them, later phases only read them.
 */
#ifndef GHEE_CHECK_SHARED_H
#define GHEE_CHECK_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include "kernel-shared/format.h"

struct extent_tally;	/* phase 3 -> 5: references found by walking trees */
struct block_set;	/* phase 3: tree blocks that could not be read */
struct walk_root;	/* phase 3: the trees walked (tree-walk.h) */
struct problem_queue;	/* phase 3 -> 7: findings held back (check.h) */

/* a block group item, as phase 3 found it */
struct check_block_group {
	u64 start;
	u64 length;
	u64 used;
	u64 flags;
};

struct check_shared {
	/* the last message the engine reported, quoted in findings */
	char last_engine_msg[512];

	/* phase 3 (tree blocks) */
	struct extent_tally *tally;
	struct block_set *bad_blocks;
	u64 *fs_roots;		/* subvolume/snapshot tree ids, ascending */
	size_t nr_fs_roots;
	u64 tree_blocks_seen;
	struct walk_root *roots;	/* every tree walked (log trees too) */
	size_t nr_roots;
	struct block_set *full_backref;	/* blocks whose extent item has FULL_BACKREF */
	struct block_set *damaged_trees;	/* ids of trees with unreadable blocks */
	/* ids of trees with a block holding keys past its range (TREE_KEY_RANGE) */
	struct block_set *key_range_trees;
	struct check_block_group *block_groups;	/* by start, ascending */
	size_t nr_block_groups;
	u64 nr_extent_items;	/* EXTENT_ITEM + METADATA_ITEM items seen */
	bool walk_complete;	/* every tree was walked: the tally is whole */
	/*
	 * filesystem trees phase 3 checked while reading them, ascending:
	 * phase 7 reports their findings instead of reading them again
	 */
	struct fs_tree_checked *fs_checked;
	size_t nr_fs_checked;
	size_t alloc_fs_checked;

	/*
	 * phase 7 (fs trees) -> phase 8 (csums): the data each file extent of
	 * an inode with data checksums reads, in no particular order; phase 8
	 * sorts and frees it
	 */
	struct csum_need *csum_needs;
	size_t nr_csum_needs;
	size_t alloc_csum_needs;
};

struct fs_tree_checked {
	u64 root;
	struct problem_queue *findings;
};

struct csum_need {
	u64 start;
	u64 len;
	u64 root;
	u64 inode;
};

/* record that [start, start+len) of root/inode must have data checksums */
int check_need_csums(struct check_shared *shared, u64 start, u64 len, u64 root,
		     u64 inode);

void check_shared_init(struct check_shared *shared);
void check_shared_release(struct check_shared *shared);

#endif
