// SPDX-License-Identifier: GPL-2.0
/*
 * Repair actions for the fields of an inode item (phase 7): link count,
 * nbytes, directory size, flags, generation and transid.  The checker
 * computed the right value from the inode's other items (refs, dir
 * entries, file extents); the action reads the item again and writes it.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include "repair-inode.h"
#include "repair-lost-found.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/transaction.h"

/* the flag bits an inode may carry (as phase 7 judges them) */
#define REPAIR_INODE_KNOWN_FLAGS \
	(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW | BTRFS_INODE_READONLY | \
	 BTRFS_INODE_NOCOMPRESS | BTRFS_INODE_PREALLOC | BTRFS_INODE_SYNC | \
	 BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND | BTRFS_INODE_NODUMP | \
	 BTRFS_INODE_NOATIME | BTRFS_INODE_DIRSYNC | BTRFS_INODE_COMPRESS | \
	 BTRFS_INODE_ROOT_ITEM_INIT)
#define REPAIR_INODE_KNOWN_RO_FLAGS	BTRFS_INODE_RO_VERITY

enum inode_field { F_NLINK, F_NBYTES, F_SIZE, F_FLAGS, F_GENERATION, F_TRANSID, F_MODE };

static const char *const field_names[] = {
	[F_NLINK] = "nlink", [F_NBYTES] = "nbytes", [F_SIZE] = "size",
	[F_FLAGS] = "flags", [F_GENERATION] = "generation", [F_TRANSID] = "transid",
	[F_MODE] = "mode",
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
	case F_MODE:
		return btrfs_inode_mode(ii);
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
	case F_MODE:
		btrfs_set_inode_mode(ii, (u32)v);
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
		set_field(ii, fields[i], want);
	}
	if (changed)
		btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	/* nothing to change (any more): an earlier fix of the pass did it */
	return changed ? 0 : 1;
}

/* is there an item (@objectid, @type, any offset) in @root? */
static int has_items(struct btrfs_root *root, u64 objectid, u8 type)
{
	struct btrfs_key key = { objectid, type, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	if (ret == 0) {
		btrfs_path_key(&path, &key);
		ret = key.objectid == objectid && key.type == type;
	} else if (ret > 0) {
		ret = 0;
	}
	btrfs_release_path(&path);
	return ret;
}

struct name_count {
	u64 count;
	u64 *parent;
	u64 *index;
};

static int count_name(const struct btrfs_key *key, const struct btrfs_name_entry *e,
		      void *data)
{
	struct name_count *c = data;

	(void)key;
	if (!c->count && c->parent) {
		*c->parent = e->parent;
		*c->index = e->index;
	}
	c->count++;
	return 0;
}

/*
 * The names of inode @ino: the entries of its INODE_REF and INODE_EXTREF
 * items.  With @parent and @index: those of the first.
 */
int repair_count_names(struct btrfs_root *root, u64 ino, u64 *count, u64 *parent,
		       u64 *index)
{
	struct name_count c = { 0, parent, index };
	int ret = btrfs_for_each_name(root, ino, BTRFS_INODE_REF_KEY, BTRFS_INODE_EXTREF_KEY,
				      count_name, &c);

	*count = c.count;
	return ret;
}

/*
 * Recounted from the names the inode has (a directory: 1), not taken
 * from the finding, which another damage of the inode may have skewed.
 * An inode without any name is left alone: it needs a new link, not
 * nlink 0.
 */
int repair_inode_nlink(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_NLINK };
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct problem_ctx q = *p;
	int ret;

	if (!root)
		return -ENOENT;
	if (has_items(root, p->inode, BTRFS_DIR_INDEX_KEY) > 0 ||
	    has_items(root, p->inode, BTRFS_DIR_ITEM_KEY) > 0) {
		q.expected = 1;
	} else {
		ret = repair_count_names(root, p->inode, &q.expected, NULL, NULL);
		if (ret)
			return ret;
		if (!q.expected)
			return -ENOLINK;
	}
	return fix_fields(r, &q, f, 1, rule_expected);
}

static u32 type_to_fmt(u8 type)
{
	switch (type) {
	case BTRFS_FT_REG_FILE:
		return 0100000;
	case BTRFS_FT_DIR:
		return 0040000;
	case BTRFS_FT_CHRDEV:
		return 0020000;
	case BTRFS_FT_BLKDEV:
		return 0060000;
	case BTRFS_FT_FIFO:
		return 0010000;
	case BTRFS_FT_SOCK:
		return 0140000;
	case BTRFS_FT_SYMLINK:
		return 0120000;
	}
	return 0;
}

/*
 * The file type of inode @ino: what the dir index of its first name
 * says; without one, a directory if it has entries, a regular file if it
 * has file extents.  0 when nothing tells.
 */
u32 repair_inode_fmt(struct btrfs_root *root, u64 ino)
{
	u64 count, parent = 0, index = 0;
	struct btrfs_path path;
	u32 fmt = 0;

	if (!repair_count_names(root, ino, &count, &parent, &index) && count) {
		struct btrfs_key key = { parent, BTRFS_DIR_INDEX_KEY, index };

		btrfs_init_path(&path);
		if (btrfs_search_slot(NULL, root, &key, &path, 0, 0) == 0 &&
		    btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(struct btrfs_dir_item)) {
			const struct btrfs_dir_item *di =
				btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_dir_item);
			struct btrfs_key loc;

			btrfs_disk_key_to_cpu(&loc, &di->location);
			if (loc.objectid == ino && loc.type == BTRFS_INODE_ITEM_KEY)
				fmt = type_to_fmt(btrfs_dir_type(di));
		}
		btrfs_release_path(&path);
		if (fmt)
			return fmt;
	}
	if (has_items(root, ino, BTRFS_DIR_INDEX_KEY) > 0 ||
	    has_items(root, ino, BTRFS_DIR_ITEM_KEY) > 0)
		return 0040000;
	if (has_items(root, ino, BTRFS_EXTENT_DATA_KEY) > 0)
		return 0100000;
	return 0;
}

static u64 rule_mode(struct repair_ctx *r, const struct btrfs_inode_item *ii,
		     enum inode_field f, u64 expected)
{
	(void)r;
	(void)f;
	return (btrfs_inode_mode(ii) & 07777) | (u32)expected;
}

int repair_inode_mode(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_MODE };
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct problem_ctx q = *p;

	if (!root)
		return -ENOENT;
	q.expected = repair_inode_fmt(root, p->inode);
	if (!q.expected)
		return -ENODATA;	/* nothing says what the inode is */
	return fix_fields(r, &q, f, 1, rule_mode);
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
	ret = repair_count_dir_size(root, p->inode, &q.expected);
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
	u64 gen = r->trans->transid - 1;
	u64 v = get_field(ii, f);

	(void)expected;
	return v > gen + 1 ? gen : v;
}

int repair_inode_generation(struct repair_ctx *r, const struct problem_ctx *p)
{
	static const enum inode_field f[] = { F_GENERATION, F_TRANSID };

	return fix_fields(r, p, f, 2, rule_generation);
}

/* end of the file's data and the bytes its extents account */
static int file_extents_span(struct btrfs_root *root, u64 ino, u64 *size,
			     u64 *nbytes)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_path path;
	int ret;

	*size = *nbytes = 0;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		const struct btrfs_file_extent_item *fi;
		u32 isize;
		u64 end;

		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		fi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_file_extent_item);
		isize = btrfs_item_size(path.nodes[0], path.slots[0]);
		if (isize < BTRFS_FILE_EXTENT_INLINE_DATA_START)
			goto next;
		if (btrfs_file_extent_type(fi) == BTRFS_FILE_EXTENT_INLINE) {
			end = key.offset + btrfs_file_extent_ram_bytes(fi);
			*nbytes += btrfs_file_extent_ram_bytes(fi);
		} else {
			if (isize < sizeof(*fi))
				goto next;
			end = key.offset + btrfs_file_extent_num_bytes(fi);
			if (btrfs_file_extent_disk_bytenr(fi))
				*nbytes += btrfs_file_extent_num_bytes(fi);
		}
		if (end > *size)
			*size = end;
next:
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

/*
 * INODE_ITEM_MISSING with other items left: a new inode item from them.
 * The type comes from the dir index of its first name (else entries make
 * a directory, file extents a regular file); the link count from its
 * names; the size from its entries or file extents; permissions 0755 /
 * 0644, owner root, times now.  Counters the checker then still finds
 * wrong (nbytes of inline or compressed data) are fixed by the next pass.
 */
int repair_inode_item_missing(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_key key = { p->inode, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_inode_params ip = { 0 };
	struct btrfs_path path;
	u64 names;
	u32 fmt;
	int ret;

	if (!root)
		return -ENOENT;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : 1;	/* there already */
	fmt = repair_inode_fmt(root, p->inode);
	if (!fmt)
		return -ENODATA;
	ret = repair_count_names(root, p->inode, &names, NULL, NULL);
	if (ret)
		return ret;
	if (fmt == 0040000) {
		ip.nlink = 1;
		ret = repair_count_dir_size(root, p->inode, &ip.size);
	} else {
		ip.nlink = (u32)names;
		ret = file_extents_span(root, p->inode, &ip.size, &ip.nbytes);
	}
	if (ret)
		return ret;
	if (!ip.nlink)
		return -ENOLINK;	/* no name to reach it by */
	ip.mode = fmt | (fmt == 0040000 ? 0755 : 0644);
	ip.generation = ip.transid = r->trans->transid - 1;
	repair_note(r, REPAIR_OP_INSERT, false, 0, 0,
		    "root %llu (%llu INODE_ITEM 0) mode 0%o nlink %u size %llu nbytes %llu",
		    (unsigned long long)p->root, (unsigned long long)p->inode, ip.mode,
		    ip.nlink, (unsigned long long)ip.size, (unsigned long long)ip.nbytes);
	ip.atime.sec = ip.ctime.sec = ip.mtime.sec = ip.otime.sec = (u64)time(NULL);
	return btrfs_insert_inode(r->trans, root, p->inode, &ip);
}
