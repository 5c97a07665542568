// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree search and iteration over verified tree blocks.
 *
 * Every child is read through btrfs_read_node_slot(), which demands the
 * level, generation and first key the parent pointer promises, so a
 * descent always ends within BTRFS_MAX_LEVEL steps however hostile the
 * image.  When a child cannot be read, the path keeps the advanced parent
 * slot with the lower levels empty: calling btrfs_next_leaf() again
 * continues past the unreadable subtree.
 */
#include <errno.h>
#include "ctree.h"
#include "ctree-internal.h"

void btrfs_release_path(struct btrfs_path *p)
{
	int i;

	for (i = 0; i < BTRFS_MAX_LEVEL; i++) {
		free_extent_buffer(p->nodes[i]);
		p->nodes[i] = NULL;
		p->slots[i] = 0;
	}
}

static void drop_levels_below(struct btrfs_path *p, int level)
{
	int i;

	for (i = 0; i < level; i++) {
		free_extent_buffer(p->nodes[i]);
		p->nodes[i] = NULL;
		p->slots[i] = 0;
	}
}

/*
 * Binary search of @key in a leaf or node.  Returns 0 and the slot of an
 * exact match, or 1 and the slot where the key would be inserted.
 */
int btrfs_bin_search(const struct extent_buffer *eb, const struct btrfs_key *key,
		     int *slot)
{
	int lo = 0, hi = btrfs_eb_nritems(eb);
	bool leaf = btrfs_eb_level(eb) == 0;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		struct btrfs_key cur;
		int cmp;

		if (leaf)
			btrfs_item_key_to_cpu(eb, &cur, mid);
		else
			btrfs_node_key_to_cpu(eb, &cur, mid);
		cmp = btrfs_comp_cpu_keys(&cur, key);
		if (cmp < 0) {
			lo = mid + 1;
		} else if (cmp > 0) {
			hi = mid;
		} else {
			*slot = mid;
			return 0;
		}
	}
	*slot = lo;
	return 1;
}

struct extent_buffer *btrfs_read_node_slot(struct extent_buffer *parent,
					   int slot, int *err)
{
	struct tree_block_check check;
	int level = btrfs_eb_level(parent);

	if (level == 0 || slot < 0 || (u32)slot >= btrfs_eb_nritems(parent)) {
		*err = -ENOENT;
		return NULL;
	}
	check.transid = btrfs_node_ptr_generation(parent, slot);
	check.level = level - 1;
	check.owner = 0;
	check.has_first_key = true;
	btrfs_node_key_to_cpu(parent, &check.first_key, slot);
	return read_tree_block(parent->fs_info, btrfs_node_blockptr(parent, slot),
			       &check, err);
}

int btrfs_search_slot(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		      const struct btrfs_key *key, struct btrfs_path *path,
		      int ins_len, int cow)
{
	struct extent_buffer *eb;
	int ret, level, slot;

	if (trans && cow)
		return btrfs_search_slot_cow(trans, root, key, path, ins_len);
	(void)ins_len;
	if (!root->node)
		return -EIO;
	eb = extent_buffer_get(root->node);
	for (;;) {
		level = btrfs_eb_level(eb);
		free_extent_buffer(path->nodes[level]);
		path->nodes[level] = eb;
		ret = btrfs_bin_search(eb, key, &slot);
		if (level == 0) {
			path->slots[0] = slot;
			return ret;
		}
		if (ret && slot > 0)
			slot--;
		path->slots[level] = slot;
		if (level <= path->lowest_level)
			return ret;
		eb = btrfs_read_node_slot(eb, slot, &ret);
		if (!eb)
			return ret;
	}
}

/* the lowest level above the leaves that still holds a node */
static int lowest_parent_level(const struct btrfs_path *path)
{
	int level;

	for (level = 1; level < BTRFS_MAX_LEVEL; level++) {
		if (path->nodes[level])
			return level;
	}
	return BTRFS_MAX_LEVEL;
}

/* descend from path->nodes[level] at its current slot to the leaf */
static int descend_to_leaf(struct btrfs_path *path, int level, bool to_last)
{
	int ret;

	while (level > 0) {
		struct extent_buffer *child;

		child = btrfs_read_node_slot(path->nodes[level],
					     path->slots[level], &ret);
		drop_levels_below(path, level);
		if (!child)
			return ret;
		path->nodes[level - 1] = child;
		path->slots[level - 1] = to_last ? (int)btrfs_eb_nritems(child) - 1 : 0;
		if (path->slots[level - 1] < 0)
			path->slots[level - 1] = 0;
		level--;
	}
	return 0;
}

int btrfs_next_leaf(struct btrfs_root *root, struct btrfs_path *path)
{
	int level = lowest_parent_level(path);

	(void)root;
	while (level < BTRFS_MAX_LEVEL && path->nodes[level]) {
		if (path->slots[level] + 1 < (int)btrfs_eb_nritems(path->nodes[level]))
			break;
		level++;
	}
	if (level >= BTRFS_MAX_LEVEL || !path->nodes[level])
		return 1;
	path->slots[level]++;
	return descend_to_leaf(path, level, false);
}

int btrfs_prev_leaf(struct btrfs_root *root, struct btrfs_path *path)
{
	int level = lowest_parent_level(path);

	(void)root;
	while (level < BTRFS_MAX_LEVEL && path->nodes[level]) {
		if (path->slots[level] > 0)
			break;
		level++;
	}
	if (level >= BTRFS_MAX_LEVEL || !path->nodes[level])
		return 1;
	path->slots[level]--;
	return descend_to_leaf(path, level, true);
}

int btrfs_path_fixup_slot(struct btrfs_root *root, struct btrfs_path *path)
{
	int ret;

	while (!path->nodes[0] ||
	       path->slots[0] >= (int)btrfs_eb_nritems(path->nodes[0])) {
		ret = btrfs_next_leaf(root, path);
		if (ret)
			return ret;
	}
	return 0;
}

int btrfs_search_first(struct btrfs_root *root, const struct btrfs_key *key,
		       struct btrfs_path *path)
{
	int ret;

	btrfs_init_path(path);
	ret = btrfs_search_slot(NULL, root, key, path, 0, 0);
	if (ret < 0)
		return ret;
	return btrfs_path_fixup_slot(root, path);
}

int btrfs_next_item(struct btrfs_root *root, struct btrfs_path *path)
{
	if (path->nodes[0])
		path->slots[0]++;
	return btrfs_path_fixup_slot(root, path);
}

int btrfs_prev_item(struct btrfs_root *root, struct btrfs_path *path)
{
	int ret;

	while (!path->nodes[0] || path->slots[0] == 0) {
		ret = btrfs_prev_leaf(root, path);
		if (ret)
			return ret;
		if (btrfs_eb_nritems(path->nodes[0])) {
			path->slots[0] = btrfs_eb_nritems(path->nodes[0]);
			break;
		}
	}
	path->slots[0]--;
	return 0;
}

int btrfs_previous_item(struct btrfs_root *root, struct btrfs_path *path,
			u64 min_objectid, int type)
{
	struct btrfs_key found;
	int ret;

	for (;;) {
		ret = btrfs_prev_item(root, path);
		if (ret)
			return ret;
		btrfs_path_key(path, &found);
		if (found.objectid < min_objectid)
			return 1;
		if (found.type == type)
			return 0;
	}
}
