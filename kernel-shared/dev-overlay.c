// SPDX-License-Identifier: GPL-2.0
/*
 * Device overlay: a hash of changed pages keyed by (device, page number).
 * Open addressing with linear probing; a dropped page leaves a tombstone
 * so that probes past it still find what follows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "dev-overlay.h"

#define OV_MAX_DEVICES	64
#define OV_EMPTY	0ULL
#define OV_TOMBSTONE	(~0ULL)

struct ov_slot {
	u64 key;
	u8 *page;
};

struct ov_device {
	dev_t dev;
	ino_t ino;
};

struct btrfs_overlay {
	bool capture_all;
	struct ov_slot *slots;
	u64 nr_slots;		/* a power of two */
	u64 used;		/* pages and tombstones */
	u64 nr_pages;
	int nr_devices;
	struct ov_device devices[OV_MAX_DEVICES];
};

static u64 ov_key(int dev, u64 pageno)
{
	return ((u64)(dev + 1) << 52) | pageno;
}

static u64 ov_hash(u64 key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return key;
}

struct btrfs_overlay *btrfs_overlay_create(bool capture_all)
{
	struct btrfs_overlay *ov = calloc(1, sizeof(*ov));

	if (!ov)
		return NULL;
	ov->capture_all = capture_all;
	ov->nr_slots = 256;
	ov->slots = calloc(ov->nr_slots, sizeof(*ov->slots));
	if (!ov->slots) {
		free(ov);
		return NULL;
	}
	return ov;
}

void btrfs_overlay_free(struct btrfs_overlay *ov)
{
	u64 i;

	if (!ov)
		return;
	for (i = 0; i < ov->nr_slots; i++)
		free(ov->slots[i].page);
	free(ov->slots);
	free(ov);
}

bool btrfs_overlay_captures_all(const struct btrfs_overlay *ov)
{
	return ov && ov->capture_all;
}

u64 btrfs_overlay_nr_pages(const struct btrfs_overlay *ov)
{
	return ov ? ov->nr_pages : 0;
}

int btrfs_overlay_device(struct btrfs_overlay *ov, int fd)
{
	struct stat st;
	dev_t d;
	ino_t ino;
	int i;

	if (fstat(fd, &st))
		return -errno;
	/* a block device is the same device under any of its names */
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	ino = S_ISBLK(st.st_mode) ? 0 : st.st_ino;
	for (i = 0; i < ov->nr_devices; i++) {
		if (ov->devices[i].dev == d && ov->devices[i].ino == ino)
			return i;
	}
	if (ov->nr_devices >= OV_MAX_DEVICES)
		return -E2BIG;
	ov->devices[ov->nr_devices].dev = d;
	ov->devices[ov->nr_devices].ino = ino;
	return ov->nr_devices++;
}

static struct ov_slot *ov_find(const struct btrfs_overlay *ov, u64 key)
{
	u64 mask = ov->nr_slots - 1, i = ov_hash(key) & mask;

	for (;;) {
		struct ov_slot *s = &ov->slots[i];

		if (s->key == key)
			return s;
		if (s->key == OV_EMPTY)
			return NULL;
		i = (i + 1) & mask;
	}
}

static int ov_grow(struct btrfs_overlay *ov)
{
	u64 n = ov->nr_pages * 4 > ov->nr_slots ? ov->nr_slots * 2 : ov->nr_slots;
	struct ov_slot *old = ov->slots, *slots;
	u64 i, old_n = ov->nr_slots;

	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < old_n; i++) {
		u64 j;

		if (old[i].key == OV_EMPTY || old[i].key == OV_TOMBSTONE)
			continue;
		j = ov_hash(old[i].key) & (n - 1);
		while (slots[j].key != OV_EMPTY)
			j = (j + 1) & (n - 1);
		slots[j] = old[i];
	}
	free(old);
	ov->slots = slots;
	ov->nr_slots = n;
	ov->used = ov->nr_pages;
	return 0;
}

/* the page for @key, made (contents unset) when missing; *fresh says so */
static u8 *ov_page(struct btrfs_overlay *ov, u64 key, bool *fresh)
{
	struct ov_slot *s = ov_find(ov, key);
	u64 mask, i;
	u8 *page;

	*fresh = false;
	if (s)
		return s->page;
	if ((ov->used + 1) * 2 > ov->nr_slots && ov_grow(ov))
		return NULL;
	page = malloc(BTRFS_OVERLAY_PAGE);
	if (!page)
		return NULL;
	mask = ov->nr_slots - 1;
	i = ov_hash(key) & mask;
	while (ov->slots[i].key != OV_EMPTY && ov->slots[i].key != OV_TOMBSTONE)
		i = (i + 1) & mask;
	if (ov->slots[i].key == OV_EMPTY)
		ov->used++;
	ov->slots[i].key = key;
	ov->slots[i].page = page;
	ov->nr_pages++;
	*fresh = true;
	return page;
}

/* what the device holds of one page (zeros past its end) */
static int read_device_page(int fd, u64 off, u8 *page)
{
	u64 done = 0;

	while (done < BTRFS_OVERLAY_PAGE) {
		ssize_t n = pread(fd, page + done, BTRFS_OVERLAY_PAGE - done, off + done);

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	memset(page + done, 0, BTRFS_OVERLAY_PAGE - done);
	return 0;
}

int btrfs_overlay_write(struct btrfs_overlay *ov, int dev, int fd,
			const void *buf, u64 len, u64 physical)
{
	const u8 *p = buf;

	while (len) {
		u64 pageno = physical / BTRFS_OVERLAY_PAGE;
		u64 in = physical % BTRFS_OVERLAY_PAGE;
		u64 n = BTRFS_OVERLAY_PAGE - in;
		bool fresh;
		u8 *page;

		if (n > len)
			n = len;
		page = ov_page(ov, ov_key(dev, pageno), &fresh);
		if (!page)
			return -ENOMEM;
		if (fresh && n < BTRFS_OVERLAY_PAGE) {
			int ret = read_device_page(fd, pageno * BTRFS_OVERLAY_PAGE, page);

			if (ret) {
				btrfs_overlay_drop_page(ov, dev, pageno * BTRFS_OVERLAY_PAGE);
				return ret;
			}
		}
		memcpy(page + in, p, n);
		p += n;
		len -= n;
		physical += n;
	}
	return 0;
}

void btrfs_overlay_read(const struct btrfs_overlay *ov, int dev, void *buf,
			u64 len, u64 physical)
{
	u8 *p = buf;

	if (!ov->nr_pages)
		return;
	while (len) {
		u64 pageno = physical / BTRFS_OVERLAY_PAGE;
		u64 in = physical % BTRFS_OVERLAY_PAGE;
		u64 n = BTRFS_OVERLAY_PAGE - in;
		struct ov_slot *s;

		if (n > len)
			n = len;
		s = ov_find(ov, ov_key(dev, pageno));
		if (s)
			memcpy(p, s->page + in, n);
		p += n;
		len -= n;
		physical += n;
	}
}

bool btrfs_overlay_get_page(const struct btrfs_overlay *ov, int dev,
			    u64 physical, void *page)
{
	struct ov_slot *s = ov_find(ov, ov_key(dev, physical / BTRFS_OVERLAY_PAGE));

	if (!s)
		return false;
	memcpy(page, s->page, BTRFS_OVERLAY_PAGE);
	return true;
}

void btrfs_overlay_drop_page(struct btrfs_overlay *ov, int dev, u64 physical)
{
	struct ov_slot *s = ov_find(ov, ov_key(dev, physical / BTRFS_OVERLAY_PAGE));

	if (!s)
		return;
	free(s->page);
	s->page = NULL;
	s->key = OV_TOMBSTONE;
	ov->nr_pages--;
}
