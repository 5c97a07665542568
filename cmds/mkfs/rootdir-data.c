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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
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

/*
 * Read @want bytes of file data at @pos; when they end at the file's
 * @size, one byte more is asked for (@buf has room for it) and end of
 * file seen there is noted in dc->eof_seen.
 */
static ssize_t read_data(struct rootdir_data_ctx *dc, int fd, u8 *buf, size_t want,
			 u64 pos, u64 size)
{
	bool to_end = want && pos + want == size;
	ssize_t got = rootdir_read_full(fd, buf, want + to_end, pos, want);

	if (to_end && got == (ssize_t)want)
		dc->eof_seen = true;
	return got;
}

/* @len bytes at @logical to the devices; now and then start their writeback */
static int write_out(struct rootdir_data_ctx *dc, u64 logical, const u8 *buf, u64 len)
{
	int ret = btrfs_write_logical(dc->fs, logical, buf, len);

	dc->unflushed += len;
	if (!ret && dc->unflushed >= ROOTDIR_WRITEBACK) {
		btrfs_start_writeback(dc->fs);
		dc->unflushed = 0;
	}
	return ret;
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
 * does not work here; a note says so once), -errno on a mapping error.
 */
static int clone_range(struct rootdir_data_ctx *dc, int fd, const char *path, u64 pos,
		       u64 logical, u64 len)
{
	int mirror, copies = btrfs_num_copies(dc->fs, logical, len);

	for (mirror = 1; mirror <= copies; mirror++) {
		u64 done = 0;

		while (done < len) {
			struct btrfs_device *dev;
			struct file_clone_range fcr;
			u64 seg = len - done, physical;
			int ret = btrfs_map_block(dc->fs, logical + done, &seg, mirror, &dev,
						  &physical);

			if (ret)
				return ret;
			fcr.src_fd = fd;
			fcr.src_offset = pos + done;
			fcr.src_length = seg;
			fcr.dest_offset = physical;
			if (ioctl(dev->fd, FICLONERANGE, &fcr) < 0) {
				/* what cloned already is the same data: it gets overwritten */
				reflink_off(dc, path, errno);
				return 1;
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
		ssize_t got = read_data(dc, fd, dc->buf, want, pos, size);

		if (got < 0)
			return read_error(path, got);
		if ((size_t)got != want)
			return changed_size(path);
		memset(dc->buf + got, 0, n - (size_t)got);
		ret = write_or_clone(dc, fd, path, pos, bytenr + done, n, (size_t)got);
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
 * is none.  A filesystem without SEEK_DATA has all data.  @data_only:
 * the hole is not looked for (*@hole = @size), for a file shorter than
 * a sector, where only whether it has data matters (its one sector is
 * stored whole or not at all).
 */
static int next_segment(int fd, const char *path, u64 off, u64 size, bool data_only,
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
	if (data_only) {
		*data = (u64)d;
		*hole = size;
		return (u64)d >= size ? 1 : 0;
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

/* @have_data: dc->buf holds the file already (read to its end) */
static int copy_inline(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		       struct btrfs_root *root, u64 ino, int fd, const char *path,
		       u64 size, bool have_data)
{
	/* one byte more than expected tells a file that grew */
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
	bool whole;		/* the whole file (shorter than a sector) */
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
	struct rootdir_pfile *pf;	/* the workers' descriptor, made when needed */
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

/* store piece @i of @b: compressed when a worker found that pays, else plain */
static int emit_piece(struct rootdir_data_ctx *dc, struct rootdir_batch *b, int i)
{
	struct rootdir_piece *p = &b->pieces[i];
	struct btrfs_trans_handle *trans = dc->trans;
	struct btrfs_file_extent_params fp = { 0 };
	u32 ss = dc->sectorsize;
	u8 *buf = rootdir_piece_in(b, i);
	u64 disk = p->ram, bytenr;
	int ret;

	if (p->err && p->read_err && p->err == -ESTALE)
		return changed_size(p->file->path);
	if (p->err && p->read_err)
		return read_error(p->file->path, p->err);
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

static void put_pfile(struct rootdir_pfile *f)
{
	if (f && !--f->refs) {
		close(f->fd);
		free(f);
	}
}

/* the pieces of @b (done with) let go of their files */
static void release_batch(struct rootdir_batch *b)
{
	int i;

	for (i = 0; i < b->nr; i++)
		put_pfile(b->pieces[i].file);
	b->nr = 0;
}

/* wait for @b (submitting it if it was not) and store its pieces */
static void emit_batch(struct rootdir_data_ctx *dc, struct rootdir_batch *b)
{
	int i;

	if (!b->nr)
		return;
	if (!b->submitted)
		rootdir_cpool_submit(dc->pool, b);
	rootdir_cpool_wait(dc->pool, b);
	for (i = 0; i < b->nr && !dc->err; i++)
		dc->err = emit_piece(dc, b, i);
	release_batch(b);
}

int rootdir_data_flush(struct rootdir_data_ctx *dc)
{
	if (dc->pool) {
		/* both batches come back before their buffers are reused */
		emit_batch(dc, dc->prev);
		emit_batch(dc, dc->cur);
	}
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

/* the piece @p is read by a worker: through the file's pipeline descriptor */
static int pfile_get(struct cfile *cf, struct rootdir_piece *p)
{
	size_t len = strlen(cf->path) + 1;
	int ret;

	if (!cf->pf) {
		cf->pf = malloc(sizeof(*cf->pf) + len);
		if (!cf->pf)
			return -ENOMEM;
		cf->pf->fd = dup(cf->fd);
		if (cf->pf->fd < 0) {
			ret = -errno;
			cmd_error("cannot read %s: %m", cf->path);
			free(cf->pf);
			cf->pf = NULL;
			return ret;
		}
		/* the cfile's own reference, dropped when the file is cut */
		cf->pf->refs = 1;
		cf->pf->size = cf->size;
		memcpy(cf->pf->path, cf->path, len);
	}
	cf->pf->refs++;
	p->file = cf->pf;
	return 0;
}

/* the data [@start, @end) (sector aligned) as 128 KiB pieces */
static void add_data(struct cfile *cf, u64 start, u64 end)
{
	struct rootdir_data_ctx *dc = cf->dc;
	u64 off;

	for (off = start; off < end && !cf->err; ) {
		u64 n = end - off < BTRFS_MAX_UNCOMPRESSED ? end - off : BTRFS_MAX_UNCOMPRESSED;
		size_t want = off >= cf->size ? 0 :
			      (cf->size - off < n ? (size_t)(cf->size - off) : (size_t)n);
		struct rootdir_piece *p = next_piece(cf);
		u8 *in = rootdir_piece_in(dc->cur, dc->cur->nr - 1);
		ssize_t got;

		p->off = off;
		p->ram = (u32)n;
		p->data = (u32)want;
		if (cf->pre.len && off == cf->pre.off && n == cf->pre.len) {
			/* the same input gives the same output: not compressed twice */
			memcpy(in, dc->buf, n);
			memcpy(rootdir_piece_out(dc->cur, dc->cur->nr - 1),
			       dc->buf + ROOTDIR_READ_BUF / 2, cf->pre.clen);
			p->ready = true;
			p->type = dc->compress_type;
			p->clen = (u32)cf->pre.clen;
			cf->pre.len = 0;
			cf->nbytes += n;
			off += n;
			continue;
		}
		if (cf->pre.whole) {
			memcpy(in, dc->buf + off, want);
			memset(in + want, 0, n - want);
			got = (ssize_t)want;
		} else {
			/* a worker reads it (and checks the size at the end) */
			got = pfile_get(cf, p);
			if (want && off + want == cf->size)
				dc->eof_seen = true;
		}
		if (got >= 0) {
			cf->nbytes += n;
			off += n;
			continue;
		}
		cf->err = (int)got;
		/* the piece is not to be stored */
		dc->cur->nr--;
	}
}

/*
 * A file shorter than a sector inline and compressed when the kernel
 * would: the compressed bytes fit max_inline.  1 when done, 0 when the
 * file is to be stored some other way.
 */
static int try_inline_compressed(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
				 struct btrfs_root *root, u64 ino, int fd, const char *path,
				 u64 size)
{
	u8 *out = dc->buf + ROOTDIR_READ_BUF / 2;
	size_t clen = BTRFS_MAX_UNCOMPRESSED;
	ssize_t got = read_data(dc, fd, dc->buf, (size_t)size, 0, size);
	int ret;

	if (got < 0)
		return read_error(path, got);
	if ((u64)got != size)
		return changed_size(path);
	ret = rootdir_cpool_compress_small(dc->pool, dc->buf, size, out, &clen);
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
				   rootdir_compress_threads(), &dc->pool);
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
		ret = next_segment(fd, path, off, size, false, &data, &hole);
	}
	if (!cf.err && ret >= 0)
		add_hole(&cf, off, end);
	put_pfile(cf.pf);
	*nbytes = cf.nbytes;
	if (ret < 0)
		return ret;
	return cf.err ? cf.err : dc->err;
}

void rootdir_data_finish(struct rootdir_data_ctx *dc)
{
	if (dc->pool) {
		/* after a failure: what is still in the pipeline is dropped */
		rootdir_cpool_wait(dc->pool, dc->prev);
		rootdir_cpool_wait(dc->pool, dc->cur);
		release_batch(dc->prev);
		release_batch(dc->cur);
	}
	rootdir_cpool_destroy(dc->pool);
	dc->pool = NULL;
}

/*
 * Whether the first piece of a file of more than one piece compresses:
 * 1 yes, 0 no (like the kernel, which then stops compressing the file,
 * it is stored plain in extents as large as they come), or -errno.
 * Compressed here, in the writer; when it compresses, *@pre keeps it for
 * the pipeline.
 */
static int first_piece_compresses(struct rootdir_data_ctx *dc, int fd, const char *path,
				  u64 size, u64 data, u64 hole, struct preread *pre)
{
	u64 ss = dc->sectorsize, seg = data / ss * ss, n = round_up_to(hole, ss) - seg;
	size_t want, clen = BTRFS_MAX_UNCOMPRESSED;
	ssize_t got;
	int ret;

	if (n > BTRFS_MAX_UNCOMPRESSED)
		n = BTRFS_MAX_UNCOMPRESSED;
	want = size - seg < n ? (size_t)(size - seg) : (size_t)n;
	got = rootdir_read_full(fd, dc->buf, want, seg, want);
	if (got < 0)
		return read_error(path, got);
	if ((size_t)got != want)
		return changed_size(path);
	memset(dc->buf + got, 0, n - (size_t)got);
	ret = rootdir_cpool_compress_small(dc->pool, dc->buf, n, dc->buf + ROOTDIR_READ_BUF / 2,
					   &clen);
	if (ret == -E2BIG)
		return 0;
	if (ret)
		return ret;
	pre->off = seg;
	pre->len = n;
	pre->clen = clen;
	return 1;
}

int rootdir_copy_file(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, int fd, const char *path,
		      u64 size, u64 *nbytes)
{
	u64 ss = dc->sectorsize, end = round_up_to(size, ss), off = 0, data, hole;
	struct preread pre = { 0 };
	int ret;

	*nbytes = 0;
	dc->eof_seen = false;
	if (!size)
		return 0;
	/*
	 * Holes are asked for even when the host allocates the whole size:
	 * unwritten preallocated ranges count as holes for SEEK_DATA.
	 */
	ret = next_segment(fd, path, 0, size, size < ss, &data, &hole);
	if (ret < 0)
		return ret;
	if (dc->err)
		return dc->err;
	/* the kernel does not compress nodatasum (or nodatacow) files */
	if (!ret && dc->compress_type != BTRFS_COMPRESS_NONE && !dc->nodatasum) {
		ret = start_pool(dc);
		if (!ret && size < ss) {
			ret = try_inline_compressed(dc, trans, root, ino, fd, path, size);
			/* not inline compressed: the file is in dc->buf */
			pre.whole = !ret;
		}
		if (ret < 0)
			return ret;
		if (ret == 1) {
			*nbytes = size;
			return 0;
		}
		if (!ret && size > BTRFS_MAX_UNCOMPRESSED)
			ret = first_piece_compresses(dc, fd, path, size, data, hole, &pre);
		if (ret < 0)
			return ret;
		if (ret == 1 || (size <= BTRFS_MAX_UNCOMPRESSED &&
				 !rootdir_inline_ok(size, dc->sectorsize, dc->max_inline)))
			return copy_compressed(dc, trans, root, ino, fd, path, size, data,
					       hole, &pre, nbytes);
		ret = 0;
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
		ret = next_segment(fd, path, off, size, false, &data, &hole);
		if (ret < 0)
			return ret;
	}
	return insert_hole(dc, trans, root, ino, off, end);
}
