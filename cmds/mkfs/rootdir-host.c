// SPDX-License-Identifier: GPL-2.0
/*
 * The host directory as the walk's source: handles are descriptors.  The
 * calls come in two layers: rootdir_host_*() do the system calls and
 * return -errno without a word (the read-ahead thread makes them ahead
 * of the writer), rootdir_host_report() prints what a failure means, in
 * the writer, when the walk gets there.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "rootdir-internal.h"
#include "cmds/commands.h"

int rootdir_host_report(enum rootdir_host_op op, const char *path, int err)
{
	errno = -err;
	switch (op) {
	case ROOTDIR_HOST_STAT:
		cmd_error("cannot stat %s: %m", path);
		break;
	case ROOTDIR_HOST_LIST:
		cmd_error("cannot read directory %s: %m", path);
		break;
	case ROOTDIR_HOST_OPEN_DIR:
		cmd_error("cannot open directory %s: %m", path);
		break;
	case ROOTDIR_HOST_OPEN_FILE:
		cmd_error("cannot open file %s: %m", path);
		break;
	case ROOTDIR_HOST_READLINK:
		cmd_error("cannot read symlink %s: %m", path);
		break;
	}
	return err;
}

int rootdir_host_open_top(const char *path, int *fd, struct statx *stx,
			  enum rootdir_host_op *failed)
{
	int ret;

	*fd = rootdir_openat_noatime(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		*failed = ROOTDIR_HOST_OPEN_DIR;
		return -errno;
	}
	if (statx(*fd, "", AT_EMPTY_PATH, ROOTDIR_STATX_MASK, stx)) {
		ret = -errno;
		*failed = ROOTDIR_HOST_STAT;
		close(*fd);
		*fd = -1;
		return ret;
	}
	return 0;
}

int rootdir_host_list(int dir, int (*add)(void *arg, const char *name), void *arg,
		      bool *readdir_failed)
{
	int fd = dup(dir);
	struct dirent *de;
	DIR *d;
	int ret = 0;

	*readdir_failed = false;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = add(arg, de->d_name);
		if (ret)
			break;
	}
	if (!ret && errno) {
		ret = -errno;
		*readdir_failed = true;
	}
	closedir(d);
	return ret;
}

int rootdir_host_stat(int dir, const char *name, struct statx *stx)
{
	if (statx(dir, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, ROOTDIR_STATX_MASK, stx))
		return -errno;
	return 0;
}

int rootdir_host_open(int dir, const char *name, bool is_dir)
{
	int fd = rootdir_openat_noatime(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
					(is_dir ? O_DIRECTORY : 0));

	return fd < 0 ? -errno : fd;
}

ssize_t rootdir_host_readlink(int dir, const char *name, char *buf, size_t len)
{
	ssize_t n = readlinkat(dir, name, buf, len);

	return n < 0 ? -errno : n;
}

/* ---- the source ---- */

static int host_top(struct rootdir_src *s, long *dir, struct statx *stx)
{
	enum rootdir_host_op failed;
	int fd, ret = rootdir_host_open_top(s->priv, &fd, stx, &failed);

	if (ret)
		return rootdir_host_report(failed, s->priv, ret);
	*dir = fd;
	return 0;
}

static int host_list(struct rootdir_src *s, long dir, const char *path,
		     int (*add)(void *arg, const char *name), void *arg)
{
	bool readdir_failed;
	int ret = rootdir_host_list((int)dir, add, arg, &readdir_failed);

	(void)s;
	if (readdir_failed)
		rootdir_host_report(ROOTDIR_HOST_LIST, path, ret);
	return ret;
}

static int host_stat(struct rootdir_src *s, long dir, const char *name, const char *path,
		     struct statx *stx)
{
	int ret = rootdir_host_stat((int)dir, name, stx);

	(void)s;
	return ret ? rootdir_host_report(ROOTDIR_HOST_STAT, path, ret) : 0;
}

static int host_open_dir(struct rootdir_src *s, long dir, const char *name, const char *path,
			 long *sub)
{
	int fd = rootdir_host_open((int)dir, name, true);

	(void)s;
	if (fd < 0)
		return rootdir_host_report(ROOTDIR_HOST_OPEN_DIR, path, fd);
	*sub = fd;
	return 0;
}

static void host_close(struct rootdir_src *s, long dir)
{
	(void)s;
	close((int)dir);
}

static int host_open_file(struct rootdir_src *s, long dir, const char *name,
			  const char *path, int *fd, u64 *base, struct rootdir_prefetch **pf)
{
	(void)s;
	*base = 0;
	*pf = NULL;
	*fd = rootdir_host_open((int)dir, name, false);
	return *fd < 0 ? rootdir_host_report(ROOTDIR_HOST_OPEN_FILE, path, *fd) : 0;
}

static void host_close_file(struct rootdir_src *s, long dir, const char *name, int fd)
{
	(void)s;
	(void)dir;
	(void)name;
	close(fd);
}

static ssize_t host_readlink(struct rootdir_src *s, long dir, const char *name,
			     const char *path, char *buf, size_t len)
{
	ssize_t n = rootdir_host_readlink((int)dir, name, buf, len);

	(void)s;
	return n < 0 ? rootdir_host_report(ROOTDIR_HOST_READLINK, path, (int)n) : n;
}

static int host_xattrs(struct rootdir_src *s, struct btrfs_trans_handle *trans,
		       struct btrfs_root *root, u64 ino, long dir, const char *name, int fd,
		       const char *path, u64 *count)
{
	(void)s;
	/* the top directory through its descriptor, others by path */
	if (fd < 0 && !name)
		fd = (int)dir;
	return rootdir_copy_xattrs(trans, root, ino, fd, path, count);
}

void rootdir_host_source(const char *path, struct rootdir_src *src)
{
	memset(src, 0, sizeof(*src));
	src->priv = (void *)path;
	src->sealed = false;
	src->top = host_top;
	src->list = host_list;
	src->stat = host_stat;
	src->open_dir = host_open_dir;
	src->close_dir = host_close;
	src->open_file = host_open_file;
	src->close_file = host_close_file;
	src->readlink = host_readlink;
	src->xattrs = host_xattrs;
}
