/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Phase 7: the state of one filesystem tree being streamed.
 *
 * A subvolume tree is read once in key order.  The items of one inode are
 * contiguous (key objectid = inode number), so one inode record is kept at
 * a time (fs-inode.c), fed by its file extents (fs-extents.c) and its
 * names (fs-dir.c).  What must be matched across inodes — the entries a
 * directory holds against the inode refs of the inodes they name — is
 * kept as compact link records (fs-dir.c); names are re-read from the
 * tree only to report a mismatch.
 */
#ifndef GHEE_CHECK_FS_TREES_H
#define GHEE_CHECK_FS_TREES_H

#include <stdbool.h>
#include "check.h"
#include "kernel-shared/ctree.h"

/* link record flags */
#define FS_LINK_REF		(1U << 0)	/* from an inode ref or extref */
#define FS_LINK_EXTREF		(1U << 1)	/* from an inode extref */
#define FS_LINK_HAS_ITEM	(1U << 2)	/* entry: a DIR_ITEM names it */
#define FS_LINK_HAS_INDEX	(1U << 3)	/* entry: a DIR_INDEX names it */
#define FS_LINK_SUBVOL		(1U << 4)	/* entry: points to a subvolume root */
#define FS_LINK_NO_INODE	(1U << 5)	/* ref: its inode has no inode item */
#define FS_LINK_MATCHED		(1U << 6)	/* entry: its inode ref was seen */

/*
 * One name of a link, seen from the directory (an entry: dir item and dir
 * index merged) or from the inode (a ref).  32 bytes.
 */
struct fs_link {
	u64 parent;		/* directory inode */
	u64 child;		/* inode (or subvolume id) the name points to */
	u64 index;		/* dir index; entries without DIR_INDEX: 0 */
	u32 hash;		/* btrfs name hash of the name */
	u8 name_len;
	u8 type;		/* entry: its BTRFS_FT_*; ref: the inode's, from its mode */
	u8 flags;		/* FS_LINK_* */
};

struct fs_links {
	struct fs_link *v;
	size_t nr;
	size_t alloc;
};

/* a DIR_ITEM entry of the directory being read, until its DIR_INDEXes come */
struct fs_dir_pending {
	u64 child;
	u32 hash;
	u8 name_len;
	u8 type;
	u8 flags;
	u8 matched;
};

/* the inode being read */
struct fs_inode {
	u64 ino;
	bool has_item;		/* its INODE_ITEM was read */
	bool orphan;		/* nlink 0 and an orphan item: being deleted */
	bool bad_mode;
	bool damaged;		/* an item of it failed phase 3's checks */
	bool reported_not_dir;
	u32 mode;
	u32 nlink;
	u64 size;
	u64 nbytes;
	u64 flags;
	u64 generation;
	u64 transid;

	u64 nr_refs;		/* inode ref + extref entries */
	u64 dir_names;		/* name lengths of its dir items and dir indexes */

	/* file extents (fs-extents.c) */
	u64 found_nbytes;
	u64 extent_end;		/* end of the furthest extent so far */
	u64 nr_extents;
};

struct fs_tree {
	struct check_ctx *ctx;
	struct btrfs_root root;
	u64 root_id;
	u64 root_dirid;
	bool root_dir_seen;
	bool light;		/* the data reloc tree: inodes and extents only */
	bool no_holes;
	u64 super_gen;
	u32 sectorsize;

	u64 *orphans;		/* inodes with an orphan item, ascending */
	size_t nr_orphans;

	struct fs_inode ino;

	/* complete entries, in (dir, index) order: the stream's order */
	struct fs_links entries;
	/* what did not pair on the fly: merged by sorting at the end */
	struct fs_links extra;
	int error;		/* -ENOMEM while collecting */
	u32 name_scans;		/* slow name lookups for messages (fs-dir.c) */

	struct fs_dir_pending *pend;	/* DIR_ITEM entries of ino */
	size_t nr_pend;
	size_t alloc_pend;
	bool pend_sorted;

	/* the stream (phase-fs-trees.c) */
	u64 cache_items;	/* items of the deprecated inode cache */
	struct btrfs_key cache_key;
	u64 last_leaf;
	/* findings held for phase 7 when phase 3 streams the tree, else NULL */
	struct problem_queue *deferred;
	size_t deferred_max;
	bool deferred_full;	/* too many held: phase 7 checks the tree again */
};

/* report a finding of @t, or queue it when @t is checked ahead of phase 7 */
void fs_problem(struct fs_tree *t, enum problem_code code,
		const struct problem_ctx *pctx);

/* fs-inode.c */
void fs_inode_begin(struct fs_tree *t, u64 ino);
void fs_inode_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot);
void fs_inode_finish(struct fs_tree *t);
void fs_xattr_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		   const struct btrfs_key *key);
bool fs_tree_is_orphan(const struct fs_tree *t, u64 ino);

/* fs-dir.c */
void fs_dir_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		 const struct btrfs_key *key);
void fs_dir_index(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		  const struct btrfs_key *key);
void fs_inode_ref(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		  const struct btrfs_key *key);
void fs_inode_extref(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		     const struct btrfs_key *key);
/* the DIR_ITEM entries left unmatched when the directory ends */
void fs_dir_finish(struct fs_tree *t);
/* match what is left of entries and refs; frees the records */
void fs_links_merge(struct fs_tree *t);
void fs_links_release(struct fs_tree *t);

/* fs-extents.c */
void fs_file_extent(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		    const struct btrfs_key *key);
void fs_extents_finish(struct fs_tree *t);

/*
 * Phase 3 reads every leaf of a filesystem tree in key order anyway; when
 * it reads a whole tree (no block shared with a tree walked before, none
 * damaged), the tree is checked from those reads and phase 7 only reports
 * the findings, instead of reading the tree a second time.
 * fs_tree_ahead_start() returns NULL when @r is not a tree to check this
 * way; fs_tree_ahead_end() keeps the result when @whole, else (or when
 * the tree had more findings than phase 3 holds) drops it and leaves the
 * tree to phase 7.  0, or -ENOMEM.
 */
struct walk_root;
struct fs_tree *fs_tree_ahead_start(struct check_ctx *ctx, const struct walk_root *r,
				    int *err);
void fs_tree_ahead_leaf(struct fs_tree *t, const struct extent_buffer *leaf,
			bool items_verified);
int fs_tree_ahead_end(struct fs_tree *t, bool whole);

#endif
