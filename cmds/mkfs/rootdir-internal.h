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
/*
 * openat() with O_NOATIME, so reading the source does not move its atimes
 * (which the walk copies); without it when the caller does not own the
 * file and is not privileged (EPERM).
 */
int rootdir_openat_noatime(int dirfd, const char *name, int flags);
int rootdir_copy_xattrs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, int fd, const char *path, u64 *count);

/* rootdir-subvol.c */
/* the --subvol whose SUBDIR is @rel, or -1 */
int rootdir_subvol_index(const struct mkfs_rootdir_opts *o, const char *rel);
struct rootdir_src;
/*
 * subvolume @id for the directory @name (index @index) of @parent_dir;
 * its xattrs are those @src has for @src_name of its directory @dir
 */
int rootdir_make_subvol(struct btrfs_trans_handle *trans, const struct mkfs_rootdir_opts *o,
			struct btrfs_root *parent, u64 parent_dir, const char *name,
			u64 index, u64 id, bool ro, const struct statx *stx,
			struct rootdir_src *src, long dir, const char *src_name,
			const char *path, struct btrfs_root **root_ret, u64 *xattrs);
/* the root tree's "default" entry points at subvolume @id */
int rootdir_set_default_subvol(struct btrfs_trans_handle *trans, u64 id);

#define ROOTDIR_STATX_MASK	(STATX_BASIC_STATS | STATX_BTIME)

/*
 * Where the walk reads the tree from: the host directory (handles are
 * directory descriptors) or a tar archive's index (handles are its
 * directory entries).  @name is an entry of the directory @dir; NULL
 * names the directory itself.  Errors are reported by the source.
 */
struct rootdir_src {
	void *priv;
	bool sealed;		/* file data cannot change while it is copied */
	int (*top)(struct rootdir_src *s, long *dir, struct statx *stx);
	/* every name of @dir, in any order */
	int (*list)(struct rootdir_src *s, long dir, const char *path,
		    int (*add)(void *arg, const char *name), void *arg);
	int (*stat)(struct rootdir_src *s, long dir, const char *name, const char *path,
		    struct statx *stx);
	int (*open_dir)(struct rootdir_src *s, long dir, const char *name, const char *path,
			long *sub);
	void (*close_dir)(struct rootdir_src *s, long dir);
	/*
	 * a descriptor to read the data from (holes as holes), the data
	 * starting at *@base of it
	 */
	int (*open_file)(struct rootdir_src *s, long dir, const char *name, const char *path,
			 int *fd, u64 *base);
	void (*close_file)(struct rootdir_src *s, long dir, const char *name, int fd);
	ssize_t (*readlink)(struct rootdir_src *s, long dir, const char *name,
			    const char *path, char *buf, size_t len);
	/* @fd: the open file, or -1 */
	int (*xattrs)(struct rootdir_src *s, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, long dir, const char *name, int fd,
		      const char *path, u64 *count);
};

/* rootdir-items.c: one xattr, with the message when it does not fit */
int rootdir_insert_xattr(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 u64 ino, const char *name, const void *val, u32 len, const char *path);

/* read the archive into an index and a data spool; fills @scan */
int rootdir_tar_read(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		     struct rootdir_scan *scan);
/* the walk's source over scan->tar */
void rootdir_tar_source(struct rootdir_tar *t, struct rootdir_src *src);

#endif
