// SPDX-License-Identifier: GPL-2.0
/*
 * Quota after --rootdir: every subvolume (the top one, 5, and those of
 * --subvol, 256...) gets a level-0 qgroup whose referenced and exclusive
 * bytes are its tree blocks and the data extents its files point at
 * (nothing is shared yet: no snapshots, no reflinks).  Counted after a
 * commit, when the fs trees do not change any more, and stamped with the
 * generation of the final commit, which the kernel compares with the
 * filesystem's.
 */
#include <errno.h>
#include <string.h>
#include "mkfs.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"

static int count_tree_blocks(struct extent_buffer *eb, u64 *nr)
{
	int i, ret = 0;

	(*nr)++;
	if (!btrfs_eb_level(eb))
		return 0;
	for (i = 0; !ret && i < (int)btrfs_eb_nritems(eb); i++) {
		struct extent_buffer *child = btrfs_read_node_slot(eb, i, &ret);

		if (!child)
			return ret ? ret : -EIO;
		ret = count_tree_blocks(child, nr);
		free_extent_buffer(child);
	}
	return ret;
}

/* disk bytes of the data extents @root's file extent items point at */
static int data_bytes(struct btrfs_root *root, u64 *bytes)
{
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	*bytes = 0;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret > 0)
		ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		struct btrfs_file_extent_item fi;

		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_DATA_KEY &&
		    btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(fi)) {
			memcpy(&fi, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), sizeof(fi));
			if (btrfs_file_extent_type(&fi) != BTRFS_FILE_EXTENT_INLINE &&
			    btrfs_file_extent_disk_bytenr(&fi))
				*bytes += btrfs_file_extent_disk_num_bytes(&fi);
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static int put_item(struct btrfs_trans_handle *trans, struct btrfs_root *quota,
		    const struct btrfs_key *key, const void *data, u32 len)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, quota, key, &path, 0, 1);
	if (ret == 0)
		btrfs_write_item_data(&path, 0, data, len);
	btrfs_release_path(&path);
	if (ret > 0)
		ret = btrfs_insert_item(trans, quota, key, data, len);
	return ret;
}

static int fill_one(struct btrfs_trans_handle *trans, struct btrfs_root *quota, u64 id)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct btrfs_root *root = id == BTRFS_FS_TREE_OBJECTID ? &fs->fs_root :
				  btrfs_get_root(fs, id);
	struct btrfs_key key = { 0, BTRFS_QGROUP_INFO_KEY, id };
	struct btrfs_qgroup_info_item info;
	struct btrfs_qgroup_limit_item limit;
	u64 blocks = 0, data = 0, bytes;
	int ret;

	if (!root || !root->node)
		return -ENOENT;
	ret = count_tree_blocks(root->node, &blocks);
	if (!ret)
		ret = data_bytes(root, &data);
	if (ret)
		return ret;
	bytes = blocks * fs->nodesize + data;
	memset(&info, 0, sizeof(info));
	btrfs_set_qgroup_info_generation(&info, trans->transid);
	btrfs_set_qgroup_info_rfer(&info, bytes);
	btrfs_set_qgroup_info_rfer_cmpr(&info, bytes);
	btrfs_set_qgroup_info_excl(&info, bytes);
	btrfs_set_qgroup_info_excl_cmpr(&info, bytes);
	ret = put_item(trans, quota, &key, &info, sizeof(info));
	if (ret)
		return ret;
	memset(&limit, 0, sizeof(limit));
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	return put_item(trans, quota, &key, &limit, sizeof(limit));
}

int mkfs_fill_qgroups(struct btrfs_trans_handle *trans, u64 nr_subvols)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct btrfs_root *quota = btrfs_get_root(fs, BTRFS_QUOTA_TREE_OBJECTID);
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_path path;
	u64 i;
	int ret;

	if (!quota)
		return -ENOENT;
	ret = fill_one(trans, quota, BTRFS_FS_TREE_OBJECTID);
	for (i = 0; !ret && i < nr_subvols; i++)
		ret = fill_one(trans, quota, BTRFS_FIRST_FREE_OBJECTID + i);
	if (ret)
		return ret;
	/* the status item: consistent as of this (the final) commit */
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, quota, &key, &path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret) {
		struct btrfs_qgroup_status_item st;
		u32 size = btrfs_item_size(path.nodes[0], path.slots[0]);

		if (size > sizeof(st))
			size = sizeof(st);
		memset(&st, 0, sizeof(st));
		memcpy(&st, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), size);
		btrfs_set_qgroup_status_generation(&st, trans->transid);
		/* an earlier commit flagged the numbers stale; they are exact now */
		btrfs_set_qgroup_status_flags(&st, btrfs_qgroup_status_flags(&st) &
					      ~(u64)BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT);
		btrfs_write_item_data(&path, 0, &st, size);
	}
	btrfs_release_path(&path);
	return ret;
}
