// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 6, the v1 free space cache.
 *
 * Each block group may have a cache file: a FREE_SPACE header item in the
 * root tree, keyed (FREE_SPACE_OBJECTID, 0, block group start), naming an
 * inode of the root tree (mode must be a regular file, 0600).  The file
 * holds pages of 4096 bytes: page 0 starts with one crc32c per page and
 * the generation, then free space entries (offset, bytes, type) that never
 * cross a page, then one page per bitmap (a bit per sector).
 *
 * The kernel ignores a cache whose generations or checksums do not match
 * or whose total disagrees with the block group (it rebuilds it), so only
 * a cache it would load is compared, range by range, with the free space
 * the extent tree implies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "phase-free-space.h"
#include "free-space-ext.h"
#include "shared.h"
#include "iter.h"
#include "crc32c.h"
#include "lib/ranges.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/volumes.h"
#include "array.h"

#define CACHE_PAGE		4096U
#define CACHE_MAX_SIZE		(64ULL << 20)
#define CACHE_MODE		0100600U

struct cache_header {
	u64 bg_start;
	u64 ino;
	u64 generation;
	u64 entries;
	u64 bitmaps;
};

static void cache_problem(struct check_ctx *ctx, u64 bg_start, const char *detail)
{
	check_problem(ctx, PR_FREE_SPACE_CACHE_INVALID, &(struct problem_ctx){
		.bytenr = bg_start, .detail = detail });
}

/* the inode item of the cache file; -ENOENT when absent */
static int read_cache_inode(struct check_ctx *ctx, u64 ino, struct btrfs_inode_item *out)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &ctx->fs_info->tree_root, &key, &path, 0, 0);
	if (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(*out))
		memcpy(out, btrfs_item_ptr_raw(path.nodes[0], path.slots[0]), sizeof(*out));
	else if (ret >= 0)
		ret = -ENOENT;
	btrfs_release_path(&path);
	return ret;
}

/* copy one file extent of the cache file into @buf; false if unusable */
static bool read_file_extent(struct check_ctx *ctx, const struct extent_buffer *leaf,
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
	return !btrfs_read_logical(ctx->fs_info, disk + btrfs_file_extent_offset(fi),
				   buf + file_off, len, 0);
}

/* the whole cache file, NULL when it cannot be read */
static u8 *read_cache_file(struct check_ctx *ctx, u64 ino, u64 size)
{
	struct btrfs_root *root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_path path;
	bool ok = true;
	u8 *buf;
	int ret;

	buf = calloc(1, size);
	if (!buf)
		return NULL;
	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0 && ok) {
		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		ok = read_file_extent(ctx, path.nodes[0], path.slots[0], key.offset, buf, size);
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	if (!ok) {
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
	const u8 *p = r->buf + (u64)page * CACHE_PAGE;

	return get_unaligned_le32(r->buf + page * sizeof(u32)) ==
	       crc32c_value(p + skip, CACHE_PAGE - skip);
}

/* like the kernel, verify a page's checksum when it is first used */
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
	if (!use_page(r, r->page) || CACHE_PAGE - r->pos < sizeof(**e))
		return false;
	*e = (const void *)(r->buf + (u64)r->page * CACHE_PAGE + r->pos);
	r->pos += sizeof(**e);
	if (CACHE_PAGE - r->pos < sizeof(**e)) {
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
	p = r->buf + (u64)r->page * CACHE_PAGE;
	r->page++;
	return p;
}

static void add_bitmap_runs(struct range_list *l, const u8 *bm, u64 start, u32 unit)
{
	u32 bit = 0, first;

	while (bit < CACHE_PAGE * 8) {
		if (!(bm[bit / 8] & (1U << (bit % 8)))) {
			bit++;
			continue;
		}
		first = bit;
		while (bit < CACHE_PAGE * 8 && (bm[bit / 8] & (1U << (bit % 8))))
			bit++;
		range_list_add(l, start + (u64)first * unit, (u64)(bit - first) * unit);
	}
}

/*
 * Decode a cache file the way the kernel loads it.  Returns 0 with the
 * free ranges in @l, 1 when the kernel would ignore the cache (@why says
 * why), <0 on no memory.
 */
static int decode_cache(struct check_ctx *ctx, const struct cache_header *h,
			const u8 *buf, u64 size, struct range_list *l,
			char *why, size_t why_len)
{
	struct cache_reader r = { .buf = buf, .size = size, .mapped = true };
	const struct btrfs_free_space_entry *e;
	u64 i, *bitmaps = NULL, nr_bitmaps = 0;
	int ret = 0;

	r.num_pages = size / CACHE_PAGE;
	if (r.num_pages * sizeof(u32) + sizeof(u64) > CACHE_PAGE) {
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
		add_bitmap_runs(l, bm, bitmaps[i], ctx->fs_info->sectorsize);
	}
	free(bitmaps);
	if (!ret && l->oom)
		ret = -ENOMEM;
	return ret;
}

static const struct check_block_group *find_block_group(const struct check_shared *shared,
							 u64 start)
{
	size_t lo = 0, hi = shared->nr_block_groups;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (shared->block_groups[mid].start == start)
			return &shared->block_groups[mid];
		if (shared->block_groups[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* the cache's ranges against the extent tree's free runs */
static void compare_cache(struct check_ctx *ctx, struct free_space_ext *ext,
			  const struct check_block_group *bg, struct range_list *l)
{
	struct free_run_cmp cmp = { .store = "free space cache" };
	bool have_a = true, have_b, adv_a = true, adv_b = true;
	u64 as = 0, ae = 0, bs = 0, be = 0, super = 0;
	size_t k = 0;
	int i;

	free_space_ext_begin(ext, bg, true);
	for (i = 0; i < ext->nr_excl; i++)
		super += ext->excl[i][1] - ext->excl[i][0];
	/* entries summed as the kernel sums them: overlaps count twice */
	if (bg->used > bg->length || l->added != bg->length - bg->used - super)
		return;		/* the kernel would discard it and rebuild */
	range_list_normalize(l);
	if (l->overlap)
		cache_problem(ctx, bg->start, "free space entries overlap");
	have_b = true;
	while (have_a || have_b) {
		if (adv_a)
			have_a = free_space_ext_next(ext, &as, &ae);
		if (adv_b) {
			have_b = k < l->nr;
			if (have_b) {
				bs = l->r[k].start;
				be = l->r[k].end;
				k++;
			}
		}
		free_run_cmp_step(&cmp, have_a, as, ae, have_b, bs, be, &adv_a, &adv_b);
	}
	if (cmp.differs)
		check_problem(ctx, PR_FREE_SPACE_MISMATCH, &(struct problem_ctx){
			.bytenr = bg->start, .detail = cmp.detail });
}

static int check_one_cache(struct check_ctx *ctx, struct free_space_ext *ext,
			   const struct cache_header *h, bool compare)
{
	const struct check_block_group *bg = find_block_group(ctx->shared, h->bg_start);
	struct btrfs_inode_item inode;
	struct range_list l;
	char why[200];
	u64 size;
	u8 *buf;
	int ret;

	if (read_cache_inode(ctx, h->ino, &inode)) {
		snprintf(why, sizeof(why), "free space cache inode %llu is missing",
			 (unsigned long long)h->ino);
		cache_problem(ctx, h->bg_start, why);
		return 0;
	}
	if (btrfs_inode_mode(&inode) != CACHE_MODE) {
		snprintf(why, sizeof(why), "free space cache inode %llu has invalid mode: has 0%o expect 0%o",
			 (unsigned long long)h->ino, btrfs_inode_mode(&inode), CACHE_MODE);
		cache_problem(ctx, h->bg_start, why);
		return 0;
	}
	if (!bg) {
		cache_problem(ctx, h->bg_start, "no block group starts there");
		return 0;
	}
	size = btrfs_inode_size(&inode);
	if (!compare || !h->entries || btrfs_inode_generation(&inode) != h->generation ||
	    !size || size % CACHE_PAGE || size > CACHE_MAX_SIZE)
		return 0;	/* not one the kernel would load */
	buf = read_cache_file(ctx, h->ino, size);
	if (!buf)
		return 0;
	range_list_init(&l);
	ret = decode_cache(ctx, h, buf, size, &l, why, sizeof(why));
	if (ret == 0)
		compare_cache(ctx, ext, bg, &l);
	ret = ret < 0 ? ret : 0;
	range_list_release(&l);
	free(buf);
	return ret;
}

static int collect_headers(struct check_ctx *ctx, struct cache_header **out, size_t *nr)
{
	struct btrfs_root *root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { BTRFS_FREE_SPACE_OBJECTID, 0, 0 };
	struct cache_header *h = NULL;
	struct btrfs_path path;
	size_t alloc = 0;
	int ret;

	*nr = 0;
	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		const struct btrfs_free_space_header *fh;

		btrfs_path_key(&path, &key);
		if (key.objectid != BTRFS_FREE_SPACE_OBJECTID)
			break;
		if (btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(*fh)) {
			if (ARRAY_RESERVE(h, alloc, *nr + 1, 32)) {
				ret = -ENOMEM;
				break;
			}
			fh = btrfs_item_ptr(path.nodes[0], path.slots[0],
					    struct btrfs_free_space_header);
			h[*nr].bg_start = key.offset;
			h[*nr].ino = btrfs_disk_key_objectid(&fh->location);
			h[*nr].generation = btrfs_free_space_generation(fh);
			h[*nr].entries = btrfs_free_space_entries(fh);
			h[*nr].bitmaps = btrfs_free_space_bitmaps(fh);
			(*nr)++;
		}
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	*out = h;
	return ret < 0 && ret != -EIO ? ret : 0;
}

int check_free_space_cache_v1(struct check_ctx *ctx, bool compare_contents)
{
	struct free_space_ext ext;
	struct cache_header *h;
	size_t nr, i;
	int ret;

	if (!ctx->fs_info->tree_root.node)
		return 0;
	ret = collect_headers(ctx, &h, &nr);
	if (ret || !nr) {
		free(h);
		return ret;
	}
	free_space_ext_init(&ext, ctx->fs_info);
	for (i = 0; i < nr && !ret; i++)
		ret = check_one_cache(ctx, &ext, &h[i], compare_contents);
	free_space_ext_release(&ext);
	free(h);
	return ret;
}
