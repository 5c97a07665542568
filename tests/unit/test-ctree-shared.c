// SPDX-License-Identifier: GPL-2.0
/*
 * Copy on write of shared tree blocks: a tree with file extent items is
 * snapshotted (its root node copied, the children gaining references of
 * the new tree, as snapshot creation does), then both trees are changed
 * at random against two independent models.  After every commit: both
 * trees hold exactly their models' items, and every back reference in
 * the extent tree (tree blocks keyed or shared, data keyed or shared,
 * counts, FULL_BACKREF) is exactly what walking both trees implies.
 * Reopening from disk now and then proves no block still referenced was
 * freed and reused.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "test-fs.h"
#include "ctree.h"
#include "ctree-internal.h"
#include "transaction.h"
#include "extent-tree.h"
#include "rebuild-extent-tree.h"

#define SH_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

#define SRC_ID		BTRFS_FIRST_FREE_OBJECTID
#define SNAP_ID		(BTRFS_FIRST_FREE_OBJECTID + 1)
#define FILE_INO_MIN	300		/* file extent items: never changed */

struct mitem {
	struct btrfs_key key;
	u32 size;
	u8 *data;
};

struct mtree {
	struct btrfs_root *root;
	u64 id;
	struct mitem *items;
	size_t nr, cap;
};

struct sh {
	struct test_fs tfs;
	struct mtree t[2];
	u64 rand;
};

static u64 rnd(struct sh *s)
{
	return test_rand(&s->rand);
}

static u64 rnd_below(struct sh *s, u64 n)
{
	return n ? rnd(s) % n : 0;
}

/* ---- models ---- */

static size_t model_find(const struct mtree *m, const struct btrfs_key *key, bool *found)
{
	size_t lo = 0, hi = m->nr;

	*found = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = btrfs_comp_cpu_keys(&m->items[mid].key, key);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void model_insert(struct mtree *m, size_t pos, const struct btrfs_key *key,
			 const void *data, u32 size)
{
	if (m->nr == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->items = realloc(m->items, m->cap * sizeof(*m->items));
		REQUIRE(m->items);
	}
	memmove(&m->items[pos + 1], &m->items[pos], (m->nr - pos) * sizeof(*m->items));
	m->items[pos].key = *key;
	m->items[pos].size = size;
	m->items[pos].data = malloc(size ? size : 1);
	REQUIRE(m->items[pos].data);
	memcpy(m->items[pos].data, data, size);
	m->nr++;
}

static void model_delete(struct mtree *m, size_t pos)
{
	free(m->items[pos].data);
	memmove(&m->items[pos], &m->items[pos + 1], (m->nr - pos - 1) * sizeof(*m->items));
	m->nr--;
}

static void model_copy(struct mtree *dst, const struct mtree *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++)
		model_insert(dst, i, &src->items[i].key, src->items[i].data,
			     src->items[i].size);
}

static void model_free(struct mtree *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		free(m->items[i].data);
	free(m->items);
	m->items = NULL;
	m->nr = m->cap = 0;
}

/* ---- random changes ---- */

static void random_key(struct sh *s, struct btrfs_key *key)
{
	static const u8 types[] = { 1, 12, 24, 84, 96 };

	key->objectid = FILE_INO_MIN + rnd_below(s, 3000);
	key->type = types[rnd_below(s, sizeof(types))];
	key->offset = rnd_below(s, 1000);
}

static u32 random_size(struct sh *s)
{
	u64 r = rnd_below(s, 100);

	if (r < 70)
		return (u32)rnd_below(s, 100);
	if (r < 97)
		return (u32)rnd_below(s, 700);
	return (u32)(1000 + rnd_below(s, 1500));
}

static void op_insert(struct sh *s, struct mtree *m)
{
	u8 buf[4096];
	struct btrfs_key key;
	u32 size = random_size(s), i;
	size_t pos;
	bool found;
	int ret;

	random_key(s, &key);
	for (i = 0; i < size; i++)
		buf[i] = (u8)rnd(s);
	pos = model_find(m, &key, &found);
	ret = btrfs_insert_item(s->tfs.trans, m->root, &key, buf, size);
	if (found) {
		SH_CHECK(ret == -EEXIST, "insert of an existing key: %d", ret);
		return;
	}
	SH_CHECK(ret == 0, "insert into tree %llu: %d", (unsigned long long)m->id, ret);
	model_insert(m, pos, &key, buf, size);
}

/* a random item of the random range, or -1 */
static long pick(struct sh *s, const struct mtree *m)
{
	size_t i;

	if (!m->nr)
		return -1;
	i = rnd_below(s, m->nr);
	return m->items[i].key.type != BTRFS_EXTENT_DATA_KEY ? (long)i : -1;
}

static void op_delete(struct sh *s, struct mtree *m)
{
	struct btrfs_path path;
	long i = pick(s, m);
	int ret;

	if (i < 0)
		return;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(s->tfs.trans, m->root, &m->items[i].key, &path, -1, 1);
	SH_CHECK(ret == 0, "search for delete in tree %llu: %d",
		 (unsigned long long)m->id, ret);
	ret = btrfs_del_item(s->tfs.trans, m->root, &path);
	btrfs_release_path(&path);
	SH_CHECK(ret == 0, "delete in tree %llu: %d", (unsigned long long)m->id, ret);
	model_delete(m, (size_t)i);
}

static void op_overwrite(struct sh *s, struct mtree *m)
{
	struct btrfs_path path;
	long i = pick(s, m);
	u32 k;
	int ret;

	if (i < 0 || !m->items[i].size)
		return;
	btrfs_init_path(&path);
	ret = btrfs_search_slot(s->tfs.trans, m->root, &m->items[i].key, &path, 0, 1);
	SH_CHECK(ret == 0, "search for change in tree %llu: %d",
		 (unsigned long long)m->id, ret);
	for (k = 0; k < m->items[i].size; k += 7)
		m->items[i].data[k] = (u8)rnd(s);
	btrfs_write_item_data(&path, 0, m->items[i].data, m->items[i].size);
	btrfs_release_path(&path);
}

static void step(struct sh *s, bool grow)
{
	struct mtree *m = &s->t[rnd_below(s, 2)];
	u64 r = rnd_below(s, 100);

	if (r < (grow ? 60u : 30u))
		op_insert(s, m);
	else if (r < 85)
		op_delete(s, m);
	else
		op_overwrite(s, m);
}

/* ---- contents ---- */

static void verify_contents(struct sh *s, const struct mtree *m)
{
	struct btrfs_key key = { 0, 0, 0 }, found;
	struct btrfs_path path;
	size_t i = 0;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, m->root, &key, &path, 0, 0);
	SH_CHECK(ret >= 0, "search tree %llu: %d", (unsigned long long)m->id, ret);
	ret = btrfs_path_fixup_slot(m->root, &path);
	while (ret == 0) {
		const struct mitem *it;

		SH_CHECK(i < m->nr, "tree %llu has more items than its model",
			 (unsigned long long)m->id);
		it = &m->items[i++];
		btrfs_path_key(&path, &found);
		SH_CHECK(!btrfs_comp_cpu_keys(&found, &it->key),
			 "tree %llu item %zu: key (%llu %u %llu), model (%llu %u %llu)",
			 (unsigned long long)m->id, i - 1,
			 (unsigned long long)found.objectid, found.type,
			 (unsigned long long)found.offset,
			 (unsigned long long)it->key.objectid, it->key.type,
			 (unsigned long long)it->key.offset);
		REQUIRE_UINT(btrfs_item_size(path.nodes[0], path.slots[0]), ==, it->size);
		REQUIRE(!memcmp(btrfs_item_ptr_raw(path.nodes[0], path.slots[0]),
				it->data, it->size));
		ret = btrfs_next_item(m->root, &path);
	}
	btrfs_release_path(&path);
	SH_CHECK(ret > 0, "iterating tree %llu: %d", (unsigned long long)m->id, ret);
	REQUIRE_UINT(i, ==, m->nr);
	(void)s;
}

/* ---- back references ---- */

struct bref {
	u64 bytenr;
	u8 type;
	u64 a, b, c;		/* root or parent; data: inode, offset */
	u32 count;
};

struct brefs {
	struct bref *r;
	size_t nr, cap;
};

struct bext {
	u64 bytenr;
	u64 refs;
	u64 flags;
};

struct refstate {
	struct brefs found, expect;
	struct bext *ext;
	size_t next, cap_ext;
	u64 *visited;
	size_t nvisited, cap_visited;
};

static void add_bref(struct brefs *v, u64 bytenr, u8 type, u64 a, u64 b, u64 c,
		     u32 count)
{
	if (v->nr == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1024;
		v->r = realloc(v->r, v->cap * sizeof(*v->r));
		REQUIRE(v->r);
	}
	v->r[v->nr++] = (struct bref){ bytenr, type, a, b, c, count };
}

static int bref_cmp(const void *pa, const void *pb)
{
	const struct bref *a = pa, *b = pb;

	if (a->bytenr != b->bytenr)
		return a->bytenr < b->bytenr ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return 0;
}

/* sort and sum the counts of equal refs */
static void brefs_normalize(struct brefs *v)
{
	size_t i, n = 0;

	qsort(v->r, v->nr, sizeof(*v->r), bref_cmp);
	for (i = 0; i < v->nr; i++) {
		if (n && !bref_cmp(&v->r[n - 1], &v->r[i]))
			v->r[n - 1].count += v->r[i].count;
		else
			v->r[n++] = v->r[i];
	}
	v->nr = n;
}

static void collect_inline_refs(struct refstate *st, const struct extent_buffer *leaf,
				int slot, const struct btrfs_key *key)
{
	const u8 *item = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	const struct btrfs_extent_item *ei = (const void *)item;
	u32 off = sizeof(*ei);

	REQUIRE(size >= sizeof(*ei));
	if (st->next == st->cap_ext) {
		st->cap_ext = st->cap_ext ? st->cap_ext * 2 : 1024;
		st->ext = realloc(st->ext, st->cap_ext * sizeof(*st->ext));
		REQUIRE(st->ext);
	}
	st->ext[st->next++] = (struct bext){ key->objectid, btrfs_extent_refs(ei),
					     btrfs_extent_flags(ei) };
	if (key->type == BTRFS_EXTENT_ITEM_KEY &&
	    (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		off += sizeof(struct btrfs_tree_block_info);
	while (off < size) {
		const struct btrfs_extent_inline_ref *iref = (const void *)(item + off);
		u8 type = btrfs_extent_inline_ref_type(iref);
		u32 rsize = btrfs_extent_inline_ref_size(type);
		const struct btrfs_extent_data_ref *d = (const void *)&iref->offset;

		REQUIRE(rsize && off + rsize <= size);
		if (type == BTRFS_EXTENT_DATA_REF_KEY)
			add_bref(&st->found, key->objectid, type, btrfs_extent_data_ref_root(d),
				 btrfs_extent_data_ref_objectid(d),
				 btrfs_extent_data_ref_offset(d),
				 btrfs_extent_data_ref_count(d));
		else if (type == BTRFS_SHARED_DATA_REF_KEY)
			add_bref(&st->found, key->objectid, type,
				 btrfs_extent_inline_ref_offset(iref), 0, 0,
				 btrfs_shared_data_ref_count((const void *)(iref + 1)));
		else
			add_bref(&st->found, key->objectid, type,
				 btrfs_extent_inline_ref_offset(iref), 0, 0, 1);
		off += rsize;
	}
}

static void collect_extent_tree(struct sh *s, struct refstate *st)
{
	struct btrfs_fs_info *fs = s->tfs.fs;
	struct btrfs_root *eroot = btrfs_extent_root(fs);
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, eroot, &key, &path, 0, 0);
	REQUIRE(ret >= 0);
	ret = btrfs_path_fixup_slot(eroot, &path);
	while (ret == 0) {
		const struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];
		const void *p = btrfs_item_ptr_raw(leaf, slot);

		btrfs_path_key(&path, &key);
		switch (key.type) {
		case BTRFS_EXTENT_ITEM_KEY:
		case BTRFS_METADATA_ITEM_KEY:
			collect_inline_refs(st, leaf, slot, &key);
			break;
		case BTRFS_TREE_BLOCK_REF_KEY:
		case BTRFS_SHARED_BLOCK_REF_KEY:
			add_bref(&st->found, key.objectid, key.type, key.offset, 0, 0, 1);
			break;
		case BTRFS_EXTENT_DATA_REF_KEY:
			add_bref(&st->found, key.objectid, key.type,
				 btrfs_extent_data_ref_root(p),
				 btrfs_extent_data_ref_objectid(p),
				 btrfs_extent_data_ref_offset(p),
				 btrfs_extent_data_ref_count(p));
			break;
		case BTRFS_SHARED_DATA_REF_KEY:
			add_bref(&st->found, key.objectid, key.type, key.offset, 0, 0,
				 btrfs_shared_data_ref_count(p));
			break;
		}
		ret = btrfs_next_item(eroot, &path);
	}
	btrfs_release_path(&path);
	REQUIRE_INT(ret, >, 0);
}

static const struct bext *find_ext(const struct refstate *st, u64 bytenr)
{
	size_t lo = 0, hi = st->next;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->ext[mid].bytenr == bytenr)
			return &st->ext[mid];
		if (st->ext[mid].bytenr < bytenr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* true the first time @bytenr is seen */
static bool visit(struct refstate *st, u64 bytenr)
{
	size_t i;

	for (i = 0; i < st->nvisited; i++)
		if (st->visited[i] == bytenr)
			return false;
	if (st->nvisited == st->cap_visited) {
		st->cap_visited = st->cap_visited ? st->cap_visited * 2 : 256;
		st->visited = realloc(st->visited, st->cap_visited * sizeof(u64));
		REQUIRE(st->visited);
	}
	st->visited[st->nvisited++] = bytenr;
	return true;
}

/* the references the block @eb holds, by the rule of its FULL_BACKREF flag */
static void expect_block(struct refstate *st, struct extent_buffer *eb)
{
	const struct bext *ext = find_ext(st, eb->start);
	u64 owner = btrfs_header_owner(eb_header(eb));
	bool full;
	u32 i, nr = btrfs_eb_nritems(eb);
	int level = btrfs_eb_level(eb), err;

	SH_CHECK(ext, "tree block %llu has no extent item", (unsigned long long)eb->start);
	full = ext->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF;
	for (i = 0; i < nr; i++) {
		struct btrfs_file_extent_item *fi;
		struct btrfs_key key;

		if (level) {
			u64 child = btrfs_node_blockptr(eb, i);
			struct extent_buffer *c;

			if (full)
				add_bref(&st->expect, child, BTRFS_SHARED_BLOCK_REF_KEY,
					 eb->start, 0, 0, 1);
			else
				add_bref(&st->expect, child, BTRFS_TREE_BLOCK_REF_KEY,
					 owner, 0, 0, 1);
			if (!visit(st, child))
				continue;
			c = btrfs_read_node_slot(eb, i, &err);
			SH_CHECK(c, "read block %llu: %d", (unsigned long long)child, err);
			expect_block(st, c);
			free_extent_buffer(c);
			continue;
		}
		btrfs_item_key_to_cpu(eb, &key, i);
		if (key.type != BTRFS_EXTENT_DATA_KEY)
			continue;
		fi = btrfs_item_ptr(eb, i, struct btrfs_file_extent_item);
		if (full)
			add_bref(&st->expect, btrfs_file_extent_disk_bytenr(fi),
				 BTRFS_SHARED_DATA_REF_KEY, eb->start, 0, 0, 1);
		else
			add_bref(&st->expect, btrfs_file_extent_disk_bytenr(fi),
				 BTRFS_EXTENT_DATA_REF_KEY, owner, key.objectid,
				 key.offset - btrfs_file_extent_offset(fi), 1);
	}
}

/* found refs of the extents the walk expects refs for (or that name our trees) */
static bool relevant(const struct refstate *st, const struct bref *r)
{
	size_t lo = 0, hi = st->expect.nr;

	if (r->type == BTRFS_SHARED_BLOCK_REF_KEY || r->type == BTRFS_SHARED_DATA_REF_KEY ||
	    r->a == SRC_ID || r->a == SNAP_ID)
		return true;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->expect.r[mid].bytenr == r->bytenr)
			return true;
		if (st->expect.r[mid].bytenr < r->bytenr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void compare_refs(struct refstate *st)
{
	size_t i, n = 0;
	u64 sum = 0;

	for (i = 0; i < st->found.nr; i++)
		if (relevant(st, &st->found.r[i]))
			st->found.r[n++] = st->found.r[i];
	st->found.nr = n;
	for (i = 0; i < st->found.nr || i < st->expect.nr; i++) {
		const struct bref *f = i < st->found.nr ? &st->found.r[i] : NULL;
		const struct bref *e = i < st->expect.nr ? &st->expect.r[i] : NULL;

		SH_CHECK(f && e && !bref_cmp(f, e) && f->count == e->count,
			 "back reference %zu: found %llu type %u (%llu %llu %llu) x%u, expected %llu type %u (%llu %llu %llu) x%u",
			 i, f ? (unsigned long long)f->bytenr : 0ULL, f ? f->type : 0,
			 f ? (unsigned long long)f->a : 0ULL, f ? (unsigned long long)f->b : 0ULL,
			 f ? (unsigned long long)f->c : 0ULL, f ? f->count : 0,
			 e ? (unsigned long long)e->bytenr : 0ULL, e ? e->type : 0,
			 e ? (unsigned long long)e->a : 0ULL, e ? (unsigned long long)e->b : 0ULL,
			 e ? (unsigned long long)e->c : 0ULL, e ? e->count : 0);
		sum += e->count;
		if (i + 1 == st->expect.nr || st->expect.r[i + 1].bytenr != e->bytenr) {
			const struct bext *ext = find_ext(st, e->bytenr);

			SH_CHECK(ext, "extent %llu has refs but no item",
				 (unsigned long long)e->bytenr);
			SH_CHECK(ext->refs == sum, "extent %llu: refs %llu, expected %llu",
				 (unsigned long long)e->bytenr,
				 (unsigned long long)ext->refs, (unsigned long long)sum);
			sum = 0;
		}
	}
}

static int shared_blocks;
static int seen_types[256];	/* found refs by type, over the run */
static int full_backrefs;

static void verify_refs(struct sh *s)
{
	struct refstate st;
	size_t i;
	int t;

	memset(&st, 0, sizeof(st));
	collect_extent_tree(s, &st);
	for (t = 0; t < 2; t++) {
		struct extent_buffer *rn = s->t[t].root->node;

		add_bref(&st.expect, rn->start, BTRFS_TREE_BLOCK_REF_KEY, s->t[t].id, 0, 0, 1);
		if (visit(&st, rn->start))
			expect_block(&st, rn);
	}
	brefs_normalize(&st.expect);
	brefs_normalize(&st.found);
	for (i = 0; i < st.found.nr; i++)
		seen_types[st.found.r[i].type]++;
	for (i = 0; i < st.next; i++)
		if (st.ext[i].flags & BTRFS_BLOCK_FLAG_FULL_BACKREF)
			full_backrefs++;
	for (i = 0; i + 1 < st.expect.nr; i++)
		if (st.expect.r[i].bytenr == st.expect.r[i + 1].bytenr &&
		    st.expect.r[i].type < BTRFS_EXTENT_DATA_REF_KEY + 1)
			shared_blocks++;
	compare_refs(&st);
	free(st.found.r);
	free(st.expect.r);
	free(st.ext);
	free(st.visited);
}

/* ---- the run ---- */

static void load_roots(struct sh *s)
{
	int t;

	for (t = 0; t < 2; t++) {
		struct btrfs_root *root = btrfs_get_root(s->tfs.fs, s->t[t].id);

		if (!root) {
			root = calloc(1, sizeof(*root));
			REQUIRE(root);
			REQUIRE_INT(btrfs_read_root(s->tfs.fs, s->t[t].id, root), ==, 0);
			REQUIRE_INT(btrfs_track_root(s->tfs.fs, root), ==, 0);
		}
		s->t[t].root = root;
	}
}

static void commit_and_verify(struct sh *s, bool reopen)
{
	int t;

	test_fs_commit(&s->tfs);
	if (reopen) {
		test_fs_reopen(&s->tfs);
		load_roots(s);
	}
	for (t = 0; t < 2; t++)
		verify_contents(s, &s->t[t]);
	verify_refs(s);
}

/* file extent items with real data extents, all in tree @m */
static void add_file_extents(struct sh *s, struct mtree *m, int nr)
{
	struct btrfs_file_extent_item fi;
	int i;

	for (i = 0; i < nr; i++) {
		struct btrfs_key key = { FILE_INO_MIN + i / 8, BTRFS_EXTENT_DATA_KEY,
					 (u64)(i % 8) * 8192 };
		u64 bytenr;
		size_t pos;
		bool found;

		REQUIRE_INT(btrfs_alloc_data_extent(s->tfs.trans, 4096, m->id, key.objectid,
						    key.offset, &bytenr), ==, 0);
		memset(&fi, 0, sizeof(fi));
		btrfs_set_file_extent_generation(&fi, s->tfs.trans->transid);
		btrfs_set_file_extent_type(&fi, BTRFS_FILE_EXTENT_REG);
		btrfs_set_file_extent_disk_bytenr(&fi, bytenr);
		btrfs_set_file_extent_disk_num_bytes(&fi, 4096);
		btrfs_set_file_extent_num_bytes(&fi, 4096);
		btrfs_set_file_extent_ram_bytes(&fi, 4096);
		REQUIRE_INT(btrfs_insert_item(s->tfs.trans, m->root, &key, &fi, sizeof(fi)), ==, 0);
		pos = model_find(m, &key, &found);
		model_insert(m, pos, &key, &fi, sizeof(fi));
	}
}

/*
 * Every this many commits, the extent tree is thrown away and rebuilt
 * from the trees (rebuild-extent-tree.c); the references checked after
 * the next commit (reopened from disk) are then the rebuild's.
 */
static int rebuild_every;

static void rebuild_and_verify(struct sh *s)
{
	struct btrfs_extent_rebuild_stats st;

	REQUIRE_INT(btrfs_rebuild_extent_tree(s->tfs.trans, &st), ==, 0);
	if (getenv("GHEE_TEST_VERBOSE"))
		fprintf(stderr, "rebuilt: %llu blocks %llu full backref %llu data refs\n", (unsigned long long)st.tree_blocks, (unsigned long long)st.full_backref, (unsigned long long)st.data_refs);
	SH_CHECK(st.tree_blocks && st.data_extents, "the rebuild found nothing");
	commit_and_verify(s, true);
}

static void run_shared(u64 seed, int commits, u32 nodesize, unsigned int fs_flags)
{
	struct sh s;
	struct btrfs_root *snap;
	int c, i;

	memset(&s, 0, sizeof(s));
	shared_blocks = 0;
	full_backrefs = 0;
	memset(seen_types, 0, sizeof(seen_types));
	s.rand = seed * 0x9E3779B97F4A7C15ULL | 1;
	test_fs_create(&s.tfs, nodesize, 256ULL << 20, fs_flags);
	s.t[0].id = SRC_ID;
	s.t[1].id = SNAP_ID;
	s.t[0].root = test_fs_new_tree(&s.tfs, SRC_ID);
	add_file_extents(&s, &s.t[0], 200);
	while (s.t[0].nr < 4000)
		op_insert(&s, &s.t[0]);
	test_fs_commit(&s.tfs);
	SH_CHECK(btrfs_eb_level(s.t[0].root->node) >= 2, "source tree too shallow");

	snap = test_fs_new_tree(&s.tfs, SNAP_ID);
	s.t[1].root = snap;
	REQUIRE_INT(btrfs_snapshot_tree(s.tfs.trans, s.t[0].root, snap), ==, 0);
	model_copy(&s.t[1], &s.t[0]);
	commit_and_verify(&s, false);
	SH_CHECK(shared_blocks > 0, "nothing shared after the snapshot");

	for (c = 0; c < commits; c++) {
		int nops = 1 + (int)rnd_below(&s, c < 3 ? 5 : 150);

		for (i = 0; i < nops; i++)
			step(&s, c < commits / 2);
		commit_and_verify(&s, c % 5 == 4);
		if (rebuild_every && c % rebuild_every == rebuild_every - 1)
			rebuild_and_verify(&s);
	}
	/* empty one tree of its random items: merges and shrinks of shared blocks */
	for (c = 0; s.t[c & 1].nr > 250; c++) {
		struct mtree *m = &s.t[c & 1];

		for (i = 0; i < 400; i++)
			op_delete(&s, m);
		commit_and_verify(&s, c % 3 == 2);
		if (c > 200)
			break;
	}
	if (getenv("GHEE_TEST_VERBOSE"))
		fprintf(stderr, "shared seed %llu: %zu / %zu items, %d shared, %d full backref, refs: tree %d shared block %d data %d shared data %d\n",
			(unsigned long long)seed, s.t[0].nr, s.t[1].nr, shared_blocks,
			full_backrefs, seen_types[BTRFS_TREE_BLOCK_REF_KEY],
			seen_types[BTRFS_SHARED_BLOCK_REF_KEY],
			seen_types[BTRFS_EXTENT_DATA_REF_KEY],
			seen_types[BTRFS_SHARED_DATA_REF_KEY]);
	/* the run went through every kind of reference */
	SH_CHECK(full_backrefs && seen_types[BTRFS_SHARED_DATA_REF_KEY],
		 "no FULL_BACKREF block seen");
	model_free(&s.t[0]);
	model_free(&s.t[1]);
	test_fs_destroy(&s.tfs);
}

START_TEST(test_shared_seed1) { run_shared(1, 40, 4096, 0); }
END_TEST
START_TEST(test_shared_seed2) { run_shared(2, 40, 4096, TEST_FS_NO_FST); }
END_TEST
START_TEST(test_shared_seed3) { run_shared(0xfeed, 25, 4096, TEST_FS_NOT_SKINNY); }
END_TEST

/* the same runs with the extent tree rebuilt from scratch now and then */
START_TEST(test_shared_rebuild)
{
	rebuild_every = 4;
	run_shared(7, 24, 4096, 0);
	run_shared(8, 16, 4096, TEST_FS_NO_FST);
	run_shared(9, 16, 4096, TEST_FS_NOT_SKINNY);
	rebuild_every = 0;
}
END_TEST

/* GHEE_TEST_SEEDS=N: N more seeds (for soak runs) */
START_TEST(test_shared_more_seeds)
{
	const char *env = getenv("GHEE_TEST_SEEDS");
	int i, n = env ? atoi(env) : 0;

	for (i = 0; i < n; i++)
		run_shared(100 + (u64)i, 30, 4096, i % 2 ? TEST_FS_NOT_SKINNY : 0);
}
END_TEST

/* a snapshot of a tree changed in the running transaction is refused */
START_TEST(test_shared_snapshot_busy)
{
	struct test_fs tfs;
	struct btrfs_root *a, *b;
	struct btrfs_key key = { 500, 1, 0 };

	test_fs_create(&tfs, 4096, 256ULL << 20, 0);
	a = test_fs_new_tree(&tfs, SRC_ID);
	REQUIRE_INT(btrfs_insert_item(tfs.trans, a, &key, "x", 1), ==, 0);
	b = test_fs_new_tree(&tfs, SNAP_ID);
	ck_assert_int_eq(btrfs_snapshot_tree(tfs.trans, a, b), -EBUSY);
	test_fs_destroy(&tfs);
}
END_TEST

/*
 * Appending (prepending) fills level-1 nodes: a full node gives pointers
 * to its left (right) neighbour before it splits, so the nodes end well
 * over half full (a split alone leaves every node but one half full).
 */
static void node_push_fill(bool descending)
{
	struct test_fs tfs;
	struct btrfs_root *root;
	struct extent_buffer *top;
	u8 buf[900];
	u32 i, nodes, ptrs = 0, maxp;
	int err;

	memset(buf, 0x5a, sizeof(buf));
	test_fs_create(&tfs, 4096, 256ULL << 20, 0);
	root = test_fs_new_tree(&tfs, SRC_ID);
	for (i = 0; i < 4000; i++) {
		struct btrfs_key key = { descending ? 5000 - i : 1000 + i, 1, 0 };

		REQUIRE_INT(btrfs_insert_item(tfs.trans, root, &key, buf, sizeof(buf)), ==, 0);
	}
	test_fs_commit(&tfs);
	top = root->node;
	REQUIRE_INT(btrfs_eb_level(top), ==, 2);
	maxp = btrfs_max_node_ptrs(top->len);
	nodes = btrfs_eb_nritems(top);
	for (i = 0; i + 1 < nodes; i++) {
		struct extent_buffer *c = btrfs_read_node_slot(top, descending ? i + 1 : i,
							       &err);

		SH_CHECK(c, "read level-1 node %u: %d", i, err);
		ptrs += btrfs_eb_nritems(c);
		free_extent_buffer(c);
	}
	if (getenv("GHEE_TEST_VERBOSE"))
		fprintf(stderr, "node push %s: %u level-1 nodes, %u pointers in all but one, max %u\n",
			descending ? "right" : "left", nodes, ptrs, maxp);
	/* without pushing every node but the last holds (max + 1) / 2 */
	SH_CHECK(ptrs * 10 >= (nodes - 1) * maxp * 7,
		 "level-1 nodes only %u%% full", nodes > 1 ? ptrs * 100 / ((nodes - 1) * maxp) : 0);
	test_fs_destroy(&tfs);
}

START_TEST(test_node_push_left) { node_push_fill(false); }
END_TEST
START_TEST(test_node_push_right) { node_push_fill(true); }
END_TEST

Suite *ctree_shared_suite(void)
{
	Suite *s = suite_create("ctree_shared");
	TCase *tc = tcase_create("snapshot");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_shared_snapshot_busy);
	tcase_add_test(tc, test_node_push_left);
	tcase_add_test(tc, test_node_push_right);
	tcase_add_test(tc, test_shared_seed1);
	tcase_add_test(tc, test_shared_seed2);
	tcase_add_test(tc, test_shared_seed3);
	tcase_add_test(tc, test_shared_more_seeds);
	tcase_add_test(tc, test_shared_rebuild);
	suite_add_tcase(s, tc);
	return s;
}
