/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee check -s N / -b / -r BYTENR / --chunk-root BYTENR: open the
 * filesystem through another superblock copy or root, for the check and
 * for the repair, which makes the chosen state the current one.
 */
#ifndef GHEE_CHECK_REPAIR_OPEN_H
#define GHEE_CHECK_REPAIR_OPEN_H

#include <stdbool.h>
#include <stdio.h>
#include "check.h"
#include "kernel-shared/disk-io.h"

/* what a repair from another superblock copy or root will do */
struct repair_source {
	bool given;		/* -s 1|2, -b, -r or --chunk-root */
	char what[96];		/* "superblock copy 1", "backup root slot 0 ..." */
	u64 tree_gen;		/* generation of the chosen tree root */
	u64 chunk_gen;		/* generation of the chosen chunk root */
	u64 newest_gen;		/* newest generation of a valid superblock copy */
	bool differs;		/* the primary superblock does not lead to it */
	bool drops_log;		/* its log tree belongs to an abandoned generation */
	u64 protected_blocks;	/* blocks of abandoned generations kept */
};

/* another superblock copy or root is asked for */
bool check_source_given(const struct check_options *o);

/*
 * open_ctree() through the superblock copy and roots @o chooses, on top
 * of @args (paths, flags, reporter).  -b: the backup slots newest first,
 * the first that opens (its chunk root with it unless --chunk-root);
 * *@slot gets it (-1 without -b).  NULL with *@err, a reason in @msg.
 */
struct btrfs_fs_info *check_source_open(const struct check_options *o,
					struct open_ctree_args *args, int *slot,
					int *err, char *msg, size_t len);

/*
 * Before the first check: what the repair would abandon, and the
 * question (unless -y, --force or --dry-run); false when the user said
 * no or the source cannot be used.
 */
bool repair_source_prepare(const struct check_options *o, struct repair_source *src);

/*
 * On the writable open, before writes are enabled: refuse a chunk tree
 * newer than the tree root, drop a log of an abandoned generation, and
 * put the generation above every one on disk.
 */
int repair_source_apply(struct btrfs_fs_info *fs, const struct check_options *o,
			struct repair_source *src);

/*
 * After writes are enabled: the tree blocks of the generations the
 * primary reaches and the chosen state does not stay out of allocation
 * until the repair ends, so an interruption before the first commit
 * has written the primary leaves the primary's filesystem whole.
 */
int repair_source_protect(struct btrfs_fs_info *fs, const struct check_options *o,
			  struct repair_source *src);

/*
 * The first commit: every superblock copy written from the chosen state
 * (the primary included), nothing else changed.
 */
int repair_source_commit(struct btrfs_fs_info *fs, const struct repair_source *src,
			 FILE *out);

/* @o without the choice: the checks after the first commit read the primary */
void repair_source_clear(struct check_options *o);

#endif
