// SPDX-License-Identifier: GPL-2.0
/*
 * File data for --rootdir.  A file is read as the host stores it:
 * SEEK_DATA/SEEK_HOLE give its data segments, holes are never read or
 * written (no-holes: nothing stored; otherwise explicit hole extents, up
 * to i_size), a small file whose whole content is data goes inline where
 * the kernel would put it inline, everything else becomes regular extents
 * of up to 128 MiB, read in large buffered reads and written straight to
 * the extent's place on every copy, with the checksums of every sector
 * appended to one growing csum item.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rootdir.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/block-group.h"
#include "kernel-shared/extent-tree.h"
#include "kernel-shared/file-item.h"
#include "kernel-shared/write-io.h"
#include "cmds/commands.h"

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

int rootdir_compress_extent(const struct rootdir_data_ctx *dc, const u8 *in,
			    u64 len, u8 **out, u64 *out_len)
{
	(void)dc;
	(void)in;
	(void)len;
	*out = NULL;
	*out_len = 0;
	return BTRFS_COMPRESS_NONE;
}

/* the largest free range of the writable data block groups */
static u64 largest_free_data(struct btrfs_fs_info *fs)
{
	size_t i, nr = btrfs_nr_block_groups(fs);
	u64 best = 0;

	for (i = 0; i < nr; i++) {
		struct btrfs_block_group *bg = btrfs_block_group_nr(fs, i);
		u64 pos = 0, start, len;

		if (!(bg->flags & BTRFS_BLOCK_GROUP_DATA) || bg->readonly ||
		    btrfs_block_group_free_bytes(bg) <= best)
			continue;
		while (!btrfs_block_group_next_free(bg, &pos, &start, &len)) {
			if (len > best)
				best = len;
		}
	}
	return best;
}

/* pread until @len bytes or end of file; returns bytes read or -errno */
static ssize_t read_full(int fd, u8 *buf, size_t len, u64 off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int changed_size(const char *path)
{
	cmd_error("%s changed size while it was copied", path);
	return -ESTALE;
}

static int read_error(const char *path, ssize_t ret)
{
	cmd_error("cannot read %s: %s", path, strerror((int)-ret));
	return (int)ret;
}

/* reserve up to @left bytes of data space; *@len gets what was taken */
static int reserve_data(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			u64 ino, u64 file_offset, u64 left, u32 sectorsize,
			u64 *bytenr, u64 *len)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	u64 objectid = root->root_key.objectid;
	u64 want = rootdir_extent_len(left, largest_free_data(fs), sectorsize);
	int ret;

	ret = btrfs_alloc_data_extent(trans, want, objectid, ino, file_offset, bytenr);
	if (ret == -ENOSPC) {
		/* a new chunk came but is smaller than asked for: take what it has */
		u64 again = rootdir_extent_len(left, largest_free_data(fs), sectorsize);

		if (again < want) {
			want = again;
			ret = btrfs_alloc_data_extent(trans, want, objectid, ino,
						      file_offset, bytenr);
		}
	}
	*len = want;
	return ret;
}

/*
 * One regular extent at @start of at most @left bytes (sector multiple),
 * the file data past @size being zeros; *@len gets its length.
 */
static int write_extent(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
			struct btrfs_root *root, u64 ino, int fd, const char *path,
			u64 start, u64 left, u64 size, u64 *len)
{
	struct btrfs_file_extent_params fp = { 0 };
	u64 bytenr, done, ext_len;
	int ret;

	ret = reserve_data(trans, root, ino, start, left, dc->sectorsize, &bytenr, &ext_len);
	if (ret)
		return ret;
	for (done = 0; done < ext_len; ) {
		u64 pos = start + done;
		size_t n = ext_len - done < ROOTDIR_READ_BUF ? (size_t)(ext_len - done) :
			   ROOTDIR_READ_BUF;
		size_t want = pos >= size ? 0 : (size - pos < n ? (size_t)(size - pos) : n);
		ssize_t got = read_full(fd, dc->buf, want, pos);

		if (got < 0)
			return read_error(path, got);
		if ((size_t)got != want)
			return changed_size(path);
		memset(dc->buf + got, 0, n - (size_t)got);
		ret = btrfs_write_logical(dc->fs, bytenr + done, dc->buf, n);
		if (!ret && !dc->nodatasum)
			ret = btrfs_csum_file_blocks(trans, bytenr + done, dc->buf, n);
		if (ret)
			return ret;
		dc->stats->bytes += (u64)got;
		done += n;
	}
	fp.disk_bytenr = bytenr;
	fp.disk_num_bytes = ext_len;
	fp.num_bytes = ext_len;
	fp.ram_bytes = ext_len;
	fp.type = BTRFS_FILE_EXTENT_REG;
	ret = btrfs_insert_file_extent(trans, root, ino, start, &fp);
	if (ret)
		return ret;
	dc->stats->extents++;
	dc->stats->data_extent_bytes += ext_len;
	*len = ext_len;
	return 0;
}

static int insert_hole(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		       struct btrfs_root *root, u64 ino, u64 start, u64 end)
{
	struct btrfs_file_extent_params fp = { 0 };

	if (dc->no_holes || end <= start)
		return 0;
	fp.num_bytes = end - start;
	fp.ram_bytes = end - start;
	fp.type = BTRFS_FILE_EXTENT_REG;
	dc->stats->hole_extents++;
	return btrfs_insert_file_extent(trans, root, ino, start, &fp);
}

/*
 * The next data segment at or after @off: [*@data, *@hole).  1 when there
 * is none.  A filesystem without SEEK_DATA has all data.
 */
static int next_segment(int fd, const char *path, u64 off, u64 size,
			u64 *data, u64 *hole)
{
	off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;

	if (d < 0) {
		if (errno == ENXIO)
			return 1;
		if (errno != EINVAL) {
			cmd_error("cannot find the data of %s: %m", path);
			return -errno;
		}
		*data = off;
		*hole = size;
		return 0;
	}
	h = lseek(fd, d, SEEK_HOLE);
	if (h < 0) {
		cmd_error("cannot find the holes of %s: %m", path);
		return -errno;
	}
	*data = (u64)d;
	*hole = (u64)h < size ? (u64)h : size;
	return (u64)d >= size ? 1 : 0;
}

static int copy_inline(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		       struct btrfs_root *root, u64 ino, int fd, const char *path,
		       u64 size)
{
	/* one byte more than expected tells a file that grew */
	ssize_t got = read_full(fd, dc->buf, (size_t)size + 1, 0);
	int ret;

	if (got < 0)
		return read_error(path, got);
	if ((u64)got != size)
		return changed_size(path);
	ret = btrfs_insert_inline_extent(trans, root, ino, dc->buf, (u32)size, size,
					 BTRFS_COMPRESS_NONE);
	if (!ret) {
		dc->stats->inline_extents++;
		dc->stats->bytes += size;
	}
	return ret;
}

int rootdir_copy_file(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, int fd, const char *path,
		      u64 size, u64 *nbytes)
{
	u64 ss = dc->sectorsize, end = round_up_to(size, ss), off = 0, data, hole;
	int ret;

	*nbytes = 0;
	if (!size)
		return 0;
	ret = next_segment(fd, path, 0, size, &data, &hole);
	if (ret < 0)
		return ret;
	if (!ret && rootdir_inline_ok(size, dc->sectorsize, dc->max_inline)) {
		*nbytes = size;
		return copy_inline(dc, trans, root, ino, fd, path, size);
	}
	while (!ret) {
		u64 seg = data / ss * ss, seg_end = round_up_to(hole, ss), len = 0;

		if (seg < off)
			seg = off;
		ret = insert_hole(dc, trans, root, ino, off, seg);
		for (off = seg; !ret && off < seg_end; off += len) {
			ret = write_extent(dc, trans, root, ino, fd, path, off,
					   seg_end - off, size, &len);
			if (!ret)
				*nbytes += len;
		}
		if (ret)
			return ret;
		if (off >= end)
			break;
		ret = next_segment(fd, path, off, size, &data, &hole);
		if (ret < 0)
			return ret;
	}
	return insert_hole(dc, trans, root, ino, off, end);
}
