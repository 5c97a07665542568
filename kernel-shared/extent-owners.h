/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only answers to "who owns this extent": the extent items of a
 * logical range with their back references, the files (subvolume, inode,
 * file offset) that reference a data extent through keyed, shared and
 * snapshot-shared references, the trees that reach a tree block, the paths
 * of an inode inside its subvolume and of a subvolume inside the
 * filesystem, and device offsets mapped back to logical addresses.
 *
 * Memory stays bounded: nothing is loaded whole; paths are built by
 * walking INODE_REF parents with a small LRU cache of directory names, and
 * the roots that reach a tree block are memoized in a bounded table.
 */
#ifndef GHEE_EXTENT_OWNERS_H
#define GHEE_EXTENT_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include "format.h"
#include "disk-io.h"

/* one back reference of an extent */
struct btrfs_extent_backref {
	u8 type;		/* BTRFS_*_REF_KEY */
	bool is_inline;
	u64 root;		/* TREE_BLOCK_REF, EXTENT_DATA_REF, EXTENT_OWNER_REF */
	u64 parent;		/* SHARED_BLOCK_REF, SHARED_DATA_REF */
	u64 objectid;		/* EXTENT_DATA_REF: inode */
	u64 offset;		/* EXTENT_DATA_REF: file offset minus extent offset */
	u32 count;		/* data refs */
};

struct btrfs_extent_desc {
	u64 bytenr;
	u64 num_bytes;
	u64 refs;
	u64 generation;
	u64 flags;		/* BTRFS_EXTENT_FLAG_*, BTRFS_BLOCK_FLAG_FULL_BACKREF */
	int level;		/* tree blocks; -1 for data */
	struct btrfs_extent_backref *backrefs;
	size_t nr_backrefs;
	size_t alloc_backrefs;
	bool damaged;		/* the item could not be decoded whole */
};

void btrfs_extent_desc_release(struct btrfs_extent_desc *d);

/*
 * Call @fn for each extent item whose extent overlaps [@start, @end), in
 * address order.  @fn returning non-zero stops the walk and is returned.
 * Damaged items are reported and passed with ->damaged set; a subtree that
 * cannot be read is reported and skipped.  Returns 0, @fn's value, or
 * -errno when part of the extent tree could not be read (everything else
 * has been passed on).
 */
typedef int (*btrfs_extent_fn)(void *ctx, const struct btrfs_extent_desc *d);
int btrfs_walk_extents(struct btrfs_fs_info *fs_info, u64 start, u64 end,
		       btrfs_extent_fn fn, void *ctx);

/*
 * After reading past @last in @root failed: the first key after the
 * subtree that could not be read.  0 with *@resume, 1 when none, -errno.
 */
int btrfs_key_after_bad_subtree(struct btrfs_root *root, const struct btrfs_key *last,
				struct btrfs_key *resume);

/* the extent containing @logical: 0, -ENOENT when none, -errno */
int btrfs_find_extent(struct btrfs_fs_info *fs_info, u64 logical,
		      struct btrfs_extent_desc *d);

struct btrfs_bg_desc {
	u64 start;
	u64 length;
	u64 flags;
	u64 used;
};

/* each block group item in address order; like btrfs_walk_extents() */
typedef int (*btrfs_bg_fn)(void *ctx, const struct btrfs_bg_desc *bg);
int btrfs_walk_block_groups(struct btrfs_fs_info *fs_info, btrfs_bg_fn fn,
			    void *ctx);

/* the resolver: open subvolume roots and the bounded caches */
struct btrfs_owner_resolver;

struct btrfs_owner_resolver *btrfs_owner_resolver_new(struct btrfs_fs_info *fs_info);
void btrfs_owner_resolver_free(struct btrfs_owner_resolver *r);
/* problems met while resolving (each also reported once) */
u64 btrfs_owner_resolver_errors(const struct btrfs_owner_resolver *r);

/* the tree @root_id, opened once; NULL when it has no root item / is unreadable */
struct btrfs_root *btrfs_owner_root(struct btrfs_owner_resolver *r, u64 root_id);

/* one file extent item that references a data extent, as seen from one tree */
struct btrfs_data_owner {
	u64 root;
	u64 ino;
	u64 file_offset;	/* of the referencing item, or of @pos with a position */
	u64 leaf;		/* the fs tree leaf holding the item */
	u8 compression;		/* of the referencing item */
};

/*
 * Every (tree, inode, offset) whose file extent items reference data
 * extent @d, the way the kernel's logical-to-ino resolves them: the leaves
 * holding referencing items (found through keyed refs by searching their
 * tree, or named by shared refs), then each tree that reaches such a leaf
 * (through snapshots and full back references).  With @pos != (u64)-1
 * (an offset inside the extent) only items whose range covers it are
 * given, unless the extent is compressed, and file_offset is that of @pos.
 */
typedef int (*btrfs_owner_fn)(void *ctx, const struct btrfs_data_owner *o);
int btrfs_data_extent_owners(struct btrfs_owner_resolver *r,
			     const struct btrfs_extent_desc *d, u64 pos,
			     btrfs_owner_fn fn, void *ctx);

/*
 * The trees that reach the tree block @bytenr (of @level): its TREE_BLOCK_REF
 * roots and, through SHARED_BLOCK_REF parents and the parents of keyed
 * refs, every root above.  *@roots is owned by the resolver (valid until
 * the next call).  Returns the number of roots or -errno.
 */
int btrfs_tree_block_roots(struct btrfs_owner_resolver *r, u64 bytenr,
			   const u64 **roots);

/*
 * Each path of inode @ino in tree @root, relative to the subvolume's top
 * directory and without a leading '/': one per INODE_REF / INODE_EXTREF
 * name (hard links).  Returns the number of paths given, or -errno.
 */
typedef int (*btrfs_path_fn)(void *ctx, const char *path);
int btrfs_inode_paths(struct btrfs_owner_resolver *r, u64 root, u64 ino,
		      btrfs_path_fn fn, void *ctx);

/*
 * The path of subvolume @root from the top level subvolume, "" for the
 * top level itself, through the ROOT_BACKREF items of the tree of tree
 * roots.  -ENOENT when it is not linked anywhere.
 */
int btrfs_subvol_path(struct btrfs_owner_resolver *r, u64 root, char *buf,
		      size_t len);

/* ---- device offsets back to logical addresses ---- */

struct btrfs_physical_hit {
	u64 chunk_logical;
	u64 chunk_type;
	int stripe;		/* index in the chunk's stripes */
	bool parity;		/* RAID5/6 parity: logical is the full stripe start */
	int parity_index;	/* 0 P, 1 Q */
	u64 logical;
};

struct map_lookup;
/*
 * Bytes of the chunk each stripe holds on its device; *nr_data: the data
 * stripes of one full stripe (1 for the mirrored profiles)
 */
u64 btrfs_stripe_dev_bytes(const struct map_lookup *ml, int *nr_data);
/*
 * What byte @dev_off of stripe @idx of the chunk holds: the logical address
 * it stores, or for RAID5/6 parity the start of its full stripe
 */
void btrfs_stripe_offset_to_logical(const struct map_lookup *ml, int idx, u64 dev_off,
				    struct btrfs_physical_hit *hit);
/* -ENOENT when no chunk stripe on @devid covers @physical */
int btrfs_physical_to_logical(struct btrfs_fs_info *fs_info, u64 devid,
			      u64 physical, struct btrfs_physical_hit *hit);

#endif
