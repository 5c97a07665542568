// SPDX-License-Identifier: GPL-2.0
/*
 * --subvol: a directory of the tree becomes a subvolume.  Its tree gets a
 * root item (a new subvolume's, read-only when asked), a root directory
 * 256 carrying the source directory's mode, owner, times and xattrs; the
 * parent directory an entry pointing at the root item, the tree of tree
 * roots a ROOT_REF/ROOT_BACKREF pair, the uuid tree its UUID.  The walk
 * then fills it with inode numbers from 257 of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <uuid/uuid.h>
#include "rootdir-internal.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/fs-create.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/csum.h"

int rootdir_subvol_index(const struct mkfs_rootdir_opts *o, const char *rel)
{
	int i;

	for (i = 0; i < o->nr_subvols; i++) {
		if (!strcmp(o->subvols[i].rel, rel))
			return i;
	}
	return -1;
}

/* with -U the subvolume's UUID follows from the fsid and its id */
static void subvol_uuid(const struct btrfs_fs_info *fs, const struct mkfs_rootdir_opts *o,
			u64 id, u8 *uuid)
{
	u8 in[BTRFS_FSID_SIZE + 32], digest[BTRFS_CSUM_SIZE];
	int len;

	if (!o->derive_uuids) {
		uuid_generate(uuid);
		return;
	}
	memcpy(in, fs->fsid, BTRFS_FSID_SIZE);
	len = snprintf((char *)in + BTRFS_FSID_SIZE, 32, "subvol-%llu", (unsigned long long)id);
	btrfs_csum_data(BTRFS_CSUM_TYPE_SHA256, in, BTRFS_FSID_SIZE + (size_t)len, digest);
	memcpy(uuid, digest, BTRFS_UUID_SIZE);
	uuid[6] = (u8)((uuid[6] & 0x0f) | 0x40);
	uuid[8] = (u8)((uuid[8] & 0x3f) | 0x80);
}

static void init_root_item(struct btrfs_trans_handle *trans,
			   const struct mkfs_rootdir_opts *o, struct btrfs_root *root, bool ro)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct btrfs_root_item *ri = &root->root_item;
	struct btrfs_inode_item *inode = &ri->inode;

	btrfs_set_inode_generation(inode, 1);
	btrfs_set_inode_size(inode, 3);
	btrfs_set_inode_nlink(inode, 1);
	btrfs_set_inode_nbytes(inode, fs->nodesize);
	btrfs_set_inode_mode(inode, 040755);
	/* without it the kernel takes the item for an old one and clears the flags */
	btrfs_set_inode_flags(inode, BTRFS_INODE_ROOT_ITEM_INIT);
	btrfs_set_root_dirid(ri, BTRFS_FIRST_FREE_OBJECTID);
	btrfs_set_root_flags(ri, ro ? BTRFS_ROOT_SUBVOL_RDONLY : 0);
	subvol_uuid(fs, o, root->root_key.objectid, ri->uuid);
	btrfs_set_timespec_sec(&ri->ctime, o->now_sec);
	btrfs_set_timespec_sec(&ri->otime, o->now_sec);
	btrfs_set_root_ctransid(ri, trans->transid);
	btrfs_set_root_otransid(ri, trans->transid);
}

int rootdir_make_subvol(struct btrfs_trans_handle *trans, const struct mkfs_rootdir_opts *o,
			struct btrfs_root *parent, u64 parent_dir, const char *name,
			u64 index, u64 id, bool ro, const struct statx *stx,
			struct rootdir_src *src, long dir, const char *src_name,
			const char *path, struct btrfs_root **root_ret, u64 *xattrs)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct btrfs_key loc = { id, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_inode_params ip;
	struct btrfs_root *root;
	int len = (int)strlen(name), ret;

	ret = btrfs_create_tree(trans, id, &root);
	if (ret)
		return ret;
	init_root_item(trans, o, root, ro);
	rootdir_inode_params(o, stx, false, &ip);
	ip.nbytes = fs->nodesize;
	ret = btrfs_make_root_dir(trans, root, BTRFS_FIRST_FREE_OBJECTID, &ip);
	if (!ret)
		ret = src->xattrs(src, trans, root, BTRFS_FIRST_FREE_OBJECTID, dir, src_name, -1,
				  path, xattrs);
	if (!ret)
		ret = btrfs_insert_dir_item(trans, parent, name, len, parent_dir, &loc,
					    BTRFS_FT_DIR, index);
	if (!ret)
		ret = btrfs_add_root_ref(trans, parent->root_key.objectid, id, parent_dir,
					 index, name, len);
	if (!ret && fs->uuid_root.node)
		ret = btrfs_uuid_tree_add(trans, root->root_item.uuid, BTRFS_UUID_KEY_SUBVOL, id);
	if (!ret)
		*root_ret = root;
	return ret;
}

int rootdir_set_default_subvol(struct btrfs_trans_handle *trans, u64 id)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct btrfs_key key = { BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash("default", 7) };
	struct btrfs_key loc = { id, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_dir_item di;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(trans, &fs->tree_root, &key, &path, 0, 1);
	if (ret > 0)
		ret = -ENOENT;
	if (!ret && btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(di) + 7)
		ret = -EUCLEAN;
	if (!ret) {
		memcpy(&di, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), sizeof(di));
		btrfs_cpu_key_to_disk(&di.location, &loc);
		btrfs_write_item_data(&path, 0, &di, sizeof(di));
	}
	btrfs_release_path(&path);
	if (!ret)
		btrfs_set_super_incompat_flags(&fs->super_copy,
			btrfs_super_incompat_flags(&fs->super_copy) |
			BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL);
	return ret;
}
