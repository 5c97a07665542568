/* SPDX-License-Identifier: GPL-2.0 */
/* Repair actions of phase 7's name findings (repair-names.c). */
#ifndef GHEE_CHECK_REPAIR_NAMES_H
#define GHEE_CHECK_REPAIR_NAMES_H

#include "repair.h"

int repair_names_dir_index_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_dir_item_missing(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_dir_item_hash(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_xattr(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_dir_entry_dangling(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_dir_entry_duplicate(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_dir_entry_invalid(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_dir_entry_mismatch(struct repair_ctx *r, const struct problem_ctx *p);
int repair_names_inode_invalid(struct repair_ctx *r, const struct problem_ctx *p);

/* does inode @ino hold dir items or dir indexes?  1 yes, 0 no, <0 error */
int repair_names_has_dir_entries(struct btrfs_root *root, u64 ino);

/*
 * For the inode ref actions (INODE_REF_MISSING): 1 when the entry of the
 * finding is a damaged copy of another link that a name fix mends (or
 * mended already), so no inode ref must be added for it; 0 not, <0 error.
 */
int repair_names_entry_is_damaged_copy(struct repair_ctx *r, const struct problem_ctx *p);

/*
 * For INODE_REF_UNMATCHED: 1 when the dir item and the dir index @index
 * of @dir hold @name for @ino again, with a valid location (mended by a
 * fix before it); 0 not, <0 error.
 */
int repair_names_link_whole(struct btrfs_root *root, u64 dir, const u8 *name,
			    u32 name_len, u64 index, u64 ino);

#endif
