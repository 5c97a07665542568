// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk map and the logical-to-physical translation for every
 * profile.  Chunks come from the superblock's sys_chunk_array first and
 * then from the chunk tree; each one is validated before it is mapped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "volumes.h"
#include "disk-io.h"
#include "accessors.h"
#include "array.h"
#include "dev-overlay.h"

void chunk_map_init(struct chunk_map *map)
{
	memset(map, 0, sizeof(*map));
}

void chunk_map_free(struct chunk_map *map)
{
	size_t i;

	for (i = 0; i < map->nr; i++)
		free(map->maps[i]);
	free(map->maps);
	memset(map, 0, sizeof(*map));
}

/* index of the first chunk whose end is past @logical */
static size_t chunk_map_search(const struct chunk_map *map, u64 logical)
{
	size_t lo = 0, hi = map->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map_lookup *ml = map->maps[mid];

		if (ml->logical + ml->length <= logical)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int chunk_map_insert(struct chunk_map *map, struct map_lookup *ml)
{
	size_t pos = chunk_map_search(map, ml->logical);

	if (pos < map->nr && map->maps[pos]->logical < ml->logical + ml->length)
		return -EEXIST;
	if (ARRAY_RESERVE(map->maps, map->alloc, map->nr + 1, 64))
		return -ENOMEM;
	memmove(&map->maps[pos + 1], &map->maps[pos],
		(map->nr - pos) * sizeof(*map->maps));
	map->maps[pos] = ml;
	map->nr++;
	return 0;
}

struct map_lookup *chunk_map_lookup(const struct chunk_map *map, u64 logical)
{
	size_t pos = chunk_map_search(map, logical);

	if (pos < map->nr && map->maps[pos]->logical <= logical)
		return map->maps[pos];
	return NULL;
}

struct map_lookup *chunk_map_next(const struct chunk_map *map, u64 logical)
{
	size_t pos = chunk_map_search(map, logical);

	return pos < map->nr ? map->maps[pos] : NULL;
}

const char *btrfs_bg_type_profile_name(u64 flags)
{
	switch (flags & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case 0: return "single";
	case BTRFS_BLOCK_GROUP_RAID0: return "RAID0";
	case BTRFS_BLOCK_GROUP_RAID1: return "RAID1";
	case BTRFS_BLOCK_GROUP_DUP: return "DUP";
	case BTRFS_BLOCK_GROUP_RAID10: return "RAID10";
	case BTRFS_BLOCK_GROUP_RAID5: return "RAID5";
	case BTRFS_BLOCK_GROUP_RAID6: return "RAID6";
	case BTRFS_BLOCK_GROUP_RAID1C3: return "RAID1C3";
	case BTRFS_BLOCK_GROUP_RAID1C4: return "RAID1C4";
	}
	return "unknown";
}

int btrfs_bg_type_num_copies(u64 type, int num_stripes)
{
	switch (type & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case BTRFS_BLOCK_GROUP_DUP:
	case BTRFS_BLOCK_GROUP_RAID1:
	case BTRFS_BLOCK_GROUP_RAID10:
		return 2;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		return 3;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		return 4;
	}
	(void)num_stripes;
	return 1;
}

static bool is_power_of_2(u64 v)
{
	return v && !(v & (v - 1));
}

/* the stripe count each profile requires: exact, or a minimum */
static int check_profile_stripes(u64 profile, u16 num, u16 sub, char *why,
				 size_t len)
{
	bool bad = false;

	switch (profile) {
	case 0:
		bad = num != 1;
		break;
	case BTRFS_BLOCK_GROUP_DUP:
	case BTRFS_BLOCK_GROUP_RAID1:
		bad = num != 2;
		break;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		bad = num != 3;
		break;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		bad = num != 4;
		break;
	case BTRFS_BLOCK_GROUP_RAID0:
		bad = num < 1;
		break;
	case BTRFS_BLOCK_GROUP_RAID10:
		bad = sub != 2 || num < 2 || num % 2;
		break;
	case BTRFS_BLOCK_GROUP_RAID5:
		bad = num < 2;
		break;
	case BTRFS_BLOCK_GROUP_RAID6:
		bad = num < 3;
		break;
	}
	if (bad) {
		snprintf(why, len, "invalid num_stripes:sub_stripes %u:%u for profile %s",
			 num, sub, btrfs_bg_type_profile_name(profile));
		return -EUCLEAN;
	}
	return 0;
}

int btrfs_check_chunk(u64 logical, const struct btrfs_chunk *chunk,
		      u32 item_size, u32 sectorsize, char *why, size_t why_len)
{
	u64 length, stripe_len, type, profile;
	u16 num_stripes, sub_stripes;

	if (item_size < sizeof(struct btrfs_chunk)) {
		snprintf(why, why_len, "chunk item too small, have %u expect at least %zu",
			 item_size, sizeof(struct btrfs_chunk));
		return -EUCLEAN;
	}
	num_stripes = btrfs_chunk_num_stripes(chunk);
	sub_stripes = btrfs_chunk_sub_stripes(chunk);
	length = btrfs_chunk_length(chunk);
	stripe_len = btrfs_chunk_stripe_len(chunk);
	type = btrfs_chunk_type(chunk);
	profile = type & BTRFS_BLOCK_GROUP_PROFILE_MASK;

	if (num_stripes == 0) {
		snprintf(why, why_len, "invalid chunk num_stripes, have 0");
		return -EUCLEAN;
	}
	if (item_size != btrfs_chunk_item_size(num_stripes)) {
		snprintf(why, why_len, "invalid chunk item size, have %u expect %u",
			 item_size, btrfs_chunk_item_size(num_stripes));
		return -EUCLEAN;
	}
	if (sectorsize && logical % sectorsize) {
		snprintf(why, why_len, "invalid chunk logical, have %llu should aligned to %u",
			 (unsigned long long)logical, sectorsize);
		return -EUCLEAN;
	}
	if (!length || (sectorsize && length % sectorsize)) {
		snprintf(why, why_len, "invalid chunk length, have %llu",
			 (unsigned long long)length);
		return -EUCLEAN;
	}
	if (logical + length < logical) {
		snprintf(why, why_len, "chunk logical %llu length %llu overflows",
			 (unsigned long long)logical, (unsigned long long)length);
		return -EUCLEAN;
	}
	if (!is_power_of_2(stripe_len) || stripe_len != BTRFS_STRIPE_LEN) {
		snprintf(why, why_len, "invalid chunk stripe length, have %llu expect %llu",
			 (unsigned long long)stripe_len, BTRFS_STRIPE_LEN);
		return -EUCLEAN;
	}
	if (type & ~(BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK)) {
		snprintf(why, why_len, "unrecognized chunk type, 0x%llx",
			 (unsigned long long)type);
		return -EUCLEAN;
	}
	if (!is_power_of_2(profile) && profile) {
		snprintf(why, why_len, "invalid chunk profile flag, 0x%llx",
			 (unsigned long long)profile);
		return -EUCLEAN;
	}
	if (!(type & BTRFS_BLOCK_GROUP_TYPE_MASK)) {
		snprintf(why, why_len, "missing chunk type flag, 0x%llx",
			 (unsigned long long)type);
		return -EUCLEAN;
	}
	if ((type & BTRFS_BLOCK_GROUP_SYSTEM) &&
	    (type & (BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_DATA))) {
		snprintf(why, why_len, "system chunk with data or metadata type, 0x%llx",
			 (unsigned long long)type);
		return -EUCLEAN;
	}
	return check_profile_stripes(profile, num_stripes, sub_stripes, why, why_len);
}

int btrfs_chunk_to_map(struct btrfs_fs_info *fs_info, u64 logical,
		       const struct btrfs_chunk *chunk, u32 item_size,
		       struct map_lookup **ret)
{
	struct map_lookup *ml;
	char why[192];
	u16 num;
	int i, err;

	err = btrfs_check_chunk(logical, chunk, item_size, fs_info->sectorsize,
				why, sizeof(why));
	if (err) {
		btrfs_err(&fs_info->reporter, "chunk at logical %llu: %s",
			  (unsigned long long)logical, why);
		return err;
	}
	num = btrfs_chunk_num_stripes(chunk);
	ml = calloc(1, sizeof(*ml) + num * sizeof(struct map_stripe));
	if (!ml)
		return -ENOMEM;
	ml->logical = logical;
	ml->length = btrfs_chunk_length(chunk);
	ml->stripe_len = btrfs_chunk_stripe_len(chunk);
	ml->type = btrfs_chunk_type(chunk);
	ml->io_align = btrfs_chunk_io_align(chunk);
	ml->io_width = btrfs_chunk_io_width(chunk);
	ml->sector_size = btrfs_chunk_sector_size(chunk);
	ml->num_stripes = num;
	ml->sub_stripes = btrfs_chunk_sub_stripes(chunk);
	for (i = 0; i < num; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(chunk, i);

		ml->stripes[i].devid = btrfs_stripe_devid(s);
		ml->stripes[i].physical = btrfs_stripe_offset(s);
		memcpy(ml->stripes[i].dev_uuid, s->dev_uuid, BTRFS_UUID_SIZE);
		ml->stripes[i].dev = btrfs_find_device(fs_info, ml->stripes[i].devid);
	}
	*ret = ml;
	return 0;
}

struct btrfs_device *btrfs_find_device(struct btrfs_fs_info *fs_info, u64 devid)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		if (fs_info->devices[i].devid == devid)
			return &fs_info->devices[i];
	}
	return NULL;
}

int btrfs_num_copies(struct btrfs_fs_info *fs_info, u64 logical, u64 len)
{
	struct map_lookup *ml = chunk_map_lookup(&fs_info->chunk_map, logical);

	(void)len;
	if (!ml)
		return 0;
	if (ml->type & BTRFS_BLOCK_GROUP_RAID10)
		return ml->sub_stripes;
	return btrfs_bg_type_num_copies(ml->type, ml->num_stripes);
}

/* pick the stripe holding @offset (chunk-relative) for copy @mirror (0-based) */
static void map_stripe_index(const struct map_lookup *ml, u64 offset, int mirror,
			     int *index, u64 *stripe_off, u64 *contig)
{
	u64 stripe_nr = offset / ml->stripe_len;
	u64 in_stripe = offset % ml->stripe_len;
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int idx = 0;

	*contig = ml->stripe_len - in_stripe;
	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		idx = stripe_nr % ml->num_stripes;
		stripe_nr /= ml->num_stripes;
		break;
	case BTRFS_BLOCK_GROUP_RAID10: {
		int factor = ml->num_stripes / ml->sub_stripes;

		idx = (stripe_nr % factor) * ml->sub_stripes + mirror;
		stripe_nr /= factor;
		break;
	}
	case BTRFS_BLOCK_GROUP_RAID5:
	case BTRFS_BLOCK_GROUP_RAID6: {
		int nr_parity = profile == BTRFS_BLOCK_GROUP_RAID5 ? 1 : 2;
		int nr_data = ml->num_stripes - nr_parity;

		idx = stripe_nr % nr_data;
		stripe_nr /= nr_data;
		/* the parity rotates one device per full stripe */
		idx = (idx + stripe_nr) % ml->num_stripes;
		break;
	}
	default:
		/* single, DUP and RAID1*: every stripe is a whole copy */
		idx = mirror;
		stripe_nr = 0;
		in_stripe = offset;
		*contig = ml->length - offset;
		break;
	}
	*index = idx;
	*stripe_off = stripe_nr * ml->stripe_len + in_stripe;
}

int btrfs_map_block(struct btrfs_fs_info *fs_info, u64 logical, u64 *len,
		    int mirror, struct btrfs_device **dev, u64 *physical)
{
	struct map_lookup *ml = chunk_map_lookup(&fs_info->chunk_map, logical);
	int copies, first, m;

	if (!ml)
		return -ENOENT;
	copies = btrfs_num_copies(fs_info, logical, *len);
	first = mirror ? mirror - 1 : 0;
	if (first >= copies)
		return -EINVAL;
	for (m = first; m < copies; m++) {
		struct map_stripe *s;
		u64 stripe_off, contig;
		int idx;

		map_stripe_index(ml, logical - ml->logical, m, &idx, &stripe_off,
				 &contig);
		if (idx < 0 || idx >= ml->num_stripes)
			return -EUCLEAN;
		s = &ml->stripes[idx];
		if (!s->dev || s->dev->fd < 0) {
			if (mirror)
				return -ENODEV;
			continue;
		}
		/* a hostile stripe offset must not wrap to the device start */
		if (s->physical + stripe_off < s->physical)
			return -EUCLEAN;
		if (*len > contig)
			*len = contig;
		*dev = s->dev;
		*physical = s->physical + stripe_off;
		return 0;
	}
	return -ENODEV;
}

int btrfs_read_logical(struct btrfs_fs_info *fs_info, u64 logical, void *buf,
		       u64 len, int mirror)
{
	u8 *p = buf;

	while (len) {
		struct btrfs_device *dev;
		u64 physical, seg = len;
		ssize_t ret;
		int err;

		err = btrfs_map_block(fs_info, logical, &seg, mirror, &dev, &physical);
		if (err)
			return err;
		if (physical + seg > dev->size || physical + seg < physical) {
			btrfs_err(&fs_info->reporter,
				  "logical %llu maps to devid %llu physical %llu beyond device size %llu",
				  (unsigned long long)logical,
				  (unsigned long long)dev->devid,
				  (unsigned long long)physical,
				  (unsigned long long)dev->size);
			return -EIO;
		}
		ret = pread(dev->fd, p, seg, physical);
		if (ret < 0)
			return -errno;
		if ((u64)ret != seg)
			return -EIO;
		if (fs_info->overlay)
			btrfs_overlay_read(fs_info->overlay, dev->overlay_dev, p,
					   seg, physical);
		p += seg;
		logical += seg;
		len -= seg;
	}
	return 0;
}
