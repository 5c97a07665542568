// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 7: file extents of the inode being streamed.
 *
 * EXTENT_DATA items come in file offset order after the inode's other
 * items, so one running end offset is enough:
 *  - extents do not overlap;
 *  - an inline extent comes first (phase 3 checked it sits at offset 0);
 *    other extents may follow it from the end of its sector on, as the
 *    kernel's tree checker allows: the kernel writes that when a range is
 *    cloned or preallocated behind a small file's inline data;
 *  - a regular or prealloc extent with data reads inside its disk extent:
 *    offset + num_bytes <= ram_bytes and disk_num_bytes when uncompressed
 *    (the two are equal then); prealloc extents have disk space;
 *  - no extent is newer than the superblock's next transaction;
 *  - without the NO_HOLES feature, every byte below i_size is covered by
 *    an extent (holes are explicit extents with disk_bytenr 0);
 *  - nbytes is what the extents account: num_bytes of each regular or
 *    prealloc extent with disk space, ram_bytes of an inline extent;
 *  - each regular extent with disk space of an inode with data checksums
 *    is handed to phase 8, which checks the csum tree covers it.
 * An inode with nlink 0 and an orphan item is being deleted: its extents
 * may be half gone, so sizes and holes are not judged.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include "fs-trees.h"
#include "kernel-shared/accessors.h"

static void report_extent(struct fs_tree *t, const struct btrfs_key *key,
			  const char *detail)
{
	fs_problem(t, PR_FILE_EXTENT_INVALID, &(struct problem_ctx){
		.root = t->root_id, .inode = t->ino.ino, .key = *key,
		.detail = detail });
}

static void record_csum_need(struct fs_tree *t, const struct btrfs_file_extent_item *fi)
{
	u64 start, len;

	if (t->light || (t->ino.flags & BTRFS_INODE_NODATASUM))
		return;
	if (btrfs_file_extent_compression(fi)) {
		start = btrfs_file_extent_disk_bytenr(fi);
		len = btrfs_file_extent_disk_num_bytes(fi);
	} else {
		start = btrfs_file_extent_disk_bytenr(fi) + btrfs_file_extent_offset(fi);
		len = btrfs_file_extent_num_bytes(fi);
	}
	if (check_need_csums(t->ctx->shared, start, len, t->root_id, t->ino.ino))
		t->error = -ENOMEM;
}

/* written by a transaction the superblock has not reached */
static void check_generation(struct fs_tree *t, const struct btrfs_key *key,
			     const struct btrfs_file_extent_item *fi)
{
	u64 gen = btrfs_file_extent_generation(fi);
	char detail[96];

	if (gen <= t->super_gen + 1)
		return;
	snprintf(detail, sizeof(detail), "generation %" PRIu64 ", expect at most %" PRIu64,
		 gen, t->super_gen + 1);
	report_extent(t, key, detail);
}

/* a regular or prealloc extent: how many file bytes it covers */
static u64 check_regular(struct fs_tree *t, const struct btrfs_key *key,
			 const struct btrfs_file_extent_item *fi)
{
	u8 type = btrfs_file_extent_type(fi);
	u64 disk_bytenr = btrfs_file_extent_disk_bytenr(fi);
	u64 num_bytes = btrfs_file_extent_num_bytes(fi);
	u64 offset = btrfs_file_extent_offset(fi);
	u64 ram_bytes = btrfs_file_extent_ram_bytes(fi);
	char detail[160];

	if (!num_bytes) {
		report_extent(t, key, "num_bytes is 0");
		return 0;
	}
	if (!disk_bytenr) {
		if (type == BTRFS_FILE_EXTENT_PREALLOC)
			report_extent(t, key, "prealloc extent without disk space (disk_bytenr 0)");
		return num_bytes;	/* a hole */
	}
	if (!btrfs_file_extent_compression(fi) &&
	    (offset + num_bytes < offset || offset + num_bytes > ram_bytes ||
	     offset + num_bytes > btrfs_file_extent_disk_num_bytes(fi))) {
		snprintf(detail, sizeof(detail),
			 "offset %" PRIu64 " + num_bytes %" PRIu64
			 " beyond the extent (ram_bytes %" PRIu64 ", disk_num_bytes %" PRIu64 ")",
			 offset, num_bytes, ram_bytes, btrfs_file_extent_disk_num_bytes(fi));
		report_extent(t, key, detail);
	}
	t->ino.found_nbytes += num_bytes;
	if (type == BTRFS_FILE_EXTENT_REG)
		record_csum_need(t, fi);
	return num_bytes;
}

static u64 round_up_sector(const struct fs_tree *t, u64 v)
{
	u64 r = v % t->sectorsize;

	return r ? v + (t->sectorsize - r) : v;
}

/* a gap between extents, below i_size, when holes must be explicit */
static void check_gap(struct fs_tree *t, u64 start, u64 end)
{
	u64 limit = round_up_sector(t, t->ino.size);

	if (t->no_holes || t->light || t->ino.orphan)
		return;
	if (end > limit)
		end = limit;
	if (start >= end)
		return;
	fs_problem(t, PR_FILE_EXTENT_HOLE, &(struct problem_ctx){
		.root = t->root_id, .inode = t->ino.ino, .bytenr = start,
		.len = end - start });
}

/* EXTENT_DATA: phase 3 checked the item's size, type and alignment */
void fs_file_extent(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		    const struct btrfs_key *key)
{
	const struct btrfs_file_extent_item *fi =
		btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	struct fs_inode *in = &t->ino;
	u64 len;

	if (!in->has_item)
		return;		/* reported as a missing inode item */
	check_generation(t, key, fi);
	if (in->nr_extents && btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE)
		report_extent(t, key, "inline extent after other extents");
	if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE) {
		in->found_nbytes += btrfs_file_extent_ram_bytes(fi);
		len = round_up_sector(t, btrfs_file_extent_ram_bytes(fi));
	} else {
		len = check_regular(t, key, fi);
	}
	if (in->nr_extents && key->offset < in->extent_end)
		fs_problem(t, PR_FILE_EXTENT_OVERLAP, &(struct problem_ctx){
			.root = t->root_id, .inode = in->ino, .bytenr = key->offset,
			.expected = in->extent_end });
	else if (key->offset > in->extent_end)
		check_gap(t, in->extent_end, key->offset);
	if (key->offset + len > in->extent_end)
		in->extent_end = key->offset + len;
	in->nr_extents++;
}

void fs_extents_finish(struct fs_tree *t)
{
	struct fs_inode *in = &t->ino;

	if (t->light || in->orphan || in->bad_mode || S_ISDIR(in->mode))
		return;
	if (in->nbytes != in->found_nbytes)
		fs_problem(t, PR_INODE_NBYTES, &(struct problem_ctx){
			.root = t->root_id, .inode = in->ino, .found = in->nbytes,
			.expected = in->found_nbytes });
	if (S_ISREG(in->mode) || S_ISLNK(in->mode))
		check_gap(t, in->extent_end, round_up_sector(t, in->size));
}
