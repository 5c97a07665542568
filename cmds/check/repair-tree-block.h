/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repairs of whole tree blocks and of single items the tree-checker
 * rejects (repair-tree-block.c).
 */
#ifndef GHEE_CHECK_REPAIR_TREE_BLOCK_H
#define GHEE_CHECK_REPAIR_TREE_BLOCK_H

#include "repair.h"

struct btrfs_fs_info;
struct extent_buffer;
struct tree_block_check;

/* one change the block fixer made to a block in memory */
struct repair_block_fix {
	u64 bytenr;
	bool has_values;
	u64 old_value;
	u64 new_value;
	char what[200];
};

/* why a block whose checksum fails was not taken as written */
struct repair_block_refusal {
	u64 bytenr;
	char why[320];
};

/*
 * The blocks the first check found invalid or unreadable (the only ones
 * the fixer touches), what it changed in them, why it refused the
 * unreadable ones it did not take, and the ones copied on write since.
 */
struct repair_block_fixes {
	u64 *allowed;
	size_t nr_allowed;
	size_t alloc_allowed;
	struct repair_block_fix *v;
	size_t nr;
	size_t alloc;
	u64 *cowed;
	size_t nr_cowed;
	size_t alloc_cowed;
	struct repair_block_refusal *refused;
	size_t nr_refused;
	size_t alloc_refused;
};

/* allow the fixer to mend @bytenr; 0 or -ENOMEM */
int repair_block_fixes_allow(struct repair_block_fixes *f, u64 bytenr);
void repair_block_fixes_release(struct repair_block_fixes *f);

/* the btrfs_block_fixer function; @data is a struct repair_block_fixes */
int repair_block_fixer(void *data, const struct btrfs_fs_info *fs_info,
		       struct extent_buffer *eb, const struct tree_block_check *check);

/*
 * The live subvolume trees other than @except (a block snapshots share is
 * repaired in each); *@ids is allocated, the caller frees it.
 */
int repair_other_subvol_trees(struct repair_ctx *r, u64 except, u64 **ids, size_t *nr);

/*
 * @eb (read with its header only) is sound inside: its layout, every item
 * passing the item checks, a node's pointers mapped and no newer than it
 */
bool repair_block_content_sound(const struct btrfs_fs_info *fs_info,
				const struct extent_buffer *eb);

int repair_tree_block(struct repair_ctx *r, const struct problem_ctx *p);
/* TREE_BLOCK_INVALID "first key mismatch" (repair-first-key.c) */
int repair_first_key(struct repair_ctx *r, const struct problem_ctx *p);
int repair_tree_block_csum(struct repair_ctx *r, const struct problem_ctx *p);
int repair_tree_item(struct repair_ctx *r, const struct problem_ctx *p);
int repair_unknown_key(struct repair_ctx *r, const struct problem_ctx *p);

#endif
