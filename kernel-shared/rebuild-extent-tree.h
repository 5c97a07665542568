/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rebuilding the extent tree from the trees (check --init-extent-tree).
 *
 * Every tree reachable from the superblock (root tree, chunk tree) and
 * from the root items (device, filesystem trees with snapshots and reloc
 * trees, csum, quota, uuid, free space, block group, data reloc trees) is
 * walked once, each shared block once, into compact sorted arrays: one
 * record per tree block (56 bytes), per pointer (16 bytes) and per file
 * extent item of a distinct leaf (48 bytes).  From them:
 *
 *  - a tree block whose owner root no longer reaches it (its owner copied
 *    it away while another root still shared it, or the owner is gone) is
 *    FULL_BACKREF, as the kernel makes it;
 *  - a block referenced from a FULL_BACKREF parent gets a shared ref to
 *    that parent, from any other parent a keyed ref to the parent's owner
 *    (from a root item: to that root); data extents likewise get shared
 *    data refs (by leaf) or keyed data refs (owner of the leaf, inode,
 *    file offset minus extent offset) with counts;
 *  - block group `used`, free space, and then (at commit) the block group
 *    items, the free space tree or v1 cache and the superblock's
 *    bytes_used follow from the new tree.
 *
 * The used-space view is built from the walk before anything is
 * allocated; the old extent tree's blocks are pinned (never reused before
 * the commit) and the new tree is written into new blocks of the caller's
 * transaction, so the disk holds the old tree or the new one.  Tree
 * blocks get METADATA_ITEMs with skinny metadata, EXTENT_ITEMs with the
 * tree block info otherwise.  A snapshot whose deletion was interrupted is
 * walked without the subtrees the deletion freed (drop_progress).
 */
#ifndef GHEE_REBUILD_EXTENT_TREE_H
#define GHEE_REBUILD_EXTENT_TREE_H

#include "format.h"

struct btrfs_trans_handle;

struct btrfs_extent_rebuild_stats {
	u64 trees;		/* tree roots walked */
	u64 tree_blocks;	/* distinct tree blocks */
	u64 full_backref;	/* of them FULL_BACKREF */
	u64 tree_refs;
	u64 data_extents;
	u64 data_refs;		/* distinct data refs (each with a count) */
	u64 items;		/* items written to the new tree */
	u64 old_blocks;		/* blocks of the old extent tree pinned */
	u64 bytes_used;		/* sum of the extents found */
	/*
	 * -EUCLEAN before anything changed: the trees point at space no
	 * extent can be (unaligned, outside a block group of its type, or
	 * two extents sharing bytes); the first such pointer, in words
	 */
	char refused[200];
};

/*
 * Replace the extent tree in @trans by one rebuilt from the trees.  Must
 * run before anything else changes in the transaction.  The caller
 * commits (or aborts on error).  Returns 0 or -errno; -EUCLEAN with
 * stats->refused set when a tree points where no extent can be, before
 * anything changed (nothing to abort).
 */
int btrfs_rebuild_extent_tree(struct btrfs_trans_handle *trans,
			      struct btrfs_extent_rebuild_stats *stats);

#endif
