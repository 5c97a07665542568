// SPDX-License-Identifier: GPL-2.0
/*
 * Where a tree block hangs in a tree: the walk of the nodes from the root
 * that finds the pointer to it by address, and the path down to it.
 */
#include <errno.h>
#include "repair-place.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/transaction.h"

/*
 * Look for the pointer to @bytenr under @node, whose keys must stay below
 * @hi (a key of node @hi_from): 0 found (@pl filled), 1 not there, <0 a
 * node on the way cannot be read and the block was not found elsewhere.
 */
static int find_in_node(struct extent_buffer *node, u64 bytenr, bool has_hi,
			const struct btrfs_key *hi, u64 hi_from, struct block_place *pl)
{
	u32 i, nr = btrfs_eb_nritems(node);
	int level = btrfs_eb_level(node), ret = 1, unreadable = 0, err;

	for (i = 0; i < nr && ret == 1; i++) {
		struct btrfs_key next = { 0, 0, 0 };
		bool next_hi = i + 1 < nr || has_hi;
		u64 next_from = i + 1 < nr ? node->start : hi_from;
		struct extent_buffer *child;

		if (i + 1 < nr)
			btrfs_node_key_to_cpu(node, &next, i + 1);
		else if (has_hi)
			next = *hi;
		if (btrfs_node_blockptr(node, i) == bytenr) {
			pl->level = level - 1;
			pl->has_hi = next_hi;
			pl->hi = next;
			pl->hi_from = next_from;
			ret = 0;
		} else if (level > 1) {
			child = btrfs_read_node_slot(node, i, &err);
			if (!child) {
				unreadable = err;
				continue;
			}
			ret = find_in_node(child, bytenr, next_hi, &next, next_from, pl);
			free_extent_buffer(child);
			if (ret < 0)
				return ret;
		}
		if (!ret)
			pl->slots[level] = (int)i;
	}
	return ret == 1 && unreadable ? unreadable : ret;
}

int repair_find_place(struct btrfs_root *root, u64 bytenr, struct block_place *pl)
{
	if (root->node->start == bytenr || !btrfs_eb_level(root->node))
		return 1;
	return find_in_node(root->node, bytenr, false, NULL, 0, pl);
}

int repair_path_to_place(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 const struct block_place *pl, struct btrfs_path *path)
{
	struct extent_buffer *b, *child;
	int level, slot, ret, err;

	btrfs_init_path(path);
	if (trans) {
		ret = btrfs_cow_block(trans, root, root->node, NULL, 0, &b);
		if (ret)
			return ret;
	} else {
		b = extent_buffer_get(root->node);
	}
	level = btrfs_eb_level(b);
	path->nodes[level] = b;
	while (level > pl->level) {
		slot = pl->slots[level];
		path->slots[level] = slot;
		child = btrfs_read_node_slot(b, slot, &err);
		if (!child)
			return err;
		if (trans) {
			ret = btrfs_cow_block(trans, root, child, b, slot, &b);
			free_extent_buffer(child);
			if (ret)
				return ret;
		} else {
			b = child;
		}
		path->nodes[--level] = b;
	}
	return 0;
}
