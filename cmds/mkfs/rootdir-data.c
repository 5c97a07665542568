// SPDX-License-Identifier: GPL-2.0
/*
 * File data for --rootdir.  A file is read as the host stores it:
 * SEEK_DATA/SEEK_HOLE give its data segments, holes are never read or
 * written (no-holes: nothing stored; otherwise explicit hole extents, up
 * to i_size), a small file whose whole content is data goes inline where
 * the kernel would put it inline, everything else becomes regular extents
 * of up to 128 MiB, read in large buffered reads and written straight to
 * the extent's place on every copy, with the checksums of every sector
 * appended to one growing csum item.  With --reflink the whole sectors
 * are cloned from the file instead of written.  With --compress, files
 * go through the pipeline below (128 KiB pieces, compressed by the
 * workers of rootdir-compress.c, stored in order).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include "rootdir.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/block-group.h"
#include "kernel-shared/extent-tree.h"
#include "kernel-shared/file-item.h"
#include "kernel-shared/write-io.h"
#include "kernel-shared/volumes.h"
#include "kernel-shared/compression.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/accessors.h"
#include "cmds/commands.h"

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
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

ssize_t rootdir_read_full(int fd, u8 *buf, size_t len, u64 off, size_t enough, size_t done)
{
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
		if (done < len && done >= enough)
			break;
	}
	return (ssize_t)done;
}

/*
 * Read @want bytes of file data at @pos (the source's data starts at
 * dc->base of @fd); when they end at the file's @size, one byte more is
 * asked for (@buf has room for it) and end of file seen there is noted
 * in dc->eof_seen.  Not for a sealed source: its size is trusted, and
 * the byte after it is another file's (a region of a spool file).
 */
static ssize_t read_data(struct rootdir_data_ctx *dc, int fd, u8 *buf, size_t want,
			 u64 pos, u64 size)
{
	bool to_end = want && pos + want == size && !dc->sealed;
	size_t done = 0;
	ssize_t got;

	if (!dc->pf || !rootdir_pf_read(dc->pf, buf, want + to_end, dc->base + pos, want,
					&done, &got))
		got = rootdir_read_full(fd, buf, want + to_end, dc->base + pos, want, done);

	if (to_end && got == (ssize_t)want)
		dc->eof_seen = true;
	return got;
}

struct rootdir_flusher {
	struct btrfs_fs_info *fs;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool wanted, stop;
};

static void *flusher_main(void *arg)
{
	struct rootdir_flusher *f = arg;

	pthread_mutex_lock(&f->lock);
	while (!f->stop) {
		if (!f->wanted) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		f->wanted = false;
		pthread_mutex_unlock(&f->lock);
		btrfs_start_writeback(f->fs);
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

int rootdir_data_flusher(struct rootdir_data_ctx *dc)
{
	struct rootdir_flusher *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->fs = dc->fs;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if (pthread_create(&f->thread, NULL, flusher_main, f)) {
		pthread_cond_destroy(&f->cond);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return -EAGAIN;
	}
	dc->flusher = f;
	return 0;
}

static void stop_flusher(struct rootdir_data_ctx *dc)
{
	struct rootdir_flusher *f = dc->flusher;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
	dc->flusher = NULL;
}

/* @len bytes at @logical to the devices; now and then start their writeback */
static int write_out(struct rootdir_data_ctx *dc, u64 logical, const u8 *buf, u64 len)
{
	struct rootdir_flusher *f = dc->flusher;
	int ret = btrfs_write_logical(dc->fs, logical, buf, len);

	dc->unflushed += len;
	if (ret || dc->unflushed < ROOTDIR_WRITEBACK)
		return ret;
	dc->unflushed = 0;
	if (!f) {
		btrfs_start_writeback(dc->fs);
		return 0;
	}
	pthread_mutex_lock(&f->lock);
	f->wanted = true;
	pthread_cond_signal(&f->cond);
	pthread_mutex_unlock(&f->lock);
	return 0;
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

static void reflink_off(struct rootdir_data_ctx *dc, const char *path, int err)
{
	dc->reflink = false;
	if (!dc->reflink_noted)
		cmd_warning("--reflink: cannot clone %s into the image (%s), copying the data instead",
			    path, strerror(err));
	dc->reflink_noted = true;
}

/*
 * --reflink: clone [@pos, @pos + @len) of @fd to every copy of @logical
 * in the image.  0 when cloned, 1 when the caller must write it (cloning
 * does not work here; a note says so once), -errno on a mapping error or
 * a failed device write (fault injection counts a clone as a write).
 */
static int clone_range(struct rootdir_data_ctx *dc, int fd, const char *path, u64 pos,
		       u64 logical, u64 len)
{
	int mirror, copies = btrfs_num_copies(dc->fs, logical, len);

	for (mirror = 1; mirror <= copies; mirror++) {
		u64 done = 0;

		while (done < len) {
			struct btrfs_device *dev;
			u64 seg = len - done, physical;
			int ret = btrfs_map_block(dc->fs, logical + done, &seg, mirror, &dev,
						  &physical);

			if (!ret)
				ret = btrfs_clone_physical(dc->fs, dev, fd, dc->base + pos + done,
							   seg, physical);
			if (ret == -EOPNOTSUPP) {
				/* what cloned already is the same data: it gets overwritten */
				reflink_off(dc, path, errno);
				return 1;
			}
			if (ret) {
				cmd_error("--reflink: cloning the data of %s into the image failed: %s",
					  path, strerror(-ret));
				return ret;
			}
			done += seg;
		}
	}
	dc->stats->reflinked_bytes += len;
	return 0;
}

/*
 * @n bytes of dc->buf (@got of them file data at @pos) to @logical: with
 * --reflink the whole sectors of file data are cloned, the partial last
 * sector (zero-padded) is written.
 */
static int write_or_clone(struct rootdir_data_ctx *dc, int fd, const char *path, u64 pos,
			  u64 logical, size_t n, size_t got)
{
	size_t cloned = dc->reflink ? got / dc->sectorsize * dc->sectorsize : 0;
	int ret = 0;

	if (cloned) {
		ret = clone_range(dc, fd, path, pos, logical, cloned);
		if (ret < 0)
			return ret;
		if (ret == 1)
			cloned = 0;
	}
	if (cloned == n)
		return 0;
	return write_out(dc, logical + cloned, dc->buf + cloned, n - cloned);
}

/*
 * The @want bytes of file data at @pos into dc->buf, zeros after them up
 * to @n; a failed or short read is reported
 */
static int read_padded(struct rootdir_data_ctx *dc, int fd, const char *path, u64 pos,
		       size_t want, size_t n, u64 size)
{
	ssize_t got = read_data(dc, fd, dc->buf, want, pos, size);

	if (got < 0)
		return read_error(path, got);
	if ((size_t)got != want)
		return changed_size(path);
	memset(dc->buf + got, 0, n - (size_t)got);
	return 0;
}

/*
 * Whether the read-ahead has the @want bytes at @pos (what read_data()
 * would read, end of file included): *@got what read_data() would return
 */
static bool prefetched(struct rootdir_data_ctx *dc, u64 pos, size_t want, u64 size,
		       ssize_t *got)
{
	bool to_end = want && pos + want == size;
	size_t done;

	if (!rootdir_pf_read(dc->pf, NULL, want + to_end, pos, want, &done, got))
		return false;
	if (to_end && *got == (ssize_t)want)
		dc->eof_seen = true;
	return true;
}

/*
 * The @n bytes (sector multiple) at file offset @pos, the file's up to its
 * @size, zeros after, to @logical, with their checksums, as the
 * read-ahead has them in its ring: no copy, the checksums worked out
 * already (with --compress, here).  1: it has not got all of them.
 */
static int write_prefetched(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
			    const char *path, u64 pos, u64 logical, size_t n, size_t want,
			    u64 size)
{
	struct btrfs_fs_info *fs = dc->fs;
	bool sums;
	size_t off, len;
	const u8 *data;
	ssize_t got;
	int ret;

	if (!dc->sums)
		dc->sums = malloc(ROOTDIR_READ_BUF / dc->sectorsize * BTRFS_CSUM_SIZE);
	if (!dc->sums || !prefetched(dc, pos, want, size, &got))
		return 1;
	if (got < 0)
		return read_error(path, got);
	if ((size_t)got != want)
		return changed_size(path);
	sums = !dc->nodatasum && rootdir_pf_sums(dc->pf, pos, n, dc->sums);
	for (off = 0; off < n; off += len) {
		len = rootdir_pf_span(dc->pf, pos + off, n - off, &data);
		if (!len)
			return -EIO;
		ret = write_out(dc, logical + off, data, len);
		if (ret)
			return ret;
		if (!dc->nodatasum && !sums)
			btrfs_csum_sectors(fs->csum_type, fs->csum_size, fs->sectorsize, data,
					   len / fs->sectorsize,
					   dc->sums + off / fs->sectorsize * fs->csum_size);
	}
	if (!dc->nodatasum)
		ret = btrfs_csum_file_sums(trans, logical, dc->sums, n / fs->sectorsize);
	if (!ret)
		dc->stats->bytes += (u64)got;
	return ret;
}

/* @n bytes at file offset @pos (the file's up to its @size) to @logical */
static int write_data(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans, int fd,
		      const char *path, u64 pos, u64 logical, size_t n, u64 size)
{
	size_t want = pos >= size ? 0 : (size - pos < n ? (size_t)(size - pos) : n);
	int ret = dc->pf ? write_prefetched(dc, trans, path, pos, logical, n, want, size) : 1;

	if (ret != 1)
		return ret;
	ret = read_padded(dc, fd, path, pos, want, n, size);
	if (!ret)
		ret = write_or_clone(dc, fd, path, pos, logical, n, want);
	if (!ret && !dc->nodatasum)
		ret = btrfs_csum_file_blocks(trans, logical, dc->buf, n);
	if (!ret)
		dc->stats->bytes += want;
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
	size_t n;
	int ret;

	ret = reserve_data(trans, root, ino, start, left, dc->sectorsize, &bytenr, &ext_len);
	if (ret)
		return ret;
	for (done = 0; done < ext_len; done += n) {
		u64 pos = start + done;

		n = ext_len - done < ROOTDIR_READ_BUF ? (size_t)(ext_len - done) : ROOTDIR_READ_BUF;
		ret = write_data(dc, trans, fd, path, pos, bytenr + done, n, size);
		if (ret)
			return ret;
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

/* lseek(), or the answer the read-ahead got already */
static off_t seek(const struct rootdir_data_ctx *dc, int fd, u64 off, int whence)
{
	s64 res;

	if (!dc->pf || !rootdir_pf_seek(dc->pf, off, whence, &res))
		return lseek(fd, (off_t)off, whence);
	if (res >= 0)
		return (off_t)res;
	errno = (int)-res;
	return -1;
}

/*
 * The next data segment at or after @off: [*@data, *@hole).  1 when there
 * is none.  A filesystem without SEEK_DATA has all data.  @data_only:
 * the hole is not looked for (*@hole = @size), for a file shorter than
 * a sector, where only whether it has data matters (its one sector is
 * stored whole or not at all).
 */
static int next_segment(const struct rootdir_data_ctx *dc, int fd, const char *path, u64 off,
			u64 size, bool data_only, u64 *data, u64 *hole)
{
	off_t d = seek(dc, fd, dc->base + off, SEEK_DATA), h;

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
	if (data_only) {
		d -= (off_t)dc->base;
		*data = (u64)d;
		*hole = size;
		return (u64)d >= size ? 1 : 0;
	}
	h = seek(dc, fd, (u64)d, SEEK_HOLE);
	if (h < 0) {
		cmd_error("cannot find the holes of %s: %m", path);
		return -errno;
	}
	/* a region of a spool file: what follows @size is not the file's */
	d -= (off_t)dc->base;
	h -= (off_t)dc->base;
	*data = (u64)d;
	*hole = (u64)h < size ? (u64)h : size;
	return (u64)d >= size ? 1 : 0;
}

/* @have_data: dc->buf holds the file already (read to its end) */
static int copy_inline(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		       struct btrfs_root *root, u64 ino, int fd, const char *path,
		       u64 size, bool have_data)
{
	/* one byte more than expected tells a file that grew (unless sealed) */
	ssize_t got = have_data ? (ssize_t)size : read_data(dc, fd, dc->buf, size, 0, size);
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

/* ---- --compress ---- */

/*
 * The compressed writer is a pipeline across files: the pieces of every
 * file (its data read at once, its nbytes known at once: the sum of the
 * pieces' lengths) fill the batches, and a full batch goes to the
 * workers while the one before it is stored, its extents allocated and
 * its items inserted, in order.  So many small files keep the workers
 * busy too.  rootdir_data_flush() stores what is pending; the walk calls
 * it before each commit and at the end.
 */

/* what rootdir_copy_file() read of a file already, into dc->buf */
struct preread {
	bool whole;		/* the whole file (at most a sector) */
	/* else the first piece, compressed (to @clen bytes at buf + half) */
	u64 off;
	u64 len;		/* 0: none */
	size_t clen;
};

/* one file being read into the pipeline */
struct cfile {
	struct rootdir_data_ctx *dc;
	struct btrfs_root *root;
	u64 ino;
	int fd;
	const char *path;
	u64 size;
	u64 nbytes;
	int err;
	struct preread pre;
	/* a piece queued may still fail (and the pieces after it go plain) */
	bool doubt;
};

/* lzo and zstd extents need their incompat bit; set with the first one */
static void need_compress_feature(struct btrfs_fs_info *fs, u8 type)
{
	u64 flag = btrfs_compress_incompat_flag(type);

	if (!flag || btrfs_fs_incompat(fs, flag))
		return;
	btrfs_set_super_incompat_flags(&fs->super_copy,
				       btrfs_super_incompat_flags(&fs->super_copy) | flag);
	fs->incompat |= flag;
}

static bool is_flagged(const struct rootdir_data_ctx *dc, const struct btrfs_root *root,
			u64 ino)
{
	return dc->flag_ino == ino && dc->flag_root == root;
}

/*
 * A compression attempt of the kernel failed for this file: it marks the
 * inode NOCOMPRESS and writes the rest of it plain.  The file being read
 * gets the flag with its inode item; one whose item is in already, there.
 */
static int flag_nocompress(struct rootdir_data_ctx *dc, struct btrfs_root *root, u64 ino)
{
	struct btrfs_inode_item item;
	int ret;

	dc->flag_root = root;
	dc->flag_ino = ino;
	if (dc->cur_ino == ino && dc->cur_root == root) {
		dc->file_flags |= BTRFS_INODE_NOCOMPRESS;
		return 0;
	}
	ret = btrfs_read_inode(root, ino, &item);
	if (ret)
		return ret;
	btrfs_set_inode_flags(&item, btrfs_inode_flags(&item) | BTRFS_INODE_NOCOMPRESS);
	return btrfs_update_inode(dc->trans, root, ino, &item);
}

/* store piece @i of @b: compressed when a worker found that it pays, else plain */
static int emit_piece(struct rootdir_data_ctx *dc, struct rootdir_batch *b, int i)
{
	struct rootdir_piece *p = &b->pieces[i];
	struct btrfs_trans_handle *trans = dc->trans;
	struct btrfs_file_extent_params fp = { 0 };
	u32 ss = dc->sectorsize;
	u8 *buf = rootdir_piece_in(b, i);
	u64 disk = p->ram, bytenr;
	int ret;

	if (p->err)
		return p->err;
	if (!p->ram)
		return insert_hole(dc, trans, p->root, p->ino, p->off, p->end);
	if (p->type != BTRFS_COMPRESS_NONE) {
		buf = rootdir_piece_out(b, i);
		disk = round_up_to(p->clen, ss);
		memset(buf + p->clen, 0, disk - p->clen);
	}
	ret = btrfs_alloc_data_extent(trans, disk, p->root->root_key.objectid, p->ino,
				      p->off, &bytenr);
	if (!ret)
		ret = write_out(dc, bytenr, buf, disk);
	/* checksums cover the bytes on disk, compressed or not */
	if (!ret)
		ret = btrfs_csum_file_blocks(trans, bytenr, buf, disk);
	if (ret)
		return ret;
	fp.disk_bytenr = bytenr;
	fp.disk_num_bytes = disk;
	fp.num_bytes = p->ram;
	fp.ram_bytes = p->ram;
	fp.compression = p->type;
	fp.type = BTRFS_FILE_EXTENT_REG;
	ret = btrfs_insert_file_extent(trans, p->root, p->ino, p->off, &fp);
	if (ret)
		return ret;
	if (p->type != BTRFS_COMPRESS_NONE) {
		need_compress_feature(dc->fs, p->type);
		dc->stats->compressed_extents++;
		dc->stats->compressed_ram_bytes += p->ram;
		dc->stats->compressed_disk_bytes += disk;
	}
	dc->stats->extents++;
	dc->stats->data_extent_bytes += disk;
	dc->stats->bytes += p->data;
	return 0;
}

/*
 * Pieces @i.. of @b that follow one another in a flagged file: stored
 * plain as one extent (*@n of them).  The kernel, flagged, would write
 * them plain too, cut at its 512 KiB chunks; here they are cut only
 * where the batch ends.
 */
static int emit_plain_run(struct rootdir_data_ctx *dc, struct rootdir_batch *b, int i, int *n)
{
	struct rootdir_piece *p = &b->pieces[i];
	struct btrfs_trans_handle *trans = dc->trans;
	struct btrfs_file_extent_params fp = { 0 };
	u64 len = p->ram, bytenr, pos = 0;
	int j, ret;

	for (j = i + 1; j < b->nr; j++) {
		const struct rootdir_piece *q = &b->pieces[j];

		if (q->err || !q->ram || q->root != p->root || q->ino != p->ino ||
		    q->off != p->off + len || len + q->ram > ROOTDIR_MAX_EXTENT)
			break;
		len += q->ram;
	}
	*n = j - i;
	ret = btrfs_alloc_data_extent(trans, len, p->root->root_key.objectid, p->ino, p->off,
				      &bytenr);
	for (j = i; !ret && j < i + *n; j++) {
		const struct rootdir_piece *q = &b->pieces[j];
		const u8 *buf = rootdir_piece_in(b, j);

		ret = write_out(dc, bytenr + pos, buf, q->ram);
		if (!ret)
			ret = btrfs_csum_file_blocks(trans, bytenr + pos, buf, q->ram);
		pos += q->ram;
		dc->stats->bytes += q->data;
	}
	if (ret)
		return ret;
	fp.disk_bytenr = bytenr;
	fp.disk_num_bytes = len;
	fp.num_bytes = len;
	fp.ram_bytes = len;
	fp.type = BTRFS_FILE_EXTENT_REG;
	ret = btrfs_insert_file_extent(trans, p->root, p->ino, p->off, &fp);
	if (ret)
		return ret;
	dc->stats->extents++;
	dc->stats->data_extent_bytes += len;
	return 0;
}

/* wait for @b (submitting it if it was not) and store its pieces */
static void emit_batch(struct rootdir_data_ctx *dc, struct rootdir_batch *b)
{
	int i, n;

	if (!b->nr)
		return;
	if (!b->submitted)
		rootdir_cpool_submit(dc->pool, b);
	rootdir_cpool_wait(dc->pool, b);
	for (i = 0; i < b->nr && !dc->err; i += n) {
		struct rootdir_piece *p = &b->pieces[i];

		n = 1;
		if (p->err) {
			dc->err = p->err;
			break;
		}
		/* a failed attempt flags its file: it and what follows are plain */
		if (p->ram && p->type == BTRFS_COMPRESS_NONE &&
		    !is_flagged(dc, p->root, p->ino))
			dc->err = flag_nocompress(dc, p->root, p->ino);
		if (!dc->err && p->ram && is_flagged(dc, p->root, p->ino))
			dc->err = emit_plain_run(dc, b, i, &n);
		else if (!dc->err)
			dc->err = emit_piece(dc, b, i);
	}
	b->nr = 0;
}

int rootdir_data_flush(struct rootdir_data_ctx *dc)
{
	if (!dc->pool)
		return dc->err;
	/* both batches come back before their buffers are reused */
	emit_batch(dc, dc->prev);
	emit_batch(dc, dc->cur);
	return dc->err;
}

/* the next free piece of the batch being filled */
static struct rootdir_piece *next_piece(struct cfile *cf)
{
	struct rootdir_data_ctx *dc = cf->dc;
	struct rootdir_piece *p;
	struct rootdir_batch *t;

	if (dc->cur->nr == ROOTDIR_BATCH) {
		rootdir_cpool_submit(dc->pool, dc->cur);
		emit_batch(dc, dc->prev);
		t = dc->prev;
		dc->prev = dc->cur;
		dc->cur = t;
	}
	p = &dc->cur->pieces[dc->cur->nr++];
	memset(p, 0, sizeof(*p));
	p->root = cf->root;
	p->ino = cf->ino;
	return p;
}

static void add_hole(struct cfile *cf, u64 start, u64 end)
{
	struct rootdir_piece *p;

	if (cf->dc->no_holes || end <= start || cf->err)
		return;
	p = next_piece(cf);
	p->off = start;
	p->end = end;
}

/* [@start, @end) plain, in extents as large as they come, now */
static void add_plain(struct cfile *cf, u64 start, u64 end)
{
	u64 off, len = 0;

	for (off = start; off < end && !cf->err; off += len) {
		cf->err = write_extent(cf->dc, cf->dc->trans, cf->root, cf->ino, cf->fd, cf->path,
				       off, end - off, cf->size, &len);
		if (!cf->err)
			cf->nbytes += len;
	}
}

/*
 * Whether the heuristic likes piece @p (@n bytes at @in); when the
 * read-ahead compressed it already, the piece is ready.
 */
static bool piece_heuristic(struct rootdir_data_ctx *dc, struct rootdir_piece *p,
			    const u8 *in, u64 n)
{
	struct rootdir_pf_piece pc;

	if (!dc->pf || !rootdir_pf_piece(dc->pf, p->off, (u32)n, false, &pc))
		return btrfs_compress_heuristic(in, n);
	if (!pc.heuristic)
		return false;
	p->ready = true;
	p->type = pc.ret ? BTRFS_COMPRESS_NONE : dc->compress_type;
	p->err = pc.ret == -E2BIG ? 0 : pc.ret;
	p->clen = (u32)pc.clen;
	if (!pc.ret)
		memcpy(rootdir_piece_out(dc->cur, dc->cur->nr - 1), pc.out, pc.clen);
	return true;
}

/*
 * Piece @p (@want bytes of file data), when the read-ahead has its data
 * and compressed it: ready, its input not copied (a piece stored
 * compressed does not need it, and no piece of the file before it can
 * fail any more: @cf has no doubt).
 */
static bool compressed_ahead(struct cfile *cf, struct rootdir_piece *p, size_t want)
{
	struct rootdir_data_ctx *dc = cf->dc;
	struct rootdir_pf_piece pc;
	ssize_t got;

	if (!dc->pf || !prefetched(dc, p->off, want, cf->size, &got) || got != (ssize_t)want ||
	    !rootdir_pf_piece(dc->pf, p->off, p->ram, false, &pc) || !pc.heuristic || pc.ret)
		return false;
	p->ready = true;
	p->type = dc->compress_type;
	p->clen = (u32)pc.clen;
	memcpy(rootdir_piece_out(dc->cur, dc->cur->nr - 1), pc.out, pc.clen);
	return true;
}

/*
 * One piece of up to 128 KiB at @off read into the pipeline; 1 when the
 * kernel would not compress it (the heuristic says no, or a single block
 * that cannot get a sector smaller): then it is not queued, and
 * *@single tells which.
 */
static int add_piece(struct cfile *cf, u64 off, u64 n, bool *single)
{
	struct rootdir_data_ctx *dc = cf->dc;
	size_t want = off >= cf->size ? 0 :
		      (cf->size - off < n ? (size_t)(cf->size - off) : (size_t)n);
	struct rootdir_piece *p = next_piece(cf);
	u8 *in = rootdir_piece_in(dc->cur, dc->cur->nr - 1);
	ssize_t got;

	*single = n <= dc->sectorsize;
	p->off = off;
	p->ram = (u32)n;
	p->data = (u32)want;
	if (cf->pre.len && off == cf->pre.off && n == cf->pre.len &&
	    !is_flagged(dc, cf->root, cf->ino)) {
		/*
		 * The first piece, which the heuristic liked and which
		 * compressed: the same input gives the same output, it is
		 * not compressed twice (and stored compressed: its input is
		 * not needed).
		 */
		memcpy(rootdir_piece_out(dc->cur, dc->cur->nr - 1), dc->buf + ROOTDIR_READ_BUF / 2,
		       cf->pre.clen);
		p->ready = true;
		p->type = dc->compress_type;
		p->clen = (u32)cf->pre.clen;
		cf->pre.len = 0;
		cf->nbytes += n;
		return 0;
	}
	if (!*single && !cf->doubt && !is_flagged(dc, cf->root, cf->ino) &&
	    compressed_ahead(cf, p, want)) {
		cf->nbytes += n;
		return 0;
	}
	got = is_flagged(dc, cf->root, cf->ino) ? 0 : read_data(dc, cf->fd, in, want, off, cf->size);
	if (got < 0)
		cf->err = read_error(cf->path, got);
	else if ((size_t)got != want && !is_flagged(dc, cf->root, cf->ino))
		cf->err = changed_size(cf->path);
	if (!cf->err && !is_flagged(dc, cf->root, cf->ino)) {
		memset(in + got, 0, n - (size_t)got);
		/* the page cache past the end of file is zeros: so is the sample */
		if (!*single && piece_heuristic(dc, p, in, n)) {
			cf->nbytes += n;
			cf->doubt |= !p->ready || p->type == BTRFS_COMPRESS_NONE;
			return 0;
		}
	}
	/* not to be stored from here */
	dc->cur->nr--;
	return 1;
}

/*
 * The data [@start, @end) (sector aligned) as the kernel writes a range
 * of dirty pages with mount -o compress: ranges of up to 128 MiB (its
 * largest extent), each tried only if the sampling heuristic likes its
 * first 128 KiB; a range cut in 512 KiB chunks, a chunk in 128 KiB pieces
 * compressed one after the other; a piece the heuristic does not like,
 * or a single block, ends the chunk's compression (the rest of it plain,
 * no flag); a piece that does not get a sector smaller ends the file's
 * (NOCOMPRESS, seen in emit_piece()).  Plain stretches are written at
 * once, in extents as large as they come (where the kernel, already
 * flagged, cuts them at its 512 KiB chunks).
 */
static void add_data(struct cfile *cf, u64 start, u64 end)
{
	struct rootdir_data_ctx *dc = cf->dc;
	u64 range, chunk, off, range_end, chunk_end;
	bool single;

	for (range = start; range < end && !cf->err; range = range_end) {
		range_end = end - range < ROOTDIR_MAX_EXTENT ? end : range + ROOTDIR_MAX_EXTENT;
		for (chunk = range; chunk < range_end && !cf->err; chunk = chunk_end) {
			chunk_end = range_end - chunk < ROOTDIR_COMPRESS_CHUNK ? range_end :
				    chunk + ROOTDIR_COMPRESS_CHUNK;
			for (off = chunk; off < chunk_end && !cf->err; off += BTRFS_MAX_UNCOMPRESSED) {
				u64 n = chunk_end - off < BTRFS_MAX_UNCOMPRESSED ? chunk_end - off :
					BTRFS_MAX_UNCOMPRESSED;

				if (!add_piece(cf, off, n, &single))
					continue;
				if (cf->err)
					return;
				if (is_flagged(dc, cf->root, cf->ino)) {
					/* all that is left is plain */
					add_plain(cf, off, end);
					return;
				}
				/* the first piece of a range decides for all of it */
				if (off == range && !single) {
					add_plain(cf, off, range_end);
					chunk_end = range_end;
				} else {
					add_plain(cf, off, chunk_end);
				}
				break;
			}
		}
	}
}

/*
 * The kernel's attempt at the @len bytes at @in (file offset @off; zeros
 * follow to @sample, the heuristic's length): 1 when the heuristic says
 * no, else compress_small() as an extent or (@whole_file) as the inline
 * extent of the file.  The read-ahead may have done it already.
 */
static int try_compress(struct rootdir_data_ctx *dc, u64 off, const u8 *in, size_t len,
			size_t sample, bool whole_file, u8 *out, size_t *clen)
{
	struct rootdir_pf_piece pc;

	if (dc->pf && rootdir_pf_piece(dc->pf, off, (u32)len, whole_file, &pc)) {
		if (!pc.heuristic)
			return 1;
		if (!pc.ret) {
			memcpy(out, pc.out, pc.clen);
			*clen = pc.clen;
		}
		return pc.ret;
	}
	if (!btrfs_compress_heuristic(in, sample))
		return 1;
	return rootdir_cpool_compress_small(dc->pool, in, len, whole_file ? dc->max_inline : 0,
					    out, clen);
}

/*
 * A file of at most a sector, as the kernel writes it: the heuristic
 * (over the page, zeros past the end) first; then inline and compressed
 * when the compressed bytes fit max_inline; a compression that saves
 * nothing marks it NOCOMPRESS; one that saves too little to go inline
 * does not (kernel 6.18.y and later).  1 when done, 0 when the file is
 * to be stored plain.
 */
static int try_inline_compressed(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
				 struct btrfs_root *root, u64 ino, int fd, const char *path,
				 u64 size)
{
	u8 *out = dc->buf + ROOTDIR_READ_BUF / 2;
	size_t clen = BTRFS_MAX_UNCOMPRESSED;
	int ret = read_padded(dc, fd, path, 0, (size_t)size, dc->sectorsize, size);

	if (ret)
		return ret;
	ret = try_compress(dc, 0, dc->buf, size, dc->sectorsize, true, out, &clen);
	if (ret == 1)
		return 0;
	/* it made nothing shorter (lzo: nothing that fits inline, no flag then) */
	if (ret == -E2BIG && dc->compress_type != BTRFS_COMPRESS_LZO)
		dc->file_flags |= BTRFS_INODE_NOCOMPRESS;
	if (ret == -E2BIG || (!ret && clen > dc->max_inline))
		return 0;
	if (ret)
		return ret;
	ret = btrfs_insert_inline_extent(trans, root, ino, out, (u32)clen, size,
					 dc->compress_type);
	if (ret)
		return ret;
	need_compress_feature(dc->fs, dc->compress_type);
	dc->stats->inline_extents++;
	dc->stats->compressed_inline++;
	dc->stats->compressed_ram_bytes += size;
	dc->stats->compressed_disk_bytes += clen;
	dc->stats->bytes += size;
	return 1;
}

static int start_pool(struct rootdir_data_ctx *dc)
{
	int ret;

	if (dc->pool)
		return 0;
	ret = rootdir_cpool_create(dc->compress_type, dc->compress_level, dc->sectorsize,
				   dc->pool_threads, &dc->pool);
	if (!ret) {
		dc->cur = rootdir_cpool_batch(dc->pool, 0);
		dc->prev = rootdir_cpool_batch(dc->pool, 1);
	}
	return ret;
}

/*
 * The data segments of a file that is not inline, as pieces into the
 * pipeline; *@nbytes is what they will hold.
 */
static int copy_compressed(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
			   struct btrfs_root *root, u64 ino, int fd, const char *path,
			   u64 size, u64 data, u64 hole, const struct preread *pre,
			   u64 *nbytes)
{
	u64 ss = dc->sectorsize, end = round_up_to(size, ss), off = 0;
	struct cfile cf = {
		.dc = dc, .root = root, .ino = ino, .fd = fd, .path = path, .size = size,
		.pre = *pre,
	};
	int ret = 0;

	/* the walk flushes before it commits: one handle for all pending pieces */
	dc->trans = trans;
	while (!ret && !cf.err && !dc->err) {
		u64 seg = data / ss * ss, seg_end = round_up_to(hole, ss);

		if (seg < off)
			seg = off;
		add_hole(&cf, off, seg);
		add_data(&cf, seg, seg_end);
		off = seg_end;
		if (off >= end)
			break;
		ret = next_segment(dc, fd, path, off, size, false, &data, &hole);
	}
	if (!cf.err && ret >= 0)
		add_hole(&cf, off, end);
	*nbytes = cf.nbytes;
	if (ret < 0)
		return ret;
	return cf.err ? cf.err : dc->err;
}

void rootdir_data_finish(struct rootdir_data_ctx *dc)
{
	/* the workers finish what was submitted before they stop */
	rootdir_cpool_destroy(dc->pool);
	dc->pool = NULL;
	stop_flusher(dc);
	free(dc->sums);
	dc->sums = NULL;
}

/*
 * Whether a file of more than one piece goes through the pipeline: 0 when
 * the kernel's attempt at its first piece fails (it marks the inode
 * NOCOMPRESS, and the file is stored plain in extents as large as they
 * come), 1 otherwise (also when the heuristic does not like the piece:
 * the pipeline writes that range plain), or -errno.  Compressed here, in
 * the writer; when it compresses, *@pre keeps it for the pipeline.
 */
static int first_piece_compresses(struct rootdir_data_ctx *dc, int fd, const char *path,
				  u64 size, u64 data, u64 hole, struct preread *pre)
{
	u64 ss = dc->sectorsize, seg = data / ss * ss, n = round_up_to(hole, ss) - seg;
	size_t want, clen = BTRFS_MAX_UNCOMPRESSED;
	int ret;

	if (n > BTRFS_MAX_UNCOMPRESSED)
		n = BTRFS_MAX_UNCOMPRESSED;
	if (n <= ss)
		return 1;
	want = size - seg < n ? (size_t)(size - seg) : (size_t)n;
	ret = read_padded(dc, fd, path, seg, want, n, size);
	if (ret)
		return ret;
	ret = try_compress(dc, seg, dc->buf, n, n, false, dc->buf + ROOTDIR_READ_BUF / 2, &clen);
	if (ret == 1)
		return 1;
	if (ret == -E2BIG) {
		dc->file_flags |= BTRFS_INODE_NOCOMPRESS;
		return 0;
	}
	if (ret)
		return ret;
	pre->off = seg;
	pre->len = n;
	pre->clen = clen;
	return 1;
}

static int copy_file(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		     struct btrfs_root *root, u64 ino, int fd, const char *path,
		     u64 size, u64 *nbytes)
{
	u64 ss = dc->sectorsize, end = round_up_to(size, ss), off = 0, data, hole;
	struct preread pre = { 0 };
	int ret;

	*nbytes = 0;
	dc->eof_seen = false;
	dc->file_flags = 0;
	if (!size)
		return 0;
	/*
	 * Holes are asked for even when the host allocates the whole size:
	 * unwritten preallocated ranges count as holes for SEEK_DATA.
	 */
	ret = next_segment(dc, fd, path, 0, size, size < ss, &data, &hole);
	if (ret < 0)
		return ret;
	if (dc->err)
		return dc->err;
	/* the kernel does not compress nodatasum (or nodatacow) files */
	if (!ret && dc->compress_type != BTRFS_COMPRESS_NONE && !dc->nodatasum) {
		ret = start_pool(dc);
		if (!ret && size <= ss && !data) {
			ret = try_inline_compressed(dc, trans, root, ino, fd, path, size);
			/* not inline compressed: the file is in dc->buf */
			pre.whole = !ret;
			if (ret == 1) {
				*nbytes = size;
				return 0;
			}
		} else if (!ret && size > BTRFS_MAX_UNCOMPRESSED) {
			ret = first_piece_compresses(dc, fd, path, size, data, hole, &pre);
		} else if (!ret) {
			ret = 1;
		}
		if (ret < 0)
			return ret;
		if (ret == 1)
			return copy_compressed(dc, trans, root, ino, fd, path, size, data,
					       hole, &pre, nbytes);
	}
	if (!ret && rootdir_inline_ok(size, dc->sectorsize, dc->max_inline)) {
		*nbytes = size;
		return copy_inline(dc, trans, root, ino, fd, path, size, pre.whole);
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
		ret = next_segment(dc, fd, path, off, size, false, &data, &hole);
		if (ret < 0)
			return ret;
	}
	return insert_hole(dc, trans, root, ino, off, end);
}

int rootdir_copy_file(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, int fd, const char *path,
		      u64 size, u64 *nbytes)
{
	int ret;

	/* flags for its pieces go to dc->file_flags until it returns */
	dc->cur_root = root;
	dc->cur_ino = ino;
	ret = copy_file(dc, trans, root, ino, fd, path, size, nbytes);
	dc->cur_root = NULL;
	dc->cur_ino = 0;
	return ret;
}
