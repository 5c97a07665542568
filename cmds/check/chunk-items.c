// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 2: the chunk items themselves, where they are stored (the
 * superblock's sys_chunk_array and the chunk tree), against the device
 * items and the devices' own superblocks.
 *
 * The engine maps chunks after checking what it needs to read (stripe
 * counts per profile, stripe length, type bits, alignment); a system chunk
 * is mapped from the superblock and its chunk tree copy is not looked at.
 * The kernel looks a device up by devid and uuid, so a stripe whose
 * dev_uuid is not its device's, or a device item whose uuid is not the one
 * in that device's superblock, makes it treat the device as missing and
 * refuse to mount.  Its chunk validation also requires sector_size to be
 * the filesystem's sectorsize (io_align and io_width are hints it does
 * not check, and neither do we).
 */
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/print-tree.h"
#include "kernel-shared/volumes.h"

/*
 * The uuid a stripe must carry: the one in its device's superblock when the
 * device is here (the kernel finds devices by devid and that uuid), else
 * the one of its device item.
 */
static const u8 *device_uuid(const struct btrfs_device *dev, const char **source)
{
	if (dev->fd >= 0) {
		*source = "superblock";
		return dev->super_uuid;
	}
	*source = "device item";
	return dev->has_item ? dev->uuid : NULL;
}

static void check_stripe_uuid(struct check_ctx *ctx, const char *where, u64 logical,
			      int index, const struct btrfs_stripe *s)
{
	struct btrfs_device *dev = btrfs_find_device(ctx->fs_info, btrfs_stripe_devid(s));
	char have[40], want[40], detail[160];
	const char *source;
	const u8 *uuid;

	if (!dev)
		return;		/* DEV_ITEM_MISSING */
	uuid = device_uuid(dev, &source);
	if (!uuid || !memcmp(s->dev_uuid, uuid, BTRFS_UUID_SIZE))
		return;
	btrfs_format_uuid(s->dev_uuid, have);
	btrfs_format_uuid(uuid, want);
	snprintf(detail, sizeof(detail), "%s, the %s of device %llu has %s",
		 have, source, (unsigned long long)dev->devid, want);
	check_problem(ctx, PR_CHUNK_STRIPE_DEV_UUID, &(struct problem_ctx){
		.bytenr = logical, .name = where, .index = index, .detail = detail });
}

/* what the engine's mapping does not need but the kernel validates */
static void check_chunk_fields(struct check_ctx *ctx, const char *where, u64 logical,
			       const struct btrfs_chunk *chunk, u32 item_size)
{
	u32 sector_size = btrfs_chunk_sector_size(chunk);
	u16 num = btrfs_chunk_num_stripes(chunk);
	char detail[160];
	int i;

	if (sector_size != ctx->fs_info->sectorsize) {
		snprintf(detail, sizeof(detail), "sector_size %u in the %s, expect %u (the sectorsize)",
			 sector_size, where, ctx->fs_info->sectorsize);
		check_problem(ctx, PR_CHUNK_INVALID, &(struct problem_ctx){
			.bytenr = logical, .detail = detail });
	}
	if (!num || item_size < btrfs_chunk_item_size(num))
		return;		/* the engine refused to map it */
	for (i = 0; i < num; i++)
		check_stripe_uuid(ctx, where, logical, i, btrfs_chunk_stripe(chunk, i));
}

static void check_sys_array(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = &ctx->fs_info->super_copy;
	u32 size = btrfs_super_sys_array_size(sb), cur = 0;

	if (size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE)
		return;		/* the engine refused to open it */
	while (cur + sizeof(struct btrfs_disk_key) + sizeof(struct btrfs_chunk) <= size) {
		const struct btrfs_disk_key *dkey = (const void *)(sb->sys_chunk_array + cur);
		const struct btrfs_chunk *chunk;
		struct btrfs_key key;
		u32 item_size;

		btrfs_disk_key_to_cpu(&key, dkey);
		cur += sizeof(*dkey);
		chunk = (const void *)(sb->sys_chunk_array + cur);
		item_size = btrfs_chunk_item_size(btrfs_chunk_num_stripes(chunk));
		if (key.type != BTRFS_CHUNK_ITEM_KEY || cur + item_size > size)
			return;
		check_chunk_fields(ctx, "superblock's sys_chunk_array", key.offset, chunk,
				   item_size);
		cur += item_size;
	}
}

static void check_dev_item(struct check_ctx *ctx, const struct btrfs_dev_item *di)
{
	struct btrfs_device *dev = btrfs_find_device(ctx->fs_info, btrfs_device_id(di));
	const char *path;
	const u8 *fsid;
	char have[40], want[40], detail[200];

	if (!dev || dev->fd < 0)
		return;		/* nothing to compare with */
	path = dev->path ? dev->path : "the device";
	if (memcmp(di->uuid, dev->super_uuid, BTRFS_UUID_SIZE)) {
		btrfs_format_uuid(di->uuid, have);
		btrfs_format_uuid(dev->super_uuid, want);
		snprintf(detail, sizeof(detail),
			 "the device item's uuid %s differs from %s in the superblock of %s",
			 have, want, path);
		check_problem(ctx, PR_DEV_ITEM_SUPER_MISMATCH, &(struct problem_ctx){
			.devid = dev->devid, .detail = detail });
	}
	/*
	 * The item carries the metadata uuid of the filesystem the device
	 * belongs to (a seed's own); another one names a seed device, which
	 * the kernel would look for.
	 */
	fsid = dev->seed ? dev->fsid : ctx->fs_info->metadata_uuid;
	if (memcmp(di->fsid, fsid, BTRFS_FSID_SIZE)) {
		btrfs_format_uuid(di->fsid, have);
		btrfs_format_uuid(fsid, want);
		snprintf(detail, sizeof(detail),
			 "the device item's fsid %s differs from %s in the superblock of %s",
			 have, want, path);
		check_problem(ctx, PR_DEV_ITEM_SUPER_MISMATCH, &(struct problem_ctx){
			.devid = dev->devid, .detail = detail });
	}
}

void check_chunk_items(struct check_ctx *ctx)
{
	struct btrfs_root *root = &ctx->fs_info->chunk_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	check_sys_array(ctx);
	if (!root->node)
		return;
	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];
		u32 size = btrfs_item_size(leaf, slot);

		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_DEV_ITEM_KEY && size >= sizeof(struct btrfs_dev_item))
			check_dev_item(ctx, btrfs_item_ptr(leaf, slot, struct btrfs_dev_item));
		else if (key.type == BTRFS_CHUNK_ITEM_KEY && size >= sizeof(struct btrfs_chunk))
			check_chunk_fields(ctx, "chunk tree", key.offset,
					   btrfs_item_ptr(leaf, slot, struct btrfs_chunk), size);
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
}
