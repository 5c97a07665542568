// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions for the fields of an inode item (phase 7): link count,
 * nbytes, directory size, flags, generation and transid.  The checker
 * computed the right value from the inode's other items (refs, dir
 * entries, file extents); the action reads the item again and writes it.
 */
#include <errno.h>
#include <stdio.h>
#include "repair-inode.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"

/* the flag bits an inode may carry (as phase 7 judges them) */
#define REPAIR_INODE_KNOWN_FLAGS \
	(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW | BTRFS_INODE_READONLY | \
	 BTRFS_INODE_NOCOMPRESS | BTRFS_INODE_PREALLOC | BTRFS_INODE_SYNC | \
	 BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND | BTRFS_INODE_NODUMP | \
	 BTRFS_INODE_NOATIME | BTRFS_INODE_DIRSYNC | BTRFS_INODE_COMPRESS | \
	 BTRFS_INODE_ROOT_ITEM_INIT)
#define REPAIR_INODE_KNOWN_RO_FLAGS	BTRFS_INODE_RO_VERITY

enum inode_field { F_NLINK, F_NBYTES, F_SIZE, F_FLAGS, F_GENERATION, F_TRANSID };

static const char *const field_names[] = {
	[F_NLINK] = "nlink", [F_NBYTES] = "nbytes", [F_SIZE] = "size",
	[F_FLAGS] = "flags", [F_GENERATION] = "generation", [F_TRANSID] = "transid",
};

static u64 get_field(const struct btrfs_inode_item *ii, enum inode_field f)
{
	switch (f) {
	case F_NLINK:
		return btrfs_inode_nlink(ii);
	case F_NBYTES:
		return btrfs_inode_nbytes(ii);
	case F_SIZE:
		return btrfs_inode_size(ii);
	case F_FLAGS:
		return btrfs_inode_flags(ii);
	case F_GENERATION:
		return btrfs_inode_generation(ii);
	case F_TRANSID:
		return btrfs_inode_transid(ii);
	}
	return 0;
}

static void set_field(struct btrfs_inode_item *ii, enum inode_field f, u64 v)
{
	switch (f) {
	case F_NLINK:
		btrfs_set_inode_nlink(ii, (u32)v);
		break;
	case F_NBYTES:
		btrfs_set_inode_nbytes(ii, v);
		break;
	case F_SIZE:
		btrfs_set_inode_size(ii, v);
		break;
	case F_FLAGS:
		btrfs_set_inode_flags(ii, v);
		break;
	case F_GENERATION:
		btrfs_set_inode_generation(ii, v);
		break;
	case F_TRANSID:
		btrfs_set_inode_transid(ii, v);
		break;
	}
}

/* the new value of @f given the item, or the same value if it is fine */
typedef u64 (*field_rule)(struct repair_ctx *r, const struct btrfs_inode_item *ii,
			  enum inode_field f, u64 expected);

static u64 rule_expected(struct repair_ctx *r, const struct btrfs_inode_item *ii,
			 enum inode_field f, u64 expected)
{
	(void)r;
	(void)ii;
	(void)f;
	return expected;
}

/*
 * Change the fields @fields[0..n) of inode @p->inode in root @p->root to
 * what @rule says; one note per field that changes.
 */
static int fix_fields(struct repair_ctx *r, const struct problem_ctx *p,
		      const enum inode_field *fields, int n, field_rule rule)
{
	struct btrfs_key key = { p->inode, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_inode_item *ii;
	struct btrfs_path path;
	int ret, i, changed = 0;

	if (!root)
		return -ENOENT;
	btrfs_init_path(&path);
	ret = repair_search(r, root, &key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*ii)) {
		btrfs_release_path(&path);
		return -EUCLEAN;
	}
	ii = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_inode_item);
	for (i = 0; i < n; i++) {
		u64 old = get_field(ii, fields[i]);
		u64 want = rule(r, ii, fields[i], p->expected);

		if (old == want)
			continue;
		changed++;
		repair_note(r, REPAIR_OP_CHANGE, true, old, want,
			    "root %llu (%llu INODE_ITEM 0) %s",
			    (unsigned long long)p->root, (unsigned long long)p->inode,
			    field_names[fields[i]]);
		if (r->trans)
			set_field(ii, fields[i], want);
	}
	if (r->trans && changed)
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	/* nothing to change (any more): an earlier fix of the pass did it */
	return changed ? 0 : 1;
}

int repair_inode_nlink(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_NLINK };

	return fix_fields(r, p, f, 1, rule_expected);
}

int repair_inode_nbytes(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_NBYTES };

	return fix_fields(r, p, f, 1, rule_expected);
}

/*
 * Counted again from the entries, not taken from the finding: an entry
 * rebuilt earlier in the same transaction counts too.
 */
int repair_dir_isize(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_SIZE };
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct problem_ctx q = *p;
	int ret;

	if (!root)
		return -ENOENT;
	ret = repair_count_dir_size(r, root, p->inode, &q.expected);
	if (ret)
		return ret;
	return fix_fields(r, &q, f, 1, rule_expected);
}

/* unknown bits dropped; no IMMUTABLE or APPEND on a symlink */
static u64 rule_flags(struct repair_ctx *r, const struct btrfs_inode_item *ii,
		      enum inode_field f, u64 expected)
{
	u64 flags = btrfs_inode_flags(ii);
	u64 low = flags & 0xffffffffULL, ro = flags >> 32;

	(void)r;
	(void)f;
	(void)expected;
	low &= REPAIR_INODE_KNOWN_FLAGS;
	ro &= REPAIR_INODE_KNOWN_RO_FLAGS;
	if ((btrfs_inode_mode(ii) & 0170000) == 0120000)
		low &= ~(u64)(BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND);
	return (ro << 32) | low;
}

int repair_inode_flags(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_FLAGS };

	return fix_fields(r, p, f, 1, rule_flags);
}

/*
 * A generation or transid from the future (beyond the next transaction)
 * becomes the last committed generation.
 */
static u64 rule_generation(struct repair_ctx *r, const struct btrfs_inode_item *ii,
			   enum inode_field f, u64 expected)
{
	u64 gen = btrfs_super_generation(&r->fs_info->super_copy);
	u64 v = get_field(ii, f);

	(void)expected;
	if (r->trans)
		gen = r->trans->transid - 1;
	return v > gen + 1 ? gen : v;
}

int repair_inode_generation(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_GENERATION, F_TRANSID };

	return fix_fields(r, p, f, 2, rule_generation);
}
