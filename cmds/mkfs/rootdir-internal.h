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
/*
 * openat() with O_NOATIME, so reading the source does not move its atimes
 * (which the walk copies); without it when the caller does not own the
 * file and is not privileged (EPERM).
 */
int rootdir_openat_noatime(int dirfd, const char *name, int flags);
/* every xattr of @fd (or of @path when @fd < 0, not following a symlink) */
int rootdir_copy_xattrs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, int fd, const char *path, u64 *count);

enum rootdir_xattr_fail {
	ROOTDIR_XATTR_LIST = 1,		/* listing the names */
	ROOTDIR_XATTR_GET,		/* reading the value of names[got] */
	ROOTDIR_XATTR_NOMEM,		/* (no message) */
};

/* the xattrs of an entry as read, before they are stored */
struct rootdir_xattrs {
	char *list;		/* the names as the host lists them */
	char **names;		/* sorted */
	size_t nr;
	u8 *vals;		/* the values of names[0 .. got), one after the other */
	size_t vals_len, vals_alloc;
	u32 *lens;
	size_t got;
	int err;		/* -errno: reading stopped there */
	enum rootdir_xattr_fail fail;
};

/* the copy in two steps: read (no message, returns x->err), then store */
int rootdir_read_xattrs(int fd, const char *path, struct rootdir_xattrs *x);
/* the values read, then the message and error of a failed read */
int rootdir_store_xattrs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 u64 ino, const struct rootdir_xattrs *x, const char *path, u64 *count);
void rootdir_xattrs_free(struct rootdir_xattrs *x);

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
	 * starting at *@base of it; *@pf: what was read of it ahead, or NULL
	 */
	int (*open_file)(struct rootdir_src *s, long dir, const char *name, const char *path,
			 int *fd, u64 *base, struct rootdir_prefetch **pf);
	void (*close_file)(struct rootdir_src *s, long dir, const char *name, int fd);
	ssize_t (*readlink)(struct rootdir_src *s, long dir, const char *name,
			    const char *path, char *buf, size_t len);
	/* @fd: the open file, or -1 */
	int (*xattrs)(struct rootdir_src *s, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, long dir, const char *name, int fd,
		      const char *path, u64 *count);
};

/* rootdir-names.c: a directory's names, sorted */
struct rootdir_names {
	char *pool;
	size_t pool_len, pool_alloc;
	u32 *off;		/* name offsets into pool */
	size_t nr, alloc;
};

/* add @name to the struct rootdir_names @names (a list() callback) */
int rootdir_names_add(void *names, const char *name);
void rootdir_names_sort(struct rootdir_names *l);
void rootdir_names_free(struct rootdir_names *l);
static inline const char *rootdir_names_at(const struct rootdir_names *l, size_t i)
{
	return l->pool + l->off[i];
}

/* the path of the entry being copied: DIR/sub/file */
struct rootdir_path {
	char *s;
	size_t len, alloc;
	size_t top_len;		/* of DIR: s + top_len + 1 is relative to it */
};

int rootdir_path_init(struct rootdir_path *p, const char *top);
/* "/@name" on the path; *@old: where rootdir_path_pop() cuts it again */
int rootdir_path_push(struct rootdir_path *p, const char *name, size_t *old);
void rootdir_path_pop(struct rootdir_path *p, size_t old);

/* rootdir-host.c: the host directory */
void rootdir_host_source(const char *path, struct rootdir_src *src);

/* what failed, for the message */
enum rootdir_host_op {
	ROOTDIR_HOST_STAT,
	ROOTDIR_HOST_LIST,
	ROOTDIR_HOST_OPEN_DIR,
	ROOTDIR_HOST_OPEN_FILE,
	ROOTDIR_HOST_READLINK,
};

/* the host source's message for @op failing with @err; returns @err */
int rootdir_host_report(enum rootdir_host_op op, const char *path, int err);
/* the source's calls without messages (-errno) */
int rootdir_host_open_top(const char *path, int *fd, struct statx *stx,
			  enum rootdir_host_op *failed);
/* *@readdir_failed: reading the directory failed (else @add's error is returned) */
int rootdir_host_list(int dir, int (*add)(void *arg, const char *name), void *arg,
		      bool *readdir_failed);
int rootdir_host_stat(int dir, const char *name, struct statx *stx);
/* a descriptor of @name in @dir, or -errno */
int rootdir_host_open(int dir, const char *name, bool is_dir);
ssize_t rootdir_host_readlink(int dir, const char *name, char *buf, size_t len);

/*
 * rootdir-readahead.c: the host directory as a source whose system calls
 * a thread makes ahead of the writer
 */
struct rootdir_ra_params {
	const struct mkfs_rootdir_opts *o;
	const struct rootdir_image *image;		/* not read */
	const struct rootdir_links *xattr_inodes;	/* the pre-scan's; NULL: all */
	u32 sectorsize;
	u16 csum_type;		/* the data checksums */
	u32 csum_size;
	u32 max_inline;		/* the data writer's */
	bool read_data;		/* the file data too (not for --reflink) */
	int workers;		/* compressing threads besides reader and writer */
	size_t window;		/* bytes of file data read ahead at most */
};

/* GHEE_MKFS_READAHEAD: the window in bytes; 0: no read-ahead */
size_t rootdir_ra_window(void);
/* start the thread; @src reads what it reads */
int rootdir_ra_start(const struct rootdir_ra_params *p, struct rootdir_src *src);
/* stop it (at the end of the walk, or after a failure) and free all */
void rootdir_ra_stop(struct rootdir_src *src);

/* rootdir-items.c: one xattr, with the message when it does not fit */
int rootdir_insert_xattr(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 u64 ino, const char *name, const void *val, u32 len, const char *path);

/* read the archive into an index and a data spool; fills @scan */
int rootdir_tar_read(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		     struct rootdir_scan *scan);
/* the walk's source over scan->tar */
void rootdir_tar_source(struct rootdir_tar *t, struct rootdir_src *src);

#endif
