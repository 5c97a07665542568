// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 1: the superblock, its mirrors and its backup roots.
 *
 * The primary copy was validated field by field when the filesystem was
 * opened; here we look at what opening does not need: mirrors on every
 * device, device sizes against the superblock, feature bits, and the
 * backup root slots.  A mirror that is absent (images restored from
 * metadata dumps have none) or one transaction behind is normal and only
 * noted; a mirror that looks like a superblock but fails its checksum or
 * validation is a finding.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/csum.h"

#define KNOWN_INCOMPAT (BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF | \
			BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL | \
			BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS | \
			BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO | \
			BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD | \
			BTRFS_FEATURE_INCOMPAT_BIG_METADATA | \
			BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF | \
			BTRFS_FEATURE_INCOMPAT_RAID56 | \
			BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA | \
			BTRFS_FEATURE_INCOMPAT_NO_HOLES | \
			BTRFS_FEATURE_INCOMPAT_METADATA_UUID | \
			BTRFS_FEATURE_INCOMPAT_RAID1C34 | \
			BTRFS_FEATURE_INCOMPAT_ZONED | \
			BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2 | \
			BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE | \
			BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA)
#define KNOWN_COMPAT_RO (BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE | \
			 BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID | \
			 BTRFS_FEATURE_COMPAT_RO_VERITY | \
			 BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)

/* remembers the engine's reason for a failed validation */
struct capture {
	char msg[256];
};

static void capture_report(void *data, enum btrfs_report_level level, const char *msg)
{
	struct capture *c = data;

	(void)level;
	if (!c->msg[0])
		snprintf(c->msg, sizeof(c->msg), "%s", msg);
}

/* the uuid tree blocks carry: metadata_uuid when the flag says so */
static const u8 *metadata_fsid(const struct btrfs_super_block *sb)
{
	if (btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_METADATA_UUID)
		return sb->metadata_uuid;
	return sb->fsid;
}

/*
 * A mirror with another fsid but the primary's metadata uuid is the same
 * filesystem before an fsid change (btrfstune -m/-M) that did not rewrite
 * every mirror: the kernel reads only the primary and btrfs check accepts
 * it, so it is a warning.  Any other fsid is a mirror of a different
 * filesystem.
 */
static void report_other_fsid(struct check_ctx *ctx, const struct btrfs_super_block *sb,
			      int mirror, u64 bytenr)
{
	const struct btrfs_super_block *primary = &ctx->fs_info->super_copy;
	char detail[256];

	if (memcmp(metadata_fsid(sb), metadata_fsid(primary), BTRFS_FSID_SIZE)) {
		check_problem(ctx, PR_SUPER_MIRROR_BAD, &(struct problem_ctx){
			.mirror = mirror, .bytenr = bytenr,
			.detail = "fsid differs from the primary superblock" });
		return;
	}
	snprintf(detail, sizeof(detail),
		 "another fsid than the primary's but the same metadata uuid: an fsid change (btrfstune -m/-M) did not reach every mirror (generation %llu, primary %llu); the kernel reads only the primary; rewrite with ghee check --repair",
		 (unsigned long long)btrfs_super_generation(sb),
		 (unsigned long long)btrfs_super_generation(primary));
	check_warning(ctx, PR_SUPER_MIRROR_OLD_FSID, &(struct problem_ctx){
		.mirror = mirror, .bytenr = bytenr, .detail = detail });
}

static void check_mirror(struct check_ctx *ctx, struct btrfs_device *dev, int mirror)
{
	const struct btrfs_super_block *primary = &ctx->fs_info->super_copy;
	u64 bytenr = btrfs_sb_offset(mirror);
	struct capture cap = { "" };
	struct btrfs_reporter rep = { capture_report, &cap };
	struct btrfs_super_block sb;
	int ret;

	if (bytenr + BTRFS_SUPER_INFO_SIZE > dev->size)
		return;
	ret = btrfs_read_super_dev(ctx->fs_info, dev, bytenr, &sb);
	if (ret) {
		check_problem(ctx, PR_SUPER_UNREADABLE, &(struct problem_ctx){
			.mirror = mirror, .bytenr = bytenr, .detail = strerror(-ret) });
		return;
	}
	if (btrfs_super_magic(&sb) != BTRFS_MAGIC) {
		check_info(ctx, "note: device %s has no superblock mirror %d at %llu",
			   dev->path, mirror, (unsigned long long)bytenr);
		return;
	}
	ret = btrfs_validate_super(&sb, bytenr, &rep);
	if (ret) {
		check_problem(ctx, PR_SUPER_MIRROR_BAD, &(struct problem_ctx){
			.mirror = mirror, .bytenr = bytenr, .detail = cap.msg });
		return;
	}
	if (dev->seed) {
		/* a seed device's mirrors are those of the seed filesystem */
		if (memcmp(sb.fsid, dev->fsid, BTRFS_FSID_SIZE))
			check_problem(ctx, PR_SUPER_MIRROR_BAD, &(struct problem_ctx){
				.mirror = mirror, .bytenr = bytenr,
				.detail = "fsid differs from the seed device's primary superblock" });
		return;
	}
	if (memcmp(sb.fsid, primary->fsid, BTRFS_FSID_SIZE)) {
		report_other_fsid(ctx, &sb, mirror, bytenr);
		return;
	}
	/*
	 * Every commit writes all the copies: another generation is a write
	 * that did not reach them all.  The kernel and btrfs check read the
	 * primary only, hence a warning; --repair rewrites the mirrors from
	 * the primary (-s N --repair keeps a mirror's state instead).
	 */
	if (btrfs_super_generation(&sb) != btrfs_super_generation(primary))
		check_warning(ctx, PR_SUPER_MIRROR_STALE, &(struct problem_ctx){
			.mirror = mirror, .bytenr = bytenr,
			.found = btrfs_super_generation(&sb),
			.expected = btrfs_super_generation(primary) });
}

static void check_features(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = &ctx->fs_info->super_copy;
	u64 incompat = btrfs_super_incompat_flags(sb);
	u64 compat_ro = btrfs_super_compat_ro_flags(sb);

	if (incompat & ~KNOWN_INCOMPAT)
		check_problem(ctx, PR_SUPER_FIELD, &(struct problem_ctx){
			.name = "incompat_flags (unknown bits)",
			.found = incompat & ~KNOWN_INCOMPAT, .expected = 0 });
	if (compat_ro & ~KNOWN_COMPAT_RO)
		check_problem(ctx, PR_SUPER_FIELD, &(struct problem_ctx){
			.name = "compat_ro_flags (unknown bits)",
			.found = compat_ro & ~KNOWN_COMPAT_RO, .expected = 0 });
	if ((compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID) &&
	    !(compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		check_problem(ctx, PR_SUPER_FIELD, &(struct problem_ctx){
			.name = "compat_ro FREE_SPACE_TREE_VALID without FREE_SPACE_TREE",
			.found = compat_ro, .expected = compat_ro |
				BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE });
	if ((compat_ro & BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE) &&
	    !(compat_ro & BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		check_problem(ctx, PR_SUPER_FIELD, &(struct problem_ctx){
			.name = "compat_ro BLOCK_GROUP_TREE without FREE_SPACE_TREE",
			.found = compat_ro, .expected = compat_ro |
				BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE });
	if (btrfs_super_num_devices(sb) != (u64)ctx->fs_info->num_devices)
		check_problem(ctx, PR_SUPER_FIELD, &(struct problem_ctx){
			.name = "num_devices (device items in the chunk tree)",
			.found = btrfs_super_num_devices(sb),
			.expected = (u64)ctx->fs_info->num_devices });
}

/*
 * Device sizes: each device item's total_bytes must be sector aligned and
 * fit the real device, and the superblock's total_bytes must cover the
 * sum of them.
 */
static void check_device_sizes(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs = ctx->fs_info;
	u64 sum = 0;
	int i;

	for (i = 0; i < fs->num_devices; i++) {
		struct btrfs_device *dev = &fs->devices[i];

		sum += dev->total_bytes;
		if (dev->total_bytes % fs->sectorsize)
			check_problem(ctx, PR_SUPER_FIELD, &(struct problem_ctx){
				.name = "device total_bytes alignment (remainder)",
				.devid = dev->devid,
				.found = dev->total_bytes % fs->sectorsize,
				.expected = 0 });
		if (dev->fd >= 0 && dev->total_bytes > dev->size)
			check_problem(ctx, PR_DEV_TOTAL_BYTES, &(struct problem_ctx){
				.devid = dev->devid, .found = dev->total_bytes,
				.expected = dev->size });
	}
	if (btrfs_super_total_bytes(&fs->super_copy) < sum)
		check_problem(ctx, PR_SUPER_TOTAL_BYTES, &(struct problem_ctx){
			.found = btrfs_super_total_bytes(&fs->super_copy),
			.expected = sum });
}

/*
 * Backup roots: old slots may point at blocks that were reused since, so
 * only the fields themselves are judged, and the superblock's generation
 * must be explained by the slots.
 *
 * The kernel fills a slot with the tree root it holds when it writes the
 * superblocks, and the next transaction may have COWed that root by then.
 * So the previous commit's slot can carry a root of the superblock's
 * generation that is not the superblock's (seen on kernel 6.18), and on a
 * filesystem that was not unmounted (a crash, a log tree) the last
 * commit's slot can carry a root of the next generation.  Damage is a slot
 * more than one generation ahead, or a current-generation slot that
 * disagrees with the superblock while no slot holds the superblock's root
 * and none the next generation's.
 */
static void check_backup_roots(struct check_ctx *ctx)
{
	const struct btrfs_super_block *sb = &ctx->fs_info->super_copy;
	u64 sgen = btrfs_super_generation(sb);
	u64 sroot = btrfs_super_root(sb);
	u32 sectorsize = ctx->fs_info->sectorsize;
	bool explained = false;
	char detail[160];
	int i;

	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];
		u64 gen = btrfs_backup_tree_root_gen(b);

		if (btrfs_backup_tree_root(b) &&
		    ((gen == sgen && btrfs_backup_tree_root(b) == sroot) || gen == sgen + 1))
			explained = true;
	}

	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];
		u64 root = btrfs_backup_tree_root(b);
		u64 gen = btrfs_backup_tree_root_gen(b);

		if (!root)
			continue;
		detail[0] = 0;
		if (root % sectorsize || btrfs_backup_chunk_root(b) % sectorsize)
			snprintf(detail, sizeof(detail), "tree root %llu or chunk root %llu not aligned to %u",
				 (unsigned long long)root,
				 (unsigned long long)btrfs_backup_chunk_root(b), sectorsize);
		else if (btrfs_backup_tree_root_level(b) >= BTRFS_MAX_LEVEL ||
			 btrfs_backup_chunk_root_level(b) >= BTRFS_MAX_LEVEL)
			snprintf(detail, sizeof(detail), "root level %u or chunk level %u out of range",
				 btrfs_backup_tree_root_level(b),
				 btrfs_backup_chunk_root_level(b));
		else if (gen > sgen + 1)
			snprintf(detail, sizeof(detail),
				 "generation %llu more than one ahead of the superblock's %llu",
				 (unsigned long long)gen, (unsigned long long)sgen);
		else if (gen == sgen && root != sroot && !explained)
			snprintf(detail, sizeof(detail), "current generation %llu but tree root %llu differs from the superblock's %llu",
				 (unsigned long long)gen, (unsigned long long)root,
				 (unsigned long long)sroot);
		if (detail[0])
			check_problem(ctx, PR_BACKUP_ROOT_BAD, &(struct problem_ctx){
				.index = i, .detail = detail });
	}
}

int check_phase_super(struct check_ctx *ctx)
{
	struct btrfs_fs_info *fs = ctx->fs_info;
	int i, mirror;

	for (i = 0; i < fs->num_devices; i++) {
		if (fs->devices[i].fd < 0)
			continue;
		for (mirror = 1; mirror < BTRFS_SUPER_MIRROR_MAX; mirror++)
			check_mirror(ctx, &fs->devices[i], mirror);
	}
	check_features(ctx);
	check_device_sizes(ctx);
	check_backup_roots(ctx);
	return 0;
}
