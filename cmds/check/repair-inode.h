/* SPDX-License-Identifier: GPL-2.0 */
/* Repair actions of phase 7's inode item findings (repair-inode.c). */
#ifndef GHEE_CHECK_REPAIR_INODE_H
#define GHEE_CHECK_REPAIR_INODE_H

#include "repair.h"

int repair_inode_nlink(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_nbytes(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dir_isize(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_item_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_mode(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_flags(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_generation(struct repair_ctx *r, const struct problem_ctx *p);

/*
 * The names of inode @ino (entries of its INODE_REF and INODE_EXTREF
 * items); with @parent and @index, those of the first.
 */
int repair_count_names(struct btrfs_root *root, u64 ino, u64 *count, u64 *parent,
		       u64 *index);

/*
 * The file type (S_IFxxx) of inode @ino from its other items: the dir
 * index of its first name, else entries make a directory, file extents a
 * regular file.  0 when nothing tells.
 */
u32 repair_inode_fmt(struct btrfs_root *root, u64 ino);

/* repair-dir.c */
int repair_dir_index_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_dir_item_missing(struct repair_ctx *r, const struct problem_ctx *p);
/* the size a directory's entries give it (each name counted per copy) */
int repair_count_dir_size(struct btrfs_root *root, u64 dir, u64 *size);

/* repair-items.c */
int repair_root_item(struct repair_ctx *r, const struct problem_ctx *p);
int repair_extent_item(struct repair_ctx *r, const struct problem_ctx *p);
int repair_extent_item_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_backref_unused(struct repair_ctx *r, const struct problem_ctx *p);
/* repair-extents.c: every extent tree finding (rebuild or single item) */
int repair_extent_refs(struct repair_ctx *r, const struct problem_ctx *p);
/* BLOCK_GROUP_USED: part of the extent tree rebuild of the pass if one runs */
int repair_block_group_used(struct repair_ctx *r, const struct problem_ctx *p);
/* repair-actions.c: used recounted from the extent items */
int fix_block_group_used(struct repair_ctx *r, const struct problem_ctx *p);
/* repair-actions.c: the superblock's total_bytes becomes the sum of the devices' */
int fix_super_total_bytes(struct repair_ctx *r, const struct problem_ctx *p);
int repair_file_extent_hole(struct repair_ctx *r, const struct problem_ctx *p);
int repair_super_field(struct repair_ctx *r, const struct problem_ctx *p);

/* repair-roots.c */
int repair_uuid_stale(struct repair_ctx *r, const struct problem_ctx *p);
int repair_uuid_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_no_orphan(struct repair_ctx *r, const struct problem_ctx *p);
int repair_orphan_item(struct repair_ctx *r, const struct problem_ctx *p);
int repair_inode_cache(struct repair_ctx *r, const struct problem_ctx *p);
int repair_qgroup_counts(struct repair_ctx *r, const struct problem_ctx *p);

/* repair-csum.c */
int repair_csum_no_extent(struct repair_ctx *r, const struct problem_ctx *p);
int repair_csum_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_csum_cut(struct repair_ctx *r, u64 item_start, u64 item_end, u64 start, u64 end);
/* repair-file-extents.c */
int repair_file_extent_invalid(struct repair_ctx *r, const struct problem_ctx *p);
/* repair-csum-items.c */
int repair_csum_overlap(struct repair_ctx *r, const struct problem_ctx *p);
int repair_csum_item_invalid(struct repair_ctx *r, const struct problem_ctx *p);

#endif
