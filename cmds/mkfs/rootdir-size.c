// SPDX-License-Identifier: GPL-2.0
/*
 * The pre-scan of --rootdir (what the tree holds: inodes, names, data as
 * allocated on the host so sparse files count by their data, hard links
 * once, xattrs) and the device size it needs: data, plus metadata sized
 * from the item counts (item headers and bodies as btrfs stores them,
 * leaves assumed half full, every copy of the profile), plus the fixed
 * chunks and a margin.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/xattr.h>
#include <sys/sysmacros.h>
#include "rootdir-internal.h"
#include "cmds/commands.h"
#include "kernel-shared/csum.h"
#include "mkfs.h"

#define SZ_1M_ (1ULL << 20)

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

/* the most host inodes with xattrs the walk is told about */
#define ROOTDIR_XATTR_INODES_MAX	65536

struct prescan {
	const struct mkfs_rootdir_opts *o;
	struct rootdir_scan *scan;
	struct rootdir_links links;
	u32 sectorsize;
	u64 top_dev;
	/* the working directory is the one being scanned (else /proc paths) */
	bool in_dir;
};

/* the walk lists the xattrs of every inode: the set is not kept */
static void forget_xattr_inodes(struct rootdir_scan *scan)
{
	if (!scan->xattr_inodes)
		return;
	rootdir_links_free(scan->xattr_inodes);
	free(scan->xattr_inodes);
	scan->xattr_inodes = NULL;
}

static void note_xattr_inode(struct rootdir_scan *scan, const struct statx *stx)
{
	u64 dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);

	if (!scan->xattr_inodes)
		return;
	if (scan->xattr_inodes->nr >= ROOTDIR_XATTR_INODES_MAX ||
	    rootdir_links_add(scan->xattr_inodes, dev, stx->stx_ino, 0))
		forget_xattr_inodes(scan);
}

/*
 * Names and values of an entry's xattrs, by the name in the working
 * directory (there is no dirfd-relative listxattr), or through
 * /proc/self/fd.  A list longer than the buffer is left uncounted (the
 * margin covers it).  An inode that has (or may have) xattrs goes in the
 * set the walk asks, so it lists only those.
 */
static void count_xattrs(struct prescan *ps, int dirfd, const char *name,
			 const struct statx *stx)
{
	char full[64 + BTRFS_NAME_LEN], list[4096], *p;
	const char *at = name;
	ssize_t len;

	if (!ps->in_dir) {
		snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", dirfd, name);
		at = full;
	}
	len = llistxattr(at, list, sizeof(list));
	if (len > 0 || (len < 0 && errno != ENOTSUP))
		note_xattr_inode(ps->scan, stx);
	for (p = list; len > 0 && p < list + len; p += strlen(p) + 1) {
		ssize_t v = lgetxattr(at, p, NULL, 0);

		ps->scan->xattrs++;
		ps->scan->xattr_bytes += strlen(p) + (v > 0 ? (u64)v : 0);
	}
}

/* make @dirfd the working directory, or stop using it */
static void enter_dir(struct prescan *ps, int dirfd)
{
	if (ps->in_dir && fchdir(dirfd))
		ps->in_dir = false;
}

static void count_file(struct prescan *ps, const struct statx *stx)
{
	u64 size = stx->stx_size, alloc = stx->stx_blocks * 512;

	if (size <= ps->o->max_inline && size < ps->sectorsize) {
		ps->scan->inline_bytes += size;
		return;
	}
	size = round_up_to(size, ps->sectorsize);
	alloc = round_up_to(alloc, ps->sectorsize);
	/* allocated bytes: sparse files by data (never more than the size) */
	size = alloc < size ? alloc : size;
	ps->scan->data_bytes += size;
	ps->scan->extents += size / ROOTDIR_MAX_EXTENT + 1;
}

static int scan_dir(struct prescan *ps, int dirfd, const char *path);

static int scan_subdir(struct prescan *ps, int dirfd, const char *name, const char *path)
{
	size_t len = strlen(path) + strlen(name) + 2;
	char *sub = malloc(len);
	int fd, ret;

	if (!sub)
		return -ENOMEM;
	snprintf(sub, len, "%s/%s", path, name);
	fd = rootdir_openat_noatime(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		cmd_error("cannot open directory %s: %m", sub);
	} else {
		ret = scan_dir(ps, fd, sub);
		close(fd);
		/* back in the parent for the rest of its entries */
		enter_dir(ps, dirfd);
	}
	free(sub);
	return ret;
}

static int scan_entry(struct prescan *ps, int dirfd, const char *name, const char *path)
{
	struct statx stx;
	u64 dev;
	int ret;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, ROOTDIR_STATX_MASK,
		  &stx)) {
		ret = -errno;
		cmd_error("cannot stat %s/%s: %m", path, name);
		return ret;
	}
	dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	ps->scan->entries++;
	ps->scan->name_bytes += strlen(name);
	if (!S_ISDIR(stx.stx_mode) && stx.stx_nlink > 1) {
		struct rootdir_link *l = rootdir_links_find(&ps->links, dev, stx.stx_ino);

		if (l)
			return 0;
		ret = rootdir_links_add(&ps->links, dev, stx.stx_ino, 0);
		if (ret)
			return ret;
	}
	ps->scan->inodes++;
	count_xattrs(ps, dirfd, name, &stx);
	if (S_ISREG(stx.stx_mode))
		count_file(ps, &stx);
	else if (S_ISLNK(stx.stx_mode))
		ps->scan->inline_bytes += stx.stx_size;
	if (!S_ISDIR(stx.stx_mode))
		return 0;
	ps->scan->dirs++;
	if (ps->o->one_file_system && dev != ps->top_dev)
		return 0;
	return scan_subdir(ps, dirfd, name, path);
}

static int scan_dir(struct prescan *ps, int dirfd, const char *path)
{
	int fd = dup(dirfd), ret = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		cmd_error("cannot read directory %s: %s", path, strerror(-ret));
		return ret;
	}
	enter_dir(ps, dirfd);
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				ret = -errno;
				cmd_error("cannot read directory %s: %m", path);
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = scan_entry(ps, dirfd, de->d_name, path);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

int rootdir_prescan(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		    struct rootdir_scan *scan)
{
	struct prescan ps = { .o = o, .scan = scan, .sectorsize = sectorsize };
	struct statx stx;
	int fd, cwd, ret;

	memset(scan, 0, sizeof(*scan));
	if (rootdir_is_tar(o->path))
		return rootdir_tar_read(o, sectorsize, scan);
	scan->xattr_inodes = calloc(1, sizeof(*scan->xattr_inodes));
	fd = rootdir_openat_noatime(AT_FDCWD, o->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOTDIR)
			cmd_error("--rootdir %s is not a directory", o->path);
		else
			cmd_error("cannot open --rootdir directory %s: %m", o->path);
		return ret;
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ps.top_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	rootdir_links_init(&ps.links);
	/* the directories are entered (one process, no threads yet) */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ps.in_dir = cwd >= 0;
	ret = scan_dir(&ps, fd, o->path);
	if (cwd >= 0 && fchdir(cwd) && !ret) {
		ret = -errno;
		cmd_error("cannot go back to the working directory: %m");
	}
	if (cwd >= 0)
		close(cwd);
	rootdir_links_free(&ps.links);
	close(fd);
	return ret;
}

void rootdir_scan_free(struct rootdir_scan *scan)
{
	forget_xattr_inodes(scan);
	rootdir_tar_free(scan->tar);
	scan->tar = NULL;
}

static u64 profile_copies(u64 profile)
{
	if (profile & (BTRFS_BLOCK_GROUP_DUP | BTRFS_BLOCK_GROUP_RAID1 |
		       BTRFS_BLOCK_GROUP_RAID10))
		return 2;
	if (profile & BTRFS_BLOCK_GROUP_RAID1C3)
		return 3;
	if (profile & BTRFS_BLOCK_GROUP_RAID1C4)
		return 4;
	return 1;
}

/* metadata bytes (every copy) the tree's items need, pessimistically */
static u64 estimate_meta(const struct rootdir_scan *s, u32 nodesize, u32 sectorsize,
			 u16 csum_size, u64 meta_profile)
{
	const u64 item = 25;	/* struct btrfs_item */
	u64 fs_tree, extent_tree, csum_tree, meta;

	/* inode item, inode ref, dir item, dir index per name; xattrs; extents */
	fs_tree = s->inodes * (item + 160) +
		  s->entries * (3 * item + 10 + 2 * 30) + 3 * s->name_bytes +
		  s->xattrs * (item + 30) + s->xattr_bytes +
		  s->extents * (item + 53) + s->inline_bytes + s->inodes * (item + 21);
	/* extent item with one inline data ref per extent */
	extent_tree = s->extents * (item + 24 + 29);
	csum_tree = s->data_bytes / sectorsize * csum_size +
		    (s->data_bytes / ROOTDIR_MAX_EXTENT + s->extents) * item;
	meta = fs_tree + extent_tree + csum_tree;
	/* half-full leaves, nodes, and the tree blocks' own extent items */
	meta = meta * 2 + meta / (nodesize / 64);
	return meta * profile_copies(meta_profile);
}

u64 rootdir_estimate_size(const struct rootdir_scan *s, u32 nodesize,
			  u32 sectorsize, u16 csum_size, u64 meta_profile,
			  u64 data_profile, bool mixed)
{
	u64 meta = estimate_meta(s, nodesize, sectorsize, csum_size, meta_profile);
	u64 data = s->data_bytes * profile_copies(mixed ? meta_profile : data_profile);
	/* the fixed part: system and first chunks, 1 MiB reserved, slack */
	u64 size = data + meta + 64 * SZ_1M_ + (data + meta) / 10;

	return round_up_to(size, SZ_1M_);
}

int mkfs_rootdir_size(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	u64 min = mkfs_min_dev_size(p);
	int ret;

	if (!p->rootdir.path)
		return 0;
	ret = rootdir_prescan(&p->rootdir, p->sectorsize, &g->scan);
	if (ret)
		return ret;
	g->rootdir_need = rootdir_estimate_size(&g->scan, p->nodesize, p->sectorsize,
						(u16)btrfs_csum_type_size(p->csum_type),
						p->meta_profile, p->data_profile, p->mixed);
	if (g->rootdir_need < min)
		g->rootdir_need = min;
	return 0;
}

/*
 * The first data chunk is made big enough for all the data (up to what
 * the device has room for, keeping space for another metadata chunk):
 * extents can then reach the kernel's 128 MiB, and with --shrink no
 * further data chunk of the default size (a tenth of the device) ends
 * past what is needed.
 */
void mkfs_rootdir_fit_chunks(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	struct mkfs_chunk_plan *d = &g->chunks[MKFS_CHUNK_DATA];
	u64 data = g->scan.data_bytes + g->scan.data_bytes / 64 + 4 * SZ_1M_;
	u64 used = SZ_1M_, room, per_dev, stripe;
	int i;

	if (!p->rootdir.path || p->mixed || !d->length || g->nr_devs != 1)
		return;
	for (i = 0; i < MKFS_NR_CHUNKS; i++) {
		const struct mkfs_chunk_plan *c = &g->chunks[i];

		if (c != d)
			used += c->stripe_size * (u64)c->num_stripes;
	}
	/*
	 * Room for the metadata the tree needs, in chunks of any size: the
	 * estimate assumes half-full leaves, appending fills them, so half
	 * of it and some slack.
	 */
	used += estimate_meta(&g->scan, p->nodesize, p->sectorsize,
			      (u16)btrfs_csum_type_size(p->csum_type), p->meta_profile) / 2 +
		32 * SZ_1M_;
	if (g->devs[0].size <= used)
		return;
	per_dev = (u64)d->num_stripes;
	room = (g->devs[0].size - used) / per_dev;
	if (data > (10ULL << 30))
		data = 10ULL << 30;
	stripe = round_up_to(data, BTRFS_STRIPE_LEN);
	if (stripe > room)
		stripe = room / BTRFS_STRIPE_LEN * BTRFS_STRIPE_LEN;
	if (stripe <= d->stripe_size)
		return;
	d->length = d->length / d->stripe_size * stripe;
	d->stripe_size = stripe;
}
