// SPDX-License-Identifier: GPL-2.0
/*
 * Directory entries: DIR_ITEM keyed by the name hash (several entries
 * share one item when their hashes collide) and DIR_INDEX keyed by the
 * entry's sequence number, plus the whole link.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "inode.h"
#include "ctree.h"
#include "transaction.h"
#include "crc32c.h"

u64 btrfs_name_hash(const char *name, int len)
{
	/* the raw crc32c register seeded with ~1, not inverted */
	return crc32c((u32)~1U, name, len);
}

static void fill_dir_item(struct btrfs_dir_item *di, const struct btrfs_key *location,
			  u64 transid, u8 type, int name_len)
{
	memset(di, 0, sizeof(*di));
	btrfs_cpu_key_to_disk(&di->location, location);
	btrfs_set_dir_transid(di, transid);
	btrfs_set_dir_data_len(di, 0);
	btrfs_set_dir_name_len(di, name_len);
	btrfs_set_dir_type(di, type);
}

/*
 * DIR_ITEM or XATTR_ITEM, or one more entry in the item of a colliding
 * hash; @data (xattr values) follows the name.
 */
static int insert_hashed_entry(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			       const struct btrfs_key *key, const struct btrfs_dir_item *di,
			       const char *name, int name_len, const void *data,
			       u32 data_len)
{
	u32 len = sizeof(*di) + name_len + data_len, off;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_insert_or_extend_item(trans, root, &path, key, len, &off);
	if (!ret) {
		btrfs_write_item_data(&path, off, di, sizeof(*di));
		btrfs_write_item_data(&path, off + sizeof(*di), name, name_len);
		if (data_len)
			btrfs_write_item_data(&path, off + sizeof(*di) + name_len,
					      data, data_len);
	}
	btrfs_release_path(&path);
	return ret;
}

int btrfs_insert_dir_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			  const char *name, int name_len, u64 dir,
			  const struct btrfs_key *location, u8 type, u64 index)
{
	struct btrfs_key key = { dir, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	struct btrfs_dir_item di;
	int ret;

	if (name_len <= 0 || name_len > BTRFS_NAME_LEN)
		return -ENAMETOOLONG;
	/* both items or neither: the index is asked about before the name goes in */
	if (index) {
		struct btrfs_key ikey = { dir, BTRFS_DIR_INDEX_KEY, index };

		ret = btrfs_key_guard_check(trans, root, &ikey);
		if (ret)
			return ret;
	}
	fill_dir_item(&di, location, trans->transid, type, name_len);
	ret = insert_hashed_entry(trans, root, &key, &di, name, name_len, NULL, 0);
	if (ret || !index)
		return ret;
	key.type = BTRFS_DIR_INDEX_KEY;
	key.offset = index;
	{
		u32 len = sizeof(di) + name_len;
		struct btrfs_path path;

		btrfs_init_path(&path);
		ret = btrfs_insert_empty_item(trans, root, &path, &key, len);
		if (!ret) {
			btrfs_write_item_data(&path, 0, &di, sizeof(di));
			btrfs_write_item_data(&path, sizeof(di), name, name_len);
		}
		btrfs_release_path(&path);
	}
	return ret;
}

int btrfs_insert_xattr_item(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    u64 ino, const char *name, int name_len,
			    const void *value, u32 value_len)
{
	struct btrfs_key key = { ino, BTRFS_XATTR_ITEM_KEY, btrfs_name_hash(name, name_len) };
	struct btrfs_key location = { 0, 0, 0 };
	struct btrfs_dir_item di;

	if (name_len <= 0 || name_len > BTRFS_NAME_LEN)
		return -ENAMETOOLONG;
	if (sizeof(di) + (u64)name_len + value_len >
	    btrfs_leaf_max_item_size(trans->fs_info->nodesize))
		return -E2BIG;
	fill_dir_item(&di, &location, trans->transid, BTRFS_FT_XATTR, name_len);
	btrfs_set_dir_data_len(&di, (u16)value_len);
	return insert_hashed_entry(trans, root, &key, &di, name, name_len, value,
				   value_len);
}

int btrfs_add_link(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		   u64 ino, u64 parent, const char *name, int name_len, u8 type,
		   u64 index)
{
	struct btrfs_key location = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_key keys[2] = {
		{ parent, BTRFS_DIR_ITEM_KEY, btrfs_name_hash(name, name_len) },
		{ parent, BTRFS_DIR_INDEX_KEY, index },
	};
	struct btrfs_inode_item dir;
	int i, ret = 0;

	/* the entries are asked about before the inode ref goes in */
	for (i = 0; i < (index ? 2 : 1) && !ret; i++)
		ret = btrfs_key_guard_check(trans, root, &keys[i]);
	if (!ret)
		ret = btrfs_insert_inode_ref(trans, root, name, name_len, ino, parent, index);
	if (!ret)
		ret = btrfs_insert_dir_item(trans, root, name, name_len, parent,
					    &location, type, index);
	if (!ret)
		ret = btrfs_read_inode(root, parent, &dir);
	if (ret)
		return ret;
	btrfs_set_inode_size(&dir, btrfs_inode_size(&dir) + 2 * (u64)name_len);
	return btrfs_update_inode(trans, root, parent, &dir);
}

int btrfs_next_dir_index(struct btrfs_root *root, u64 dir, u64 *index)
{
	struct btrfs_key key = { dir, BTRFS_DIR_INDEX_KEY, (u64)-1 };
	struct btrfs_path path;
	int ret;

	/* 0 and 1 stand for "." and ".." */
	*index = 2;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret >= 0) {
		ret = btrfs_previous_item(root, &path, dir, BTRFS_DIR_INDEX_KEY);
		if (ret == 0) {
			btrfs_path_key(&path, &key);
			*index = key.offset + 1;
		}
		ret = ret > 0 ? 0 : ret;
	}
	btrfs_release_path(&path);
	return ret;
}
