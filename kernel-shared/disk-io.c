// SPDX-License-Identifier: GPL-2.0
/*
 * Superblocks, tree block reads with verification, and opening a
 * filesystem: superblock -> sys_chunk_array -> chunk tree -> tree of tree
 * roots -> the well-known trees.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "disk-io.h"
#include "csum.h"
#include "ctree.h"
#include "tree-checker.h"
#include "accessors.h"
#include "dev-overlay.h"

int btrfs_read_super_raw(int fd, u64 bytenr, struct btrfs_super_block *sb)
{
	ssize_t ret = pread(fd, sb, sizeof(*sb), bytenr);

	if (ret < 0)
		return -errno;
	if (ret != sizeof(*sb))
		return -ENOENT;
	return 0;
}

int btrfs_read_super_dev(const struct btrfs_fs_info *fs_info,
			 const struct btrfs_device *dev, u64 bytenr,
			 struct btrfs_super_block *sb)
{
	int ret = btrfs_read_super_raw(dev->fd, bytenr, sb);

	if (!ret && fs_info->overlay)
		btrfs_overlay_read(fs_info->overlay, dev->overlay_dev, sb,
				   sizeof(*sb), bytenr);
	return ret;
}

bool btrfs_super_csum_ok(const struct btrfs_super_block *sb)
{
	u8 digest[BTRFS_CSUM_SIZE];
	u16 type = btrfs_super_csum_type(sb);

	if (!btrfs_csum_type_valid(type))
		return false;
	btrfs_csum_data(type, (const u8 *)sb + BTRFS_CSUM_SIZE,
			BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, digest);
	return !memcmp(digest, sb->csum, btrfs_csum_type_size(type));
}

static bool is_pow2_in(u64 v, u64 lo, u64 hi)
{
	return v >= lo && v <= hi && !(v & (v - 1));
}

static int validate_super_sizes(const struct btrfs_super_block *sb,
				const struct btrfs_reporter *rep)
{
	u32 sectorsize = btrfs_super_sectorsize(sb);
	u32 nodesize = btrfs_super_nodesize(sb);

	if (!is_pow2_in(sectorsize, 4096, 65536)) {
		btrfs_err(rep, "superblock: invalid sectorsize %u, expect a power of two in [4096, 65536]",
			  sectorsize);
		return -EUCLEAN;
	}
	if (!is_pow2_in(nodesize, sectorsize, BTRFS_MAX_METADATA_BLOCKSIZE)) {
		btrfs_err(rep, "superblock: invalid nodesize %u, expect a power of two in [%u, %u]",
			  nodesize, sectorsize, BTRFS_MAX_METADATA_BLOCKSIZE);
		return -EUCLEAN;
	}
	if (btrfs_super_stripesize(sb) != sectorsize &&
	    btrfs_super_stripesize(sb) != 4096) {
		btrfs_err(rep, "superblock: invalid stripesize %u, expect %u",
			  btrfs_super_stripesize(sb), sectorsize);
		return -EUCLEAN;
	}
	return 0;
}

static int validate_super_roots(const struct btrfs_super_block *sb,
				const struct btrfs_reporter *rep)
{
	u32 sectorsize = btrfs_super_sectorsize(sb);
	struct {
		const char *name;
		u64 bytenr;
		u8 level;
	} roots[] = {
		{ "root", btrfs_super_root(sb), btrfs_super_root_level(sb) },
		{ "chunk_root", btrfs_super_chunk_root(sb), btrfs_super_chunk_root_level(sb) },
		{ "log_root", btrfs_super_log_root(sb), btrfs_super_log_root_level(sb) },
	};
	size_t i;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (roots[i].bytenr % sectorsize) {
			btrfs_err(rep, "superblock: %s %llu is not aligned to sectorsize %u",
				  roots[i].name, (unsigned long long)roots[i].bytenr,
				  sectorsize);
			return -EUCLEAN;
		}
		if (roots[i].level >= BTRFS_MAX_LEVEL) {
			btrfs_err(rep, "superblock: %s level %u, expect below %d",
				  roots[i].name, roots[i].level, BTRFS_MAX_LEVEL);
			return -EUCLEAN;
		}
	}
	if (!btrfs_super_root(sb) || !btrfs_super_chunk_root(sb)) {
		btrfs_err(rep, "superblock: root %llu or chunk_root %llu is zero",
			  (unsigned long long)btrfs_super_root(sb),
			  (unsigned long long)btrfs_super_chunk_root(sb));
		return -EUCLEAN;
	}
	return 0;
}

static int validate_super_counts(const struct btrfs_super_block *sb,
				 const struct btrfs_reporter *rep)
{
	u32 sys_size = btrfs_super_sys_array_size(sb);

	if (sys_size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
		btrfs_err(rep, "superblock: sys_chunk_array_size %u, expect at most %d",
			  sys_size, BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
		return -EUCLEAN;
	}
	if (sys_size < sizeof(struct btrfs_disk_key) + sizeof(struct btrfs_chunk)) {
		btrfs_err(rep, "superblock: sys_chunk_array_size %u too small for one chunk (%zu)",
			  sys_size, sizeof(struct btrfs_disk_key) + sizeof(struct btrfs_chunk));
		return -EUCLEAN;
	}
	if (!btrfs_super_num_devices(sb) ||
	    btrfs_super_num_devices(sb) > GHEE_MAX_DEVICES) {
		btrfs_err(rep, "superblock: num_devices %llu, expect 1..%d",
			  (unsigned long long)btrfs_super_num_devices(sb),
			  GHEE_MAX_DEVICES);
		return -EUCLEAN;
	}
	if (!btrfs_super_generation(sb)) {
		btrfs_err(rep, "superblock: generation is 0");
		return -EUCLEAN;
	}
	if (btrfs_super_chunk_root_generation(sb) > btrfs_super_generation(sb)) {
		btrfs_err(rep, "superblock: chunk_root_generation %llu newer than generation %llu",
			  (unsigned long long)btrfs_super_chunk_root_generation(sb),
			  (unsigned long long)btrfs_super_generation(sb));
		return -EUCLEAN;
	}
	if (btrfs_super_total_bytes(sb) < 4ULL * btrfs_super_nodesize(sb)) {
		btrfs_err(rep, "superblock: total_bytes %llu is too small",
			  (unsigned long long)btrfs_super_total_bytes(sb));
		return -EUCLEAN;
	}
	return 0;
}

int btrfs_validate_super(const struct btrfs_super_block *sb, u64 bytenr,
			 const struct btrfs_reporter *rep)
{
	u16 csum_type = btrfs_super_csum_type(sb);
	int ret;

	if (btrfs_super_magic(sb) != BTRFS_MAGIC) {
		btrfs_err(rep, "superblock at %llu: bad magic 0x%016llx, expect 0x%016llx",
			  (unsigned long long)bytenr,
			  (unsigned long long)btrfs_super_magic(sb),
			  (unsigned long long)BTRFS_MAGIC);
		return -EINVAL;
	}
	if (!btrfs_csum_type_valid(csum_type)) {
		btrfs_err(rep, "superblock at %llu: unknown csum_type %u",
			  (unsigned long long)bytenr, csum_type);
		return -EUCLEAN;
	}
	if (!btrfs_super_csum_ok(sb)) {
		btrfs_err(rep, "superblock at %llu: checksum mismatch",
			  (unsigned long long)bytenr);
		return -EUCLEAN;
	}
	if (btrfs_super_bytenr(sb) != bytenr) {
		btrfs_err(rep, "superblock at %llu: bytenr field says %llu",
			  (unsigned long long)bytenr,
			  (unsigned long long)btrfs_super_bytenr(sb));
		return -EUCLEAN;
	}
	ret = validate_super_sizes(sb, rep);
	if (!ret)
		ret = validate_super_roots(sb, rep);
	if (!ret)
		ret = validate_super_counts(sb, rep);
	if (!ret && memcmp(sb->fsid, sb->dev_item.fsid, BTRFS_FSID_SIZE) &&
	    !(btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_METADATA_UUID)) {
		btrfs_err(rep, "superblock at %llu: dev_item fsid does not match fsid",
			  (unsigned long long)bytenr);
		ret = -EUCLEAN;
	}
	return ret;
}

int btrfs_read_dev_super(int fd, u64 bytenr, struct btrfs_super_block *sb,
			 const struct btrfs_reporter *rep)
{
	int ret;

	if (!bytenr)
		bytenr = BTRFS_SUPER_INFO_OFFSET;
	ret = btrfs_read_super_raw(fd, bytenr, sb);
	if (ret) {
		btrfs_err(rep, "cannot read superblock at %llu: %s",
			  (unsigned long long)bytenr,
			  ret == -ENOENT ? "device too small" : strerror(-ret));
		return ret;
	}
	return btrfs_validate_super(sb, bytenr, rep);
}

bool btrfs_tree_block_csum_ok(const struct btrfs_fs_info *fs_info,
			      const u8 *data, u32 len)
{
	u8 digest[BTRFS_CSUM_SIZE];

	btrfs_csum_data(fs_info->csum_type, data + BTRFS_CSUM_SIZE,
			len - BTRFS_CSUM_SIZE, digest);
	return !memcmp(digest, data, fs_info->csum_size);
}

/* one copy of a block: header checks, then (optionally) the layout */
/* blocks written before a filesystem was sprouted carry its seed's fsid */
static bool is_seed_fsid(const struct btrfs_fs_info *fs_info, const u8 *fsid)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		if (fs_info->devices[i].seed &&
		    !memcmp(fs_info->devices[i].fsid, fsid, BTRFS_FSID_SIZE))
			return true;
	}
	return false;
}

static int verify_tree_block(struct btrfs_fs_info *fs_info,
			     struct extent_buffer *eb,
			     const struct tree_block_check *check,
			     bool full, char *why, size_t why_len)
{
	const struct btrfs_header *h = eb_header(eb);
	struct tree_check_error terr;
	int ret;

	/*
	 * A dirty buffer (write side) is checksummed only when written; a
	 * cached one passed this check when it was read (or was checksummed
	 * when written) and has not changed since: checksumming it again on
	 * every cache hit would cost a 16 KiB crc per tree level per search.
	 */
	if (!(eb->flags & (EXTENT_BUFFER_DIRTY | EXTENT_BUFFER_UPTODATE)) &&
	    !btrfs_tree_block_csum_ok(fs_info, eb->data, eb->len)) {
		u32 found = get_unaligned_le32(eb->data);
		u8 digest[BTRFS_CSUM_SIZE];

		btrfs_csum_data(fs_info->csum_type, eb->data + BTRFS_CSUM_SIZE,
				eb->len - BTRFS_CSUM_SIZE, digest);
		snprintf(why, why_len,
			 "checksum verify failed on %llu wanted 0x%08x found 0x%08x",
			 (unsigned long long)eb->start, found,
			 get_unaligned_le32(digest));
		fs_info->csum_errors++;
		return -EUCLEAN;
	}
	if (btrfs_header_bytenr(h) != eb->start) {
		snprintf(why, why_len, "bad tree block %llu: header bytenr %llu",
			 (unsigned long long)eb->start,
			 (unsigned long long)btrfs_header_bytenr(h));
		return -EUCLEAN;
	}
	if (memcmp(h->fsid, fs_info->metadata_uuid, BTRFS_FSID_SIZE) &&
	    !is_seed_fsid(fs_info, h->fsid)) {
		snprintf(why, why_len, "bad tree block %llu: fsid does not match the filesystem",
			 (unsigned long long)eb->start);
		return -EUCLEAN;
	}
	if (btrfs_header_level(h) >= BTRFS_MAX_LEVEL) {
		snprintf(why, why_len, "bad tree block %llu: level %u, expect below %d",
			 (unsigned long long)eb->start, btrfs_header_level(h),
			 BTRFS_MAX_LEVEL);
		return -EUCLEAN;
	}
	if (check && check->level >= 0 && btrfs_header_level(h) != check->level) {
		snprintf(why, why_len, "tree block %llu level mismatch, wanted %d found %u",
			 (unsigned long long)eb->start, check->level,
			 btrfs_header_level(h));
		return -EUCLEAN;
	}
	if (check && check->transid &&
	    btrfs_header_generation(h) != check->transid) {
		snprintf(why, why_len, "parent transid verify failed on %llu wanted %llu found %llu",
			 (unsigned long long)eb->start,
			 (unsigned long long)check->transid,
			 (unsigned long long)btrfs_header_generation(h));
		return -EUCLEAN;
	}
	if (check && check->owner && btrfs_header_owner(h) != check->owner) {
		snprintf(why, why_len, "tree block %llu owner mismatch, wanted %llu found %llu",
			 (unsigned long long)eb->start,
			 (unsigned long long)check->owner,
			 (unsigned long long)btrfs_header_owner(h));
		return -EUCLEAN;
	}
	if (!full)
		return 0;
	terr.slot = -1;
	terr.msg[0] = 0;
	/* item contents are judged by their users (check, printers), not here */
	if (btrfs_header_level(h) == 0) {
		ret = btrfs_check_leaf_layout(fs_info, eb, &terr);
	} else {
		ret = btrfs_check_node(fs_info, eb, &terr);
	}
	if (!ret && check && check->has_first_key && btrfs_eb_nritems(eb)) {
		struct btrfs_key first;

		if (btrfs_header_level(h) == 0)
			btrfs_item_key_to_cpu(eb, &first, 0);
		else
			btrfs_node_key_to_cpu(eb, &first, 0);
		if (btrfs_comp_cpu_keys(&first, &check->first_key)) {
			snprintf(terr.msg, sizeof(terr.msg),
				 "tree block %llu first key mismatch, wanted (%llu %u %llu) found (%llu %u %llu)",
				 (unsigned long long)eb->start,
				 (unsigned long long)check->first_key.objectid,
				 check->first_key.type,
				 (unsigned long long)check->first_key.offset,
				 (unsigned long long)first.objectid, first.type,
				 (unsigned long long)first.offset);
			ret = -EUCLEAN;
		}
	}
	if (ret)
		snprintf(why, why_len, "%s", terr.msg);
	return ret;
}

/*
 * No copy of @eb passed: let the repair's fixer mend one in memory, the
 * copies in order, and verify what it made.  0 when @eb holds a block
 * that passes now (reported as an info line), else -EUCLEAN.
 */
static int try_block_fixer(struct btrfs_fs_info *fs_info, struct extent_buffer *eb,
			   const struct tree_block_check *check, int copies,
			   const char *first_why)
{
	char why[320];
	int mirror;

	for (mirror = 1; mirror <= copies; mirror++) {
		if (btrfs_read_logical(fs_info, eb->start, eb->data, eb->len, mirror))
			continue;
		if (fs_info->block_fixer.fix(fs_info->block_fixer.data, fs_info, eb,
					     check))
			continue;
		/* the fixer rewrote the checksum of what it changed */
		if (!verify_tree_block(fs_info, eb, check, true, why, sizeof(why))) {
			btrfs_report(&fs_info->reporter, BTRFS_REPORT_INFO,
				     "%s: mended in memory for the repair (copy %d)",
				     first_why, mirror);
			return 0;
		}
	}
	return -EUCLEAN;
}

static struct extent_buffer *read_tree_block_mode(struct btrfs_fs_info *fs_info,
						  u64 bytenr,
						  const struct tree_block_check *check,
						  bool full, int *err)
{
	u32 verified_flag = full ? EXTENT_BUFFER_VERIFIED : EXTENT_BUFFER_UPTODATE;
	char why[320], first_why[320] = "";
	struct extent_buffer *eb;
	int copies, mirror, ret = -EIO;

	if (bytenr % fs_info->sectorsize || !bytenr) {
		btrfs_err(&fs_info->reporter, "tree block bytenr %llu is not aligned to sectorsize %u",
			  (unsigned long long)bytenr, fs_info->sectorsize);
		*err = -EUCLEAN;
		return NULL;
	}
	eb = alloc_extent_buffer_for_read(fs_info, bytenr);
	if (!eb) {
		*err = -ENOMEM;
		return NULL;
	}
	if ((eb->flags & verified_flag) == verified_flag) {
		ret = verify_tree_block(fs_info, eb, check, false, why, sizeof(why));
		if (!ret)
			return eb;
		btrfs_err(&fs_info->reporter, "%s", why);
		free_extent_buffer(eb);
		*err = ret;
		return NULL;
	}
	copies = btrfs_num_copies(fs_info, bytenr, fs_info->nodesize);
	if (copies == 0) {
		snprintf(first_why, sizeof(first_why),
			 "tree block %llu is not mapped by any chunk",
			 (unsigned long long)bytenr);
		ret = -ENOENT;
	}
	/* what is read now is checksummed again, whatever was cached */
	eb->flags &= ~(EXTENT_BUFFER_UPTODATE | EXTENT_BUFFER_VERIFIED);
	for (mirror = 1; mirror <= copies; mirror++) {
		ret = btrfs_read_logical(fs_info, bytenr, eb->data, eb->len, mirror);
		if (ret) {
			snprintf(why, sizeof(why), "cannot read tree block %llu mirror %d: %s",
				 (unsigned long long)bytenr, mirror, strerror(-ret));
			fs_info->read_errors++;
		} else {
			ret = verify_tree_block(fs_info, eb, check, full, why,
						sizeof(why));
		}
		if (!ret) {
			eb->flags |= EXTENT_BUFFER_UPTODATE | verified_flag;
			return eb;
		}
		if (!first_why[0])
			snprintf(first_why, sizeof(first_why), "%s", why);
	}
	if (full && fs_info->block_fixer.fix && copies > 0 &&
	    !try_block_fixer(fs_info, eb, check, copies, first_why)) {
		eb->flags |= EXTENT_BUFFER_UPTODATE | verified_flag;
		return eb;
	}
	btrfs_err(&fs_info->reporter, "%s", first_why);
	extent_buffer_evict(eb);
	free_extent_buffer(eb);
	*err = ret ? ret : -EIO;
	return NULL;
}

struct extent_buffer *read_tree_block(struct btrfs_fs_info *fs_info, u64 bytenr,
				      const struct tree_block_check *check,
				      int *err)
{
	return read_tree_block_mode(fs_info, bytenr, check, true, err);
}

struct extent_buffer *read_tree_block_header_only(struct btrfs_fs_info *fs_info,
						  u64 bytenr,
						  const struct tree_block_check *check,
						  int *err)
{
	return read_tree_block_mode(fs_info, bytenr, check, false, err);
}

/* ---- opening ---- */

static int open_one_device(struct btrfs_fs_info *fs_info, const char *path,
			   bool writable, struct btrfs_super_block *sb,
			   u64 sb_bytenr)
{
	struct btrfs_device *dev;
	struct stat st;
	int fd, ret;

	if (fs_info->num_devices >= GHEE_MAX_DEVICES) {
		btrfs_err(&fs_info->reporter, "too many devices, at most %d",
			  GHEE_MAX_DEVICES);
		return -E2BIG;
	}
	/* a dry run's writes all stay in its overlay: the device is read-only */
	if (btrfs_overlay_captures_all(fs_info->overlay))
		writable = false;
	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	/*
	 * A writer holds block devices exclusively: the kernel then refuses
	 * to mount them (and refused the open if they were mounted).
	 */
	if (fd >= 0 && writable && !fstat(fd, &st) && S_ISBLK(st.st_mode)) {
		close(fd);
		fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);
	}
	if (fd < 0) {
		ret = -errno;
		btrfs_err(&fs_info->reporter, "cannot open %s: %s", path, strerror(errno));
		return ret;
	}
	dev = &fs_info->devices[fs_info->num_devices];
	memset(dev, 0, sizeof(*dev));
	dev->fd = fd;
	dev->writable = writable || btrfs_overlay_captures_all(fs_info->overlay);
	dev->path = strdup(path);
	fs_info->num_devices++;
	if (fs_info->overlay) {
		ret = btrfs_overlay_device(fs_info->overlay, fd);
		if (ret < 0)
			return ret;
		dev->overlay_dev = ret;
	}
	if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) {
		u64 size = 0;

		if (ioctl(fd, BLKGETSIZE64, &size) == 0)
			dev->size = size;
	} else if (fstat(fd, &st) == 0) {
		dev->size = st.st_size;
	}
	if (!sb_bytenr)
		sb_bytenr = BTRFS_SUPER_INFO_OFFSET;
	ret = btrfs_read_super_dev(fs_info, dev, sb_bytenr, sb);
	if (ret)
		btrfs_err(&fs_info->reporter, "cannot read superblock at %llu: %s",
			  (unsigned long long)sb_bytenr,
			  ret == -ENOENT ? "device too small" : strerror(-ret));
	else
		ret = btrfs_validate_super(sb, sb_bytenr, &fs_info->reporter);
	if (ret) {
		btrfs_err(&fs_info->reporter, "%s: no valid btrfs superblock", path);
		return ret;
	}
	dev->devid = btrfs_device_id(&sb->dev_item);
	memcpy(dev->uuid, sb->dev_item.uuid, BTRFS_UUID_SIZE);
	memcpy(dev->super_uuid, sb->dev_item.uuid, BTRFS_UUID_SIZE);
	memcpy(dev->fsid, sb->fsid, BTRFS_FSID_SIZE);
	dev->total_bytes = btrfs_device_total_bytes(&sb->dev_item);
	dev->bytes_used = btrfs_device_bytes_used(&sb->dev_item);
	return 0;
}

static void setup_fs_info_from_super(struct btrfs_fs_info *fs_info)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;

	memcpy(fs_info->fsid, sb->fsid, BTRFS_FSID_SIZE);
	fs_info->incompat = btrfs_super_incompat_flags(sb);
	fs_info->compat_ro = btrfs_super_compat_ro_flags(sb);
	if (fs_info->incompat & BTRFS_FEATURE_INCOMPAT_METADATA_UUID)
		memcpy(fs_info->metadata_uuid, sb->metadata_uuid, BTRFS_FSID_SIZE);
	else
		memcpy(fs_info->metadata_uuid, sb->fsid, BTRFS_FSID_SIZE);
	fs_info->nodesize = btrfs_super_nodesize(sb);
	fs_info->sectorsize = btrfs_super_sectorsize(sb);
	fs_info->stripesize = btrfs_super_stripesize(sb);
	fs_info->csum_type = btrfs_super_csum_type(sb);
	fs_info->csum_size = btrfs_csum_type_size(fs_info->csum_type);
	fs_info->generation = btrfs_super_generation(sb);
}

static int open_devices(struct btrfs_fs_info *fs_info,
			const struct open_ctree_args *args)
{
	bool writable = args->flags & OPEN_CTREE_WRITES;
	struct btrfs_super_block sb;
	int i, j, ret;

	for (i = 0; i < args->nr_paths; i++) {
		ret = open_one_device(fs_info, args->paths[i], writable,
				      i ? &sb : &fs_info->super_copy,
				      args->super_bytenr);
		if (ret)
			return ret;
		if (i && memcmp(sb.fsid, fs_info->super_copy.fsid, BTRFS_FSID_SIZE)) {
			/*
			 * A seed device under a sprouted filesystem has its own
			 * fsid; the chunk tree's device items name it (checked
			 * once they are read).
			 */
			if (btrfs_super_flags(&sb) & BTRFS_SUPER_FLAG_SEEDING) {
				fs_info->devices[fs_info->num_devices - 1].seed = true;
				continue;
			}
			btrfs_err(&fs_info->reporter, "%s belongs to another filesystem (fsid differs)",
				  args->paths[i]);
			return -EINVAL;
		}
		if (i && btrfs_super_generation(&sb) > btrfs_super_generation(&fs_info->super_copy))
			fs_info->super_copy = sb;
		for (j = 0; j < fs_info->num_devices - 1; j++) {
			/* seeds may share a devid until the device items pick one */
			if (fs_info->devices[j].seed)
				continue;
			if (fs_info->devices[j].devid ==
			    fs_info->devices[fs_info->num_devices - 1].devid) {
				btrfs_err(&fs_info->reporter, "%s: devid %llu given twice",
					  args->paths[i],
					  (unsigned long long)fs_info->devices[j].devid);
				return -EINVAL;
			}
		}
	}
	fs_info->super_bytenr = args->super_bytenr ? args->super_bytenr :
						     BTRFS_SUPER_INFO_OFFSET;
	setup_fs_info_from_super(fs_info);
	return 0;
}

/* map every chunk stored in the superblock's sys_chunk_array */
static int read_sys_array(struct btrfs_fs_info *fs_info)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	u32 size = btrfs_super_sys_array_size(sb);
	u32 cur = 0;
	int ret;

	while (cur < size) {
		const struct btrfs_disk_key *dkey;
		const struct btrfs_chunk *chunk;
		struct map_lookup *ml;
		struct btrfs_key key;
		u32 item_size;
		u16 num;

		if (cur + sizeof(*dkey) + sizeof(struct btrfs_chunk) > size) {
			btrfs_err(&fs_info->reporter,
				  "sys_chunk_array: truncated chunk at offset %u of %u", cur, size);
			return -EUCLEAN;
		}
		dkey = (const void *)(sb->sys_chunk_array + cur);
		btrfs_disk_key_to_cpu(&key, dkey);
		if (key.type != BTRFS_CHUNK_ITEM_KEY) {
			btrfs_err(&fs_info->reporter,
				  "sys_chunk_array: unexpected key type %u at offset %u, expect %u",
				  key.type, cur, BTRFS_CHUNK_ITEM_KEY);
			return -EUCLEAN;
		}
		cur += sizeof(*dkey);
		chunk = (const void *)(sb->sys_chunk_array + cur);
		num = btrfs_chunk_num_stripes(chunk);
		item_size = btrfs_chunk_item_size(num);
		if (!num || cur + item_size > size) {
			btrfs_err(&fs_info->reporter,
				  "sys_chunk_array: chunk at offset %u with %u stripes overflows the array size %u",
				  cur, num, size);
			return -EUCLEAN;
		}
		if (!(btrfs_chunk_type(chunk) & BTRFS_BLOCK_GROUP_SYSTEM)) {
			btrfs_err(&fs_info->reporter,
				  "sys_chunk_array: chunk at logical %llu is not a system chunk (type 0x%llx)",
				  (unsigned long long)key.offset,
				  (unsigned long long)btrfs_chunk_type(chunk));
			return -EUCLEAN;
		}
		ret = btrfs_chunk_to_map(fs_info, key.offset, chunk, item_size, &ml);
		if (ret)
			return ret;
		ret = chunk_map_insert(&fs_info->chunk_map, ml);
		if (ret) {
			free(ml);
			btrfs_err(&fs_info->reporter,
				  "sys_chunk_array: chunk at logical %llu overlaps another",
				  (unsigned long long)key.offset);
			return ret;
		}
		cur += item_size;
	}
	return 0;
}

/*
 * The opened device a device item describes: its devid, and for a seed
 * device (several may share a devid, found by a scan) also its uuid and
 * fsid.
 */
static struct btrfs_device *item_device(struct btrfs_fs_info *fs_info,
					const struct btrfs_dev_item *di)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		struct btrfs_device *dev = &fs_info->devices[i];

		if (dev->devid != btrfs_device_id(di))
			continue;
		if (!dev->seed || (!memcmp(dev->super_uuid, di->uuid, BTRFS_UUID_SIZE) &&
				   !memcmp(dev->fsid, di->fsid, BTRFS_FSID_SIZE)))
			return dev;
	}
	return NULL;
}

static void load_device_item(struct btrfs_fs_info *fs_info,
			     const struct btrfs_dev_item *di)
{
	struct btrfs_device *dev = item_device(fs_info, di);

	if (!dev) {
		if (fs_info->num_devices >= GHEE_MAX_DEVICES)
			return;
		/* a device we were not given: known, but missing */
		dev = &fs_info->devices[fs_info->num_devices++];
		memset(dev, 0, sizeof(*dev));
		dev->fd = -1;
		dev->devid = btrfs_device_id(di);
	}
	memcpy(dev->uuid, di->uuid, BTRFS_UUID_SIZE);
	memcpy(dev->item_fsid, di->fsid, BTRFS_FSID_SIZE);
	dev->has_item = true;
	dev->total_bytes = btrfs_device_total_bytes(di);
	dev->bytes_used = btrfs_device_bytes_used(di);
}

static int load_chunk_item(struct btrfs_fs_info *fs_info, struct extent_buffer *leaf,
			   int slot, const struct btrfs_key *key)
{
	const struct btrfs_chunk *chunk = btrfs_item_ptr(leaf, slot, struct btrfs_chunk);
	struct map_lookup *ml, *old;
	int ret;

	old = chunk_map_lookup(&fs_info->chunk_map, key->offset);
	if (old && old->logical == key->offset &&
	    old->length == btrfs_chunk_length(chunk))
		return 0;	/* system chunk already mapped from the superblock */
	ret = btrfs_chunk_to_map(fs_info, key->offset, chunk,
				 btrfs_item_size(leaf, slot), &ml);
	if (ret)
		return ret;
	ret = chunk_map_insert(&fs_info->chunk_map, ml);
	if (ret) {
		btrfs_err(&fs_info->reporter, "chunk at logical %llu overlaps another chunk",
			  (unsigned long long)key->offset);
		free(ml);
	}
	return ret;
}

static void relink_stripe_devices(struct btrfs_fs_info *fs_info)
{
	size_t i;
	int s;

	for (i = 0; i < fs_info->chunk_map.nr; i++) {
		struct map_lookup *ml = fs_info->chunk_map.maps[i];

		for (s = 0; s < ml->num_stripes; s++)
			ml->stripes[s].dev = btrfs_find_device(fs_info,
							       ml->stripes[s].devid);
	}
}

/*
 * A seed device is ours when a device item names it: same devid, fsid and
 * uuid (item_device()).  Any other (a seed of another filesystem a scan
 * turned up) is closed and forgotten, before stripes link to devices.
 */
static void drop_foreign_seeds(struct btrfs_fs_info *fs_info)
{
	int i = 0;

	while (i < fs_info->num_devices) {
		struct btrfs_device *dev = &fs_info->devices[i];

		if (!dev->seed || dev->has_item) {
			i++;
			continue;
		}
		if (dev->fd >= 0)
			close(dev->fd);
		free(dev->path);
		memmove(dev, dev + 1, (fs_info->num_devices - i - 1) * sizeof(*dev));
		fs_info->num_devices--;
	}
}

static int read_chunk_tree(struct btrfs_fs_info *fs_info, u64 bytenr)
{
	struct btrfs_root *root = &fs_info->chunk_root;
	struct tree_block_check check = { .level = -1 };
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 };
	int ret, bad = 0;

	root->fs_info = fs_info;
	root->root_key.objectid = BTRFS_CHUNK_TREE_OBJECTID;
	if (!bytenr) {
		bytenr = btrfs_super_chunk_root(&fs_info->super_copy);
		check.level = btrfs_super_chunk_root_level(&fs_info->super_copy);
		check.transid = btrfs_super_chunk_root_generation(&fs_info->super_copy);
	}
	root->node = read_tree_block(fs_info, bytenr, &check, &ret);
	if (!root->node) {
		btrfs_err(&fs_info->reporter, "cannot read chunk root at %llu",
			  (unsigned long long)bytenr);
		return ret;
	}
	memcpy(fs_info->chunk_tree_uuid, eb_header(root->node)->chunk_tree_uuid,
	       BTRFS_UUID_SIZE);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];

		btrfs_item_key_to_cpu(leaf, &key, slot);
		if (key.type == BTRFS_DEV_ITEM_KEY)
			load_device_item(fs_info,
					 btrfs_item_ptr(leaf, slot, struct btrfs_dev_item));
		else if (key.type == BTRFS_CHUNK_ITEM_KEY &&
			 load_chunk_item(fs_info, leaf, slot, &key))
			bad++;
		ret = btrfs_next_item(root, &path);
	}
out:
	btrfs_release_path(&path);
	drop_foreign_seeds(fs_info);
	relink_stripe_devices(fs_info);
	if (ret < 0)
		return ret;
	return bad ? -EUCLEAN : 0;
}

void btrfs_release_root(struct btrfs_root *root)
{
	free_extent_buffer(root->node);
	root->node = NULL;
}

int btrfs_read_root(struct btrfs_fs_info *fs_info, u64 objectid,
		    struct btrfs_root *root)
{
	struct btrfs_key key = { objectid, BTRFS_ROOT_ITEM_KEY, (u64)-1 };
	struct tree_block_check check = { .level = -1 };
	struct btrfs_path path;
	struct btrfs_key found;
	u32 size;
	int ret;

	memset(root, 0, sizeof(*root));
	root->fs_info = fs_info;
	root->root_key.objectid = objectid;
	root->root_key.type = BTRFS_ROOT_ITEM_KEY;
	if (!fs_info->tree_root.node)
		return -ENOENT;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs_info->tree_root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	ret = btrfs_previous_item(&fs_info->tree_root, &path, objectid,
				  BTRFS_ROOT_ITEM_KEY);
	if (ret) {
		ret = ret > 0 ? -ENOENT : ret;
		goto out;
	}
	btrfs_path_key(&path, &found);
	if (found.objectid != objectid) {
		ret = -ENOENT;
		goto out;
	}
	root->root_key = found;
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	if (size > sizeof(root->root_item))
		size = sizeof(root->root_item);
	memcpy(&root->root_item, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), size);
	root->has_root_item = true;
	btrfs_release_path(&path);

	check.transid = btrfs_root_generation(&root->root_item);
	check.level = btrfs_root_level(&root->root_item);
	root->node = read_tree_block(fs_info, btrfs_root_bytenr(&root->root_item),
				     &check, &ret);
	return root->node ? 0 : ret;
out:
	btrfs_release_path(&path);
	return ret;
}

static int read_tree_root(struct btrfs_fs_info *fs_info,
			  const struct open_ctree_args *args)
{
	struct btrfs_super_block *sb = &fs_info->super_copy;
	struct tree_block_check check = { .level = -1 };
	u64 bytenr = btrfs_super_root(sb);
	int ret;

	if (args->backup_root >= 0 && args->backup_root < BTRFS_NUM_BACKUP_ROOTS) {
		struct btrfs_root_backup *b = &sb->super_roots[args->backup_root];

		bytenr = btrfs_backup_tree_root(b);
		check.transid = btrfs_backup_tree_root_gen(b);
		check.level = btrfs_backup_tree_root_level(b);
	} else if (args->tree_root_bytenr) {
		bytenr = args->tree_root_bytenr;
	} else {
		check.transid = btrfs_super_generation(sb);
		check.level = btrfs_super_root_level(sb);
	}
	fs_info->tree_root.fs_info = fs_info;
	fs_info->tree_root.root_key.objectid = BTRFS_ROOT_TREE_OBJECTID;
	fs_info->tree_root.node = read_tree_block(fs_info, bytenr, &check, &ret);
	if (!fs_info->tree_root.node)
		btrfs_err(&fs_info->reporter, "cannot read tree root at %llu",
			  (unsigned long long)bytenr);
	return fs_info->tree_root.node ? 0 : ret;
}

static int read_global_roots(struct btrfs_fs_info *fs_info, bool partial,
			     unsigned int skip)
{
	struct {
		u64 objectid;
		struct btrfs_root *root;
		bool required;
		unsigned int bit;	/* OPEN_ROOT_*, 0: always read */
	} roots[] = {
		{ BTRFS_EXTENT_TREE_OBJECTID, &fs_info->extent_root, true, 0 },
		{ BTRFS_DEV_TREE_OBJECTID, &fs_info->dev_root, true, OPEN_ROOT_DEV },
		{ BTRFS_FS_TREE_OBJECTID, &fs_info->fs_root, true, OPEN_ROOT_FS },
		{ BTRFS_CSUM_TREE_OBJECTID, &fs_info->csum_root, true, OPEN_ROOT_CSUM },
		{ BTRFS_QUOTA_TREE_OBJECTID, &fs_info->quota_root, false, OPEN_ROOT_QUOTA },
		{ BTRFS_UUID_TREE_OBJECTID, &fs_info->uuid_root, false, OPEN_ROOT_UUID },
		{ BTRFS_FREE_SPACE_TREE_OBJECTID, &fs_info->free_space_root,
		  btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE), 0 },
		{ BTRFS_BLOCK_GROUP_TREE_OBJECTID, &fs_info->block_group_root,
		  btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE), 0 },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		if (roots[i].bit & skip) {
			/* an empty root, as btrfs_read_root() leaves one it cannot find */
			memset(roots[i].root, 0, sizeof(*roots[i].root));
			roots[i].root->fs_info = fs_info;
			roots[i].root->root_key.objectid = roots[i].objectid;
			roots[i].root->root_key.type = BTRFS_ROOT_ITEM_KEY;
			continue;
		}
		ret = btrfs_read_root(fs_info, roots[i].objectid, roots[i].root);
		if (ret == -ENOENT && !roots[i].required)
			continue;
		if (ret) {
			btrfs_err(&fs_info->reporter, "cannot read tree %llu: %s",
				  (unsigned long long)roots[i].objectid,
				  ret == -ENOENT ? "no root item" : strerror(-ret));
			if (!partial)
				return ret;
		}
	}
	return 0;
}

static void close_devices(struct btrfs_fs_info *fs_info)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		if (fs_info->devices[i].fd >= 0)
			close(fs_info->devices[i].fd);
		free(fs_info->devices[i].path);
	}
	fs_info->num_devices = 0;
}

void close_ctree(struct btrfs_fs_info *fs_info)
{
	struct btrfs_root *roots[] = {
		&fs_info->tree_root, &fs_info->chunk_root, &fs_info->extent_root,
		&fs_info->dev_root, &fs_info->csum_root, &fs_info->fs_root,
		&fs_info->uuid_root, &fs_info->quota_root,
		&fs_info->free_space_root, &fs_info->block_group_root,
	};
	size_t i;

	if (!fs_info)
		return;
	if (fs_info->write_teardown)
		fs_info->write_teardown(fs_info);
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		btrfs_release_root(roots[i]);
	extent_buffer_cache_destroy(&fs_info->eb_cache);
	chunk_map_free(&fs_info->chunk_map);
	close_devices(fs_info);
	free(fs_info);
}

struct btrfs_fs_info *open_ctree(const struct open_ctree_args *args, int *err)
{
	bool partial = args->flags & OPEN_CTREE_PARTIAL;
	struct btrfs_fs_info *fs_info;
	int ret;

	fs_info = calloc(1, sizeof(*fs_info));
	if (!fs_info) {
		*err = -ENOMEM;
		return NULL;
	}
	fs_info->reporter = args->reporter;
	fs_info->block_fixer = args->block_fixer;
	fs_info->overlay = args->overlay;
	fs_info->readonly = !(args->flags & OPEN_CTREE_WRITES);
	chunk_map_init(&fs_info->chunk_map);
	ret = extent_buffer_cache_init(&fs_info->eb_cache, args->cache_budget);
	if (ret)
		goto fail;
	if (args->nr_paths < 1) {
		ret = -EINVAL;
		goto fail;
	}
	ret = open_devices(fs_info, args);
	if (ret || (args->flags & OPEN_CTREE_SUPER_ONLY))
		goto done;
	ret = read_sys_array(fs_info);
	if (ret)
		goto fail;
	ret = read_chunk_tree(fs_info, args->chunk_root_bytenr);
	if (ret && !(partial && fs_info->chunk_root.node))
		goto fail;
	if (args->flags & OPEN_CTREE_CHUNK_ONLY)
		goto done;
	ret = read_tree_root(fs_info, args);
	if (ret)
		goto fail;
	/* writers need every root */
	ret = read_global_roots(fs_info, partial,
				args->flags & OPEN_CTREE_WRITES ? 0 : args->skip_roots);
done:
	if (ret)
		goto fail;
	return fs_info;
fail:
	close_ctree(fs_info);
	*err = ret;
	return NULL;
}
