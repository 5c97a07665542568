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

/* rootdir-subvol.c */
/* the --subvol whose SUBDIR is @rel, or -1 */
int rootdir_subvol_index(const struct mkfs_rootdir_opts *o, const char *rel);
/* subvolume @id for the directory @name (index @index) of @parent_dir */
int rootdir_make_subvol(struct btrfs_trans_handle *trans, const struct mkfs_rootdir_opts *o,
			struct btrfs_root *parent, u64 parent_dir, const char *name,
			u64 index, u64 id, bool ro, const struct statx *stx,
			const char *path, struct btrfs_root **root_ret, u64 *xattrs);
/* the root tree's "default" entry points at subvolume @id */
int rootdir_set_default_subvol(struct btrfs_trans_handle *trans, u64 id);

#define ROOTDIR_STATX_MASK	(STATX_BASIC_STATS | STATX_BTIME)

#endif
