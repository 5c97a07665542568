// SPDX-License-Identifier: GPL-2.0
/*
 * B-tree writes: long random sequences of inserts, batch inserts,
 * deletes (single and runs), extends, truncates, in-place changes and
 * commits on a tree of a real (file-backed) filesystem with 4 KiB nodes,
 * checked after every step against a sorted array of the same items.
 * After every step every block of the tree is verified: the tree-checker
 * layout rules, levels, owners, generations, parent keys and pointer
 * generations, key ranges between siblings.  Items sizes are mixed from
 * empty to nearly a whole leaf so that pushes, splits (double splits
 * included), merges and root growth and shrink all happen.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "suites.h"
#include "test-fs.h"
#include "ctree.h"
#include "transaction.h"
#include "extent-tree.h"
#include "tree-checker.h"

#define CT_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

struct mitem {
	struct btrfs_key key;
	u32 size;
	u8 *data;
};

struct model {
	struct mitem *items;
	size_t nr;
	size_t cap;
	u64 rand;
};

struct ct {
	struct test_fs tfs;
	struct btrfs_root *root;
	struct model m;
	/* statistics: what the run went through */
	int max_level;
	int level_drops;
	u64 nr_ops;
};

static u64 rnd(struct model *m)
{
	return test_rand(&m->rand);
}

static u64 rnd_below(struct model *m, u64 n)
{
	return n ? (rnd(m) >> 7) % n : 0;
}

static void fill_random(struct model *m, u8 *buf, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)rnd(m);
}

/* index of @key in the model, or where it would go (*found false) */
static size_t model_find(const struct model *m, const struct btrfs_key *key, bool *found)
{
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = btrfs_comp_cpu_keys(&m->items[mid].key, key);

		if (c < 0) {
			lo = mid + 1;
		} else if (c > 0) {
			hi = mid;
		} else {
			*found = true;
			return mid;
		}
	}
	*found = false;
	return lo;
}

static void model_insert(struct model *m, size_t pos, const struct btrfs_key *key,
			 const u8 *data, u32 size)
{
	if (m->nr == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 1024;
		m->items = realloc(m->items, m->cap * sizeof(*m->items));
		ck_assert_ptr_nonnull(m->items);
	}
	memmove(&m->items[pos + 1], &m->items[pos], (m->nr - pos) * sizeof(*m->items));
	m->items[pos].key = *key;
	m->items[pos].size = size;
	m->items[pos].data = malloc(size ? size : 1);
	ck_assert_ptr_nonnull(m->items[pos].data);
	memcpy(m->items[pos].data, data, size);
	m->nr++;
}

static void model_delete(struct model *m, size_t pos, size_t nr)
{
	size_t i;

	for (i = pos; i < pos + nr; i++)
		free(m->items[i].data);
	memmove(&m->items[pos], &m->items[pos + nr], (m->nr - pos - nr) * sizeof(*m->items));
	m->nr -= nr;
}

static void model_free(struct model *m)
{
	model_delete(m, 0, m->nr);
	free(m->items);
	memset(m, 0, sizeof(*m));
}

/* ---- verification ---- */

struct walk {
	struct ct *ct;
	size_t next;		/* model index the next leaf item must equal */
	u64 nr_blocks;
};

static void verify_leaf_items(struct walk *w, const struct extent_buffer *leaf)
{
	struct model *m = &w->ct->m;
	u32 i, nr = btrfs_eb_nritems(leaf);

	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		struct mitem *mi;

		CT_CHECK(w->next < m->nr, "tree has more items than the model (%zu)", m->nr);
		mi = &m->items[w->next];
		btrfs_item_key_to_cpu(leaf, &key, i);
		CT_CHECK(!btrfs_comp_cpu_keys(&key, &mi->key),
			 "item %zu: key (%llu %u %llu), model (%llu %u %llu)", w->next,
			 (unsigned long long)key.objectid, key.type,
			 (unsigned long long)key.offset,
			 (unsigned long long)mi->key.objectid, mi->key.type,
			 (unsigned long long)mi->key.offset);
		CT_CHECK(btrfs_item_size(leaf, i) == mi->size, "item %zu: size %u, model %u",
			 w->next, btrfs_item_size(leaf, i), mi->size);
		CT_CHECK(!memcmp(btrfs_item_ptr_raw(leaf, i), mi->data, mi->size),
			 "item %zu: data differs from the model", w->next);
		w->next++;
	}
}

static void verify_block(struct walk *w, struct extent_buffer *eb, int level,
			 const struct btrfs_key *lo, const struct btrfs_key *hi,
			 bool is_root)
{
	struct btrfs_fs_info *fs_info = eb->fs_info;
	struct btrfs_root *root = w->ct->root;
	struct tree_check_error err = { -1, "" };
	u32 nr = btrfs_eb_nritems(eb), i;
	u64 transid = w->ct->tfs.trans->transid;
	struct btrfs_key first, last;

	w->nr_blocks++;
	CT_CHECK(btrfs_eb_bytenr(eb) == eb->start, "block %llu: header bytenr %llu",
		 (unsigned long long)eb->start, (unsigned long long)btrfs_eb_bytenr(eb));
	CT_CHECK(btrfs_eb_level(eb) == level, "block %llu: level %u, expect %d",
		 (unsigned long long)eb->start, btrfs_eb_level(eb), level);
	CT_CHECK(btrfs_eb_owner(eb) == root->root_key.objectid, "block %llu: owner %llu",
		 (unsigned long long)eb->start, (unsigned long long)btrfs_eb_owner(eb));
	CT_CHECK(btrfs_eb_generation(eb) <= transid, "block %llu: generation %llu > %llu",
		 (unsigned long long)eb->start, (unsigned long long)btrfs_eb_generation(eb),
		 (unsigned long long)transid);
	CT_CHECK(!memcmp(eb_header(eb)->fsid, fs_info->metadata_uuid, BTRFS_FSID_SIZE),
		 "block %llu: fsid", (unsigned long long)eb->start);
	if (level == 0) {
		CT_CHECK(!btrfs_check_leaf_layout(fs_info, eb, &err), "%s", err.msg);
		CT_CHECK(is_root || nr > 0, "leaf %llu is empty and not the root",
			 (unsigned long long)eb->start);
	} else {
		CT_CHECK(!btrfs_check_node(fs_info, eb, &err), "%s", err.msg);
	}
	if (!nr)
		return;
	if (level == 0) {
		btrfs_item_key_to_cpu(eb, &first, 0);
		btrfs_item_key_to_cpu(eb, &last, nr - 1);
	} else {
		btrfs_node_key_to_cpu(eb, &first, 0);
		btrfs_node_key_to_cpu(eb, &last, nr - 1);
	}
	if (lo)
		CT_CHECK(!btrfs_comp_cpu_keys(&first, lo),
			 "block %llu: first key differs from its parent's key",
			 (unsigned long long)eb->start);
	if (hi)
		CT_CHECK(btrfs_comp_cpu_keys(&last, hi) < 0,
			 "block %llu: last key reaches the next sibling's key",
			 (unsigned long long)eb->start);
	if (level == 0) {
		verify_leaf_items(w, eb);
		return;
	}
	for (i = 0; i < nr; i++) {
		struct btrfs_key k, next;
		struct extent_buffer *child;
		int ret;

		btrfs_node_key_to_cpu(eb, &k, i);
		if (i + 1 < nr)
			btrfs_node_key_to_cpu(eb, &next, i + 1);
		child = btrfs_read_node_slot(eb, i, &ret);
		CT_CHECK(child != NULL, "block %llu slot %u: child unreadable (%d)",
			 (unsigned long long)eb->start, i, ret);
		CT_CHECK(btrfs_node_ptr_generation(eb, i) == btrfs_eb_generation(child),
			 "block %llu slot %u: pointer generation %llu, child %llu",
			 (unsigned long long)eb->start, i,
			 (unsigned long long)btrfs_node_ptr_generation(eb, i),
			 (unsigned long long)btrfs_eb_generation(child));
		verify_block(w, child, level - 1, &k, i + 1 < nr ? &next : hi, false);
		free_extent_buffer(child);
	}
}

static void verify_tree(struct ct *ct)
{
	struct walk w = { ct, 0, 0 };
	struct extent_buffer *root = ct->root->node;
	int level = btrfs_eb_level(root);

	if (level > ct->max_level)
		ct->max_level = level;
	verify_block(&w, root, level, NULL, NULL, true);
	CT_CHECK(w.next == ct->m.nr, "tree has %zu items, model %zu", w.next, ct->m.nr);
	/* the root item's accounting follows the blocks */
	CT_CHECK(btrfs_root_bytes_used(&ct->root->root_item) ==
		 w.nr_blocks * ct->tfs.fs->nodesize,
		 "root bytes_used %llu, blocks %llu",
		 (unsigned long long)btrfs_root_bytes_used(&ct->root->root_item),
		 (unsigned long long)w.nr_blocks);
}

/* ---- operations ---- */

static u32 max_item(const struct ct *ct)
{
	return btrfs_leaf_max_item_size(ct->tfs.fs->nodesize);
}

static u32 random_size(struct ct *ct)
{
	u64 r = rnd_below(&ct->m, 100);

	if (r < 10)
		return 0;
	if (r < 80)
		return (u32)rnd_below(&ct->m, 120);
	if (r < 97)
		return (u32)rnd_below(&ct->m, 900);
	return (u32)(1000 + rnd_below(&ct->m, max_item(ct) - 1000));
}

static void random_key(struct ct *ct, struct btrfs_key *key)
{
	static const u8 types[] = { 1, 12, 84, 96, 108 };

	key->objectid = 256 + rnd_below(&ct->m, 400);
	key->type = types[rnd_below(&ct->m, sizeof(types))];
	key->offset = rnd_below(&ct->m, 1000);
}

static void op_insert(struct ct *ct)
{
	struct btrfs_key key;
	u8 buf[BTRFS_MAX_METADATA_BLOCKSIZE];
	u32 size = random_size(ct);
	size_t pos;
	bool found;
	int ret;

	random_key(ct, &key);
	fill_random(&ct->m, buf, size);
	pos = model_find(&ct->m, &key, &found);
	ret = btrfs_insert_item(ct->tfs.trans, ct->root, &key, buf, size);
	if (found) {
		CT_CHECK(ret == -EEXIST, "insert of an existing key: %d", ret);
		return;
	}
	CT_CHECK(ret == 0, "insert (%llu %u %llu) size %u: %d",
		 (unsigned long long)key.objectid, key.type,
		 (unsigned long long)key.offset, size, ret);
	model_insert(&ct->m, pos, &key, buf, size);
}

static void op_insert_batch(struct ct *ct)
{
	struct btrfs_key keys[8];
	u32 sizes[8], total = 0;
	u8 *data[8];
	struct btrfs_item_batch batch = { keys, sizes, 0 };
	struct btrfs_path path;
	size_t pos;
	bool found;
	int n = 2 + (int)rnd_below(&ct->m, 7), i, ret;

	random_key(ct, &keys[0]);
	for (i = 0; i < n; i++) {
		keys[i] = keys[0];
		keys[i].offset = keys[0].offset + 1000 + i;	/* beyond random_key's range */
		pos = model_find(&ct->m, &keys[i], &found);
		if (found)
			return;
		sizes[i] = (u32)rnd_below(&ct->m, 200);
		total += sizes[i] + sizeof(struct btrfs_item);
	}
	/* all land between the same two model items */
	pos = model_find(&ct->m, &keys[0], &found);
	if (pos < ct->m.nr && btrfs_comp_cpu_keys(&ct->m.items[pos].key, &keys[n - 1]) < 0)
		return;
	(void)total;
	batch.nr = n;
	btrfs_init_path(&path);
	ret = btrfs_insert_empty_items(ct->tfs.trans, ct->root, &path, &batch);
	CT_CHECK(ret == 0, "batch insert of %d items: %d", n, ret);
	for (i = 0; i < n; i++) {
		data[i] = malloc(sizes[i] + 1);
		fill_random(&ct->m, data[i], sizes[i]);
		memcpy(btrfs_item_ptr_raw(path.nodes[0], path.slots[0] + i), data[i], sizes[i]);
		model_insert(&ct->m, pos + i, &keys[i], data[i], sizes[i]);
		free(data[i]);
	}
	btrfs_release_path(&path);
}

/* search @key for a change: ins_len as btrfs_search_slot */
static void search_cow(struct ct *ct, const struct btrfs_key *key, struct btrfs_path *path,
		       int ins_len)
{
	int ret;

	btrfs_init_path(path);
	ret = btrfs_search_slot(ct->tfs.trans, ct->root, key, path, ins_len, 1);
	CT_CHECK(ret == 0, "search of an existing key (%llu %u %llu): %d",
		 (unsigned long long)key->objectid, key->type,
		 (unsigned long long)key->offset, ret);
}

static void op_delete(struct ct *ct)
{
	struct btrfs_path path;
	size_t idx;
	int slot, nr, avail, ret;

	if (!ct->m.nr)
		return;
	idx = rnd_below(&ct->m, ct->m.nr);
	search_cow(ct, &ct->m.items[idx].key, &path, -1);
	slot = path.slots[0];
	avail = (int)btrfs_eb_nritems(path.nodes[0]) - slot;
	nr = rnd_below(&ct->m, 4) ? 1 : 1 + (int)rnd_below(&ct->m, 8);
	if (nr > avail)
		nr = avail;
	ret = btrfs_del_items(ct->tfs.trans, ct->root, &path, slot, nr);
	CT_CHECK(ret == 0, "delete of %d items: %d", nr, ret);
	btrfs_release_path(&path);
	model_delete(&ct->m, idx, nr);
}

static void op_extend(struct ct *ct)
{
	struct btrfs_path path;
	struct mitem *mi;
	u32 delta;
	size_t idx;

	if (!ct->m.nr)
		return;
	idx = rnd_below(&ct->m, ct->m.nr);
	mi = &ct->m.items[idx];
	if (mi->size >= max_item(ct))
		return;
	delta = 1 + (u32)rnd_below(&ct->m, rnd_below(&ct->m, 10) ? 200 : 2000);
	if (mi->size + delta > max_item(ct))
		delta = max_item(ct) - mi->size;
	search_cow(ct, &mi->key, &path, (int)delta);
	CT_CHECK(btrfs_leaf_free_space(path.nodes[0]) >= delta,
		 "search for extension left %u free, need %u",
		 btrfs_leaf_free_space(path.nodes[0]), delta);
	btrfs_extend_item(&path, delta);
	mi->data = realloc(mi->data, mi->size + delta);
	fill_random(&ct->m, mi->data + mi->size, delta);
	btrfs_write_item_data(&path, mi->size, mi->data + mi->size, delta);
	mi->size += delta;
	btrfs_release_path(&path);
}

static void op_truncate(struct ct *ct)
{
	struct btrfs_path path;
	struct mitem *mi;
	u32 new_size;
	size_t idx;
	int from_end;

	if (!ct->m.nr)
		return;
	idx = rnd_below(&ct->m, ct->m.nr);
	mi = &ct->m.items[idx];
	if (!mi->size)
		return;
	new_size = (u32)rnd_below(&ct->m, mi->size);
	from_end = (int)rnd_below(&ct->m, 2);
	search_cow(ct, &mi->key, &path, 0);
	btrfs_truncate_item(&path, new_size, from_end);
	if (!from_end)
		memmove(mi->data, mi->data + mi->size - new_size, new_size);
	mi->size = new_size;
	btrfs_release_path(&path);
}

static void op_overwrite(struct ct *ct)
{
	struct btrfs_path path;
	struct mitem *mi;
	size_t idx;

	if (!ct->m.nr)
		return;
	idx = rnd_below(&ct->m, ct->m.nr);
	mi = &ct->m.items[idx];
	search_cow(ct, &mi->key, &path, 0);
	fill_random(&ct->m, mi->data, mi->size);
	btrfs_write_item_data(&path, 0, mi->data, mi->size);
	btrfs_release_path(&path);
}

static void op_lookup_missing(struct ct *ct)
{
	struct btrfs_path path;
	struct btrfs_key key;
	bool found;
	int ret;

	random_key(ct, &key);
	model_find(&ct->m, &key, &found);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, ct->root, &key, &path, 0, 0);
	CT_CHECK(ret == (found ? 0 : 1), "lookup: %d, model says %s", ret,
		 found ? "present" : "absent");
	btrfs_release_path(&path);
}

static void op_commit(struct ct *ct)
{
	test_fs_commit(&ct->tfs);
}

/* one step, biased towards growing (@grow) or shrinking the tree */
static void step(struct ct *ct, bool grow)
{
	u64 r = rnd_below(&ct->m, 1000);

	ct->nr_ops++;
	if (r < 3)
		op_commit(ct);
	else if (r < (grow ? 450 : 150))
		op_insert(ct);
	else if (r < (grow ? 520 : 170))
		op_insert_batch(ct);
	else if (r < (grow ? 650 : 750))
		op_delete(ct);
	else if (r < 780)
		op_extend(ct);
	else if (r < 900)
		op_truncate(ct);
	else if (r < 960)
		op_overwrite(ct);
	else
		op_lookup_missing(ct);
}

static void run_seed_ns(u64 seed, int rounds, size_t target, u32 nodesize, int min_level)
{
	struct ct ct;
	int level_before, r;

	memset(&ct, 0, sizeof(ct));
	ct.m.rand = seed * 0x9E3779B97F4A7C15ULL | 1;
	test_fs_create(&ct.tfs, nodesize, 256ULL << 20, 0);
	ct.root = test_fs_new_tree(&ct.tfs, BTRFS_FIRST_FREE_OBJECTID);
	for (r = 0; r < rounds; r++) {
		while (ct.m.nr < target) {
			step(&ct, true);
			verify_tree(&ct);
		}
		level_before = ct.max_level;
		while (ct.m.nr > 0) {
			step(&ct, false);
			verify_tree(&ct);
		}
		if (btrfs_eb_level(ct.root->node) < level_before)
			ct.level_drops++;
	}
	if (getenv("GHEE_TEST_VERBOSE"))
		fprintf(stderr, "ctree seed %llu: %llu steps, max level %d, %d level drops\n",
			(unsigned long long)seed, (unsigned long long)ct.nr_ops,
			ct.max_level, ct.level_drops);
	ck_assert_int_ge(ct.max_level, min_level);
	ck_assert_int_ge(ct.level_drops, 1);
	ck_assert_int_eq(btrfs_eb_level(ct.root->node), 0);
	test_fs_commit(&ct.tfs);
	test_fs_verify_extents(&ct.tfs);
	model_free(&ct.m);
	test_fs_destroy(&ct.tfs);
}

static void run_seed(u64 seed, int rounds, size_t target)
{
	run_seed_ns(seed, rounds, target, 4096, 2);
}

START_TEST(test_ctree_random_seed1) { run_seed(1, 2, 2500); }
END_TEST
START_TEST(test_ctree_random_seed2) { run_seed(2, 2, 2500); }
END_TEST
START_TEST(test_ctree_random_seed3) { run_seed(3, 1, 4000); }
END_TEST
START_TEST(test_ctree_random_seed4) { run_seed(0xdeadbeef, 3, 3000); }
END_TEST
START_TEST(test_ctree_random_16k) { run_seed_ns(5, 1, 4000, 16384, 1); }
END_TEST

/* sequential inserts pack leaves full; sequential deletes empty the tree */
START_TEST(test_ctree_sequential)
{
	struct test_fs tfs;
	struct btrfs_root *root;
	u8 buf[64];
	u64 i, n = 20000;

	test_fs_create(&tfs, 4096, 256ULL << 20, 0);
	root = test_fs_new_tree(&tfs, BTRFS_FIRST_FREE_OBJECTID);
	memset(buf, 0xab, sizeof(buf));
	for (i = 0; i < n; i++) {
		struct btrfs_key key = { 300, BTRFS_INODE_ITEM_KEY, i };

		ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, 40), 0);
	}
	ck_assert_int_ge(btrfs_eb_level(root->node), 2);
	/* appends fill leaves: 20000 items of 65 bytes need ~330 full 4 KiB leaves */
	ck_assert_uint_le(btrfs_root_bytes_used(&root->root_item) / 4096, 380);
	test_fs_commit(&tfs);
	for (i = 0; i < n; i++) {
		struct btrfs_key key = { 300, BTRFS_INODE_ITEM_KEY, n - 1 - i };

		ck_assert_int_eq(btrfs_delete_key(tfs.trans, root, &key), 0);
	}
	ck_assert_int_eq(btrfs_eb_level(root->node), 0);
	ck_assert_int_eq(btrfs_eb_nritems(root->node), 0);
	ck_assert_uint_eq(btrfs_root_bytes_used(&root->root_item), 4096);
	test_fs_commit(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_destroy(&tfs);
}
END_TEST

/* an item of the largest size fits, one byte more does not */
START_TEST(test_ctree_item_limits)
{
	struct test_fs tfs;
	struct btrfs_root *root;
	u32 max;
	u8 *buf;
	int i;

	test_fs_create(&tfs, 4096, 128ULL << 20, 0);
	root = test_fs_new_tree(&tfs, BTRFS_FIRST_FREE_OBJECTID);
	max = btrfs_leaf_max_item_size(4096);
	buf = calloc(1, max + 1);
	for (i = 0; i < 50; i++) {
		struct btrfs_key key = { 257 + i, 1, 0 };

		ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, i % 2 ? max : 10), 0);
	}
	{
		struct btrfs_key key = { 1000, 1, 0 };

		ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, max + 1),
				 -EOVERFLOW);
	}
	free(buf);
	test_fs_commit(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_destroy(&tfs);
}
END_TEST

/*
 * An insert of a key that is there already, with the room asked for the
 * new item, is refused with EEXIST and leaves the tree as it was, also
 * when the existing item is nearly a leaf in size (the room then cannot
 * be made by growing it); the item stays findable and can still be
 * extended by what fits.
 */
static void insert_existing_round(u64 seed, const u32 *sizes, int nr)
{
	struct ct ct;
	u8 *buf;
	int i, j, k;
	static const u32 asks[] = { 0, 1, 24, 25, 60, 300, 2000 };

	memset(&ct, 0, sizeof(ct));
	ct.m.rand = seed * 0x9E3779B97F4A7C15ULL | 1;
	test_fs_create(&ct.tfs, 4096, 128ULL << 20, 0);
	ct.root = test_fs_new_tree(&ct.tfs, BTRFS_FIRST_FREE_OBJECTID);
	buf = calloc(1, max_item(&ct) + 1);
	for (i = 0; i < nr; i++) {
		struct btrfs_key key = { 300, BTRFS_INODE_REF_KEY, 1000 + i };
		size_t pos;
		bool found;

		fill_random(&ct.m, buf, sizes[i]);
		pos = model_find(&ct.m, &key, &found);
		ck_assert_int_eq(btrfs_insert_item(ct.tfs.trans, ct.root, &key, buf, sizes[i]), 0);
		model_insert(&ct.m, pos, &key, buf, sizes[i]);
	}
	verify_tree(&ct);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < nr; i++) {
			for (j = 0; j < (int)(sizeof(asks) / sizeof(asks[0])); j++) {
				struct btrfs_key key = ct.m.items[i].key;
				struct btrfs_path path;
				int ret;

				ret = btrfs_insert_item(ct.tfs.trans, ct.root, &key, buf, asks[j]);
				CT_CHECK(ret == -EEXIST, "insert of existing item %d (size %u) asking %u: %d",
					 i, ct.m.items[i].size, asks[j], ret);
				verify_tree(&ct);
				btrfs_init_path(&path);
				ret = btrfs_search_slot(NULL, ct.root, &key, &path, 0, 0);
				CT_CHECK(ret == 0, "item %d lost after a refused insert: %d", i, ret);
				btrfs_release_path(&path);
			}
		}
		/* grow every item by what still fits, then try again */
		for (i = 0; i < nr && !k; i++) {
			struct mitem *mi = &ct.m.items[i];
			struct btrfs_path path;
			u32 delta = max_item(&ct) - mi->size;

			if (delta > 40)
				delta = 40;
			if (!delta)
				continue;
			search_cow(&ct, &mi->key, &path, (int)delta);
			CT_CHECK(btrfs_leaf_free_space(path.nodes[0]) >= delta,
				 "search for extension of item %d left %u free, need %u", i,
				 btrfs_leaf_free_space(path.nodes[0]), delta);
			btrfs_extend_item(&path, delta);
			mi->data = realloc(mi->data, mi->size + delta);
			fill_random(&ct.m, mi->data + mi->size, delta);
			btrfs_write_item_data(&path, mi->size, mi->data + mi->size, delta);
			mi->size += delta;
			btrfs_release_path(&path);
			verify_tree(&ct);
		}
	}
	/* insert-or-extend: grows what fits, refuses the rest unchanged */
	for (k = 0; k < 3; k++) {
		for (i = 0; i < nr; i++) {
			for (j = 1; j < (int)(sizeof(asks) / sizeof(asks[0])); j++) {
				struct mitem *mi = &ct.m.items[i];
				struct btrfs_path path;
				u32 off, len = asks[j];
				int ret;

				btrfs_init_path(&path);
				ret = btrfs_insert_or_extend_item(ct.tfs.trans, ct.root, &path,
								  &mi->key, len, &off);
				if (mi->size + len > max_item(&ct)) {
					CT_CHECK(ret == -EOVERFLOW, "growing item %d (size %u) by %u: %d",
						 i, mi->size, len, ret);
				} else {
					CT_CHECK(ret == 0 && off == mi->size,
						 "growing item %d (size %u) by %u: %d, off %u",
						 i, mi->size, len, ret, off);
					mi->data = realloc(mi->data, mi->size + len);
					fill_random(&ct.m, mi->data + mi->size, len);
					btrfs_write_item_data(&path, off, mi->data + mi->size, len);
					mi->size += len;
				}
				btrfs_release_path(&path);
				verify_tree(&ct);
			}
		}
	}
	free(buf);
	test_fs_commit(&ct.tfs);
	test_fs_verify_extents(&ct.tfs);
	model_free(&ct.m);
	test_fs_destroy(&ct.tfs);
}

START_TEST(test_ctree_insert_existing_full)
{
	u32 max = btrfs_leaf_max_item_size(4096);
	const u32 alone[] = { max - 10 };
	const u32 first[] = { max - 30, 40, 50 };
	const u32 middle[] = { 500, max - 600, 400 };
	const u32 last[] = { 100, 200, max - 330 };
	const u32 full[] = { max, max - 1, 10, max - 25, max - 26, 2000, 1900, max };
	const u32 mixed[] = { 1500, 1500, max - 3000, 1200, max - 20, 3, 7, 1000, max - 1100 };

	insert_existing_round(1, alone, 1);
	insert_existing_round(2, first, 3);
	insert_existing_round(3, middle, 3);
	insert_existing_round(4, last, 3);
	insert_existing_round(5, full, 8);
	insert_existing_round(6, mixed, 9);
}
END_TEST

/* the guard of the next test: keys (300 INODE_ITEM [1001, 1101)) are refused */
static int guard_range(void *data, struct btrfs_root *root, const struct btrfs_key *key)
{
	int *asked = data;

	(void)root;
	(*asked)++;
	return key->objectid == 300 && key->offset >= 1001 && key->offset < 1101 ? -EACCES : 0;
}

/* the key of slot @slot of @node */
static void node_key(const struct extent_buffer *node, int slot, struct btrfs_key *key)
{
	btrfs_node_key_to_cpu(node, key, slot);
}

/*
 * The key guard refuses inserts and key changes into its range before
 * they touch anything, and nothing once removed.  btrfs_set_node_key_safe
 * keeps the order of the node and, for a first slot, the nodes above.
 */
START_TEST(test_ctree_key_guard_and_node_key)
{
	struct btrfs_key_guard guard;
	struct btrfs_key key, k0, k1;
	struct btrfs_path path;
	struct test_fs tfs;
	struct btrfs_root *root;
	struct extent_buffer *node;
	u8 buf[40];
	int asked = 0, slot;
	u64 i, n = 20000;

	test_fs_create(&tfs, 4096, 256ULL << 20, 0);
	root = test_fs_new_tree(&tfs, BTRFS_FIRST_FREE_OBJECTID);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < n; i++) {
		key = (struct btrfs_key){ 300, BTRFS_INODE_ITEM_KEY, 2 * i };
		ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, sizeof(buf)), 0);
	}
	ck_assert_int_ge(btrfs_eb_level(root->node), 2);
	guard = (struct btrfs_key_guard){ guard_range, &asked };
	btrfs_set_key_guard(tfs.fs, &guard);
	key = (struct btrfs_key){ 300, BTRFS_INODE_ITEM_KEY, 1051 };
	ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, sizeof(buf)), -EACCES);
	key.offset = 2001;
	ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, sizeof(buf)), 0);
	/* an existing item may not take a key in the range either */
	key.offset = 1100;
	btrfs_init_path(&path);
	ck_assert_int_eq(btrfs_search_slot(tfs.trans, root, &key, &path, 0, 1), 0);
	key.offset = 1099;
	ck_assert_int_eq(btrfs_set_item_key_safe(tfs.trans, root, &path, &key), -EACCES);
	btrfs_release_path(&path);
	ck_assert_int_ge(asked, 3);
	btrfs_set_key_guard(tfs.fs, NULL);
	key.offset = 1051;
	ck_assert_int_eq(btrfs_insert_item(tfs.trans, root, &key, buf, sizeof(buf)), 0);
	ck_assert_int_eq(asked, 3);

	/* slot 1 of a level-1 node: its key lowered into the gap below it */
	test_fs_commit(&tfs);
	key = (struct btrfs_key){ 300, BTRFS_INODE_ITEM_KEY, 2 * (n / 2) };
	btrfs_init_path(&path);
	path.lowest_level = 1;
	ck_assert_int_ge(btrfs_search_slot(tfs.trans, root, &key, &path, 0, 1), 0);
	node = path.nodes[1];
	slot = path.slots[1] > 0 ? path.slots[1] : 1;
	path.slots[1] = slot;
	node_key(node, slot, &k1);
	node_key(node, slot - 1, &k0);
	key = k1;
	key.offset--;
	ck_assert_int_eq(btrfs_set_node_key_safe(tfs.trans, &path, 1, &key), 0);
	node_key(node, slot, &key);
	ck_assert_uint_eq(key.offset, k1.offset - 1);
	/* not at or below the key before it */
	ck_assert_int_eq(btrfs_set_node_key_safe(tfs.trans, &path, 1, &k0), -EINVAL);
	ck_assert_int_eq(btrfs_set_node_key_safe(tfs.trans, &path, 1, &k1), 0);
	/* slot 0: the key of the node in its parent follows */
	path.slots[1] = 0;
	node_key(node, 0, &k0);
	key = k0;
	key.offset++;
	ck_assert_int_eq(btrfs_set_node_key_safe(tfs.trans, &path, 1, &key), 0);
	node_key(path.nodes[2], path.slots[2], &k1);
	ck_assert_int_eq(btrfs_comp_cpu_keys(&k1, &key), 0);
	ck_assert_int_eq(btrfs_set_node_key_safe(tfs.trans, &path, 1, &k0), 0);
	node_key(path.nodes[2], path.slots[2], &k1);
	ck_assert_int_eq(btrfs_comp_cpu_keys(&k1, &k0), 0);
	btrfs_release_path(&path);
	test_fs_commit(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_destroy(&tfs);
}
END_TEST

Suite *ctree_suite(void)
{
	Suite *s = suite_create("ctree");
	TCase *tc = tcase_create("write");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_ctree_item_limits);
	tcase_add_test(tc, test_ctree_insert_existing_full);
	tcase_add_test(tc, test_ctree_sequential);
	tcase_add_test(tc, test_ctree_key_guard_and_node_key);
	tcase_add_test(tc, test_ctree_random_seed1);
	tcase_add_test(tc, test_ctree_random_seed2);
	tcase_add_test(tc, test_ctree_random_seed3);
	tcase_add_test(tc, test_ctree_random_seed4);
	tcase_add_test(tc, test_ctree_random_16k);
	suite_add_tcase(s, tc);
	return s;
}
