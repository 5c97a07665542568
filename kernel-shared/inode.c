// SPDX-License-Identifier: GPL-2.0
/*
 * Inode items and inode references (INODE_REF, and INODE_EXTREF when a
 * name no longer fits the INODE_REF item of its parent).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "inode.h"
#include "ctree.h"
#include "transaction.h"
#include "crc32c.h"

static void set_ts(struct btrfs_timespec *ts, u64 sec, u32 nsec)
{
	btrfs_set_timespec_sec(ts, sec);
	btrfs_set_timespec_nsec(ts, nsec);
}

static void fill_inode_item(struct btrfs_trans_handle *trans,
			    struct btrfs_inode_item *item,
			    const struct btrfs_inode_params *p)
{
	memset(item, 0, sizeof(*item));
	btrfs_set_inode_generation(item, p->generation ? p->generation : trans->transid);
	btrfs_set_inode_transid(item, p->transid);
	btrfs_set_inode_size(item, p->size);
	btrfs_set_inode_nbytes(item, p->nbytes);
	btrfs_set_inode_nlink(item, p->nlink);
	btrfs_set_inode_uid(item, p->uid);
	btrfs_set_inode_gid(item, p->gid);
	btrfs_set_inode_mode(item, p->mode);
	btrfs_set_inode_rdev(item, p->rdev);
	btrfs_set_inode_flags(item, p->flags);
	btrfs_set_inode_sequence(item, p->sequence);
	set_ts(&item->atime, p->atime.sec, p->atime.nsec);
	set_ts(&item->ctime, p->ctime.sec, p->ctime.nsec);
	set_ts(&item->mtime, p->mtime.sec, p->mtime.nsec);
	set_ts(&item->otime, p->otime.sec, p->otime.nsec);
}

int btrfs_insert_inode(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		       u64 ino, const struct btrfs_inode_params *params)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_item item;

	fill_inode_item(trans, &item, params);
	return btrfs_insert_item(trans, root, &key, &item, sizeof(item));
}

int btrfs_read_inode(struct btrfs_root *root, u64 ino, struct btrfs_inode_item *out)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_item_size(path.nodes[0], path.slots[0]) != sizeof(*out))
		ret = -EUCLEAN;
	if (!ret)
		memcpy(out, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), sizeof(*out));
	btrfs_release_path(&path);
	return ret;
}

int btrfs_update_inode(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		       u64 ino, const struct btrfs_inode_item *item)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, root, &key, &path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_item_size(path.nodes[0], path.slots[0]) != sizeof(*item))
		ret = -EUCLEAN;
	if (!ret)
		btrfs_write_item_data(&path, 0, item, sizeof(*item));
	btrfs_release_path(&path);
	return ret;
}

u8 btrfs_mode_to_type(u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return BTRFS_FT_REG_FILE;
	case S_IFDIR: return BTRFS_FT_DIR;
	case S_IFCHR: return BTRFS_FT_CHRDEV;
	case S_IFBLK: return BTRFS_FT_BLKDEV;
	case S_IFIFO: return BTRFS_FT_FIFO;
	case S_IFSOCK: return BTRFS_FT_SOCK;
	case S_IFLNK: return BTRFS_FT_SYMLINK;
	}
	return BTRFS_FT_UNKNOWN;
}

u64 btrfs_extref_hash(u64 parent, const char *name, int len)
{
	return crc32c((u32)parent, name, len);
}

static int insert_extref(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 const char *name, int name_len, u64 ino, u64 parent, u64 index)
{
	struct btrfs_key key = { ino, BTRFS_INODE_EXTREF_KEY,
				 btrfs_extref_hash(parent, name, name_len) };
	struct btrfs_inode_extref ref;
	struct btrfs_path path;
	u32 off;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_insert_or_extend_item(trans, root, &path, &key, sizeof(ref) + name_len, &off);
	if (!ret) {
		btrfs_set_inode_extref_parent(&ref, parent);
		btrfs_set_inode_extref_index(&ref, index);
		btrfs_set_inode_extref_name_len(&ref, name_len);
		btrfs_write_item_data(&path, off, &ref, sizeof(ref));
		btrfs_write_item_data(&path, off + sizeof(ref), name, name_len);
	}
	btrfs_release_path(&path);
	return ret;
}

int btrfs_insert_inode_ref(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			   const char *name, int name_len, u64 ino, u64 parent,
			   u64 index)
{
	struct btrfs_key key = { ino, BTRFS_INODE_REF_KEY, parent };
	struct btrfs_inode_ref ref;
	struct btrfs_path path;
	u32 off;
	int ret;

	if (name_len <= 0 || name_len > BTRFS_NAME_LEN)
		return -ENAMETOOLONG;
	btrfs_init_path(&path);
	ret = btrfs_insert_or_extend_item(trans, root, &path, &key, sizeof(ref) + name_len, &off);
	if (!ret) {
		btrfs_set_inode_ref_index(&ref, index);
		btrfs_set_inode_ref_name_len(&ref, name_len);
		btrfs_write_item_data(&path, off, &ref, sizeof(ref));
		btrfs_write_item_data(&path, off + sizeof(ref), name, name_len);
	}
	btrfs_release_path(&path);
	if (ret == -EOVERFLOW &&
	    btrfs_fs_incompat(trans->fs_info, BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF))
		ret = insert_extref(trans, root, name, name_len, ino, parent, index);
	return ret;
}

int btrfs_make_root_dir(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, const struct btrfs_inode_params *params)
{
	int ret = btrfs_insert_inode(trans, root, ino, params);

	if (ret)
		return ret;
	return btrfs_insert_inode_ref(trans, root, "..", 2, ino, ino, 0);
}

int btrfs_find_highest_objectid(struct btrfs_root *root, u64 *objectid)
{
	struct btrfs_key key = { BTRFS_LAST_FREE_OBJECTID, (u8)-1, (u64)-1 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_prev_item(root, &path);
	if (ret < 0)
		goto out;
	*objectid = BTRFS_FIRST_FREE_OBJECTID - 1;
	if (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid >= BTRFS_FIRST_FREE_OBJECTID)
			*objectid = key.objectid;
	}
	ret = 0;
out:
	btrfs_release_path(&path);
	return ret;
}
