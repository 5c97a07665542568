// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 9: quota groups, then the log tree (log-tree.c).
 *
 * Quota numbers are recomputed from the extent tree alone: every extent
 * (data or tree block) is charged to the subvolumes that reach it.  Those
 * come from its back references: a keyed reference names its root; a
 * shared reference names a parent tree block, whose own references are
 * resolved the same way (memoized, depth-limited against hostile loops).
 * A level-0 qgroup 0/N is charged for every extent subvolume N reaches
 * (referenced) and for those only N reaches (exclusive); a higher qgroup
 * for every extent one of its members reaches, and exclusively when all
 * the extent's subvolumes are members.  Counts are compared only when the
 * status item says they are consistent and no rescan is under way.
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
#define QG_MAX_DEPTH		8

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
	struct root_set roots;
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
};

static bool is_subvol_root(u64 id)
{
	return id == BTRFS_FS_TREE_OBJECTID ||
	       (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID);
}

static void root_set_add(struct root_set *set, u64 id)
{
	int i;

	if (!is_subvol_root(id))
		return;
	for (i = 0; i < set->nr; i++) {
		if (set->ids[i] == id)
			return;
	}
	if (set->nr < QG_MAX_ROOTS_PER_EXTENT)
		set->ids[set->nr++] = id;
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

static size_t memo_slot(const struct qgroup_state *st, u64 bytenr)
{
	return (size_t)((bytenr >> 12) * 0x9E3779B97F4A7C15ULL >> 20) &
	       (st->memo_slots - 1);
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

static void memo_add(struct qgroup_state *st, u64 bytenr, const struct root_set *set)
{
	if (ARRAY_RESERVE(st->memo, st->memo_alloc, st->memo_nr + 1, 64))
		return;		/* only slower */
	if ((st->memo_nr + 1) * 2 > st->memo_slots && !memo_grow_index(st))
		return;
	st->memo[st->memo_nr].bytenr = bytenr;
	st->memo[st->memo_nr].roots = *set;
	memo_index_insert(st, st->memo_nr);
	st->memo_nr++;
}

static void resolve_block_roots(struct check_ctx *ctx, struct qgroup_state *st,
				u64 bytenr, int depth, struct root_set *out);

/* the roots named by one reference */
static void add_ref_roots(struct check_ctx *ctx, struct qgroup_state *st, u8 type,
			  u64 root_or_parent, int depth, struct root_set *set)
{
	struct root_set parent;

	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_EXTENT_DATA_REF_KEY:
		root_set_add(set, root_or_parent);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case BTRFS_SHARED_DATA_REF_KEY:
		resolve_block_roots(ctx, st, root_or_parent, depth + 1, &parent);
		root_set_merge(set, &parent);
		break;
	}
}

/* inline references of the extent item at the path */
static void parse_inline_refs(struct check_ctx *ctx, struct qgroup_state *st,
			      struct extent_buffer *leaf, int slot,
			      const struct btrfs_key *key, int depth,
			      struct root_set *set)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	u32 cur = sizeof(struct btrfs_extent_item);
	const struct btrfs_extent_item *ei = (const void *)p;

	if (size < sizeof(*ei))
		return;
	if (key->type == BTRFS_EXTENT_ITEM_KEY &&
	    (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		cur += sizeof(struct btrfs_tree_block_info);
	while (cur < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(p + cur);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 len = btrfs_extent_inline_ref_size(type);

		if (!len || len > size - cur)
			break;
		if (type == BTRFS_EXTENT_DATA_REF_KEY) {
			const struct btrfs_extent_data_ref *dref =
				(const void *)(p + cur + offsetof(struct btrfs_extent_inline_ref, offset));

			root_set_add(set, btrfs_extent_data_ref_root(dref));
		} else {
			add_ref_roots(ctx, st, type, btrfs_extent_inline_ref_offset(iref),
				      depth, set);
		}
		cur += len;
	}
}

/* keyed reference items that follow an extent item */
static void parse_keyed_ref(struct check_ctx *ctx, struct qgroup_state *st,
			    struct extent_buffer *leaf, int slot,
			    const struct btrfs_key *key, int depth,
			    struct root_set *set)
{
	if (key->type == BTRFS_EXTENT_DATA_REF_KEY) {
		if (btrfs_item_size(leaf, slot) >= sizeof(struct btrfs_extent_data_ref))
			root_set_add(set, btrfs_extent_data_ref_root(
				btrfs_item_ptr(leaf, slot, struct btrfs_extent_data_ref)));
		return;
	}
	add_ref_roots(ctx, st, key->type, key->offset, depth, set);
}

static bool is_keyed_ref(u8 type)
{
	return type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY ||
	       type == BTRFS_EXTENT_DATA_REF_KEY || type == BTRFS_SHARED_DATA_REF_KEY;
}

static void resolve_block_roots(struct check_ctx *ctx, struct qgroup_state *st,
				u64 bytenr, int depth, struct root_set *out)
{
	struct btrfs_root *extent_root = &ctx->fs_info->extent_root;
	struct btrfs_key key = { bytenr, 0, 0 };
	struct memo_entry *memo;
	struct btrfs_path path;
	int ret;

	out->nr = 0;
	if (depth > QG_MAX_DEPTH)
		return;
	memo = memo_find(st, bytenr);
	if (memo) {
		*out = memo->roots;
		return;
	}
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, extent_root, &key, &path, 0, 0);
	if (ret >= 0)
		ret = btrfs_path_fixup_slot(extent_root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != bytenr)
			break;
		if (key.type == BTRFS_METADATA_ITEM_KEY || key.type == BTRFS_EXTENT_ITEM_KEY)
			parse_inline_refs(ctx, st, path.nodes[0], path.slots[0], &key,
					  depth, out);
		else if (is_keyed_ref(key.type))
			parse_keyed_ref(ctx, st, path.nodes[0], path.slots[0], &key,
					depth, out);
		ret = btrfs_next_item(extent_root, &path);
	}
	btrfs_release_path(&path);
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

/* walk the extent tree once, charging each extent when its refs are complete */
static int account_extents(struct check_ctx *ctx, struct qgroup_state *st)
{
	struct btrfs_root *extent_root = &ctx->fs_info->extent_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct root_set set = { .nr = 0 };
	struct btrfs_path path;
	u64 cur = 0, cur_bytes = 0;
	bool have = false;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(extent_root, &key, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = extent_buffer_get(path.nodes[0]);
		int slot = path.slots[0];

		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			if (have)
				charge_extent(st, &set, cur_bytes);
			set.nr = 0;
			cur = key.objectid;
			cur_bytes = key.type == BTRFS_METADATA_ITEM_KEY ?
				    ctx->fs_info->nodesize : key.offset;
			have = true;
			parse_inline_refs(ctx, st, leaf, slot, &key, 0, &set);
		} else if (have && key.objectid == cur && is_keyed_ref(key.type)) {
			parse_keyed_ref(ctx, st, leaf, slot, &key, 0, &set);
		}
		free_extent_buffer(leaf);
		ret = check_iter_next(extent_root, &path);
	}
	if (have)
		charge_extent(st, &set, cur_bytes);
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
