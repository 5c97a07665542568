// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 9: quota groups, then the log tree (log-tree.c).
 *
 * Quota numbers are recomputed from the extent tree as the kernel's qgroup
 * accounting defines them: an extent (data or tree block) counts for every
 * subvolume that reaches it through any path, and is exclusive to a
 * subvolume when no other one reaches it.  The subvolumes reaching an
 * extent come from its back references, resolved upwards:
 *  - a shared reference names the parent tree block: its subvolumes;
 *  - a keyed tree block reference names a root R: R, and the subvolumes
 *    of the block's parent in R's tree (found by searching R for the
 *    block's first key), which a snapshot may share with R;
 *  - a keyed data reference (R, inode, offset) names the file extent items
 *    of R's tree: R, and the subvolumes of every leaf holding one.
 * Resolved tree blocks are memoized (a bounded table of block -> interned
 * subvolume set), so each is looked up once; the walk up is depth-limited
 * against hostile loops.  A higher qgroup counts an extent one of its
 * members reaches, exclusively when all the extent's subvolumes are
 * members.  Counts are compared only when the status item says they are
 * consistent and no rescan is under way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "log-tree.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "array.h"

#define QG_MAX_ROOTS_PER_EXTENT	64
/* a data extent, then one tree block per level up to a root */
#define QG_MAX_DEPTH		(BTRFS_MAX_LEVEL + 2)
/*
 * Resolved tree blocks kept, and distinct subvolume sets among them (each
 * is 520 bytes); past either the table starts over (only slower): at most
 * ~24 MiB for blocks and ~34 MiB for sets.
 */
#define QG_MEMO_MAX		(1U << 20)
#define QG_SETS_MAX		(1U << 16)
/* subvolume roots kept open for the searches */
#define QG_MAX_OPEN_ROOTS	1024

struct root_set {
	u64 ids[QG_MAX_ROOTS_PER_EXTENT];
	int nr;
};

struct qgroup {
	u64 id;			/* level << 48 | subvolume id */
	u64 rfer, excl;		/* on disk */
	u64 calc_rfer, calc_excl;
	u64 *members;		/* subvolume ids below a higher-level qgroup */
	size_t nr_members;
	bool has_info;
};

struct memo_entry {
	u64 bytenr;
	u32 set;		/* index into qgroup_state.sets */
};

struct open_root {
	u64 id;
	struct btrfs_root root;
	bool ok;		/* root item found and its node read */
};

struct qgroup_state {
	struct qgroup *groups;
	size_t nr, alloc;
	u64 status_flags;
	bool have_status;
	/* resolved tree blocks: entries, and an open-addressing index of them */
	struct memo_entry *memo;
	size_t memo_nr, memo_alloc;
	u32 *memo_index;	/* slot -> entry + 1; 0 is empty */
	size_t memo_slots;	/* a power of two, at least twice memo_nr */
	/* distinct subvolume sets of memoized blocks, and their index */
	struct root_set *sets;
	size_t sets_nr, sets_alloc;
	u32 *sets_index;
	size_t sets_slots;
	/* subvolume roots opened for the searches, sorted by id */
	struct open_root *roots;
	size_t roots_nr, roots_alloc;
};

static bool is_subvol_root(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID ||
	       (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID);
}

/* ids kept sorted: equal sets compare equal byte for byte */
static void root_set_add(struct root_set *set, u64 id)
{
	int i;

	if (!is_subvol_root(id))
		return;
	for (i = 0; i < set->nr && set->ids[i] < id; i++)
		;
	if ((i < set->nr && set->ids[i] == id) || set->nr >= QG_MAX_ROOTS_PER_EXTENT)
		return;
	memmove(&set->ids[i + 1], &set->ids[i], (set->nr - i) * sizeof(set->ids[0]));
	set->ids[i] = id;
	set->nr++;
}

static void root_set_merge(struct root_set *dst, const struct root_set *src)
{
	int i;

	for (i = 0; i < src->nr; i++)
		root_set_add(dst, src->ids[i]);
}

static struct qgroup *find_qgroup(struct qgroup_state *st, u64 id)
{
	size_t i;

	for (i = 0; i < st->nr; i++) {
		if (st->groups[i].id == id)
			return &st->groups[i];
	}
	return NULL;
}

static struct qgroup *get_qgroup(struct qgroup_state *st, u64 id)
{
	struct qgroup *g = find_qgroup(st, id);

	if (g)
		return g;
	if (ARRAY_RESERVE(st->groups, st->alloc, st->nr + 1, 16))
		return NULL;
	g = &st->groups[st->nr++];
	memset(g, 0, sizeof(*g));
	g->id = id;
	return g;
}

static void qgroup_name(u64 id, char *buf, size_t len)
{
	snprintf(buf, len, "%llu/%llu", (unsigned long long)(id >> 48),
		 (unsigned long long)(id & ((1ULL << 48) - 1)));
}

static int add_member(struct qgroup *g, u64 subvol)
{
	u64 *p = realloc(g->members, (g->nr_members + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	g->members = p;
	g->members[g->nr_members++] = subvol;
	return 0;
}

static bool qgroup_has_member(const struct qgroup *g, u64 subvol)
{
	size_t i;

	for (i = 0; i < g->nr_members; i++) {
		if (g->members[i] == subvol)
			return true;
	}
	return false;
}

static int load_quota_tree(struct check_ctx *ctx, struct qgroup_state *st)
{
	struct btrfs_root *root = &ctx->fs_info->quota_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];
		u32 size = btrfs_item_size(leaf, slot);
		struct qgroup *g;

		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_QGROUP_STATUS_KEY &&
		    size >= offsetof(struct btrfs_qgroup_status_item, rescan)) {
			st->status_flags = btrfs_qgroup_status_flags(
				btrfs_item_ptr(leaf, slot, struct btrfs_qgroup_status_item));
			st->have_status = true;
		} else if (key.type == BTRFS_QGROUP_INFO_KEY &&
			   size >= sizeof(struct btrfs_qgroup_info_item)) {
			const struct btrfs_qgroup_info_item *qi =
				btrfs_item_ptr(leaf, slot, struct btrfs_qgroup_info_item);

			g = get_qgroup(st, key.offset);
			if (!g) {
				ret = -ENOMEM;
				break;
			}
			g->rfer = btrfs_qgroup_info_rfer(qi);
			g->excl = btrfs_qgroup_info_excl(qi);
			g->has_info = true;
		} else if (key.type == BTRFS_QGROUP_RELATION_KEY &&
			   key.objectid < key.offset) {
			/* child -> parent; the mirror item has them swapped */
			g = get_qgroup(st, key.offset);
			if (!g || add_member(g, key.objectid)) {
				ret = -ENOMEM;
				break;
			}
		}
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

/* members of higher qgroups are themselves qgroups: flatten to subvolumes */
static int flatten_members(struct qgroup_state *st)
{
	bool changed = true;
	int rounds = 0;
	size_t i, m;

	while (changed && rounds++ < QG_MAX_DEPTH) {
		changed = false;
		for (i = 0; i < st->nr; i++) {
			struct qgroup *g = &st->groups[i];

			for (m = 0; m < g->nr_members; m++) {
				struct qgroup *sub;
				size_t k;

				if (!(g->members[m] >> 48))
					continue;
				sub = find_qgroup(st, g->members[m]);
				for (k = 0; sub && k < sub->nr_members; k++) {
					if (qgroup_has_member(g, sub->members[k]))
						continue;
					if (add_member(g, sub->members[k]))
						return -ENOMEM;
					g = &st->groups[i];
					changed = true;
				}
			}
		}
	}
	return 0;
}

static u64 hash_u64(u64 v)
{
	return v * 0x9E3779B97F4A7C15ULL;
}

static u64 set_hash(const struct root_set *set)
{
	u64 h = (u64)set->nr;
	int i;

	for (i = 0; i < set->nr; i++)
		h = hash_u64(h ^ set->ids[i]);
	return h >> 20;
}

static bool set_equal(const struct root_set *a, const struct root_set *b)
{
	return a->nr == b->nr && !memcmp(a->ids, b->ids, a->nr * sizeof(a->ids[0]));
}

static void sets_index_insert(struct qgroup_state *st, size_t entry)
{
	size_t i = set_hash(&st->sets[entry]) & (st->sets_slots - 1);

	while (st->sets_index[i])
		i = (i + 1) & (st->sets_slots - 1);
	st->sets_index[i] = entry + 1;
}

/* the index of a set equal to @set, added if new; -1 without memory */
static long set_intern(struct qgroup_state *st, const struct root_set *set)
{
	size_t i, slots;
	u32 *index;

	if (st->sets_slots) {
		for (i = set_hash(set) & (st->sets_slots - 1); st->sets_index[i];
		     i = (i + 1) & (st->sets_slots - 1)) {
			if (set_equal(&st->sets[st->sets_index[i] - 1], set))
				return st->sets_index[i] - 1;
		}
	}
	if (ARRAY_RESERVE(st->sets, st->sets_alloc, st->sets_nr + 1, 16))
		return -1;
	if ((st->sets_nr + 1) * 2 > st->sets_slots) {
		slots = st->sets_slots ? st->sets_slots * 2 : 64;
		index = calloc(slots, sizeof(*index));
		if (!index)
			return -1;
		free(st->sets_index);
		st->sets_index = index;
		st->sets_slots = slots;
		for (i = 0; i < st->sets_nr; i++)
			sets_index_insert(st, i);
	}
	st->sets[st->sets_nr] = *set;
	sets_index_insert(st, st->sets_nr);
	return st->sets_nr++;
}

static size_t memo_slot(const struct qgroup_state *st, u64 bytenr)
{
	return (size_t)(hash_u64(bytenr >> 12) >> 20) & (st->memo_slots - 1);
}

static struct memo_entry *memo_find(struct qgroup_state *st, u64 bytenr)
{
	size_t i;

	if (!st->memo_slots)
		return NULL;
	for (i = memo_slot(st, bytenr); st->memo_index[i];
	     i = (i + 1) & (st->memo_slots - 1)) {
		struct memo_entry *e = &st->memo[st->memo_index[i] - 1];

		if (e->bytenr == bytenr)
			return e;
	}
	return NULL;
}

static void memo_index_insert(struct qgroup_state *st, size_t entry)
{
	size_t i = memo_slot(st, st->memo[entry].bytenr);

	while (st->memo_index[i])
		i = (i + 1) & (st->memo_slots - 1);
	st->memo_index[i] = entry + 1;
}

/* keep the index at most half full */
static bool memo_grow_index(struct qgroup_state *st)
{
	size_t slots = st->memo_slots ? st->memo_slots * 2 : 256;
	u32 *index = calloc(slots, sizeof(*index));
	size_t i;

	if (!index)
		return false;
	free(st->memo_index);
	st->memo_index = index;
	st->memo_slots = slots;
	for (i = 0; i < st->memo_nr; i++)
		memo_index_insert(st, i);
	return true;
}

/* forget every resolved block: the table is full */
static void memo_reset(struct qgroup_state *st)
{
	st->memo_nr = 0;
	st->sets_nr = 0;
	if (st->memo_index)
		memset(st->memo_index, 0, st->memo_slots * sizeof(*st->memo_index));
	if (st->sets_index)
		memset(st->sets_index, 0, st->sets_slots * sizeof(*st->sets_index));
}

static void memo_add(struct qgroup_state *st, u64 bytenr, const struct root_set *set)
{
	long idx;

	if (st->memo_nr >= QG_MEMO_MAX || st->sets_nr >= QG_SETS_MAX)
		memo_reset(st);
	if (ARRAY_RESERVE(st->memo, st->memo_alloc, st->memo_nr + 1, 64))
		return;		/* only slower */
	if ((st->memo_nr + 1) * 2 > st->memo_slots && !memo_grow_index(st))
		return;
	idx = set_intern(st, set);
	if (idx < 0)
		return;
	st->memo[st->memo_nr].bytenr = bytenr;
	st->memo[st->memo_nr].set = (u32)idx;
	memo_index_insert(st, st->memo_nr);
	st->memo_nr++;
}

static void close_roots(struct qgroup_state *st)
{
	size_t i;

	for (i = 0; i < st->roots_nr; i++) {
		if (st->roots[i].ok)
			btrfs_release_root(&st->roots[i].root);
	}
	st->roots_nr = 0;
}

/* subvolume @id's tree, opened once; NULL when it cannot be read */
static struct btrfs_root *subvol_root(struct check_ctx *ctx, struct qgroup_state *st,
				      u64 id)
{
	size_t lo = 0, hi = st->roots_nr;
	struct open_root *r;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->roots[mid].id == id)
			return st->roots[mid].ok ? &st->roots[mid].root : NULL;
		if (st->roots[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (st->roots_nr >= QG_MAX_OPEN_ROOTS) {
		close_roots(st);
		lo = 0;
	}
	if (ARRAY_RESERVE(st->roots, st->roots_alloc, st->roots_nr + 1, 16))
		return NULL;
	r = &st->roots[lo];
	memmove(r + 1, r, (st->roots_nr - lo) * sizeof(*r));
	st->roots_nr++;
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->ok = !btrfs_read_root(ctx->fs_info, id, &r->root) && r->root.node;
	if (!r->ok && r->root.node)
		btrfs_release_root(&r->root);
	return r->ok ? &r->root : NULL;
}

static void block_roots(struct check_ctx *ctx, struct qgroup_state *st,
			u64 bytenr, int depth, struct root_set *out);

/* the first key of the tree block at @bytenr */
static bool block_first_key(struct check_ctx *ctx, u64 bytenr, int level,
			    struct btrfs_key *key)
{
	struct tree_block_check tbc = { .level = level };
	struct extent_buffer *eb;
	bool ok;
	int err;

	eb = read_tree_block(ctx->fs_info, bytenr, &tbc, &err);
	if (!eb)
		return false;
	ok = btrfs_eb_nritems(eb) > 0;
	if (ok && level)
		btrfs_node_key_to_cpu(eb, key, 0);
	else if (ok)
		btrfs_item_key_to_cpu(eb, key, 0);
	free_extent_buffer(eb);
	return ok;
}

/* what we know of the tree block being resolved */
struct block_desc {
	u64 bytenr;
	int level;		/* -1: not a tree block (or unknown) */
	bool have_key;
	struct btrfs_key first_key;
};

/*
 * A keyed tree block reference from root @id: @id, and the subvolumes of
 * the block's parent in @id's tree, which snapshots of @id may share.
 */
static void tree_ref_roots(struct check_ctx *ctx, struct qgroup_state *st,
			   const struct block_desc *b, u64 id, int depth,
			   struct root_set *out)
{
	struct btrfs_root *root;
	struct btrfs_key key;
	struct btrfs_path path;
	struct root_set parent;
	struct extent_buffer *node;
	int ret, pl = b->level + 1;

	if (!is_subvol_root(id))
		return;
	root_set_add(out, id);
	root = subvol_root(ctx, st, id);
	if (!root || b->level < 0 || root->node->start == b->bytenr ||
	    pl > btrfs_eb_level(root->node))
		return;
	key = b->first_key;
	if (!b->have_key && !block_first_key(ctx, b->bytenr, b->level, &key))
		return;
	btrfs_init_path(&path);
	path.lowest_level = pl;
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	node = ret >= 0 ? path.nodes[pl] : NULL;
	if (node && path.slots[pl] < (int)btrfs_eb_nritems(node) &&
	    btrfs_node_blockptr(node, path.slots[pl]) == b->bytenr) {
		block_roots(ctx, st, node->start, depth + 1, &parent);
		root_set_merge(out, &parent);
	}
	btrfs_release_path(&path);
}

/* a file extent item of @ino pointing into @bytenr at data ref offset @offset */
static bool is_data_ref_item(const struct extent_buffer *leaf, int slot,
			     const struct btrfs_key *key, u64 bytenr, u64 offset)
{
	const struct btrfs_file_extent_item *fi;

	if (btrfs_item_size(leaf, slot) < sizeof(*fi))
		return false;
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	return btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_INLINE &&
	       btrfs_file_extent_disk_bytenr(fi) == bytenr &&
	       key->offset - btrfs_file_extent_offset(fi) == offset;
}

/*
 * A keyed data reference (root @id, @ino, @offset, @count): @id, and the
 * subvolumes of each leaf of @id's tree holding one of the @count items.
 */
static void data_ref_roots(struct check_ctx *ctx, struct qgroup_state *st,
			   u64 bytenr, u64 id, u64 ino, u64 offset, u32 count,
			   int depth, struct root_set *out)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, offset };
	struct btrfs_root *root;
	struct btrfs_path path;
	struct root_set leaf_set;
	u64 last_leaf = 0;
	int ret;

	if (!is_subvol_root(id))
		return;
	root_set_add(out, id);
	root = subvol_root(ctx, st, id);
	if (!root)
		return;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && count) {
		struct extent_buffer *leaf = path.nodes[0];

		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		if (is_data_ref_item(leaf, path.slots[0], &key, bytenr, offset)) {
			count--;
			if (leaf->start != last_leaf) {
				last_leaf = leaf->start;
				block_roots(ctx, st, leaf->start, depth + 1, &leaf_set);
				root_set_merge(out, &leaf_set);
			}
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
}

static void ref_roots(struct check_ctx *ctx, struct qgroup_state *st,
		      const struct block_desc *b, u8 type, u64 root_or_parent,
		      int depth, struct root_set *set)
{
	struct root_set parent;

	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		tree_ref_roots(ctx, st, b, root_or_parent, depth, set);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		block_roots(ctx, st, root_or_parent, depth + 1, &parent);
		root_set_merge(set, &parent);
		break;
	}
}

static void data_ref_item_roots(struct check_ctx *ctx, struct qgroup_state *st,
				u64 bytenr, const struct btrfs_extent_data_ref *dref,
				int depth, struct root_set *set)
{
	data_ref_roots(ctx, st, bytenr, btrfs_extent_data_ref_root(dref),
		       btrfs_extent_data_ref_objectid(dref),
		       btrfs_extent_data_ref_offset(dref),
		       btrfs_extent_data_ref_count(dref), depth, set);
}

/* inline references of the extent item at the path; fills @b's level and key */
static void parse_inline_refs(struct check_ctx *ctx, struct qgroup_state *st,
			      struct extent_buffer *leaf, int slot,
			      const struct btrfs_key *key, struct block_desc *b,
			      int depth, struct root_set *set)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	u32 cur = sizeof(struct btrfs_extent_item);
	const struct btrfs_extent_item *ei = (const void *)p;

	if (size < sizeof(*ei))
		return;
	if (key->type == BTRFS_METADATA_ITEM_KEY) {
		b->level = (int)key->offset;
	} else if (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		const struct btrfs_tree_block_info *tbi = (const void *)(p + cur);

		cur += sizeof(*tbi);
		if (cur > size)
			return;
		b->level = btrfs_tree_block_level(tbi);
		btrfs_disk_key_to_cpu(&b->first_key, &tbi->key);
		b->have_key = true;
	}
	if (b->level >= BTRFS_MAX_LEVEL)
		b->level = -1;
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 len = btrfs_extent_inline_ref_size(type);

		if (!len || len > size - cur)
			break;
		if (type == BTRFS_EXTENT_DATA_REF_KEY)
			data_ref_item_roots(ctx, st, key->objectid,
				(const void *)(p + cur + offsetof(struct btrfs_extent_inline_ref, offset)),
				depth, set);
		else
			ref_roots(ctx, st, b, type, btrfs_extent_inline_ref_offset(iref),
				  depth, set);
		cur += len;
	}
}

static bool is_keyed_ref(u8 type)
{
	return type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY ||
	       type == BTRFS_EXTENT_DATA_REF_KEY || type == BTRFS_SHARED_DATA_REF_KEY;
}

/* the subvolumes reaching the extent at @bytenr, from its extent item and refs */
static void extent_roots(struct check_ctx *ctx, struct qgroup_state *st,
			 u64 bytenr, int depth, struct root_set *out)
{
	struct btrfs_root *extent_root = &ctx->fs_info->extent_root;
	struct btrfs_key key = { bytenr, 0, 0 };
	struct block_desc b = { .bytenr = bytenr, .level = -1 };
	struct btrfs_path path;
	bool have_item = false;
	int ret;

	out->nr = 0;
	ret = btrfs_search_first(extent_root, &key, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];

		btrfs_path_key(&path, &key);
		if (key.objectid != bytenr)
			break;
		if (key.type == BTRFS_METADATA_ITEM_KEY || key.type == BTRFS_EXTENT_ITEM_KEY) {
			if (have_item)
				break;		/* a second item: not ours to merge */
			have_item = true;
			parse_inline_refs(ctx, st, leaf, slot, &key, &b, depth, out);
		} else if (have_item && key.type == BTRFS_EXTENT_DATA_REF_KEY) {
			if (btrfs_item_size(leaf, slot) >= sizeof(struct btrfs_extent_data_ref))
				data_ref_item_roots(ctx, st, bytenr,
					btrfs_item_ptr(leaf, slot, struct btrfs_extent_data_ref),
					depth, out);
		} else if (have_item && is_keyed_ref(key.type)) {
			ref_roots(ctx, st, &b, key.type, key.offset, depth, out);
		}
		ret = btrfs_next_item(extent_root, &path);
	}
	btrfs_release_path(&path);
}

/* the subvolumes reaching tree block @bytenr, memoized */
static void block_roots(struct check_ctx *ctx, struct qgroup_state *st,
			u64 bytenr, int depth, struct root_set *out)
{
	struct memo_entry *memo;

	out->nr = 0;
	if (depth > QG_MAX_DEPTH)
		return;
	memo = memo_find(st, bytenr);
	if (memo) {
		*out = st->sets[memo->set];
		return;
	}
	extent_roots(ctx, st, bytenr, depth, out);
	memo_add(st, bytenr, out);
}

static void charge_extent(struct qgroup_state *st, const struct root_set *set, u64 bytes)
{
	size_t i;
	int r;

	if (!set->nr)
		return;
	for (i = 0; i < st->nr; i++) {
		struct qgroup *g = &st->groups[i];
		int inside = 0;

		for (r = 0; r < set->nr; r++) {
			bool member = (g->id >> 48) ? qgroup_has_member(g, set->ids[r]) :
						      g->id == set->ids[r];

			inside += member;
		}
		if (!inside)
			continue;
		g->calc_rfer += bytes;
		if (inside == set->nr)
			g->calc_excl += bytes;
	}
}

/* walk the extent tree once, charging each extent to the subvolumes reaching it */
static int account_extents(struct check_ctx *ctx, struct qgroup_state *st)
{
	struct btrfs_root *extent_root = &ctx->fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct root_set set;
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(extent_root, &key, &path);
	while (ret == 0) {
		const struct btrfs_extent_item *ei;
		bool tree_block;

		btrfs_path_key(&path, &key);
		if ((key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) &&
		    btrfs_item_size(path.nodes[0], path.slots[0]) >= sizeof(*ei)) {
			ei = btrfs_item_ptr(path.nodes[0], path.slots[0],
					    struct btrfs_extent_item);
			tree_block = key.type == BTRFS_METADATA_ITEM_KEY ||
				     (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK);
			if (tree_block)
				block_roots(ctx, st, key.objectid, 0, &set);
			else
				extent_roots(ctx, st, key.objectid, 0, &set);
			charge_extent(st, &set, key.type == BTRFS_METADATA_ITEM_KEY ?
				      ctx->fs_info->nodesize : key.offset);
		}
		ret = check_iter_next(extent_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static void compare_counts(struct check_ctx *ctx, struct qgroup_state *st)
{
	char name[48], detail[200];
	size_t i;

	for (i = 0; i < st->nr; i++) {
		struct qgroup *g = &st->groups[i];

		if (!g->has_info)
			continue;
		if (g->rfer == g->calc_rfer && g->excl == g->calc_excl)
			continue;
		qgroup_name(g->id, name, sizeof(name));
		snprintf(detail, sizeof(detail),
			 "counts are different: referenced %llu expect %llu, exclusive %llu expect %llu",
			 (unsigned long long)g->rfer, (unsigned long long)g->calc_rfer,
			 (unsigned long long)g->excl, (unsigned long long)g->calc_excl);
		check_problem(ctx, PR_QGROUP_COUNTS, &(struct problem_ctx){
			.name = name, .detail = detail });
	}
}

static void release_state(struct qgroup_state *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		free(st->groups[i].members);
	free(st->groups);
	free(st->memo);
	free(st->memo_index);
	free(st->sets);
	free(st->sets_index);
	close_roots(st);
	free(st->roots);
}

static int check_qgroups(struct check_ctx *ctx)
{
	struct qgroup_state st;
	int ret;

	if (!ctx->fs_info->quota_root.node) {
		check_info(ctx, "quota groups skipped (not enabled on this filesystem)");
		return 0;
	}
	memset(&st, 0, sizeof(st));
	ret = load_quota_tree(ctx, &st);
	if (ret)
		goto out;
	if (!st.have_status) {
		check_problem(ctx, PR_QGROUP_INVALID, &(struct problem_ctx){
			.name = "status", .detail = "the quota tree has no status item" });
		goto out;
	}
	if (st.status_flags & (BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT |
			       BTRFS_QGROUP_STATUS_FLAG_RESCAN |
			       BTRFS_QGROUP_STATUS_FLAG_SIMPLE_MODE) ||
	    !(st.status_flags & BTRFS_QGROUP_STATUS_FLAG_ON)) {
		check_info(ctx, "quota group counts not compared: status flags 0x%llx (off, inconsistent, rescanning or simple quotas)",
			   (unsigned long long)st.status_flags);
		goto out;
	}
	ret = flatten_members(&st);
	if (!ret)
		ret = account_extents(ctx, &st);
	if (!ret)
		compare_counts(ctx, &st);
out:
	release_state(&st);
	return ret;
}

int check_phase_qgroups_log(struct check_ctx *ctx)
{
	int ret = check_qgroups(ctx);
	int ret2 = check_log_tree(ctx);

	return ret ? ret : ret2;
}
