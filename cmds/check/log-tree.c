// SPDX-License-Identifier: GPL-2.0
/*
 * The log tree: what the kernel replays at the next mount.  Its root is in
 * the superblock; it holds one ROOT_ITEM per subvolume log.  Each logged
 * regular file extent that carries data checksums must have them in the
 * log (or already in the checksum tree), or replay would leave data that
 * can never be read back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "log-tree.h"
#include "ranges.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"

/* is [start, start+len) fully covered by EXTENT_CSUM items of @root? */
static bool csums_cover(struct check_ctx *ctx, struct btrfs_root *root, u64 start,
			u64 len)
{
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, start };
	u32 sectorsize = ctx->fs_info->sectorsize;
	u32 csum_size = ctx->fs_info->csum_size;
	u64 covered_to = start, end = start + len;
	struct btrfs_path path;
	int ret;

	if (!root->node || !csum_size)
		return false;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret > 0 && path.slots[0] > 0)
		path.slots[0]--;	/* an item starting before may cover us */
	if (ret >= 0)
		ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0 && covered_to < end) {
		u64 item_end;

		btrfs_path_key(&path, &key);
		if (key.objectid != BTRFS_EXTENT_CSUM_OBJECTID ||
		    key.type != BTRFS_EXTENT_CSUM_KEY || key.offset > covered_to)
			break;
		item_end = key.offset +
			   (u64)(btrfs_item_size(path.nodes[0], path.slots[0]) / csum_size) *
			   sectorsize;
		if (item_end > covered_to)
			covered_to = item_end;
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return covered_to >= end;
}

/* the inode's NODATASUM flag, from the log or else from the subvolume */
static bool inode_nodatasum(struct check_ctx *ctx, struct btrfs_root *log,
			    u64 subvol, u64 ino)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_root fs_root;
	struct btrfs_path path;
	bool nodatasum = false, found = false;

	btrfs_init_path(&path);
	if (btrfs_search_slot(NULL, log, &key, &path, 0, 0) == 0) {
		found = true;
	} else if (!btrfs_read_root(ctx->fs_info, subvol, &fs_root)) {
		btrfs_release_path(&path);
		if (btrfs_search_slot(NULL, &fs_root, &key, &path, 0, 0) == 0)
			found = true;
		if (found && btrfs_item_size(path.nodes[0], path.slots[0]) >=
			     sizeof(struct btrfs_inode_item))
			nodatasum = btrfs_inode_flags(btrfs_item_ptr(path.nodes[0],
					path.slots[0], struct btrfs_inode_item)) &
				    BTRFS_INODE_NODATASUM;
		btrfs_release_path(&path);
		btrfs_release_root(&fs_root);
		return nodatasum;
	}
	if (found && btrfs_item_size(path.nodes[0], path.slots[0]) >=
		     sizeof(struct btrfs_inode_item))
		nodatasum = btrfs_inode_flags(btrfs_item_ptr(path.nodes[0], path.slots[0],
				struct btrfs_inode_item)) & BTRFS_INODE_NODATASUM;
	btrfs_release_path(&path);
	return nodatasum;
}

static void check_logged_extent(struct check_ctx *ctx, struct btrfs_root *log,
				u64 subvol, struct extent_buffer *leaf, int slot,
				const struct btrfs_key *key)
{
	const struct btrfs_file_extent_item *fi;
	u64 start, len;
	char detail[200];

	if (btrfs_item_size(leaf, slot) < sizeof(*fi))
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
	if (!len || csums_cover(ctx, log, start, len) ||
	    csums_cover(ctx, &ctx->fs_info->csum_root, start, len) ||
	    inode_nodatasum(ctx, log, subvol, key->objectid))
		return;
	snprintf(detail, sizeof(detail),
		 "subvolume %llu inode %llu file extent at %llu: data [%llu %llu] has no checksums in the log or the csum tree",
		 (unsigned long long)subvol, (unsigned long long)key->objectid,
		 (unsigned long long)key->offset, (unsigned long long)start,
		 (unsigned long long)len);
	check_problem(ctx, PR_LOG_TREE_INVALID, &(struct problem_ctx){ .detail = detail });
}

/* what to do with each subvolume's log */
typedef void (*log_visit_fn)(struct check_ctx *ctx, u64 subvol, struct btrfs_root *log,
			     void *arg);

/* read one subvolume's log and hand it to @fn; @report: say when it is unreadable */
static void visit_one_log(struct check_ctx *ctx, u64 subvol, u64 bytenr, u64 gen,
			  u8 level, bool report, log_visit_fn fn, void *arg)
{
	struct tree_block_check tbc = { .transid = gen, .level = level };
	struct btrfs_root log = { .fs_info = ctx->fs_info };
	char detail[700];
	int ret;

	log.root_key.objectid = BTRFS_TREE_LOG_OBJECTID;
	log.node = read_tree_block(ctx->fs_info, bytenr, &tbc, &ret);
	if (!log.node) {
		if (!report)
			return;
		snprintf(detail, sizeof(detail), "log of subvolume %llu at %llu cannot be read: %s",
			 (unsigned long long)subvol, (unsigned long long)bytenr,
			 ctx->shared->last_engine_msg);
		check_problem(ctx, PR_LOG_TREE_INVALID, &(struct problem_ctx){ .detail = detail });
		return;
	}
	fn(ctx, subvol, &log, arg);
	btrfs_release_root(&log);
}

/* every subvolume log the superblock's log root tree names */
static void visit_logs(struct check_ctx *ctx, bool report, log_visit_fn fn, void *arg)
{
	const struct btrfs_super_block *sb = &ctx->fs_info->super_copy;
	struct tree_block_check tbc = { .level = btrfs_super_log_root_level(sb) };
	struct btrfs_root log_root = { .fs_info = ctx->fs_info };
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	if (!btrfs_super_log_root(sb))
		return;
	tbc.transid = btrfs_super_generation(sb) + 1;
	log_root.root_key.objectid = BTRFS_TREE_LOG_OBJECTID;
	log_root.node = read_tree_block(ctx->fs_info, btrfs_super_log_root(sb), &tbc, &ret);
	if (!log_root.node) {
		if (report)
			check_problem(ctx, PR_LOG_TREE_INVALID, &(struct problem_ctx){
				.detail = ctx->shared->last_engine_msg });
		return;
	}
	btrfs_init_path(&path);
	ret = check_iter_start(&log_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid == BTRFS_TREE_LOG_OBJECTID &&
		    key.type == BTRFS_ROOT_ITEM_KEY &&
		    btrfs_item_size(path.nodes[0], path.slots[0]) >= BTRFS_ROOT_ITEM_V1_SIZE) {
			const struct btrfs_root_item *ri = btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_root_item);

			visit_one_log(ctx, key.offset, btrfs_root_bytenr(ri),
				      btrfs_root_generation(ri), btrfs_root_level(ri),
				      report, fn, arg);
		}
		ret = check_iter_next(&log_root, &path);
	}
	btrfs_release_path(&path);
	btrfs_release_root(&log_root);
}

/* each EXTENT_DATA item of a log, with its leaf held */
static void for_each_logged_extent(struct btrfs_root *log,
				   void (*fn)(struct extent_buffer *leaf, int slot,
					      const struct btrfs_key *key, void *arg),
				   void *arg)
{
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(log, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_DATA_KEY) {
			struct extent_buffer *leaf = extent_buffer_get(path.nodes[0]);

			fn(leaf, path.slots[0], &key, arg);
			free_extent_buffer(leaf);
		}
		ret = check_iter_next(log, &path);
	}
	btrfs_release_path(&path);
}

struct logged_check {
	struct check_ctx *ctx;
	struct btrfs_root *log;
	u64 subvol;
};

static void check_logged_item(struct extent_buffer *leaf, int slot,
			      const struct btrfs_key *key, void *arg)
{
	struct logged_check *lc = arg;

	check_logged_extent(lc->ctx, lc->log, lc->subvol, leaf, slot, key);
}

static void check_one_log(struct check_ctx *ctx, u64 subvol, struct btrfs_root *log,
			  void *arg)
{
	struct logged_check lc = { ctx, log, subvol };

	(void)arg;
	for_each_logged_extent(log, check_logged_item, &lc);
}

int check_log_tree(struct check_ctx *ctx)
{
	visit_logs(ctx, true, check_one_log, NULL);
	return 0;
}

static void add_logged_item(struct extent_buffer *leaf, int slot,
			    const struct btrfs_key *key, void *arg)
{
	const struct btrfs_file_extent_item *fi;
	u8 type;

	(void)key;
	if (btrfs_item_size(leaf, slot) < sizeof(*fi))
		return;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	type = btrfs_file_extent_type(fi);
	if ((type == BTRFS_FILE_EXTENT_REG || type == BTRFS_FILE_EXTENT_PREALLOC) &&
	    btrfs_file_extent_disk_bytenr(fi) && btrfs_file_extent_disk_num_bytes(fi))
		range_list_add(arg, btrfs_file_extent_disk_bytenr(fi),
			       btrfs_file_extent_disk_num_bytes(fi));
}

static void add_one_log(struct check_ctx *ctx, u64 subvol, struct btrfs_root *log,
			void *arg)
{
	(void)ctx;
	(void)subvol;
	for_each_logged_extent(log, add_logged_item, arg);
}

void log_tree_data_extents(struct check_ctx *ctx, struct range_list *extents)
{
	visit_logs(ctx, false, add_one_log, extents);
}
