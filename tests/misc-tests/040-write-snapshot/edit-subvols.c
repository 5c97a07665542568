// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for 040-write-snapshot: open IMAGE writable and, in each
 * subvolume given as ID:PREFIX:COUNT:XATTR_INO, add COUNT empty files
 * PREFIX-0 .. PREFIX-(COUNT-1) to the top directory and delete the xattr
 * "user.cow" of inode XATTR_INO (0: none), then commit.  The subvolumes
 * share blocks (a snapshot and its source), so this copies shared blocks
 * on write.  Exit 0 on success.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "disk-io.h"
#include "transaction.h"
#include "ctree.h"
#include "inode.h"

#define TOP_DIR 256ULL
#define XATTR_NAME "user.cow"

static void report(void *ctx, enum btrfs_report_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s: %s\n", level == BTRFS_REPORT_ERROR ? "error" : "note", msg);
}

static int add_files(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		     const char *prefix, int count)
{
	struct btrfs_inode_params ip;
	u64 ino, index;
	char name[64];
	int i, len, ret;

	ret = btrfs_find_highest_objectid(root, &ino);
	if (!ret)
		ret = btrfs_next_dir_index(root, TOP_DIR, &index);
	if (ret)
		return ret;
	memset(&ip, 0, sizeof(ip));
	ip.generation = trans->transid;
	ip.transid = trans->transid;
	ip.nlink = 1;
	ip.mode = 0100644;
	ip.atime.sec = ip.ctime.sec = ip.mtime.sec = ip.otime.sec = (u64)time(NULL);
	for (i = 0; i < count; i++) {
		ino++;
		len = snprintf(name, sizeof(name), "%s-%d", prefix, i);
		ret = btrfs_insert_inode(trans, root, ino, &ip);
		if (!ret)
			ret = btrfs_add_link(trans, root, ino, TOP_DIR, name, len,
					     BTRFS_FT_REG_FILE, index++);
		if (ret)
			return ret;
	}
	return 0;
}

static int edit_subvol(struct btrfs_trans_handle *trans, const char *spec)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	unsigned long long id, xino;
	char prefix[32];
	struct btrfs_root *root;
	int count, ret;

	if (sscanf(spec, "%llu:%31[^:]:%d:%llu", &id, prefix, &count, &xino) != 4)
		return -EINVAL;
	root = btrfs_get_root(fs, id);
	if (!root) {
		root = calloc(1, sizeof(*root));
		if (!root)
			return -ENOMEM;
		ret = btrfs_read_root(fs, id, root);
		if (!ret)
			ret = btrfs_track_root(fs, root);
		if (ret) {
			free(root);
			return ret;
		}
	}
	ret = add_files(trans, root, prefix, count);
	if (!ret && xino) {
		struct btrfs_key key = { xino, BTRFS_XATTR_ITEM_KEY,
					 btrfs_name_hash(XATTR_NAME, strlen(XATTR_NAME)) };

		ret = btrfs_delete_key(trans, root, &key);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct open_ctree_args args;
	struct btrfs_fs_info *fs;
	struct btrfs_trans_handle *trans;
	const char *paths[1];
	int i, err, ret;

	if (argc < 3) {
		fprintf(stderr, "usage: %s IMAGE ID:PREFIX:COUNT:XATTR_INO...\n", argv[0]);
		return 2;
	}
	paths[0] = argv[1];
	memset(&args, 0, sizeof(args));
	args.paths = paths;
	args.nr_paths = 1;
	args.backup_root = -1;
	args.flags = OPEN_CTREE_WRITES;
	args.reporter.report = report;
	fs = btrfs_open_ctree_writable(&args, &err);
	if (!fs) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	ret = btrfs_start_transaction(fs, &trans);
	for (i = 2; !ret && i < argc; i++) {
		ret = edit_subvol(trans, argv[i]);
		if (ret)
			fprintf(stderr, "subvolume %s: %s\n", argv[i], strerror(-ret));
	}
	if (ret)
		btrfs_abort_transaction(trans, ret);
	else
		ret = btrfs_commit_transaction(trans);
	close_ctree(fs);
	if (ret) {
		fprintf(stderr, "failed: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
