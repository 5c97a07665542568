/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Superblocks (every mirror), opening and closing a filesystem, and tree
 * block reads with full verification.
 */
#ifndef GHEE_DISK_IO_H
#define GHEE_DISK_IO_H

#include <stdbool.h>
#include "format.h"
#include "messages.h"
#include "extent_io.h"
#include "volumes.h"

struct btrfs_write_state;

#define GHEE_MAX_DEVICES 64

/* one tree, in memory */
struct btrfs_root {
	struct btrfs_key root_key;
	struct btrfs_root_item root_item;	/* valid when has_root_item */
	bool has_root_item;
	struct extent_buffer *node;		/* NULL when unreadable */
	struct btrfs_fs_info *fs_info;
};

struct extent_buffer;
struct tree_block_check;

/*
 * Repair: called when no copy of a tree block passes verification, once
 * per copy that could be read, with that copy in @eb.  It may mend the
 * buffer in memory and return 0; the block is then verified again and,
 * when it passes, used as read (nothing is written: the repair copies it
 * on write in a transaction).  Any other return leaves the block failed.
 */
struct btrfs_block_fixer {
	int (*fix)(void *data, const struct btrfs_fs_info *fs_info,
		   struct extent_buffer *eb, const struct tree_block_check *check);
	void *data;
};
struct btrfs_overlay;

struct btrfs_fs_info {
	struct btrfs_super_block super_copy;
	/* device writes held in memory and laid over reads (dev-overlay.h) */
	struct btrfs_overlay *overlay;
	u64 super_bytenr;		/* where super_copy was read */
	u8 fsid[BTRFS_FSID_SIZE];
	u8 metadata_uuid[BTRFS_FSID_SIZE];	/* what tree blocks carry */
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	u32 nodesize;
	u32 sectorsize;
	u32 stripesize;
	u16 csum_type;
	u32 csum_size;
	u64 generation;
	u64 incompat;
	u64 compat_ro;

	struct btrfs_device devices[GHEE_MAX_DEVICES];
	int num_devices;
	struct chunk_map chunk_map;
	struct extent_buffer_cache eb_cache;

	struct btrfs_root tree_root;
	struct btrfs_root chunk_root;
	struct btrfs_root extent_root;
	struct btrfs_root dev_root;
	struct btrfs_root csum_root;
	struct btrfs_root fs_root;
	struct btrfs_root uuid_root;
	struct btrfs_root quota_root;
	struct btrfs_root free_space_root;
	struct btrfs_root block_group_root;

	struct btrfs_reporter reporter;
	bool readonly;
	/*
	 * Repair: a btrfs-image restore (METADUMP_V2) may be written; its
	 * metadata is whole, only file data is missing.  Set before
	 * btrfs_enable_writes().
	 */
	bool write_metadump;
	/*
	 * Repair --init-extent-tree: the extent tree is about to be replaced;
	 * btrfs_enable_writes() then accepts it unreadable, block group items
	 * missing and extents overlapping (the rebuild recomputes the used
	 * space).  Set before btrfs_enable_writes().
	 */
	bool rebuilding_extent_tree;
	/*
	 * Repair of chunks without a block group item: btrfs_enable_writes()
	 * accepts them; their groups start read-only with no item until the
	 * repair counts their used space (and writes the item at commit).
	 * Set before btrfs_enable_writes().
	 */
	bool repairing_block_group_items;
	/* repair: mends tree blocks that fail verification (open_ctree_args) */
	struct btrfs_block_fixer block_fixer;
	/* counters for callers that summarize what went wrong */
	u64 read_errors;
	u64 csum_errors;

	/* write side (transaction.h): NULL while the filesystem is read-only */
	struct btrfs_write_state *write;
	/* set with `write`: releases it, called first by close_ctree() */
	void (*write_teardown)(struct btrfs_fs_info *fs_info);
};

#define OPEN_CTREE_WRITES		(1U << 0)
#define OPEN_CTREE_PARTIAL		(1U << 1)  /* tolerate unreadable roots */
#define OPEN_CTREE_CHUNK_ONLY		(1U << 2)  /* stop after the chunk tree */
#define OPEN_CTREE_SUPER_ONLY		(1U << 3)  /* stop after the superblock */
#define OPEN_CTREE_IGNORE_CSUM		(1U << 4)
#define OPEN_CTREE_NO_DEVICES_CHECK	(1U << 5)

struct open_ctree_args {
	const char *const *paths;
	int nr_paths;
	u64 super_bytenr;	/* 0: the primary copy */
	u64 tree_root_bytenr;	/* 0: from the superblock */
	u64 chunk_root_bytenr;	/* 0: from the superblock */
	int backup_root;	/* -1: none; 0..3 use that backup root */
	unsigned int flags;
	unsigned int skip_roots;	/* OPEN_ROOT_*: global roots not read */
	size_t cache_budget;	/* 0: a default */
	struct btrfs_reporter reporter;
	struct btrfs_block_fixer block_fixer;	/* repair only; .fix NULL: none */
	/*
	 * Reads see the writes this overlay holds; with a capture-all
	 * overlay, OPEN_CTREE_WRITES opens the devices read-only and every
	 * write stays in memory.  The caller owns it; it outlives the open.
	 */
	struct btrfs_overlay *overlay;
};

/*
 * Global roots a command does not need (open_ctree_args.skip_roots): not
 * read at open (their node stays NULL, nothing is reported about them).
 */
#define OPEN_ROOT_DEV		(1U << 0)
#define OPEN_ROOT_FS		(1U << 1)
#define OPEN_ROOT_CSUM		(1U << 2)
#define OPEN_ROOT_QUOTA		(1U << 3)
#define OPEN_ROOT_UUID		(1U << 4)

/*
 * Open a filesystem.  Returns NULL with *err set when it cannot be opened
 * at all; with OPEN_CTREE_PARTIAL, roots that cannot be read are left with
 * node == NULL and reported.
 */
struct btrfs_fs_info *open_ctree(const struct open_ctree_args *args, int *err);
void close_ctree(struct btrfs_fs_info *fs_info);

/* read a superblock copy at @bytenr from @fd (no validation) */
int btrfs_read_super_raw(int fd, u64 bytenr, struct btrfs_super_block *sb);
/* the same from an open device, through the overlay when there is one */
int btrfs_read_super_dev(const struct btrfs_fs_info *fs_info,
			 const struct btrfs_device *dev, u64 bytenr,
			 struct btrfs_super_block *sb);
/* checksum of a superblock matches */
bool btrfs_super_csum_ok(const struct btrfs_super_block *sb);
/* full validation of every field; the first failure is reported */
int btrfs_validate_super(const struct btrfs_super_block *sb, u64 bytenr,
			 const struct btrfs_reporter *rep);
/*
 * Read the best superblock from @fd: @bytenr if non-zero, otherwise the
 * primary.  Validates it.
 */
int btrfs_read_dev_super(int fd, u64 bytenr, struct btrfs_super_block *sb,
			 const struct btrfs_reporter *rep);

/* expectations a caller has of a block; zero fields are not checked */
struct tree_block_check {
	u64 transid;
	int level;		/* -1: any */
	u64 owner;
	bool has_first_key;
	struct btrfs_key first_key;
};

/*
 * Read the tree block at @bytenr, trying every copy until one passes
 * verification.  Returns a referenced buffer or an ERR_PTR-style NULL with
 * *err set (-EIO unreadable, -EUCLEAN failed verification).
 */
struct extent_buffer *read_tree_block(struct btrfs_fs_info *fs_info, u64 bytenr,
				      const struct tree_block_check *check,
				      int *err);

/*
 * Like read_tree_block() but verify only the checksum and the header
 * fields; the item layout is left to the caller (dump-tree prints what it
 * can of a malformed block).
 */
struct extent_buffer *read_tree_block_header_only(struct btrfs_fs_info *fs_info,
						  u64 bytenr,
						  const struct tree_block_check *check,
						  int *err);

/* the csum of a tree block buffer matches its header */
bool btrfs_tree_block_csum_ok(const struct btrfs_fs_info *fs_info,
			      const u8 *data, u32 len);

/* look up a root item in the tree of tree roots and load its root node */
int btrfs_read_root(struct btrfs_fs_info *fs_info, u64 objectid,
		    struct btrfs_root *root);
void btrfs_release_root(struct btrfs_root *root);

static inline bool btrfs_fs_incompat(const struct btrfs_fs_info *fs, u64 flag)
{
	return (fs->incompat & flag) != 0;
}

static inline bool btrfs_fs_compat_ro(const struct btrfs_fs_info *fs, u64 flag)
{
	return (fs->compat_ro & flag) != 0;
}

#endif
