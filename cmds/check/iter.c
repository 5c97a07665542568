// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include "iter.h"

/* after a failed read the path keeps its advanced parent slot: retry */
static int skip_unreadable(struct btrfs_root *root, struct btrfs_path *path, int ret)
{
	while (ret < 0) {
		ret = btrfs_next_leaf(root, path);
		if (ret == 0)
			ret = btrfs_path_fixup_slot(root, path);
	}
	return ret;
}

int check_iter_start(struct btrfs_root *root, const struct btrfs_key *key,
		     struct btrfs_path *path)
{
	int ret;

	if (!root->node)
		return -EIO;
	ret = btrfs_search_slot(NULL, root, key, path, 0, 0);
	if (ret >= 0)
		ret = btrfs_path_fixup_slot(root, path);
	return skip_unreadable(root, path, ret);
}

int check_iter_next(struct btrfs_root *root, struct btrfs_path *path)
{
	return skip_unreadable(root, path, btrfs_next_item(root, path));
}
