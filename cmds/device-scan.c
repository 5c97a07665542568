// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <blkid.h>
#include "device-scan.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/accessors.h"

static bool read_super(const char *path, struct btrfs_super_block *sb);

/*
 * A sprouted filesystem given with its seed devices, seed first: the
 * filesystem to open is the sprout (the device of another fsid that is not
 * itself a seed), so it goes first; the seeds follow as its seed devices.
 */
static void sprout_first(struct device_list *l)
{
	struct btrfs_super_block first, sb;
	const char *tmp;
	int i;

	if (l->nr_paths < 2 || !read_super(l->paths[0], &first) ||
	    !(btrfs_super_flags(&first) & BTRFS_SUPER_FLAG_SEEDING))
		return;
	for (i = 1; i < l->nr_paths; i++) {
		if (!read_super(l->paths[i], &sb) ||
		    !memcmp(sb.fsid, first.fsid, BTRFS_FSID_SIZE) ||
		    (btrfs_super_flags(&sb) & BTRFS_SUPER_FLAG_SEEDING))
			continue;
		tmp = l->paths[0];
		l->paths[0] = l->paths[i];
		l->paths[i] = tmp;
		return;
	}
}

int device_list_init(struct device_list *l, char *const *given, int nr_given)
{
	int i;

	l->paths = calloc(nr_given ? nr_given : 1, sizeof(*l->paths));
	if (!l->paths)
		return -ENOMEM;
	for (i = 0; i < nr_given; i++)
		l->paths[i] = given[i];
	l->nr_paths = nr_given;
	l->nr_given = nr_given;
	sprout_first(l);
	return 0;
}

void device_list_release(struct device_list *l)
{
	int i;

	for (i = l->nr_given; i < l->nr_paths; i++)
		free((char *)l->paths[i]);
	free(l->paths);
	l->paths = NULL;
	l->nr_paths = 0;
}

static bool read_super(const char *path, struct btrfs_super_block *sb)
{
	int fd = open(path, O_RDONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = !btrfs_read_super_raw(fd, BTRFS_SUPER_INFO_OFFSET, sb) &&
	     btrfs_super_magic(sb) == BTRFS_MAGIC;
	close(fd);
	return ok;
}

static bool have_devid(const struct device_list *l, u64 devid)
{
	struct btrfs_super_block sb;
	int i;

	for (i = 0; i < l->nr_paths; i++)
		if (read_super(l->paths[i], &sb) &&
		    btrfs_device_id(&sb.dev_item) == devid)
			return true;
	return false;
}

/* a listed device with the same devid and device uuid */
static bool have_device(const struct device_list *l, const struct btrfs_super_block *want)
{
	struct btrfs_super_block sb;
	int i;

	for (i = 0; i < l->nr_paths; i++)
		if (read_super(l->paths[i], &sb) &&
		    btrfs_device_id(&sb.dev_item) == btrfs_device_id(&want->dev_item) &&
		    !memcmp(sb.dev_item.uuid, want->dev_item.uuid, BTRFS_UUID_SIZE))
			return true;
	return false;
}

static void add_path(struct device_list *l, const char *path)
{
	const char **tmp;
	char *copy = strdup(path);

	tmp = copy ? realloc(l->paths, (l->nr_paths + 1) * sizeof(*tmp)) : NULL;
	if (!tmp) {
		free(copy);
		return;
	}
	l->paths = tmp;
	l->paths[l->nr_paths++] = copy;
}

void device_list_scan(struct device_list *l)
{
	struct btrfs_super_block first, sb;
	blkid_dev_iterate iter;
	blkid_cache cache;
	blkid_dev dev;

	if (!l->nr_paths || !read_super(l->paths[0], &first) ||
	    btrfs_super_num_devices(&first) <= (u64)l->nr_paths)
		return;
	if (blkid_get_cache(&cache, NULL) < 0)
		return;
	blkid_probe_all(cache);
	iter = blkid_dev_iterate_begin(cache);
	blkid_dev_set_search(iter, "TYPE", "btrfs");
	while (!blkid_dev_next(iter, &dev)) {
		const char *name = blkid_dev_devname(dev);
		bool seed;


		if (!name || !read_super(name, &sb))
			continue;
		/*
		 * Seed devices of a sprouted filesystem have their own fsid;
		 * the engine keeps only those its device items name, so every
		 * candidate goes in (seeds of other filesystems may share a
		 * devid with ours).
		 */
		seed = memcmp(sb.fsid, first.fsid, BTRFS_FSID_SIZE);
		if (seed && !(btrfs_super_flags(&sb) & BTRFS_SUPER_FLAG_SEEDING))
			continue;
		if (seed ? have_device(l, &sb) : have_devid(l, btrfs_device_id(&sb.dev_item)))
			continue;
		add_path(l, name);
	}
	blkid_dev_iterate_end(iter);
	blkid_put_cache(cache);
}
