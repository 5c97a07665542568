/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The devices of a filesystem: those named on the command line, plus (as
 * btrfs-progs does) the other members of a multi-device filesystem found
 * among the system's block devices with libblkid.
 * Seed devices of a sprouted filesystem are found the same way.
 */
#ifndef GHEE_DEVICE_SCAN_H
#define GHEE_DEVICE_SCAN_H

#include <stdbool.h>

struct device_list {
	const char **paths;	/* the given ones first, then those found */
	int nr_paths;
	int nr_given;
};

/*
 * the given paths (not copied: they must outlive the list); a sprout given
 * after its seed devices is moved first
 */
int device_list_init(struct device_list *l, char *const *given, int nr_given);
/* add the missing members of the first device's filesystem, if any */
void device_list_scan(struct device_list *l);
void device_list_release(struct device_list *l);

#endif
