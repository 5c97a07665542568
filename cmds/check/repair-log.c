// SPDX-License-Identifier: GPL-2.0
/*
 * Repair of LOG_TREE_INVALID: the log tree is dropped.
 *
 * A log holds what was fsync'ed after the last commit; mounting replays
 * it.  One the check found invalid (unreadable, or naming file data that
 * has no checksums in the log nor in the csum tree) cannot be replayed
 * faithfully: the kernel refuses it or brings in data it cannot verify.
 * Dropping it leaves the filesystem as of its last commit, what `btrfs
 * rescue zero-log` does.  The log's blocks are not in the extent tree, so
 * the open for writing drops it before anything can be allocated over
 * them (repair.c); the action reports that change, once per finding.
 */
#include <errno.h>
#include "repair-chunks.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/transaction.h"

int repair_log_tree_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	u64 old = r->dropped_log_root;

	(void)p;
	if (!old)
		return -ENOENT;		/* no log to drop */
	repair_note(r, REPAIR_OP_CHANGE, true, old, 0, "superblock log_root");
	/* the superblock lost it at the open; the commit writes that */
	if (btrfs_super_log_root(&r->fs_info->super_copy))
		return -EIO;
	r->fs_info->write->super_dirty = true;
	return 0;
}
