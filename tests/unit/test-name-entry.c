// SPDX-License-Identifier: GPL-2.0
/*
 * The walk over the entries of items that pack several names
 * (kernel-shared/dir-item.c: btrfs_walk_name_entry, btrfs_next_name_entry).
 *
 * - Built items: dir items with and without data, inode refs and extrefs
 *   give their entries in order with the right fields, from the start or
 *   from an offset; an entry header cut short, a name or data running
 *   past the item and a type that packs no names are told apart (the
 *   lenient walk shows the cut entry, the strict one refuses it).
 * - Random bytes of every packing type: neither walk reads past the item,
 *   the lenient one covers it exactly up to where it stops, and the
 *   strict one gives the same entries as long as they fit whole.
 */
#include <errno.h>
#include <string.h>
#include "suites.h"
#include "accessors.h"
#include "inode.h"

#define ITEM_MAX	512

struct built {
	u8 data[ITEM_MAX];
	u32 size;
};

static u32 add_dir_entry(struct built *b, u64 ino, const char *name, u32 data_len)
{
	struct btrfs_dir_item di;
	struct btrfs_key loc = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	u32 off = b->size, name_len = (u32)strlen(name);

	memset(&di, 0, sizeof(di));
	btrfs_cpu_key_to_disk(&di.location, &loc);
	btrfs_set_dir_name_len(&di, (u16)name_len);
	btrfs_set_dir_data_len(&di, (u16)data_len);
	btrfs_set_dir_type(&di, data_len ? BTRFS_FT_XATTR : BTRFS_FT_REG_FILE);
	memcpy(b->data + b->size, &di, sizeof(di));
	b->size += sizeof(di);
	memcpy(b->data + b->size, name, name_len);
	b->size += name_len;
	memset(b->data + b->size, 'v', data_len);
	b->size += data_len;
	return off;
}

static void add_ref(struct built *b, u64 index, const char *name)
{
	struct btrfs_inode_ref ref;
	u32 name_len = (u32)strlen(name);

	btrfs_set_inode_ref_index(&ref, index);
	btrfs_set_inode_ref_name_len(&ref, (u16)name_len);
	memcpy(b->data + b->size, &ref, sizeof(ref));
	memcpy(b->data + b->size + sizeof(ref), name, name_len);
	b->size += sizeof(ref) + name_len;
}

static void add_extref(struct built *b, u64 parent, u64 index, const char *name)
{
	struct btrfs_inode_extref ref;
	u32 name_len = (u32)strlen(name);

	btrfs_set_inode_extref_parent(&ref, parent);
	btrfs_set_inode_extref_index(&ref, index);
	btrfs_set_inode_extref_name_len(&ref, (u16)name_len);
	memcpy(b->data + b->size, &ref, sizeof(ref));
	memcpy(b->data + b->size + sizeof(ref), name, name_len);
	b->size += sizeof(ref) + name_len;
}

static bool same_entry(const struct btrfs_name_entry *a, const struct btrfs_name_entry *b)
{
	return a->off == b->off && a->len == b->len && a->name == b->name &&
	       a->name_len == b->name_len && a->name_avail == b->name_avail &&
	       a->data == b->data && a->data_len == b->data_len &&
	       a->data_avail == b->data_avail && a->index == b->index &&
	       a->parent == b->parent && a->di == b->di &&
	       !btrfs_comp_cpu_keys(&a->location, &b->location);
}

static bool name_is(const struct btrfs_name_entry *e, const char *name)
{
	return e->name_len == strlen(name) && e->name_avail == e->name_len &&
	       !memcmp(e->name, name, e->name_len);
}

START_TEST(test_dir_items)
{
	struct built b = { .size = 0 };
	struct btrfs_name_entry e = { 0 };
	u32 second;

	add_dir_entry(&b, 257, "a", 0);
	second = add_dir_entry(&b, 258, "bcd", 3);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_XATTR_ITEM_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE_UINT(e.off, ==, 0);
	REQUIRE_UINT(e.len, ==, sizeof(struct btrfs_dir_item) + 1);
	REQUIRE(name_is(&e, "a"));
	REQUIRE_UINT(e.location.objectid, ==, 257);
	REQUIRE_UINT(e.location.type, ==, BTRFS_INODE_ITEM_KEY);
	REQUIRE(e.di == (const void *)b.data);
	REQUIRE_UINT(e.data_len, ==, 0);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_XATTR_ITEM_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE_UINT(e.off, ==, second);
	REQUIRE(name_is(&e, "bcd"));
	REQUIRE_UINT(e.data_len, ==, 3);
	REQUIRE_UINT(e.data_avail, ==, 3);
	REQUIRE(e.data == e.name + 3 && e.data[0] == 'v');
	REQUIRE_UINT(e.location.objectid, ==, 258);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_XATTR_ITEM_KEY, b.data, b.size, &e), ==, 0);
	/* from an offset */
	e = (struct btrfs_name_entry){ .off = second };
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_DIR_ITEM_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(name_is(&e, "bcd"));
	e = (struct btrfs_name_entry){ .off = b.size + 7 };
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_DIR_ITEM_KEY, b.data, b.size, &e), ==, 0);
}
END_TEST

START_TEST(test_refs)
{
	struct built b = { .size = 0 };
	struct btrfs_name_entry e = { 0 };

	add_ref(&b, 2, "one");
	add_ref(&b, 9, "");
	add_ref(&b, 10, "three");
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(name_is(&e, "one") && e.index == 2 && !e.parent && !e.di);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(e.name_len == 0 && e.index == 9);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(name_is(&e, "three") && e.index == 10);
	REQUIRE_UINT(e.off + e.len, ==, b.size);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 0);

	b.size = 0;
	memset(&e, 0, sizeof(e));
	add_extref(&b, 256, 5, "x");
	add_extref(&b, 300, 6, "yz");
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_EXTREF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(name_is(&e, "x") && e.parent == 256 && e.index == 5);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_EXTREF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(name_is(&e, "yz") && e.parent == 300 && e.index == 6);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_EXTREF_KEY, b.data, b.size, &e), ==, 0);
}
END_TEST

START_TEST(test_damaged)
{
	struct built b = { .size = 0 };
	struct btrfs_name_entry e = { 0 }, before;
	u32 second;

	/* the second entry's header is cut short */
	add_ref(&b, 2, "ok");
	second = b.size;
	add_ref(&b, 3, "gone");
	b.size = second + sizeof(struct btrfs_inode_ref) - 1;
	REQUIRE_INT(btrfs_walk_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE_INT(btrfs_walk_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, -EUCLEAN);
	REQUIRE_UINT(e.off + e.len, ==, second);
	e = (struct btrfs_name_entry){ 0 };
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, -EUCLEAN);

	/* a name running past the item: shown cut, refused by the strict walk */
	b.size = second + sizeof(struct btrfs_inode_ref) + 2;
	e = (struct btrfs_name_entry){ .off = second };
	REQUIRE_INT(btrfs_walk_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE_UINT(e.name_len, ==, 4);
	REQUIRE_UINT(e.name_avail, ==, 2);
	REQUIRE_UINT(e.off + e.len, ==, b.size);
	REQUIRE_INT(btrfs_walk_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, 0);
	e = (struct btrfs_name_entry){ .off = second };
	before = e;
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_INODE_REF_KEY, b.data, b.size, &e), ==, -EUCLEAN);
	REQUIRE(same_entry(&e, &before));

	/* an xattr value running past the item */
	b.size = 0;
	add_dir_entry(&b, 0, "user.v", 20);
	b.size -= 5;
	e = (struct btrfs_name_entry){ 0 };
	REQUIRE_INT(btrfs_walk_name_entry(BTRFS_XATTR_ITEM_KEY, b.data, b.size, &e), ==, 1);
	REQUIRE(name_is(&e, "user.v"));
	REQUIRE_UINT(e.data_avail, ==, 15);
	REQUIRE_UINT(e.off + e.len, ==, b.size);
	e = (struct btrfs_name_entry){ 0 };
	REQUIRE_INT(btrfs_next_name_entry(BTRFS_XATTR_ITEM_KEY, b.data, b.size, &e), ==, -EUCLEAN);

	/* a type that packs no names */
	e = (struct btrfs_name_entry){ 0 };
	REQUIRE_INT(btrfs_walk_name_entry(BTRFS_INODE_ITEM_KEY, b.data, b.size, &e), ==, -EUCLEAN);
}
END_TEST

START_TEST(test_random_bytes)
{
	static const u8 types[] = { BTRFS_DIR_ITEM_KEY, BTRFS_DIR_INDEX_KEY,
				    BTRFS_XATTR_ITEM_KEY, BTRFS_INODE_REF_KEY,
				    BTRFS_INODE_EXTREF_KEY };
	uint64_t state = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;
	u8 data[ITEM_MAX];
	int round;

	for (round = 0; round < 20000; round++) {
		u8 type = types[test_rand(&state) % sizeof(types)];
		u32 size = (u32)(test_rand(&state) % ITEM_MAX), i, covered = 0;
		struct btrfs_name_entry w = { 0 }, s = { 0 };
		int wr, sr = 1;

		for (i = 0; i < size; i++) {
			/* small lengths now and then, so entries chain */
			data[i] = (u8)(test_rand(&state) % 4 ? test_rand(&state) % 24 :
				       test_rand(&state));
		}
		while ((wr = btrfs_walk_name_entry(type, data, size, &w)) > 0) {
			REQUIRE_UINT(w.off, ==, covered);
			REQUIRE_UINT(w.len, >, 0);
			REQUIRE_UINT(w.off + w.len, <=, size);
			REQUIRE(w.name >= data && w.name + w.name_avail <= data + size);
			REQUIRE_UINT(w.name_avail, <=, w.name_len);
			REQUIRE_UINT(w.data_avail, <=, w.data_len);
			covered = w.off + w.len;
			if (sr > 0) {
				sr = btrfs_next_name_entry(type, data, size, &s);
				if (w.name_avail == w.name_len && w.data_avail == w.data_len) {
					REQUIRE_INT(sr, ==, 1);
					REQUIRE(same_entry(&s, &w));
				} else {
					REQUIRE_INT(sr, ==, -EUCLEAN);
				}
			}
		}
		if (wr == 0)
			REQUIRE_UINT(covered, ==, size);
		else
			REQUIRE_UINT(w.off + w.len, ==, covered);
		if (sr > 0)
			REQUIRE_INT(btrfs_next_name_entry(type, data, size, &s), ==, wr);
	}
}
END_TEST

Suite *name_entry_suite(void)
{
	Suite *s = suite_create("name_entry");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_dir_items);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_damaged);
	tcase_add_loop_test(tc, test_random_bytes, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
