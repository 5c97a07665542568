/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block groups in memory: one per chunk, with its `used` counter, its
 * in-memory free space and the flags telling commit
 * what to write (the block group item, the free space tree entries).
 * Block group items live in the extent tree, or in the block group tree
 * when that feature is on.
 */
#ifndef GHEE_BLOCK_GROUP_H
#define GHEE_BLOCK_GROUP_H

#include <stdbool.h>
#include "format.h"
#include "disk-io.h"

struct btrfs_trans_handle;
struct btrfs_bg_free;

struct btrfs_block_group {
	u64 start;
	u64 length;
	u64 flags;		/* type and profile bits */
	u64 used;		/* bytes covered by extents, pending ones included */
	u64 pinned;		/* freed committed bytes waiting for the commit */
	u64 super_bytes;	/* bytes excluded for superblock copies */
	bool item_exists;	/* the block group item is on disk or inserted */
	bool item_dirty;	/* `used` or flags differ from the item */
	bool fst_dirty;		/* free space tree entries must be rewritten */
	bool v1_dirty;		/* v1 space cache must be rewritten */
	bool readonly;		/* never allocate from it */
	struct btrfs_bg_free *free;	/* allocatable space (block-group.c) */
};

/* load every block group item and compute its free space (extent tree scan) */
int btrfs_read_block_groups(struct btrfs_fs_info *fs_info);
void btrfs_free_block_groups(struct btrfs_fs_info *fs_info);

/* the block group containing @bytenr, NULL if none */
struct btrfs_block_group *btrfs_lookup_block_group(struct btrfs_fs_info *fs_info,
						   u64 bytenr);
/* iteration in address order: btrfs_block_group_nr(fs_info, i) for i < count */
size_t btrfs_nr_block_groups(const struct btrfs_fs_info *fs_info);
struct btrfs_block_group *btrfs_block_group_nr(struct btrfs_fs_info *fs_info,
					       size_t i);

/*
 * Create the in-memory block group of a new chunk; its item is inserted
 * at commit.  The superblock copies inside it are excluded from its
 * free space.
 */
int btrfs_make_block_group(struct btrfs_fs_info *fs_info, u64 flags,
			   u64 start, u64 length);

/* write the items of every block group whose item is dirty or new */
int btrfs_write_dirty_block_groups(struct btrfs_trans_handle *trans);
bool btrfs_block_groups_dirty(const struct btrfs_fs_info *fs_info);

/* accounting, called by the extent allocator */
void btrfs_block_group_add_used(struct btrfs_fs_info *fs_info,
				struct btrfs_block_group *bg, u64 bytes);
void btrfs_block_group_sub_used(struct btrfs_fs_info *fs_info,
				struct btrfs_block_group *bg, u64 bytes);

/*
 * Find @num_bytes of free space in a block group of @type (a
 * BTRFS_BLOCK_GROUP_* type bit) and take it out of the free space.
 * Returns -ENOSPC when no block group of that type has room.
 */
int btrfs_find_free_extent(struct btrfs_fs_info *fs_info, u64 type,
			   u64 num_bytes, u64 align, u64 *start_ret);

/* give [start, start+len) back to the free space of its block group */
int btrfs_add_free_range(struct btrfs_fs_info *fs_info, u64 start, u64 len);

/*
 * Logical ranges of @bg that hold superblock copies (never allocated);
 * returns how many (at most @max) were stored in @starts/@lens.
 */
int btrfs_super_stripe_ranges(struct btrfs_fs_info *fs_info,
			      const struct btrfs_block_group *bg,
			      u64 *starts, u64 *lens, int max);

/* free bytes of a block group's in-memory free space */
u64 btrfs_block_group_free_bytes(const struct btrfs_block_group *bg);
/*
 * Walk the allocatable free ranges of @bg in address order: @pos starts
 * at 0; returns 0 with the next range, 1 at the end.
 */
int btrfs_block_group_next_free(const struct btrfs_block_group *bg, u64 *pos,
				u64 *start, u64 *len);

/* sum of `used` over all block groups: the superblock's bytes_used */
u64 btrfs_total_used_bytes(const struct btrfs_fs_info *fs_info);

/*
 * Repair: set every group's `used` to the sum of the extents the extent
 * tree holds inside it (items rewritten at commit).  -EBUSY while delayed
 * refs are queued (btrfs_run_delayed_refs first).
 */
int btrfs_recalc_block_group_used(struct btrfs_fs_info *fs_info, int *nr_changed);
/* repair: rewrite every group's free space tree entries and item at commit */
void btrfs_mark_free_space_tree_dirty(struct btrfs_fs_info *fs_info);

/*
 * Rebuilding the extent tree: every group's free space becomes its whole
 * range minus the superblock copies, `used` and pinned 0, everything of it
 * rewritten at commit; then each extent found is taken out of the free
 * space (and counted in `used` when @used) -- -EEXIST when some of it is
 * taken already, -EUCLEAN outside every group.
 */
int btrfs_block_groups_reset_for_rebuild(struct btrfs_fs_info *fs_info);
int btrfs_block_group_take_range(struct btrfs_fs_info *fs_info, u64 start, u64 len,
				 bool used);

/* the tree that holds block group items */
struct btrfs_root *btrfs_block_group_root(struct btrfs_fs_info *fs_info);

#endif
