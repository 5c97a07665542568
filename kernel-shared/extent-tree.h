/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extent allocation and back references.
 *
 * Allocation takes space from a block group's in-memory free space at
 * once (block group `used`, superblock bytes_used and the free space are
 * updated immediately); the extent items and back references are queued
 * as delayed refs and applied to the extent tree by
 * btrfs_run_delayed_refs() (commit runs it until nothing is left).
 *
 * Tree blocks get a METADATA_ITEM (skinny metadata) or an EXTENT_ITEM
 * with tree block info, each with an inline TREE_BLOCK_REF to the owning
 * root.  Data extents get an EXTENT_ITEM with inline EXTENT_DATA_REFs;
 * references that do not fit inline become keyed EXTENT_DATA_REF items.
 *
 * Freeing: a tree block created in the running transaction goes back to
 * free space at once; anything older is pinned (kept out of allocation)
 * until the transaction commits, so the previous on-disk state stays
 * intact.  Pinned ranges are merged with their neighbours as they are
 * recorded.
 */
#ifndef GHEE_EXTENT_TREE_H
#define GHEE_EXTENT_TREE_H

#include "format.h"
#include "disk-io.h"

struct btrfs_trans_handle;
struct extent_buffer;

/*
 * A new tree block for @root at @level: allocated, zeroed, header filled
 * (bytenr, fsid, chunk tree uuid, generation, owner, level, mixed backref
 * revision), dirty, with its extent item queued.  @first_key (may be
 * NULL) goes into the tree block info of non-skinny extent items.
 * Returns a referenced buffer, or NULL with *err set (-ENOSPC when no
 * chunk can be allocated either).
 */
struct extent_buffer *btrfs_alloc_tree_block(struct btrfs_trans_handle *trans,
					     struct btrfs_root *root, int level,
					     const struct btrfs_key *first_key,
					     int *err);

/* drop @root's reference to tree block @eb (which the caller unlinked) */
int btrfs_free_tree_block(struct btrfs_trans_handle *trans,
			  struct btrfs_root *root, struct extent_buffer *eb);

/*
 * Reserve @num_bytes (sectorsize aligned) of data space and queue its
 * extent item with one EXTENT_DATA_REF (@root, @ino, @file_offset).
 * The caller writes the data (write-io.h: btrfs_write_logical) and the
 * file extent item.  With mixed block groups, data comes from them.
 */
int btrfs_alloc_data_extent(struct btrfs_trans_handle *trans, u64 num_bytes,
			    u64 root, u64 ino, u64 file_offset, u64 *bytenr_ret);

/* add/drop a data reference; the extent is freed when none is left */
int btrfs_inc_data_ref(struct btrfs_trans_handle *trans, u64 bytenr,
		       u64 num_bytes, u64 root, u64 ino, u64 file_offset);
int btrfs_dec_data_ref(struct btrfs_trans_handle *trans, u64 bytenr,
		       u64 num_bytes, u64 root, u64 ino, u64 file_offset);

/*
 * Shared back references (snapshots).  A tree block is referenced by a
 * root (@parent 0: keyed TREE_BLOCK_REF of @root) or by the block @parent
 * (SHARED_BLOCK_REF); @delta is +1 or -1.  Dropping a tree block ref
 * never frees space: the caller frees the block when it drops the last
 * one (btrfs_free_tree_block).  Data refs by parent leaf are counted
 * SHARED_DATA_REFs.
 */
int btrfs_mod_tree_ref(struct btrfs_trans_handle *trans, u64 bytenr, int level,
		       u64 root, u64 parent, int delta);
int btrfs_mod_shared_data_ref(struct btrfs_trans_handle *trans, u64 bytenr,
			      u64 num_bytes, u64 parent, int delta);
/* or @flags (BTRFS_BLOCK_FLAG_FULL_BACKREF) into the block's extent item */
int btrfs_set_tree_block_flags(struct btrfs_trans_handle *trans, u64 bytenr,
			       int level, u64 flags);
/* like btrfs_lookup_extent_info(), with the queued changes applied */
int btrfs_lookup_tree_block_refs(struct btrfs_fs_info *fs_info, u64 bytenr,
				 u64 *refs, u64 *flags);

/* apply every queued extent tree change; may queue (and then run) more */
int btrfs_run_delayed_refs(struct btrfs_trans_handle *trans);
bool btrfs_have_delayed_refs(const struct btrfs_fs_info *fs_info);

/*
 * Reference count and flags of the extent at @bytenr from the extent
 * tree (pending delayed refs not included).  -ENOENT when absent.
 */
int btrfs_lookup_extent_info(struct btrfs_fs_info *fs_info, u64 bytenr,
			     u64 *refs, u64 *flags);

/*
 * Space management for the commit: ranges freed from committed extents
 * become allocatable again once the superblocks are on disk.
 */
void btrfs_unpin_extents(struct btrfs_fs_info *fs_info);

/*
 * Keep [@start, +@len), which the filesystem being written does not use,
 * out of allocation until the write state is closed (blocks an old state
 * still needs): 0 kept, 1 nothing to keep (in use, or outside every block
 * group), -errno.
 */
int btrfs_pin_unused_range(struct btrfs_fs_info *fs_info, u64 start, u64 len);

/* key offset / inline order of an EXTENT_DATA_REF for (root, inode, offset) */
u64 btrfs_extent_data_ref_hash(u64 root, u64 owner, u64 offset);

/* drop every queued ref (abort, teardown) */
void btrfs_destroy_delayed_refs(struct btrfs_fs_info *fs_info);

/* the extent tree's root: the one that holds extent items */
struct btrfs_root *btrfs_extent_root(struct btrfs_fs_info *fs_info);

#endif
