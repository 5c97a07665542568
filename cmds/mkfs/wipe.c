// SPDX-License-Identifier: GPL-2.0
/*
 * Clearing what a device held before, so that nothing but the new btrfs
 * is recognised afterwards: every signature libblkid knows (filesystems,
 * RAID members, partition tables) loses its magic, and the first and last
 * 2 MiB of the range the filesystem uses are zeroed, as mkfs.btrfs does
 * (old boot sectors, MD and GPT backup structures live there).  Old btrfs
 * superblock mirrors are the engine's job (btrfs_create_fs wipes them).
 *
 * On image files the zeroing punches holes, so a sparse image stays
 * sparse; block devices get BLKZEROOUT, or plain zero writes.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <blkid.h>
#include "mkfs.h"

#define ZERO_BYTES	(2ULL * 1024 * 1024)

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

static int zero_range(const struct mkfs_device *d, u64 start, u64 len)
{
	u64 range[2] = { start, len };

	if (!len)
		return 0;
	if (!d->is_blockdev &&
	    !fallocate(d->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		       (off_t)start, (off_t)len))
		return 0;
	if (d->is_blockdev && !ioctl(d->fd, BLKZEROOUT, range))
		return 0;
	return write_zeros(d->fd, start, len);
}

/* erase the magic of every signature libblkid finds, one at a time */
static int wipe_signatures(const struct mkfs_device *d)
{
	blkid_probe pr = blkid_new_probe();
	int ret = 0, rounds;

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
	/* a bound, in case a signature survives its wipe */
	for (rounds = 0; rounds < 64 && blkid_do_probe(pr) == 0; rounds++) {
		if (blkid_do_wipe(pr, 0)) {
			ret = errno ? -errno : -EIO;
			break;
		}
	}
out:
	blkid_free_probe(pr);
	return ret;
}

static int wipe_one(const struct mkfs_device *d)
{
	u64 head = d->size < ZERO_BYTES ? d->size : ZERO_BYTES;
	u64 tail_start = d->size > ZERO_BYTES ? d->size - ZERO_BYTES : 0;
	int ret;

	ret = wipe_signatures(d);
	if (ret) {
		mkfs_error("cannot wipe the old signatures of %s: %s", d->path,
			   strerror(-ret));
		return ret;
	}
	ret = zero_range(d, 0, head);
	if (!ret && tail_start >= head)
		ret = zero_range(d, tail_start, d->size - tail_start);
	if (ret) {
		mkfs_error("cannot zero the start and end of %s: %s", d->path,
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
