// SPDX-License-Identifier: GPL-2.0
/*
 * Directory entries: DIR_ITEM keyed by the name hash (several entries
 * share one item when their hashes collide) and DIR_INDEX keyed by the
 * entry's sequence number, plus the whole link.  And the one walk over
 * the entries of every item that packs names (dir items and indexes,
 * xattrs, inode refs and extrefs), bounded by the item: the checkers,
 * the printers and the repair read names only through it.
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

int btrfs_walk_name_entry(u8 type, const void *item, u32 size, struct btrfs_name_entry *e)
{
	u32 off = e->off + e->len, hdr, name_len, data_len = 0, left;
	const struct btrfs_dir_item *di = NULL;
	u64 index = 0, parent = 0;
	const u8 *p;

	if (off >= size)
		return 0;
	p = (const u8 *)item + off;
	switch (type) {
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		di = (const void *)p;
		hdr = sizeof(*di);
		if (size - off < hdr)
			return -EUCLEAN;
		name_len = btrfs_dir_name_len(di);
		data_len = btrfs_dir_data_len(di);
		break;
	case BTRFS_INODE_REF_KEY: {
		const struct btrfs_inode_ref *ref = (const void *)p;

		hdr = sizeof(*ref);
		if (size - off < hdr)
			return -EUCLEAN;
		name_len = btrfs_inode_ref_name_len(ref);
		index = btrfs_inode_ref_index(ref);
		break;
	}
	case BTRFS_INODE_EXTREF_KEY: {
		const struct btrfs_inode_extref *ref = (const void *)p;

		hdr = sizeof(*ref);
		if (size - off < hdr)
			return -EUCLEAN;
		name_len = btrfs_inode_extref_name_len(ref);
		index = btrfs_inode_extref_index(ref);
		parent = btrfs_inode_extref_parent(ref);
		break;
	}
	default:
		return -EUCLEAN;
	}
	memset(e, 0, sizeof(*e));
	left = size - off - hdr;
	e->name_avail = name_len < left ? name_len : left;
	left -= e->name_avail;
	e->data_avail = data_len < left ? data_len : left;
	e->off = off;
	e->len = hdr + e->name_avail + e->data_avail;
	e->name = p + hdr;
	e->name_len = name_len;
	e->data_len = data_len;
	e->index = index;
	e->parent = parent;
	e->di = di;
	if (di) {
		e->data = e->name + e->name_avail;
		btrfs_disk_key_to_cpu(&e->location, &di->location);
	}
	return 1;
}

int btrfs_next_name_entry(u8 type, const void *item, u32 size, struct btrfs_name_entry *e)
{
	struct btrfs_name_entry next = *e;
	int ret = btrfs_walk_name_entry(type, item, size, &next);

	if (ret <= 0)
		return ret;
	if (next.name_avail < next.name_len || next.data_avail < next.data_len)
		return -EUCLEAN;
	*e = next;
	return 1;
}

int btrfs_next_item_name(const struct extent_buffer *leaf, int slot,
			 struct btrfs_name_entry *e)
{
	struct btrfs_key key;
	int ret;

	btrfs_item_key_to_cpu(leaf, &key, slot);
	ret = btrfs_next_name_entry(key.type, btrfs_item_ptr_raw(leaf, slot),
				    btrfs_item_size(leaf, slot), e);
	if (ret > 0 && key.type == BTRFS_INODE_REF_KEY)
		e->parent = key.offset;
	return ret;
}

/* @fn for the entries of the item at @path */
static int item_names(const struct btrfs_path *path, const struct btrfs_key *key,
		      btrfs_name_fn fn, void *data)
{
	struct btrfs_name_entry e = { 0 };
	int ret = 0;

	while (!ret && btrfs_next_item_name(path->nodes[0], path->slots[0], &e) > 0)
		ret = fn(key, &e, data);
	return ret;
}

int btrfs_for_each_name(struct btrfs_root *root, u64 objectid, u8 first, u8 last,
			btrfs_name_fn fn, void *data)
{
	struct btrfs_key key = { objectid, first, 0 };
	struct btrfs_path path;
	int ret, stop = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && !stop) {
		btrfs_path_key(&path, &key);
		if (key.objectid != objectid || key.type > last)
			break;
		stop = item_names(&path, &key, fn, data);
		if (!stop)
			ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (stop)
		return stop;
	return ret < 0 ? ret : 0;
}

int btrfs_item_for_each_name(struct btrfs_root *root, const struct btrfs_key *key,
			     btrfs_name_fn fn, void *data)
{
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, key, &path, 0, 0);
	if (ret == 0)
		ret = item_names(&path, key, fn, data);
	else if (ret > 0)
		ret = -ENOENT;
	btrfs_release_path(&path);
	return ret;
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
