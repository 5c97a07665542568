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

/* search backwards from the path for an item of @type with objectid >= @min_objectid */
int btrfs_previous_item(struct btrfs_root *root, struct btrfs_path *path,
			u64 min_objectid, int type);

/* the key at the path's leaf slot */
static inline void btrfs_path_key(const struct btrfs_path *path,
				  struct btrfs_key *key)
{
	btrfs_item_key_to_cpu(path->nodes[0], key, path->slots[0]);
}

/* read the child of node @parent at @slot with the checks the pointer implies */
struct extent_buffer *btrfs_read_node_slot(struct extent_buffer *parent,
					   int slot, int *err);

#endif
