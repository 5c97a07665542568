/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a tree block hangs in a tree, found by its address from the root
 * (repair-place.c): the repairs of blocks whose keys are wrong cannot find
 * them by a search, which follows those keys.
 */
#ifndef GHEE_CHECK_REPAIR_PLACE_H
#define GHEE_CHECK_REPAIR_PLACE_H

#include <stdbool.h>
#include "kernel-shared/ctree.h"

struct btrfs_trans_handle;

/* the slot followed at each level above the block */
struct block_place {
	int level;			/* the block's */
	int slots[BTRFS_MAX_LEVEL];	/* slots[l]: in the node of level l */
	bool has_hi;			/* keys must stay below @hi */
	struct btrfs_key hi;
	u64 hi_from;			/* the node @hi is a key of */
};

/*
 * The place of @bytenr under @root's root node, whose blocks are read down
 * to the parents of leaves (no leaf is read, nor the block itself): 0
 * found, 1 not there (or the root itself), <0 a node on the way cannot be
 * read and the block was not found elsewhere.
 */
int repair_find_place(struct btrfs_root *root, u64 bytenr, struct block_place *pl);

/*
 * A path down to the block at @pl (path->nodes[pl->level] and the slots
 * above it); with @trans every block from the root down is copied on
 * write, without it the path is read only.  The block at pl->level is
 * read with its parent's expectations: for a block that fails them, a
 * place one level up is the path to its parent.
 */
int repair_path_to_place(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 const struct block_place *pl, struct btrfs_path *path);

#endif
