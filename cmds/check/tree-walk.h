/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Walking every tree of the filesystem, each distinct tree block once.
 *
 * The walker descends from a root with the checks each parent pointer
 * implies (generation, level, first key), verifies what phase 3 verifies
 * (owner, generation, key range against the parent, every item) when
 * asked to report, and hands each reference a pointer or a file extent
 * item makes to a callback: phase 3 sums them into the extent tally,
 * phase 5 collects the exact references of a few extents.
 *
 * Reference rules (those btrfs applies when it adds references):
 *  - a pointer from block P to a child: a shared block ref (parent P) when
 *    P's extent item has FULL_BACKREF (or P predates mixed backrefs),
 *    otherwise a keyed tree block ref with root = owner of P;
 *  - a root node: a keyed tree block ref with root = the tree id; for
 *    tree reloc trees a shared ref whose parent is the root node itself;
 *  - a file extent item (regular or prealloc, disk_bytenr != 0) in leaf
 *    P: a shared data ref (parent P) when P has FULL_BACKREF, otherwise a
 *    keyed data ref (root = owner of P, inode, file offset - extent
 *    offset), one count per item;
 *  - log trees make no references: their blocks have no extent items.
 */
#ifndef GHEE_CHECK_TREE_WALK_H
#define GHEE_CHECK_TREE_WALK_H

#include <stdbool.h>
#include "kernel-shared/format.h"

struct check_ctx;
struct block_set;
struct extent_buffer;
struct btrfs_fs_info;

/* one tree: from the superblock or from a root item */
struct walk_root {
	u64 objectid;		/* the tree id (root item key objectid) */
	u64 offset;		/* root item key offset */
	u64 bytenr;		/* root node */
	u64 generation;		/* expected root node generation, 0: any */
	u8 level;		/* expected root node level */
	bool log;		/* a log tree */
	bool dead;		/* root item refs == 0: a deleted subvolume */
	bool has_drop;		/* partly dropped: parts below drop_key are gone */
	u8 drop_level;
	struct btrfs_key drop_key;
};

/* one reference a tree makes to an extent */
struct walk_ref {
	u64 bytenr;		/* the extent referenced */
	u64 len;		/* data: disk_num_bytes; tree blocks: 0 */
	u64 root_or_parent;	/* keyed: root; shared: parent block */
	u64 objectid;		/* keyed data refs: inode */
	u64 offset;		/* keyed data refs: file offset - extent offset */
	u64 from;		/* block holding the pointer or item, 0 for a root */
	u64 tree;		/* tree being walked */
	u8 type;		/* BTRFS_{TREE_BLOCK,SHARED_BLOCK,EXTENT_DATA,SHARED_DATA}_REF_KEY */
	u8 level;		/* tree blocks: level the pointer implies */
	int slot;		/* slot in @from */
};

struct tree_walk {
	struct check_ctx *ctx;
	struct btrfs_fs_info *fs_info;
	bool report;		/* report findings (phase 3); quiet re-walks otherwise */
	const struct block_set *full_backref;	/* blocks with FULL_BACKREF */
	struct block_set *bad_blocks;		/* unreadable or invalid blocks, or NULL */
	struct block_set *damaged_trees;	/* ids of trees with such blocks, or NULL */
	struct block_set *key_range_trees;	/* ids of trees with TREE_KEY_RANGE, or NULL */
	void *data;
	/* true when @bytenr has not been walked yet; marks it walked */
	bool (*first_visit)(struct tree_walk *w, const struct walk_root *r,
			    u64 bytenr);
	/* one reference; may be NULL */
	void (*ref)(struct tree_walk *w, const struct walk_ref *ref);
	/*
	 * each leaf read, after its checks; may be NULL.  @items_ok: the
	 * walk reports and every item passed the tree-checker
	 */
	void (*leaf)(struct tree_walk *w, const struct walk_root *r,
		     const struct extent_buffer *leaf, bool items_ok);
	/* counters */
	u64 blocks;		/* blocks read */
	u64 bad;		/* blocks that could not be walked */
	int error;		/* <0 when the walk had to stop (no memory) */
	/* internal */
	struct block_set *log_seen;
	u64 super_generation;
};

int tree_walk_init(struct tree_walk *w, struct check_ctx *ctx);
void tree_walk_release(struct tree_walk *w);

/* walk one tree; 0, or <0 when the walk could not go on (no memory) */
int tree_walk_root(struct tree_walk *w, const struct walk_root *r);

/* is @objectid a tree whose blocks may be shared (fs trees, reloc trees) */
bool tree_is_shareable(u64 objectid);

#endif
