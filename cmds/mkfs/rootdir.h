/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mkfs --rootdir: the populate step of the mkfs pipeline.  The top
 * subvolume (FS tree 5) gets a copy of a directory, through the engine.
 *
 *   rootdir-walk.c   the sorted directory walk, inode numbers, hard links,
 *                    periodic commits, progress, the final nlink fix-up
 *   rootdir-items.c  inode items from stat (owner, clamped times), links,
 *                    xattrs
 *   rootdir-data.c   file data: holes, inline, extents, checksums;
 *                    --compress pieces in file order, --reflink clones
 *   rootdir-compress.c  the --compress worker threads
 *   rootdir-links.c  the hard-link map (st_dev, st_ino) -> inode
 *   rootdir-host.c   the host directory as the walk's source
 *   rootdir-readahead.c  the same, its system calls made by a thread ahead
 *                    of the writer, and --compress pieces compressed ahead
 *   rootdir-size.c   the pre-scan and the size estimate
 *
 * Walk order (which fixes the inode numbers, so equal trees give equal
 * images): in each directory the entries sorted by strcmp() get the next
 * inode numbers in that order, then the subdirectories are walked in the
 * same order.  The root directory is inode 256, the first entry 257.
 */
#ifndef GHEE_MKFS_ROOTDIR_H
#define GHEE_MKFS_ROOTDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "kernel-shared/format.h"

struct btrfs_fs_info;
struct btrfs_trans_handle;
struct btrfs_root;
struct rootdir_tar;

/* kernel limits a copy follows */
#define ROOTDIR_MAX_EXTENT	(128ULL << 20)	/* BTRFS_MAX_EXTENT_SIZE */
#define ROOTDIR_MAX_INLINE	2048U		/* the default max_inline mount option */

struct mkfs_owner {
	bool set;
	u32 uid;
	u32 gid;
};

#define MKFS_MAX_SUBVOLS	64

enum mkfs_subvol_type {
	MKFS_SUBVOL_RW,
	MKFS_SUBVOL_RO,
	MKFS_SUBVOL_DEFAULT,
	MKFS_SUBVOL_DEFAULT_RO,
};

/* --subvol TYPE:SUBDIR */
struct mkfs_subvol {
	char *rel;			/* SUBDIR relative to DIR, no trailing '/' */
	enum mkfs_subvol_type type;
};

/* --inode-flags FLAGS:PATH */
struct mkfs_inode_flags {
	char *rel;			/* PATH relative to DIR */
	u64 flags;			/* BTRFS_INODE_NODATACOW / _NODATASUM */
};

struct mkfs_rootdir_opts {
	const char *path;		/* NULL: no --rootdir */
	struct mkfs_owner owner;	/* --owner: every inode */
	struct mkfs_owner root_owner;	/* --root-owner: the top directory */
	bool one_file_system;
	bool shrink;
	u8 compress_type;		/* --compress: BTRFS_COMPRESS_*, NONE: off */
	int compress_level;		/* 0: the algorithm's default */
	bool reflink;			/* --reflink */
	u32 max_inline;			/* --max-inline, default ROOTDIR_MAX_INLINE */
	bool have_epoch;		/* SOURCE_DATE_EPOCH */
	u64 epoch;
	u64 now_sec;			/* root item times of new subvolumes */
	bool derive_uuids;		/* -U given: subvolume UUIDs from the fsid */
	struct mkfs_subvol subvols[MKFS_MAX_SUBVOLS];
	int nr_subvols;
	struct mkfs_inode_flags iflags[MKFS_MAX_SUBVOLS];
	int nr_iflags;
};

/* what the pre-scan found: inodes and data counted once */
struct rootdir_scan {
	u64 inodes;		/* without the top directory */
	u64 dirs;
	u64 entries;		/* names (hard links counted each) */
	u64 name_bytes;
	u64 data_bytes;		/* regular extents, sector-rounded */
	u64 extents;
	u64 inline_bytes;	/* inline file data and symlink targets */
	u64 xattr_bytes;	/* names and values */
	u64 xattrs;
	struct rootdir_tar *tar;	/* tar input: the index read by the scan */
	/*
	 * The host inodes (st_dev, st_ino) found with xattrs: the walk lists
	 * the xattrs of only these.  NULL: of every inode (tar input, or too
	 * many of them to keep).
	 */
	struct rootdir_links *xattr_inodes;
};

/* rootdir-tar.c: the index and spool of a tar input */
void rootdir_tar_free(struct rootdir_tar *t);
/* is @path a tar archive (a regular file or "-")? */
bool rootdir_is_tar(const char *path);

/* what was written (summary, JSON) */
struct rootdir_stats {
	u64 inodes;		/* including the top directory */
	u64 regular;
	u64 dirs;
	u64 symlinks;
	u64 special;		/* fifos, sockets, devices */
	u64 hardlinks;		/* names beyond the first of an inode */
	u64 xattrs;
	u64 bytes;		/* file bytes copied (data and inline) */
	u64 extents;		/* regular data extents */
	u64 inline_extents;
	u64 hole_extents;
	u64 data_extent_bytes;	/* disk bytes of the regular extents */
	u64 compressed_extents;	/* regular extents stored compressed */
	u64 compressed_inline;	/* inline extents stored compressed */
	u64 compressed_ram_bytes;	/* file bytes those hold */
	u64 compressed_disk_bytes;	/* and their size on disk */
	u64 reflinked_bytes;	/* --reflink: data cloned, not written */
	u64 subvols;		/* subvolumes made (ids 256, 257, ...) */
	u64 default_subvol;	/* 0: the top one stays the default */
};

/* the data writer's view of the filesystem */
struct rootdir_data_ctx {
	struct btrfs_fs_info *fs;
	u32 sectorsize;
	u32 max_inline;		/* what may go inline: min(max_inline, leaf room) */
	bool no_holes;
	bool nodatasum;
	/* set by rootdir_copy_file(): its read met end of file at the size */
	bool eof_seen;
	/*
	 * Set by the caller for each file: its data starts at offset @base of
	 * the descriptor (a region of a tar spool file); @sealed: the size
	 * cannot change, whatever follows it is not the file's.
	 */
	u64 base;
	bool sealed;
	u8 *buf;		/* read buffer, ROOTDIR_READ_BUF bytes */
	/* what the read-ahead has of the file (set with @base), NULL: none */
	struct rootdir_prefetch *pf;
	u8 *sums;		/* the checksums it worked out, for one read buffer */
	struct rootdir_stats *stats;
	u8 compress_type;	/* --compress; NONE: off */
	int compress_level;
	int pool_threads;	/* of the pool, the writer included */
	struct rootdir_cpool *pool;	/* made on the first compressed file */
	struct rootdir_batch *cur;	/* being filled */
	struct rootdir_batch *prev;	/* with the workers */
	struct btrfs_trans_handle *trans;	/* of the pending pieces */
	int err;			/* a pending piece failed */
	/* the file rootdir_copy_file() is on, and the inode flags it gets */
	struct btrfs_root *cur_root;
	u64 cur_ino;
	u64 file_flags;		/* BTRFS_INODE_NOCOMPRESS */
	/* the last file a failed attempt flagged: its pieces are stored plain */
	struct btrfs_root *flag_root;
	u64 flag_ino;
	bool reflink;		/* --reflink, until it is found not to work */
	bool reflink_noted;
	u64 unflushed;		/* data bytes written since the last writeback start */
	struct rootdir_flusher *flusher;	/* starts it in the background, or NULL */
};

/* the read buffer, and the room past it for the byte that finds end of file */
#define ROOTDIR_READ_BUF	(8U << 20)
#define ROOTDIR_READ_SLACK	4096U
/* data written between two starts of the devices' writeback */
#define ROOTDIR_WRITEBACK	(32ULL << 20)

/* an image file inside DIR is not copied into itself */
struct rootdir_image {
	u64 dev;
	u64 ino;		/* 0: none */
};

/* rootdir-walk.c: populate the fs tree; may commit in between */
int rootdir_populate(struct btrfs_fs_info *fs, struct btrfs_trans_handle **trans,
		     const struct mkfs_rootdir_opts *o, const struct rootdir_scan *scan,
		     const struct rootdir_image *image, int verbosity,
		     struct rootdir_stats *stats);

/* rootdir-size.c */
int rootdir_prescan(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		    struct rootdir_scan *scan);
void rootdir_scan_free(struct rootdir_scan *scan);
/* bytes one device needs for @scan's tree (with margin) */
u64 rootdir_estimate_size(const struct rootdir_scan *scan, u32 nodesize,
			  u32 sectorsize, u16 csum_size, u64 meta_profile,
			  u64 data_profile, bool mixed);

/* rootdir-data.c */
/*
 * pread until @len bytes or end of file, @done bytes of @buf being in
 * already; returns bytes read or -errno.  A short read once @enough bytes
 * are in is end of file (a regular file reads short only there): a
 * caller asking for one byte more than the size it expects learns that
 * the file did not grow without the read that returns 0, or a statx()
 * afterwards.
 */
ssize_t rootdir_read_full(int fd, u8 *buf, size_t len, u64 off, size_t enough, size_t done);
bool rootdir_inline_ok(u64 size, u32 sectorsize, u32 max_inline);
/* the length of the next extent of a data segment of @left bytes */
u64 rootdir_extent_len(u64 left, u64 largest_free, u32 sectorsize);
int rootdir_copy_file(struct rootdir_data_ctx *dc, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, int fd, const char *path,
		      u64 size, u64 *nbytes);
/*
 * --compress: store the pieces still in the pipeline (before a commit and
 * at the end; file extent items may follow their inode items)
 */
int rootdir_data_flush(struct rootdir_data_ctx *dc);
/* the data writer is done: stop the --compress workers and the flusher */
void rootdir_data_finish(struct rootdir_data_ctx *dc);
/*
 * A thread that starts the devices' writeback when the writer asks (the
 * writeback's submission can take the writer a while); 0 or -errno
 */
int rootdir_data_flusher(struct rootdir_data_ctx *dc);

/*
 * rootdir-readahead.c: what the read-ahead thread did for the file being
 * copied, asked for by the data writer as it would ask the host (each
 * false: not known, the caller asks the host itself)
 */
struct rootdir_prefetch;
/*
 * rootdir_read_full() (rootdir-data.c) of [@off, @off + @len): true with *@ret the
 * bytes read or -errno; false with *@done bytes of @buf filled, the rest
 * to be read from @off + *@done.  @buf NULL: only whether it has them.
 */
bool rootdir_pf_read(struct rootdir_prefetch *pf, u8 *buf, size_t len, u64 off,
		     size_t enough, size_t *done, ssize_t *ret);
/* lseek(@off, @whence) (SEEK_DATA or SEEK_HOLE): *@res the offset or -errno */
bool rootdir_pf_seek(struct rootdir_prefetch *pf, u64 off, int whence, s64 *res);
/*
 * the data checksums of the sectors [@off, @off + @len) as rootdir_pf_read()
 * gave them (zeros after end of file), into @sums
 */
bool rootdir_pf_sums(struct rootdir_prefetch *pf, u64 off, u64 len, u8 *sums);
/*
 * the bytes at @off that lie one after the other in the read-ahead's
 * memory, at most @len (up to a sector past the end of the file: zeros),
 * after rootdir_pf_read() (@buf NULL: nothing copied) found them all
 */
size_t rootdir_pf_span(struct rootdir_prefetch *pf, u64 off, size_t len, const u8 **data);

/* the kernel's decisions for a piece of file data, worked out ahead */
struct rootdir_pf_piece {
	bool heuristic;		/* the sampling heuristic says try */
	int ret;		/* then the compression: 0, -E2BIG (no saving), -errno */
	const u8 *out;		/* ret 0: @clen bytes, until the next read past its chunk: copy it */
	size_t clen;
};

/*
 * [@off, @off + @len) compressed as an extent, or (@whole_file) the file
 * as an inline extent, where max_inline allows
 */
bool rootdir_pf_piece(struct rootdir_prefetch *pf, u64 off, u32 len, bool whole_file,
		      struct rootdir_pf_piece *piece);

/* rootdir-compress.c: the --compress workers */
#define ROOTDIR_BATCH		32	/* pieces handed over at once */
/* the kernel's async compression chunk: a failed piece ends it */
#define ROOTDIR_COMPRESS_CHUNK	(512U << 10)
#define ROOTDIR_MAX_THREADS	64

/* one piece of a file: up to 128 KiB of data, or a hole */
struct rootdir_piece {
	u64 off;		/* file offset */
	u64 end;		/* a hole: [off, end) */
	u32 ram;		/* data: sector-rounded length; 0: a hole */
	u32 data;		/* file bytes in it (the rest is the zeroed tail) */
	struct btrfs_root *root;	/* the file's subvolume and inode */
	u64 ino;
	u8 type;		/* filled by a worker: BTRFS_COMPRESS_*, NONE = plain */
	u32 clen;		/* compressed length */
	bool ready;		/* compressed by the writer already */
	int err;
};

struct rootdir_batch {
	struct rootdir_piece pieces[ROOTDIR_BATCH];
	int nr;
	int next;		/* the next piece a worker takes */
	int done;		/* pieces finished */
	u64 seq;
	bool submitted;
	u8 *in;			/* ROOTDIR_BATCH x 128 KiB, and ROOTDIR_READ_SLACK */
	u8 *out;
};

struct rootdir_cpool;
/* compressing threads, the writer included: GHEE_MKFS_THREADS, else the CPUs this process may run on */
int rootdir_compress_threads(void);
int rootdir_cpool_create(u8 type, int level, u32 sectorsize, int threads,
			 struct rootdir_cpool **ret);
void rootdir_cpool_destroy(struct rootdir_cpool *pool);
/* the two batches (0, 1) a writer fills in turn */
struct rootdir_batch *rootdir_cpool_batch(struct rootdir_cpool *pool, int i);
u8 *rootdir_piece_in(struct rootdir_batch *b, int i);
u8 *rootdir_piece_out(struct rootdir_batch *b, int i);
void rootdir_cpool_submit(struct rootdir_cpool *pool, struct rootdir_batch *b);
/* until every piece of @b is compressed (no-op when not submitted) */
void rootdir_cpool_wait(struct rootdir_cpool *pool, struct rootdir_batch *b);
/*
 * compress in the calling thread: first pieces (kept when they save a
 * sector), or with @inline_max a whole file of at most a sector to go
 * inline if the result is at most @inline_max bytes (kept as the kernel
 * keeps it: shorter than the file; lzo: whatever fits)
 */
int rootdir_cpool_compress_small(struct rootdir_cpool *pool, const u8 *in, size_t len,
				 size_t inline_max, u8 *out, size_t *out_len);
/* the same with the workspace @ws (of the calling thread) */
struct btrfs_compress_ws;
int rootdir_compress_small_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			      u32 sectorsize, const u8 *in, size_t len, size_t inline_max,
			      u8 *out, size_t *out_len);

/* rootdir-links.c: (dev, ino) -> btrfs inode and names found, for nlink > 1 */
struct rootdir_link {
	u64 dev;
	u64 ino;
	u64 btrfs_ino;
	u32 found;
};

struct rootdir_links {
	struct rootdir_link *slots;	/* open addressing, ino 0 = free */
	size_t nr;
	size_t alloc;			/* power of two */
};

void rootdir_links_init(struct rootdir_links *l);
void rootdir_links_free(struct rootdir_links *l);
/* the entry of (dev, ino), NULL if absent */
struct rootdir_link *rootdir_links_find(struct rootdir_links *l, u64 dev, u64 ino);
/* add (dev, ino) (absent) -> btrfs_ino with found = 1 */
int rootdir_links_add(struct rootdir_links *l, u64 dev, u64 ino, u64 btrfs_ino);

#endif
