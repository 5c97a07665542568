/* SPDX-License-Identifier: GPL-2.0 */
/*
 * B-tree search and iteration.  A struct btrfs_path lives on the caller's
 * stack: btrfs_init_path() before use, btrfs_release_path() after; it is
 * never allocated per search.
 */
#ifndef GHEE_CTREE_H
#define GHEE_CTREE_H

#include "format.h"
#include "extent_io.h"
#include "disk-io.h"

struct btrfs_trans_handle;

struct btrfs_path {
	struct extent_buffer *nodes[BTRFS_MAX_LEVEL];
	int slots[BTRFS_MAX_LEVEL];
	int lowest_level;	/* stop the descent at this level */
};

static inline void btrfs_init_path(struct btrfs_path *p)
{
	memset(p, 0, sizeof(*p));
}

void btrfs_release_path(struct btrfs_path *p);

/*
 * Find @key in @root.  Returns 0 when found (path points at it), 1 when
 * not found (path points where it would be inserted: possibly one past
 * the last item of a leaf), or a negative errno.  @trans, @ins_len and
 * @cow are for writers; readers pass NULL, 0, 0.
 */
int btrfs_search_slot(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, struct btrfs_path *path,
		      int ins_len, int cow);

/* move to the first item of the next leaf: 0 ok, 1 no more, <0 error */
int btrfs_next_leaf(struct btrfs_root *root, struct btrfs_path *path);
/* move to the last item of the previous leaf: 0 ok, 1 no more, <0 error */
int btrfs_prev_leaf(struct btrfs_root *root, struct btrfs_path *path);
/* next/previous item, crossing leaves: 0 ok, 1 no more, <0 error */
int btrfs_next_item(struct btrfs_root *root, struct btrfs_path *path);
int btrfs_prev_item(struct btrfs_root *root, struct btrfs_path *path);

/*
 * After a search that returned 1, step onto a real item if the path sits
 * one past the end of its leaf: 0 ok, 1 no more items, <0 error.
 */
int btrfs_path_fixup_slot(struct btrfs_root *root, struct btrfs_path *path);

/*
 * Read-only: @path (initialized here, released by the caller) at the first
 * item at or after @key.  0 there is one, 1 no more items, <0 error.
 */
int btrfs_search_first(struct btrfs_root *root, const struct btrfs_key *key,
		       struct btrfs_path *path);

/* search backwards from the path for an item of @type with objectid >= @min_objectid */
int btrfs_previous_item(struct btrfs_root *root, struct btrfs_path *path,
			u64 min_objectid, int type);

/* the key at the path's leaf slot */
static inline void btrfs_path_key(const struct btrfs_path *path,
				  struct btrfs_key *key)
{
	btrfs_item_key_to_cpu(path->nodes[0], key, path->slots[0]);
}

/* the top level filesystem tree, a subvolume or a snapshot */
static inline bool btrfs_is_subvol_tree(u64 objectid)
{
	return objectid == BTRFS_FS_TREE_OBJECTID ||
	       (objectid >= BTRFS_FIRST_FREE_OBJECTID &&
		objectid <= BTRFS_LAST_FREE_OBJECTID);
}

/* a tree of inodes and file extents: a subvolume tree or a relocation tree */
static inline bool btrfs_is_file_tree(u64 objectid)
{
	return btrfs_is_subvol_tree(objectid) ||
	       objectid == BTRFS_DATA_RELOC_TREE_OBJECTID ||
	       objectid == BTRFS_TREE_RELOC_OBJECTID;
}

/* read the child of node @parent at @slot with the checks the pointer implies */
struct extent_buffer *btrfs_read_node_slot(struct extent_buffer *parent,
					   int slot, int *err);

/* ---- writing (ctree-write.c) ----
 *
 * With a transaction and cow=1, btrfs_search_slot() copies on write every
 * block on the path that is not already of this transaction.  ins_len > 0
 * (bytes of item data plus sizeof(struct btrfs_item) per item) makes room
 * in the leaf for an insert: nodes that are nearly full are split on the
 * way down, the leaf pushes items to its neighbours or splits.
 * ins_len < 0 prepares a delete: under-full nodes on the way down are
 * merged with or refilled from a neighbour, a root with one pointer is
 * replaced by its child.  The path's blocks may then be modified; they
 * are dirty in the transaction.
 */

/* max bytes of item data one item may hold in a leaf of this filesystem */
static inline u32 btrfs_leaf_max_item_size(u32 nodesize)
{
	return btrfs_leaf_data_size(nodesize) - sizeof(struct btrfs_item);
}

/* free bytes of a leaf (headers and data included) */
u32 btrfs_leaf_free_space(const struct extent_buffer *leaf);

/* copy @buf unless it already belongs to this transaction */
int btrfs_cow_block(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		    struct extent_buffer *buf, struct extent_buffer *parent,
		    int parent_slot, struct extent_buffer **cow_ret);

struct btrfs_item_batch {
	const struct btrfs_key *keys;	/* ascending, none present in the tree */
	const u32 *data_sizes;
	int nr;
};

/*
 * Insert empty items at the path's position (after a search that returned
 * 1): path->slots[0] is the first new item.  -EEXIST when the first key
 * exists, -EOVERFLOW when the items cannot fit one leaf.
 */
int btrfs_insert_empty_items(struct btrfs_trans_handle *trans,
			     struct btrfs_root *root, struct btrfs_path *path,
			     const struct btrfs_item_batch *batch);
int btrfs_insert_empty_item(struct btrfs_trans_handle *trans,
			    struct btrfs_root *root, struct btrfs_path *path,
			    const struct btrfs_key *key, u32 data_size);
/*
 * Insert an item of @len bytes at @key, or grow the item already there by
 * @len (entries that share a key: colliding name hashes, inode refs of one
 * parent).  On success the path points at the item and *@off at the new
 * bytes (0 for a new item).  -EOVERFLOW when the grown item would not fit
 * a leaf; the tree is then unchanged.
 */
int btrfs_insert_or_extend_item(struct btrfs_trans_handle *trans,
				struct btrfs_root *root, struct btrfs_path *path,
				const struct btrfs_key *key, u32 len, u32 *off);
/* insert one item with its data (path handled internally) */
int btrfs_insert_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, const void *data, u32 data_size);

/*
 * Delete @nr items from @slot of the path's leaf.  An emptied leaf leaves
 * the tree; an under-full one gives its items to its neighbours.  The path
 * is not valid for further use afterwards except btrfs_release_path().
 */
int btrfs_del_items(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		    struct btrfs_path *path, int slot, int nr);
static inline int btrfs_del_item(struct btrfs_trans_handle *trans,
				 struct btrfs_root *root, struct btrfs_path *path)
{
	return btrfs_del_items(trans, root, path, path->slots[0], 1);
}

/*
 * Grow the path's item by @data_size bytes at its end (the leaf must have
 * room: search with ins_len = data_size first, which makes it unless the
 * grown item would not fit a leaf at all; check btrfs_leaf_free_space()).
 * The new bytes are zeroed.
 */
void btrfs_extend_item(struct btrfs_path *path, u32 data_size);
/* shrink the path's item to @new_size, keeping its start (from_end) or end */
void btrfs_truncate_item(struct btrfs_path *path, u32 new_size, int from_end);

/*
 * Replace the key of the path's item with @new_key, which must keep the
 * order of the leaf; parents are updated when it is the first key.
 */
int btrfs_set_item_key_safe(struct btrfs_trans_handle *trans,
			    struct btrfs_root *root, struct btrfs_path *path,
			    const struct btrfs_key *new_key);
/*
 * The same for the key at path->slots[@level] of node path->nodes[@level]
 * (copied on write in @trans), which must keep the order of the node; the
 * nodes above follow when it is the node's first key.  The block it points
 * to is not read: the key is made its first key.
 */
int btrfs_set_node_key_safe(struct btrfs_trans_handle *trans, struct btrfs_path *path,
			    int level, const struct btrfs_key *new_key);

/* copy data in/out of the path's current item */
void btrfs_write_item_data(struct btrfs_path *path, u32 offset,
			   const void *src, u32 len);

/* convenience: find @key exactly and delete it (-ENOENT when absent) */
int btrfs_delete_key(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const struct btrfs_key *key);

#endif
