// SPDX-License-Identifier: GPL-2.0
/*
 * Clearing what a device held before, so that nothing but the new btrfs
 * is recognised afterwards: every signature libblkid knows (filesystems,
 * RAID members, partition tables) loses its magic, and the first and last
 * megabyte of the range the filesystem uses are zeroed (old boot sectors,
 * MD and GPT backup structures live there).  Old btrfs superblock mirrors
 * are the engine's job (btrfs_create_fs wipes them).
 *
 * Nothing here flushes: the engine's first flush, before any superblock,
 * carries these writes too.  (blkid_do_wipe() would fsync after every
 * signature, which costs more than the rest of mkfs together.)  On image
 * files only ranges that hold data are zeroed, so a sparse image stays
 * sparse and no hole punching is needed; block devices get BLKZEROOUT, or
 * plain zero writes.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <blkid.h>
#include "mkfs.h"

#define ZERO_BYTES	(1024ULL * 1024)
#define MAX_SIGNATURES	64

static int write_zeros(int fd, u64 start, u64 len)
{
	static const u8 zero[65536];

	while (len) {
		size_t n = len < sizeof(zero) ? (size_t)len : sizeof(zero);
		ssize_t done = pwrite(fd, zero, n, (off_t)start);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		start += (u64)done;
		len -= (u64)done;
	}
	return 0;
}

/* zero the parts of [start, end) of an image file that hold data */
static int zero_file_data(int fd, u64 start, u64 end)
{
	off_t data, hole;
	int ret;

	while (start < end) {
		data = lseek(fd, (off_t)start, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? 0 : -errno;
		if ((u64)data >= end)
			return 0;
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		if ((u64)hole > end)
			hole = (off_t)end;
		ret = write_zeros(fd, (u64)data, (u64)(hole - data));
		if (ret)
			return ret;
		start = (u64)hole;
	}
	return 0;
}

static int zero_range(const struct mkfs_device *d, u64 start, u64 len)
{
	u64 range[2] = { start, len };
	int ret;

	if (!len)
		return 0;
	if (!d->is_blockdev) {
		ret = zero_file_data(d->fd, start, start + len);
		/* a filesystem without SEEK_DATA: write everything */
		if (ret != -EINVAL && ret != -EOPNOTSUPP)
			return ret;
	} else if (!ioctl(d->fd, BLKZEROOUT, range)) {
		return 0;
	}
	return write_zeros(d->fd, start, len);
}

struct signature {
	u64 offset;
	size_t len;
};

/* the magic of the signature just probed: "SB" (superblock) or "PT" */
static bool lookup_magic(blkid_probe pr, const char *kind, struct signature *sig)
{
	char name[32];
	const char *off, *magic;
	size_t len;

	snprintf(name, sizeof(name), "%sMAGIC_OFFSET", kind);
	if (blkid_probe_lookup_value(pr, name, &off, NULL))
		return false;
	snprintf(name, sizeof(name), "%sMAGIC", kind);
	if (blkid_probe_lookup_value(pr, name, &magic, &len))
		return false;
	sig->offset = strtoull(off, NULL, 10);
	sig->len = len;
	return true;
}

/* the magic of each signature libblkid finds, filesystems and tables */
static int find_signatures(const struct mkfs_device *d, struct signature *sigs,
			   int *nr)
{
	blkid_probe pr = blkid_new_probe();
	int ret = 0;

	*nr = 0;
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, d->fd, 0, 0)) {
		ret = -EIO;
		goto out;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC |
					  BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC |
					 BLKID_PARTS_FORCE_GPT);
	while (*nr < MAX_SIGNATURES && blkid_do_probe(pr) == 0) {
		if (lookup_magic(pr, "SB", &sigs[*nr]) ||
		    lookup_magic(pr, "PT", &sigs[*nr]))
			(*nr)++;
	}
out:
	blkid_free_probe(pr);
	return ret;
}

static int wipe_signatures(const struct mkfs_device *d)
{
	struct signature sigs[MAX_SIGNATURES];
	int nr, i, ret;

	ret = find_signatures(d, sigs, &nr);
	for (i = 0; !ret && i < nr; i++) {
		if (sigs[i].offset + sigs[i].len > d->raw_size)
			continue;
		ret = write_zeros(d->fd, sigs[i].offset, sigs[i].len);
	}
	return ret;
}

static int wipe_one(const struct mkfs_device *d)
{
	u64 head = d->size < ZERO_BYTES ? d->size : ZERO_BYTES;
	u64 tail_start = d->size > ZERO_BYTES ? d->size - ZERO_BYTES : 0;
	int ret;

	ret = wipe_signatures(d);
	if (ret) {
		cmd_error("cannot wipe the old signatures of %s: %s", d->path,
			   strerror(-ret));
		return ret;
	}
	ret = zero_range(d, 0, head);
	if (!ret && tail_start >= head)
		ret = zero_range(d, tail_start, d->size - tail_start);
	if (ret) {
		cmd_error("cannot zero the start and end of %s: %s", d->path,
			   strerror(-ret));
		return ret;
	}
	return 0;
}

int mkfs_wipe_devices(const struct mkfs_geometry *g)
{
	int i, ret;

	for (i = 0; i < g->nr_devs; i++) {
		ret = wipe_one(&g->devs[i]);
		if (ret)
			return ret;
	}
	return 0;
}
