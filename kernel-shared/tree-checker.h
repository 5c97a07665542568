/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structural verification of tree blocks and of each item type.  Each
 * function returns 0 or -EUCLEAN, and on failure fills a precise reason
 * (slot, field, expected vs found) into the caller's buffer.
 */
#ifndef GHEE_TREE_CHECKER_H
#define GHEE_TREE_CHECKER_H

#include <stddef.h>
#include "format.h"

struct extent_buffer;
struct btrfs_fs_info;

struct tree_check_error {
	int slot;		/* -1 when not about one item */
	char msg[256];
};

/* header fields, item/pointer layout and key order of a leaf or node */
int btrfs_check_leaf_layout(const struct btrfs_fs_info *fs_info,
			    const struct extent_buffer *eb,
			    struct tree_check_error *err);
int btrfs_check_node(const struct btrfs_fs_info *fs_info,
		     const struct extent_buffer *eb,
		     struct tree_check_error *err);
/* per-item size and content rules, for every item of a leaf */
int btrfs_check_leaf_items(const struct btrfs_fs_info *fs_info,
			   const struct extent_buffer *eb,
			   struct tree_check_error *err);
/* one item */
int btrfs_check_item(const struct btrfs_fs_info *fs_info,
		     const struct extent_buffer *eb, int slot,
		     struct tree_check_error *err);

#endif
