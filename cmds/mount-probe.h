/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a device or an image file in use?  Shared by the commands that must
 * not touch a mounted filesystem behind the kernel's back (mkfs refuses
 * always, check refuses a read-write mount, a writer refuses any mount).
 */
#ifndef GHEE_MOUNT_PROBE_H
#define GHEE_MOUNT_PROBE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>

struct mount_state {
	bool mounted;
	bool read_write;	/* at least one of its mounts is read-write */
	char where[PATH_MAX];	/* one mount point (a read-write one if any) */
	char through[PATH_MAX];	/* loop device an image file is mounted through, or "" */
};

/*
 * Fill @ms for the device or image file whose stat is @st.  A block
 * device counts as mounted when it is the source of a mount or a member of
 * a mounted btrfs (the kernel lists the other members in
 * /sys/fs/btrfs/FSID/devices); an image file when a loop device backed by
 * it is, or when it is mounted itself.  0, or -errno when the mount table
 * cannot be read.
 */
int mount_probe(const struct stat *st, struct mount_state *ms);

/* true when @st is an active swap device or file */
bool mount_probe_is_swap(const struct stat *st);

/*
 * The first attached loop device whose backing file is @st; 0 and its
 * path in @loopdev, -1 when there is none.
 */
int mount_probe_backing_loop(const struct stat *st, char *loopdev, size_t len);

/*
 * 0 when @path (whose stat is @st) may be written: not mounted, not a swap
 * device, not an image behind a loop device another program holds; else
 * print why and return -EBUSY (or -errno).
 */
int mount_probe_refuse(const char *path, const struct stat *st);

/* mount_probe_refuse() for a path (check --repair, undo) */
int device_refuse_in_use(const char *path);

#endif
