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
#include "lib/ranges.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/volumes.h"
#include "kernel-shared/free-space-read.h"
#include "array.h"

static void cache_problem(struct check_ctx *ctx, u64 bg_start, const char *detail)
{
	check_problem(ctx, PR_FREE_SPACE_CACHE_INVALID, &(struct problem_ctx){
		.bytenr = bg_start, .detail = detail });
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
			   const struct btrfs_v1_cache_header *h, bool compare)
{
	const struct check_block_group *bg = find_block_group(ctx->shared, h->bg_start);
	struct btrfs_inode_item inode;
	struct range_list l;
	char why[200];
	u64 size;
	u8 *buf;
	int ret;

	if (btrfs_v1_cache_read_inode(ctx->fs_info, h->ino, &inode)) {
		snprintf(why, sizeof(why), "free space cache inode %llu is missing",
			 (unsigned long long)h->ino);
		cache_problem(ctx, h->bg_start, why);
		return 0;
	}
	if (btrfs_inode_mode(&inode) != BTRFS_V1_CACHE_MODE) {
		snprintf(why, sizeof(why), "free space cache inode %llu has invalid mode: has 0%o expect 0%o",
			 (unsigned long long)h->ino, btrfs_inode_mode(&inode), BTRFS_V1_CACHE_MODE);
		cache_problem(ctx, h->bg_start, why);
		return 0;
	}
	if (!bg) {
		cache_problem(ctx, h->bg_start, "no block group starts there");
		return 0;
	}
	size = btrfs_inode_size(&inode);
	if (!compare || !h->entries || btrfs_inode_generation(&inode) != h->generation ||
	    !size || size % BTRFS_V1_CACHE_PAGE || size > BTRFS_V1_CACHE_MAX_SIZE)
		return 0;	/* not one the kernel would load */
	buf = btrfs_v1_cache_read_file(ctx->fs_info, h->ino, size);
	if (!buf)
		return 0;
	range_list_init(&l);
	ret = btrfs_v1_cache_decode(h, buf, size, ctx->fs_info->sectorsize, &l,
				    why, sizeof(why));
	if (ret == 0)
		compare_cache(ctx, ext, bg, &l);
	ret = ret < 0 ? ret : 0;
	range_list_release(&l);
	free(buf);
	return ret;
}

static int collect_headers(struct check_ctx *ctx, struct btrfs_v1_cache_header **out, size_t *nr)
{
	struct btrfs_root *root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { BTRFS_FREE_SPACE_OBJECTID, 0, 0 };
	struct btrfs_v1_cache_header *h = NULL;
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
	struct btrfs_v1_cache_header *h;
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
