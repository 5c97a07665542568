/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every write the engine makes to a device goes through
 * btrfs_write_physical(), every flush through btrfs_flush_device(): one
 * place to count them, and, when built with --enable-fault-injection
 * (GHEE_FAULT_INJECTION), to fail the Nth of them:
 *
 *   GHEE_FAIL_WRITE_AT=N   the Nth device write returns -EIO (nothing written)
 *   GHEE_FAIL_FLUSH_AT=N   the Nth flush returns -EIO
 *   GHEE_FAIL_ALLOC_AT=N   the Nth tree block allocation returns -ENOSPC
 *                          (btrfs_count_tree_alloc(): the error paths of
 *                          a copy on write in the middle of a transaction)
 *
 * Counting starts when the write state is created (btrfs_enable_writes or
 * btrfs_create_fs), at 1.
 */
#ifndef GHEE_WRITE_IO_H
#define GHEE_WRITE_IO_H

#include "format.h"
#include "disk-io.h"

struct extent_buffer;

int btrfs_write_physical(struct btrfs_fs_info *fs_info, struct btrfs_device *dev,
			 const void *buf, u64 len, u64 physical);
/*
 * FICLONERANGE @len bytes of @src_fd at @src_offset to @physical of @dev:
 * a device write like the others (counted, failed by fault injection:
 * -EIO).  -EOPNOTSUPP when the clone itself does not work here (another
 * filesystem, no reflink support, unaligned): the caller writes instead.
 */
int btrfs_clone_physical(struct btrfs_fs_info *fs_info, struct btrfs_device *dev, int src_fd,
			 u64 src_offset, u64 len, u64 physical);
int btrfs_flush_device(struct btrfs_fs_info *fs_info, struct btrfs_device *dev);
int btrfs_flush_all_devices(struct btrfs_fs_info *fs_info);
/*
 * Start writing back what was written so far, without waiting: a hint
 * for writers of much data, so the device works while they go on and
 * the final flush has less left to wait for.  Orders nothing.
 */
void btrfs_start_writeback(struct btrfs_fs_info *fs_info);

/* write @len bytes at @logical to every copy (RAID5/6: -EOPNOTSUPP) */
int btrfs_write_logical(struct btrfs_fs_info *fs_info, u64 logical,
			const void *buf, u64 len);

/* finalize (WRITTEN flag, checksum) and write a tree block to every copy */
int btrfs_write_tree_block(struct btrfs_fs_info *fs_info, struct extent_buffer *eb);
/* only the finalizing (for a caller that writes several blocks at once) */
void btrfs_finalize_tree_block(struct btrfs_fs_info *fs_info, struct extent_buffer *eb);

/*
 * Write the superblock (fs_info->super_copy, with each device's own
 * dev_item and bytenr, checksummed) to every device: the mirrors first,
 * a flush, then the primary, then a flush.  A filesystem being created
 * (write state `creating`) gets BTRFS_MAGIC_TEMPORARY instead of the magic,
 * and no flush (see btrfs_commit_needs_flush()).
 */
int btrfs_write_all_supers(struct btrfs_fs_info *fs_info);
/* whether a commit waits for the devices (not while creating) */
bool btrfs_commit_needs_flush(const struct btrfs_fs_info *fs_info);

/*
 * With write state defer_supers: write the superblocks the last commit
 * left in fs_info->overlay to every device, like a commit (mirrors, a
 * flush, the primaries, a flush), and stop deferring.  Nothing held: 0.
 */
int btrfs_publish_supers(struct btrfs_fs_info *fs_info);

/* zero every superblock copy of a device (mkfs, before anything else) */
int btrfs_wipe_supers(struct btrfs_fs_info *fs_info, struct btrfs_device *dev);

/* "_BHRf$_M": what a filesystem being created carries until it is done */
#define BTRFS_MAGIC_TEMPORARY 0x4D5F24665248425FULL

/* read the fault-injection variables (no-op without GHEE_FAULT_INJECTION) */
void btrfs_fault_injection_init(struct btrfs_fs_info *fs_info);

/* one more tree block allocation: counted; -ENOSPC when fault injection says so */
int btrfs_count_tree_alloc(struct btrfs_fs_info *fs_info);

#endif
