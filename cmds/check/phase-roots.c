// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 4: root items, root refs and backrefs, and the uuid tree.
 *
 * The tree of tree roots is small (one item or three per subvolume), so
 * it is read once into an array of root summaries.  Then:
 *  - each root item's fields are sane for its kind of tree;
 *  - a subvolume with no references left (being deleted) has an orphan
 *    item, so the kernel finishes deleting it;
 *  - ROOT_REF and ROOT_BACKREF come in agreeing pairs, and the parent
 *    directory really holds the entry they describe;
 *  - when the uuid tree is current, every subvolume's uuid (and received
 *    uuid) is in it, and every entry names a subvolume that has that uuid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "iter.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/print-tree.h"
#include "array.h"

struct root_summary {
	u64 objectid;
	u64 offset;		/* snapshot: transid it was taken at */
	u64 bytenr;
	u64 generation;
	u64 flags;
	u32 refs;
	u8 level;
	u8 uuid[BTRFS_UUID_SIZE];
	u8 received_uuid[BTRFS_UUID_SIZE];
	bool has_v2;
	bool has_orphan;
	bool has_backref;
};

struct roots_state {
	struct root_summary *roots;
	size_t nr;
	size_t alloc;
};

static bool uuid_is_zero(const u8 *uuid)
{
	static const u8 zero[BTRFS_UUID_SIZE];

	return !memcmp(uuid, zero, BTRFS_UUID_SIZE);
}

static struct root_summary *find_root(struct roots_state *st, u64 objectid)
{
	size_t lo = 0, hi = st->nr;

	/* the root tree is read in key order, so the array is sorted */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->roots[mid].objectid < objectid)
			lo = mid + 1;
		else if (st->roots[mid].objectid > objectid)
			hi = mid;
		else
			return &st->roots[mid];
	}
	return NULL;
}

static int add_root(struct roots_state *st, const struct btrfs_key *key,
		    struct extent_buffer *leaf, int slot)
{
	const struct btrfs_root_item *ri;
	struct root_summary *r;
	u32 size = btrfs_item_size(leaf, slot);

	if (size < BTRFS_ROOT_ITEM_V1_SIZE)
		return 0;	/* phase 3 reports the item size */
	if (st->nr && st->roots[st->nr - 1].objectid == key->objectid)
		r = &st->roots[st->nr - 1];	/* several items: keep the last */
	else {
		if (ARRAY_RESERVE(st->roots, st->alloc, st->nr + 1, 64))
			return -ENOMEM;
		r = &st->roots[st->nr++];
	}
	memset(r, 0, sizeof(*r));
	ri = btrfs_item_ptr(leaf, slot, struct btrfs_root_item);
	r->objectid = key->objectid;
	r->offset = key->offset;
	r->bytenr = btrfs_root_bytenr(ri);
	r->generation = btrfs_root_generation(ri);
	r->flags = btrfs_root_flags(ri);
	r->refs = btrfs_root_refs(ri);
	r->level = btrfs_root_level(ri);
	r->has_v2 = size >= sizeof(struct btrfs_root_item);
	if (r->has_v2) {
		memcpy(r->uuid, ri->uuid, BTRFS_UUID_SIZE);
		memcpy(r->received_uuid, ri->received_uuid, BTRFS_UUID_SIZE);
	}
	return 0;
}

static int load_roots(struct check_ctx *ctx, struct roots_state *st)
{
	struct btrfs_root *tree_root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(tree_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_ROOT_ITEM_KEY) {
			ret = add_root(st, &key, path.nodes[0], path.slots[0]);
			if (ret)
				break;
		}
		ret = check_iter_next(tree_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static void check_root_item(struct check_ctx *ctx, const struct root_summary *r)
{
	struct btrfs_fs_info *fs = ctx->fs_info;
	u64 super_gen = btrfs_super_generation(&fs->super_copy);
	char detail[160];

	detail[0] = 0;
	if (r->bytenr % fs->sectorsize)
		snprintf(detail, sizeof(detail), "root bytenr %llu not aligned to %u",
			 (unsigned long long)r->bytenr, fs->sectorsize);
	else if (r->level >= BTRFS_MAX_LEVEL)
		snprintf(detail, sizeof(detail), "root level %u, expect below %d",
			 r->level, BTRFS_MAX_LEVEL);
	else if (r->generation > super_gen)
		snprintf(detail, sizeof(detail), "root generation %llu newer than the superblock's %llu",
			 (unsigned long long)r->generation,
			 (unsigned long long)super_gen);
	if (detail[0])
		check_problem(ctx, PR_ROOT_ITEM_INVALID, &(struct problem_ctx){
			.root = r->objectid, .detail = detail });
	if (btrfs_is_subvol_tree(r->objectid) && r->objectid != BTRFS_FS_TREE_OBJECTID &&
	    r->refs == 0 && !r->has_orphan)
		check_problem(ctx, PR_ROOT_ITEM_INVALID, &(struct problem_ctx){
			.root = r->objectid,
			.detail = "deleted subvolume (refs 0) has no orphan item in the root tree" });
}

/* the parent directory entry a root ref describes must exist */
static void check_ref_dir_entry(struct check_ctx *ctx, struct roots_state *st,
				u64 parent, u64 child, u64 dirid, u64 sequence,
				const char *name, size_t name_len)
{
	struct btrfs_root parent_root;
	struct btrfs_key key = { dirid, BTRFS_DIR_INDEX_KEY, sequence };
	const struct btrfs_dir_item *di;
	struct btrfs_path path;
	struct btrfs_key loc;
	char shown[BTRFS_NAME_LEN + 1];
	int ret;

	if (!find_root(st, parent))
		return;		/* reported as a dangling ref */
	if (btrfs_read_root(ctx->fs_info, parent, &parent_root))
		return;		/* phase 3 reports the unreadable tree */
	snprintf(shown, sizeof(shown), "%.*s", (int)name_len, name);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &parent_root, &key, &path, 0, 0);
	if (ret != 0 ||
	    btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*di)) {
		check_problem(ctx, PR_ROOT_REF_MISMATCH, &(struct problem_ctx){
			.root = child, .detail = "the parent directory has no dir index for the subvolume" });
		goto out;
	}
	di = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_dir_item);
	btrfs_disk_key_to_cpu(&loc, &di->location);
	if (loc.objectid != child || loc.type != BTRFS_ROOT_ITEM_KEY ||
	    btrfs_dir_name_len(di) != name_len ||
	    sizeof(*di) + name_len > btrfs_item_size(path.nodes[0], path.slots[0]) ||
	    memcmp(di + 1, name, name_len))
		check_problem(ctx, PR_ROOT_REF_MISMATCH, &(struct problem_ctx){
			.root = child, .detail = "the parent's dir index does not point to the subvolume by the ref's name" });
out:
	btrfs_release_path(&path);
	btrfs_release_root(&parent_root);
}

/* ROOT_REF (parent -> child) needs the mirror ROOT_BACKREF, same contents */
static void check_root_ref(struct check_ctx *ctx, struct roots_state *st,
			   struct extent_buffer *leaf, int slot,
			   const struct btrfs_key *key)
{
	const struct btrfs_root_ref *ref = btrfs_item_ptr(leaf, slot, struct btrfs_root_ref);
	u32 size = btrfs_item_size(leaf, slot);
	struct btrfs_key other = { key->offset,
		key->type == BTRFS_ROOT_REF_KEY ? BTRFS_ROOT_BACKREF_KEY : BTRFS_ROOT_REF_KEY,
		key->objectid };
	u64 child = key->type == BTRFS_ROOT_REF_KEY ? key->offset : key->objectid;
	u64 parent = key->type == BTRFS_ROOT_REF_KEY ? key->objectid : key->offset;
	const struct btrfs_root_ref *oref;
	struct root_summary *r;
	struct btrfs_path path;
	u16 name_len;
	int ret;

	if (size < sizeof(*ref) || sizeof(*ref) + btrfs_root_ref_name_len(ref) > size)
		return;		/* phase 3 reports the malformed item */
	name_len = btrfs_root_ref_name_len(ref);
	r = find_root(st, child);
	if (!r) {
		check_problem(ctx, PR_ROOT_REF_MISMATCH, &(struct problem_ctx){
			.root = child, .detail = "a root ref names a subvolume that has no root item" });
		return;
	}
	if (key->type == BTRFS_ROOT_BACKREF_KEY)
		r->has_backref = true;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &ctx->fs_info->tree_root, &other, &path, 0, 0);
	if (ret != 0) {
		check_problem(ctx, PR_ROOT_REF_MISSING, &(struct problem_ctx){
			.root = child, .inode = btrfs_root_ref_dirid(ref),
			.index = btrfs_root_ref_sequence(ref),
			.name = key->type == BTRFS_ROOT_REF_KEY ? "root backref" : "root ref" });
		goto out;
	}
	oref = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_root_ref);
	if (btrfs_item_size(path.nodes[0], path.slots[0]) != size ||
	    btrfs_root_ref_dirid(oref) != btrfs_root_ref_dirid(ref) ||
	    btrfs_root_ref_sequence(oref) != btrfs_root_ref_sequence(ref) ||
	    memcmp(oref + 1, ref + 1, name_len)) {
		/* one pair, one finding: named when its ref is visited */
		if (key->type == BTRFS_ROOT_REF_KEY)
			check_problem(ctx, PR_ROOT_REF_MISMATCH, &(struct problem_ctx){
				.root = child, .detail = "dirid, sequence or name differ" });
		goto out;
	}
	if (key->type == BTRFS_ROOT_REF_KEY)
		check_ref_dir_entry(ctx, st, parent, child, btrfs_root_ref_dirid(ref),
				    btrfs_root_ref_sequence(ref),
				    (const char *)(ref + 1), name_len);
out:
	btrfs_release_path(&path);
}

static int walk_refs_and_orphans(struct check_ctx *ctx, struct roots_state *st)
{
	struct btrfs_root *tree_root = &ctx->fs_info->tree_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(tree_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_ROOT_REF_KEY || key.type == BTRFS_ROOT_BACKREF_KEY) {
			struct extent_buffer *leaf = extent_buffer_get(path.nodes[0]);
			int slot = path.slots[0];

			check_root_ref(ctx, st, leaf, slot, &key);
			free_extent_buffer(leaf);
		} else if (key.objectid == BTRFS_ORPHAN_OBJECTID &&
			   key.type == BTRFS_ORPHAN_ITEM_KEY) {
			struct root_summary *r = find_root(st, key.offset);

			if (r)
				r->has_orphan = true;
		}
		ret = check_iter_next(tree_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static void check_backrefs_present(struct check_ctx *ctx, struct roots_state *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++) {
		struct root_summary *r = &st->roots[i];

		if (btrfs_is_subvol_tree(r->objectid) && r->objectid != BTRFS_FS_TREE_OBJECTID &&
		    r->objectid != BTRFS_DATA_RELOC_TREE_OBJECTID &&
		    r->refs && !r->has_backref)
			check_problem(ctx, PR_ROOT_REF_MISSING, &(struct problem_ctx){
				.root = r->objectid, .name = "root backref" });
		check_root_item(ctx, r);
	}
}

/* ---- uuid tree ---- */

static void uuid_to_key(const u8 *uuid, u8 type, struct btrfs_key *key)
{
	key->objectid = get_unaligned_le64(uuid);
	key->type = type;
	key->offset = get_unaligned_le64(uuid + 8);
}

static bool uuid_item_has(struct btrfs_root *uuid_root, const u8 *uuid, u8 type,
			  u64 objectid)
{
	struct btrfs_key key;
	struct btrfs_path path;
	bool found = false;
	u32 size, i;
	int ret;

	uuid_to_key(uuid, type, &key);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, uuid_root, &key, &path, 0, 0);
	if (ret == 0) {
		const u8 *p = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);

		size = btrfs_item_size(path.nodes[0], path.slots[0]);
		for (i = 0; i + sizeof(u64) <= size && !found; i += sizeof(u64))
			found = get_unaligned_le64(p + i) == objectid;
	}
	btrfs_release_path(&path);
	return found;
}

static void check_uuid_entries_present(struct check_ctx *ctx, struct roots_state *st)
{
	struct btrfs_root *uuid_root = &ctx->fs_info->uuid_root;
	char shown[BTRFS_UUID_UNPARSED_SIZE];
	size_t i;

	for (i = 0; i < st->nr; i++) {
		struct root_summary *r = &st->roots[i];

		if (!btrfs_is_subvol_tree(r->objectid) || !r->has_v2 || !r->refs)
			continue;
		if (!uuid_is_zero(r->uuid) &&
		    !uuid_item_has(uuid_root, r->uuid, BTRFS_UUID_KEY_SUBVOL, r->objectid)) {
			btrfs_format_uuid(r->uuid, shown);
			check_problem(ctx, PR_UUID_ITEM_MISSING, &(struct problem_ctx){
				.root = r->objectid, .name = shown });
		}
		if (!uuid_is_zero(r->received_uuid) &&
		    !uuid_item_has(uuid_root, r->received_uuid,
				   BTRFS_UUID_KEY_RECEIVED_SUBVOL, r->objectid)) {
			btrfs_format_uuid(r->received_uuid, shown);
			check_problem(ctx, PR_UUID_ITEM_MISSING, &(struct problem_ctx){
				.root = r->objectid, .name = shown });
		}
	}
}

static void check_uuid_item(struct check_ctx *ctx, struct roots_state *st,
			    struct extent_buffer *leaf, int slot,
			    const struct btrfs_key *key)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	u8 uuid[BTRFS_UUID_SIZE];
	u32 i;

	put_unaligned_le64(key->objectid, uuid);
	put_unaligned_le64(key->offset, uuid + 8);
	for (i = 0; i + sizeof(u64) <= size; i += sizeof(u64)) {
		u64 objectid = get_unaligned_le64(p + i);
		struct root_summary *r = find_root(st, objectid);
		const u8 *have;

		if (!r) {
			check_problem(ctx, PR_UUID_ITEM_STALE, &(struct problem_ctx){
				.key = *key, .root = objectid, .detail = "does not exist" });
			continue;
		}
		if (!r->refs)
			continue;	/* being deleted: the entry goes with it */
		have = key->type == BTRFS_UUID_KEY_SUBVOL ? r->uuid : r->received_uuid;
		if (memcmp(have, uuid, BTRFS_UUID_SIZE))
			check_problem(ctx, PR_UUID_ITEM_STALE, &(struct problem_ctx){
				.key = *key, .root = objectid,
				.detail = "has another uuid" });
	}
}

static int check_uuid_tree(struct check_ctx *ctx, struct roots_state *st)
{
	struct btrfs_fs_info *fs = ctx->fs_info;
	struct btrfs_root *uuid_root = &fs->uuid_root;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	if (!uuid_root->node)
		return 0;
	if (btrfs_super_uuid_tree_generation(&fs->super_copy) !=
	    btrfs_super_generation(&fs->super_copy)) {
		check_info(ctx, "note: uuid tree generation differs from the superblock's, the kernel rebuilds it at mount; not checked");
		return 0;
	}
	check_uuid_entries_present(ctx, st);
	btrfs_init_path(&path);
	ret = check_iter_start(uuid_root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_UUID_KEY_SUBVOL ||
		    key.type == BTRFS_UUID_KEY_RECEIVED_SUBVOL)
			check_uuid_item(ctx, st, path.nodes[0], path.slots[0], &key);
		ret = check_iter_next(uuid_root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

int check_phase_roots(struct check_ctx *ctx)
{
	struct roots_state st = { NULL, 0, 0 };
	int ret;

	ret = load_roots(ctx, &st);
	if (!ret)
		ret = walk_refs_and_orphans(ctx, &st);
	if (!ret) {
		check_backrefs_present(ctx, &st);
		ret = check_uuid_tree(ctx, &st);
	}
	free(st.roots);
	return ret;
}
