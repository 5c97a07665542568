// SPDX-License-Identifier: GPL-2.0
/*
 * The tree checker on blocks built in memory (nodesize 4096).
 *
 * - Layout: random valid leaves and nodes pass btrfs_check_leaf_layout /
 *   btrfs_check_node; then one corruption at a time (two keys swapped, a
 *   key repeated, an item offset or size bumped, an item running past the
 *   block, item data over the item headers, nritems too large, a zero or
 *   unaligned block pointer) must be rejected, naming the slot where the
 *   block first goes wrong.
 * - Items: random leaves full of well-formed items of the common types
 *   (inode, dir item/index, xattr, inode ref, inline and regular file
 *   extents, extent and metadata items with inline refs, csum, root) pass
 *   btrfs_check_item and btrfs_check_leaf_items; one malformed variant of
 *   one item at a time (short item, name overflow, unknown inline ref
 *   type, ...) is rejected at its slot with the expected reason.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "disk-io.h"
#include "extent_io.h"
#include "tree-checker.h"
#include "crc32c.h"

#define TC_CHECK(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)


#define NODESIZE	4096U
#define SECTOR		4096U
#define HDR		((u32)sizeof(struct btrfs_header))
#define DATA_SIZE	(NODESIZE - HDR)
#define ITEM_SZ		((u32)sizeof(struct btrfs_item))
#define PTR_SZ		((u32)sizeof(struct btrfs_key_ptr))
#define MAX_ITEMS	(DATA_SIZE / ITEM_SZ)
#define MAX_PTRS	(DATA_SIZE / PTR_SZ)
#define ITEM_MAX_DATA	1024

static u64 rnd_below(u64 *state, u64 n)
{
	return (test_rand(state) >> 7) % n;
}

/* mostly small numbers, sometimes anything up to @max */
static u32 rnd_len(u64 *state, u32 min, u32 max)
{
	u32 small = min + 16 < max ? min + 16 : max;

	if (rnd_below(state, 10) < 7)
		return min + rnd_below(state, small - min + 1);
	return min + rnd_below(state, max - min + 1);
}

static struct btrfs_fs_info *new_fs(u16 csum_size)
{
	struct btrfs_fs_info *fs = calloc(1, sizeof(*fs));

	REQUIRE((fs) != NULL);
	fs->nodesize = NODESIZE;
	fs->sectorsize = SECTOR;
	fs->csum_size = csum_size;
	return fs;
}

/* ---- building blocks ---- */

struct titem {
	struct btrfs_key key;
	u32 size;
	bool bad;		/* the malformed one */
	const char *why;	/* what its rejection must mention */
	u8 data[ITEM_MAX_DATA];
};

static int cmp_titem_ptr(const void *a, const void *b)
{
	const struct titem *x = *(const struct titem *const *)a;
	const struct titem *y = *(const struct titem *const *)b;

	return btrfs_comp_cpu_keys(&x->key, &y->key);
}

/*
 * Sort by key through an array of pointers: items are over 1 KiB and
 * qsort moving them is slow (very much so under ASan).
 */
static void sort_items(struct titem *items, int nr)
{
	struct titem **ptrs = malloc(nr * sizeof(*ptrs) + 1);
	struct titem *tmp = malloc(nr * sizeof(*tmp) + 1);
	int i;

	REQUIRE((ptrs) != NULL);
	REQUIRE((tmp) != NULL);
	for (i = 0; i < nr; i++)
		ptrs[i] = &items[i];
	qsort(ptrs, nr, sizeof(*ptrs), cmp_titem_ptr);
	for (i = 0; i < nr; i++)
		tmp[i] = *ptrs[i];
	memcpy(items, tmp, nr * sizeof(*tmp));
	free(tmp);
	free(ptrs);
}

static void set_header(struct extent_buffer *eb, u32 nritems, u8 level, u64 owner)
{
	struct btrfs_header *h = eb_header(eb);

	btrfs_set_header_bytenr(h, eb->start);
	btrfs_set_header_generation(h, 7);
	btrfs_set_header_owner(h, owner);
	btrfs_set_header_nritems(h, nritems);
	btrfs_set_header_level(h, level);
}

/* a leaf holding @items (sorted, unique keys), data packed from the end */
static struct extent_buffer *pack_leaf(struct btrfs_fs_info *fs,
				       const struct titem *items, int nr)
{
	struct extent_buffer *eb = alloc_dummy_extent_buffer(fs, 30 * 1024 * 1024, NODESIZE);
	u32 end = DATA_SIZE;
	int i;

	REQUIRE((eb) != NULL);
	memset(eb->data, 0, NODESIZE);
	set_header(eb, nr, 0, BTRFS_FS_TREE_OBJECTID);
	for (i = 0; i < nr; i++) {
		struct btrfs_item *it = btrfs_item_nr(eb, i);

		REQUIRE_UINT(end, >=, items[i].size);
		end -= items[i].size;
		REQUIRE_UINT(end, >=, (u32)(i + 1) * ITEM_SZ);
		btrfs_cpu_key_to_disk(&it->key, &items[i].key);
		btrfs_set_raw_item_offset(it, end);
		btrfs_set_raw_item_size(it, items[i].size);
		memcpy(eb->data + HDR + end, items[i].data, items[i].size);
	}
	return eb;
}

static u32 leaf_bytes(const struct titem *items, int nr)
{
	u32 total = 0;
	int i;

	for (i = 0; i < nr; i++)
		total += ITEM_SZ + items[i].size;
	return total;
}

static void set_disk_key(struct btrfs_disk_key *dk, u64 objectid, u8 type, u64 offset)
{
	struct btrfs_key k = { objectid, type, offset };

	btrfs_cpu_key_to_disk(dk, &k);
}

static void expect_reject(int ret, const struct tree_check_error *err, int slot,
			  const char *why, const char *what)
{
	char tag[32];

	TC_CHECK(ret == -EUCLEAN, "%s: accepted (ret %d), expected a rejection at slot %d",
		 what, ret, slot);
	TC_CHECK(err->slot == slot, "%s: rejected at slot %d, expected %d: %s",
		 what, err->slot, slot, err->msg);
	if (slot >= 0) {
		snprintf(tag, sizeof(tag), "slot=%d,", slot);
		TC_CHECK(strstr(err->msg, tag) != NULL, "%s: message does not name slot %d: %s",
			 what, slot, err->msg);
	}
	if (why)
		TC_CHECK(strstr(err->msg, why) != NULL, "%s: message lacks \"%s\": %s",
			 what, why, err->msg);
}

/* ---- leaf and node layout ---- */

/* random unique keys in a narrow space (many equal objectids and types) */
static void random_keys(u64 *state, struct titem *items, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		struct btrfs_key k;
		bool dup;

		do {
			k.objectid = 256 + rnd_below(state, 64);
			k.type = (u8)(rnd_below(state, 4) ? 48 + rnd_below(state, 3) : test_rand(state));
			k.offset = rnd_below(state, 2) ? rnd_below(state, 8) : test_rand(state);
			dup = false;
			for (j = 0; j < i; j++) {
				if (!btrfs_comp_cpu_keys(&items[j].key, &k))
					dup = true;
			}
		} while (dup);
		items[i].key = k;
	}
	sort_items(items, nr);
}

/*
 * Items of random sizes: keys of types check_item() ignores, contents are
 * noise.  Sometimes fills the leaf to the last byte.
 */
static int random_layout_items(u64 *state, struct titem *items)
{
	int nr = 0, want = 1 + rnd_below(state, rnd_below(state, 4) ? 40 : MAX_ITEMS);
	u32 used = 0;

	while (nr < want) {
		u32 size = rnd_below(state, 3) ? rnd_below(state, 64) : rnd_below(state, 400);

		if (used + ITEM_SZ + size > DATA_SIZE) {
			/* the last item takes exactly what is left */
			if (used + ITEM_SZ > DATA_SIZE)
				break;
			size = DATA_SIZE - used - ITEM_SZ;
			want = nr + 1;
		}
		items[nr].size = size;
		for (u32 b = 0; b < size; b++)
			items[nr].data[b] = (u8)test_rand(state);
		used += ITEM_SZ + size;
		nr++;
	}
	random_keys(state, items, nr);
	for (int i = 0; i < nr; i++) {
		/* only types whose contents the item checks do not judge */
		static const u8 plain[] = { 48, 49, 50, 60, 253 };

		if (items[i].key.type != 48 && items[i].key.type != 49 && items[i].key.type != 50)
			items[i].key.type = plain[rnd_below(state, 5)];
	}
	/* changing types may break order or uniqueness: fix up */
	sort_items(items, nr);
	for (int i = 1; i < nr; i++) {
		if (!btrfs_comp_cpu_keys(&items[i - 1].key, &items[i].key))
			items[i].key.offset++;
	}
	sort_items(items, nr);
	for (int i = 1; i < nr; i++)
		REQUIRE_INT(btrfs_comp_cpu_keys(&items[i - 1].key, &items[i].key), <, 0);
	return nr;
}

enum leaf_corruption {
	LC_SWAP_KEYS,
	LC_DUP_KEY,
	LC_BUMP_OFFSET,
	LC_BUMP_SIZE,
	LC_SIZE_OVERFLOW,
	LC_OFFSET_PAST_END,
	LC_OVER_HEADERS,
	LC_NRITEMS_HUGE,
	LC_NRITEMS_PLUS,
	LC_NR
};

static void disk_key_copy(struct btrfs_item *dst, const struct btrfs_item *src)
{
	memcpy(&dst->key, &src->key, sizeof(dst->key));
}

/* apply @lc; returns the slot the rejection must name, or -2 if n/a */
static int corrupt_leaf(u64 *state, struct extent_buffer *eb, int nr,
			enum leaf_corruption lc, const char **why)
{
	int i = rnd_below(state, nr), j;
	struct btrfs_item *it = btrfs_item_nr(eb, i);
	u32 off = btrfs_raw_item_offset(it), size = btrfs_raw_item_size(it);
	struct btrfs_disk_key tmp;
	s64 delta;

	*why = NULL;
	switch (lc) {
	case LC_SWAP_KEYS:
		if (nr < 2)
			return -2;
		i = rnd_below(state, nr - 1);
		j = i + 1 + rnd_below(state, nr - i - 1);
		tmp = btrfs_item_nr(eb, i)->key;
		disk_key_copy(btrfs_item_nr(eb, i), btrfs_item_nr(eb, j));
		btrfs_item_nr(eb, j)->key = tmp;
		*why = "bad key order";
		return i + 1;
	case LC_DUP_KEY:
		if (nr < 2)
			return -2;
		i = 1 + rnd_below(state, nr - 1);
		disk_key_copy(btrfs_item_nr(eb, i), btrfs_item_nr(eb, i - 1));
		*why = "bad key order";
		return i;
	case LC_BUMP_OFFSET:
		do {
			delta = (s64)rnd_below(state, 101) - 50;
		} while (!delta);
		btrfs_set_raw_item_offset(it, off + (u32)delta);
		*why = "unexpected item end";
		return i;
	case LC_BUMP_SIZE:
		do {
			delta = (s64)rnd_below(state, 101) - 50;
		} while (!delta);
		btrfs_set_raw_item_size(it, size + (u32)delta);
		*why = "unexpected item end";
		return i;
	case LC_SIZE_OVERFLOW:
		btrfs_set_raw_item_size(it, rnd_below(state, 2) ?
					DATA_SIZE + rnd_below(state, 1 << 20) :
					(u32)~0U - (u32)rnd_below(state, 4096));
		*why = "unexpected item end";
		return i;
	case LC_OFFSET_PAST_END:
		btrfs_set_raw_item_offset(it, DATA_SIZE + (u32)rnd_below(state, 1U << 31));
		*why = "unexpected item end";
		return i;
	case LC_OVER_HEADERS: {
		/* the last item starts inside the item headers, ends right */
		u32 end;

		i = nr - 1;
		it = btrfs_item_nr(eb, i);
		end = btrfs_raw_item_offset(it) + btrfs_raw_item_size(it);
		off = rnd_below(state, (u32)(i + 1) * ITEM_SZ);
		btrfs_set_raw_item_offset(it, off);
		btrfs_set_raw_item_size(it, end - off);
		*why = "overlaps the item headers";
		return i;
	}
	case LC_NRITEMS_HUGE:
		btrfs_set_header_nritems(eb_header(eb), MAX_ITEMS + 1 +
					 (u32)rnd_below(state, (u32)~0U - MAX_ITEMS - 1));
		*why = "nritems";
		return -1;
	case LC_NRITEMS_PLUS:
		if ((u32)nr + 1 > MAX_ITEMS)
			return -2;
		btrfs_set_header_nritems(eb_header(eb), nr + 1);
		return nr;
	default:
		return -2;
	}
}

START_TEST(test_leaf_layout)
{
	struct btrfs_fs_info *fs = new_fs(4);
	struct titem *items = calloc(MAX_ITEMS + 1, sizeof(*items));
	u64 state = 0x5EED0000ULL + _i * 7919;
	int step, applied[LC_NR] = { 0 };

	REQUIRE((items) != NULL);
	for (step = 0; step < 1500; step++) {
		struct tree_check_error err;
		struct extent_buffer *eb;
		enum leaf_corruption lc = rnd_below(&state, LC_NR);
		int nr = random_layout_items(&state, items), slot, ret;
		const char *why;
		char what[96];

		eb = pack_leaf(fs, items, nr);
		err.slot = -7;
		ret = btrfs_check_leaf_layout(fs, eb, &err);
		TC_CHECK(ret == 0, "valid leaf of %d items (%u bytes) rejected: %s", nr,
			 leaf_bytes(items, nr), err.msg);
		REQUIRE_INT(btrfs_check_leaf_items(fs, eb, &err), ==, 0);
		slot = corrupt_leaf(&state, eb, nr, lc, &why);
		if (slot == -2) {
			free_extent_buffer(eb);
			continue;
		}
		applied[lc]++;
		snprintf(what, sizeof(what), "leaf corruption %d on %d items", lc, nr);
		ret = btrfs_check_leaf_layout(fs, eb, &err);
		expect_reject(ret, &err, slot, why, what);
		REQUIRE((strstr(err.msg, "corrupt leaf")) != NULL);
		free_extent_buffer(eb);
	}
	for (step = 0; step < LC_NR; step++)
		TC_CHECK(applied[step] > 20, "leaf corruption %d applied %d times only",
			 step, applied[step]);
	/* an empty leaf is fine */
	{
		struct tree_check_error err;
		struct extent_buffer *eb = pack_leaf(fs, items, 0);

		REQUIRE_INT(btrfs_check_leaf_layout(fs, eb, &err), ==, 0);
		free_extent_buffer(eb);
	}
	free(items);
	free(fs);
}
END_TEST

struct tptr {
	struct btrfs_key key;
	u64 blockptr;
};

static struct extent_buffer *pack_node(struct btrfs_fs_info *fs, const struct titem *keys,
				       const u64 *ptrs, int nr, u8 level)
{
	struct extent_buffer *eb = alloc_dummy_extent_buffer(fs, 40 * 1024 * 1024, NODESIZE);
	int i;

	REQUIRE((eb) != NULL);
	memset(eb->data, 0, NODESIZE);
	set_header(eb, nr, level, BTRFS_ROOT_TREE_OBJECTID);
	for (i = 0; i < nr; i++) {
		struct btrfs_key_ptr *kp = btrfs_key_ptr_nr(eb, i);

		btrfs_cpu_key_to_disk(&kp->key, &keys[i].key);
		btrfs_set_key_blockptr(kp, ptrs[i]);
		btrfs_set_key_generation(kp, 1 + (ptrs[i] >> 12) % 100);
	}
	return eb;
}

enum node_corruption {
	NC_SWAP_KEYS,
	NC_DUP_KEY,
	NC_ZERO_PTR,
	NC_UNALIGNED_PTR,
	NC_NRITEMS_ZERO,
	NC_NRITEMS_HUGE,
	NC_NRITEMS_PLUS,
	NC_NR
};

static int corrupt_node(u64 *state, struct extent_buffer *eb, int nr,
			enum node_corruption nc, const char **why)
{
	int i = rnd_below(state, nr), j;
	struct btrfs_disk_key tmp;

	*why = NULL;
	switch (nc) {
	case NC_SWAP_KEYS:
		if (nr < 2)
			return -2;
		i = rnd_below(state, nr - 1);
		j = i + 1 + rnd_below(state, nr - i - 1);
		tmp = btrfs_key_ptr_nr(eb, i)->key;
		btrfs_key_ptr_nr(eb, i)->key = btrfs_key_ptr_nr(eb, j)->key;
		btrfs_key_ptr_nr(eb, j)->key = tmp;
		*why = "bad key order";
		return i + 1;
	case NC_DUP_KEY:
		if (nr < 2)
			return -2;
		i = 1 + rnd_below(state, nr - 1);
		btrfs_key_ptr_nr(eb, i)->key = btrfs_key_ptr_nr(eb, i - 1)->key;
		*why = "bad key order";
		return i;
	case NC_ZERO_PTR:
		btrfs_set_key_blockptr(btrfs_key_ptr_nr(eb, i), 0);
		*why = "invalid block pointer";
		return i;
	case NC_UNALIGNED_PTR:
		btrfs_set_key_blockptr(btrfs_key_ptr_nr(eb, i), btrfs_node_blockptr(eb, i) +
				       1 + rnd_below(state, SECTOR - 1));
		*why = "invalid block pointer";
		return i;
	case NC_NRITEMS_ZERO:
		btrfs_set_header_nritems(eb_header(eb), 0);
		*why = "invalid number of pointers";
		return -1;
	case NC_NRITEMS_HUGE:
		btrfs_set_header_nritems(eb_header(eb), MAX_PTRS + 1 +
					 (u32)rnd_below(state, (u32)~0U - MAX_PTRS - 1));
		*why = "invalid number of pointers";
		return -1;
	case NC_NRITEMS_PLUS:
		/* the slot past the end is zeroed: a zero block pointer */
		if ((u32)nr + 1 > MAX_PTRS)
			return -2;
		btrfs_set_header_nritems(eb_header(eb), nr + 1);
		*why = "invalid block pointer";
		return nr;
	default:
		return -2;
	}
}

START_TEST(test_node)
{
	struct btrfs_fs_info *fs = new_fs(4);
	struct titem *keys = calloc(MAX_PTRS + 1, sizeof(*keys));
	u64 ptrs[MAX_PTRS + 1];
	u64 state = 0xC0FFEEULL + _i * 104729;
	int step, applied[NC_NR] = { 0 };

	REQUIRE((keys) != NULL);
	for (step = 0; step < 1500; step++) {
		struct tree_check_error err;
		struct extent_buffer *eb;
		enum node_corruption nc = rnd_below(&state, NC_NR);
		int nr = 1 + rnd_below(&state, rnd_below(&state, 3) ? 12 : MAX_PTRS);
		int slot, ret, i;
		const char *why;
		char what[96];

		random_keys(&state, keys, nr);
		for (i = 0; i < nr; i++)
			ptrs[i] = (u64)SECTOR * (1 + rnd_below(&state, 1ULL << 40));
		eb = pack_node(fs, keys, ptrs, nr, 1 + rnd_below(&state, 7));
		ret = btrfs_check_node(fs, eb, &err);
		TC_CHECK(ret == 0, "valid node of %d pointers rejected: %s", nr, err.msg);
		slot = corrupt_node(&state, eb, nr, nc, &why);
		if (slot == -2) {
			free_extent_buffer(eb);
			continue;
		}
		applied[nc]++;
		snprintf(what, sizeof(what), "node corruption %d on %d pointers", nc, nr);
		ret = btrfs_check_node(fs, eb, &err);
		expect_reject(ret, &err, slot, why, what);
		REQUIRE((strstr(err.msg, "corrupt node")) != NULL);
		free_extent_buffer(eb);
	}
	for (step = 0; step < NC_NR; step++)
		TC_CHECK(applied[step] > 20, "node corruption %d applied %d times only",
			 step, applied[step]);
	/* a full node is fine */
	{
		struct tree_check_error err;
		struct extent_buffer *eb;
		int i;

		random_keys(&state, keys, MAX_PTRS);
		for (i = 0; i < (int)MAX_PTRS; i++)
			ptrs[i] = (u64)SECTOR * (i + 1);
		eb = pack_node(fs, keys, ptrs, MAX_PTRS, 1);
		REQUIRE_INT(btrfs_check_node(fs, eb, &err), ==, 0);
		free_extent_buffer(eb);
	}
	free(keys);
	free(fs);
}
END_TEST

/* ---- item contents ---- */

enum item_kind {
	IK_INODE,
	IK_DIR_ITEM,
	IK_DIR_INDEX,
	IK_XATTR,
	IK_INODE_REF,
	IK_FILE_INLINE,
	IK_FILE_REG,
	IK_EXTENT_DATA,
	IK_EXTENT_TREE,
	IK_METADATA,
	IK_CSUM,
	IK_ROOT,
	IK_NR
};

static const char *const kind_name[IK_NR] = {
	"inode", "dir item", "dir index", "xattr", "inode ref", "inline extent",
	"regular extent", "data extent item", "tree block extent item",
	"metadata item", "csum", "root item",
};

struct gen {
	u64 *state;
	u16 csum_size;
};

static void put_bytes(struct titem *it, const void *p, u32 len)
{
	REQUIRE_UINT(it->size + len, <=, ITEM_MAX_DATA);
	memcpy(it->data + it->size, p, len);
	it->size += len;
}

static void put_name(struct gen *g, struct titem *it, u32 len)
{
	u8 name[512];
	u32 i;

	REQUIRE_UINT(len, <=, sizeof(name));
	for (i = 0; i < len; i++)
		name[i] = 'a' + rnd_below(g->state, 26);
	put_bytes(it, name, len);
}

static u64 rnd_ino(struct gen *g)
{
	return 256 + rnd_below(g->state, 1 << 20);
}

static u64 rnd_bytenr(struct gen *g)
{
	return (u64)SECTOR * (1 + rnd_below(g->state, 1ULL << 36));
}

/* one dir item entry; returns the offset of its header in the item */
static u32 put_dir_entry(struct gen *g, struct titem *it, u32 name_len, u32 data_len,
			 u8 type)
{
	struct btrfs_dir_item di;
	u32 at = it->size;

	memset(&di, 0, sizeof(di));
	if (type == BTRFS_FT_XATTR)
		set_disk_key(&di.location, 0, 0, 0);
	else
		set_disk_key(&di.location, rnd_ino(g), BTRFS_INODE_ITEM_KEY, 0);
	btrfs_set_dir_transid(&di, 1 + rnd_below(g->state, 1000));
	btrfs_set_dir_data_len(&di, data_len);
	btrfs_set_dir_name_len(&di, name_len);
	btrfs_set_dir_type(&di, type);
	put_bytes(it, &di, sizeof(di));
	put_name(g, it, name_len + data_len);
	return at;
}

static struct btrfs_dir_item *dir_at(struct titem *it, u32 at)
{
	return (struct btrfs_dir_item *)(it->data + at);
}

static u8 rnd_file_type(struct gen *g)
{
	return BTRFS_FT_REG_FILE + rnd_below(g->state, BTRFS_FT_SYMLINK);
}

/* DIR_ITEM (@index false) or DIR_INDEX; @bad 0 is well-formed */
static void gen_dir(struct gen *g, struct titem *it, bool index, int bad)
{
	int nr = index ? 1 : 1 + rnd_below(g->state, 3), k;
	u32 last = 0, name_len = 0;

	it->key.objectid = rnd_ino(g);
	it->key.type = index ? BTRFS_DIR_INDEX_KEY : BTRFS_DIR_ITEM_KEY;
	it->key.offset = index ? 2 + rnd_below(g->state, 1 << 20) : 0;
	for (k = 0; k < nr; k++) {
		name_len = rnd_len(g->state, 1, bad == 2 ? 200 : BTRFS_NAME_LEN);
		last = put_dir_entry(g, it, name_len, 0, rnd_file_type(g));
		if (!index && k == 0) {
			it->key.offset = crc32c(~1U, it->data + last +
						sizeof(struct btrfs_dir_item), name_len);
		}
	}
	switch (bad) {
	case 1:	/* a partial header after the entries */
		put_name(g, it, 1 + rnd_below(g->state, sizeof(struct btrfs_dir_item) - 1));
		/* an index item's one entry must fill it: that is seen first */
		it->why = index ? "more than one" : "truncated";
		break;
	case 2:	/* the last name runs past the item */
		btrfs_set_dir_name_len(dir_at(it, last), name_len + 1 +
				       rnd_below(g->state, BTRFS_NAME_LEN - name_len));
		it->why = "overflow";
		break;
	case 3:	/* a name longer than any file name */
		it->size = 0;
		put_dir_entry(g, it, BTRFS_NAME_LEN + 1 + rnd_below(g->state, 200), 0,
			      rnd_file_type(g));
		it->why = "too long";
		break;
	case 4:	/* dir entries carry no data */
		it->size = 0;
		put_dir_entry(g, it, rnd_len(g->state, 1, 64), 1 + rnd_below(g->state, 64),
			      rnd_file_type(g));
		it->why = "with data";
		break;
	case 5: {	/* an unknown file type */
		static const u8 types[] = { BTRFS_FT_MAX, BTRFS_FT_MAX + 1, 0x40, 0x7F };

		btrfs_set_dir_type(dir_at(it, last), types[rnd_below(g->state, 4)]);
		it->why = "invalid dir item type";
		break;
	}
	case 6:	/* an index item holds exactly one entry */
		put_dir_entry(g, it, rnd_len(g->state, 1, 64), 0, rnd_file_type(g));
		it->why = "more than one";
		break;
	}
}

static void gen_xattr(struct gen *g, struct titem *it, int bad)
{
	int nr = 1 + rnd_below(g->state, 2), k;
	u32 last = 0;

	it->key.objectid = rnd_ino(g);
	it->key.type = BTRFS_XATTR_ITEM_KEY;
	for (k = 0; k < nr; k++) {
		u32 name_len = rnd_len(g->state, 1, BTRFS_NAME_LEN);

		last = put_dir_entry(g, it, name_len, rnd_len(g->state, 0, 200),
				     BTRFS_FT_XATTR);
		if (k == 0)
			it->key.offset = crc32c(~1U, it->data + sizeof(struct btrfs_dir_item),
						name_len);
	}
	switch (bad) {
	case 1:
		put_name(g, it, 1 + rnd_below(g->state, sizeof(struct btrfs_dir_item) - 1));
		it->why = "truncated";
		break;
	case 2:	/* the value runs past the item */
		btrfs_set_dir_data_len(dir_at(it, last),
				       btrfs_dir_data_len(dir_at(it, last)) + 1 +
				       rnd_below(g->state, 1000));
		it->why = "overflow";
		break;
	case 3:
		btrfs_set_dir_type(dir_at(it, last), BTRFS_FT_MAX + rnd_below(g->state, 0x70));
		it->why = "invalid dir item type";
		break;
	}
}

static void gen_inode_ref(struct gen *g, struct titem *it, int bad)
{
	int nr = 1 + rnd_below(g->state, 3), k;
	struct btrfs_inode_ref *last = NULL;

	it->key.objectid = rnd_ino(g);
	it->key.type = BTRFS_INODE_REF_KEY;
	it->key.offset = rnd_ino(g);
	for (k = 0; k < nr; k++) {
		struct btrfs_inode_ref ref;
		u32 name_len = rnd_len(g->state, 1, BTRFS_NAME_LEN);

		btrfs_set_inode_ref_index(&ref, 2 + rnd_below(g->state, 1000));
		btrfs_set_inode_ref_name_len(&ref, name_len);
		last = (struct btrfs_inode_ref *)(it->data + it->size);
		put_bytes(it, &ref, sizeof(ref));
		put_name(g, it, name_len);
	}
	switch (bad) {
	case 1:
		put_name(g, it, 1 + rnd_below(g->state, sizeof(struct btrfs_inode_ref) - 1));
		it->why = "truncated";
		break;
	case 2:
		btrfs_set_inode_ref_name_len(last, btrfs_inode_ref_name_len(last) + 1 +
					     rnd_below(g->state, 300));
		it->why = "overflows";
		break;
	}
}

static void gen_inode(struct gen *g, struct titem *it, int bad)
{
	static const u32 bad_sizes[] = { 0, 1, 100, 159, 161, 200 };
	struct btrfs_inode_item ii;
	u32 k;

	it->key.objectid = rnd_ino(g);
	it->key.type = BTRFS_INODE_ITEM_KEY;
	it->key.offset = 0;
	for (k = 0; k < sizeof(ii); k++)
		((u8 *)&ii)[k] = (u8)test_rand(g->state);
	put_bytes(it, &ii, sizeof(ii));
	if (bad == 1) {
		it->size = bad_sizes[rnd_below(g->state, 6)];
		it->why = "invalid inode item size";
	}
}

static void gen_file_inline(struct gen *g, struct titem *it, int bad)
{
	struct btrfs_file_extent_item fi;
	u32 len = rnd_len(g->state, 0, 300);
	u8 compression = rnd_below(g->state, 3) ? 0 : 1 + rnd_below(g->state, 3);

	it->key.objectid = rnd_ino(g);
	it->key.type = BTRFS_EXTENT_DATA_KEY;
	it->key.offset = 0;
	memset(&fi, 0, sizeof(fi));
	btrfs_set_file_extent_generation(&fi, 1 + rnd_below(g->state, 1000));
	btrfs_set_file_extent_ram_bytes(&fi, compression ? len + rnd_below(g->state, 4096) : len);
	btrfs_set_file_extent_compression(&fi, compression);
	btrfs_set_file_extent_type(&fi, BTRFS_FILE_EXTENT_INLINE);
	put_bytes(it, &fi, BTRFS_FILE_EXTENT_INLINE_DATA_START);
	put_name(g, it, len);
	/* the header as stored, to corrupt */
#define FI ((struct btrfs_file_extent_item *)it->data)
	switch (bad) {
	case 1:
		it->size = rnd_below(g->state, BTRFS_FILE_EXTENT_INLINE_DATA_START);
		it->why = "invalid file extent item size";
		break;
	case 2:
		btrfs_set_file_extent_compression(FI, 0);
		btrfs_set_file_extent_ram_bytes(FI, len + 1 + rnd_below(g->state, 4096));
		it->why = "ram_bytes";
		break;
	case 3:
		it->key.offset = (u64)SECTOR * (1 + rnd_below(g->state, 1000));
		it->why = "inline extent at file offset";
		break;
	case 4:
		btrfs_set_file_extent_type(FI, BTRFS_FILE_EXTENT_PREALLOC + 1 +
					   rnd_below(g->state, 250));
		it->why = "invalid type";
		break;
	case 5:
		btrfs_set_file_extent_compression(FI, BTRFS_COMPRESS_ZSTD + 1 +
						  rnd_below(g->state, 250));
		it->why = "invalid compression";
		break;
	case 6:
		btrfs_set_file_extent_encryption(FI, 1 + rnd_below(g->state, 255));
		it->why = "invalid encryption";
		break;
	case 7:
		it->key.offset = 1 + rnd_below(g->state, SECTOR - 1);
		it->why = "unaligned file_offset";
		break;
	}
}

static void gen_file_reg(struct gen *g, struct titem *it, int bad)
{
	struct btrfs_file_extent_item fi;
	u64 num = (u64)SECTOR * (1 + rnd_below(g->state, 256));

	it->key.objectid = rnd_ino(g);
	it->key.type = BTRFS_EXTENT_DATA_KEY;
	it->key.offset = (u64)SECTOR * rnd_below(g->state, 1 << 20);
	memset(&fi, 0, sizeof(fi));
	btrfs_set_file_extent_generation(&fi, 1 + rnd_below(g->state, 1000));
	btrfs_set_file_extent_ram_bytes(&fi, num);
	btrfs_set_file_extent_compression(&fi, rnd_below(g->state, 4) ? 0 : 1);
	btrfs_set_file_extent_type(&fi, rnd_below(g->state, 4) ? BTRFS_FILE_EXTENT_REG :
				   BTRFS_FILE_EXTENT_PREALLOC);
	btrfs_set_file_extent_disk_bytenr(&fi, rnd_below(g->state, 8) ? rnd_bytenr(g) : 0);
	btrfs_set_file_extent_disk_num_bytes(&fi, num);
	btrfs_set_file_extent_offset(&fi, 0);
	btrfs_set_file_extent_num_bytes(&fi, num);
	put_bytes(it, &fi, sizeof(fi));
	switch (bad) {
	case 1: {
		u32 sizes[] = { BTRFS_FILE_EXTENT_INLINE_DATA_START, 40, 52, 54, 60 };

		it->size = sizes[rnd_below(g->state, 5)];
		it->why = "invalid item size for reg/prealloc";
		break;
	}
	case 2: {
		u64 odd = 1 + rnd_below(g->state, SECTOR - 1);

		switch (rnd_below(g->state, 4)) {
		case 0:
			btrfs_set_file_extent_disk_bytenr(FI,
					btrfs_file_extent_disk_bytenr(FI) + odd);
			break;
		case 1:
			btrfs_set_file_extent_disk_num_bytes(FI, num + odd);
			break;
		case 2:
			btrfs_set_file_extent_offset(FI, odd);
			break;
		default:
			btrfs_set_file_extent_num_bytes(FI, num - SECTOR + odd);
		}
		it->why = "not aligned";
		break;
	}
	case 3:
		it->key.offset = (u64)-1 - SECTOR * 4 + 1;
		btrfs_set_file_extent_num_bytes(FI, (u64)SECTOR * 8);
		it->why = "overflows";
		break;
	case 4:
		it->key.offset += 1 + rnd_below(g->state, SECTOR - 1);
		it->why = "unaligned file_offset";
		break;
	}
#undef FI
}

static const u8 unknown_ref_types[] = { 0, 1, 100, 168, 169, 170, 174, 177, 180, 185, 255 };

/* an extent or metadata item with inline refs */
static void gen_extent(struct gen *g, struct titem *it, enum item_kind kind, int bad)
{
	struct btrfs_extent_item ei;
	bool data = kind == IK_EXTENT_DATA;
	int nr = 1 + rnd_below(g->state, 5), k;
	u32 ref_at[8], ref_size = 0;
	u64 flags;

	it->key.objectid = rnd_bytenr(g);
	if (kind == IK_METADATA) {
		it->key.type = BTRFS_METADATA_ITEM_KEY;
		it->key.offset = rnd_below(g->state, BTRFS_MAX_LEVEL);
	} else {
		it->key.type = BTRFS_EXTENT_ITEM_KEY;
		it->key.offset = data ? (u64)SECTOR * (1 + rnd_below(g->state, 256)) : NODESIZE;
	}
	flags = data ? BTRFS_EXTENT_FLAG_DATA : BTRFS_EXTENT_FLAG_TREE_BLOCK;
	if (!data && !rnd_below(g->state, 4))
		flags |= BTRFS_BLOCK_FLAG_FULL_BACKREF;
	btrfs_set_extent_refs(&ei, nr);
	btrfs_set_extent_generation(&ei, 1 + rnd_below(g->state, 1000));
	btrfs_set_extent_flags(&ei, flags);
	put_bytes(it, &ei, sizeof(ei));
	if (kind == IK_EXTENT_TREE) {
		struct btrfs_tree_block_info info;

		set_disk_key(&info.key, rnd_ino(g), BTRFS_INODE_ITEM_KEY, 0);
		info.level = rnd_below(g->state, BTRFS_MAX_LEVEL);
		put_bytes(it, &info, sizeof(info));
	}
	for (k = 0; k < nr; k++) {
		u8 buf[64];
		u8 type;

		if (data)
			type = rnd_below(g->state, 2) ? BTRFS_EXTENT_DATA_REF_KEY :
			       BTRFS_SHARED_DATA_REF_KEY;
		else
			type = rnd_below(g->state, 2) ? BTRFS_TREE_BLOCK_REF_KEY :
			       BTRFS_SHARED_BLOCK_REF_KEY;
		ref_size = btrfs_extent_inline_ref_size(type);
		REQUIRE_UINT(ref_size, >, 0);
		for (u32 b = 0; b < ref_size; b++)
			buf[b] = (u8)test_rand(g->state);
		buf[0] = type;
		ref_at[k] = it->size;
		put_bytes(it, buf, ref_size);
	}
	switch (bad) {
	case 1:	/* shorter than an extent item (4 bytes is the old v0 item) */
		do {
			it->size = rnd_below(g->state, sizeof(ei));
		} while (it->size == sizeof(struct btrfs_extent_item_v0));
		it->why = "invalid extent item size";
		break;
	case 2:
		it->data[ref_at[rnd_below(g->state, nr)]] =
			unknown_ref_types[rnd_below(g->state, sizeof(unknown_ref_types))];
		it->why = "unknown inline ref type";
		break;
	case 3:	/* the last ref cut short */
		it->size -= 1 + rnd_below(g->state, ref_size - 1);
		it->why = "overflows";
		break;
	case 4: {
		static const u64 bad_flags[] = {
			0, BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK,
			1ULL << 3, 1ULL << 9, 1ULL << 63,
		};
		u64 f = bad_flags[rnd_below(g->state, 5)];

		if (f > BTRFS_EXTENT_FLAG_DATA + BTRFS_EXTENT_FLAG_TREE_BLOCK)
			f |= flags;
		btrfs_set_extent_flags((struct btrfs_extent_item *)it->data, f);
		it->why = "invalid extent flag";
		break;
	}
	case 5:
		it->key.objectid += 1 + rnd_below(g->state, SECTOR - 1);
		it->why = "invalid extent bytenr";
		break;
	case 6:	/* a tree block extent item without room for its key and level */
		if (kind != IK_EXTENT_TREE)
			return;
		it->size = sizeof(ei) + rnd_below(g->state, sizeof(struct btrfs_tree_block_info));
		it->why = "too small for tree block info";
		break;
	}
}

static void gen_csum(struct gen *g, struct titem *it, int bad)
{
	u32 n = 1 + rnd_below(g->state, rnd_below(g->state, 3) ? 16 : 200 / g->csum_size);

	it->key.objectid = BTRFS_EXTENT_CSUM_OBJECTID;
	it->key.type = BTRFS_EXTENT_CSUM_KEY;
	it->key.offset = rnd_bytenr(g);
	put_name(g, it, n * g->csum_size);
	switch (bad) {
	case 1:
		it->size += 1 + rnd_below(g->state, g->csum_size - 1);
		it->why = "unaligned item size";
		break;
	case 2:
		it->key.offset += 1 + rnd_below(g->state, SECTOR - 1);
		it->why = "unaligned key offset";
		break;
	case 3:
		it->key.objectid = rnd_below(g->state, 2) ? rnd_ino(g) :
				   BTRFS_EXTENT_CSUM_OBJECTID + 1;
		it->why = "invalid key objectid";
		break;
	}
}

static void gen_root(struct gen *g, struct titem *it, int bad)
{
	static const u32 bad_sizes[] = { 0, 100, 238, 240, 438, 440 };
	struct btrfs_root_item ri;

	memset(&ri, 0, sizeof(ri));
	it->key.objectid = rnd_below(g->state, 2) ? BTRFS_FS_TREE_OBJECTID : rnd_ino(g);
	it->key.type = BTRFS_ROOT_ITEM_KEY;
	it->key.offset = rnd_below(g->state, 2) ? 0 : rnd_below(g->state, 1000);
	btrfs_set_root_bytenr(&ri, rnd_bytenr(g));
	btrfs_set_root_generation(&ri, 1 + rnd_below(g->state, 1000));
	put_bytes(it, &ri, rnd_below(g->state, 4) ? sizeof(ri) : BTRFS_ROOT_ITEM_V1_SIZE);
	if (bad == 1) {
		it->size = bad_sizes[rnd_below(g->state, 6)];
		it->why = "invalid root item size";
	}
}

/* how many malformed variants each kind has (numbered 1..n) */
static const int nr_bad[IK_NR] = {
	[IK_INODE] = 1, [IK_DIR_ITEM] = 5, [IK_DIR_INDEX] = 6, [IK_XATTR] = 3,
	[IK_INODE_REF] = 2, [IK_FILE_INLINE] = 7, [IK_FILE_REG] = 4,
	[IK_EXTENT_DATA] = 5, [IK_EXTENT_TREE] = 6, [IK_METADATA] = 5,
	[IK_CSUM] = 3, [IK_ROOT] = 1,
};

/* a well-formed item of @kind (@bad 0) or its malformed variant @bad */
static void gen_item(struct gen *g, struct titem *it, enum item_kind kind, int bad)
{
	memset(it, 0, offsetof(struct titem, data));
	switch (kind) {
	case IK_INODE:
		gen_inode(g, it, bad);
		break;
	case IK_DIR_ITEM:
		gen_dir(g, it, false, bad);
		break;
	case IK_DIR_INDEX:
		gen_dir(g, it, true, bad);
		break;
	case IK_XATTR:
		gen_xattr(g, it, bad);
		break;
	case IK_INODE_REF:
		gen_inode_ref(g, it, bad);
		break;
	case IK_FILE_INLINE:
		gen_file_inline(g, it, bad);
		break;
	case IK_FILE_REG:
		gen_file_reg(g, it, bad);
		break;
	case IK_EXTENT_DATA:
	case IK_EXTENT_TREE:
	case IK_METADATA:
		gen_extent(g, it, kind, bad);
		break;
	case IK_CSUM:
		gen_csum(g, it, bad);
		break;
	case IK_ROOT:
		gen_root(g, it, bad);
		break;
	default:
		break;
	}
	it->bad = bad != 0;
}

/* drop items whose key repeats (keeping the bad one), sorted */
static int sort_unique(struct titem *items, int nr)
{
	int i, out = 0;

	sort_items(items, nr);
	for (i = 0; i < nr; i++) {
		if (out && !btrfs_comp_cpu_keys(&items[out - 1].key, &items[i].key)) {
			if (items[i].bad)
				items[out - 1] = items[i];
			continue;
		}
		if (out != i)
			items[out] = items[i];
		out++;
	}
	return out;
}

/* random well-formed items until the leaf is (nearly) full */
static int random_valid_items(struct gen *g, struct titem *items, int max)
{
	u32 used = 0;
	int nr = 0;

	while (nr < max) {
		enum item_kind kind = rnd_below(g->state, IK_NR);

		gen_item(g, &items[nr], kind, 0);
		if (used + ITEM_SZ + items[nr].size > DATA_SIZE)
			break;
		used += ITEM_SZ + items[nr].size;
		nr++;
	}
	return sort_unique(items, nr);
}

static void check_all_items_pass(struct btrfs_fs_info *fs, struct extent_buffer *eb,
				 const struct titem *items, int nr)
{
	struct tree_check_error err;
	int i;

	TC_CHECK(!btrfs_check_leaf_layout(fs, eb, &err), "valid leaf rejected: %s", err.msg);
	for (i = 0; i < nr; i++) {
		int ret = btrfs_check_item(fs, eb, i, &err);

		TC_CHECK(ret == 0, "well-formed item (%llu %u %llu) size %u rejected: %s",
			 (unsigned long long)items[i].key.objectid, items[i].key.type,
			 (unsigned long long)items[i].key.offset, items[i].size, err.msg);
	}
	TC_CHECK(!btrfs_check_leaf_items(fs, eb, &err), "valid leaf items rejected: %s",
		 err.msg);
}

START_TEST(test_items_random)
{
	static const u16 csum_sizes[] = { 4, 8, 32 };
	u64 state = 0xABCDEF01ULL + _i * 15485863;
	struct gen g = { &state, csum_sizes[_i % 3] };
	struct btrfs_fs_info *fs = new_fs(g.csum_size);
	struct titem *items = calloc(MAX_ITEMS + 1, sizeof(*items));
	int step, tried[IK_NR][8] = { { 0 } };

	REQUIRE((items) != NULL);
	for (step = 0; step < 1200; step++) {
		struct tree_check_error err;
		struct extent_buffer *eb;
		enum item_kind kind = rnd_below(&state, IK_NR);
		int variant = 1 + rnd_below(&state, nr_bad[kind]);
		int nr = random_valid_items(&g, items, MAX_ITEMS), slot, i, ret;
		char what[128];

		eb = pack_leaf(fs, items, nr);
		check_all_items_pass(fs, eb, items, nr);
		free_extent_buffer(eb);

		/* replace one item by a malformed one */
		i = nr ? rnd_below(&state, nr) : 0;
		gen_item(&g, &items[i], kind, variant);
		if (!items[i].why)
			continue;	/* variant does not apply to this item */
		if (i == nr)
			nr++;
		nr = sort_unique(items, nr);
		while (leaf_bytes(items, nr) > DATA_SIZE) {
			int victim = rnd_below(&state, nr);

			if (items[victim].bad)
				continue;
			memmove(&items[victim], &items[victim + 1],
				(nr - victim - 1) * sizeof(*items));
			nr--;
		}
		for (slot = 0; !items[slot].bad; slot++)
			;
		tried[kind][variant]++;
		eb = pack_leaf(fs, items, nr);
		TC_CHECK(!btrfs_check_leaf_layout(fs, eb, &err),
			 "malformed item contents broke the layout: %s", err.msg);
		snprintf(what, sizeof(what), "%s variant %d at slot %d of %d",
			 kind_name[kind], variant, slot, nr);
		err.slot = -7;
		ret = btrfs_check_item(fs, eb, slot, &err);
		expect_reject(ret, &err, slot, items[slot].why, what);
		/* the whole leaf fails at the same slot: the rest is fine */
		ret = btrfs_check_leaf_items(fs, eb, &err);
		expect_reject(ret, &err, slot, items[slot].why, what);
		for (i = 0; i < nr; i++) {
			if (i != slot)
				TC_CHECK(!btrfs_check_item(fs, eb, i, &err),
					 "%s: neighbour slot %d rejected: %s", what, i, err.msg);
		}
		free_extent_buffer(eb);
	}
	for (step = 0; step < IK_NR; step++) {
		for (int v = 1; v <= nr_bad[step]; v++)
			TC_CHECK(tried[step][v] > 0, "%s variant %d never tried",
				 kind_name[step], v);
	}
	free(items);
	free(fs);
}
END_TEST

/* each kind alone in a leaf, many times: the accept side in isolation */
START_TEST(test_items_each_kind)
{
	u64 state = 0x12345ULL + _i;
	struct gen g = { &state, 4 };
	struct btrfs_fs_info *fs = new_fs(4);
	struct titem *it = calloc(1, sizeof(*it));
	int kind, rep;

	REQUIRE((it) != NULL);
	for (kind = 0; kind < IK_NR; kind++) {
		for (rep = 0; rep < 100; rep++) {
			struct tree_check_error err;
			struct extent_buffer *eb;
			int ret;

			gen_item(&g, it, kind, 0);
			eb = pack_leaf(fs, it, 1);
			ret = btrfs_check_item(fs, eb, 0, &err);
			TC_CHECK(ret == 0, "lone %s item size %u rejected: %s", kind_name[kind],
				 it->size, err.msg);
			free_extent_buffer(eb);
		}
	}
	/* a legacy v0 extent item is only its ref count */
	{
		struct tree_check_error err;
		struct extent_buffer *eb;

		memset(it, 0, sizeof(*it));
		it->key.objectid = 1ULL << 30;
		it->key.type = BTRFS_EXTENT_ITEM_KEY;
		it->key.offset = SECTOR;
		it->size = sizeof(struct btrfs_extent_item_v0);
		eb = pack_leaf(fs, it, 1);
		REQUIRE_INT(btrfs_check_item(fs, eb, 0, &err), ==, 0);
		free_extent_buffer(eb);
	}
	free(it);
	free(fs);
}
END_TEST

/*
 * Rules the kernel's tree checker enforces, added to tree-checker.c after
 * this test found them missing.
 *
 * check_dir_items():
 *  - the type is judged with the encryption bit (0x80) set as a whole, so
 *    0x80 | anything passes; it should be masked off first;
 *  - type 0 (FT_UNKNOWN) passes; the kernel wants (0, FT_MAX);
 *  - FT_XATTR is not required in XATTR_ITEMs nor refused elsewhere.
 * check_extent_item():
 *  - METADATA_ITEM with the DATA flag, or a level >= BTRFS_MAX_LEVEL;
 *  - tree block EXTENT_ITEM whose key offset is not the nodesize;
 *  - data extent with FULL_BACKREF.
 */
static void expect_bad(struct btrfs_fs_info *fs, struct titem *it, const char *what)
{
	struct tree_check_error err;
	struct extent_buffer *eb = pack_leaf(fs, it, 1);

	TC_CHECK(btrfs_check_item(fs, eb, 0, &err) == -EUCLEAN, "%s accepted", what);
	free_extent_buffer(eb);
}

START_TEST(test_known_bugs)
{
	u64 state = 99;
	struct gen g = { &state, 4 };
	struct btrfs_fs_info *fs = new_fs(4);
	struct titem *it = calloc(1, sizeof(*it));
	struct btrfs_extent_item *ei = (struct btrfs_extent_item *)it->data;

	gen_item(&g, it, IK_DIR_ITEM, 0);
	btrfs_set_dir_type(dir_at(it, 0), 0x80 | BTRFS_FT_MAX);
	expect_bad(fs, it, "dir type 0x89");
	btrfs_set_dir_type(dir_at(it, 0), 0xFF);
	expect_bad(fs, it, "dir type 0xff");
	btrfs_set_dir_type(dir_at(it, 0), BTRFS_FT_UNKNOWN);
	expect_bad(fs, it, "dir type 0");
	btrfs_set_dir_type(dir_at(it, 0), BTRFS_FT_XATTR);
	expect_bad(fs, it, "FT_XATTR in a dir item");
	gen_item(&g, it, IK_XATTR, 0);
	btrfs_set_dir_type(dir_at(it, 0), BTRFS_FT_REG_FILE);
	expect_bad(fs, it, "FT_REG_FILE in an xattr item");

	gen_item(&g, it, IK_METADATA, 0);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA);
	expect_bad(fs, it, "metadata item flagged DATA");
	gen_item(&g, it, IK_METADATA, 0);
	it->key.offset = BTRFS_MAX_LEVEL;
	expect_bad(fs, it, "metadata item of level 8");
	gen_item(&g, it, IK_EXTENT_TREE, 0);
	it->key.offset = NODESIZE * 2;
	expect_bad(fs, it, "tree block extent item of twice the nodesize");
	gen_item(&g, it, IK_EXTENT_DATA, 0);
	btrfs_set_extent_flags(ei, BTRFS_EXTENT_FLAG_DATA | BTRFS_BLOCK_FLAG_FULL_BACKREF);
	expect_bad(fs, it, "data extent with FULL_BACKREF");
	free(it);
	free(fs);
}
END_TEST

Suite *tree_checker_suite(void)
{
	Suite *s = suite_create("tree_checker");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_leaf_layout, 0, 3);
	tcase_add_loop_test(tc, test_node, 0, 3);
	tcase_add_loop_test(tc, test_items_each_kind, 0, 2);
	tcase_add_loop_test(tc, test_items_random, 0, 6);
	tcase_add_test(tc, test_known_bugs);
	suite_add_tcase(s, tc);
	return s;
}
