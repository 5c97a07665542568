// SPDX-License-Identifier: GPL-2.0
/*
 * Safety checks before anything is written, and the device facts the
 * geometry needs.  Every target is opened once here and kept open (block
 * devices exclusively, so nobody can mount them behind our back); then
 *   - a mounted device, a swap device or a loop-backed image in use is
 *     always refused (mount detection: cmds/mount-probe.c);
 *   - libblkid probes for filesystems and partition tables, refused
 *     unless -f, naming what was found;
 *   - sizes come from BLKGETSIZE64 or st_size, clamped by -b.
 * A missing image file is created when -b gives its size.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <blkid.h>
#include <uuid/uuid.h>
#include "mkfs.h"
#include "cmds/mount-probe.h"

/*
 * libblkid: anything recognisable (filesystem, RAID member, partition
 * table) is refused without -f.  Returns 1 when something was found.
 */
static int probe_signatures(struct mkfs_device *d)
{
	blkid_probe pr = blkid_new_probe();
	const char *type;
	int ret;

	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, d->fd, 0, 0)) {
		ret = -EIO;
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, 0);
	ret = blkid_do_fullprobe(pr);
	if (ret < 0) {
		cmd_error("probe of %s failed, cannot detect existing filesystem",
			   d->path);
		ret = -EIO;
		goto out;
	}
	if (ret == 1) {
		ret = 0;
		goto out;
	}
	if (!blkid_probe_lookup_value(pr, "TYPE", &type, NULL))
		cmd_error("%s appears to contain an existing filesystem (%s)",
			   d->path, type);
	else if (!blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL))
		cmd_error("%s appears to contain a partition table (%s)",
			   d->path, type);
	else
		cmd_error("%s appears to contain something weird according to blkid",
			   d->path);
	ret = 1;
out:
	blkid_free_probe(pr);
	return ret;
}

static bool read_rotational(const struct stat *st)
{
	char path[128];
	FILE *f;
	int val = 1;

	/* a partition has no queue of its own: ask its disk */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/rotational",
		 major(st->st_rdev), minor(st->st_rdev));
	f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path),
			 "/sys/dev/block/%u:%u/../queue/rotational",
			 major(st->st_rdev), minor(st->st_rdev));
		f = fopen(path, "r");
	}
	if (!f)
		return true;
	if (fscanf(f, "%d", &val) != 1)
		val = 1;
	fclose(f);
	return val != 0;
}

/* create a missing image file of -b bytes (--rootdir: the size it needs) */
static int create_image(const struct mkfs_params *p, const struct mkfs_geometry *g,
			struct mkfs_device *d)
{
	u64 size = p->byte_count ? p->byte_count : g->rootdir_need;

	if (!size) {
		cmd_error("cannot open %s: %s (give -b SIZE to create an image file)",
			   d->path, strerror(ENOENT));
		return -ENOENT;
	}
	d->fd = open(d->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (d->fd < 0) {
		cmd_error("cannot create %s: %m", d->path);
		return -errno;
	}
	d->created = true;
	if (ftruncate(d->fd, (off_t)size)) {
		cmd_error("cannot set the size of %s to %llu: %m", d->path,
			   (unsigned long long)size);
		return -errno;
	}
	return 0;
}

static int device_size(struct mkfs_device *d, const struct stat *st)
{
	u64 size = 0;

	if (S_ISBLK(st->st_mode)) {
		if (ioctl(d->fd, BLKGETSIZE64, &size)) {
			cmd_error("cannot get the size of %s: %m", d->path);
			return -errno;
		}
	} else {
		size = (u64)st->st_size;
	}
	d->raw_size = size;
	return 0;
}

static int open_existing(const struct mkfs_params *p, struct mkfs_device *d,
			 struct stat *st)
{
	int flags = O_RDWR | O_CLOEXEC;
	int ret;

	if (!S_ISBLK(st->st_mode) && !S_ISREG(st->st_mode)) {
		cmd_error("%s is neither a block device nor a regular file",
			   d->path);
		return -EINVAL;
	}
	ret = mount_probe_refuse(d->path, st);
	if (ret)
		return ret;
	d->is_blockdev = S_ISBLK(st->st_mode);
	/* the kernel refuses O_EXCL on a block device that is mounted or held */
	if (d->is_blockdev)
		flags |= O_EXCL;
	d->fd = open(d->path, flags);
	if (d->fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			cmd_error("%s is in use (mounted, or held by another device)",
				   d->path);
		else
			cmd_error("unable to open %s: %m", d->path);
		return ret;
	}
	if (!p->force) {
		ret = probe_signatures(d);
		if (ret > 0)
			cmd_error("use the -f option to force overwrite of %s",
				   d->path);
		if (ret)
			return ret > 0 ? -EEXIST : ret;
	}
	return 0;
}

/*
 * --rootdir without -b: an image file smaller than the tree needs grows
 * (it stays sparse); a block device that small is refused before
 * anything is written.
 */
static int fit_rootdir(const struct mkfs_params *p, const struct mkfs_geometry *g,
		       struct mkfs_device *d)
{
	if (!g->rootdir_need || p->byte_count || d->raw_size >= g->rootdir_need)
		return 0;
	if (d->is_blockdev) {
		cmd_error("%s is too small for --rootdir %s: %llu bytes, at least %llu needed",
			  d->path, p->rootdir.path, (unsigned long long)d->raw_size,
			  (unsigned long long)g->rootdir_need);
		return -ENOSPC;
	}
	if (ftruncate(d->fd, (off_t)g->rootdir_need)) {
		cmd_error("cannot grow %s to %llu bytes: %m", d->path,
			  (unsigned long long)g->rootdir_need);
		return -errno;
	}
	d->raw_size = g->rootdir_need;
	return 0;
}

static int probe_one(const struct mkfs_params *p, const struct mkfs_geometry *g,
		     struct mkfs_device *d)
{
	struct stat st;
	int ret;

	if (stat(d->path, &st)) {
		if (errno != ENOENT) {
			cmd_error("cannot access %s: %m", d->path);
			return -errno;
		}
		ret = create_image(p, g, d);
		if (ret)
			return ret;
		if (fstat(d->fd, &st))
			return -errno;
	} else {
		ret = open_existing(p, d, &st);
		if (ret)
			return ret;
	}
	ret = device_size(d, &st);
	if (ret)
		return ret;
	d->rotational = d->is_blockdev ? read_rotational(&st) : true;
	ret = fit_rootdir(p, g, d);
	if (ret)
		return ret;
	d->size = d->raw_size;
	if (p->byte_count) {
		if (p->byte_count > d->raw_size) {
			cmd_error("%s is smaller than requested size, expected %llu, found %llu",
				   d->path, (unsigned long long)p->byte_count,
				   (unsigned long long)d->raw_size);
			return -ENOSPC;
		}
		d->size = p->byte_count;
	}
	return 0;
}

/* two arguments naming one device would make a filesystem that lies */
static int check_duplicates(struct mkfs_geometry *g)
{
	struct stat a, b;
	int i, j;

	for (i = 0; i < g->nr_devs; i++) {
		if (fstat(g->devs[i].fd, &a))
			return -errno;
		for (j = 0; j < i; j++) {
			if (fstat(g->devs[j].fd, &b))
				return -errno;
			if (a.st_mode == b.st_mode &&
			    (S_ISBLK(a.st_mode) ? a.st_rdev == b.st_rdev :
			     (a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
				cmd_error("%s and %s are the same device",
					   g->devs[j].path, g->devs[i].path);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* is the block device @name one of the targets, or a loop over one? */
static bool is_target(const struct mkfs_geometry *g, const char *name)
{
	struct loop_info64 info;
	struct stat st, t;
	bool loop_ok = false;
	int i, fd;

	if (stat(name, &st) || !S_ISBLK(st.st_mode))
		return false;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		loop_ok = !ioctl(fd, LOOP_GET_STATUS64, &info);
		close(fd);
	}
	for (i = 0; i < g->nr_devs; i++) {
		if (fstat(g->devs[i].fd, &t))
			continue;
		if (S_ISBLK(t.st_mode) && t.st_rdev == st.st_rdev)
			return true;
		if (S_ISREG(t.st_mode) && loop_ok && info.lo_inode == t.st_ino &&
		    info.lo_device == t.st_dev)
			return true;
	}
	return false;
}

/*
 * -U: two btrfs filesystems with one UUID confuse the kernel's device
 * scanning, so a UUID some other btrfs device carries is refused.  The
 * block devices are probed afresh (no blkid cache file: stale entries
 * would refuse UUIDs nobody uses any more).
 */
static int check_uuid_unique(const struct mkfs_params *p,
			     const struct mkfs_geometry *g)
{
	blkid_cache cache;
	blkid_dev_iterate iter;
	blkid_dev dev;
	char uuid[37];
	int ret = 0;

	if (!p->fsid_given)
		return 0;
	uuid_unparse(p->fsid, uuid);
	if (blkid_get_cache(&cache, "/dev/null"))
		return 0;
	blkid_probe_all(cache);
	iter = blkid_dev_iterate_begin(cache);
	blkid_dev_set_search(iter, "UUID", uuid);
	while (!ret && !blkid_dev_next(iter, &dev)) {
		dev = blkid_verify(cache, dev);
		if (!dev || !blkid_dev_has_tag(dev, "TYPE", "btrfs"))
			continue;
		if (is_target(g, blkid_dev_devname(dev)))
			continue;
		cmd_error("non-unique UUID: %s (in use on %s)", uuid,
			   blkid_dev_devname(dev));
		ret = -EEXIST;
	}
	blkid_dev_iterate_end(iter);
	blkid_put_cache(cache);
	return ret;
}

int mkfs_probe_devices(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	int i, ret;

	/* @g comes zeroed, with only the --rootdir size filled in */
	if (p->nr_devices > MKFS_MAX_DEVICES) {
		cmd_error("too many devices: %d (at most %d)", p->nr_devices,
			   MKFS_MAX_DEVICES);
		return -E2BIG;
	}
	for (i = 0; i < p->nr_devices; i++) {
		g->devs[i].path = p->paths[i];
		g->devs[i].fd = -1;
		g->devs[i].devid = (u64)i + 1;
	}
	g->nr_devs = p->nr_devices;
	for (i = 0; i < g->nr_devs; i++) {
		ret = probe_one(p, g, &g->devs[i]);
		if (ret)
			return ret;
	}
	ret = check_duplicates(g);
	if (!ret)
		ret = check_uuid_unique(p, g);
	return ret;
}

/*
 * TRIM the whole range the filesystem will use, so the SSD knows every
 * old block is free.  Devices that cannot discard say EOPNOTSUPP (or
 * EINVAL on some drivers): that is fine, nothing needs the discard.
 */
int mkfs_discard_devices(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	int i;

	if (!p->discard)
		return 0;
	for (i = 0; i < g->nr_devs; i++) {
		struct mkfs_device *d = &g->devs[i];
		u64 range[2] = { 0, d->size };

		if (!d->is_blockdev)
			continue;
		if (p->verbosity >= 2 && p->format == MKFS_FORMAT_TEXT) {
			char sz[32];

			mkfs_pretty_size(d->size, sz, sizeof(sz));
			printf("Performing full device TRIM %s (%s) ...\n",
			       d->path, sz);
		}
		if (ioctl(d->fd, BLKDISCARD, range) &&
		    errno != EOPNOTSUPP && errno != EINVAL &&
		    errno != ENOTTY)
			cmd_warning("discard of %s failed: %m", d->path);
	}
	return 0;
}

void mkfs_close_devices(struct mkfs_geometry *g, bool remove_created)
{
	int i;

	for (i = 0; i < g->nr_devs; i++) {
		struct mkfs_device *d = &g->devs[i];

		if (d->fd >= 0)
			close(d->fd);
		d->fd = -1;
		if (remove_created && d->created)
			unlink(d->path);
	}
}
