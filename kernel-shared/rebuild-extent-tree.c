// SPDX-License-Identifier: GPL-2.0
/*
 * check --init-extent-tree: a new extent tree from a walk of every tree.
 *
 * Memory grows with the metadata only: a visited set (16 bytes per tree
 * block at most half full), 56 bytes per tree block, 16 per pointer, 48
 * per file extent item of a distinct leaf, all in flat arrays sorted in
 * place; no per-extent heap nodes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "rebuild-extent-tree.h"
#include "accessors.h"
#include "block-group.h"
#include "ctree.h"
#include "extent-io-tree.h"
#include "extent-tree.h"
#include "extent_io.h"
#include "transaction.h"

#define TB_REACHED	(1U << 0)	/* its owner root reaches it */
#define TB_FULL		(1U << 1)	/* FULL_BACKREF */

struct tb_rec {
	u64 bytenr;
	u64 owner;
	u64 gen;
	u8 level;
	u8 flags;
	/* without skinny metadata: the first key, for the tree block info */
	struct btrfs_disk_key first_key;
};

struct edge_rec {
	u64 child;
	u64 parent;
};

struct root_ref_rec {
	u64 node;
	u64 root;
};

/*
 * A data reference of one file extent item: @a is the leaf, until
 * build_data_refs() makes it the root (keyed) or leaves it (shared, ino -1).
 */
struct dref_rec {
	u64 bytenr;
	u64 num_bytes;
	u64 a;			/* leaf, then root (keyed) or parent (shared) */
	u64 ino;
	u64 offset;
	u64 gen;		/* of the file extent item */
};

/* a tree block reference */
struct tref_rec {
	u64 bytenr;
	u64 value;		/* root (keyed) or parent (shared) */
	u8 type;
};

/* where an interrupted snapshot deletion stopped (root item drop_progress) */
struct drop_point {
	bool has;
	struct btrfs_key key;
	int level;
};

struct root_todo {
	u64 objectid;
	u64 bytenr;
	u64 gen;
	u8 level;
	struct drop_point drop;
};

#define ARR(T) struct { T *v; size_t nr, alloc; }

struct rebuild {
	struct btrfs_fs_info *fs;
	ARR(struct tb_rec) tb;
	ARR(struct edge_rec) edges;
	ARR(struct root_ref_rec) roots;
	ARR(struct dref_rec) drefs;
	ARR(struct tref_rec) trefs;
	ARR(struct root_todo) todo;
	u64 *set;		/* visited tree blocks, open addressing, 0 = empty */
	size_t set_size, set_nr;
	struct btrfs_extent_rebuild_stats *st;
};

#define ARR_PUSH(a, val) ({						\
	int __r = 0;							\
	if ((a).nr == (a).alloc) {					\
		size_t __n = (a).alloc ? (a).alloc * 2 : 1024;		\
		void *__p = realloc((a).v, __n * sizeof(*(a).v));	\
		if (__p) {						\
			(a).v = __p;					\
			(a).alloc = __n;				\
		} else {						\
			__r = -ENOMEM;					\
		}							\
	}								\
	if (!__r)							\
		(a).v[(a).nr++] = (val);				\
	__r;								\
})

/* ---- the visited set ---- */

static size_t set_slot(u64 key, size_t size)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (size - 1);
}

/* 1 when @bytenr was in the set already, 0 added, -ENOMEM */
static int set_add(struct rebuild *rb, u64 bytenr)
{
	size_t i;

	if ((rb->set_nr + 1) * 2 > rb->set_size) {
		size_t n = rb->set_size ? rb->set_size * 2 : 4096, j;
		u64 *v = calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (j = 0; j < rb->set_size; j++) {
			if (!rb->set[j])
				continue;
			for (i = set_slot(rb->set[j], n); v[i]; i = (i + 1) & (n - 1))
				;
			v[i] = rb->set[j];
		}
		free(rb->set);
		rb->set = v;
		rb->set_size = n;
	}
	for (i = set_slot(bytenr, rb->set_size); rb->set[i]; i = (i + 1) & (rb->set_size - 1)) {
		if (rb->set[i] == bytenr)
			return 1;
	}
	rb->set[i] = bytenr;
	rb->set_nr++;
	return 0;
}

/* ---- the walk ---- */

static int leaf_items(struct rebuild *rb, const struct extent_buffer *eb, u64 tree)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	bool data = tree == BTRFS_ROOT_TREE_OBJECTID || btrfs_is_file_tree(tree);
	int ret;

	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		u32 size = btrfs_item_size(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (data && key.type == BTRFS_EXTENT_DATA_KEY &&
		    size >= sizeof(struct btrfs_file_extent_item)) {
			const struct btrfs_file_extent_item *fi =
				btrfs_item_ptr(eb, (int)i, struct btrfs_file_extent_item);
			u8 type = btrfs_file_extent_type(fi);
			struct dref_rec d;

			if (type != BTRFS_FILE_EXTENT_REG && type != BTRFS_FILE_EXTENT_PREALLOC)
				continue;
			if (!btrfs_file_extent_disk_bytenr(fi))
				continue;	/* a hole */
			d.bytenr = btrfs_file_extent_disk_bytenr(fi);
			d.num_bytes = btrfs_file_extent_disk_num_bytes(fi);
			d.a = eb->start;
			d.ino = key.objectid;
			d.offset = key.offset - btrfs_file_extent_offset(fi);
			d.gen = btrfs_file_extent_generation(fi);
			if (!d.num_bytes || d.bytenr + d.num_bytes < d.bytenr) {
				snprintf(rb->st->refused, sizeof(rb->st->refused),
					 "file extent (%llu EXTENT_DATA %llu) in leaf %llu: disk bytenr %llu disk_num_bytes %llu",
					 (unsigned long long)key.objectid,
					 (unsigned long long)key.offset,
					 (unsigned long long)eb->start,
					 (unsigned long long)d.bytenr,
					 (unsigned long long)d.num_bytes);
				return -EUCLEAN;
			}
			ret = ARR_PUSH(rb->drefs, d);
			if (ret)
				return ret;
		} else if (tree == BTRFS_ROOT_TREE_OBJECTID && key.type == BTRFS_ROOT_ITEM_KEY &&
			   key.objectid != BTRFS_EXTENT_TREE_OBJECTID &&
			   size >= offsetof(struct btrfs_root_item, level) + 1) {
			struct btrfs_root_item ri;
			struct root_todo t;

			memset(&ri, 0, sizeof(ri));
			memcpy(&ri, btrfs_item_ptr_raw(eb, (int)i),
			       size < sizeof(ri) ? size : sizeof(ri));
			t.objectid = key.objectid;
			t.bytenr = btrfs_root_bytenr(&ri);
			t.gen = btrfs_root_generation(&ri);
			t.level = btrfs_root_level(&ri);
			btrfs_disk_key_to_cpu(&t.drop.key, &ri.drop_progress);
			t.drop.level = btrfs_root_drop_level(&ri);
			t.drop.has = t.drop.key.objectid != 0;
			ret = ARR_PUSH(rb->todo, t);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * In a tree whose deletion was interrupted, the deletion freed whole
 * subtrees in key order up to drop.key at drop.level; the nodes on the
 * search path to that key still stand.  For the child at @slot of such a
 * path node: -1 freed (no reference any more), 0 on the path, 1 intact.
 */
static int drop_state(const struct drop_point *drop, const struct extent_buffer *eb,
		      int slot)
{
	struct btrfs_key key;

	btrfs_node_key_to_cpu(eb, &key, slot);
	if (btrfs_comp_cpu_keys(&key, &drop->key) >= 0)
		return 1;
	if (btrfs_eb_level(eb) <= drop->level)
		return -1;
	if ((u32)slot + 1 < btrfs_eb_nritems(eb)) {
		btrfs_node_key_to_cpu(eb, &key, slot + 1);
		if (btrfs_comp_cpu_keys(&key, &drop->key) <= 0)
			return -1;
	}
	return 0;
}

/* @drop: the block is on the path of an interrupted deletion (else NULL) */
static int walk_block(struct rebuild *rb, struct extent_buffer *eb, u64 tree,
		      const struct drop_point *drop)
{
	struct btrfs_header *h = eb_header(eb);
	struct tb_rec t = {
		.bytenr = eb->start, .owner = btrfs_header_owner(h),
		.gen = btrfs_header_generation(h), .level = btrfs_header_level(h),
	};
	u32 i, nr = btrfs_eb_nritems(eb);
	int ret;

	if (nr && t.level)
		t.first_key = btrfs_key_ptr_nr(eb, 0)->key;
	else if (nr)
		t.first_key = btrfs_item_nr(eb, 0)->key;

	ret = ARR_PUSH(rb->tb, t);
	if (ret)
		return ret;
	if (t.level == 0)
		return leaf_items(rb, eb, tree);
	for (i = 0; i < nr; i++) {
		struct tree_block_check check = {
			.transid = btrfs_node_ptr_generation(eb, (int)i),
			.level = t.level - 1,
		};
		struct edge_rec e = { btrfs_node_blockptr(eb, (int)i), eb->start };
		int state = drop ? drop_state(drop, eb, (int)i) : 1;
		struct extent_buffer *child;
		int err = 0;

		if (state < 0)
			continue;
		ret = ARR_PUSH(rb->edges, e);
		if (ret)
			return ret;
		ret = set_add(rb, e.child);
		if (ret < 0)
			return ret;
		if (ret)
			continue;	/* shared: walked already */
		child = read_tree_block(rb->fs, e.child, &check, &err);
		if (!child)
			return err ? err : -EIO;
		ret = walk_block(rb, child, tree, state == 0 ? drop : NULL);
		free_extent_buffer(child);
		if (ret)
			return ret;
	}
	return 0;
}

static int walk_root(struct rebuild *rb, u64 objectid, u64 bytenr, u64 gen, int level,
		     const struct drop_point *drop)
{
	struct tree_block_check check = { .transid = gen, .level = level };
	struct root_ref_rec r = { bytenr, objectid };
	struct extent_buffer *eb;
	int err = 0, ret;

	ret = ARR_PUSH(rb->roots, r);
	if (ret)
		return ret;
	rb->st->trees++;
	ret = set_add(rb, bytenr);
	if (ret)
		return ret < 0 ? ret : 0;
	eb = read_tree_block(rb->fs, bytenr, &check, &err);
	if (!eb)
		return err ? err : -EIO;
	ret = walk_block(rb, eb, objectid, drop && drop->has ? drop : NULL);
	free_extent_buffer(eb);
	return ret;
}

static int walk_all(struct rebuild *rb)
{
	struct btrfs_super_block *sb = &rb->fs->super_copy;
	size_t i;
	int ret;

	ret = walk_root(rb, BTRFS_ROOT_TREE_OBJECTID, btrfs_super_root(sb),
			btrfs_super_generation(sb), btrfs_super_root_level(sb), NULL);
	if (!ret)
		ret = walk_root(rb, BTRFS_CHUNK_TREE_OBJECTID, btrfs_super_chunk_root(sb),
				btrfs_super_chunk_root_generation(sb),
				btrfs_super_chunk_root_level(sb), NULL);
	/* the root tree's walk queued every root item */
	for (i = 0; !ret && i < rb->todo.nr; i++) {
		struct root_todo t = rb->todo.v[i];

		ret = walk_root(rb, t.objectid, t.bytenr, t.gen, t.level, &t.drop);
	}
	return ret;
}

/* ---- references ---- */

static int cmp_tb(const void *a, const void *b)
{
	const struct tb_rec *x = a, *y = b;

	return x->bytenr < y->bytenr ? -1 : x->bytenr > y->bytenr;
}

static struct tb_rec *tb_find(struct rebuild *rb, u64 bytenr)
{
	struct tb_rec key = { .bytenr = bytenr };

	return bsearch(&key, rb->tb.v, rb->tb.nr, sizeof(key), cmp_tb);
}

/* which blocks their owner reaches: top down through owner-owned parents */
static int mark_full_backref(struct rebuild *rb)
{
	size_t i;
	int level;

	for (i = 0; i < rb->roots.nr; i++) {
		struct tb_rec *t = tb_find(rb, rb->roots.v[i].node);

		if (t && t->owner == rb->roots.v[i].root)
			t->flags |= TB_REACHED;
	}
	for (level = BTRFS_MAX_LEVEL - 1; level > 0; level--) {
		for (i = 0; i < rb->edges.nr; i++) {
			struct tb_rec *p = tb_find(rb, rb->edges.v[i].parent), *c;

			if (!p || p->level != level || !(p->flags & TB_REACHED))
				continue;
			c = tb_find(rb, rb->edges.v[i].child);
			if (c && c->owner == p->owner)
				c->flags |= TB_REACHED;
		}
	}
	for (i = 0; i < rb->tb.nr; i++) {
		struct tb_rec *t = &rb->tb.v[i];

		if (!(t->flags & TB_REACHED) || t->owner == BTRFS_TREE_RELOC_OBJECTID) {
			t->flags |= TB_FULL;
			rb->st->full_backref++;
		}
	}
	return 0;
}

/* refs sort by block, type, then value descending (the inline order) */
static int cmp_tref(const void *a, const void *b)
{
	const struct tref_rec *x = a, *y = b;

	if (x->bytenr != y->bytenr)
		return x->bytenr < y->bytenr ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return 0;
}

static int build_tree_refs(struct rebuild *rb)
{
	size_t i, out = 0;
	int ret;

	for (i = 0; i < rb->roots.nr; i++) {
		struct tref_rec r = { rb->roots.v[i].node, rb->roots.v[i].root,
				      BTRFS_TREE_BLOCK_REF_KEY };

		ret = ARR_PUSH(rb->trefs, r);
		if (ret)
			return ret;
	}
	for (i = 0; i < rb->edges.nr; i++) {
		struct tb_rec *p = tb_find(rb, rb->edges.v[i].parent);
		struct tref_rec r = { .bytenr = rb->edges.v[i].child };

		if (!p)
			return -EUCLEAN;
		if (p->flags & TB_FULL) {
			r.type = BTRFS_SHARED_BLOCK_REF_KEY;
			r.value = p->bytenr;
		} else {
			r.type = BTRFS_TREE_BLOCK_REF_KEY;
			r.value = p->owner;
		}
		ret = ARR_PUSH(rb->trefs, r);
		if (ret)
			return ret;
	}
	/* the pointers are not needed any more */
	free(rb->edges.v);
	memset(&rb->edges, 0, sizeof(rb->edges));
	if (!rb->trefs.nr)
		return 0;
	qsort(rb->trefs.v, rb->trefs.nr, sizeof(*rb->trefs.v), cmp_tref);
	for (i = 1; i < rb->trefs.nr; i++) {
		if (!cmp_tref(&rb->trefs.v[out], &rb->trefs.v[i]))
			continue;	/* the same root through two parents */
		rb->trefs.v[++out] = rb->trefs.v[i];
	}
	rb->trefs.nr = out + 1;
	rb->st->tree_refs = rb->trefs.nr;
	return 0;
}

/* a data ref's type and inline order value (hash or parent) */
struct dkey {
	u8 type;
	u64 seq;
};

static struct dkey dref_key(const struct dref_rec *d)
{
	struct dkey k;

	if (d->ino == (u64)-1) {
		k.type = BTRFS_SHARED_DATA_REF_KEY;
		k.seq = d->a;
	} else {
		k.type = BTRFS_EXTENT_DATA_REF_KEY;
		k.seq = btrfs_extent_data_ref_hash(d->a, d->ino, d->offset);
	}
	return k;
}

static int cmp_dref(const void *a, const void *b)
{
	const struct dref_rec *x = a, *y = b;
	struct dkey kx, ky;

	if (x->bytenr != y->bytenr)
		return x->bytenr < y->bytenr ? -1 : 1;
	kx = dref_key(x);
	ky = dref_key(y);
	if (kx.type != ky.type)
		return kx.type < ky.type ? -1 : 1;
	if (kx.seq != ky.seq)
		return kx.seq > ky.seq ? -1 : 1;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return 0;
}

/*
 * Resolve each file extent item's ref (shared by leaf, or keyed by the
 * leaf's owner), sort, and merge equal refs into one; their counts and
 * lowest generations go to parallel arrays.
 */
static int build_data_refs(struct rebuild *rb, u32 **counts_ret, u64 **gens_ret)
{
	size_t i, out = 0;
	u32 *counts;
	u64 *gens;

	for (i = 0; i < rb->drefs.nr; i++) {
		struct dref_rec *d = &rb->drefs.v[i];
		struct tb_rec *leaf = tb_find(rb, d->a);

		if (!leaf)
			return -EUCLEAN;
		if (leaf->flags & TB_FULL) {
			d->ino = (u64)-1;	/* marks a shared ref */
			d->offset = 0;
		} else {
			d->a = leaf->owner;
		}
	}
	*counts_ret = NULL;
	*gens_ret = NULL;
	if (!rb->drefs.nr)
		return 0;
	qsort(rb->drefs.v, rb->drefs.nr, sizeof(*rb->drefs.v), cmp_dref);
	counts = calloc(rb->drefs.nr, sizeof(*counts));
	gens = calloc(rb->drefs.nr, sizeof(*gens));
	if (!counts || !gens) {
		free(counts);
		free(gens);
		return -ENOMEM;
	}
	counts[0] = 1;
	gens[0] = rb->drefs.v[0].gen;
	for (i = 1; i < rb->drefs.nr; i++) {
		struct dref_rec *d = &rb->drefs.v[i];

		if (!cmp_dref(&rb->drefs.v[out], d)) {
			counts[out]++;
			if (d->gen < gens[out])
				gens[out] = d->gen;
			continue;
		}
		rb->drefs.v[++out] = *d;
		counts[out] = 1;
		gens[out] = d->gen;
	}
	rb->drefs.nr = out + 1;
	rb->st->data_refs = rb->drefs.nr;
	*counts_ret = counts;
	*gens_ret = gens;
	return 0;
}

/* ---- the used-space view ---- */

static int pin_old_block(struct btrfs_fs_info *fs, u64 bytenr)
{
	int ret = btrfs_pin_unused_range(fs, bytenr, fs->nodesize);

	return ret < 0 ? ret : 0;	/* 1: in use elsewhere, or nowhere */
}

/* keep the old extent tree's blocks (what of it can be read) until commit */
static int pin_old_tree(struct rebuild *rb, struct extent_buffer *eb)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	int level = btrfs_eb_level(eb), ret;

	ret = pin_old_block(rb->fs, eb->start);
	if (ret)
		return ret;
	rb->st->old_blocks++;
	for (i = 0; level > 0 && i < nr; i++) {
		struct tree_block_check check = {
			.transid = btrfs_node_ptr_generation(eb, (int)i),
			.level = level - 1,
		};
		u64 child_bytenr = btrfs_node_blockptr(eb, (int)i);
		struct extent_buffer *child;
		int err = 0;

		child = read_tree_block(rb->fs, child_bytenr, &check, &err);
		if (!child) {
			ret = pin_old_block(rb->fs, child_bytenr);
			if (ret)
				return ret;
			rb->st->old_blocks++;
			continue;
		}
		ret = pin_old_tree(rb, child);
		free_extent_buffer(child);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Where a tree points must be space an extent can occupy before the new
 * tree says it is one: sector aligned, inside one block group of its kind
 * (tree blocks in metadata or system groups, data in data groups), and
 * sharing no byte with another extent.  A pointer that fails is not made
 * an extent; the caller fixes what points there first.
 */
static const char *extent_place_problem(struct btrfs_fs_info *fs, u64 bytenr, u64 len,
					 bool data)
{
	struct btrfs_block_group *bg = btrfs_lookup_block_group(fs, bytenr);
	u64 kinds = data ? BTRFS_BLOCK_GROUP_DATA :
			   BTRFS_BLOCK_GROUP_METADATA | BTRFS_BLOCK_GROUP_SYSTEM;

	if (bytenr % fs->sectorsize || len % fs->sectorsize)
		return "not aligned to the sector size";
	if (!bg || bytenr < bg->start || bytenr + len > bg->start + bg->length)
		return "not inside one block group";
	if (!(bg->flags & kinds))
		return data ? "inside a block group without DATA" :
			      "inside a block group without METADATA or SYSTEM";
	return NULL;
}

static void describe_dref(const struct dref_rec *d, char *buf, size_t len)
{
	if (d->ino == (u64)-1)
		snprintf(buf, len, "a file extent in leaf %llu", (unsigned long long)d->a);
	else
		snprintf(buf, len, "root %llu inode %llu (file offset %llu)",
			 (unsigned long long)d->a, (unsigned long long)d->ino,
			 (unsigned long long)d->offset);
}

static int check_places(struct rebuild *rb)
{
	struct btrfs_fs_info *fs = rb->fs;
	u64 prev_end = 0, prev_start = 0;
	size_t t = 0, d = 0;
	char who[96];
	const char *why;

	while (t < rb->tb.nr || d < rb->drefs.nr) {
		bool tree = d >= rb->drefs.nr ||
			    (t < rb->tb.nr && rb->tb.v[t].bytenr < rb->drefs.v[d].bytenr);
		u64 start, len;

		if (tree) {
			start = rb->tb.v[t].bytenr;
			len = fs->nodesize;
			snprintf(who, sizeof(who), "tree block of root %llu",
				 (unsigned long long)rb->tb.v[t].owner);
			t++;
		} else {
			const struct dref_rec *x = &rb->drefs.v[d];

			start = x->bytenr;
			len = x->num_bytes;
			describe_dref(x, who, sizeof(who));
			d++;
			/* every ref of one extent must name the same length */
			while (d < rb->drefs.nr && rb->drefs.v[d].bytenr == start) {
				if (rb->drefs.v[d].num_bytes != len) {
					describe_dref(&rb->drefs.v[d], who, sizeof(who));
					snprintf(rb->st->refused, sizeof(rb->st->refused),
						 "%s points to [%llu %llu], another file extent to [%llu %llu]",
						 who, (unsigned long long)start,
						 (unsigned long long)rb->drefs.v[d].num_bytes,
						 (unsigned long long)start, (unsigned long long)len);
					return -EUCLEAN;
				}
				d++;
			}
		}
		why = extent_place_problem(fs, start, len, !tree);
		if (why) {
			snprintf(rb->st->refused, sizeof(rb->st->refused),
				 "%s points to [%llu %llu], %s", who, (unsigned long long)start,
				 (unsigned long long)len, why);
			return -EUCLEAN;
		}
		if (start < prev_end) {
			snprintf(rb->st->refused, sizeof(rb->st->refused),
				 "%s points to [%llu %llu], overlapping the extent at %llu",
				 who, (unsigned long long)start, (unsigned long long)len,
				 (unsigned long long)prev_start);
			return -EUCLEAN;
		}
		prev_start = start;
		prev_end = start + len;
	}
	return 0;
}

static int take_used(struct rebuild *rb)
{
	struct btrfs_fs_info *fs = rb->fs;
	size_t i;
	int ret;

	ret = btrfs_block_groups_reset_for_rebuild(fs);
	for (i = 0; !ret && i < rb->tb.nr; i++) {
		ret = btrfs_block_group_take_range(fs, rb->tb.v[i].bytenr, fs->nodesize, true);
		rb->st->bytes_used += fs->nodesize;
	}
	for (i = 0; !ret && i < rb->drefs.nr; i++) {
		const struct dref_rec *d = &rb->drefs.v[i];

		if (i && d->bytenr == rb->drefs.v[i - 1].bytenr)
			continue;
		ret = btrfs_block_group_take_range(fs, d->bytenr, d->num_bytes, true);
		rb->st->bytes_used += d->num_bytes;
		rb->st->data_extents++;
	}
	/* two extents sharing bytes cannot both be right: not rebuilt */
	return ret == -EEXIST ? -EUCLEAN : ret;
}

/* ---- writing the new tree ---- */

static u32 max_inline_size(const struct btrfs_fs_info *fs)
{
	return (btrfs_leaf_data_size(fs->nodesize) >> 4) - sizeof(struct btrfs_item);
}

static int insert(struct rebuild *rb, struct btrfs_trans_handle *trans,
		  u64 objectid, u8 type, u64 offset, const void *data, u32 size)
{
	struct btrfs_key key = { objectid, type, offset };
	int ret;

	ret = btrfs_insert_item(trans, &rb->fs->extent_root, &key, data, size);
	if (!ret)
		rb->st->items++;
	return ret;
}

/*
 * The extent item of tree block @t with refs trefs[*pos...]: a
 * METADATA_ITEM, or without skinny metadata an EXTENT_ITEM with the tree
 * block info (first key, level)
 */
static int write_tree_block(struct rebuild *rb, struct btrfs_trans_handle *trans,
			    const struct tb_rec *t, size_t *pos, u8 *buf)
{
	struct btrfs_extent_item *ei = (void *)buf;
	bool skinny = btrfs_fs_incompat(rb->fs, BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA);
	size_t first = *pos, end = first, i;
	u32 size = sizeof(*ei), max = max_inline_size(rb->fs);
	int ret;

	while (end < rb->trefs.nr && rb->trefs.v[end].bytenr == t->bytenr)
		end++;
	*pos = end;
	memset(buf, 0, sizeof(*ei));
	btrfs_set_extent_refs(ei, end - first);
	btrfs_set_extent_generation(ei, t->gen);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_TREE_BLOCK |
			       (t->flags & TB_FULL ? BTRFS_BLOCK_FLAG_FULL_BACKREF : 0));
	if (!skinny) {
		struct btrfs_tree_block_info *info = (void *)(buf + size);

		memset(info, 0, sizeof(*info));
		info->key = t->first_key;
		btrfs_set_tree_block_level(info, t->level);
		size += sizeof(*info);
	}
	for (i = first; i < end && size + sizeof(struct btrfs_extent_inline_ref) <= max; i++) {
		struct btrfs_extent_inline_ref *iref = (void *)(buf + size);

		btrfs_set_extent_inline_ref_type(iref, rb->trefs.v[i].type);
		btrfs_set_extent_inline_ref_offset(iref, rb->trefs.v[i].value);
		size += sizeof(*iref);
	}
	if (skinny)
		ret = insert(rb, trans, t->bytenr, BTRFS_METADATA_ITEM_KEY, t->level, buf, size);
	else
		ret = insert(rb, trans, t->bytenr, BTRFS_EXTENT_ITEM_KEY, rb->fs->nodesize,
			     buf, size);
	/* what did not fit inline: keyed ref items */
	for (; !ret && i < end; i++)
		ret = insert(rb, trans, t->bytenr, rb->trefs.v[i].type,
			     rb->trefs.v[i].value, NULL, 0);
	return ret;
}

static u32 data_ref_inline_size(const struct dref_rec *d)
{
	return d->ino == (u64)-1 ?
	       btrfs_extent_inline_ref_size(BTRFS_SHARED_DATA_REF_KEY) :
	       btrfs_extent_inline_ref_size(BTRFS_EXTENT_DATA_REF_KEY);
}

static void write_inline_data_ref(u8 *at, const struct dref_rec *d, u32 count)
{
	struct btrfs_extent_inline_ref *iref = (void *)at;

	if (d->ino == (u64)-1) {
		struct btrfs_shared_data_ref *s = (void *)(at + sizeof(*iref));

		btrfs_set_extent_inline_ref_type(iref, BTRFS_SHARED_DATA_REF_KEY);
		btrfs_set_extent_inline_ref_offset(iref, d->a);
		btrfs_set_shared_data_ref_count(s, count);
	} else {
		struct btrfs_extent_data_ref *r = (void *)&iref->offset;

		btrfs_set_extent_inline_ref_type(iref, BTRFS_EXTENT_DATA_REF_KEY);
		btrfs_set_extent_data_ref_root(r, d->a);
		btrfs_set_extent_data_ref_objectid(r, d->ino);
		btrfs_set_extent_data_ref_offset(r, d->offset);
		btrfs_set_extent_data_ref_count(r, count);
	}
}

static int write_keyed_data_ref(struct rebuild *rb, struct btrfs_trans_handle *trans,
				const struct dref_rec *d, u32 count)
{
	if (d->ino == (u64)-1) {
		struct btrfs_shared_data_ref s;

		btrfs_set_shared_data_ref_count(&s, count);
		return insert(rb, trans, d->bytenr, BTRFS_SHARED_DATA_REF_KEY, d->a,
			      &s, sizeof(s));
	} else {
		struct btrfs_extent_data_ref r;

		btrfs_set_extent_data_ref_root(&r, d->a);
		btrfs_set_extent_data_ref_objectid(&r, d->ino);
		btrfs_set_extent_data_ref_offset(&r, d->offset);
		btrfs_set_extent_data_ref_count(&r, count);
		/* two refs under one hash would share an item: not handled */
		return insert(rb, trans, d->bytenr, BTRFS_EXTENT_DATA_REF_KEY,
			      btrfs_extent_data_ref_hash(d->a, d->ino, d->offset),
			      &r, sizeof(r));
	}
}

static int write_data_extent(struct rebuild *rb, struct btrfs_trans_handle *trans,
			     size_t *pos, const u32 *counts, const u64 *gens, u8 *buf)
{
	struct btrfs_extent_item *ei = (void *)buf;
	size_t first = *pos, end = first, i;
	u32 size = sizeof(*ei), max = max_inline_size(rb->fs);
	u64 refs = 0, gen = (u64)-1, bytenr = rb->drefs.v[first].bytenr;
	u64 num_bytes = rb->drefs.v[first].num_bytes;
	int ret;

	while (end < rb->drefs.nr && rb->drefs.v[end].bytenr == bytenr) {
		refs += counts[end];
		if (gens[end] < gen)
			gen = gens[end];
		end++;
	}
	*pos = end;
	memset(buf, 0, sizeof(*ei));
	btrfs_set_extent_refs(ei, refs);
	btrfs_set_extent_generation(ei, gen);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	for (i = first; i < end && size + data_ref_inline_size(&rb->drefs.v[i]) <= max; i++) {
		write_inline_data_ref(buf + size, &rb->drefs.v[i], counts[i]);
		size += data_ref_inline_size(&rb->drefs.v[i]);
	}
	ret = insert(rb, trans, bytenr, BTRFS_EXTENT_ITEM_KEY, num_bytes, buf, size);
	for (; !ret && i < end; i++)
		ret = write_keyed_data_ref(rb, trans, &rb->drefs.v[i], counts[i]);
	return ret;
}

static int write_new_tree(struct rebuild *rb, struct btrfs_trans_handle *trans,
			  const u32 *counts, const u64 *gens)
{
	struct btrfs_fs_info *fs = rb->fs;
	size_t t = 0, r = 0, d = 0;
	u8 *buf = malloc(fs->nodesize);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	/* both lists are sorted by address: write in key order */
	while (!ret && (t < rb->tb.nr || d < rb->drefs.nr)) {
		bool tree = d >= rb->drefs.nr ||
			    (t < rb->tb.nr && rb->tb.v[t].bytenr < rb->drefs.v[d].bytenr);

		if (tree) {
			while (r < rb->trefs.nr && rb->trefs.v[r].bytenr < rb->tb.v[t].bytenr)
				r++;
			ret = write_tree_block(rb, trans, &rb->tb.v[t], &r, buf);
			t++;
		} else {
			ret = write_data_extent(rb, trans, &d, counts, gens, buf);
		}
	}
	free(buf);
	return ret;
}

static void rebuild_release(struct rebuild *rb)
{
	free(rb->tb.v);
	free(rb->edges.v);
	free(rb->roots.v);
	free(rb->drefs.v);
	free(rb->trefs.v);
	free(rb->todo.v);
	free(rb->set);
}

int btrfs_rebuild_extent_tree(struct btrfs_trans_handle *trans,
			      struct btrfs_extent_rebuild_stats *stats)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct rebuild rb = { .fs = fs, .st = stats };
	struct extent_buffer *old_node, *leaf;
	u32 *counts = NULL;
	u64 *gens = NULL;
	int ret;

	memset(stats, 0, sizeof(*stats));
	if (btrfs_have_delayed_refs(fs))
		return -EBUSY;	/* it must come first in the transaction */
	ret = walk_all(&rb);
	if (ret)
		goto out;
	free(rb.set);
	rb.set = NULL;
	qsort(rb.tb.v, rb.tb.nr, sizeof(*rb.tb.v), cmp_tb);
	stats->tree_blocks = rb.tb.nr;
	ret = mark_full_backref(&rb);
	if (!ret)
		ret = build_tree_refs(&rb);
	if (!ret)
		ret = build_data_refs(&rb, &counts, &gens);
	/* nothing has changed yet: a refusal leaves the transaction clean */
	if (!ret)
		ret = check_places(&rb);
	if (!ret)
		ret = take_used(&rb);
	if (ret)
		goto out;
	old_node = fs->extent_root.node;
	if (old_node) {
		ret = pin_old_tree(&rb, old_node);
	} else if (fs->extent_root.has_root_item) {
		/* unreadable: at least its root block stays as it is */
		ret = pin_old_block(fs, btrfs_root_bytenr(&fs->extent_root.root_item));
		stats->old_blocks++;
	}
	if (ret)
		goto out;
	/* a fresh root leaf; blocks allocated from now on get delayed refs */
	btrfs_set_root_bytes_used(&fs->extent_root.root_item, 0);
	leaf = btrfs_alloc_tree_block(trans, &fs->extent_root, 0, NULL, &ret);
	if (!leaf)
		goto out;
	fs->extent_root.node = leaf;
	free_extent_buffer(old_node);
	btrfs_root_mark_dirty(fs, &fs->extent_root);
	ret = write_new_tree(&rb, trans, counts, gens);
	if (ret)
		goto out;
	btrfs_mark_free_space_tree_dirty(fs);
	fs->write->super_dirty = true;
out:
	free(counts);
	free(gens);
	rebuild_release(&rb);
	return ret;
}
