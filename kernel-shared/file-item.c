// SPDX-License-Identifier: GPL-2.0
/*
 * File extent items and data checksums.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "file-item.h"
#include "ctree.h"
#include "transaction.h"
#include "extent-tree.h"
#include "write-io.h"
#include "csum.h"

int btrfs_insert_file_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			     u64 ino, u64 file_offset,
			     const struct btrfs_file_extent_params *p)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, file_offset };
	struct btrfs_file_extent_item fi;

	memset(&fi, 0, sizeof(fi));
	btrfs_set_file_extent_generation(&fi, trans->transid);
	btrfs_set_file_extent_ram_bytes(&fi, p->ram_bytes);
	btrfs_set_file_extent_compression(&fi, p->compression);
	btrfs_set_file_extent_type(&fi, p->type ? p->type : BTRFS_FILE_EXTENT_REG);
	btrfs_set_file_extent_disk_bytenr(&fi, p->disk_bytenr);
	btrfs_set_file_extent_disk_num_bytes(&fi, p->disk_num_bytes);
	btrfs_set_file_extent_offset(&fi, p->offset);
	btrfs_set_file_extent_num_bytes(&fi, p->num_bytes);
	return btrfs_insert_item(trans, root, &key, &fi, sizeof(fi));
}

u32 btrfs_max_inline_data_size(const struct btrfs_fs_info *fs_info)
{
	return btrfs_leaf_max_item_size(fs_info->nodesize) -
	       BTRFS_FILE_EXTENT_INLINE_DATA_START;
}

int btrfs_insert_inline_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			       u64 ino, const void *data, u32 len, u64 ram_bytes,
			       u8 compression)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	u32 hdr = BTRFS_FILE_EXTENT_INLINE_DATA_START;
	struct btrfs_file_extent_item *fi;
	struct btrfs_path path;
	u8 buf[sizeof(*fi)];
	int ret;

	if (len > btrfs_max_inline_data_size(trans->fs_info))
		return -EOVERFLOW;
	memset(buf, 0, sizeof(buf));
	fi = (void *)buf;
	btrfs_set_file_extent_generation(fi, trans->transid);
	btrfs_set_file_extent_ram_bytes(fi, ram_bytes);
	btrfs_set_file_extent_compression(fi, compression);
	btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_INLINE);
	btrfs_init_path(&path);
	ret = btrfs_insert_empty_item(trans, root, &path, &key, hdr + len);
	if (!ret) {
		btrfs_write_item_data(&path, 0, buf, hdr);
		btrfs_write_item_data(&path, hdr, data, len);
	}
	btrfs_release_path(&path);
	return ret;
}

/*
 * Sectors whose sums one item may hold: the kernel's and btrfs check's
 * limit, a little below what a leaf could take.
 */
static u64 max_sums_per_item(const struct btrfs_fs_info *fs_info)
{
	return (btrfs_leaf_data_size(fs_info->nodesize) -
		2 * sizeof(struct btrfs_item)) / fs_info->csum_size - 1;
}

void btrfs_csum_sectors(u16 csum_type, u32 csum_size, u32 sectorsize, const void *data,
			u64 nr, u8 *out)
{
	u8 digest[BTRFS_CSUM_SIZE];
	const u8 *p = data;
	u64 i;

	for (i = 0; i < nr; i++) {
		btrfs_csum_data(csum_type, p + i * sectorsize, sectorsize, digest);
		memcpy(out + i * csum_size, digest, csum_size);
	}
}

/*
 * Append @nr @sums for sectors at @bytenr to the csum item that ends right
 * there, as many as fit; *@done: how many sectors were covered (0: none).
 */
static int append_to_previous(struct btrfs_trans_handle *trans, u64 bytenr,
			      const u8 *sums, u64 nr, u64 *done)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	struct btrfs_root *root = &fs_info->csum_root;
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, bytenr };
	struct btrfs_path path;
	u32 size, room, add;
	u64 max = max_sums_per_item(fs_info), covered;
	int ret;

	*done = 0;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret <= 0)
		goto out;	/* an item at @bytenr already (ret 0) is the caller's problem */
	ret = btrfs_prev_item(root, &path);
	if (ret) {
		ret = ret > 0 ? 0 : ret;
		goto out;
	}
	btrfs_path_key(&path, &key);
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	covered = (u64)size / fs_info->csum_size * fs_info->sectorsize;
	if (key.objectid != BTRFS_EXTENT_CSUM_OBJECTID || key.type != BTRFS_EXTENT_CSUM_KEY ||
	    key.offset + covered != bytenr || size / fs_info->csum_size >= max)
		goto out;
	room = (u32)(max - size / fs_info->csum_size);
	add = nr < room ? (u32)nr : room;
	btrfs_release_path(&path);
	/* the item grows: make the room with a writing search */
	ret = btrfs_search_slot(trans, root, &key, &path, add * fs_info->csum_size, 1);
	if (ret > 0)
		ret = -EUCLEAN;
	if (ret)
		goto out;
	btrfs_extend_item(&path, add * fs_info->csum_size);
	btrfs_write_item_data(&path, size, sums, add * fs_info->csum_size);
	*done = add;
out:
	btrfs_release_path(&path);
	return ret;
}

int btrfs_csum_file_sums(struct btrfs_trans_handle *trans, u64 bytenr, const u8 *sums,
			 u64 nr)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u64 max = max_sums_per_item(fs_info), done;
	int ret;

	if (bytenr % fs_info->sectorsize)
		return -EINVAL;
	if (!fs_info->csum_root.node)
		return -ENOENT;
	ret = append_to_previous(trans, bytenr, sums, nr, &done);
	while (!ret && done < nr) {
		u64 n = nr - done < max ? nr - done : max;
		struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY,
					 bytenr + done * fs_info->sectorsize };

		ret = btrfs_insert_item(trans, &fs_info->csum_root, &key,
					sums + done * fs_info->csum_size,
					(u32)(n * fs_info->csum_size));
		done += n;
	}
	return ret;
}

int btrfs_csum_file_blocks(struct btrfs_trans_handle *trans, u64 bytenr,
			   const void *data, u64 len)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u64 nr = len / fs_info->sectorsize;
	u8 *sums;
	int ret;

	if (len % fs_info->sectorsize || bytenr % fs_info->sectorsize)
		return -EINVAL;
	if (!fs_info->csum_root.node)
		return -ENOENT;
	sums = malloc(nr ? nr * fs_info->csum_size : 1);
	if (!sums)
		return -ENOMEM;
	btrfs_csum_sectors(fs_info->csum_type, fs_info->csum_size, fs_info->sectorsize, data,
			   nr, sums);
	ret = btrfs_csum_file_sums(trans, bytenr, sums, nr);
	free(sums);
	return ret;
}

int btrfs_write_file_extent(struct btrfs_trans_handle *trans, struct btrfs_root *root,
			    u64 ino, u64 file_offset, const void *data, u64 len,
			    bool nodatasum, u64 *bytenr_ret)
{
	struct btrfs_fs_info *fs_info = trans->fs_info;
	u64 disk_len = (len + fs_info->sectorsize - 1) / fs_info->sectorsize *
		       fs_info->sectorsize;
	struct btrfs_file_extent_params p = { 0 };
	const u8 *buf = data;
	u8 *padded = NULL;
	u64 bytenr;
	int ret;

	if (!len)
		return -EINVAL;
	if (disk_len != len) {
		padded = calloc(1, disk_len);
		if (!padded)
			return -ENOMEM;
		memcpy(padded, data, len);
		buf = padded;
	}
	ret = btrfs_alloc_data_extent(trans, disk_len, root->root_key.objectid, ino,
				      file_offset, &bytenr);
	if (!ret)
		ret = btrfs_write_logical(fs_info, bytenr, buf, disk_len);
	if (!ret && !nodatasum)
		ret = btrfs_csum_file_blocks(trans, bytenr, buf, disk_len);
	if (!ret) {
		p.disk_bytenr = bytenr;
		p.disk_num_bytes = disk_len;
		p.num_bytes = disk_len;
		p.ram_bytes = disk_len;
		p.type = BTRFS_FILE_EXTENT_REG;
		ret = btrfs_insert_file_extent(trans, root, ino, file_offset, &p);
	}
	free(padded);
	if (!ret && bytenr_ret)
		*bytenr_ret = bytenr;
	return ret;
}
