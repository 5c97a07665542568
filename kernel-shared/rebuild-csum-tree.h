/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rebuilding the csum tree from the data (check --init-csum-tree).
 *
 * Which data has checksums comes from the file extent items of every
 * filesystem tree (subvolumes, snapshots, the data reloc tree, reloc
 * trees): regular extents of inodes without NODATASUM; preallocated and
 * inline extents and holes have none.  An uncompressed extent is summed
 * over the part its items use, a compressed one over its whole on-disk
 * (compressed) bytes, as the kernel does.  The data is read once, on
 * several threads; where the old tree has a checksum for a sector and the
 * first copy disagrees with it, the other copies are tried and a copy that
 * matches keeps the old checksum (the first copy is the damaged one).
 *
 * The new tree is written through the copy-on-write engine into new
 * blocks in the caller's transaction; the old tree's blocks are freed in
 * the same transaction (pinned until the commit), so the disk holds the
 * old tree or the new one, never a mix.
 */
#ifndef GHEE_REBUILD_CSUM_TREE_H
#define GHEE_REBUILD_CSUM_TREE_H

#include "format.h"

struct btrfs_trans_handle;

struct btrfs_csum_rebuild_stats {
	u64 fs_trees;		/* trees whose file extents were read */
	u64 ranges;		/* contiguous data ranges summed */
	u64 sectors;		/* sectors with a checksum in the new tree */
	u64 same;		/* the old checksum matched the data */
	u64 added;		/* no old checksum: computed */
	u64 changed;		/* old checksum wrong on every copy: recomputed */
	u64 kept_old;		/* first copy damaged, another matched the old sum */
	u64 unreadable;		/* no copy readable: the old sum kept, or none */
	u64 items;		/* csum items written */
	u64 old_blocks;		/* blocks of the old tree freed */
	u64 old_lost;		/* blocks of the old tree that could not be read */
};

/*
 * Replace the csum tree in @trans by one computed from the data, using
 * @nr_threads readers (0: one per CPU).  The caller commits (or aborts on
 * error).  Returns 0 or -errno.
 */
int btrfs_rebuild_csum_tree(struct btrfs_trans_handle *trans, int nr_threads,
			    struct btrfs_csum_rebuild_stats *stats);

#endif
