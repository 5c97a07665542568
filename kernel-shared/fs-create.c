// SPDX-License-Identifier: GPL-2.0
/*
 * Creating a filesystem: an fs_info built from parameters instead of a
 * superblock, the first chunks allocated in memory, then every tree of a
 * fresh filesystem created in one transaction, with the items mkfs.btrfs
 * 6.2 puts in them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "fs-create.h"
#include "transaction.h"
#include "ctree.h"
#include "extent-tree.h"
#include "block-group.h"
#include "chunk-alloc.h"
#include "write-io.h"
#include "inode.h"
#include "csum.h"

static bool is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

static int check_params(const struct btrfs_create_params *p)
{
	int i;

	if (!is_pow2(p->sectorsize) || p->sectorsize < 4096 || p->sectorsize > 65536)
		return -EINVAL;
	if (!is_pow2(p->nodesize) || p->nodesize < p->sectorsize ||
	    p->nodesize > BTRFS_MAX_METADATA_BLOCKSIZE)
		return -EINVAL;
	if (!btrfs_csum_type_valid(p->csum_type))
		return -EINVAL;
	if (p->nr_devices < 1 || p->nr_devices > GHEE_MAX_DEVICES || !p->devices)
		return -EINVAL;
	if (p->nr_chunks < 0 || p->nr_chunks > BTRFS_CREATE_MAX_CHUNKS)
		return -EINVAL;
	for (i = 0; i < p->nr_devices; i++) {
		if (p->devices[i].fd < 0 || p->devices[i].total_bytes < 16ULL * 1024 * 1024)
			return -EINVAL;
	}
	return 0;
}

static void fill_dev_item(const struct btrfs_create_params *p, int i,
			  struct btrfs_dev_item *di)
{
	const struct btrfs_create_device *d = &p->devices[i];

	memset(di, 0, sizeof(*di));
	btrfs_set_device_id(di, i + 1);
	btrfs_set_device_total_bytes(di, d->total_bytes);
	btrfs_set_device_io_align(di, d->io_align ? d->io_align : p->sectorsize);
	btrfs_set_device_io_width(di, d->io_width ? d->io_width : p->sectorsize);
	btrfs_set_device_sector_size(di, p->sectorsize);
	memcpy(di->uuid, d->uuid, BTRFS_UUID_SIZE);
	memcpy(di->fsid, p->fsid, BTRFS_FSID_SIZE);
}

static u64 device_size(int fd)
{
	struct stat st;
	u64 size = 0;

	if (fstat(fd, &st))
		return 0;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size))
			return 0;
		return size;
	}
	return st.st_size;
}

static void fill_super(const struct btrfs_create_params *p, struct btrfs_super_block *sb)
{
	u64 total = 0;
	int i;

	for (i = 0; i < p->nr_devices; i++)
		total += p->devices[i].total_bytes;
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->fsid, p->fsid, BTRFS_FSID_SIZE);
	btrfs_set_super_flags(sb, BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_set_super_magic(sb, BTRFS_MAGIC_TEMPORARY);
	btrfs_set_super_generation(sb, p->generation ? p->generation - 1 : 0);
	btrfs_set_super_total_bytes(sb, total);
	btrfs_set_super_root_dir(sb, BTRFS_ROOT_TREE_DIR_OBJECTID);
	btrfs_set_super_num_devices(sb, p->nr_devices);
	btrfs_set_super_sectorsize(sb, p->sectorsize);
	btrfs_set_super_nodesize(sb, p->nodesize);
	btrfs_set_super_leafsize(sb, p->nodesize);
	btrfs_set_super_stripesize(sb, p->stripesize ? p->stripesize : p->sectorsize);
	btrfs_set_super_compat_flags(sb, p->compat_flags);
	btrfs_set_super_compat_ro_flags(sb, p->compat_ro_flags);
	btrfs_set_super_incompat_flags(sb, p->incompat_flags |
				       BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF);
	btrfs_set_super_csum_type(sb, p->csum_type);
	if (!(p->compat_ro_flags & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		btrfs_set_super_cache_generation(sb, (u64)-1);
	memcpy(sb->label, p->label, BTRFS_LABEL_SIZE - 1);
	fill_dev_item(p, 0, &sb->dev_item);
}

static int attach_devices(struct btrfs_fs_info *fs_info,
			  const struct btrfs_create_params *p)
{
	int i;

	for (i = 0; i < p->nr_devices; i++) {
		struct btrfs_device *dev = &fs_info->devices[i];
		const struct btrfs_create_device *d = &p->devices[i];

		memset(dev, 0, sizeof(*dev));
		dev->fd = d->fd;
		dev->path = strdup(d->path ? d->path : "");
		if (!dev->path)
			return -ENOMEM;
		dev->devid = i + 1;
		memcpy(dev->uuid, d->uuid, BTRFS_UUID_SIZE);
		memcpy(dev->fsid, p->fsid, BTRFS_FSID_SIZE);
		dev->size = device_size(d->fd);
		dev->total_bytes = d->total_bytes;
		dev->writable = true;
		fs_info->num_devices++;
		if (dev->size && dev->size < d->total_bytes) {
			btrfs_err(&fs_info->reporter, "%s: %llu bytes requested but the device holds %llu",
				  dev->path, (unsigned long long)d->total_bytes,
				  (unsigned long long)dev->size);
			return -ENOSPC;
		}
	}
	return 0;
}

int btrfs_create_fs_info(const struct btrfs_create_params *p,
			 struct btrfs_fs_info **fs_ret)
{
	struct btrfs_fs_info *fs_info;
	struct btrfs_write_state *ws;
	int ret, i;

	ret = check_params(p);
	if (ret)
		return ret;
	fs_info = calloc(1, sizeof(*fs_info));
	if (!fs_info)
		return -ENOMEM;
	fs_info->reporter = p->reporter;
	chunk_map_init(&fs_info->chunk_map);
	ret = extent_buffer_cache_init(&fs_info->eb_cache, p->cache_budget);
	if (ret) {
		free(fs_info);
		return ret;
	}
	fill_super(p, &fs_info->super_copy);
	memcpy(fs_info->fsid, p->fsid, BTRFS_FSID_SIZE);
	memcpy(fs_info->metadata_uuid, p->fsid, BTRFS_FSID_SIZE);
	memcpy(fs_info->chunk_tree_uuid, p->chunk_tree_uuid, BTRFS_UUID_SIZE);
	fs_info->nodesize = p->nodesize;
	fs_info->sectorsize = p->sectorsize;
	fs_info->stripesize = btrfs_super_stripesize(&fs_info->super_copy);
	fs_info->csum_type = p->csum_type;
	fs_info->csum_size = btrfs_csum_type_size(p->csum_type);
	fs_info->incompat = btrfs_super_incompat_flags(&fs_info->super_copy);
	fs_info->compat_ro = p->compat_ro_flags;
	fs_info->generation = btrfs_super_generation(&fs_info->super_copy);
	ret = attach_devices(fs_info, p);
	if (!ret)
		ret = btrfs_write_state_init(fs_info);
	if (ret) {
		close_ctree(fs_info);
		return ret;
	}
	ws = fs_info->write;
	ws->creating = true;
	for (i = 0; i < p->nr_devices; i++) {
		fill_dev_item(p, i, &ws->dev_items[i]);
		ws->dev_item_valid[i] = true;
		ws->dev_item_dirty[i] = true;
	}
	*fs_ret = fs_info;
	return 0;
}

/* the first chunks, as requested or the default three (two when mixed) */
static int bootstrap_chunks(struct btrfs_fs_info *fs_info,
			    const struct btrfs_create_params *p)
{
	bool mixed = p->incompat_flags & BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS;
	struct btrfs_chunk_request def[3];
	const struct btrfs_chunk_request *reqs = p->chunks;
	int nr = p->nr_chunks, i, ret;

	if (!nr) {
		memset(def, 0, sizeof(def));
		def[0].type = BTRFS_BLOCK_GROUP_SYSTEM | p->system_profile;
		def[1].type = BTRFS_BLOCK_GROUP_METADATA | p->metadata_profile;
		if (mixed) {
			def[1].type |= BTRFS_BLOCK_GROUP_DATA;
			nr = 2;
		} else {
			def[2].type = BTRFS_BLOCK_GROUP_DATA | p->data_profile;
			nr = 3;
		}
		reqs = def;
	}
	for (i = 0; i < nr; i++) {
		ret = btrfs_alloc_chunk_nolock(fs_info, &reqs[i], NULL, NULL);
		if (ret) {
			btrfs_err(&fs_info->reporter, "cannot allocate the initial %s chunk: %s",
				  reqs[i].type & BTRFS_BLOCK_GROUP_SYSTEM ? "system" :
				  reqs[i].type & BTRFS_BLOCK_GROUP_METADATA ? "metadata" : "data",
				  ret == -ENOSPC ? "not enough space" : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static struct btrfs_root *fixed_root(struct btrfs_fs_info *fs_info, u64 objectid)
{
	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID: return &fs_info->tree_root;
	case BTRFS_EXTENT_TREE_OBJECTID: return &fs_info->extent_root;
	case BTRFS_CHUNK_TREE_OBJECTID: return &fs_info->chunk_root;
	case BTRFS_DEV_TREE_OBJECTID: return &fs_info->dev_root;
	case BTRFS_FS_TREE_OBJECTID: return &fs_info->fs_root;
	case BTRFS_CSUM_TREE_OBJECTID: return &fs_info->csum_root;
	case BTRFS_QUOTA_TREE_OBJECTID: return &fs_info->quota_root;
	case BTRFS_UUID_TREE_OBJECTID: return &fs_info->uuid_root;
	case BTRFS_FREE_SPACE_TREE_OBJECTID: return &fs_info->free_space_root;
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID: return &fs_info->block_group_root;
	}
	return NULL;
}

int btrfs_create_tree(struct btrfs_trans_handle *trans, u64 objectid,
		      struct btrfs_root **root_ret)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *root = fixed_root(fs_info, objectid);
	struct extent_buffer *leaf;
	bool owned = !root;
	int ret;

	if (owned) {
		root = calloc(1, sizeof(*root));
		if (!root)
			return -ENOMEM;
		ret = btrfs_track_root(fs_info, root);
		if (ret) {
			free(root);
			return ret;
		}
	} else if (root->node) {
		return -EEXIST;
	}
	memset(root, 0, sizeof(*root));
	root->fs_info = fs_info;
	root->root_key.objectid = objectid;
	root->root_key.type = BTRFS_ROOT_ITEM_KEY;
	btrfs_set_root_refs(&root->root_item, 1);
	leaf = btrfs_alloc_tree_block(trans, root, 0, NULL, &ret);
	if (!leaf)
		return ret;
	root->node = leaf;
	btrfs_root_mark_dirty(fs_info, root);
	*root_ret = root;
	return 0;
}

/* what mkfs.btrfs keeps in the inode part of the first trees' root items */
static void init_root_item_inode(struct btrfs_fs_info *fs_info, struct btrfs_root *root)
{
	struct btrfs_inode_item *inode = &root->root_item.inode;

	btrfs_set_inode_generation(inode, 1);
	btrfs_set_inode_size(inode, 3);
	btrfs_set_inode_nlink(inode, 1);
	btrfs_set_inode_nbytes(inode, fs_info->nodesize);
	btrfs_set_inode_mode(inode, 040755);
}

static void set_times(struct btrfs_inode_params *ip, const struct btrfs_create_params *p,
		      bool otime)
{
	ip->atime.sec = ip->ctime.sec = ip->mtime.sec = p->now_sec;
	ip->atime.nsec = ip->ctime.nsec = ip->mtime.nsec = p->now_nsec;
	if (otime) {
		ip->otime.sec = p->now_sec;
		ip->otime.nsec = p->now_nsec;
	}
}

static int create_trees(struct btrfs_trans_handle *trans,
			const struct btrfs_create_params *p)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct {
		u64 objectid;
		bool want;
		bool inode;	/* root item carries mkfs.btrfs's inode */
	} trees[] = {
		{ BTRFS_CHUNK_TREE_OBJECTID, true, false },
		{ BTRFS_ROOT_TREE_OBJECTID, true, false },
		{ BTRFS_EXTENT_TREE_OBJECTID, true, true },
		{ BTRFS_DEV_TREE_OBJECTID, true, true },
		{ BTRFS_FS_TREE_OBJECTID, true, true },
		{ BTRFS_CSUM_TREE_OBJECTID, true, true },
		{ BTRFS_UUID_TREE_OBJECTID, !p->no_uuid_tree, false },
		{ BTRFS_FREE_SPACE_TREE_OBJECTID,
		  p->compat_ro_flags & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE, true },
		{ BTRFS_BLOCK_GROUP_TREE_OBJECTID,
		  p->compat_ro_flags & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, true },
		{ BTRFS_DATA_RELOC_TREE_OBJECTID, !p->no_data_reloc_tree, false },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
		struct btrfs_root *root;

		if (!trees[i].want)
			continue;
		ret = btrfs_create_tree(trans, trees[i].objectid, &root);
		if (ret)
			return ret;
		if (trees[i].inode)
			init_root_item_inode(fs_info, root);
	}
	return 0;
}

static int populate_fs_tree(struct btrfs_trans_handle *trans,
			    const struct btrfs_create_params *p)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *fs_root = &fs_info->fs_root;
	struct btrfs_inode_params ip = { 0 };
	int ret;

	ip.nbytes = fs_info->nodesize;
	ip.nlink = 1;
	ip.mode = 040755;
	set_times(&ip, p, true);
	btrfs_set_root_dirid(&fs_root->root_item, BTRFS_FIRST_FREE_OBJECTID);
	memcpy(fs_root->root_item.uuid, p->fs_tree_uuid, BTRFS_UUID_SIZE);
	btrfs_set_timespec_sec(&fs_root->root_item.ctime, p->now_sec);
	btrfs_set_timespec_nsec(&fs_root->root_item.ctime, p->now_nsec);
	btrfs_set_timespec_sec(&fs_root->root_item.otime, p->now_sec);
	btrfs_set_timespec_nsec(&fs_root->root_item.otime, p->now_nsec);
	ret = btrfs_make_root_dir(trans, fs_root, BTRFS_FIRST_FREE_OBJECTID, &ip);
	if (!ret && fs_info->uuid_root.node)
		ret = btrfs_uuid_tree_add(trans, p->fs_tree_uuid, BTRFS_UUID_KEY_SUBVOL,
					  BTRFS_FS_TREE_OBJECTID);
	return ret;
}

static int populate_data_reloc_tree(struct btrfs_trans_handle *trans,
				    const struct btrfs_create_params *p)
{
	struct btrfs_root *root = btrfs_get_root(trans->fs_info,
						 BTRFS_DATA_RELOC_TREE_OBJECTID);
	struct btrfs_inode_params ip = { 0 };

	if (!root)
		return 0;
	ip.nlink = 1;
	ip.mode = 040755;
	set_times(&ip, p, false);
	btrfs_set_root_dirid(&root->root_item, BTRFS_FIRST_FREE_OBJECTID);
	return btrfs_make_root_dir(trans, root, BTRFS_FIRST_FREE_OBJECTID, &ip);
}

/* ROOT_TREE_DIR (6) with "default" pointing at the fs tree, as mkfs.btrfs does */
static int populate_root_tree(struct btrfs_trans_handle *trans,
			      const struct btrfs_create_params *p)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *tree_root = &fs_info->tree_root;
	struct btrfs_key location = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct btrfs_key key = { BTRFS_ROOT_TREE_DIR_OBJECTID, BTRFS_DIR_ITEM_KEY,
				 btrfs_name_hash("default", 7) };
	struct btrfs_inode_params ip = { 0 };
	u8 buf[sizeof(struct btrfs_dir_item) + 7];
	struct btrfs_dir_item *di = (void *)buf;
	int ret;

	ip.nbytes = fs_info->nodesize;
	ip.nlink = 1;
	ip.mode = 040755;
	set_times(&ip, p, true);
	ret = btrfs_make_root_dir(trans, tree_root, BTRFS_ROOT_TREE_DIR_OBJECTID, &ip);
	if (ret)
		return ret;
	memset(buf, 0, sizeof(buf));
	btrfs_cpu_key_to_disk(&di->location, &location);
	btrfs_set_dir_name_len(di, 7);
	btrfs_set_dir_type(di, BTRFS_FT_DIR);
	memcpy(buf + sizeof(*di), "default", 7);
	ret = btrfs_insert_item(trans, tree_root, &key, buf, sizeof(buf));
	if (ret)
		return ret;
	return btrfs_insert_inode_ref(trans, tree_root, "default", 7,
				      BTRFS_FS_TREE_OBJECTID,
				      BTRFS_ROOT_TREE_DIR_OBJECTID, 0);
}

static void set_alloc_profiles(struct btrfs_fs_info *fs_info,
			       const struct btrfs_create_params *p)
{
	struct btrfs_write_state *ws = fs_info->write;
	bool mixed = p->incompat_flags & BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS;

	ws->alloc_profile[0] = mixed ? p->metadata_profile : p->data_profile;
	ws->alloc_profile[1] = p->system_profile;
	ws->alloc_profile[2] = p->metadata_profile;
}

int btrfs_create_fs(const struct btrfs_create_params *params,
		    struct btrfs_fs_info **fs_ret,
		    struct btrfs_trans_handle **trans_ret)
{
	struct btrfs_trans_handle *trans = NULL;
	struct btrfs_fs_info *fs_info;
	int ret, i;

	ret = btrfs_create_fs_info(params, &fs_info);
	if (ret) {
		for (i = 0; i < params->nr_devices && params->devices; i++)
			if (params->devices[i].fd >= 0)
				close(params->devices[i].fd);
		return ret;
	}
	for (i = 0; i < fs_info->num_devices; i++) {
		ret = btrfs_wipe_supers(fs_info, &fs_info->devices[i]);
		if (ret)
			goto fail;
	}
	/* the old filesystem is gone for good before any of its blocks is overwritten */
	ret = btrfs_flush_all_devices(fs_info);
	if (ret)
		goto fail;
	set_alloc_profiles(fs_info, params);
	ret = bootstrap_chunks(fs_info, params);
	if (ret)
		goto fail;
	ret = btrfs_start_transaction(fs_info, &trans);
	if (ret)
		goto fail;
	ret = create_trees(trans, params);
	if (!ret)
		ret = populate_root_tree(trans, params);
	if (!ret)
		ret = populate_fs_tree(trans, params);
	if (!ret)
		ret = populate_data_reloc_tree(trans, params);
	if (ret) {
		btrfs_abort_transaction(trans, ret);
		goto fail;
	}
	*fs_ret = fs_info;
	*trans_ret = trans;
	return 0;
fail:
	close_ctree(fs_info);
	return ret;
}

int btrfs_create_fs_finish(struct btrfs_trans_handle *trans)
{
	trans->fs_info->write->creating = false;
	trans->fs_info->write->finishing = true;
	/* the creator set the quota numbers (mkfs --rootdir counts them) */
	trans->fs_info->write->qgroups_marked = true;
	return btrfs_commit_transaction(trans);
}
