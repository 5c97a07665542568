// SPDX-License-Identifier: GPL-2.0
/*
 * Repairs of the extent tree's items and back references.
 *
 * The extent tree holds no fact of its own: every extent item and back
 * reference follows from the pointers of the other trees (tree blocks
 * from node pointers and root items, data extents from file extent
 * items).  So once the pointers are right, the exact fix for any number
 * of wrong, missing or extra items is to recompute them from the trees:
 * the bounded extent tree rebuild of --init-extent-tree, run as the first
 * change of the extents pass.  The few findings that have a precise
 * single-item fix (a generation from the future, one tree block's missing
 * item, extra keyed data refs) keep it when nothing else in the pass
 * needs the rebuild.
 *
 * A pointer is never blessed: the rebuild refuses space that is not a
 * possible extent (unaligned, outside a block group of its kind, shared
 * with another extent), and a file extent pointing where no data can be
 * is fixed on the file side first, in a pass of its own:
 *  - when an extent of the same length has a data back reference naming
 *    this file extent (root, inode, file offset) that no file extent makes
 *    (an extent item no tree uses with that one reference, or one unused
 *    reference of a shared extent), the pointer lost its address: it is
 *    restored; two such candidates and neither is taken;
 *  - else the data was never readable there (no data block group holds
 *    it): the item becomes a hole of the same length, and the re-check's
 *    counters (nbytes, csums, refs) follow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "repair-inode.h"
#include "repair-rebuild.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"

enum extents_mode {
	MODE_UNDECIDED,
	MODE_PRECISE,		/* only single-item fixes in this pass */
	MODE_FILE_SIDE,		/* bad data pointers first; the rest after */
	MODE_REBUILD,		/* the extent tree from the trees */
	MODE_REFUSED,		/* the trees point where no extent can be */
};

static bool is_extent_ref_code(enum problem_code c)
{
	switch (c) {
	case PR_EXTENT_ITEM_UNUSED:
	case PR_EXTENT_BACKREF_MISSING:
	case PR_EXTENT_BACKREF_NO_ITEM:
	case PR_EXTENT_BACKREF_UNUSED:
	case PR_EXTENT_REF_MISMATCH:
	case PR_EXTENT_ITEM_MISSING:
	case PR_EXTENT_ITEM_INVALID:
	case PR_EXTENT_OVERLAP:
	case PR_EXTENT_OUTSIDE_BLOCK_GROUP:
		return true;
	default:
		return false;
	}
}

/* a tree block across a stripe: where it lies, not what the items say */
static bool is_stripe_crossing(const struct repair_item *it)
{
	return it->code == PR_EXTENT_ITEM_INVALID && it->pctx.detail &&
	       strstr(it->pctx.detail, "crosses a 64KiB stripe boundary");
}

/* the finding has a single-item action that applies (repair-items.c) */
static bool precise_fix(const struct btrfs_fs_info *fs, const struct repair_item *it)
{
	const char *d = it->pctx.detail;
	unsigned long long a, b, c, stored, found = 0;

	switch (it->code) {
	case PR_EXTENT_ITEM_INVALID:
		return d && !strncmp(d, "invalid generation", 18);
	case PR_EXTENT_ITEM_MISSING:
		return d && sscanf(d, "tree block ref root %llu", &a) == 1 &&
		       it->pctx.found == 1 && it->pctx.len == fs->nodesize;
	case PR_EXTENT_BACKREF_UNUSED:
		if (!d || strstr(d, " for length "))
			return false;
		if (sscanf(d, "data ref root %llu inode %llu offset %llu count %llu, the trees make it %llu",
			   &a, &b, &c, &stored, &found) != 5 &&
		    sscanf(d, "data ref root %llu inode %llu offset %llu count %llu, no tree makes it",
			   &a, &b, &c, &stored) != 4)
			return false;
		return found < stored;
	default:
		return false;
	}
}

/* is [bytenr, +len) sector aligned and inside one chunk holding data? */
static bool data_place_ok(const struct btrfs_fs_info *fs, u64 bytenr, u64 len)
{
	const struct map_lookup *m;

	if (!bytenr || !len || bytenr % fs->sectorsize || len % fs->sectorsize)
		return false;
	m = chunk_map_lookup(&fs->chunk_map, bytenr);
	return m && bytenr + len <= m->logical + m->length &&
	       (m->type & BTRFS_BLOCK_GROUP_DATA);
}

/*
 * One keyed data ref that the trees make once, pointing where no data can
 * be: the file extent is wrong, not the extent tree.  Reported as
 * EXTENT_ITEM_MISSING (no extent item there) or, when the address is that
 * of another extent, as a back reference that extent lacks.
 */
static bool bad_data_pointer(const struct btrfs_fs_info *fs, const struct repair_item *it,
			     u64 *root, u64 *ino, u64 *offset)
{
	const char *d = it->pctx.detail;
	unsigned long long r, i, o, len = it->pctx.len;
	int n = 0, m = 0;

	if (!d || (it->code != PR_EXTENT_ITEM_MISSING && it->code != PR_EXTENT_BACKREF_MISSING))
		return false;
	if (sscanf(d, "data ref root %llu inode %llu offset %llu%n", &r, &i, &o, &n) != 3)
		return false;
	d += n;
	if (it->code == PR_EXTENT_ITEM_MISSING) {
		if (*d || it->pctx.found != 1)
			return false;
	} else {
		if (sscanf(d, " for length %llu%n", &len, &m) == 1)
			d += m;
		if (strcmp(d, ", the trees make it 1 time(s)"))
			return false;
	}
	if (data_place_ok(fs, it->pctx.bytenr, len))
		return false;
	*root = r;
	*ino = i;
	*offset = o;
	return true;
}

/* the trees point at an extent outside its kind of block group */
static bool pointed_outside(const struct repair_list *l, const struct repair_item *it)
{
	size_t i;

	if (it->code != PR_EXTENT_OUTSIDE_BLOCK_GROUP)
		return false;
	for (i = 0; i < l->nr; i++) {
		if (l->v[i].code == PR_EXTENT_ITEM_UNUSED &&
		    l->v[i].pctx.bytenr == it->pctx.bytenr)
			return false;	/* no tree uses it: the item is what is wrong */
	}
	return true;
}

static enum extents_mode decide(struct repair_ctx *r)
{
	const struct repair_list *l = r->list;
	bool rebuild = false, refused = false;
	u64 a, b, c;
	size_t i;

	for (i = 0; l && i < l->nr; i++) {
		const struct repair_item *it = &l->v[i];

		if (it->phase != r->cur->phase || !is_extent_ref_code(it->code))
			continue;
		if (bad_data_pointer(r->fs_info, it, &a, &b, &c))
			return MODE_FILE_SIDE;
		if (is_stripe_crossing(it))
			continue;
		if (pointed_outside(l, it))
			refused = true;
		else if (!precise_fix(r->fs_info, it))
			rebuild = true;
	}
	if (refused)
		return MODE_REFUSED;	/* the single-item fixes still run */
	return rebuild ? MODE_REBUILD : MODE_PRECISE;
}

/* ---- the file side: a data pointer where no data can be ---- */

struct file_extent_at {
	struct btrfs_key key;
	u64 disk_num_bytes;
};

/* the one file extent of @ino in @root with @bytenr and ref offset @offset */
static int find_file_extent(struct btrfs_root *root, u64 ino, u64 offset, u64 bytenr,
			    struct file_extent_at *fe)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_path path;
	int ret, found = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		const struct btrfs_file_extent_item *fi;
		u8 type;

		btrfs_item_key_to_cpu(path.nodes[0], &key, path.slots[0]);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		fi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_file_extent_item);
		type = btrfs_file_extent_type(fi);
		if (btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(*fi) &&
		    (type == BTRFS_FILE_EXTENT_REG || type == BTRFS_FILE_EXTENT_PREALLOC) &&
		    btrfs_file_extent_disk_bytenr(fi) == bytenr &&
		    key.offset - btrfs_file_extent_offset(fi) == offset) {
			fe->key = key;
			fe->disk_num_bytes = btrfs_file_extent_disk_num_bytes(fi);
			found++;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	return found == 1 ? 0 : -ENOENT;
}

/*
 * An extent item no tree uses, of @len bytes, whose only reference is the
 * keyed data ref (root, ino, offset) with count 1: where the pointer was.
 */
static int orphan_owner_matches(struct btrfs_fs_info *fs, const struct repair_item *u,
				u64 root, u64 ino, u64 offset, u64 len)
{
	struct btrfs_key key = { u->pctx.bytenr, BTRFS_EXTENT_ITEM_KEY, u->pctx.len };
	const u32 want = sizeof(struct btrfs_extent_item) +
			 btrfs_extent_inline_ref_size(BTRFS_EXTENT_DATA_REF_KEY);
	const struct btrfs_extent_item *ei;
	const struct btrfs_extent_inline_ref *iref;
	const struct btrfs_extent_data_ref *dref;
	struct btrfs_path path;
	bool ok = false;
	int ret;

	if (u->code != PR_EXTENT_ITEM_UNUSED || u->pctx.len != len || u->pctx.found != 1 ||
	    !data_place_ok(fs, u->pctx.bytenr, u->pctx.len))
		return 0;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &fs->extent_root, &key, &path, 0, 0);
	if (ret == 0 && btrfs_item_size(path.nodes[0], path.slots[0]) == want) {
		ei = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_extent_item);
		iref = (const void *)(ei + 1);
		dref = (const void *)&iref->offset;
		ok = btrfs_extent_flags(ei) == BTRFS_EXTENT_FLAG_DATA &&
		     btrfs_extent_refs(ei) == 1 &&
		     btrfs_extent_inline_ref_type(iref) == BTRFS_EXTENT_DATA_REF_KEY &&
		     btrfs_extent_data_ref_root(dref) == root &&
		     btrfs_extent_data_ref_objectid(dref) == ino &&
		     btrfs_extent_data_ref_offset(dref) == offset &&
		     btrfs_extent_data_ref_count(dref) == 1;
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : ok;
}

/*
 * A data back reference (root, ino, offset) of an extent of @len bytes
 * that no file extent makes (EXTENT_BACKREF_UNUSED): the extent is in use
 * by other files, and this one lost its address.
 */
static bool unused_backref_matches(const struct btrfs_fs_info *fs, const struct repair_item *u,
				   u64 root, u64 ino, u64 offset, u64 len)
{
	unsigned long long r, i, o, stored, found = 0;

	if (u->code != PR_EXTENT_BACKREF_UNUSED || !u->pctx.detail || u->pctx.len != len ||
	    strstr(u->pctx.detail, " for length ") ||
	    !data_place_ok(fs, u->pctx.bytenr, u->pctx.len))
		return false;
	if (sscanf(u->pctx.detail, "data ref root %llu inode %llu offset %llu count %llu, the trees make it %llu",
		   &r, &i, &o, &stored, &found) != 5 &&
	    sscanf(u->pctx.detail, "data ref root %llu inode %llu offset %llu count %llu, no tree makes it",
		   &r, &i, &o, &stored) != 4)
		return false;
	return r == root && i == ino && o == offset && found + 1 == stored;
}

/* the unused extent item (or back reference) the pointer of @it is restored to, or NULL */
static const struct repair_item *restore_target(struct repair_ctx *r,
						const struct repair_item *it,
						const struct file_extent_at *fe,
						u64 root, u64 ino, u64 offset)
{
	const struct repair_list *l = r->list;
	const struct repair_item *hit = NULL;
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (l->v[i].phase != it->phase)
			continue;
		if (orphan_owner_matches(r->fs_info, &l->v[i], root, ino, offset,
					 fe->disk_num_bytes) != 1 &&
		    !unused_backref_matches(r->fs_info, &l->v[i], root, ino, offset,
					    fe->disk_num_bytes))
			continue;
		if (hit)
			return NULL;	/* two candidates: neither is certain */
		hit = &l->v[i];
	}
	return hit;
}

static int fix_data_pointer(struct repair_ctx *r, const struct repair_item *it,
			    u64 root_id, u64 ino, u64 offset)
{
	struct btrfs_root *root = repair_get_root(r, root_id);
	const struct repair_item *target;
	struct btrfs_file_extent_item *fi;
	struct file_extent_at fe;
	struct btrfs_path path;
	char ks[96];
	int ret;

	if (!root)
		return -ENOENT;
	ret = find_file_extent(root, ino, offset, it->pctx.bytenr, &fe);
	if (ret)
		return ret;
	target = restore_target(r, it, &fe, root_id, ino, offset);
	check_format_key(&fe.key, ks, sizeof(ks));
	if (target) {
		repair_note(r, REPAIR_OP_CHANGE, true, it->pctx.bytenr, target->pctx.bytenr,
			    "root %llu %s disk_bytenr (restored: the extent [%llu %llu] has an unused back reference to this file extent)",
			    (unsigned long long)root_id, ks,
			    (unsigned long long)target->pctx.bytenr,
			    (unsigned long long)target->pctx.len);
	} else {
		repair_note(r, REPAIR_OP_CHANGE, true, it->pctx.bytenr, 0,
			    "root %llu %s disk_bytenr (a hole: no data block group holds [%llu %llu])",
			    (unsigned long long)root_id, ks,
			    (unsigned long long)it->pctx.bytenr,
			    (unsigned long long)fe.disk_num_bytes);
	}
	ret = repair_search(r, root, &fe.key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : -ENOENT;
	}
	fi = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_file_extent_item);
	if (target) {
		btrfs_set_file_extent_disk_bytenr(fi, target->pctx.bytenr);
	} else {
		/* the same file range, reading as zeros */
		u64 num = btrfs_file_extent_num_bytes(fi);

		btrfs_set_file_extent_type(fi, BTRFS_FILE_EXTENT_REG);
		btrfs_set_file_extent_disk_bytenr(fi, 0);
		btrfs_set_file_extent_disk_num_bytes(fi, 0);
		btrfs_set_file_extent_offset(fi, 0);
		btrfs_set_file_extent_ram_bytes(fi, num);
		btrfs_set_file_extent_compression(fi, 0);
		btrfs_set_file_extent_encryption(fi, 0);
		btrfs_set_file_extent_other_encoding(fi, 0);
	}
	btrfs_mark_buffer_dirty(r->trans, path.nodes[0]);
	btrfs_release_path(&path);
	return 0;
}

/* FILE_SIDE mode: the pointers now; the unused item a pointer goes back to */
static int file_side(struct repair_ctx *r, const struct repair_item *it)
{
	const struct repair_list *l = r->list;
	u64 root, ino, offset;
	size_t i;

	if (bad_data_pointer(r->fs_info, it, &root, &ino, &offset))
		return fix_data_pointer(r, it, root, ino, offset);
	if (it->code != PR_EXTENT_ITEM_UNUSED && it->code != PR_EXTENT_BACKREF_UNUSED)
		return REPAIR_LATER;
	for (i = 0; i < l->nr; i++) {
		const struct repair_item *m = &l->v[i];
		struct btrfs_root *fs_root;
		struct file_extent_at fe;

		if (m->phase != it->phase || !bad_data_pointer(r->fs_info, m, &root, &ino, &offset))
			continue;
		fs_root = repair_get_root(r, root);
		/* runs before the pointer fixes (table order): the tree as found */
		if (!fs_root || find_file_extent(fs_root, ino, offset, m->pctx.bytenr, &fe))
			continue;
		if (restore_target(r, m, &fe, root, ino, offset) != it)
			continue;
		repair_note(r, REPAIR_OP_CHANGE, false, 0, 0,
			    "nothing: root %llu inode %llu points to it again (the restored disk_bytenr)",
			    (unsigned long long)root, (unsigned long long)ino);
		return 0;
	}
	return REPAIR_LATER;
}

/* ---- the rebuild ---- */

static int rebuild_once(struct repair_ctx *r)
{
	bool refused = false;
	int ret;

	if (r->extent_tree_rebuilt)
		return 0;
	ret = repair_rebuild_extent_tree(r, &refused);
	if (ret && refused) {
		/* refused before anything changed */
		r->extents_mode = MODE_REFUSED;
		return ret;
	}
	if (ret) {
		/* a half-built tree must never be committed */
		repair_fail_pass(r, ret);
		r->extents_mode = MODE_REFUSED;
		return ret;
	}
	r->extent_tree_rebuilt = true;
	return 0;
}

static int rebuild(struct repair_ctx *r, const struct problem_ctx *p)
{
	int ret = rebuild_once(r);

	if (ret)
		return ret;
	repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
		    "extent tree: items and back references of [%llu %llu] from the trees (with every other extent)",
		    (unsigned long long)p->bytenr, (unsigned long long)p->len);
	return 0;
}

static repair_fn precise_action(enum problem_code c)
{
	switch (c) {
	case PR_EXTENT_ITEM_INVALID:
		return repair_extent_item;
	case PR_EXTENT_ITEM_MISSING:
		return repair_extent_item_missing;
	case PR_EXTENT_BACKREF_UNUSED:
		return repair_backref_unused;
	default:
		return NULL;
	}
}

int repair_extent_refs(struct repair_ctx *r, const struct problem_ctx *p)
{
	const struct repair_item *it = r->cur;
	repair_fn fn;

	if (!it)
		return -EINVAL;
	if (r->extents_mode == MODE_UNDECIDED)
		r->extents_mode = decide(r);
	if (is_stripe_crossing(it))
		return -EOPNOTSUPP;	/* moving a tree block is not a repair here */
	switch (r->extents_mode) {
	case MODE_FILE_SIDE:
		return file_side(r, it);
	case MODE_REBUILD:
		if (pointed_outside(r->list, it))
			return -EOPNOTSUPP;
		return rebuild(r, p);
	case MODE_REFUSED:
		if (precise_fix(r->fs_info, it))
			break;
		if (pointed_outside(r->list, it) && r->out)
			fprintf(r->out, "    the trees point at [%llu %llu]: its data would have to move to a block group of its kind\n",
				(unsigned long long)p->bytenr, (unsigned long long)p->len);
		return -EOPNOTSUPP;
	default:
		break;
	}
	fn = precise_action(it->code);
	return fn ? fn(r, p) : -EOPNOTSUPP;
}

/*
 * BLOCK_GROUP_USED: a rebuild of this pass recomputes every group's used
 * (the items are written at the commit); else the single-item recount.
 */
int repair_block_group_used(struct repair_ctx *r, const struct problem_ctx *p)
{
	if (!r->cur)
		return -EINVAL;
	if (r->extents_mode == MODE_UNDECIDED)
		r->extents_mode = decide(r);
	if (r->extents_mode != MODE_REBUILD)
		return fix_block_group_used(r, p);
	if (!r->extent_tree_rebuilt)
		return -EAGAIN;		/* the rebuild did not run: nothing to cover */
	repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
		    "block group item (%llu BLOCK_GROUP_ITEM %llu) used, with the extent tree",
		    (unsigned long long)p->bytenr, (unsigned long long)p->len);
	return 0;
}

bool repair_extents_by_rebuild(enum problem_code code)
{
	switch (code) {
	case PR_BLOCK_GROUP_USED:
	case PR_SUPER_BYTES_USED:
	case PR_FREE_SPACE_MISMATCH:
	case PR_FREE_SPACE_INFO_INVALID:
		return true;
	default:
		return is_extent_ref_code(code);
	}
}

void repair_extents_rebuilt(struct repair_ctx *r)
{
	r->extents_mode = MODE_REBUILD;
	r->extent_tree_rebuilt = true;
}

/*
 * The fix of a finding of repair_extents_by_rebuild() when the rebuild
 * ran first: its own line naming the rebuild.  Besides the extent items,
 * the rebuild's commit writes every block group's used, the superblock's
 * bytes_used and, with a free space tree, every group's free space (a v1
 * cache is judged again after the commit).
 */
int repair_extents_rebuild_fix(struct repair_ctx *r, const struct problem_ctx *p)
{
	if (!r->cur || !r->extent_tree_rebuilt)
		return -EINVAL;
	switch (r->cur->code) {
	case PR_BLOCK_GROUP_USED:
		return repair_block_group_used(r, p);
	case PR_SUPER_BYTES_USED:
		repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
			    "superblock bytes_used, the sum of the block groups' used, with the extent tree");
		return 0;
	case PR_FREE_SPACE_MISMATCH:
	case PR_FREE_SPACE_INFO_INVALID:
		if (!btrfs_fs_compat_ro(r->fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
			return REPAIR_LATER;
		repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
			    "free space tree entries of block group %llu, with the extent tree",
			    (unsigned long long)p->bytenr);
		return 0;
	default:
		return repair_extent_refs(r, p);
	}
}

/*
 * Extent items that overlap leave the free space of their block groups
 * unknown: nothing may be allocated before the rebuild, so it runs first
 * (its walk still refuses pointers into space no extent can be: then
 * the whole repair stops before writing anything).
 */
bool repair_extents_rebuild_first(const struct repair_list *found)
{
	bool overlap = false;
	size_t i;

	for (i = 0; i < found->nr; i++) {
		const struct repair_item *it = &found->v[i];

		if (it->code == PR_EXTENT_OVERLAP)
			overlap = true;
	}
	return overlap;
}
