/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The free space tree (v2): FREE_SPACE_INFO per block group, then its free
 * ranges as FREE_SPACE_EXTENTs or, when fragmented, FREE_SPACE_BITMAPs.
 * Maintained at commit from the extent tree, for the block groups whose
 * allocations changed.
 */
#ifndef GHEE_FREE_SPACE_TREE_H
#define GHEE_FREE_SPACE_TREE_H

#include <stdbool.h>
#include "format.h"
#include "disk-io.h"
#include "ranges.h"

struct btrfs_trans_handle;
struct btrfs_block_group;

/* bring the entries of every changed block group in line with the extent tree */
int btrfs_update_free_space_tree(struct btrfs_trans_handle *trans);
bool btrfs_free_space_tree_dirty(const struct btrfs_fs_info *fs_info);

/*
 * The free ranges of @bg according to the extent tree (superblock copies
 * included, as the kernel keeps them), ascending, into @ranges (initialized
 * here); on success the caller releases it.  0 or a negative errno.
 */
int btrfs_block_group_free_ranges(struct btrfs_fs_info *fs_info,
				  const struct btrfs_block_group *bg,
				  struct range_list *ranges);

#endif
