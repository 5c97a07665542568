/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File data items: file extent items (regular, preallocated, inline) and
 * data checksums in the csum tree, plus writing a whole data extent.
 * For populating filesystems (mkfs --rootdir) and repair.
 */
#ifndef GHEE_FILE_ITEM_H
#define GHEE_FILE_ITEM_H

#include "format.h"
#include "disk-io.h"

struct btrfs_trans_handle;

struct btrfs_file_extent_params {
	u64 disk_bytenr;	/* 0 for a hole */
	u64 disk_num_bytes;
	u64 offset;		/* into the extent */
	u64 num_bytes;		/* bytes of the file it covers */
	u64 ram_bytes;		/* uncompressed size of the extent */
	u8 compression;
	u8 type;		/* BTRFS_FILE_EXTENT_REG or _PREALLOC */
};

/* EXTENT_DATA (ino, file_offset) pointing into a data extent */
int btrfs_insert_file_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			     u64 ino, u64 file_offset,
			     const struct btrfs_file_extent_params *p);

/* largest inline extent a leaf can hold (the caller applies its own limit) */
u32 btrfs_max_inline_data_size(const struct btrfs_fs_info *fs_info);

/* inline EXTENT_DATA (ino, 0) holding @len bytes (compressed or not) */
int btrfs_insert_inline_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			       u64 ino, const void *data, u32 len, u64 ram_bytes,
			       u8 compression);

/*
 * Checksums of @len bytes (sector multiple) at logical @bytenr into the
 * csum tree: appended to the item ending at @bytenr when there is one,
 * new items otherwise, each at most a leaf's worth.
 */
int btrfs_csum_file_blocks(struct btrfs_trans_handle *trans, u64 bytenr,
			   const void *data, u64 len);
/* the same with the @nr sums (csum_size bytes each) worked out already */
int btrfs_csum_file_sums(struct btrfs_trans_handle *trans, u64 bytenr, const u8 *sums,
			 u64 nr);
/* the @csum_size byte sums of the @nr sectors at @data, into @out */
void btrfs_csum_sectors(u16 csum_type, u32 csum_size, u32 sectorsize, const void *data,
			u64 nr, u8 *out);

/*
 * A regular file extent in one go: data space for @len bytes (rounded up
 * to the sector size, the tail zeroed), the data written to every copy,
 * its checksums (unless @nodatasum) and the file extent item.
 */
int btrfs_write_file_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    u64 ino, u64 file_offset, const void *data, u64 len,
			    bool nodatasum, u64 *bytenr_ret);

#endif
