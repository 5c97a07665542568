// SPDX-License-Identifier: GPL-2.0
/*
 * Allocator invariants, randomized: data extents allocated, referenced
 * (inline and keyed back references), dereferenced and freed in random
 * order with tree block churn in between and commits now and then.
 * After each commit the extent tree is compared with a model of the live
 * extents and their references, and test_fs_verify_extents() checks that
 * nothing is allocated twice, that block group `used`, the superblock's
 * and the devices' bytes_used and the free space tree all agree.
 * Also: chunk allocation for every profile, reopening a filesystem for
 * writing, running out of space, and (fault-injection builds) failing
 * every device write of a commit in turn.
 */
#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "suites.h"
#include "test-fs.h"
#include "ctree.h"
#include "extent-tree.h"
#include "block-group.h"
#include "chunk-alloc.h"
#include "write-io.h"
#include "fs-create.h"
#include "file-item.h"
#include "csum.h"

#define AL_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

struct dref {
	u64 root, ino, offset;
	u32 count;
};

struct dext {
	u64 bytenr, len;
	struct dref *refs;
	int nr_refs;
};

struct amodel {
	struct dext *e;
	int nr, cap;
	/* freed in this transaction: must not be handed out again before commit */
	u64 *freed_start, *freed_len;
	int nr_freed, cap_freed;
	u64 rand;
};

static u64 rnd(struct amodel *m)
{
	return test_rand(&m->rand);
}

static u64 rnd_below(struct amodel *m, u64 n)
{
	return n ? (rnd(m) >> 7) % n : 0;
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

static void check_fresh(struct amodel *m, u64 bytenr, u64 len)
{
	int i;

	for (i = 0; i < m->nr; i++)
		AL_CHECK(!overlaps(bytenr, len, m->e[i].bytenr, m->e[i].len),
			 "extent %llu+%llu allocated over live extent %llu+%llu",
			 (unsigned long long)bytenr, (unsigned long long)len,
			 (unsigned long long)m->e[i].bytenr, (unsigned long long)m->e[i].len);
	for (i = 0; i < m->nr_freed; i++)
		AL_CHECK(!overlaps(bytenr, len, m->freed_start[i], m->freed_len[i]),
			 "extent %llu+%llu reuses space freed before the commit",
			 (unsigned long long)bytenr, (unsigned long long)len);
}

static struct dref *find_ref(struct dext *e, u64 root, u64 ino, u64 offset)
{
	int i;

	for (i = 0; i < e->nr_refs; i++)
		if (e->refs[i].root == root && e->refs[i].ino == ino &&
		    e->refs[i].offset == offset)
			return &e->refs[i];
	return NULL;
}

static void add_model_ref(struct dext *e, u64 root, u64 ino, u64 offset)
{
	struct dref *r = find_ref(e, root, ino, offset);

	if (r) {
		r->count++;
		return;
	}
	e->refs = realloc(e->refs, (e->nr_refs + 1) * sizeof(*e->refs));
	ck_assert_ptr_nonnull(e->refs);
	e->refs[e->nr_refs].root = root;
	e->refs[e->nr_refs].ino = ino;
	e->refs[e->nr_refs].offset = offset;
	e->refs[e->nr_refs].count = 1;
	e->nr_refs++;
}

static void op_alloc(struct test_fs *tfs, struct amodel *m)
{
	u64 len = (1 + rnd_below(m, rnd_below(m, 8) ? 16 : 256)) * 4096;
	u64 root = 5, ino = 257 + rnd_below(m, 50), off = rnd_below(m, 1000) * 4096;
	struct btrfs_block_group *bg;
	u64 bytenr;
	int ret;

	ret = btrfs_alloc_data_extent(tfs->trans, len, root, ino, off, &bytenr);
	if (ret == -ENOSPC)
		return;
	AL_CHECK(ret == 0, "data allocation of %llu: %d", (unsigned long long)len, ret);
	check_fresh(m, bytenr, len);
	bg = btrfs_lookup_block_group(tfs->fs, bytenr);
	AL_CHECK(bg && (bg->flags & BTRFS_BLOCK_GROUP_DATA) &&
		 bytenr + len <= bg->start + bg->length,
		 "data extent %llu not inside a data block group", (unsigned long long)bytenr);
	if (m->nr == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->e = realloc(m->e, m->cap * sizeof(*m->e));
		ck_assert_ptr_nonnull(m->e);
	}
	memset(&m->e[m->nr], 0, sizeof(m->e[0]));
	m->e[m->nr].bytenr = bytenr;
	m->e[m->nr].len = len;
	add_model_ref(&m->e[m->nr], root, ino, off);
	m->nr++;
}

static void op_inc(struct test_fs *tfs, struct amodel *m, int times)
{
	struct dext *e;
	int i;

	if (!m->nr)
		return;
	e = &m->e[rnd_below(m, m->nr)];
	for (i = 0; i < times; i++) {
		u64 root = rnd_below(m, 3) ? 5 : 256 + rnd_below(m, 3);
		u64 ino = 257 + rnd_below(m, times > 1 ? 500 : 20);
		u64 off = rnd_below(m, 64) * 4096;

		if (e->nr_refs && !rnd_below(m, 4)) {
			struct dref *r = &e->refs[rnd_below(m, e->nr_refs)];

			root = r->root;
			ino = r->ino;
			off = r->offset;
		}
		AL_CHECK(!btrfs_inc_data_ref(tfs->trans, e->bytenr, e->len, root, ino, off),
			 "inc ref");
		add_model_ref(e, root, ino, off);
	}
}

static void op_dec(struct test_fs *tfs, struct amodel *m)
{
	int idx, i;
	struct dext *e;
	struct dref *r;

	if (!m->nr)
		return;
	idx = (int)rnd_below(m, m->nr);
	e = &m->e[idx];
	r = &e->refs[rnd_below(m, e->nr_refs)];
	AL_CHECK(!btrfs_dec_data_ref(tfs->trans, e->bytenr, e->len, r->root, r->ino,
				     r->offset), "dec ref");
	if (--r->count)
		return;
	*r = e->refs[--e->nr_refs];
	if (e->nr_refs)
		return;
	if (m->nr_freed == m->cap_freed) {
		m->cap_freed = m->cap_freed ? m->cap_freed * 2 : 64;
		m->freed_start = realloc(m->freed_start, m->cap_freed * sizeof(u64));
		m->freed_len = realloc(m->freed_len, m->cap_freed * sizeof(u64));
	}
	m->freed_start[m->nr_freed] = e->bytenr;
	m->freed_len[m->nr_freed++] = e->len;
	free(e->refs);
	for (i = idx; i + 1 < m->nr; i++)
		m->e[i] = m->e[i + 1];
	m->nr--;
}

/* tree block churn: items in and out of a scratch tree */
static void op_tree(struct test_fs *tfs, struct amodel *m, struct btrfs_root *root)
{
	struct btrfs_key key = { 1000 + rnd_below(m, 3000), 1, 0 };
	u8 buf[300];
	int ret;

	memset(buf, (int)key.objectid, sizeof(buf));
	ret = btrfs_insert_item(tfs->trans, root, &key, buf, (u32)rnd_below(m, sizeof(buf)));
	if (ret == -EEXIST)
		ret = btrfs_delete_key(tfs->trans, root, &key);
	AL_CHECK(ret == 0, "scratch tree change: %d", ret);
}

/* ---- comparing the extent tree with the model ---- */

static struct dext *model_find(struct amodel *m, u64 bytenr)
{
	int i;

	for (i = 0; i < m->nr; i++)
		if (m->e[i].bytenr == bytenr)
			return &m->e[i];
	return NULL;
}

struct seen_refs {
	struct dref *r;
	int nr;
};

static void seen_add(struct seen_refs *s, u64 root, u64 ino, u64 off, u32 count)
{
	s->r = realloc(s->r, (s->nr + 1) * sizeof(*s->r));
	s->r[s->nr].root = root;
	s->r[s->nr].ino = ino;
	s->r[s->nr].offset = off;
	s->r[s->nr].count = count;
	s->nr++;
}

static void check_extent_refs(struct dext *e, struct seen_refs *s, u64 refs)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < s->nr; i++) {
		struct dref *r = find_ref(e, s->r[i].root, s->r[i].ino, s->r[i].offset);

		AL_CHECK(r && r->count == s->r[i].count,
			 "extent %llu: ref (%llu %llu %llu) count %u not in the model",
			 (unsigned long long)e->bytenr, (unsigned long long)s->r[i].root,
			 (unsigned long long)s->r[i].ino, (unsigned long long)s->r[i].offset,
			 s->r[i].count);
		sum += s->r[i].count;
	}
	AL_CHECK(s->nr == e->nr_refs, "extent %llu: %d refs on disk, %d in the model",
		 (unsigned long long)e->bytenr, s->nr, e->nr_refs);
	AL_CHECK(sum == refs, "extent %llu: refs %llu, counts sum to %llu",
		 (unsigned long long)e->bytenr, (unsigned long long)refs,
		 (unsigned long long)sum);
}

/* the inline refs of one data extent item, in the kernel's order */
static u64 parse_inline(struct extent_buffer *leaf, int slot, struct seen_refs *s,
			u32 max_inline)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot), off = sizeof(struct btrfs_extent_item);
	u64 last_hash = (u64)-1;

	AL_CHECK(size <= max_inline || size == off + 29, "extent item of %u bytes", size);
	while (off < size) {
		const struct btrfs_extent_data_ref *d = (const void *)(p + off + 1);
		u64 h;

		AL_CHECK(p[off] == BTRFS_EXTENT_DATA_REF_KEY, "inline ref type %u", p[off]);
		h = btrfs_extent_data_ref_hash(btrfs_extent_data_ref_root(d),
					       btrfs_extent_data_ref_objectid(d),
					       btrfs_extent_data_ref_offset(d));
		AL_CHECK(h <= last_hash, "inline data refs out of order");
		last_hash = h;
		seen_add(s, btrfs_extent_data_ref_root(d), btrfs_extent_data_ref_objectid(d),
			 btrfs_extent_data_ref_offset(d), btrfs_extent_data_ref_count(d));
		off += 29;
	}
	AL_CHECK(off == size, "inline refs overrun the item");
	return btrfs_extent_refs((const void *)p);
}

/* the v1 space cache's file extents (root tree refs) are not the model's */
static bool v1_cache_extent(const struct extent_buffer *leaf, int slot)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);

	return btrfs_item_size(leaf, slot) >= 24 + 1 + 8 && p[24] == BTRFS_EXTENT_DATA_REF_KEY &&
	       get_unaligned_le64(p + 25) == BTRFS_ROOT_TREE_OBJECTID;
}

/* bytes of v1 space cache extents inside [start, start + len) */
static u64 v1_cache_bytes(struct test_fs *tfs, u64 start, u64 len)
{
	struct btrfs_root *root = &tfs->fs->extent_root;
	struct btrfs_key key = { start, 0, 0 };
	struct btrfs_path path;
	u64 bytes = 0;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	ck_assert_int_ge(ret, 0);
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid >= start + len)
			break;
		if (key.type == BTRFS_EXTENT_ITEM_KEY &&
		    v1_cache_extent(path.nodes[0], path.slots[0]))
			bytes += key.offset;
		ret = btrfs_next_item(root, &path);
	}
	ck_assert_int_ge(ret, 0);
	btrfs_release_path(&path);
	return bytes;
}

static void compare_data_extents(struct test_fs *tfs, struct amodel *m)
{
	struct btrfs_fs_info *fs_info = tfs->fs;
	struct btrfs_root *root = &fs_info->extent_root;
	u32 max_inline = (btrfs_leaf_data_size(fs_info->nodesize) >> 4) - 25;
	struct seen_refs s = { NULL, 0 };
	struct dext *cur = NULL;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	u64 refs = 0;
	int found = 0, ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	ck_assert_int_ge(ret, 0);
	ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_EXTENT_ITEM_KEY &&
		    (btrfs_extent_flags(btrfs_item_ptr(path.nodes[0], path.slots[0],
						       struct btrfs_extent_item)) &
		     BTRFS_EXTENT_FLAG_DATA) && !v1_cache_extent(path.nodes[0], path.slots[0])) {
			if (cur)
				check_extent_refs(cur, &s, refs);
			s.nr = 0;
			cur = model_find(m, key.objectid);
			AL_CHECK(cur && cur->len == key.offset,
				 "data extent %llu+%llu is not in the model",
				 (unsigned long long)key.objectid, (unsigned long long)key.offset);
			refs = parse_inline(path.nodes[0], path.slots[0], &s, max_inline);
			found++;
		} else if (key.type == BTRFS_EXTENT_DATA_REF_KEY) {
			const struct btrfs_extent_data_ref *d = btrfs_item_ptr(path.nodes[0],
						path.slots[0], struct btrfs_extent_data_ref);

			AL_CHECK(cur && cur->bytenr == key.objectid, "keyed ref without extent");
			AL_CHECK(key.offset - btrfs_extent_data_ref_hash(
					btrfs_extent_data_ref_root(d),
					btrfs_extent_data_ref_objectid(d),
					btrfs_extent_data_ref_offset(d)) < 64,
				 "keyed data ref not at its hash");
			seen_add(&s, btrfs_extent_data_ref_root(d), btrfs_extent_data_ref_objectid(d),
				 btrfs_extent_data_ref_offset(d), btrfs_extent_data_ref_count(d));
		}
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (cur)
		check_extent_refs(cur, &s, refs);
	free(s.r);
	AL_CHECK(found == m->nr, "%d data extents on disk, %d in the model", found, m->nr);
}

static void commit_and_verify(struct test_fs *tfs, struct amodel *m)
{
	test_fs_commit(tfs);
	m->nr_freed = 0;
	test_fs_verify_extents(tfs);
	compare_data_extents(tfs, m);
}

static void model_free(struct amodel *m)
{
	int i;

	for (i = 0; i < m->nr; i++)
		free(m->e[i].refs);
	free(m->e);
	free(m->freed_start);
	free(m->freed_len);
}

static void run_random(u64 seed, u32 nodesize, unsigned int flags, int steps)
{
	struct test_fs tfs;
	struct amodel m;
	struct btrfs_root *scratch;
	int i;

	memset(&m, 0, sizeof(m));
	m.rand = seed * 0x2545F4914F6CDD1DULL | 1;
	test_fs_create(&tfs, nodesize, 1ULL << 30, flags);
	scratch = test_fs_new_tree(&tfs, BTRFS_FIRST_FREE_OBJECTID);
	for (i = 0; i < steps; i++) {
		u64 r = rnd_below(&m, 100);

		if (r < 30)
			op_alloc(&tfs, &m);
		else if (r < 50)
			op_inc(&tfs, &m, 1);
		else if (r < 52)
			op_inc(&tfs, &m, 20 + (int)rnd_below(&m, 40));
		else if (r < 75)
			op_dec(&tfs, &m);
		else if (r < 97)
			op_tree(&tfs, &m, scratch);
		else
			commit_and_verify(&tfs, &m);
	}
	/* drop everything: the data block groups end up empty */
	while (m.nr)
		op_dec(&tfs, &m);
	commit_and_verify(&tfs, &m);
	for (i = 0; i < (int)btrfs_nr_block_groups(tfs.fs); i++) {
		struct btrfs_block_group *bg = btrfs_block_group_nr(tfs.fs, i);

		/*
		 * Every file extent is gone: data groups hold nothing but, without
		 * the free space tree, the v1 cache files of the last commit.
		 */
		if (!(bg->flags & BTRFS_BLOCK_GROUP_METADATA))
			ck_assert_uint_eq(bg->used, bg->flags & BTRFS_BLOCK_GROUP_SYSTEM ?
					  bg->used : v1_cache_bytes(&tfs, bg->start, bg->length));
	}
	model_free(&m);
	test_fs_destroy(&tfs);
}

START_TEST(test_alloc_random_skinny) { run_random(1, 16384, 0, 4000); }
END_TEST
START_TEST(test_alloc_random_small_nodes) { run_random(2, 4096, 0, 4000); }
END_TEST
START_TEST(test_alloc_random_not_skinny_no_fst)
{
	run_random(3, 4096, TEST_FS_NOT_SKINNY | TEST_FS_NO_FST, 3000);
}
END_TEST
START_TEST(test_alloc_random_mixed) { run_random(4, 4096, TEST_FS_MIXED, 3000); }
END_TEST

/* chunks of every profile on four devices; data round trip through every copy */
START_TEST(test_alloc_chunk_profiles)
{
	static const struct {
		u64 profile;
		int stripes;
		int copies;
	} profiles[] = {
		{ 0, 1, 1 },
		{ BTRFS_BLOCK_GROUP_DUP, 2, 2 },
		{ BTRFS_BLOCK_GROUP_RAID0, 4, 1 },
		{ BTRFS_BLOCK_GROUP_RAID1, 2, 2 },
		{ BTRFS_BLOCK_GROUP_RAID1C3, 3, 3 },
		{ BTRFS_BLOCK_GROUP_RAID1C4, 4, 4 },
		{ BTRFS_BLOCK_GROUP_RAID10, 4, 2 },
	};
	struct test_fs tfs;
	u8 *wbuf = malloc(300000), *rbuf = malloc(300000);
	size_t i;
	int s, t, m;

	test_fs_create_devs(&tfs, 16384, 1ULL << 30, 0, 4, BTRFS_BLOCK_GROUP_RAID1,
			    BTRFS_BLOCK_GROUP_RAID0);
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		struct btrfs_chunk_request req = { 0 };
		struct map_lookup *ml;
		u64 start, len, off;

		req.type = BTRFS_BLOCK_GROUP_DATA | profiles[i].profile;
		req.stripe_size = 16ULL << 20;
		ck_assert_int_eq(btrfs_alloc_chunk(tfs.trans, &req, &start, &len), 0);
		ml = chunk_map_lookup(&tfs.fs->chunk_map, start);
		ck_assert_ptr_nonnull(ml);
		ck_assert_int_eq(ml->num_stripes, profiles[i].stripes);
		ck_assert_int_eq(btrfs_num_copies(tfs.fs, start, 1), profiles[i].copies);
		for (s = 0; s < ml->num_stripes; s++)
			for (t = s + 1; t < ml->num_stripes; t++) {
				if (profiles[i].profile == BTRFS_BLOCK_GROUP_DUP) {
					ck_assert_uint_eq(ml->stripes[s].devid, ml->stripes[t].devid);
					ck_assert(!overlaps(ml->stripes[s].physical, 16ULL << 20,
							    ml->stripes[t].physical, 16ULL << 20));
				} else {
					ck_assert_uint_ne(ml->stripes[s].devid, ml->stripes[t].devid);
				}
			}
		/* a write crossing stripe boundaries, read back from every copy */
		for (off = 0; off < 300000; off++)
			wbuf[off] = (u8)(off * 7 + i);
		ck_assert_int_eq(btrfs_write_logical(tfs.fs, start + 40960, wbuf, 300000), 0);
		for (m = 1; m <= profiles[i].copies; m++) {
			memset(rbuf, 0, 300000);
			ck_assert_int_eq(btrfs_read_logical(tfs.fs, start + 40960, rbuf, 300000, m), 0);
			ck_assert(!memcmp(wbuf, rbuf, 300000));
		}
	}
	{
		struct btrfs_chunk_request req = { BTRFS_BLOCK_GROUP_DATA |
						   BTRFS_BLOCK_GROUP_RAID5, 0, 0, 0, 0 };

		ck_assert_int_eq(btrfs_alloc_chunk(tfs.trans, &req, NULL, NULL), -EOPNOTSUPP);
	}
	test_fs_commit(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_reopen(&tfs);
	test_fs_verify_extents(&tfs);
	free(wbuf);
	free(rbuf);
	test_fs_destroy(&tfs);
}
END_TEST

/* a reopened filesystem has the same block groups, used and free space */
START_TEST(test_alloc_reopen)
{
	struct test_fs tfs;
	struct amodel m;
	u64 used[64], freeb[64];
	size_t n, i;
	int k;

	memset(&m, 0, sizeof(m));
	m.rand = 77;
	test_fs_create(&tfs, 16384, 1ULL << 30, 0);
	for (k = 0; k < 200; k++)
		op_alloc(&tfs, &m);
	for (k = 0; k < 60; k++)
		op_dec(&tfs, &m);
	commit_and_verify(&tfs, &m);
	n = btrfs_nr_block_groups(tfs.fs);
	ck_assert_uint_le(n, 64);
	for (i = 0; i < n; i++) {
		used[i] = btrfs_block_group_nr(tfs.fs, i)->used;
		freeb[i] = btrfs_block_group_free_bytes(btrfs_block_group_nr(tfs.fs, i));
	}
	test_fs_reopen(&tfs);
	ck_assert_uint_eq(btrfs_nr_block_groups(tfs.fs), n);
	for (i = 0; i < n; i++) {
		ck_assert_uint_eq(btrfs_block_group_nr(tfs.fs, i)->used, used[i]);
		ck_assert_uint_eq(btrfs_block_group_free_bytes(btrfs_block_group_nr(tfs.fs, i)),
				  freeb[i]);
	}
	for (k = 0; k < 200; k++) {
		op_alloc(&tfs, &m);
		op_inc(&tfs, &m, 1);
		op_dec(&tfs, &m);
	}
	commit_and_verify(&tfs, &m);
	model_free(&m);
	test_fs_destroy(&tfs);
}
END_TEST

/* what the dirty range tree covers: the model of btrfs_trans_dirty_bytes() */
static u64 dirty_range_bytes(struct btrfs_fs_info *fs)
{
	struct extent_state *st;
	u64 sum = 0;

	extent_io_tree_for_each(st, &fs->write->dirty)
		sum += st->end - st->start + 1;
	return sum;
}

/*
 * The dirty-bytes count writers commit on follows the dirty tree blocks
 * through inserts, deletes (blocks freed in the transaction are cleaned),
 * splits and merges, and is 0 after each commit.
 */
START_TEST(test_alloc_dirty_bytes)
{
	struct test_fs tfs;
	struct btrfs_root *scratch;
	u64 seed = 7;
	int i, j;

	test_fs_create(&tfs, 4096, 512ULL << 20, 0);
	scratch = test_fs_new_tree(&tfs, BTRFS_FIRST_FREE_OBJECTID);
	for (i = 0; i < 6; i++) {
		for (j = 0; j < 1500; j++) {
			struct btrfs_key key;
			u8 buf[300];
			int ret;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			key.objectid = 1000 + (seed >> 33) % 4000;
			key.type = 1;
			key.offset = 0;
			memset(buf, (int)key.objectid, sizeof(buf));
			ret = btrfs_insert_item(tfs.trans, scratch, &key, buf,
						(u32)((seed >> 20) % sizeof(buf)));
			if (ret == -EEXIST)
				ret = btrfs_delete_key(tfs.trans, scratch, &key);
			ck_assert_int_eq(ret, 0);
			if (j % 97 == 0)
				ck_assert_uint_eq(btrfs_trans_dirty_bytes(tfs.trans),
						  dirty_range_bytes(tfs.fs));
		}
		ck_assert_uint_gt(btrfs_trans_dirty_bytes(tfs.trans), 0);
		ck_assert_uint_eq(btrfs_trans_dirty_bytes(tfs.trans), dirty_range_bytes(tfs.fs));
		test_fs_commit(&tfs);
		ck_assert_uint_eq(btrfs_trans_dirty_bytes(tfs.trans), 0);
	}
	test_fs_destroy(&tfs);
}
END_TEST

/* a commit without changes writes nothing; a data-only change still moves the root */
START_TEST(test_alloc_empty_commit)
{
	struct test_fs tfs;
	u64 gen, bytenr;

	test_fs_create(&tfs, 16384, 256ULL << 20, 0);
	gen = btrfs_super_generation(&tfs.fs->super_copy);
	test_fs_commit(&tfs);
	test_fs_commit(&tfs);
	ck_assert_uint_eq(btrfs_super_generation(&tfs.fs->super_copy), gen);
	ck_assert_int_eq(btrfs_alloc_data_extent(tfs.trans, 4096, 5, 257, 0, &bytenr), 0);
	test_fs_commit(&tfs);
	ck_assert_uint_eq(btrfs_super_generation(&tfs.fs->super_copy), gen + 1);
	ck_assert_uint_eq(btrfs_eb_generation(tfs.fs->tree_root.node), gen + 1);
	test_fs_reopen(&tfs);
	ck_assert_uint_eq(btrfs_super_generation(&tfs.fs->super_copy), gen + 1);
	test_fs_destroy(&tfs);
}
END_TEST

/*
 * File extents written back to back: their checksums end up in few, full
 * items (never above the kernel's limit) that match the data on disk.
 */
START_TEST(test_alloc_file_csums)
{
	struct test_fs tfs;
	struct btrfs_root *root;
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, 0 };
	struct btrfs_path path;
	u64 limit, next = 0, sectors = 0, total = 0;
	u8 *buf = malloc(1 << 20), *sec = malloc(4096);
	int i, ret, items = 0;

	test_fs_create(&tfs, 4096, 1ULL << 30, 0);
	root = &tfs.fs->fs_root;
	limit = (btrfs_leaf_data_size(4096) - 2 * sizeof(struct btrfs_item)) / 4 - 1;
	for (i = 0; i < 200; i++) {
		u64 len = 1 + (u64)(i * 7919) % (1 << 20), bytenr;

		memset(buf, i, len);
		ck_assert_int_eq(btrfs_write_file_extent(tfs.trans, root, 1000 + i, 0, buf, len,
							 false, &bytenr), 0);
		total += (len + 4095) / 4096;
		if (i % 50 == 49)
			test_fs_commit(&tfs);
	}
	test_fs_commit(&tfs);
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &tfs.fs->csum_root, &key, &path, 0, 0);
	ck_assert_int_ge(ret, 0);
	ret = btrfs_path_fixup_slot(&tfs.fs->csum_root, &path);
	while (ret == 0) {
		u32 size = btrfs_item_size(path.nodes[0], path.slots[0]), k;
		const u8 *sums = btrfs_item_ptr_raw(path.nodes[0], path.slots[0]);

		btrfs_path_key(&path, &key);
		ck_assert_uint_le(size / 4, limit);
		ck_assert_uint_ge(key.offset, next);
		for (k = 0; k < size / 4; k++) {
			u8 digest[BTRFS_CSUM_SIZE];

			ck_assert_int_eq(btrfs_read_logical(tfs.fs, key.offset + k * 4096ULL,
							    sec, 4096, 1), 0);
			btrfs_csum_data(BTRFS_CSUM_TYPE_CRC32, sec, 4096, digest);
			ck_assert(!memcmp(digest, sums + k * 4, 4));
		}
		next = key.offset + size / 4 * 4096ULL;
		sectors += size / 4;
		items++;
		ret = btrfs_next_item(&tfs.fs->csum_root, &path);
	}
	btrfs_release_path(&path);
	ck_assert_uint_eq(sectors, total);
	/* appending merged the items: close to the minimum number */
	ck_assert_int_le(items, (int)(total / limit) + 12);
	test_fs_verify_extents(&tfs);
	free(buf);
	free(sec);
	test_fs_destroy(&tfs);
}
END_TEST

/* repair helpers put wrong accounting right */
START_TEST(test_alloc_recalc_used)
{
	struct test_fs tfs;
	struct btrfs_block_group *bg;
	u64 bytenr;
	int changed;

	test_fs_create(&tfs, 16384, 512ULL << 20, 0);
	ck_assert_int_eq(btrfs_alloc_data_extent(tfs.trans, 1 << 20, 5, 257, 0, &bytenr), 0);
	test_fs_commit(&tfs);
	bg = btrfs_lookup_block_group(tfs.fs, bytenr);
	bg->used += 12345 * 4096;	/* damage, written by the next commit */
	bg->item_dirty = true;
	ck_assert_int_eq(btrfs_alloc_data_extent(tfs.trans, 1 << 20, 5, 258, 0, &bytenr), 0);
	test_fs_commit(&tfs);
	ck_assert_int_eq(btrfs_recalc_block_group_used(tfs.fs, &changed), 0);
	ck_assert_int_eq(changed, 1);
	btrfs_mark_free_space_tree_dirty(tfs.fs);
	ck_assert_int_eq(btrfs_recalc_device_bytes_used(tfs.fs, &changed), 0);
	ck_assert_int_eq(changed, 0);
	test_fs_commit(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_reopen(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_destroy(&tfs);
}
END_TEST

/* filling the devices ends in -ENOSPC with consistent accounting */
START_TEST(test_alloc_enospc)
{
	struct test_fs tfs;
	u64 bytenr, total = 0;
	int ret, i;

	test_fs_create(&tfs, 16384, 160ULL << 20, 0);
	for (i = 0; i < 100000; i++) {
		ret = btrfs_alloc_data_extent(tfs.trans, 1 << 20, 5, 257, total, &bytenr);
		if (ret)
			break;
		total += 1 << 20;
	}
	ck_assert_int_eq(ret, -ENOSPC);
	ck_assert_uint_gt(total, 40ULL << 20);
	test_fs_commit(&tfs);
	test_fs_verify_extents(&tfs);
	test_fs_destroy(&tfs);
}
END_TEST

#ifdef GHEE_FAULT_INJECTION
static u64 read_super_gen(int fd, bool *valid)
{
	struct btrfs_super_block sb;

	*valid = false;
	if (btrfs_read_super_raw(fd, BTRFS_SUPER_INFO_OFFSET, &sb))
		return 0;
	if (btrfs_super_magic(&sb) != BTRFS_MAGIC || !btrfs_super_csum_ok(&sb))
		return 0;
	*valid = true;
	return btrfs_super_generation(&sb);
}

/* a filesystem, 200 data extents and the commit; its outcome */
static int faulty_commit(struct test_fs *tfs, const char *var, int n, u64 *gen)
{
	struct amodel m;
	char num[16];
	bool valid;
	int k, ret;

	memset(&m, 0, sizeof(m));
	m.rand = 12345;
	test_fs_create(tfs, 4096, 256ULL << 20, 0);
	*gen = read_super_gen(tfs->fds[0], &valid);
	ck_assert(valid);
	for (k = 0; k < 200; k++)
		op_alloc(tfs, &m);
	model_free(&m);
	if (var) {
		snprintf(num, sizeof(num), "%d", n);
		setenv(var, num, 1);
	}
	btrfs_fault_injection_init(tfs->fs);
	if (var)
		unsetenv(var);
	ret = btrfs_commit_transaction(tfs->trans);
	tfs->trans = NULL;
	return ret;
}

/*
 * Fail the Nth device write, then the Nth flush, of a commit, for every
 * N: the filesystem on disk is the previous commit, except when the last
 * flush fails (the primary superblocks are written by then).
 */
START_TEST(test_alloc_fail_every_write)
{
	const char *vars[] = { "GHEE_FAIL_WRITE_AT", "GHEE_FAIL_FLUSH_AT" };
	struct test_fs tfs;
	u64 total[2], gen;
	bool valid;
	int v, n;

	ck_assert_int_eq(faulty_commit(&tfs, NULL, 0, &gen), 0);
	total[0] = tfs.fs->write->nr_writes;
	total[1] = tfs.fs->write->nr_flushes;
	ck_assert_uint_eq(read_super_gen(tfs.fds[0], &valid), gen + 1);
	test_fs_destroy(&tfs);
	if (getenv("GHEE_TEST_VERBOSE"))
		fprintf(stderr, "fault injection: %llu writes, %llu flushes per commit\n",
			(unsigned long long)total[0], (unsigned long long)total[1]);
	ck_assert_uint_gt(total[0], 10);
	ck_assert_uint_ge(total[1], 3);
	for (v = 0; v < 2; v++) {
		for (n = 1; n <= (int)total[v]; n++) {
			u64 now;

			ck_assert_int_eq(faulty_commit(&tfs, vars[v], n, &gen), -EIO);
			now = read_super_gen(tfs.fds[0], &valid);
			ck_assert(valid);
			if (v == 1 && n == (int)total[1])
				ck_assert(now == gen || now == gen + 1);
			else
				ck_assert_uint_eq(now, gen);
			ck_assert_int_eq(btrfs_start_transaction(tfs.fs, &tfs.trans), -EROFS);
			tfs.trans = NULL;
			test_fs_reopen(&tfs);
			ck_assert_uint_eq(btrfs_super_generation(&tfs.fs->super_copy), now);
			test_fs_verify_extents(&tfs);
			test_fs_destroy(&tfs);
		}
	}
}
END_TEST
#endif

Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("extents");

	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_alloc_chunk_profiles);
	tcase_add_test(tc, test_alloc_reopen);
	tcase_add_test(tc, test_alloc_enospc);
	tcase_add_test(tc, test_alloc_empty_commit);
	tcase_add_test(tc, test_alloc_file_csums);
	tcase_add_test(tc, test_alloc_recalc_used);
	tcase_add_test(tc, test_alloc_random_skinny);
	tcase_add_test(tc, test_alloc_random_small_nodes);
	tcase_add_test(tc, test_alloc_random_not_skinny_no_fst);
	tcase_add_test(tc, test_alloc_random_mixed);
#ifdef GHEE_FAULT_INJECTION
	tcase_add_test(tc, test_alloc_fail_every_write);
#endif
	tcase_add_test(tc, test_alloc_dirty_bytes);
	suite_add_tcase(s, tc);
	return s;
}
