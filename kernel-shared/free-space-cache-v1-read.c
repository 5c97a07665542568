// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the v1 space cache (free-space-read.h), the way the kernel
 * loads it: a page's checksum is verified when the page is first used,
 * the generation in page 0 and the inode's must be the header's, and
 * every cache is stale when the superblock's cache_generation is not its
 * generation (the last commit did not write the caches).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "free-space-read.h"
#include "ctree.h"
#include "volumes.h"
#include "crc32c.h"

int btrfs_v1_cache_find_header(struct btrfs_fs_info *fs_info, u64 bg_start,
			       struct btrfs_v1_cache_header *h)
{
	struct btrfs_key key = { BTRFS_FREE_SPACE_OBJECTID, 0, bg_start };
	const struct btrfs_free_space_header *fh;
	struct btrfs_path path;
	int ret;

	if (!fs_info->tree_root.node)
		return -EIO;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs_info->tree_root, &key, &path, 0, 0);
	if (ret > 0 || (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*fh)))
		ret = -ENOENT;
	if (ret == 0) {
		fh = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_free_space_header);
		h->bg_start = bg_start;
		h->ino = btrfs_disk_key_objectid(&fh->location);
		h->generation = btrfs_free_space_generation(fh);
		h->entries = btrfs_free_space_entries(fh);
		h->bitmaps = btrfs_free_space_bitmaps(fh);
	}
	btrfs_release_path(&path);
	return ret;
}

int btrfs_v1_cache_read_inode(struct btrfs_fs_info *fs_info, u64 ino,
			      struct btrfs_inode_item *out)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs_info->tree_root, &key, &path, 0, 0);
	if (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(*out))
		memcpy(out, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), sizeof(*out));
	else if (ret >= 0)
		ret = -ENOENT;
	btrfs_release_path(&path);
	return ret;
}

/* copy one file extent of the cache file into @buf; false if unusable */
static bool read_file_extent(struct btrfs_fs_info *fs_info, const struct extent_buffer *leaf,
			     int slot, u64 file_off, u8 *buf, u64 size)
{
	const struct btrfs_file_extent_item *fi;
	u32 isize = btrfs_item_size(leaf, slot);
	u64 len, disk;

	if (isize < BTRFS_FILE_EXTENT_INLINE_DATA_START || file_off >= size)
		return false;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	if (btrfs_file_extent_compression(fi) || btrfs_file_extent_encryption(fi))
		return false;
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE) {
		len = isize - BTRFS_FILE_EXTENT_INLINE_DATA_START;
		if (len > size - file_off)
			len = size - file_off;
		memcpy(buf + file_off, (const u8 *)fi + BTRFS_FILE_EXTENT_INLINE_DATA_START, len);
		return true;
	}
	if (isize < sizeof(*fi))
		return false;
	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_REG)
		return true;	/* preallocated: reads as zeros */
	disk = btrfs_file_extent_disk_bytenr(fi);
	len = btrfs_file_extent_num_bytes(fi);
	if (!disk)
		return true;	/* a hole */
	if (len > size - file_off)
		len = size - file_off;
	return !btrfs_read_logical(fs_info, disk + btrfs_file_extent_offset(fi),
				   buf + file_off, len, 0);
}

u8 *btrfs_v1_cache_read_file(struct btrfs_fs_info *fs_info, u64 ino, u64 size)
{
	struct btrfs_root *root = &fs_info->tree_root;
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_path path;
	bool ok = true;
	u8 *buf;
	int ret;

	if (!size || size > BTRFS_V1_CACHE_MAX_SIZE)
		return NULL;
	buf = calloc(1, size);
	if (!buf)
		return NULL;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret >= 0)
		ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0 && ok) {
		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		ok = read_file_extent(fs_info, path.nodes[0], path.slots[0], key.offset, buf, size);
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (!ok || ret < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct cache_reader {
	const u8 *buf;
	u64 size;
	u32 num_pages;
	u32 page;	/* page the next entry is read from */
	u32 pos;	/* offset in that page */
	bool mapped;	/* that page has been started */
	u32 verified;	/* pages below this have a good checksum */
	bool bad_crc;
};

static bool page_crc_ok(const struct cache_reader *r, u32 page)
{
	u32 skip = page ? 0 : r->num_pages * sizeof(u32);
	const u8 *p = r->buf + (u64)page * BTRFS_V1_CACHE_PAGE;

	return get_unaligned_le32(r->buf + page * sizeof(u32)) ==
	       crc32c_value(p + skip, BTRFS_V1_CACHE_PAGE - skip);
}

static bool use_page(struct cache_reader *r, u32 page)
{
	if (page >= r->num_pages)
		return false;
	if (page < r->verified)
		return true;
	if (!page_crc_ok(r, page)) {
		r->bad_crc = true;
		return false;
	}
	r->verified = page + 1;
	return true;
}

static bool next_entry(struct cache_reader *r, const struct btrfs_free_space_entry **e)
{
	if (!r->mapped) {
		r->mapped = true;
		r->pos = 0;
	}
	if (!use_page(r, r->page) || BTRFS_V1_CACHE_PAGE - r->pos < sizeof(**e))
		return false;
	*e = (const void *)(r->buf + (u64)r->page * BTRFS_V1_CACHE_PAGE + r->pos);
	r->pos += sizeof(**e);
	if (BTRFS_V1_CACHE_PAGE - r->pos < sizeof(**e)) {
		r->page++;
		r->mapped = false;
	}
	return true;
}

static const u8 *next_bitmap(struct cache_reader *r)
{
	const u8 *p;

	if (r->mapped) {
		r->page++;
		r->mapped = false;
	}
	if (!use_page(r, r->page))
		return NULL;
	p = r->buf + (u64)r->page * BTRFS_V1_CACHE_PAGE;
	r->page++;
	return p;
}

static void add_bitmap_runs(struct range_list *l, const u8 *bm, u64 start, u32 unit)
{
	u32 bit = 0, first;

	while (bit < BTRFS_V1_CACHE_PAGE * 8) {
		if (!(bm[bit / 8] & (1U << (bit % 8)))) {
			bit++;
			continue;
		}
		first = bit;
		while (bit < BTRFS_V1_CACHE_PAGE * 8 && (bm[bit / 8] & (1U << (bit % 8))))
			bit++;
		range_list_add(l, start + (u64)first * unit, (u64)(bit - first) * unit);
	}
}

int btrfs_v1_cache_decode(const struct btrfs_v1_cache_header *h, const u8 *buf,
			  u64 size, u32 sectorsize, struct range_list *l,
			  char *why, size_t why_len)
{
	struct cache_reader r = { .buf = buf, .size = size, .mapped = true };
	const struct btrfs_free_space_entry *e;
	u64 i, *bitmaps = NULL, nr_bitmaps = 0;
	int ret = 0;

	if (size / BTRFS_V1_CACHE_PAGE > BTRFS_V1_CACHE_PAGE) {
		snprintf(why, why_len, "the file is too large (%llu bytes)",
			 (unsigned long long)size);
		return 1;
	}
	r.num_pages = size / BTRFS_V1_CACHE_PAGE;
	if (r.num_pages * sizeof(u32) + sizeof(u64) > BTRFS_V1_CACHE_PAGE) {
		snprintf(why, why_len, "too many pages (%u)", r.num_pages);
		return 1;
	}
	if (!r.num_pages || !use_page(&r, 0)) {
		snprintf(why, why_len, "checksum of page 0 does not match");
		return 1;
	}
	if (get_unaligned_le64(buf + r.num_pages * sizeof(u32)) != h->generation) {
		snprintf(why, why_len, "generation in the file differs from the header");
		return 1;
	}
	r.pos = r.num_pages * sizeof(u32) + sizeof(u64);
	if (h->entries > size / sizeof(*e)) {
		snprintf(why, why_len, "%llu entries cannot fit", (unsigned long long)h->entries);
		return 1;
	}
	bitmaps = calloc(h->entries + 1, sizeof(u64));
	if (!bitmaps)
		return -ENOMEM;
	for (i = 0; i < h->entries && !ret; i++) {
		if (!next_entry(&r, &e)) {
			snprintf(why, why_len, r.bad_crc ? "checksum of page %u does not match" :
				 "entries run past the end of the file", r.page);
			ret = 1;
			break;
		}
		if (e->type == BTRFS_FREE_SPACE_BITMAP)
			bitmaps[nr_bitmaps++] = get_unaligned_le64(&e->offset);
		else
			range_list_add(l, get_unaligned_le64(&e->offset),
				       get_unaligned_le64(&e->bytes));
	}
	for (i = 0; i < nr_bitmaps && !ret; i++) {
		const u8 *bm = next_bitmap(&r);

		if (!bm) {
			snprintf(why, why_len, r.bad_crc ? "checksum of page %u does not match" :
				 "bitmaps run past the end of the file", r.page);
			ret = 1;
			break;
		}
		add_bitmap_runs(l, bm, bitmaps[i], sectorsize);
	}
	free(bitmaps);
	if (!ret && l->oom)
		ret = -ENOMEM;
	return ret;
}

int btrfs_v1_cache_load(struct btrfs_fs_info *fs_info, u64 bg_start,
			struct btrfs_v1_cache_header *h, struct range_list *l,
			char *why, size_t why_len)
{
	u64 super_gen = btrfs_super_cache_generation(&fs_info->super_copy);
	struct btrfs_inode_item inode;
	u64 size;
	u8 *buf;
	int ret;

	ret = btrfs_v1_cache_find_header(fs_info, bg_start, h);
	if (ret) {
		snprintf(why, why_len, ret == -ENOENT ? "no v1 space cache" :
			 "the root tree cannot be read");
		return ret;
	}
	if (btrfs_v1_cache_read_inode(fs_info, h->ino, &inode)) {
		snprintf(why, why_len, "cache inode %llu is missing", (unsigned long long)h->ino);
		return 1;
	}
	if (btrfs_inode_mode(&inode) != BTRFS_V1_CACHE_MODE) {
		snprintf(why, why_len, "cache inode %llu has mode 0%o, expected 0%o",
			 (unsigned long long)h->ino, btrfs_inode_mode(&inode), BTRFS_V1_CACHE_MODE);
		return 1;
	}
	/* the kernel clears every cache when the last commit did not write them */
	if (super_gen != btrfs_super_generation(&fs_info->super_copy)) {
		snprintf(why, why_len, "stale: superblock cache_generation %llu, generation %llu",
			 (unsigned long long)super_gen,
			 (unsigned long long)btrfs_super_generation(&fs_info->super_copy));
		return 1;
	}
	if (btrfs_inode_generation(&inode) != h->generation) {
		snprintf(why, why_len, "stale: inode generation %llu, header generation %llu",
			 (unsigned long long)btrfs_inode_generation(&inode),
			 (unsigned long long)h->generation);
		return 1;
	}
	size = btrfs_inode_size(&inode);
	if (!size || size % BTRFS_V1_CACHE_PAGE || size > BTRFS_V1_CACHE_MAX_SIZE) {
		snprintf(why, why_len, "cache file size %llu is invalid", (unsigned long long)size);
		return 1;
	}
	if (!h->entries) {
		snprintf(why, why_len, "the cache holds no entries (the kernel does not load it)");
		return 1;
	}
	buf = btrfs_v1_cache_read_file(fs_info, h->ino, size);
	if (!buf) {
		snprintf(why, why_len, "cache file of inode %llu cannot be read",
			 (unsigned long long)h->ino);
		return 1;
	}
	ret = btrfs_v1_cache_decode(h, buf, size, fs_info->sectorsize, l, why, why_len);
	free(buf);
	return ret;
}
