/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transactions: the unit in which the engine changes a filesystem.
 *
 * Every tree block touched in a transaction is copied on write into a new
 * block of the transaction's generation; the new blocks are held in
 * memory (the transaction owns one reference on each, and their ranges
 * are recorded in an extent-io tree) until commit.  Commit then
 *
 *   1. settles the metadata: pending chunks, extent items and back
 *      references, block group items, the free space tree, device items
 *      and root items, repeated until a pass changes nothing; with the
 *      free space tree off, writes the v1 space caches and settles again;
 *   2. writes every dirty block to every copy;
 *   3. flushes every device;
 *   4. writes the superblock mirrors (copies 1 and 2) of every device,
 *      flushes, then writes the primary copy (64 KiB) of every device and
 *      flushes again.
 *
 * Blocks of the previous commit are never overwritten before step 4
 * completes (freed ranges stay pinned until then), so an interruption at
 * any point leaves the previous state readable through the primary
 * superblock.  The primary is written last because it is the copy the
 * kernel and btrfs-progs read: it is the commit point.  A filesystem
 * being created carries a temporary magic in every superblock until
 * btrfs_create_fs_finish() (fs-create.h), so an interrupted mkfs leaves
 * no valid filesystem at all.
 *
 * Every device write and flush goes through write-io.h, where fault
 * injection (GHEE_FAIL_WRITE_AT / GHEE_FAIL_FLUSH_AT, built with
 * --enable-fault-injection) can fail the Nth one; GHEE_FAIL_ALLOC_AT
 * fails the Nth tree block allocation the same way (-ENOSPC).
 */
#ifndef GHEE_TRANSACTION_H
#define GHEE_TRANSACTION_H

#include <stdbool.h>
#include "format.h"
#include "disk-io.h"
#include "extent-io-tree.h"
#include "rbtree.h"
#include "list.h"

struct btrfs_block_group;
struct btrfs_delayed_ref;

/* a device's allocated physical ranges, sorted, used by chunk allocation */
struct btrfs_dev_alloc {
	u64 devid;
	u64 *starts;
	u64 *lens;
	size_t nr;
	size_t alloc;
};

/*
 * A writer's veto on the keys items get: @check is asked about each key
 * before an item with it is inserted or an item's key is changed to it
 * (btrfs_key_guard_check()); non-zero refuses the change with that error
 * before anything of it is done.  The repair keeps items out of the key
 * ranges of blocks it cannot read, whose items no search sees.
 */
struct btrfs_key_guard {
	int (*check)(void *data, struct btrfs_root *root, const struct btrfs_key *key);
	void *data;
};

/*
 * Everything the write side keeps per filesystem; fs_info->write points
 * here once btrfs_enable_writes() or btrfs_create_fs() ran.
 */
struct btrfs_write_state {
	struct btrfs_fs_info *fs_info;
	struct btrfs_trans_handle *running;	/* NULL between transactions */
	u64 last_committed;			/* generation on disk */
	int error;				/* sticky: set by an abort */

	/* tree blocks waiting to be written (EXTENT_DIRTY over their range) */
	struct extent_io_tree dirty;
	u64 dirty_bytes;			/* their total size */
	/* freed ranges of committed extents, reusable after the next commit */
	struct extent_io_tree pinned;

	/* block groups sorted by start */
	struct btrfs_block_group **bgs;
	size_t nr_bgs;
	size_t alloc_bgs;
	u64 alloc_hint[3];			/* per type: data, system, metadata */
	u64 alloc_profile[3];			/* profile of new chunks, same index */

	/* per device allocations (chunk-alloc.c), same index as fs_info->devices */
	struct btrfs_dev_alloc dev_allocs[GHEE_MAX_DEVICES];
	/* each device's item: for the chunk tree and its superblock copy */
	struct btrfs_dev_item dev_items[GHEE_MAX_DEVICES];
	bool dev_item_valid[GHEE_MAX_DEVICES];
	bool dev_item_dirty[GHEE_MAX_DEVICES];

	/* extent tree updates not yet applied (extent-tree.c) */
	struct rb_root delayed_refs;
	u64 delayed_seq;
	u64 nr_delayed;

	/* chunks allocated in memory whose items are not inserted yet */
	struct list_head pending_chunks;

	/* every root commit keeps a ROOT_ITEM (or superblock field) for */
	struct btrfs_tracked_root *roots;
	size_t nr_roots;
	size_t alloc_roots;

	/* superblock: temporary magic until a created filesystem is finished */
	bool creating;
	bool finishing;		/* this commit writes the real magic */
	/* the uuid tree changed: commit stamps uuid_tree_generation */
	bool uuid_tree_changed;
	/* a filesystem tree changed: enabled quotas are no longer exact */
	bool fs_trees_changed;
	bool qgroups_marked;

	/*
	 * Repair: freed ranges stay pinned across commits, so no block the
	 * filesystem used when writing began is overwritten before the write
	 * state is closed; super_dirty makes the next commit write the
	 * superblock even when no tree changed (a field of it was repaired).
	 */
	bool keep_pinned;
	bool super_dirty;
	/*
	 * Repair: commits write their tree blocks but hold the superblocks
	 * in fs_info->overlay (where a fresh open reads them);
	 * btrfs_publish_supers() writes the last ones to the devices.
	 */
	bool defer_supers;
	/*
	 * Called before every device write with the range about to be
	 * overwritten (an undo file saves it); an error fails the write.
	 */
	int (*before_write)(void *data, struct btrfs_device *dev, u64 physical,
			    u64 len);
	void *before_write_data;
	/* btrfs_set_key_guard(): asked about every key an item gets */
	struct btrfs_key_guard key_guard;

	/* device I/O accounting and fault injection (write-io.c) */
	u64 nr_writes;
	u64 nr_flushes;
	u64 nr_tree_allocs;
	u64 fail_write_at;		/* 0: never */
	u64 fail_flush_at;
	u64 fail_alloc_at;
};

struct btrfs_tracked_root {
	struct btrfs_root *root;
	bool dirty;		/* root item must be written at commit */
	bool owned;		/* allocated by the write state, freed with it */
};

struct btrfs_trans_handle {
	struct btrfs_fs_info *fs_info;
	u64 transid;
	bool aborted;
};

/* an empty write state on @fs_info (filesystem creation builds the rest) */
int btrfs_write_state_init(struct btrfs_fs_info *fs_info);

/*
 * Prepare an open filesystem (opened with OPEN_CTREE_WRITES) for writing:
 * loads block groups and their free space, device allocations.
 */
int btrfs_enable_writes(struct btrfs_fs_info *fs_info);

/* open_ctree(OPEN_CTREE_WRITES) + btrfs_enable_writes() */
struct btrfs_fs_info *btrfs_open_ctree_writable(const struct open_ctree_args *args,
						int *err);

/* begin a transaction: -EBUSY when one is running, -EROFS after an abort */
int btrfs_start_transaction(struct btrfs_fs_info *fs_info,
			    struct btrfs_trans_handle **trans_ret);

/*
 * Commit and end the transaction (the handle is freed, even on error).
 * On error the filesystem on disk keeps its previous state and the write
 * state becomes unusable (every later start fails with -EROFS).
 */
int btrfs_commit_transaction(struct btrfs_trans_handle *trans);

/*
 * Give up a transaction: nothing of it reaches the disk, the write state
 * is unusable afterwards.  Frees the handle.
 */
void btrfs_abort_transaction(struct btrfs_trans_handle *trans, int error);

/*
 * Record @eb as modified in @trans.  Blocks allocated or copied in the
 * transaction are dirty already; calling this again is cheap.
 */
void btrfs_mark_buffer_dirty(struct btrfs_trans_handle *trans,
			     struct extent_buffer *eb);

/* install @guard (a copy is kept), or remove it with NULL */
void btrfs_set_key_guard(struct btrfs_fs_info *fs_info, const struct btrfs_key_guard *guard);
/* 0, or the guard's error when it refuses @key in @root */
int btrfs_key_guard_check(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const struct btrfs_key *key);

/* the block was freed in this transaction: do not write it */
void btrfs_clean_tree_block(struct btrfs_trans_handle *trans,
			    struct extent_buffer *eb);
/*
 * Bytes of tree blocks dirty in the running transaction: the memory a
 * commit would give back, for writers that commit on a budget.
 */
u64 btrfs_trans_dirty_bytes(const struct btrfs_trans_handle *trans);

/*
 * Roots whose ROOT_ITEM commit keeps up to date.  The fixed roots in
 * fs_info are tracked automatically; others (subvolumes, the data reloc
 * tree) are registered here and owned by the write state afterwards.
 */
int btrfs_track_root(struct btrfs_fs_info *fs_info, struct btrfs_root *root);
/* the root's node or accounting changed: write its ROOT_ITEM at commit */
void btrfs_root_mark_dirty(struct btrfs_fs_info *fs_info, struct btrfs_root *root);
/* a tracked root by objectid (fixed or extra), NULL if not open */
struct btrfs_root *btrfs_get_root(struct btrfs_fs_info *fs_info, u64 objectid);

#endif
