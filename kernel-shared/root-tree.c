// SPDX-License-Identifier: GPL-2.0
/*
 * Items of the tree of tree roots (root items, root refs and backrefs)
 * and of the uuid tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "inode.h"
#include "ctree.h"
#include "transaction.h"

int btrfs_insert_root_item(struct btrfs_trans_handle *trans, u64 objectid,
			   const struct btrfs_root_item *item)
{
	struct btrfs_key key = { objectid, BTRFS_ROOT_ITEM_KEY, 0 };

	return btrfs_insert_item(trans, &trans->fs_info->tree_root, &key, item,
				 sizeof(*item));
}

int btrfs_update_root_item(struct btrfs_trans_handle *trans, u64 objectid,
			   const struct btrfs_root_item *item)
{
	struct btrfs_key key = { objectid, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_root *tree_root = &trans->fs_info->tree_root;
	struct btrfs_path path;
	int ret;

	/* the newest ROOT_ITEM of the objectid, whatever its offset */
	key.offset = (u64)-1;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, tree_root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_previous_item(tree_root, &path, objectid, BTRFS_ROOT_ITEM_KEY);
	if (ret) {
		ret = ret > 0 ? -ENOENT : ret;
		goto out;
	}
	btrfs_path_key(&path, &key);
	btrfs_release_path(&path);
	if (key.objectid != objectid) {
		ret = -ENOENT;
		goto out;
	}
	ret = btrfs_search_slot(trans, tree_root, &key, &path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret) {
		u32 size = btrfs_item_size(path.nodes[0], path.slots[0]);

		btrfs_write_item_data(&path, 0, item, size < sizeof(*item) ? size : sizeof(*item));
	}
out:
	btrfs_release_path(&path);
	return ret;
}

static int insert_root_ref(struct btrfs_trans_handle *trans, u64 from, u8 type,
			   u64 to, u64 dirid, u64 sequence, const char *name,
			   int name_len)
{
	struct btrfs_key key = { from, type, to };
	struct btrfs_root_ref ref;
	struct btrfs_path path;
	int ret;

	btrfs_set_root_ref_dirid(&ref, dirid);
	btrfs_set_root_ref_sequence(&ref, sequence);
	btrfs_set_root_ref_name_len(&ref, name_len);
	btrfs_init_path(&path);
	ret = btrfs_insert_empty_item(trans, &trans->fs_info->tree_root, &path, &key,
				      sizeof(ref) + name_len);
	if (!ret) {
		btrfs_write_item_data(&path, 0, &ref, sizeof(ref));
		btrfs_write_item_data(&path, sizeof(ref), name, name_len);
	}
	btrfs_release_path(&path);
	return ret;
}

int btrfs_add_root_ref(struct btrfs_trans_handle *trans, u64 parent, u64 child,
		       u64 dirid, u64 sequence, const char *name, int name_len)
{
	int ret;

	if (name_len <= 0 || name_len > BTRFS_NAME_LEN)
		return -ENAMETOOLONG;
	ret = insert_root_ref(trans, parent, BTRFS_ROOT_REF_KEY, child, dirid,
			      sequence, name, name_len);
	if (!ret)
		ret = insert_root_ref(trans, child, BTRFS_ROOT_BACKREF_KEY, parent,
				      dirid, sequence, name, name_len);
	return ret;
}

int btrfs_uuid_tree_add(struct btrfs_trans_handle *trans, const u8 *uuid,
			u8 type, u64 subvol)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *root = &fs_info->uuid_root;
	struct btrfs_key key;
	struct btrfs_path path;
	u8 le[sizeof(u64)];
	u32 size, off;
	int ret;

	if (!root->node)
		return -ENOENT;
	key.objectid = get_unaligned_le64(uuid);
	key.type = type;
	key.offset = get_unaligned_le64(uuid + sizeof(u64));
	put_unaligned_le64(subvol, le);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, &key, &path, sizeof(u64), 1);
	if (ret < 0)
		goto out;
	if (ret > 0) {
		btrfs_release_path(&path);
		ret = btrfs_insert_item(trans, root, &key, le, sizeof(le));
		goto done;
	}
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	for (off = 0; off + sizeof(u64) <= size; off += sizeof(u64)) {
		if (get_unaligned_le64((u8 *)btrfs_item_ptr_raw(path.nodes[0],
								path.slots[0]) + off) == subvol)
			goto out;	/* already there */
	}
	if (btrfs_leaf_free_space(path.nodes[0]) < sizeof(u64)) {
		ret = -EOVERFLOW;	/* the item fills a leaf */
		goto out;
	}
	btrfs_extend_item(&path, sizeof(u64));
	btrfs_write_item_data(&path, size, le, sizeof(le));
done:
	if (!ret)
		fs_info->write->uuid_tree_changed = true;
out:
	btrfs_release_path(&path);
	return ret;
}
