/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device overlay: device writes held in memory, page by page, and laid
 * over what later reads of the same devices return, whoever opens them
 * (the overlay is handed to open_ctree through open_ctree_args.overlay).
 *
 * A dry run captures every write (the devices stay read-only, nothing
 * reaches them); a repair captures only its superblocks until the end, so
 * every check between its commits judges the new, unpublished state while
 * the old one stays the filesystem on disk.  Only changed pages are held.
 */
#ifndef GHEE_DEV_OVERLAY_H
#define GHEE_DEV_OVERLAY_H

#include <stdbool.h>
#include "format.h"

#define BTRFS_OVERLAY_PAGE	4096U

struct btrfs_overlay;

/* @capture_all: every write lands in the overlay, never on a device */
struct btrfs_overlay *btrfs_overlay_create(bool capture_all);
void btrfs_overlay_free(struct btrfs_overlay *ov);
bool btrfs_overlay_captures_all(const struct btrfs_overlay *ov);

/* the overlay's number for the file or block device open as @fd, -errno */
int btrfs_overlay_device(struct btrfs_overlay *ov, int fd);

/*
 * Store @len bytes at @physical of device @dev (btrfs_overlay_device);
 * parts of a page not written come from @fd (what the device holds).
 */
int btrfs_overlay_write(struct btrfs_overlay *ov, int dev, int fd,
			const void *buf, u64 len, u64 physical);
/* lay the captured pages over @buf, which holds [@physical, +@len) of @dev */
void btrfs_overlay_read(const struct btrfs_overlay *ov, int dev, void *buf,
			u64 len, u64 physical);
/* whether the page at @physical (page aligned) of @dev is held; copy it */
bool btrfs_overlay_get_page(const struct btrfs_overlay *ov, int dev,
			    u64 physical, void *page);
/* forget the page at @physical of @dev (after it was written for real) */
void btrfs_overlay_drop_page(struct btrfs_overlay *ov, int dev, u64 physical);
/* number of pages held */
u64 btrfs_overlay_nr_pages(const struct btrfs_overlay *ov);

#endif
