/* SPDX-License-Identifier: GPL-2.0 */
/* Between the rootdir-*.c files only (struct statx needs _GNU_SOURCE). */
#ifndef GHEE_MKFS_ROOTDIR_INTERNAL_H
#define GHEE_MKFS_ROOTDIR_INTERNAL_H

#include <sys/stat.h>
#include "rootdir.h"

struct btrfs_inode_params;

/* rootdir-items.c */
void rootdir_inode_params(const struct mkfs_rootdir_opts *o, const struct statx *stx,
			  bool top, struct btrfs_inode_params *ip);
/* every xattr of @fd (or of @path when @fd < 0, not following a symlink) */
int rootdir_copy_xattrs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, int fd, const char *path, u64 *count);

#define ROOTDIR_STATX_MASK	(STATX_BASIC_STATS | STATX_BTIME)

#endif
