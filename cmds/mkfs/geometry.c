// SPDX-License-Identifier: GPL-2.0
/*
 * Validated parameters + device sizes -> the shape of the new filesystem:
 * the minimum device size, the feature flags, and the type, stripe count
 * and size of the first system, metadata and data chunks.
 *
 * The chunk sizes follow the rules btrfs-progs 6.2 and the kernel use, so
 * a fresh ghee filesystem has the block groups users expect:
 *   - single chunks are small and fixed: system 4 MiB, metadata and data
 *     8 MiB each;
 *   - other profiles start from a preferred stripe size (system 8 MiB,
 *     metadata 256 MiB or 1 GiB above 50 GiB, data 1 GiB), are cut so
 *     that no chunk exceeds a tenth of the filesystem, never below a
 *     floor per type (1, 32, 64 MiB), and always fit the devices.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include "mkfs.h"

#define SZ_1M	(1024ULL * 1024)
#define SZ_1G	(1024ULL * SZ_1M)

/* the first megabyte of every device is left to boot loaders */
#define DEV_RESERVED	SZ_1M
/* the initial system chunk of btrfs-progs, part of its minimum size */
#define SYSTEM_GROUP_SIZE	(4 * SZ_1M)

/*
 * mkfs.btrfs starts with single chunks on the first device: system (4 MiB
 * at 1 MiB), metadata (or mixed, 8 MiB at 5 MiB) and data (8 MiB at
 * 13 MiB, not with mixed groups), logical address = physical offset.  A
 * single chunk of that kind stays there; other chunks follow the area.
 */
u64 mkfs_bootstrap_start(const struct mkfs_params *p, int chunk)
{
	(void)p;
	switch (chunk) {
	case MKFS_CHUNK_SYSTEM:
		return DEV_RESERVED;
	case MKFS_CHUNK_METADATA:
		return DEV_RESERVED + SYSTEM_GROUP_SIZE;
	default:
		return DEV_RESERVED + SYSTEM_GROUP_SIZE + 8 * SZ_1M;
	}
}

u64 mkfs_bootstrap_end(const struct mkfs_params *p)
{
	return DEV_RESERVED + SYSTEM_GROUP_SIZE + (p->mixed ? 8 : 16) * SZ_1M;
}

static u64 round_down_to(u64 v, u64 align)
{
	return v - v % align;
}

/*
 * The smallest device btrfs-progs 6.2 accepts for these profiles, kept
 * so that scripts sized for mkfs.btrfs keep working: room for the first
 * megabyte, the initial chunks and one chunk of each kind.
 */
u64 mkfs_min_dev_size(const struct mkfs_params *p)
{
	u64 size = SZ_1M + SYSTEM_GROUP_SIZE + 16 * SZ_1M;
	u64 meta, data;

	if (p->mixed)
		return 2 * (SYSTEM_GROUP_SIZE + ((u64)p->nodesize << 10));
	meta = (p->meta_profile & BTRFS_BLOCK_GROUP_PROFILE_MASK) ?
	       40 * SZ_1M : 16 * SZ_1M;
	if (p->meta_profile & BTRFS_BLOCK_GROUP_DUP)
		meta *= 2;
	data = (p->data_profile & BTRFS_BLOCK_GROUP_PROFILE_MASK) ?
	       64 * SZ_1M : 8 * SZ_1M;
	if (p->data_profile & BTRFS_BLOCK_GROUP_DUP)
		data *= 2;
	return size + meta + data;
}

/* how many stripes a chunk of @profile gets on @nr_devs devices */
static int profile_num_stripes(u64 profile, int nr_devs, int *sub_stripes)
{
	*sub_stripes = 1;
	switch (profile & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case BTRFS_BLOCK_GROUP_DUP:
	case BTRFS_BLOCK_GROUP_RAID1:
		return 2;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		return 3;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		return 4;
	case BTRFS_BLOCK_GROUP_RAID0:
		return nr_devs;
	case BTRFS_BLOCK_GROUP_RAID10:
		*sub_stripes = 2;
		return nr_devs & ~1;
	default:
		return 1;
	}
}

/* stripes that carry distinct data: the logical size is this * stripe */
static int data_stripes(u64 profile, int num_stripes)
{
	if (profile & BTRFS_BLOCK_GROUP_RAID0)
		return num_stripes;
	if (profile & BTRFS_BLOCK_GROUP_RAID10)
		return num_stripes / 2;
	return 1;
}

/* stripes of one chunk that land on the same device */
static int dev_stripes(u64 profile)
{
	return (profile & BTRFS_BLOCK_GROUP_DUP) ? 2 : 1;
}

/*
 * The preferred stripe size of a chunk of @type with @num_stripes
 * stripes, before the devices are asked whether it fits.
 */
static u64 preferred_stripe_size(u64 type, u64 profile, int num_stripes,
				 u64 total_bytes)
{
	u64 calc, max, floor;

	if (!(profile & BTRFS_BLOCK_GROUP_PROFILE_MASK))
		return (type & BTRFS_BLOCK_GROUP_SYSTEM) ? SYSTEM_GROUP_SIZE :
							   8 * SZ_1M;
	if (type & BTRFS_BLOCK_GROUP_SYSTEM) {
		calc = 8 * SZ_1M;
		max = 2 * calc;
		floor = SZ_1M;
	} else if (type & BTRFS_BLOCK_GROUP_DATA) {
		calc = SZ_1G;
		max = 10 * calc;
		floor = 64 * SZ_1M;
	} else {
		calc = total_bytes > 50 * SZ_1G ? SZ_1G : 256 * SZ_1M;
		max = calc;
		floor = 32 * SZ_1M;
	}
	if (max > total_bytes / 10)
		max = total_bytes / 10;
	if (calc * data_stripes(profile, num_stripes) > max)
		calc = round_down_to(max / num_stripes, BTRFS_STRIPE_LEN);
	if (calc < floor)
		calc = floor;
	return round_down_to(calc, BTRFS_STRIPE_LEN);
}

/*
 * Place one chunk on the simulated free space @avail[] (bytes left at
 * the end of each device), shrinking the stripe when the devices with
 * the most room cannot hold it.  The engine does the real placement;
 * this only proves that it will succeed and fixes the sizes.
 */
static int plan_chunk_on(struct mkfs_geometry *g, u64 avail[], u64 type,
			 u64 profile, struct mkfs_chunk_plan *plan);

/*
 * A single chunk goes to its bootstrap place (within the bootstrap area
 * of the first device, see mkfs_bootstrap_start()); the others come
 * after that area, which they must not count as free.
 */
static int plan_chunk(const struct mkfs_params *p, struct mkfs_geometry *g,
		      u64 avail[], u64 type, u64 profile, struct mkfs_chunk_plan *plan)
{
	u64 area = mkfs_bootstrap_end(p) - DEV_RESERVED, hidden;
	int ret;

	if (!g->bootstrap_layout)
		return plan_chunk_on(g, avail, type, profile, plan);

	if (!(profile & BTRFS_BLOCK_GROUP_PROFILE_MASK)) {
		u64 copy[MKFS_MAX_DEVICES];

		/* inside the area: it takes nothing the others could use */
		memcpy(copy, avail, sizeof(copy));
		return plan_chunk_on(g, copy, type, profile, plan);
	}
	hidden = avail[0] < area ? avail[0] : area;
	avail[0] -= hidden;
	ret = plan_chunk_on(g, avail, type, profile, plan);
	avail[0] += hidden;
	return ret;
}

static int plan_chunk_on(struct mkfs_geometry *g, u64 avail[], u64 type,
			 u64 profile, struct mkfs_chunk_plan *plan)
{
	int per_dev = dev_stripes(profile);
	int num, sub, ndevs, i, j;
	int order[MKFS_MAX_DEVICES];
	u64 stripe, fit;

	num = profile_num_stripes(profile, g->nr_devs, &sub);
	ndevs = num / per_dev;
	if (num < 1 || ndevs > g->nr_devs)
		return -ENOSPC;
	stripe = preferred_stripe_size(type, profile, num, g->total_bytes);

	/* the devices with the most free space take the stripes */
	for (i = 0; i < g->nr_devs; i++)
		order[i] = i;
	for (i = 1; i < g->nr_devs; i++) {
		for (j = i; j > 0 && avail[order[j]] > avail[order[j - 1]]; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	}
	fit = avail[order[ndevs - 1]] / per_dev;
	fit = round_down_to(fit, BTRFS_STRIPE_LEN);
	if (stripe > fit)
		stripe = fit;
	if (stripe < SZ_1M)
		return -ENOSPC;
	for (i = 0; i < ndevs; i++)
		avail[order[i]] -= stripe * per_dev;

	plan->type = type | profile;
	plan->stripe_size = stripe;
	plan->num_stripes = num;
	plan->sub_stripes = sub;
	plan->length = stripe * data_stripes(profile, num);
	return 0;
}

static int check_sizes(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	int i;

	g->min_dev_size = mkfs_min_dev_size(p);
	g->total_bytes = 0;
	for (i = 0; i < g->nr_devs; i++) {
		struct mkfs_device *d = &g->devs[i];

		d->size = round_down_to(d->size, p->sectorsize);
		if (d->size < g->min_dev_size) {
			if (p->byte_count) {
				cmd_error("size %llu is too small to make a usable filesystem",
					   (unsigned long long)d->size);
				cmd_error("minimum size for btrfs filesystem is %llu",
					   (unsigned long long)g->min_dev_size);
			} else {
				cmd_error("'%s' is too small to make a usable filesystem",
					   d->path);
				cmd_error("minimum size for each btrfs device is %llu",
					   (unsigned long long)g->min_dev_size);
			}
			return -ENOSPC;
		}
		g->total_bytes += d->size;
	}
	return 0;
}

static void settle_flags(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	mkfs_features_to_flags(p->features, &g->incompat, &g->compat_ro);
	/*
	 * Every filesystem since 2.6.31 carries mixed backrefs.  Big
	 * metadata is left for the kernel to set at mount, as mkfs.btrfs
	 * does.
	 */
	g->incompat |= BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF;
}

static int plan_chunks(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	u64 avail[MKFS_MAX_DEVICES];
	u64 meta_type = BTRFS_BLOCK_GROUP_METADATA;
	int i, ret;

	for (i = 0; i < g->nr_devs; i++)
		avail[i] = g->devs[i].size - DEV_RESERVED;

	memset(g->chunks, 0, sizeof(g->chunks));
	ret = plan_chunk(p, g, avail, BTRFS_BLOCK_GROUP_SYSTEM, p->meta_profile,
			 &g->chunks[MKFS_CHUNK_SYSTEM]);
	if (p->mixed)
		meta_type |= BTRFS_BLOCK_GROUP_DATA;
	if (!ret)
		ret = plan_chunk(p, g, avail, meta_type, p->meta_profile,
				 &g->chunks[MKFS_CHUNK_METADATA]);
	if (!ret && !p->mixed)
		ret = plan_chunk(p, g, avail, BTRFS_BLOCK_GROUP_DATA,
				 p->data_profile, &g->chunks[MKFS_CHUNK_DATA]);
	return ret;
}

int mkfs_compute_geometry(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	int ret;

	ret = check_sizes(p, g);
	if (ret)
		return ret;
	settle_flags(p, g);
	/* mkfs.btrfs's places when they fit, else packed (small devices) */
	g->bootstrap_layout = true;
	ret = plan_chunks(p, g);
	if (ret == -ENOSPC) {
		g->bootstrap_layout = false;
		ret = plan_chunks(p, g);
	}
	if (ret) {
		cmd_error("not enough free space to allocate the first chunks");
		return ret;
	}
	return 0;
}
