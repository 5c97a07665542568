// SPDX-License-Identifier: GPL-2.0
/*
 * FILE_EXTENT_INVALID: the cases whose right value is known.
 *
 *  - a generation from the future: the last committed generation (the
 *    newest the item can be from), as for inode and extent items;
 *  - a preallocated extent without disk space (disk_bytenr 0): both read
 *    as zeros, so it becomes the hole it already is (a regular extent
 *    without disk space).
 *
 * The others are left with "could not fix": num_bytes 0, an offset and
 * length beyond the extent, and an inline extent after others would each
 * need the file's lost length or layout, which nothing records.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/transaction.h"

int repair_file_extent_invalid(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	u64 gen = r->trans->transid - 1;
	bool future = p->detail && !strncmp(p->detail, "generation ", 11);
	bool prealloc = p->detail &&
			!strncmp(p->detail, "prealloc extent without disk space", 34);
	struct btrfs_file_extent_item *fi;
	struct btrfs_path path;
	char ks[96];
	u64 old;
	int ret;

	if (!future && !prealloc)
		return -EOPNOTSUPP;
	if (!root || p->key.type != BTRFS_EXTENT_DATA_KEY)
		return -ENOENT;
	ret = repair_search(r, root, &p->key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*fi)) {
		btrfs_release_path(&path);
		return -EUCLEAN;
	}
	fi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_file_extent_item);
	check_format_key(&p->key, ks, sizeof(ks));
	if (future) {
		old = btrfs_file_extent_generation(fi);
		ret = old > gen ? 0 : 1;
		if (!ret)
			repair_note(r, REPAIR_OP_CHANGE, true, old, gen,
				    "root %llu %s generation", (unsigned long long)p->root, ks);
		if (!ret)
			btrfs_set_file_extent_generation(fi, gen);
	} else {
		ret = btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_PREALLOC &&
		      !btrfs_file_extent_disk_bytenr(fi) ? 0 : 1;
		if (!ret)
			repair_note(r, REPAIR_OP_CHANGE, true, BTRFS_FILE_EXTENT_PREALLOC,
				    BTRFS_FILE_EXTENT_REG,
				    "root %llu %s type (a hole: no disk space)",
				    (unsigned long long)p->root, ks);
		if (!ret)
			btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
	}
	if (!ret)
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	return ret;
}
