// SPDX-License-Identifier: GPL-2.0
/*
 * Extent items, their back references and their owners (extent-owners.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "extent-owners.h"
#include "ctree.h"
#include "block-group.h"
#include "inode.h"
#include "array.h"

/* the largest extent the kernel writes: bounds searches for refs */
#define MAX_EXTENT_BYTES	(128ULL << 20)
#define MAX_PATH_BYTES		4096
#define MAX_PATH_DEPTH		2048

void btrfs_extent_desc_release(struct btrfs_extent_desc *d)
{
	free(d->backrefs);
	memset(d, 0, sizeof(*d));
}

static int add_backref(struct btrfs_extent_desc *d,
		       const struct btrfs_extent_backref *ref)
{
	if (ARRAY_RESERVE(d->backrefs, d->alloc_backrefs, d->nr_backrefs + 1, 4))
		return -ENOMEM;
	d->backrefs[d->nr_backrefs++] = *ref;
	return 0;
}

/* one inline ref at @p (@avail bytes left in the item): its size, 0 if bad */
static u32 parse_inline_ref(struct btrfs_extent_desc *d, const u8 *p, u32 avail)
{
	const struct btrfs_extent_inline_ref *iref = (const void *)p;
	struct btrfs_extent_backref ref = { .is_inline = true };
	u8 type = btrfs_extent_inline_ref_type(iref);
	u32 size = btrfs_extent_inline_ref_size(type);

	if (!size || size > avail)
		return 0;
	ref.type = type;
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_EXTENT_OWNER_REF_KEY:
		ref.root = btrfs_extent_inline_ref_offset(iref);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		ref.parent = btrfs_extent_inline_ref_offset(iref);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		ref.parent = btrfs_extent_inline_ref_offset(iref);
		ref.count = btrfs_shared_data_ref_count((const void *)(iref + 1));
		break;
	case BTRFS_EXTENT_DATA_REF_KEY: {
		const struct btrfs_extent_data_ref *dref =
			(const void *)(p + offsetof(struct btrfs_extent_inline_ref, offset));

		ref.root = btrfs_extent_data_ref_root(dref);
		ref.objectid = btrfs_extent_data_ref_objectid(dref);
		ref.offset = btrfs_extent_data_ref_offset(dref);
		ref.count = btrfs_extent_data_ref_count(dref);
		break;
	}
	}
	return add_backref(d, &ref) ? 0 : size;
}

/* an EXTENT_ITEM or METADATA_ITEM at @slot into @d */
static void parse_extent_item(struct btrfs_fs_info *fs_info,
			      const struct extent_buffer *eb, int slot,
			      const struct btrfs_key *key,
			      struct btrfs_extent_desc *d)
{
	const u8 *p = btrfs_item_ptr_raw(eb, slot);
	u32 size = btrfs_item_size(eb, slot), cur, n;
	const struct btrfs_extent_item *ei = (const void *)p;

	d->nr_backrefs = 0;
	d->bytenr = key->objectid;
	d->damaged = false;
	d->level = -1;
	d->num_bytes = key->type == BTRFS_METADATA_ITEM_KEY ? fs_info->nodesize :
		       key->offset;
	d->refs = d->generation = d->flags = 0;
	if (size < sizeof(*ei)) {
		btrfs_err(&fs_info->reporter,
			  "extent item %llu: item size %u, expected at least %zu",
			  (unsigned long long)key->objectid, size, sizeof(*ei));
		d->damaged = true;
		return;
	}
	d->refs = btrfs_extent_refs(ei);
	d->generation = btrfs_extent_generation(ei);
	d->flags = btrfs_extent_flags(ei);
	cur = sizeof(*ei);
	if (d->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		if (key->type == BTRFS_METADATA_ITEM_KEY) {
			d->level = (int)key->offset;
		} else if (size >= cur + sizeof(struct btrfs_tree_block_info)) {
			d->level = btrfs_tree_block_level((const void *)(p + cur));
			cur += sizeof(struct btrfs_tree_block_info);
		} else {
			d->damaged = true;
		}
	}
	while (!d->damaged && cur < size) {
		n = parse_inline_ref(d, p + cur, size - cur);
		if (!n) {
			btrfs_err(&fs_info->reporter,
				  "extent item %llu: bad inline ref type %u at item offset %u",
				  (unsigned long long)key->objectid, p[cur], cur);
			d->damaged = true;
			break;
		}
		cur += n;
	}
}

/* a keyed back reference item following an extent item */
static void parse_keyed_ref(struct btrfs_fs_info *fs_info,
			    const struct extent_buffer *eb, int slot,
			    const struct btrfs_key *key, struct btrfs_extent_desc *d)
{
	struct btrfs_extent_backref ref = { .type = key->type };
	u32 size = btrfs_item_size(eb, slot);
	const void *p = btrfs_item_ptr_raw(eb, slot);

	switch (key->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		ref.root = key->offset;
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		ref.parent = key->offset;
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		if (size < sizeof(struct btrfs_extent_data_ref))
			goto bad;
		ref.root = btrfs_extent_data_ref_root(p);
		ref.objectid = btrfs_extent_data_ref_objectid(p);
		ref.offset = btrfs_extent_data_ref_offset(p);
		ref.count = btrfs_extent_data_ref_count(p);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		if (size < sizeof(struct btrfs_shared_data_ref))
			goto bad;
		ref.parent = key->offset;
		ref.count = btrfs_shared_data_ref_count(p);
		break;
	default:
		return;
	}
	if (add_backref(d, &ref))
		d->damaged = true;
	return;
bad:
	btrfs_err(&fs_info->reporter,
		  "extent %llu: ref item type %u of size %u is too small",
		  (unsigned long long)key->objectid, key->type, size);
	d->damaged = true;
}

static bool is_extent_key(u8 type)
{
	return type == BTRFS_EXTENT_ITEM_KEY || type == BTRFS_METADATA_ITEM_KEY;
}

static bool is_keyed_ref(u8 type)
{
	return type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY ||
	       type == BTRFS_EXTENT_DATA_REF_KEY || type == BTRFS_SHARED_DATA_REF_KEY;
}

static u64 key_extent_end(const struct btrfs_fs_info *fs_info,
			  const struct btrfs_key *key)
{
	return key->objectid + (key->type == BTRFS_METADATA_ITEM_KEY ?
				fs_info->nodesize : key->offset);
}

/*
 * The key to start a walk of [start, ...) at: the extent item before
 * @start when it reaches past @start, else (start, 0, 0).
 */
static int walk_start_key(struct btrfs_fs_info *fs_info, u64 start,
			  struct btrfs_key *first)
{
	struct btrfs_root *root = &fs_info->extent_root;
	struct btrfs_key key = { start, 0, 0 };
	struct btrfs_path path;
	int ret, steps = 0;

	*first = key;
	if (!start)
		return 0;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0)
		goto out;
	/* keyed refs of one extent may sit between it and @start */
	while ((ret = btrfs_prev_item(root, &path)) == 0 && steps++ < 1000000) {
		btrfs_path_key(&path, &key);
		if (!is_extent_key(key.type))
			continue;
		if (key_extent_end(fs_info, &key) > start)
			*first = key;
		break;
	}
	ret = ret < 0 ? ret : 0;
out:
	btrfs_release_path(&path);
	return ret;
}

/*
 * Reading past @last failed (a block on the way to the next leaf is
 * unreadable): the first key after the subtree that could not be read,
 * found from the nodes above @last (which were read before).  0 with
 * *@resume set, 1 when nothing follows, <0 on error.
 */
int btrfs_key_after_bad_subtree(struct btrfs_root *root, const struct btrfs_key *last,
				struct btrfs_key *resume)
{
	struct btrfs_path path;
	bool skip = true;
	int level, ret, slot, nr;

	for (level = 1; level < BTRFS_MAX_LEVEL; level++) {
		btrfs_init_path(&path);
		path.lowest_level = level;
		ret = btrfs_search_slot(NULL, root, last, &path, 0, 0);
		if (ret < 0 || !path.nodes[level]) {
			btrfs_release_path(&path);
			return ret < 0 ? ret : 1;
		}
		slot = path.slots[level];
		nr = (int)btrfs_eb_nritems(path.nodes[level]);
		/* the next leaf was to come from child slot + 1 of the lowest such node */
		if (slot + 1 < nr) {
			int want = slot + (skip ? 2 : 1);

			if (want < nr) {
				btrfs_node_key_to_cpu(path.nodes[level], resume, want);
				btrfs_release_path(&path);
				return 0;
			}
			/* the unreadable child was the last: go on after this node */
			skip = false;
		}
		btrfs_release_path(&path);
	}
	return 1;
}

int btrfs_walk_extents(struct btrfs_fs_info *fs_info, u64 start, u64 end,
		       btrfs_extent_fn fn, void *ctx)
{
	struct btrfs_root *root = &fs_info->extent_root;
	struct btrfs_extent_desc d;
	struct btrfs_path path;
	struct btrfs_key key, resume;
	bool have = false;
	int ret, have_ret = 0, damaged = 0;

	if (!root->node) {
		btrfs_err(&fs_info->reporter, "the extent tree cannot be read");
		return -EIO;
	}
	memset(&d, 0, sizeof(d));
	ret = walk_start_key(fs_info, start, &key);
	if (ret)
		return ret;
	ret = btrfs_search_first(root, &key, &path);
	for (;;) {
		while (ret == 0) {
			btrfs_path_key(&path, &key);
			if (is_extent_key(key.type)) {
				have_ret = have ? fn(ctx, &d) : 0;
				have = false;
				if (have_ret)
					break;
				if (key.objectid >= end)
					break;
				parse_extent_item(fs_info, path.nodes[0], path.slots[0],
						  &key, &d);
				have = true;
			} else if (have && is_keyed_ref(key.type) &&
				   key.objectid == d.bytenr) {
				parse_keyed_ref(fs_info, path.nodes[0], path.slots[0],
						&key, &d);
			} else if (key.objectid >= end) {
				break;
			}
			ret = btrfs_next_item(root, &path);
		}
		btrfs_release_path(&path);
		if (have_ret || ret >= 0)
			break;
		/* say what could not be read, then go on after it */
		damaged = ret;
		ret = btrfs_key_after_bad_subtree(root, &key, &resume);
		if (ret == 0)
			btrfs_err(&fs_info->reporter,
				  "extent tree: cannot read the items after (%llu %u %llu): %s; skipped to (%llu %u %llu)",
				  (unsigned long long)key.objectid, key.type,
				  (unsigned long long)key.offset, strerror(-damaged),
				  (unsigned long long)resume.objectid, resume.type,
				  (unsigned long long)resume.offset);
		else
			btrfs_err(&fs_info->reporter,
				  "extent tree: cannot read the items after (%llu %u %llu): %s",
				  (unsigned long long)key.objectid, key.type,
				  (unsigned long long)key.offset, strerror(-damaged));
		if (ret)
			break;
		if (have && resume.objectid != d.bytenr) {
			have_ret = fn(ctx, &d);
			have = false;
			if (have_ret)
				break;
		}
		ret = btrfs_search_first(root, &resume, &path);
	}
	if (have_ret)
		ret = have_ret;
	else if (ret >= 0 && have)
		ret = fn(ctx, &d);
	else if (ret > 0)
		ret = 0;
	btrfs_release_path(&path);
	btrfs_extent_desc_release(&d);
	if (!ret && damaged)
		ret = damaged;
	return ret;
}

struct find_ctx {
	u64 logical;
	struct btrfs_extent_desc *out;
	bool found;
};

static int find_one(void *ctx, const struct btrfs_extent_desc *d)
{
	struct find_ctx *f = ctx;

	if (d->bytenr > f->logical)
		return 1;
	if (d->bytenr + d->num_bytes <= f->logical)
		return 0;
	free(f->out->backrefs);
	*f->out = *d;
	f->out->backrefs = malloc(d->nr_backrefs * sizeof(*d->backrefs) + 1);
	if (!f->out->backrefs)
		return -ENOMEM;
	memcpy(f->out->backrefs, d->backrefs, d->nr_backrefs * sizeof(*d->backrefs));
	f->out->alloc_backrefs = d->nr_backrefs;
	f->found = true;
	return 1;
}

int btrfs_find_extent(struct btrfs_fs_info *fs_info, u64 logical,
		      struct btrfs_extent_desc *d)
{
	struct find_ctx f = { logical, d, false };
	int ret;

	memset(d, 0, sizeof(*d));
	ret = btrfs_walk_extents(fs_info, logical, logical + 1, find_one, &f);
	if (ret < 0)
		return ret;
	return f.found ? 0 : -ENOENT;
}

int btrfs_walk_block_groups(struct btrfs_fs_info *fs_info, btrfs_bg_fn fn,
			    void *ctx)
{
	struct btrfs_root *root = btrfs_block_group_root(fs_info);
	struct btrfs_key key = { 0, BTRFS_BLOCK_GROUP_ITEM_KEY, 0 }, resume;
	struct btrfs_block_group_item *bi;
	struct btrfs_bg_desc bg;
	struct btrfs_path path;
	int ret, stop = 0, damaged = 0;

	if (!root->node) {
		btrfs_err(&fs_info->reporter, "the %s tree cannot be read",
			  root == &fs_info->extent_root ? "extent" : "block group");
		return -EIO;
	}
	resume = key;
	for (;;) {
		ret = btrfs_search_first(root, &resume, &path);
		while (ret == 0 && !stop) {
			btrfs_path_key(&path, &key);
			if (key.type != BTRFS_BLOCK_GROUP_ITEM_KEY) {
				/* not one */
			} else if (btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*bi)) {
				btrfs_err(&fs_info->reporter,
					  "block group %llu: item too small",
					  (unsigned long long)key.objectid);
				damaged = -EUCLEAN;
			} else {
				bi = btrfs_item_ptr(path.nodes[0], path.slots[0],
						    struct btrfs_block_group_item);
				bg.start = key.objectid;
				bg.length = key.offset;
				bg.flags = btrfs_block_group_flags(bi);
				bg.used = btrfs_block_group_used(bi);
				stop = fn(ctx, &bg);
				if (stop)
					break;
			}
			ret = btrfs_next_item(root, &path);
		}
		btrfs_release_path(&path);
		if (stop || ret >= 0)
			break;
		damaged = ret;
		ret = btrfs_key_after_bad_subtree(root, &key, &resume);
		btrfs_err(&fs_info->reporter,
			  "block groups: cannot read the items after (%llu %u %llu): %s%s",
			  (unsigned long long)key.objectid, key.type,
			  (unsigned long long)key.offset, strerror(-damaged),
			  ret ? "" : "; skipped the unreadable part");
		if (ret)
			break;
	}
	if (stop)
		return stop;
	return ret < 0 ? ret : damaged;
}

/* ---- the resolver ---- */

#define ROOT_MEMO_SLOTS		4096
#define NAME_CACHE_SETS		2048
#define NAME_CACHE_WAYS		4

/*
 * What is known of one tree block: the trees that reach it, or why they
 * cannot be found (err, a damaged extent tree or parent), and whether the
 * block itself could not be read as a leaf (leaf_err).  Failures are
 * remembered like answers, so the data extents of a leaf the resolver
 * cannot place do not walk the same damage again one by one; the table is
 * direct mapped, so what it remembers is bounded.
 */
struct root_memo {
	u64 bytenr;		/* 0: empty */
	u64 *roots;
	int nr;
	int err;		/* -errno: the roots cannot be found */
	int leaf_err;		/* -errno: the block cannot be read as a leaf */
};

struct name_entry {
	u64 root;
	u64 ino;		/* 0: empty */
	u64 parent;
	u64 last_use;
	u16 name_len;
	char name[BTRFS_NAME_LEN];
};

struct open_root {
	u64 id;
	struct btrfs_root root;
	bool ok;
};

struct btrfs_owner_resolver {
	struct btrfs_fs_info *fs_info;
	struct open_root *roots;
	size_t nr_roots, alloc_roots;
	struct root_memo *memo;		/* direct mapped by bytenr */
	struct name_entry *names;	/* NAME_CACHE_SETS x NAME_CACHE_WAYS, LRU per set */
	u64 clock;
	u64 *scratch;			/* btrfs_tree_block_roots() result */
	size_t nr_scratch, alloc_scratch;
	u64 errors;
};

struct btrfs_owner_resolver *btrfs_owner_resolver_new(struct btrfs_fs_info *fs_info)
{
	struct btrfs_owner_resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fs_info = fs_info;
	r->memo = calloc(ROOT_MEMO_SLOTS, sizeof(*r->memo));
	r->names = calloc((size_t)NAME_CACHE_SETS * NAME_CACHE_WAYS, sizeof(*r->names));
	if (!r->memo || !r->names) {
		btrfs_owner_resolver_free(r);
		return NULL;
	}
	return r;
}

void btrfs_owner_resolver_free(struct btrfs_owner_resolver *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_roots; i++)
		if (r->roots[i].ok)
			btrfs_release_root(&r->roots[i].root);
	free(r->roots);
	if (r->memo)
		for (i = 0; i < ROOT_MEMO_SLOTS; i++)
			free(r->memo[i].roots);
	free(r->memo);
	free(r->names);
	free(r->scratch);
	free(r);
}

u64 btrfs_owner_resolver_errors(const struct btrfs_owner_resolver *r)
{
	return r->errors;
}

struct btrfs_root *btrfs_owner_root(struct btrfs_owner_resolver *r, u64 root_id)
{
	struct btrfs_fs_info *fs_info = r->fs_info;
	struct open_root *o;
	size_t i;
	int ret;

	if (root_id == BTRFS_EXTENT_TREE_OBJECTID)
		return fs_info->extent_root.node ? &fs_info->extent_root : NULL;
	if (root_id == BTRFS_ROOT_TREE_OBJECTID)
		return fs_info->tree_root.node ? &fs_info->tree_root : NULL;
	if (root_id == BTRFS_CHUNK_TREE_OBJECTID)
		return fs_info->chunk_root.node ? &fs_info->chunk_root : NULL;
	for (i = 0; i < r->nr_roots; i++)
		if (r->roots[i].id == root_id)
			return r->roots[i].ok ? &r->roots[i].root : NULL;
	if (ARRAY_RESERVE(r->roots, r->alloc_roots, r->nr_roots + 1, 8))
		return NULL;
	o = &r->roots[r->nr_roots++];
	memset(o, 0, sizeof(*o));
	o->id = root_id;
	ret = btrfs_read_root(fs_info, root_id, &o->root);
	o->ok = ret == 0 && o->root.node;
	if (!o->ok) {
		if (ret == 0)
			btrfs_release_root(&o->root);
		r->errors++;
		btrfs_err(&fs_info->reporter, "tree %llu cannot be read: %s",
			  (unsigned long long)root_id,
			  strerror(ret ? -ret : EIO));
	}
	return o->ok ? &o->root : NULL;
}

static int add_unique(u64 **v, size_t *nr, size_t *alloc, u64 x)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if ((*v)[i] == x)
			return 0;
	if (array_reserve(v, alloc, *nr + 1, sizeof(**v), 8))
		return -ENOMEM;
	(*v)[(*nr)++] = x;
	return 0;
}

struct root_set {
	u64 *v;
	size_t nr, alloc;
};

static int collect_roots(struct btrfs_owner_resolver *r, u64 bytenr, int depth,
			 struct root_set *out);

/*
 * The parent of tree block @eb in tree @root_id: the node one level up on
 * the path to its first key.  0 with *@parent = 0 when @eb is the root.
 */
static int find_parent_in(struct btrfs_owner_resolver *r, u64 root_id,
			  struct extent_buffer *eb, u64 *parent)
{
	struct btrfs_root *root = btrfs_owner_root(r, root_id);
	int level = btrfs_eb_level(eb);
	struct btrfs_path path;
	struct btrfs_key key;
	int ret;

	*parent = 0;
	if (!root)
		return -ENOENT;
	if (root->node->start == eb->start)
		return 0;
	if (level + 1 >= BTRFS_MAX_LEVEL || btrfs_eb_level(root->node) <= level)
		return -ENOENT;
	if (!btrfs_eb_nritems(eb))
		return -ENOENT;
	if (level)
		btrfs_node_key_to_cpu(eb, &key, 0);
	else
		btrfs_item_key_to_cpu(eb, &key, 0);
	btrfs_init_path(&path);
	path.lowest_level = level + 1;
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret >= 0 && path.nodes[level + 1]) {
		struct extent_buffer *p = path.nodes[level + 1];
		int slot = path.slots[level + 1];

		if (slot < (int)btrfs_eb_nritems(p) &&
		    btrfs_node_blockptr(p, slot) == eb->start)
			*parent = p->start;
		ret = *parent ? 0 : -ENOENT;
	} else if (ret >= 0) {
		ret = -ENOENT;
	}
	btrfs_release_path(&path);
	return ret;
}

static struct root_memo *memo_slot(struct btrfs_owner_resolver *r, u64 bytenr)
{
	return &r->memo[(bytenr / 4096 * 0x9E3779B97F4A7C15ULL >> 40) % ROOT_MEMO_SLOTS];
}

/*
 * The trees reaching @parent, found above @bytenr in tree @root_id.  When
 * they cannot be found (the parent's extent item or an ancestor is
 * damaged), the search that found the parent in @root_id still proves that
 * tree reaches it: that one is kept (others sharing the parent may be
 * missed), and the damage is said once per parent.
 */
static int parent_roots(struct btrfs_owner_resolver *r, u64 bytenr, u64 parent,
			u64 root_id, int depth, struct root_set *set)
{
	const struct root_memo *m = memo_slot(r, parent);
	bool known = m->bytenr == parent && m->err;
	int ret;

	ret = collect_roots(r, parent, depth + 1, set);
	if (!ret || ret == -ENOMEM || ret == -ELOOP)
		return ret;
	if (!known) {
		r->errors++;
		btrfs_err(&r->fs_info->reporter,
			  "tree block %llu: cannot find the trees that reach it: %s; its children (such as %llu) are counted in tree %llu, which holds it, only",
			  (unsigned long long)parent, strerror(-ret),
			  (unsigned long long)bytenr, (unsigned long long)root_id);
	}
	return add_unique(&set->v, &set->nr, &set->alloc, root_id);
}

static int roots_from_refs(struct btrfs_owner_resolver *r, u64 bytenr, int depth,
			   struct root_set *set)
{
	struct btrfs_fs_info *fs_info = r->fs_info;
	struct tree_block_check check = { .level = -1 };
	struct btrfs_extent_desc d;
	struct extent_buffer *eb = NULL;
	size_t i;
	u64 parent;
	int ret, err = 0;

	ret = btrfs_find_extent(fs_info, bytenr, &d);
	if (ret)
		return ret;
	if (d.bytenr != bytenr || !(d.flags & BTRFS_EXTENT_FLAG_TREE_BLOCK)) {
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; i < d.nr_backrefs && !ret; i++) {
		const struct btrfs_extent_backref *b = &d.backrefs[i];

		if (b->type == BTRFS_SHARED_BLOCK_REF_KEY) {
			ret = collect_roots(r, b->parent, depth + 1, set);
			continue;
		}
		if (b->type != BTRFS_TREE_BLOCK_REF_KEY)
			continue;
		if (!eb) {
			eb = read_tree_block(fs_info, bytenr, &check, &err);
			if (!eb) {
				ret = err ? err : -EIO;
				break;
			}
		}
		if (find_parent_in(r, b->root, eb, &parent))
			continue;	/* not (or no longer) in that tree */
		if (!parent) {
			ret = add_unique(&set->v, &set->nr, &set->alloc, b->root);
			continue;
		}
		ret = parent_roots(r, bytenr, parent, b->root, depth, set);
	}
out:
	free_extent_buffer(eb);
	btrfs_extent_desc_release(&d);
	return ret;
}

static int collect_roots(struct btrfs_owner_resolver *r, u64 bytenr, int depth,
			 struct root_set *out)
{
	struct root_memo *m = memo_slot(r, bytenr);
	struct root_set set = { 0 };
	size_t i;
	int ret;

	if (depth > 2 * BTRFS_MAX_LEVEL)
		return -ELOOP;
	if (m->bytenr == bytenr && m->err)
		return m->err;
	if (m->bytenr != bytenr || !m->roots) {
		ret = roots_from_refs(r, bytenr, depth, &set);
		free(m->roots);
		memset(m, 0, sizeof(*m));
		if (ret) {
			free(set.v);
			/* out of memory says nothing about the block */
			if (ret != -ENOMEM) {
				m->bytenr = bytenr;
				m->err = ret;
			}
			return ret;
		}
		m->bytenr = bytenr;
		m->roots = set.v ? set.v : malloc(sizeof(u64));
		m->nr = (int)set.nr;
		if (!m->roots) {
			m->bytenr = 0;
			return -ENOMEM;
		}
	}
	/* copy first: adding may recurse into nothing, but keep it simple */
	for (i = 0; i < (size_t)m->nr; i++) {
		ret = add_unique(&out->v, &out->nr, &out->alloc, m->roots[i]);
		if (ret)
			return ret;
	}
	return 0;
}

int btrfs_tree_block_roots(struct btrfs_owner_resolver *r, u64 bytenr,
			   const u64 **roots)
{
	struct root_set set = { r->scratch, 0, r->alloc_scratch };
	const struct root_memo *m = memo_slot(r, bytenr);
	bool known = m->bytenr == bytenr && m->err;
	int ret;

	ret = collect_roots(r, bytenr, 0, &set);
	r->scratch = set.v;
	r->alloc_scratch = set.alloc;
	r->nr_scratch = set.nr;
	if (ret) {
		/* said once per block (while the memo holds it) */
		if (!known) {
			r->errors++;
			btrfs_err(&r->fs_info->reporter,
				  "tree block %llu: cannot find the trees that reach it: %s",
				  (unsigned long long)bytenr, strerror(-ret));
		}
		return ret;
	}
	*roots = r->scratch;
	return (int)set.nr;
}

/* ---- data extent owners ---- */

static bool file_extent_refs(const struct extent_buffer *eb, int slot, u64 bytenr,
			     const struct btrfs_file_extent_item **fip)
{
	const struct btrfs_file_extent_item *fi;
	u8 type;

	if (btrfs_item_size(eb, slot) < sizeof(*fi))
		return false;
	fi = btrfs_item_ptr(eb, slot, struct btrfs_file_extent_item);
	type = btrfs_file_extent_type(fi);
	if (type != BTRFS_FILE_EXTENT_REG && type != BTRFS_FILE_EXTENT_PREALLOC)
		return false;
	*fip = fi;
	return btrfs_file_extent_disk_bytenr(fi) == bytenr;
}

/* the leaves of tree @ref->root holding the items a keyed data ref counts */
static int leaves_of_keyed_ref(struct btrfs_owner_resolver *r,
			       const struct btrfs_extent_desc *d,
			       const struct btrfs_extent_backref *ref,
			       struct root_set *leaves)
{
	struct btrfs_root *root = btrfs_owner_root(r, ref->root);
	struct btrfs_key key = { ref->objectid, BTRFS_EXTENT_DATA_KEY, ref->offset };
	const struct btrfs_file_extent_item *fi;
	struct btrfs_path path;
	u32 found = 0;
	int ret;

	if (!root)
		return 0;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != ref->objectid || key.type != BTRFS_EXTENT_DATA_KEY ||
		    key.offset - ref->offset > MAX_EXTENT_BYTES)
			break;
		if (file_extent_refs(path.nodes[0], path.slots[0], d->bytenr, &fi) &&
		    key.offset >= btrfs_file_extent_offset(fi) &&
		    key.offset - btrfs_file_extent_offset(fi) == ref->offset) {
			ret = add_unique(&leaves->v, &leaves->nr, &leaves->alloc,
					 path.nodes[0]->start);
			if (ret || (ref->count && ++found >= ref->count))
				break;
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0) {
		r->errors++;
		btrfs_err(&r->fs_info->reporter,
			  "data extent %llu: cannot search tree %llu for inode %llu: %s",
			  (unsigned long long)d->bytenr, (unsigned long long)ref->root,
			  (unsigned long long)ref->objectid, strerror(-ret));
	}
	return ret == -ENOMEM ? ret : 0;
}

/* every referencing item in @leaf, once for each fs tree in @roots */
static int owners_in_leaf(struct btrfs_owner_resolver *r,
			  const struct btrfs_extent_desc *d, u64 pos, u64 leaf,
			  const u64 *roots, size_t nr_roots,
			  btrfs_owner_fn fn, void *ctx)
{
	struct tree_block_check check = { .level = 0 };
	const struct btrfs_file_extent_item *fi;
	struct btrfs_data_owner o = { .leaf = leaf };
	struct extent_buffer *eb;
	struct btrfs_key key;
	u32 slot, nr;
	size_t i;
	int err = 0, ret = 0;

	struct root_memo *m = memo_slot(r, leaf);

	if (m->bytenr == leaf && m->leaf_err)
		return 0;	/* said when it first failed */
	eb = read_tree_block(r->fs_info, leaf, &check, &err);
	if (!eb) {
		r->errors++;
		btrfs_err(&r->fs_info->reporter,
			  "data extent %llu: cannot read leaf %llu: %s",
			  (unsigned long long)d->bytenr, (unsigned long long)leaf,
			  strerror(err ? -err : EIO));
		/* the roots of the leaf were just found: its memo entry is there */
		if (m->bytenr == leaf && err != -ENOMEM)
			m->leaf_err = err ? err : -EIO;
		return 0;
	}
	nr = btrfs_eb_nritems(eb);
	for (slot = 0; slot < nr && !ret; slot++) {
		btrfs_item_key_to_cpu(eb, &key, slot);
		if (key.type != BTRFS_EXTENT_DATA_KEY ||
		    !file_extent_refs(eb, slot, d->bytenr, &fi))
			continue;
		o.ino = key.objectid;
		o.file_offset = key.offset;
		o.compression = btrfs_file_extent_compression(fi);
		if (pos != (u64)-1 && !btrfs_file_extent_compression(fi) &&
		    !btrfs_file_extent_encryption(fi) &&
		    !btrfs_file_extent_other_encoding(fi)) {
			u64 off = btrfs_file_extent_offset(fi);

			if (pos < off || pos - off >= btrfs_file_extent_num_bytes(fi))
				continue;
			o.file_offset = key.offset + (pos - off);
		}
		for (i = 0; i < nr_roots && !ret; i++) {
			if (!btrfs_is_subvol_tree(roots[i]))
				continue;
			o.root = roots[i];
			ret = fn(ctx, &o);
		}
	}
	free_extent_buffer(eb);
	return ret;
}

int btrfs_data_extent_owners(struct btrfs_owner_resolver *r,
			     const struct btrfs_extent_desc *d, u64 pos,
			     btrfs_owner_fn fn, void *ctx)
{
	struct root_set leaves = { 0 };
	u64 *roots = NULL, *found_in = NULL;	/* found_in[i]: tree searched for leaf i */
	size_t i, j, nr_roots = 0, alloc = 0, alloc_in = 0;
	const u64 *found;
	int ret = 0, n;

	for (i = 0; i < d->nr_backrefs && !ret; i++) {
		const struct btrfs_extent_backref *b = &d->backrefs[i];
		size_t before = leaves.nr;

		if (b->type == BTRFS_EXTENT_DATA_REF_KEY)
			ret = leaves_of_keyed_ref(r, d, b, &leaves);
		else if (b->type == BTRFS_SHARED_DATA_REF_KEY)
			ret = add_unique(&leaves.v, &leaves.nr, &leaves.alloc, b->parent);
		if (!ret && ARRAY_RESERVE(found_in, alloc_in, leaves.nr, 8))
			ret = -ENOMEM;
		for (j = before; j < leaves.nr && !ret; j++)
			found_in[j] = b->type == BTRFS_EXTENT_DATA_REF_KEY ? b->root : 0;
	}
	for (i = 0; i < leaves.nr && !ret; i++) {
		n = btrfs_tree_block_roots(r, leaves.v[i], &found);
		if (n == -ENOMEM) {
			ret = n;
			break;
		}
		/*
		 * The trees reaching the leaf cannot be found (said): the tree
		 * whose search found it still holds it.
		 */
		if (n < 0 && found_in[i]) {
			found = &found_in[i];
			n = 1;
		}
		if (n <= 0)
			continue;
		/* the resolver's array changes with the next call */
		if (ARRAY_RESERVE(roots, alloc, (size_t)n, 8)) {
			ret = -ENOMEM;
			break;
		}
		memcpy(roots, found, n * sizeof(*roots));
		nr_roots = n;
		ret = owners_in_leaf(r, d, pos, leaves.v[i], roots, nr_roots, fn, ctx);
	}
	free(roots);
	free(found_in);
	free(leaves.v);
	return ret;
}

/* ---- paths ---- */

static struct name_entry *name_set(struct btrfs_owner_resolver *r, u64 root, u64 ino)
{
	u64 h = (ino * 0x9E3779B97F4A7C15ULL) ^ (root * 0xC2B2AE3D27D4EB4FULL);

	return &r->names[(h >> 32) % NAME_CACHE_SETS * NAME_CACHE_WAYS];
}

static const struct name_entry *name_lookup(struct btrfs_owner_resolver *r,
					    u64 root, u64 ino)
{
	struct name_entry *set = name_set(r, root, ino);
	int i;

	for (i = 0; i < NAME_CACHE_WAYS; i++) {
		if (set[i].ino == ino && set[i].root == root) {
			set[i].last_use = ++r->clock;
			return &set[i];
		}
	}
	return NULL;
}

static void name_insert(struct btrfs_owner_resolver *r, u64 root, u64 ino,
			u64 parent, const char *name, u16 len)
{
	struct name_entry *set = name_set(r, root, ino), *victim = &set[0];
	int i;

	for (i = 1; i < NAME_CACHE_WAYS; i++)
		if (set[i].last_use < victim->last_use)
			victim = &set[i];
	victim->root = root;
	victim->ino = ino;
	victim->parent = parent;
	victim->name_len = len;
	memcpy(victim->name, name, len);
	victim->last_use = ++r->clock;
}

/*
 * Each name of @ino: (parent dir, name) from its INODE_REF and
 * INODE_EXTREF items.  @fn returns non-zero to stop.
 */
typedef int (*name_fn)(void *ctx, u64 parent, const char *name, u16 len);

static int for_each_name(struct btrfs_root *root,
			 u64 ino, name_fn fn, void *ctx)
{
	struct btrfs_key key = { ino, BTRFS_INODE_REF_KEY, 0 };
	struct btrfs_path path;
	int ret, stop = 0;

	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0 && !stop) {
		struct btrfs_name_entry e = { 0 };

		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type > BTRFS_INODE_EXTREF_KEY)
			break;
		while (!stop && btrfs_next_item_name(path.nodes[0], path.slots[0], &e) > 0 &&
		       e.name_len <= BTRFS_NAME_LEN)
			stop = fn(ctx, key.type == BTRFS_INODE_REF_KEY ? key.offset : e.parent,
				  (const char *)e.name, (u16)e.name_len);
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0)
		return ret;
	return stop < 0 ? stop : 0;
}

struct first_name {
	u64 parent;
	char name[BTRFS_NAME_LEN];
	u16 len;
	bool found;
};

static int take_first_name(void *ctx, u64 parent, const char *name, u16 len)
{
	struct first_name *f = ctx;

	f->parent = parent;
	memcpy(f->name, name, len);
	f->len = len;
	f->found = true;
	return 1;
}

/*
 * Prepend the path of directory @dir (in @root) to the buffer whose used
 * tail starts at *@pos: the names up to the subvolume's top directory.
 */
static int prepend_dir_path(struct btrfs_owner_resolver *r, struct btrfs_root *root,
			    u64 dir, char *buf, size_t *pos)
{
	u64 top = root->has_root_item ? btrfs_root_dirid(&root->root_item) :
		  BTRFS_FIRST_FREE_OBJECTID;
	u64 root_id = root->root_key.objectid;
	int depth = 0, ret;

	if (!top)
		top = BTRFS_FIRST_FREE_OBJECTID;
	while (dir != top) {
		const struct name_entry *e = name_lookup(r, root_id, dir);
		struct first_name f = { 0 };
		const char *name;
		u16 len;
		u64 parent;

		if (++depth > MAX_PATH_DEPTH)
			return -ELOOP;
		if (e) {
			name = e->name;
			len = e->name_len;
			parent = e->parent;
		} else {
			ret = for_each_name(root, dir, take_first_name, &f);
			if (ret)
				return ret;
			if (!f.found)
				return -ENOENT;
			name_insert(r, root_id, dir, f.parent, f.name, f.len);
			name = f.name;
			len = f.len;
			parent = f.parent;
		}
		if (parent == dir || *pos < (size_t)len + 1)
			return parent == dir ? -ELOOP : -ENAMETOOLONG;
		*pos -= len;
		memcpy(buf + *pos, name, len);
		buf[--*pos] = '/';
		dir = parent;
	}
	return 0;
}

struct paths_ctx {
	struct btrfs_owner_resolver *r;
	struct btrfs_root *root;
	btrfs_path_fn fn;
	void *ctx;
	int nr;
	int err;
};

static int emit_path(void *ctx, u64 parent, const char *name, u16 len)
{
	struct paths_ctx *pc = ctx;
	char buf[MAX_PATH_BYTES + 1];
	size_t pos = MAX_PATH_BYTES - len;
	int ret;

	buf[MAX_PATH_BYTES] = 0;
	memcpy(buf + pos, name, len);
	buf[--pos] = '/';
	ret = prepend_dir_path(pc->r, pc->root, parent, buf, &pos);
	if (ret) {
		pc->err = ret;
		return 0;	/* other names may still resolve */
	}
	if (buf[pos] == '/')
		pos++;
	pc->nr++;
	return pc->fn(pc->ctx, buf + pos);
}

int btrfs_inode_paths(struct btrfs_owner_resolver *r, u64 root_id, u64 ino,
		      btrfs_path_fn fn, void *ctx)
{
	struct btrfs_root *root = btrfs_owner_root(r, root_id);
	struct paths_ctx pc = { r, root, fn, ctx, 0, 0 };
	u64 top;
	int ret;

	if (!root)
		return -ENOENT;
	top = root->has_root_item ? btrfs_root_dirid(&root->root_item) : 0;
	if (ino == (top ? top : BTRFS_FIRST_FREE_OBJECTID)) {
		ret = fn(ctx, "");
		return ret < 0 ? ret : 1;
	}
	ret = for_each_name(root, ino, emit_path, &pc);
	if (ret < 0)
		return ret;
	if (pc.err && !pc.nr) {
		r->errors++;
		btrfs_err(&r->fs_info->reporter,
			  "tree %llu inode %llu: cannot build its path: %s",
			  (unsigned long long)root_id, (unsigned long long)ino,
			  strerror(-pc.err));
		return pc.err;
	}
	return pc.nr;
}

/* (parent tree, directory, name) of subvolume @root from its ROOT_BACKREF */
static int subvol_backref(struct btrfs_owner_resolver *r, u64 root_id, u64 *parent,
			  u64 *dirid, char *name, u16 *len)
{
	struct btrfs_root *tree = &r->fs_info->tree_root;
	struct btrfs_key key = { root_id, BTRFS_ROOT_BACKREF_KEY, 0 };
	struct btrfs_path path;
	int ret;

	if (!tree->node)
		return -EIO;
	ret = btrfs_search_first(tree, &key, &path);
	if (ret == 0) {
		const struct extent_buffer *eb = path.nodes[0];
		const struct btrfs_root_ref *ref;
		u32 size = btrfs_item_size(eb, path.slots[0]);

		btrfs_path_key(&path, &key);
		ref = btrfs_item_ptr(eb, path.slots[0], struct btrfs_root_ref);
		if (key.objectid != root_id || key.type != BTRFS_ROOT_BACKREF_KEY) {
			ret = -ENOENT;
		} else if (size < sizeof(*ref) ||
			   btrfs_root_ref_name_len(ref) > size - sizeof(*ref) ||
			   btrfs_root_ref_name_len(ref) > BTRFS_NAME_LEN) {
			ret = -EUCLEAN;
		} else {
			*parent = key.offset;
			*dirid = btrfs_root_ref_dirid(ref);
			*len = btrfs_root_ref_name_len(ref);
			memcpy(name, ref + 1, *len);
		}
	}
	btrfs_release_path(&path);
	return ret == 1 ? -ENOENT : ret;
}

int btrfs_subvol_path(struct btrfs_owner_resolver *r, u64 root_id, char *buf,
		      size_t len)
{
	char tmp[MAX_PATH_BYTES + 1], name[BTRFS_NAME_LEN];
	size_t pos = MAX_PATH_BYTES;
	u64 parent, dirid;
	struct btrfs_root *proot;
	int depth = 0, ret;
	u16 nlen;

	tmp[MAX_PATH_BYTES] = 0;
	while (root_id != BTRFS_FS_TREE_OBJECTID) {
		if (++depth > MAX_PATH_DEPTH)
			return -ELOOP;
		ret = subvol_backref(r, root_id, &parent, &dirid, name, &nlen);
		if (ret)
			return ret;
		if (pos < (size_t)nlen + 1)
			return -ENAMETOOLONG;
		pos -= nlen;
		memcpy(tmp + pos, name, nlen);
		tmp[--pos] = '/';
		proot = btrfs_owner_root(r, parent);
		if (!proot)
			return -ENOENT;
		ret = prepend_dir_path(r, proot, dirid, tmp, &pos);
		if (ret)
			return ret;
		root_id = parent;
	}
	if (tmp[pos] == '/')
		pos++;
	if (MAX_PATH_BYTES - pos + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf, tmp + pos, MAX_PATH_BYTES - pos + 1);
	return 0;
}

/* ---- physical to logical ---- */

u64 btrfs_stripe_dev_bytes(const struct map_lookup *ml, int *nr_data)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int n = ml->num_stripes;

	*nr_data = n;
	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		return ml->length / n;
	case BTRFS_BLOCK_GROUP_RAID10:
		*nr_data = n / (ml->sub_stripes ? ml->sub_stripes : 2);
		return *nr_data ? ml->length / *nr_data : 0;
	case BTRFS_BLOCK_GROUP_RAID5:
		*nr_data = n - 1;
		return *nr_data > 0 ? ml->length / *nr_data : 0;
	case BTRFS_BLOCK_GROUP_RAID6:
		*nr_data = n - 2;
		return *nr_data > 0 ? ml->length / *nr_data : 0;
	}
	*nr_data = 1;
	return ml->length;
}

void btrfs_stripe_offset_to_logical(const struct map_lookup *ml, int idx, u64 dev_off,
				    struct btrfs_physical_hit *hit)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	u64 sl = ml->stripe_len ? ml->stripe_len : BTRFS_STRIPE_LEN;
	u64 row = dev_off / sl, in = dev_off % sl;
	int n = ml->num_stripes, nr_data, j;

	hit->chunk_logical = ml->logical;
	hit->chunk_type = ml->type;
	hit->stripe = idx;
	hit->parity = false;
	btrfs_stripe_dev_bytes(ml, &nr_data);
	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		hit->logical = ml->logical + (row * n + idx) * sl + in;
		return;
	case BTRFS_BLOCK_GROUP_RAID10:
		hit->logical = ml->logical +
			(row * nr_data + idx / (n / nr_data)) * sl + in;
		return;
	case BTRFS_BLOCK_GROUP_RAID5:
	case BTRFS_BLOCK_GROUP_RAID6:
		/* data stripe j of full stripe @row sits on device (j + row) % n */
		j = (int)(((u64)idx + n - row % n) % n);
		if (j >= nr_data) {
			hit->parity = true;
			hit->parity_index = j - nr_data;
			hit->logical = ml->logical + row * nr_data * sl;
			return;
		}
		hit->logical = ml->logical + (row * nr_data + j) * sl + in;
		return;
	}
	hit->logical = ml->logical + dev_off;
}

int btrfs_physical_to_logical(struct btrfs_fs_info *fs_info, u64 devid,
			      u64 physical, struct btrfs_physical_hit *hit)
{
	const struct chunk_map *map = &fs_info->chunk_map;
	size_t i;
	int s, nr_data;

	for (i = 0; i < map->nr; i++) {
		const struct map_lookup *ml = map->maps[i];
		u64 per_dev = btrfs_stripe_dev_bytes(ml, &nr_data);

		for (s = 0; s < ml->num_stripes; s++) {
			const struct map_stripe *st = &ml->stripes[s];

			if (st->devid != devid || physical < st->physical ||
			    physical - st->physical >= per_dev)
				continue;
			btrfs_stripe_offset_to_logical(ml, s, physical - st->physical, hit);
			return 0;
		}
	}
	return -ENOENT;
}
