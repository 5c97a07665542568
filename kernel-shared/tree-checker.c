// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block verification.
 *
 * The layout checks (run on every block read) make a block safe to walk:
 * item headers and data inside the block, data packed back to back from
 * the end, keys strictly ascending, node pointers aligned.  The item
 * checks judge the contents of each item type; they are run by the
 * checker and never stop a block from being read, so that a damaged item
 * is reported rather than hiding its whole leaf.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tree-checker.h"
#include "disk-io.h"
#include "extent_io.h"
#include "accessors.h"
#include "inode.h"
#include "csum.h"

__attribute__((format(printf, 4, 5)))
static int tc_fail(const struct extent_buffer *eb, struct tree_check_error *err,
		   int slot, const char *fmt, ...)
{
	char detail[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	err->slot = slot;
	if (slot >= 0)
		snprintf(err->msg, sizeof(err->msg),
			 "corrupt %s: root=%llu block=%llu slot=%d, %s",
			 btrfs_eb_level(eb) ? "node" : "leaf",
			 (unsigned long long)btrfs_eb_owner(eb),
			 (unsigned long long)eb->start, slot, detail);
	else
		snprintf(err->msg, sizeof(err->msg),
			 "corrupt %s: root=%llu block=%llu, %s",
			 btrfs_eb_level(eb) ? "node" : "leaf",
			 (unsigned long long)btrfs_eb_owner(eb),
			 (unsigned long long)eb->start, detail);
	return -EUCLEAN;
}

int btrfs_check_leaf_layout(const struct btrfs_fs_info *fs_info,
			    const struct extent_buffer *eb,
			    struct tree_check_error *err)
{
	u32 data_size = btrfs_leaf_data_size(eb->len);
	u32 nritems = btrfs_eb_nritems(eb);
	struct btrfs_key prev = { 0, 0, 0 }, key;
	u32 expected_end = data_size;
	u32 i;

	(void)fs_info;
	if ((u64)nritems * sizeof(struct btrfs_item) > data_size)
		return tc_fail(eb, err, -1, "nritems %u too large for leaf size %u",
			       nritems, eb->len);
	for (i = 0; i < nritems; i++) {
		u32 off = btrfs_item_offset(eb, i);
		u32 size = btrfs_item_size(eb, i);

		btrfs_item_key_to_cpu(eb, &key, i);
		if (i && btrfs_comp_cpu_keys(&prev, &key) >= 0)
			return tc_fail(eb, err, i,
				       "bad key order, prev (%llu %u %llu) current (%llu %u %llu)",
				       (unsigned long long)prev.objectid, prev.type,
				       (unsigned long long)prev.offset,
				       (unsigned long long)key.objectid, key.type,
				       (unsigned long long)key.offset);
		if ((u64)off + size != expected_end)
			return tc_fail(eb, err, i, "unexpected item end, have %llu expect %u",
				       (unsigned long long)off + size, expected_end);
		if ((u64)off < (u64)(i + 1) * sizeof(struct btrfs_item))
			return tc_fail(eb, err, i,
				       "item data offset %u overlaps the item headers (end %llu)",
				       off, (unsigned long long)(i + 1) * sizeof(struct btrfs_item));
		expected_end = off;
		prev = key;
	}
	return 0;
}

int btrfs_check_node(const struct btrfs_fs_info *fs_info,
		     const struct extent_buffer *eb,
		     struct tree_check_error *err)
{
	u32 nritems = btrfs_eb_nritems(eb);
	struct btrfs_key prev = { 0, 0, 0 }, key;
	u32 i;

	if (nritems == 0 || nritems > btrfs_max_node_ptrs(eb->len))
		return tc_fail(eb, err, -1, "invalid number of pointers %u, expect [1, %u]",
			       nritems, btrfs_max_node_ptrs(eb->len));
	for (i = 0; i < nritems; i++) {
		u64 ptr = btrfs_node_blockptr(eb, i);

		btrfs_node_key_to_cpu(eb, &key, i);
		if (!ptr || ptr % fs_info->sectorsize)
			return tc_fail(eb, err, i, "invalid block pointer %llu, expect non-zero and aligned to %u",
				       (unsigned long long)ptr, fs_info->sectorsize);
		if (i && btrfs_comp_cpu_keys(&prev, &key) >= 0)
			return tc_fail(eb, err, i,
				       "bad key order, prev (%llu %u %llu) current (%llu %u %llu)",
				       (unsigned long long)prev.objectid, prev.type,
				       (unsigned long long)prev.offset,
				       (unsigned long long)key.objectid, key.type,
				       (unsigned long long)key.offset);
		prev = key;
	}
	return 0;
}

/* ---- item contents ---- */

static int check_size_at_least(const struct extent_buffer *eb, int slot,
			       struct tree_check_error *err, u32 min,
			       const char *what)
{
	u32 size = btrfs_item_size(eb, slot);

	if (size < min)
		return tc_fail(eb, err, slot, "invalid %s item size, have %u expect at least %u",
			       what, size, min);
	return 0;
}

static int check_size_exact(const struct extent_buffer *eb, int slot,
			    struct tree_check_error *err, u32 want,
			    const char *what)
{
	u32 size = btrfs_item_size(eb, slot);

	if (size != want)
		return tc_fail(eb, err, slot, "invalid %s item size, have %u expect %u",
			       what, size, want);
	return 0;
}

/* a run of dir items, each header + name + data inside the item */
static int check_dir_items(const struct extent_buffer *eb, int slot,
			   const struct btrfs_key *key, struct tree_check_error *err)
{
	u32 size = btrfs_item_size(eb, slot);
	struct btrfs_name_entry e = { 0 };
	int ret;

	while ((ret = btrfs_walk_name_entry(key->type, btrfs_item_ptr_raw(eb, slot), size,
					    &e)) > 0) {
		/* the encryption bit rides on top of the file type */
		u8 type = btrfs_dir_type(e.di) & ~BTRFS_FT_ENCRYPTED;

		if (type == BTRFS_FT_UNKNOWN || type >= BTRFS_FT_MAX)
			return tc_fail(eb, err, slot, "invalid dir item type, have %u expect (0, %u)",
				       type, BTRFS_FT_MAX);
		if ((key->type == BTRFS_XATTR_ITEM_KEY) != (type == BTRFS_FT_XATTR))
			return tc_fail(eb, err, slot, "invalid dir item type %u for key type %u, xattr items and only they have type %u",
				       type, key->type, BTRFS_FT_XATTR);
		if (key->type != BTRFS_XATTR_ITEM_KEY && e.name_len > BTRFS_NAME_LEN)
			return tc_fail(eb, err, slot, "dir item name len too long, have %u max %u",
				       e.name_len, BTRFS_NAME_LEN);
		if (key->type != BTRFS_XATTR_ITEM_KEY && e.data_len)
			return tc_fail(eb, err, slot, "dir item with data, data_len %u", e.data_len);
		if (e.name_avail < e.name_len || e.data_avail < e.data_len)
			return tc_fail(eb, err, slot, "dir item name/data overflow, have %llu remaining %u",
				       (unsigned long long)sizeof(*e.di) + e.name_len + e.data_len,
				       size - e.off);
		if (key->type == BTRFS_DIR_INDEX_KEY && e.len != size)
			return tc_fail(eb, err, slot, "dir index item holds more than one entry");
	}
	if (ret < 0)
		return tc_fail(eb, err, slot, "dir item header truncated at offset %u of %u",
			       e.off + e.len, size);
	return 0;
}

/* inode refs or extrefs (@type), each header + name inside the item */
static int check_inode_refs(const struct extent_buffer *eb, int slot, u8 type,
			    struct tree_check_error *err)
{
	const char *what = type == BTRFS_INODE_REF_KEY ? "inode ref" : "inode extref";
	u32 size = btrfs_item_size(eb, slot);
	struct btrfs_name_entry e = { 0 };
	int ret;

	while ((ret = btrfs_walk_name_entry(type, btrfs_item_ptr_raw(eb, slot), size, &e)) > 0) {
		if (e.name_avail < e.name_len)
			return tc_fail(eb, err, slot, "%s name overflows the item", what);
	}
	if (ret < 0)
		return tc_fail(eb, err, slot, "%s truncated at offset %u of %u", what,
			       e.off + e.len, size);
	return 0;
}

static int check_file_extent(const struct btrfs_fs_info *fs_info,
			     const struct extent_buffer *eb, int slot,
			     const struct btrfs_key *key,
			     struct tree_check_error *err)
{
	const struct btrfs_file_extent_item *fi;
	u32 size = btrfs_item_size(eb, slot);
	u8 type;

	if (key->offset % fs_info->sectorsize)
		return tc_fail(eb, err, slot, "unaligned file_offset for file extent, have %llu should be aligned to %u",
			       (unsigned long long)key->offset, fs_info->sectorsize);
	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return tc_fail(eb, err, slot, "invalid file extent item size, have %u expect at least %zu",
			       size, BTRFS_FILE_EXTENT_INLINE_DATA_START);
	fi = btrfs_item_ptr(eb, slot, struct btrfs_file_extent_item);
	type = btrfs_file_extent_type(fi);
	if (type > BTRFS_FILE_EXTENT_PREALLOC)
		return tc_fail(eb, err, slot, "invalid type for file extent, have %u expect range [0, %u]",
			       type, BTRFS_FILE_EXTENT_PREALLOC);
	if (btrfs_file_extent_compression(fi) > BTRFS_COMPRESS_ZSTD)
		return tc_fail(eb, err, slot, "invalid compression for file extent, have %u expect range [0, %u]",
			       btrfs_file_extent_compression(fi), BTRFS_COMPRESS_ZSTD);
	if (btrfs_file_extent_encryption(fi))
		return tc_fail(eb, err, slot, "invalid encryption for file extent, have %u expect 0",
			       btrfs_file_extent_encryption(fi));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		if (key->offset)
			return tc_fail(eb, err, slot, "inline extent at file offset %llu, expect 0",
				       (unsigned long long)key->offset);
		if (btrfs_file_extent_compression(fi) == BTRFS_COMPRESS_NONE &&
		    size - BTRFS_FILE_EXTENT_INLINE_DATA_START !=
		    btrfs_file_extent_ram_bytes(fi))
			return tc_fail(eb, err, slot, "invalid ram_bytes for uncompressed inline extent, have %u expect %llu",
				       size - (u32)BTRFS_FILE_EXTENT_INLINE_DATA_START,
				       (unsigned long long)btrfs_file_extent_ram_bytes(fi));
		return 0;
	}
	if (size != sizeof(*fi))
		return tc_fail(eb, err, slot, "invalid item size for reg/prealloc file extent, have %u expect %zu",
			       size, sizeof(*fi));
	if (btrfs_file_extent_num_bytes(fi) % fs_info->sectorsize ||
	    btrfs_file_extent_disk_bytenr(fi) % fs_info->sectorsize ||
	    btrfs_file_extent_disk_num_bytes(fi) % fs_info->sectorsize ||
	    btrfs_file_extent_offset(fi) % fs_info->sectorsize)
		return tc_fail(eb, err, slot, "file extent fields not aligned to sectorsize %u",
			       fs_info->sectorsize);
	if (key->offset + btrfs_file_extent_num_bytes(fi) < key->offset)
		return tc_fail(eb, err, slot, "file extent end overflows, offset %llu num_bytes %llu",
			       (unsigned long long)key->offset,
			       (unsigned long long)btrfs_file_extent_num_bytes(fi));
	return 0;
}

static int check_extent_item(const struct btrfs_fs_info *fs_info,
			     const struct extent_buffer *eb, int slot,
			     const struct btrfs_key *key,
			     struct tree_check_error *err)
{
	u32 size = btrfs_item_size(eb, slot);
	const u8 *p = btrfs_item_ptr_raw(eb, slot);
	const struct btrfs_extent_item *ei = (const void *)p;
	u32 cur = sizeof(*ei);
	u64 flags;

	if (key->objectid % fs_info->sectorsize)
		return tc_fail(eb, err, slot, "invalid extent bytenr %llu, not aligned to %u",
			       (unsigned long long)key->objectid, fs_info->sectorsize);
	if (size == sizeof(struct btrfs_extent_item_v0))
		return 0;	/* legacy v0 item, refs only */
	if (size < sizeof(*ei))
		return tc_fail(eb, err, slot, "invalid extent item size, have %u expect at least %zu",
			       size, sizeof(*ei));
	flags = btrfs_extent_flags(ei);
	if (flags & ~(BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK |
		      BTRFS_BLOCK_FLAG_FULL_BACKREF))
		return tc_fail(eb, err, slot, "invalid extent flag, have 0x%llx",
			       (unsigned long long)flags);
	if (!!(flags & BTRFS_EXTENT_FLAG_DATA) == !!(flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		return tc_fail(eb, err, slot, "invalid extent flag, have 0x%llx expect exactly one of DATA or TREE_BLOCK",
			       (unsigned long long)flags);
	if (key->type == BTRFS_METADATA_ITEM_KEY &&
	    !(flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		return tc_fail(eb, err, slot, "invalid extent flag for a metadata item, have 0x%llx expect TREE_BLOCK",
			       (unsigned long long)flags);
	if (key->type == BTRFS_METADATA_ITEM_KEY && key->offset >= BTRFS_MAX_LEVEL)
		return tc_fail(eb, err, slot, "invalid tree level %llu, expect below %d",
			       (unsigned long long)key->offset, BTRFS_MAX_LEVEL);
	if (key->type == BTRFS_EXTENT_ITEM_KEY &&
	    (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) && key->offset != fs_info->nodesize)
		return tc_fail(eb, err, slot, "invalid tree block extent length %llu, expect nodesize %u",
			       (unsigned long long)key->offset, fs_info->nodesize);
	if ((flags & BTRFS_EXTENT_FLAG_DATA) && (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF))
		return tc_fail(eb, err, slot, "invalid extent flag, have 0x%llx: FULL_BACKREF on a data extent",
			       (unsigned long long)flags);
	if (key->type == BTRFS_EXTENT_ITEM_KEY && (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		cur += sizeof(struct btrfs_tree_block_info);
	if (cur > size)
		return tc_fail(eb, err, slot, "extent item too small for tree block info, have %u expect %u",
			       size, cur);
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
		u32 ref_size;

		if (size - cur < 1)
			break;
		ref_size = btrfs_extent_inline_ref_size(btrfs_extent_inline_ref_type(iref));
		if (!ref_size)
			return tc_fail(eb, err, slot, "unknown inline ref type %u at offset %u",
				       btrfs_extent_inline_ref_type(iref), cur);
		if (ref_size > size - cur)
			return tc_fail(eb, err, slot, "inline ref item overflows, ref end %u item size %u",
				       cur + ref_size, size);
		cur += ref_size;
	}
	return 0;
}

static int check_csum_item(const struct btrfs_fs_info *fs_info,
			   const struct extent_buffer *eb, int slot,
			   const struct btrfs_key *key, struct tree_check_error *err)
{
	u32 size = btrfs_item_size(eb, slot);

	if (key->objectid != BTRFS_EXTENT_CSUM_OBJECTID)
		return tc_fail(eb, err, slot, "invalid key objectid for csum item, have %llu expect %llu",
			       (unsigned long long)key->objectid,
			       (unsigned long long)BTRFS_EXTENT_CSUM_OBJECTID);
	if (key->offset % fs_info->sectorsize)
		return tc_fail(eb, err, slot, "unaligned key offset for csum item, have %llu should be aligned to %u",
			       (unsigned long long)key->offset, fs_info->sectorsize);
	if (!fs_info->csum_size || size % fs_info->csum_size)
		return tc_fail(eb, err, slot, "unaligned item size for csum item, have %u should be aligned to %u",
			       size, fs_info->csum_size);
	return 0;
}

int btrfs_check_item(const struct btrfs_fs_info *fs_info,
		     const struct extent_buffer *eb, int slot,
		     struct tree_check_error *err)
{
	struct btrfs_key key;

	btrfs_item_key_to_cpu(eb, &key, slot);
	switch (key.type) {
	case BTRFS_INODE_ITEM_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_inode_item), "inode");
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY:
		return check_inode_refs(eb, slot, key.type, err);
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:
		return check_dir_items(eb, slot, &key, err);
	case BTRFS_EXTENT_DATA_KEY:
		return check_file_extent(fs_info, eb, slot, &key, err);
	case BTRFS_EXTENT_CSUM_KEY:
		return check_csum_item(fs_info, eb, slot, &key, err);
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:
		return check_extent_item(fs_info, eb, slot, &key, err);
	case BTRFS_ROOT_ITEM_KEY:
		if (btrfs_item_size(eb, slot) != sizeof(struct btrfs_root_item) &&
		    btrfs_item_size(eb, slot) != BTRFS_ROOT_ITEM_V1_SIZE)
			return tc_fail(eb, err, slot, "invalid root item size, have %u expect %zu or %zu",
				       btrfs_item_size(eb, slot), sizeof(struct btrfs_root_item),
				       (size_t)BTRFS_ROOT_ITEM_V1_SIZE);
		return 0;
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:
		if (check_size_at_least(eb, slot, err, sizeof(struct btrfs_root_ref), "root ref"))
			return -EUCLEAN;
		if (sizeof(struct btrfs_root_ref) +
		    btrfs_root_ref_name_len(btrfs_item_ptr(eb, slot, struct btrfs_root_ref)) !=
		    btrfs_item_size(eb, slot))
			return tc_fail(eb, err, slot, "root ref name length does not match the item size %u",
				       btrfs_item_size(eb, slot));
		return 0;
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
		return check_size_exact(eb, slot, err, 0, "tree block ref");
	case BTRFS_EXTENT_DATA_REF_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_extent_data_ref),
					"extent data ref");
	case BTRFS_SHARED_DATA_REF_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_shared_data_ref),
					"shared data ref");
	case BTRFS_BLOCK_GROUP_ITEM_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_block_group_item),
					"block group");
	case BTRFS_DEV_EXTENT_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_dev_extent),
					"dev extent");
	case BTRFS_DEV_ITEM_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_dev_item), "dev");
	case BTRFS_CHUNK_ITEM_KEY: {
		char why[192];

		if (check_size_at_least(eb, slot, err, sizeof(struct btrfs_chunk), "chunk"))
			return -EUCLEAN;
		if (btrfs_check_chunk(key.offset, btrfs_item_ptr(eb, slot, struct btrfs_chunk),
				      btrfs_item_size(eb, slot), fs_info->sectorsize,
				      why, sizeof(why)))
			return tc_fail(eb, err, slot, "%s", why);
		return 0;
	}
	case BTRFS_FREE_SPACE_INFO_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_free_space_info),
					"free space info");
	case BTRFS_FREE_SPACE_EXTENT_KEY:
		return check_size_exact(eb, slot, err, 0, "free space extent");
	case BTRFS_QGROUP_INFO_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_qgroup_info_item),
					"qgroup info");
	case BTRFS_QGROUP_LIMIT_KEY:
		return check_size_exact(eb, slot, err, sizeof(struct btrfs_qgroup_limit_item),
					"qgroup limit");
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		if (!btrfs_item_size(eb, slot) || btrfs_item_size(eb, slot) % sizeof(u64))
			return tc_fail(eb, err, slot, "invalid uuid item size %u, expect a non-zero multiple of 8",
				       btrfs_item_size(eb, slot));
		return 0;
	}
	return 0;
}

int btrfs_check_leaf_items(const struct btrfs_fs_info *fs_info,
			   const struct extent_buffer *eb,
			   struct tree_check_error *err)
{
	u32 nritems = btrfs_eb_nritems(eb);
	u32 i;
	int ret;

	for (i = 0; i < nritems; i++) {
		ret = btrfs_check_item(fs_info, eb, i, err);
		if (ret)
			return ret;
	}
	return 0;
}
