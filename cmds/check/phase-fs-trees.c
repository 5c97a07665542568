// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 7: filesystem trees.
 *
 * Every subvolume tree is streamed in key order; the items of one inode
 * are contiguous, so one inode record is kept at a time.  This first
 * version checks that each inode has its inode item, that only key types
 * known to live in filesystem trees appear, and records for phase 8 the
 * data each checksummed file extent reads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"

struct inode_rec {
	u64 ino;
	bool has_inode_item;
	bool nodatasum;
	bool reported_missing;
};

static bool fs_tree_key_type_known(u8 type)
{
	switch (type) {
	case BTRFS_INODE_ITEM_KEY:
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
	case BTRFS_XATTR_ITEM_KEY:
	case BTRFS_VERITY_DESC_ITEM_KEY:
	case BTRFS_VERITY_MERKLE_ITEM_KEY:
	case BTRFS_ORPHAN_ITEM_KEY:
	case BTRFS_DIR_LOG_ITEM_KEY:
	case BTRFS_DIR_LOG_INDEX_KEY:
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_EXTENT_DATA_KEY:
		return true;
	}
	return false;
}

static void record_csum_need(struct check_ctx *ctx, u64 root_id,
			     const struct inode_rec *rec,
			     struct extent_buffer *leaf, int slot)
{
	const struct btrfs_file_extent_item *fi;
	u64 start, len;

	if (rec->nodatasum || btrfs_item_size(leaf, slot) < sizeof(*fi))
		return;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_REG ||
	    !btrfs_file_extent_disk_bytenr(fi))
		return;
	if (btrfs_file_extent_compression(fi)) {
		start = btrfs_file_extent_disk_bytenr(fi);
		len = btrfs_file_extent_disk_num_bytes(fi);
	} else {
		start = btrfs_file_extent_disk_bytenr(fi) + btrfs_file_extent_offset(fi);
		len = btrfs_file_extent_num_bytes(fi);
	}
	check_need_csums(ctx->shared, start, len, root_id, rec->ino);
}

static void check_item(struct check_ctx *ctx, u64 root_id, struct inode_rec *rec,
		       struct extent_buffer *leaf, int slot, const struct btrfs_key *key)
{
	if (key->objectid != rec->ino) {
		memset(rec, 0, sizeof(*rec));
		rec->ino = key->objectid;
	}
	if (key->objectid == BTRFS_ORPHAN_OBJECTID && key->type == BTRFS_ORPHAN_ITEM_KEY)
		return;
	if (!fs_tree_key_type_known(key->type)) {
		check_problem(ctx, PR_FS_TREE_UNKNOWN_KEY, &(struct problem_ctx){
			.root = root_id, .key = *key });
		return;
	}
	if (key->type == BTRFS_INODE_ITEM_KEY) {
		rec->has_inode_item = true;
		if (btrfs_item_size(leaf, slot) >= sizeof(struct btrfs_inode_item))
			rec->nodatasum = btrfs_inode_flags(btrfs_item_ptr(leaf, slot,
					struct btrfs_inode_item)) & BTRFS_INODE_NODATASUM;
		return;
	}
	if (!rec->has_inode_item && !rec->reported_missing &&
	    key->objectid >= BTRFS_FIRST_FREE_OBJECTID) {
		rec->reported_missing = true;
		check_problem(ctx, PR_INODE_ITEM_MISSING, &(struct problem_ctx){
			.root = root_id, .inode = key->objectid,
			.detail = "items exist for it" });
	}
	if (key->type == BTRFS_EXTENT_DATA_KEY)
		record_csum_need(ctx, root_id, rec, leaf, slot);
}

static int check_one_tree(struct check_ctx *ctx, u64 root_id)
{
	struct btrfs_key key = { 0, 0, 0 };
	struct inode_rec rec = { 0 };
	struct btrfs_root root;
	struct btrfs_path path;
	int ret;

	ret = btrfs_read_root(ctx->fs_info, root_id, &root);
	if (ret)
		return 0;	/* phases 3 and 4 report unreadable trees */
	if (!btrfs_root_refs(&root.root_item)) {
		btrfs_release_root(&root);
		return 0;	/* being deleted */
	}
	btrfs_init_path(&path);
	ret = check_iter_start(&root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		check_item(ctx, root_id, &rec, path.nodes[0], path.slots[0], &key);
		ret = check_iter_next(&root, &path);
	}
	btrfs_release_path(&path);
	btrfs_release_root(&root);
	return ret < 0 ? ret : 0;
}

/* every subvolume tree id, from the root tree */
static int for_each_fs_tree(struct check_ctx *ctx)
{
	struct btrfs_root *tree_root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	u64 last = 0;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(tree_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid > BTRFS_LAST_FREE_OBJECTID)
			break;
		if (key.type == BTRFS_ROOT_ITEM_KEY && key.objectid != last &&
		    (key.objectid == BTRFS_FS_TREE_OBJECTID ||
		     key.objectid >= BTRFS_FIRST_FREE_OBJECTID)) {
			last = key.objectid;
			ret = check_one_tree(ctx, key.objectid);
			if (ret)
				break;
		}
		ret = check_iter_next(tree_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

int check_phase_fs_trees(struct check_ctx *ctx)
{
	return for_each_fs_tree(ctx);
}
