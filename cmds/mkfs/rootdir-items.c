// SPDX-License-Identifier: GPL-2.0
/*
 * Inode items from what the host's statx() says (with --owner and
 * SOURCE_DATE_EPOCH applied), and the xattrs of a file, copied raw (POSIX
 * ACLs and capabilities are stored by btrfs as the VFS hands them out).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/sysmacros.h>
#include "rootdir-internal.h"
#include "lib/array.h"
#include "kernel-shared/inode.h"
#include "cmds/commands.h"

/* a time later than SOURCE_DATE_EPOCH becomes it */
static void set_time(const struct mkfs_rootdir_opts *o, const struct statx_timestamp *t,
		     u64 *sec, u32 *nsec)
{
	if (o->have_epoch && (t->tv_sec > (s64)o->epoch ||
			      (t->tv_sec == (s64)o->epoch && t->tv_nsec))) {
		*sec = o->epoch;
		*nsec = 0;
		return;
	}
	*sec = (u64)t->tv_sec;
	*nsec = t->tv_nsec;
}

/* the kernel's internal dev_t, which btrfs stores: major << 20 | minor */
static u64 kernel_rdev(const struct statx *stx)
{
	return ((u64)stx->stx_rdev_major << 20) | stx->stx_rdev_minor;
}

void rootdir_inode_params(const struct mkfs_rootdir_opts *o, const struct statx *stx,
			  bool top, struct btrfs_inode_params *ip)
{
	const struct mkfs_owner *own = top && o->root_owner.set ? &o->root_owner : &o->owner;

	memset(ip, 0, sizeof(*ip));
	ip->mode = stx->stx_mode;
	ip->uid = own->set ? own->uid : stx->stx_uid;
	ip->gid = own->set ? own->gid : stx->stx_gid;
	ip->nlink = 1;
	if (S_ISCHR(stx->stx_mode) || S_ISBLK(stx->stx_mode))
		ip->rdev = kernel_rdev(stx);
	set_time(o, &stx->stx_atime, &ip->atime.sec, &ip->atime.nsec);
	set_time(o, &stx->stx_mtime, &ip->mtime.sec, &ip->mtime.nsec);
	set_time(o, &stx->stx_ctime, &ip->ctime.sec, &ip->ctime.nsec);
	/* the creation time of the copy: the source's birth time when known */
	if (stx->stx_mask & STATX_BTIME)
		set_time(o, &stx->stx_btime, &ip->otime.sec, &ip->otime.nsec);
	else
		ip->otime = ip->ctime;
}

int rootdir_openat_noatime(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, flags | O_NOATIME);

	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags);
	return fd;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static ssize_t list_xattrs(int fd, const char *path, char *buf, size_t len)
{
	return fd >= 0 ? flistxattr(fd, buf, len) : llistxattr(path, buf, len);
}

static ssize_t get_xattr(int fd, const char *path, const char *name, void *buf,
			 size_t len)
{
	return fd >= 0 ? fgetxattr(fd, name, buf, len) : lgetxattr(path, name, buf, len);
}

static int xattrs_fail(struct rootdir_xattrs *x, enum rootdir_xattr_fail fail, int err)
{
	x->fail = fail;
	x->err = err;
	return err;
}

/* the names of @fd's (or @path's) xattrs, sorted; none when not supported */
static int xattr_names(int fd, const char *path, struct rootdir_xattrs *x)
{
	ssize_t len = list_xattrs(fd, path, NULL, 0);
	size_t i, n = 0;
	char *p;

	if (len < 0 && (errno == ENOTSUP || errno == ENODATA))
		return 0;
	if (len < 0)
		return xattrs_fail(x, ROOTDIR_XATTR_LIST, -errno);
	if (!len)
		return 0;
	x->list = malloc((size_t)len + 1);
	if (!x->list)
		return xattrs_fail(x, ROOTDIR_XATTR_NOMEM, -ENOMEM);
	len = list_xattrs(fd, path, x->list, (size_t)len);
	if (len < 0)
		return xattrs_fail(x, ROOTDIR_XATTR_LIST, -errno);
	x->list[len] = 0;
	for (p = x->list; p < x->list + len; p += strlen(p) + 1)
		n++;
	x->names = malloc(n * sizeof(char *));
	x->lens = malloc(n * sizeof(*x->lens));
	if (!x->names || !x->lens)
		return xattrs_fail(x, ROOTDIR_XATTR_NOMEM, -ENOMEM);
	for (i = 0, p = x->list; p < x->list + len; p += strlen(p) + 1)
		x->names[i++] = p;
	/* listxattr's order is the host filesystem's: sort for reproducibility */
	qsort(x->names, n, sizeof(char *), cmp_names);
	x->nr = n;
	return 0;
}

/* the value of names[x->got], appended to x->vals */
static int xattr_value(int fd, const char *path, struct rootdir_xattrs *x)
{
	const char *name = x->names[x->got];
	ssize_t len = get_xattr(fd, path, name, NULL, 0);

	if (len < 0)
		return xattrs_fail(x, ROOTDIR_XATTR_GET, -errno);
	if (ARRAY_RESERVE(x->vals, x->vals_alloc, x->vals_len + (size_t)len + 1, 256))
		return xattrs_fail(x, ROOTDIR_XATTR_NOMEM, -ENOMEM);
	len = get_xattr(fd, path, name, x->vals + x->vals_len, (size_t)len);
	if (len < 0)
		return xattrs_fail(x, ROOTDIR_XATTR_GET, -errno);
	x->lens[x->got++] = (u32)len;
	x->vals_len += (size_t)len;
	return 0;
}

int rootdir_read_xattrs(int fd, const char *path, struct rootdir_xattrs *x)
{
	int ret;

	memset(x, 0, sizeof(*x));
	ret = xattr_names(fd, path, x);
	while (!ret && x->got < x->nr)
		ret = xattr_value(fd, path, x);
	return ret;
}

void rootdir_xattrs_free(struct rootdir_xattrs *x)
{
	free(x->list);
	free(x->names);
	free(x->lens);
	free(x->vals);
	memset(x, 0, sizeof(*x));
}

int rootdir_insert_xattr(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 u64 ino, const char *name, const void *val, u32 len, const char *path)
{
	int ret = btrfs_insert_xattr_item(trans, root, ino, name, (int)strlen(name), val, len);

	if (ret == -E2BIG || ret == -ENAMETOOLONG)
		cmd_error("xattr %s of %s (%u bytes) does not fit a tree leaf",
			  name, path, len);
	return ret;
}

int rootdir_store_xattrs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			 u64 ino, const struct rootdir_xattrs *x, const char *path, u64 *count)
{
	size_t i, off = 0;
	int ret = 0;

	for (i = 0; !ret && i < x->got; i++) {
		ret = rootdir_insert_xattr(trans, root, ino, x->names[i], x->vals + off,
					   x->lens[i], path);
		off += x->lens[i];
		if (!ret)
			(*count)++;
	}
	if (ret || !x->err)
		return ret;
	/* what failed is reported where the copy got to */
	errno = -x->err;
	if (x->fail == ROOTDIR_XATTR_LIST)
		cmd_error("cannot list the xattrs of %s: %m", path);
	else if (x->fail == ROOTDIR_XATTR_GET)
		cmd_error("cannot read xattr %s of %s: %m", x->names[x->got], path);
	return x->err;
}

int rootdir_copy_xattrs(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, int fd, const char *path, u64 *count)
{
	struct rootdir_xattrs x;
	int ret;

	rootdir_read_xattrs(fd, path, &x);
	ret = rootdir_store_xattrs(trans, root, ino, &x, path, count);
	rootdir_xattrs_free(&x);
	return ret;
}
