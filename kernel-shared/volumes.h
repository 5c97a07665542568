/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Devices and the chunk map: logical addresses to (device, physical)
 * for every profile (single, DUP, RAID0/1/1C3/1C4/10, RAID5/6 data).
 */
#ifndef GHEE_VOLUMES_H
#define GHEE_VOLUMES_H

#include <stdbool.h>
#include "format.h"

struct btrfs_fs_info;
struct extent_buffer;

struct btrfs_device {
	u64 devid;
	int fd;			/* -1 when missing */
	char *path;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 super_uuid[BTRFS_UUID_SIZE];	/* dev_item.uuid of its own superblock */
	u8 fsid[BTRFS_FSID_SIZE];
	u64 size;		/* bytes the file or block device really holds */
	u64 total_bytes;	/* from the device item */
	u64 bytes_used;
	bool writable;
	bool has_item;		/* the chunk tree has its device item */
	u8 item_fsid[BTRFS_FSID_SIZE];	/* the fsid its device item names */
	bool seed;		/* opened with another fsid, as a seed device */
	int overlay_dev;	/* its number in fs_info->overlay */
};

struct map_stripe {
	u64 devid;
	u64 physical;
	u8 dev_uuid[BTRFS_UUID_SIZE];
	struct btrfs_device *dev;	/* NULL when the device is missing */
};

struct map_lookup {
	u64 logical;
	u64 length;
	u64 stripe_len;
	u64 type;
	u32 io_align;
	u32 io_width;
	u32 sector_size;
	u16 num_stripes;
	u16 sub_stripes;
	struct map_stripe stripes[];
};

/* sorted by logical address, no overlap */
struct chunk_map {
	struct map_lookup **maps;
	size_t nr;
	size_t alloc;
};

void chunk_map_init(struct chunk_map *map);
void chunk_map_free(struct chunk_map *map);
/* insert a chunk; -EEXIST when it overlaps one already there */
int chunk_map_insert(struct chunk_map *map, struct map_lookup *ml);
/* the chunk containing @logical, NULL if none */
struct map_lookup *chunk_map_lookup(const struct chunk_map *map, u64 logical);
/* first chunk whose end lies past @logical */
struct map_lookup *chunk_map_next(const struct chunk_map *map, u64 logical);

/*
 * Validate a chunk item (size of the item given) and build its mapping.
 * @logical is the key offset.  Reports precise reasons through fs_info.
 */
int btrfs_chunk_to_map(struct btrfs_fs_info *fs_info, u64 logical,
		       const struct btrfs_chunk *chunk, u32 item_size,
		       struct map_lookup **ret);
/* check a chunk item's fields; returns -EUCLEAN with @why filled in */
int btrfs_check_chunk(u64 logical, const struct btrfs_chunk *chunk,
		      u32 item_size, u32 sectorsize, char *why, size_t why_len);

/* profile helpers */
int btrfs_bg_type_num_copies(u64 type, int num_stripes);
const char *btrfs_bg_type_profile_name(u64 flags);	/* "single", "DUP", "RAID1", ... */

/* number of independent copies of @logical (0 if unmapped) */
int btrfs_num_copies(struct btrfs_fs_info *fs_info, u64 logical, u64 len);

/*
 * Map @logical for reading copy @mirror (1-based; 0 means the first one
 * whose device is present).  On return *len is reduced to the bytes that
 * are contiguous on that device.  -ENOENT when unmapped, -ENODEV when the
 * device is missing.
 */
int btrfs_map_block(struct btrfs_fs_info *fs_info, u64 logical, u64 *len,
		    int mirror, struct btrfs_device **dev, u64 *physical);

/* read @len bytes at @logical from copy @mirror into @buf */
int btrfs_read_logical(struct btrfs_fs_info *fs_info, u64 logical, void *buf,
		       u64 len, int mirror);

struct btrfs_device *btrfs_find_device(struct btrfs_fs_info *fs_info, u64 devid);

#endif
