// SPDX-License-Identifier: GPL-2.0
/*
 * Mount and swap status of a device or image file, from /proc and /sys
 * only (no ioctl on the filesystem itself, so it works for any mount).
 * The target is reduced to a set of block device numbers: the device
 * itself, or every loop device backed by the image file, plus the other
 * members of a btrfs that one of them belongs to while it is mounted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <linux/loop.h>
#include "mount-probe.h"
#include "cmds/commands.h"
#include "lib/array.h"

struct dev_set {
	dev_t *devs;
	size_t nr, alloc;
	/* loop device path of the first image-backed entry, for messages */
	char loopdev[PATH_MAX];
};

static int dev_set_add(struct dev_set *s, dev_t dev)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->devs[i] == dev)
			return 0;
	if (ARRAY_RESERVE(s->devs, s->alloc, s->nr + 1, 8))
		return -ENOMEM;
	s->devs[s->nr++] = dev;
	return 0;
}

static bool dev_set_has(const struct dev_set *s, dev_t dev)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->devs[i] == dev)
			return true;
	return false;
}

/* the unescaped form of a /proc path field ("\040" is a space) */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* true when @path names the same object as @st (block device or file) */
static bool same_object(const char *path, const struct stat *st)
{
	struct stat other;

	if (stat(path, &other))
		return false;
	if (S_ISBLK(st->st_mode))
		return S_ISBLK(other.st_mode) && other.st_rdev == st->st_rdev;
	return S_ISREG(other.st_mode) && other.st_dev == st->st_dev &&
	       other.st_ino == st->st_ino;
}

bool mount_probe_is_swap(const struct stat *st)
{
	char line[4096], name[PATH_MAX];
	FILE *f = fopen("/proc/swaps", "r");
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%4095s", name) != 1 || name[0] != '/')
			continue;
		unescape_octal(name);
		if (same_object(name, st)) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * Call @fn for every attached loop device backed by @st (the kernel tells
 * each one's backing inode, so renamed or relative paths match too);
 * stops when @fn returns non-zero and returns that.
 */
static int for_each_backing_loop(const struct stat *st,
				 int (*fn)(const char *loopdev, dev_t rdev, void *data),
				 void *data)
{
	struct loop_info64 info;
	struct stat lst;
	struct dirent *de;
	char path[PATH_MAX];
	DIR *dir = opendir("/sys/block");
	int fd, ret = 0;

	if (!dir)
		return 0;
	while (!ret && (de = readdir(dir))) {
		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop", de->d_name);
		if (access(path, F_OK))
			continue;	/* not attached */
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, LOOP_GET_STATUS64, &info) &&
		    info.lo_inode == st->st_ino && info.lo_device == st->st_dev &&
		    !fstat(fd, &lst))
			ret = fn(path, lst.st_rdev, data);
		close(fd);
	}
	closedir(dir);
	return ret;
}

static int first_loop(const char *loopdev, dev_t rdev, void *data)
{
	struct dev_set *s = data;

	(void)rdev;
	snprintf(s->loopdev, sizeof(s->loopdev), "%s", loopdev);
	return 1;
}

int mount_probe_backing_loop(const struct stat *st, char *loopdev, size_t len)
{
	struct dev_set s = { 0 };

	if (!for_each_backing_loop(st, first_loop, &s))
		return -1;
	snprintf(loopdev, len, "%s", s.loopdev);
	return 0;
}

static int add_loop(const char *loopdev, dev_t rdev, void *data)
{
	struct dev_set *s = data;

	if (!s->loopdev[0])
		snprintf(s->loopdev, sizeof(s->loopdev), "%s", loopdev);
	return dev_set_add(s, rdev) ? -ENOMEM : 0;
}

/* "MAJ:MIN" from a sysfs dev file */
static int read_sysfs_dev(const char *path, dev_t *dev)
{
	unsigned int maj, min;
	FILE *f = fopen(path, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%u:%u", &maj, &min);
	fclose(f);
	if (n != 2)
		return -1;
	*dev = makedev(maj, min);
	return 0;
}

/* the devices of one mounted btrfs, as listed under /sys/fs/btrfs/FSID */
static int read_btrfs_members(const char *fsid, struct dev_set *members)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	dev_t dev;

	snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices", fsid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices/%s/dev",
			 fsid, de->d_name);
		if (!read_sysfs_dev(path, &dev) && dev_set_add(members, dev)) {
			closedir(dir);
			return -ENOMEM;
		}
	}
	closedir(dir);
	return 0;
}

/*
 * Add the other members of every mounted btrfs that shares a device with
 * @s: the mount table names one device per filesystem only.
 */
static int add_btrfs_siblings(struct dev_set *s)
{
	struct dev_set members = { 0 };
	struct dirent *de;
	DIR *dir = opendir("/sys/fs/btrfs");
	size_t i, j, nr_target = s->nr;
	int ret = 0;

	if (!dir)
		return 0;
	while (!ret && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "features"))
			continue;
		members.nr = 0;
		ret = read_btrfs_members(de->d_name, &members);
		for (i = 0; !ret && i < nr_target; i++) {
			if (!dev_set_has(&members, s->devs[i]))
				continue;
			for (j = 0; !ret && j < members.nr; j++)
				ret = dev_set_add(s, members.devs[j]);
			break;
		}
	}
	closedir(dir);
	free(members.devs);
	return ret;
}

/*
 * One /proc/self/mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS
 * [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS".  The superblock options say
 * whether the filesystem itself is read-only (a bind mount may be ro on
 * its own while the filesystem is written elsewhere).
 */
static void match_mount_line(char *line, const struct stat *st,
			     const struct dev_set *s, struct mount_state *ms)
{
	char *dir = NULL, *src, *superopts, *sep, *tok, *save = NULL;
	struct stat sst;
	bool rw;
	int field = 0;

	sep = strstr(line, " - ");
	if (!sep)
		return;
	*sep = '\0';
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (++field == 5)
			dir = tok;
	save = NULL;
	if (!dir || !strtok_r(sep + 3, " ", &save))
		return;
	src = strtok_r(NULL, " ", &save);
	superopts = strtok_r(NULL, " \n", &save);
	if (!src || src[0] != '/' || !superopts)
		return;
	unescape_octal(src);
	if (stat(src, &sst))
		return;
	if (!(S_ISBLK(sst.st_mode) && dev_set_has(s, sst.st_rdev)) &&
	    !(S_ISREG(st->st_mode) && same_object(src, st)))
		return;
	rw = strncmp(superopts, "ro", 2) || (superopts[2] && superopts[2] != ',');
	if (!ms->mounted || (rw && !ms->read_write)) {
		unescape_octal(dir);
		snprintf(ms->where, sizeof(ms->where), "%s", dir);
	}
	ms->mounted = true;
	ms->read_write |= rw;
}

int mount_probe(const struct stat *st, struct mount_state *ms)
{
	struct dev_set s = { 0 };
	char *line = NULL;
	size_t len = 0;
	FILE *f;
	int ret = 0;

	memset(ms, 0, sizeof(*ms));
	if (S_ISBLK(st->st_mode))
		ret = dev_set_add(&s, st->st_rdev);
	else if (S_ISREG(st->st_mode))
		ret = for_each_backing_loop(st, add_loop, &s);
	if (!ret && s.nr)
		ret = add_btrfs_siblings(&s);
	if (ret)
		goto out;
	f = fopen("/proc/self/mountinfo", "r");
	if (!f) {
		ret = -errno;
		goto out;
	}
	while (getline(&line, &len, f) > 0)
		match_mount_line(line, st, &s, ms);
	fclose(f);
	free(line);
	if (ms->mounted && S_ISREG(st->st_mode) && s.loopdev[0])
		snprintf(ms->through, sizeof(ms->through), "%s", s.loopdev);
out:
	free(s.devs);
	return ret;
}

/* an image file attached to a loop device that another program holds */
static int check_loop_held(const char *path, const struct stat *st)
{
	char loopdev[PATH_MAX];
	int fd;

	if (mount_probe_backing_loop(st, loopdev, sizeof(loopdev)) < 0)
		return 0;
	fd = open(loopdev, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY) {
		cmd_error("%s is in use through %s", path, loopdev);
		return -EBUSY;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

int mount_probe_refuse(const char *path, const struct stat *st)
{
	struct mount_state ms;
	int ret;

	ret = mount_probe(st, &ms);
	if (ret < 0) {
		cmd_error("cannot check mount status of %s: %s", path,
			   strerror(-ret));
		return ret;
	}
	if (ms.mounted) {
		if (ms.through[0])
			cmd_error("%s is mounted on %s (through %s)", path,
				   ms.where, ms.through);
		else
			cmd_error("%s is mounted on %s", path, ms.where);
		return -EBUSY;
	}
	if (mount_probe_is_swap(st)) {
		cmd_error("%s is a swap device", path);
		return -EBUSY;
	}
	if (S_ISREG(st->st_mode))
		return check_loop_held(path, st);
	return 0;
}

/*
 * For writers that take a path (check --repair, undo): refuse @path when it is mounted, a
 * swap device, or an image attached to a mounted or held loop device.
 */
int device_refuse_in_use(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		cmd_error("cannot access %s: %m", path);
		return -errno;
	}
	return mount_probe_refuse(path, &st);
}
