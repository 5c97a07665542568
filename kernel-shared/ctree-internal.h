/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between ctree.c (search, iteration) and ctree-write.c (changes). */
#ifndef GHEE_CTREE_INTERNAL_H
#define GHEE_CTREE_INTERNAL_H

#include "ctree.h"

/* 0 and the slot of @key, or 1 and the slot where it would be inserted */
int btrfs_bin_search(const struct extent_buffer *eb, const struct btrfs_key *key,
		     int *slot);

/* btrfs_search_slot() with a transaction and cow=1 */
int btrfs_search_slot_cow(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const struct btrfs_key *key, struct btrfs_path *path,
			  int ins_len);

/*
 * Make @dst, an empty tree created in this transaction, a snapshot of
 * @src: a copy of @src's root node whose children gain keyed references
 * of @dst; both root items record the transaction as last_snapshot.
 * @src must be unchanged in this transaction (-EBUSY): commit first.
 */
int btrfs_snapshot_tree(struct btrfs_trans_handle *trans, struct btrfs_root *src,
			struct btrfs_root *dst);

#endif
