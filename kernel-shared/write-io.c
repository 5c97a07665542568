// SPDX-License-Identifier: GPL-2.0
/*
 * Device writes: the single path every byte the engine writes takes, so
 * that writes and flushes can be counted and, in fault-injection builds,
 * failed on demand.  Also the logical-to-physical fan-out of a write to
 * every copy of a chunk, tree block finalization and superblock writing.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include "write-io.h"
#include "transaction.h"
#include "extent_io.h"
#include "accessors.h"
#include "csum.h"
#include "dev-overlay.h"

#ifdef GHEE_FAULT_INJECTION
static u64 env_u64(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 10) : 0;
}
#endif

void btrfs_fault_injection_init(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = fs_info->write;

	ws->nr_writes = 0;
	ws->nr_flushes = 0;
	ws->nr_tree_allocs = 0;
#ifdef GHEE_FAULT_INJECTION
	ws->fail_write_at = env_u64("GHEE_FAIL_WRITE_AT");
	ws->fail_flush_at = env_u64("GHEE_FAIL_FLUSH_AT");
	ws->fail_alloc_at = env_u64("GHEE_FAIL_ALLOC_AT");
#else
	ws->fail_write_at = 0;
	ws->fail_flush_at = 0;
	ws->fail_alloc_at = 0;
#endif
}

int btrfs_count_tree_alloc(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = fs_info->write;

	if (!ws)
		return 0;
	ws->nr_tree_allocs++;
	if (ws->fail_alloc_at && ws->nr_tree_allocs == ws->fail_alloc_at) {
		btrfs_err(&fs_info->reporter, "fault injection: failing tree block allocation %llu",
			  (unsigned long long)ws->nr_tree_allocs);
		return -ENOSPC;
	}
	return 0;
}

/* one more device write: counted, failed when asked, shown to the hook */
static int count_write(struct btrfs_fs_info *fs_info, struct btrfs_device *dev, u64 len,
		       u64 physical)
{
	struct btrfs_write_state *ws = fs_info->write;

	if (!ws)
		return 0;
	ws->nr_writes++;
	if (ws->fail_write_at && ws->nr_writes == ws->fail_write_at) {
		btrfs_err(&fs_info->reporter,
			  "fault injection: failing write %llu (devid %llu physical %llu)",
			  (unsigned long long)ws->nr_writes, (unsigned long long)dev->devid,
			  (unsigned long long)physical);
		return -EIO;
	}
	if (ws->before_write)
		return ws->before_write(ws->before_write_data, dev, physical, len);
	return 0;
}

int btrfs_write_physical(struct btrfs_fs_info *fs_info, struct btrfs_device *dev,
			 const void *buf, u64 len, u64 physical)
{
	const u8 *p = buf;
	int err;

	if (!dev || dev->fd < 0)
		return -ENODEV;
	/* a dry run: nothing reaches the device, later reads see the write */
	if (btrfs_overlay_captures_all(fs_info->overlay))
		return btrfs_overlay_write(fs_info->overlay, dev->overlay_dev,
					   dev->fd, buf, len, physical);
	err = count_write(fs_info, dev, len, physical);
	if (err)
		return err;
	while (len) {
		ssize_t ret = pwrite(dev->fd, p, len, physical);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			btrfs_err(&fs_info->reporter, "write of %llu bytes at devid %llu physical %llu failed: %s",
				  (unsigned long long)len, (unsigned long long)dev->devid,
				  (unsigned long long)physical, strerror(errno));
			return ret;
		}
		if (ret == 0)
			return -EIO;
		p += ret;
		len -= ret;
		physical += ret;
	}
	return 0;
}

int btrfs_clone_physical(struct btrfs_fs_info *fs_info, struct btrfs_device *dev, int src_fd,
			 u64 src_offset, u64 len, u64 physical)
{
	struct file_clone_range fcr = {
		.src_fd = src_fd, .src_offset = src_offset, .src_length = len,
		.dest_offset = physical,
	};
	int err;

	if (!dev || dev->fd < 0)
		return -ENODEV;
	err = count_write(fs_info, dev, len, physical);
	if (err)
		return err;
	if (ioctl(dev->fd, FICLONERANGE, &fcr) < 0)
		return errno == EIO ? -EIO : -EOPNOTSUPP;
	return 0;
}

int btrfs_flush_device(struct btrfs_fs_info *fs_info, struct btrfs_device *dev)
{
	struct btrfs_write_state *ws = fs_info->write;

	if (!dev || dev->fd < 0 || !dev->writable ||
	    btrfs_overlay_captures_all(fs_info->overlay))
		return 0;
	if (ws) {
		ws->nr_flushes++;
		if (ws->fail_flush_at && ws->nr_flushes == ws->fail_flush_at) {
			btrfs_err(&fs_info->reporter, "fault injection: failing flush %llu (devid %llu)",
				  (unsigned long long)ws->nr_flushes,
				  (unsigned long long)dev->devid);
			return -EIO;
		}
	}
	if (fsync(dev->fd) < 0) {
		int ret = -errno;

		btrfs_err(&fs_info->reporter, "flush of devid %llu failed: %s",
			  (unsigned long long)dev->devid, strerror(errno));
		return ret;
	}
	return 0;
}

int btrfs_flush_all_devices(struct btrfs_fs_info *fs_info)
{
	int i, ret;

	for (i = 0; i < fs_info->num_devices; i++) {
		ret = btrfs_flush_device(fs_info, &fs_info->devices[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void btrfs_start_writeback(struct btrfs_fs_info *fs_info)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++) {
		struct btrfs_device *dev = &fs_info->devices[i];

		/* a hint only: not counted as a flush, its failure ignored */
		if (dev->fd >= 0 && dev->writable)
			(void)sync_file_range(dev->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	}
}

/* every copy of [logical, logical+len) inside one stripe unit, written */
static int write_all_copies(struct btrfs_fs_info *fs_info, const u8 *buf,
			    u64 logical, u64 *len)
{
	int copies = btrfs_num_copies(fs_info, logical, *len);
	u64 seg = *len;
	int m, ret;

	if (copies <= 0)
		return -ENOENT;
	for (m = 1; m <= copies; m++) {
		struct btrfs_device *dev;
		u64 physical, this_len = seg;

		ret = btrfs_map_block(fs_info, logical, &this_len, m, &dev, &physical);
		if (ret)
			return ret;
		if (this_len < seg)
			seg = this_len;
		ret = btrfs_write_physical(fs_info, dev, buf, seg, physical);
		if (ret)
			return ret;
	}
	*len = seg;
	return 0;
}

int btrfs_write_logical(struct btrfs_fs_info *fs_info, u64 logical,
			const void *buf, u64 len)
{
	const u8 *p = buf;

	while (len) {
		struct map_lookup *ml = chunk_map_lookup(&fs_info->chunk_map, logical);
		u64 seg = len;
		int ret;

		if (!ml)
			return -ENOENT;
		if (ml->type & (BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6))
			return -EOPNOTSUPP;
		/*
		 * Copies of one chunk share their stripe geometry, so the
		 * shortest contiguous run over all copies is written at once;
		 * a segment that ended early within one copy is retried.
		 */
		ret = write_all_copies(fs_info, p, logical, &seg);
		if (ret)
			return ret;
		p += seg;
		logical += seg;
		len -= seg;
	}
	return 0;
}

void btrfs_finalize_tree_block(struct btrfs_fs_info *fs_info, struct extent_buffer *eb)
{
	struct btrfs_header *h = eb_header(eb);
	u8 digest[BTRFS_CSUM_SIZE];

	btrfs_set_header_flags(h, btrfs_header_flags(h) | BTRFS_HEADER_FLAG_WRITTEN);
	btrfs_csum_data(fs_info->csum_type, eb->data + BTRFS_CSUM_SIZE,
			eb->len - BTRFS_CSUM_SIZE, digest);
	memcpy(h->csum, digest, BTRFS_CSUM_SIZE);
}

int btrfs_write_tree_block(struct btrfs_fs_info *fs_info, struct extent_buffer *eb)
{
	btrfs_finalize_tree_block(fs_info, eb);
	return btrfs_write_logical(fs_info, eb->start, eb->data, eb->len);
}

/* the superblock for one device at one copy */
static void prepare_dev_super(struct btrfs_fs_info *fs_info,
			      struct btrfs_super_block *sb,
			      struct btrfs_device *dev, int mirror)
{
	struct btrfs_write_state *ws = fs_info->write;
	u8 digest[BTRFS_CSUM_SIZE];
	int idx = (int)(dev - fs_info->devices);

	*sb = fs_info->super_copy;
	if (ws && idx >= 0 && idx < GHEE_MAX_DEVICES && ws->dev_item_valid[idx])
		sb->dev_item = ws->dev_items[idx];
	btrfs_set_super_bytenr(sb, btrfs_sb_offset(mirror));
	btrfs_set_super_magic(sb, ws && ws->creating ? BTRFS_MAGIC_TEMPORARY :
						       BTRFS_MAGIC);
	btrfs_csum_data(btrfs_super_csum_type(sb), (u8 *)sb + BTRFS_CSUM_SIZE,
			BTRFS_SUPER_INFO_SIZE - BTRFS_CSUM_SIZE, digest);
	memcpy(sb->csum, digest, BTRFS_CSUM_SIZE);
}

/* the copies of one device from @first to @last that fit on it */
static int write_dev_supers(struct btrfs_fs_info *fs_info,
			    struct btrfs_device *dev, int first, int last)
{
	struct btrfs_super_block *sb;
	int mirror, ret = 0;
	u64 size;

	if (dev->fd < 0 || !dev->writable)
		return 0;
	size = dev->total_bytes ? dev->total_bytes : dev->size;
	if (dev->size && dev->size < size)
		size = dev->size;
	sb = aligned_alloc(4096, sizeof(*sb));
	if (!sb)
		return -ENOMEM;
	for (mirror = first; mirror <= last; mirror++) {
		u64 off = btrfs_sb_offset(mirror);

		if (off + BTRFS_SUPER_INFO_SIZE > size)
			break;
		prepare_dev_super(fs_info, sb, dev, mirror);
		if (fs_info->write && fs_info->write->defer_supers && fs_info->overlay)
			ret = btrfs_overlay_write(fs_info->overlay, dev->overlay_dev,
						  dev->fd, sb, BTRFS_SUPER_INFO_SIZE, off);
		else
			ret = btrfs_write_physical(fs_info, dev, sb,
						   BTRFS_SUPER_INFO_SIZE, off);
		if (ret)
			break;
	}
	free(sb);
	return ret;
}

bool btrfs_commit_needs_flush(const struct btrfs_fs_info *fs_info)
{
	const struct btrfs_write_state *ws = fs_info->write;

	/*
	 * While a filesystem is being created its superblocks carry the
	 * temporary magic: no commit before the final one makes anything
	 * valid, so none has to wait for the devices; the final commit's
	 * first flush makes every earlier write durable before the real
	 * magic goes out.
	 */
	return !(ws && ws->creating);
}

int btrfs_write_all_supers(struct btrfs_fs_info *fs_info)
{
	bool flush = btrfs_commit_needs_flush(fs_info);
	int i, ret;

	/* held in memory: nothing to wait for */
	if (fs_info->write && fs_info->write->defer_supers && fs_info->overlay)
		flush = false;

	/* mirrors first: the primary is the commit point */
	for (i = 0; i < fs_info->num_devices; i++) {
		ret = write_dev_supers(fs_info, &fs_info->devices[i], 1,
				       BTRFS_SUPER_MIRROR_MAX - 1);
		if (ret)
			return ret;
	}
	ret = flush ? btrfs_flush_all_devices(fs_info) : 0;
	if (ret)
		return ret;
	for (i = 0; i < fs_info->num_devices; i++) {
		ret = write_dev_supers(fs_info, &fs_info->devices[i], 0, 0);
		if (ret)
			return ret;
	}
	return flush ? btrfs_flush_all_devices(fs_info) : 0;
}

/* the held copies @first..@last of one device, written and forgotten */
static int publish_dev_supers(struct btrfs_fs_info *fs_info,
			      struct btrfs_device *dev, int first, int last)
{
	u8 *page;
	int mirror, ret = 0;

	if (dev->fd < 0 || !dev->writable)
		return 0;
	page = aligned_alloc(4096, BTRFS_OVERLAY_PAGE);
	if (!page)
		return -ENOMEM;
	for (mirror = first; mirror <= last && !ret; mirror++) {
		u64 off = btrfs_sb_offset(mirror);

		if (!btrfs_overlay_get_page(fs_info->overlay, dev->overlay_dev,
					    off, page))
			continue;
		ret = btrfs_write_physical(fs_info, dev, page,
					   BTRFS_SUPER_INFO_SIZE, off);
		if (!ret)
			btrfs_overlay_drop_page(fs_info->overlay,
						dev->overlay_dev, off);
	}
	free(page);
	return ret;
}

int btrfs_publish_supers(struct btrfs_fs_info *fs_info)
{
	struct btrfs_write_state *ws = fs_info->write;
	int i, ret;

	if (!ws || !ws->defer_supers || !fs_info->overlay ||
	    btrfs_overlay_captures_all(fs_info->overlay))
		return 0;
	if (ws->error)
		return -EROFS;
	ws->defer_supers = false;
	if (!btrfs_overlay_nr_pages(fs_info->overlay))
		return 0;
	/* the blocks were flushed by their commits; mirrors before primaries */
	for (i = 0; i < fs_info->num_devices; i++) {
		ret = publish_dev_supers(fs_info, &fs_info->devices[i], 1,
					 BTRFS_SUPER_MIRROR_MAX - 1);
		if (ret)
			return ret;
	}
	ret = btrfs_flush_all_devices(fs_info);
	for (i = 0; !ret && i < fs_info->num_devices; i++)
		ret = publish_dev_supers(fs_info, &fs_info->devices[i], 0, 0);
	if (!ret)
		ret = btrfs_flush_all_devices(fs_info);
	return ret;
}

int btrfs_wipe_supers(struct btrfs_fs_info *fs_info, struct btrfs_device *dev)
{
	u8 *zero = calloc(1, BTRFS_SUPER_INFO_SIZE);
	int mirror, ret = 0;

	if (!zero)
		return -ENOMEM;
	for (mirror = 0; mirror < BTRFS_SUPER_MIRROR_MAX; mirror++) {
		u64 off = btrfs_sb_offset(mirror);

		if (dev->size && off + BTRFS_SUPER_INFO_SIZE > dev->size)
			break;
		ret = btrfs_write_physical(fs_info, dev, zero, BTRFS_SUPER_INFO_SIZE, off);
		if (ret)
			break;
	}
	free(zero);
	return ret;
}
