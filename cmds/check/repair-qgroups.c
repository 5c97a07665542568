// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of QGROUP_INVALID: a quota tree without its status item.
 *
 * The status item says quotas are on and which generation its counts
 * belong to; without it the kernel cannot use the quota tree.  It is made
 * again saying "on, consistent, as of this transaction": the check that
 * follows compares every qgroup's counts with the trees, and QGROUP_COUNTS
 * puts right any that differ.  Simple quotas (their enable generation is
 * not recorded anywhere else) are left alone.
 */
#include <errno.h>
#include <string.h>
#include "repair-chunks.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/transaction.h"

int repair_qgroup_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_fs_info *fs = r->fs_info;
	struct btrfs_root *root = &fs->quota_root;
	struct btrfs_key key = { 0, BTRFS_QGROUP_STATUS_KEY, 0 };
	struct btrfs_qgroup_status_item st;
	struct btrfs_path path;
	int ret;

	if (!p->name || strcmp(p->name, "status") || !root->node)
		return -EOPNOTSUPP;
	if (btrfs_fs_incompat(fs, BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA))
		return -EOPNOTSUPP;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : 1;	/* it is there */
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "quota tree item (0 QGROUP_STATUS 0) version 1 flags ON");
	memset(&st, 0, sizeof(st));
	btrfs_set_qgroup_status_version(&st, 1);
	btrfs_set_qgroup_status_generation(&st, r->trans->transid);
	btrfs_set_qgroup_status_flags(&st, BTRFS_QGROUP_STATUS_FLAG_ON);
	return btrfs_insert_item(r->trans, root, &key, &st, sizeof(st));
}
