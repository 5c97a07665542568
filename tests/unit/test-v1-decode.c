// SPDX-License-Identifier: GPL-2.0
/*
 * The v1 space cache decoder shared by check and dump-free-space
 * (btrfs_v1_cache_decode): a cache built here page by page (crc32c per
 * page, generation, extent entries, a bitmap entry and its page) decodes
 * to exactly its ranges; each kind of damage the kernel refuses (a page
 * checksum, the generation, entries that cannot fit, a missing bitmap
 * page) gives 1 and a reason naming it.  Random caches of 1-4 pages
 * against the list of ranges they were built from.
 */
#include <stdlib.h>
#include <string.h>
#include "suites.h"
#include "free-space-read.h"
#include "crc32c.h"

#define PG BTRFS_V1_CACHE_PAGE
#define SECTOR 4096U

struct cache_buf {
	u8 buf[4 * PG];
	u32 pages;
	u32 page;	/* where the next entry goes */
	u32 pos;
	u64 entries;
	u64 bitmaps;
};

static void cb_init(struct cache_buf *c, u32 pages, u64 gen)
{
	memset(c, 0, sizeof(*c));
	c->pages = pages;
	put_unaligned_le64(gen, c->buf + pages * 4);
	c->pos = pages * 4 + 8;
}

static void cb_entry(struct cache_buf *c, u64 off, u64 bytes, u8 type)
{
	struct btrfs_free_space_entry *e;

	if (PG - c->pos < sizeof(*e)) {
		c->page++;
		c->pos = 0;
	}
	e = (void *)(c->buf + c->page * PG + c->pos);
	put_unaligned_le64(off, &e->offset);
	put_unaligned_le64(bytes, &e->bytes);
	e->type = type;
	c->pos += sizeof(*e);
	c->entries++;
	if (type == BTRFS_FREE_SPACE_BITMAP)
		c->bitmaps++;
}

static void cb_seal(struct cache_buf *c)
{
	u32 i;

	for (i = 0; i < c->pages; i++) {
		u32 skip = i ? 0 : c->pages * 4;

		put_unaligned_le32(crc32c_value(c->buf + i * PG + skip, PG - skip), c->buf + i * 4);
	}
}

static int decode(struct cache_buf *c, u64 gen, struct range_list *l, char *why)
{
	struct btrfs_v1_cache_header h = { .bg_start = 0, .ino = 257, .generation = gen,
					   .entries = c->entries, .bitmaps = c->bitmaps };

	range_list_init(l);
	return btrfs_v1_cache_decode(&h, c->buf, (u64)c->pages * PG, SECTOR, l, why, 200);
}

START_TEST(test_extents_and_bitmap)
{
	struct cache_buf c;
	struct range_list l;
	char why[200] = "";
	u8 *bm;

	cb_init(&c, 2, 7);
	cb_entry(&c, 1 << 20, 65536, BTRFS_FREE_SPACE_EXTENT);
	cb_entry(&c, 8 << 20, 4096, BTRFS_FREE_SPACE_EXTENT);
	cb_entry(&c, 16 << 20, (u64)PG * 8 * SECTOR, BTRFS_FREE_SPACE_BITMAP);
	bm = c.buf + PG;	/* the bitmap's page follows the entries' */
	bm[0] = 0x0f;		/* sectors 0-3 */
	bm[2] = 0x80;		/* sector 23 */
	cb_seal(&c);
	REQUIRE(decode(&c, 7, &l, why) == 0);
	range_list_normalize(&l);
	REQUIRE(l.nr == 4);
	REQUIRE(l.r[0].start == 1 << 20 && l.r[0].end == (1 << 20) + 65536);
	REQUIRE(l.r[1].start == 8 << 20 && l.r[1].end == (8 << 20) + 4096);
	REQUIRE(l.r[2].start == 16 << 20 && l.r[2].end == (16 << 20) + 4 * SECTOR);
	REQUIRE(l.r[3].start == (16 << 20) + 23 * SECTOR && l.r[3].end == (16 << 20) + 24 * SECTOR);
	range_list_release(&l);

	/* the bitmap page's checksum */
	c.buf[PG + 100] ^= 1;
	REQUIRE(decode(&c, 7, &l, why) == 1);
	ck_assert_str_eq(why, "checksum of page 1 does not match");
	range_list_release(&l);
	c.buf[PG + 100] ^= 1;

	/* the generation in page 0 differs from the header's */
	REQUIRE(decode(&c, 8, &l, why) == 1);
	ck_assert_str_eq(why, "generation in the file differs from the header");
	range_list_release(&l);

	/* page 0's checksum */
	c.buf[c.pages * 4 + 8] ^= 0x40;
	REQUIRE(decode(&c, 7, &l, why) == 1);
	ck_assert_str_eq(why, "checksum of page 0 does not match");
	range_list_release(&l);
}
END_TEST

START_TEST(test_bitmap_page_missing)
{
	struct cache_buf c;
	struct range_list l;
	char why[200] = "";

	cb_init(&c, 1, 3);
	cb_entry(&c, 0, (u64)PG * 8 * SECTOR, BTRFS_FREE_SPACE_BITMAP);
	cb_seal(&c);
	REQUIRE(decode(&c, 3, &l, why) == 1);
	ck_assert_str_eq(why, "bitmaps run past the end of the file");
	range_list_release(&l);

	c.entries = 1000000;
	REQUIRE(decode(&c, 3, &l, why) == 1);
	REQUIRE(strstr(why, "cannot fit") != NULL);
	range_list_release(&l);
}
END_TEST

/* entries spill over page boundaries; every range must come back */
START_TEST(test_random_entries)
{
	uint64_t state = 0x5eed + (uint64_t)_i;
	struct cache_buf c;
	struct range_list l, want;
	char why[200] = "";
	u64 off = 0;
	u32 pages = 1 + _i % 4, max = pages * (PG / sizeof(struct btrfs_free_space_entry)) - 4;
	u32 n = (u32)(test_rand(&state) % max), i;

	cb_init(&c, pages, 11);
	range_list_init(&want);
	for (i = 0; i < n; i++) {
		u64 len = SECTOR * (1 + test_rand(&state) % 16);

		off += SECTOR * (1 + test_rand(&state) % 16);
		cb_entry(&c, off, len, BTRFS_FREE_SPACE_EXTENT);
		range_list_add(&want, off, len);
		off += len;
	}
	cb_seal(&c);
	REQUIRE(decode(&c, 11, &l, why) == 0);
	range_list_normalize(&l);
	range_list_normalize(&want);
	REQUIRE(l.nr == want.nr);
	for (i = 0; i < l.nr; i++)
		REQUIRE(l.r[i].start == want.r[i].start && l.r[i].end == want.r[i].end);
	range_list_release(&l);
	range_list_release(&want);
}
END_TEST

Suite *v1_decode_suite(void)
{
	Suite *s = suite_create("v1_decode");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_extents_and_bitmap);
	tcase_add_test(tc, test_bitmap_page_missing);
	tcase_add_loop_test(tc, test_random_entries, 0, 16);
	suite_add_tcase(s, tc);
	return s;
}
