// SPDX-License-Identifier: GPL-2.0
/*
 * Extent buffer accessors: reading the key of every item of 16 KiB
 * leaves from one contiguous buffer (struct extent_buffer, plain loads at
 * an offset, the accessors of extent_io.h) vs from a buffer made of four
 * separately allocated 4 KiB pages, where each field access first finds
 * its page and copies the field piecewise when it crosses a page
 * boundary, as an accessor of a multi-page buffer must.
 */
#include <string.h>
#include "bench.h"
#include "extent_io.h"

#define NODESIZE	16384U
#define PAGE		4096U
#define NR_PAGES	(NODESIZE / PAGE)
#define NR_LEAVES	2048U
#define ITEM_DATA	48U
#define NR_ITEMS	((NODESIZE - sizeof(struct btrfs_header)) / \
			 (sizeof(struct btrfs_item) + ITEM_DATA))
#define LOOPS		20

struct paged_eb {
	u8 *pages[NR_PAGES];
};

/* copy @len bytes at @off out of a paged buffer */
static void paged_read(const struct paged_eb *eb, void *dst, u32 off, u32 len)
{
	u8 *out = dst;

	while (len) {
		u32 page = off / PAGE, poff = off % PAGE;
		u32 n = PAGE - poff < len ? PAGE - poff : len;

		memcpy(out, eb->pages[page] + poff, n);
		out += n;
		off += n;
		len -= n;
	}
}

/* per-field accessors of a paged buffer: direct inside a page, else copy */
static u64 paged_le64(const struct paged_eb *eb, u32 off)
{
	u8 tmp[8];

	if (off % PAGE + 8 <= PAGE)
		return get_unaligned_le64(eb->pages[off / PAGE] + off % PAGE);
	paged_read(eb, tmp, off, 8);
	return get_unaligned_le64(tmp);
}

static u32 paged_le32(const struct paged_eb *eb, u32 off)
{
	u8 tmp[4];

	if (off % PAGE + 4 <= PAGE)
		return get_unaligned_le32(eb->pages[off / PAGE] + off % PAGE);
	paged_read(eb, tmp, off, 4);
	return get_unaligned_le32(tmp);
}

static u8 paged_u8(const struct paged_eb *eb, u32 off)
{
	return eb->pages[off / PAGE][off % PAGE];
}

static void paged_item_key(const struct paged_eb *eb, int slot, struct btrfs_key *key)
{
	u32 off = sizeof(struct btrfs_header) + slot * sizeof(struct btrfs_item);

	key->objectid = paged_le64(eb, off + offsetof(struct btrfs_disk_key, objectid));
	key->type = paged_u8(eb, off + offsetof(struct btrfs_disk_key, type));
	key->offset = paged_le64(eb, off + offsetof(struct btrfs_disk_key, offset));
}

static void fill_leaf(u8 *data, uint64_t *seed)
{
	struct btrfs_header *h = (struct btrfs_header *)data;
	struct btrfs_item *item;
	u64 objectid = bench_rand_below(seed, 1 << 20);
	u32 i;

	memset(data, 0, NODESIZE);
	btrfs_set_header_nritems(h, NR_ITEMS);
	for (i = 0; i < NR_ITEMS; i++) {
		item = (struct btrfs_item *)(data + sizeof(*h) + i * sizeof(*item));
		objectid += bench_rand_below(seed, 3);
		put_unaligned_le64(objectid, &item->key.objectid);
		item->key.type = (u8)(1 + bench_rand_below(seed, 200));
		put_unaligned_le64(bench_rand(seed), &item->key.offset);
		put_unaligned_le32(NODESIZE - sizeof(*h) - (i + 1) * ITEM_DATA,
				   &item->offset);
		put_unaligned_le32(ITEM_DATA, &item->size);
	}
}

static u64 key_sum(const struct btrfs_key *key)
{
	return key->objectid * 3 + key->type + (key->offset ^ (key->offset >> 7));
}

static double run_contiguous(struct extent_buffer **ebs, u64 *sum)
{
	double t0 = bench_now();
	struct btrfs_key key;
	u32 l, nr;
	int loop, slot;

	for (loop = 0; loop < LOOPS; loop++) {
		for (l = 0; l < NR_LEAVES; l++) {
			nr = btrfs_eb_nritems(ebs[l]);
			for (slot = 0; slot < (int)nr; slot++) {
				btrfs_item_key_to_cpu(ebs[l], &key, slot);
				*sum += key_sum(&key);
			}
		}
	}
	return bench_now() - t0;
}

static double run_paged(struct paged_eb *pebs, u64 *sum)
{
	double t0 = bench_now();
	struct btrfs_key key;
	u32 l, nr;
	int loop, slot;

	for (loop = 0; loop < LOOPS; loop++) {
		for (l = 0; l < NR_LEAVES; l++) {
			nr = paged_le32(&pebs[l], offsetof(struct btrfs_header, nritems));
			for (slot = 0; slot < (int)nr; slot++) {
				paged_item_key(&pebs[l], slot, &key);
				*sum += key_sum(&key);
			}
		}
	}
	return bench_now() - t0;
}

int main(void)
{
	struct extent_buffer **ebs = calloc(NR_LEAVES, sizeof(*ebs));
	struct paged_eb *pebs = calloc(NR_LEAVES, sizeof(*pebs));
	double best_cont = 0, best_paged = 0;
	u64 sum_cont = 0, sum_paged = 0;
	uint64_t seed = 4242;
	u32 l, p;
	int round;

	if (!ebs || !pebs)
		bench_die("bench-contiguous-eb", "out of memory");
	for (l = 0; l < NR_LEAVES; l++) {
		ebs[l] = calloc(1, sizeof(struct extent_buffer) + NODESIZE);
		if (!ebs[l])
			bench_die("bench-contiguous-eb", "out of memory");
		ebs[l]->len = NODESIZE;
		fill_leaf(ebs[l]->data, &seed);
		for (p = 0; p < NR_PAGES; p++) {
			pebs[l].pages[p] = malloc(PAGE);
			if (!pebs[l].pages[p])
				bench_die("bench-contiguous-eb", "out of memory");
			memcpy(pebs[l].pages[p], ebs[l]->data + p * PAGE, PAGE);
		}
	}
	printf("bench-contiguous-eb: keys of %zu items in each of %u 16 KiB leaves,\n"
	       "read %d times: contiguous buffer vs four 4 KiB pages\n",
	       (size_t)NR_ITEMS, NR_LEAVES, LOOPS);
	for (round = 0; round < BENCH_ROUNDS; round++) {
		/* alternate which goes first: neither gets the warmer caches */
		if (round & 1)
			bench_min(&best_cont, run_contiguous(ebs, &sum_cont));
		bench_min(&best_paged, run_paged(pebs, &sum_paged));
		if (!(round & 1))
			bench_min(&best_cont, run_contiguous(ebs, &sum_cont));
	}
	if (sum_cont != sum_paged)
		bench_die("bench-contiguous-eb", "the two readers disagree");
	bench_report("plain (page-split accessors)", best_paged,
		     "improved (contiguous buffer)", best_cont,
		     (double)LOOPS * NR_LEAVES * NR_ITEMS, "key");
	for (l = 0; l < NR_LEAVES; l++) {
		free(ebs[l]);
		for (p = 0; p < NR_PAGES; p++)
			free(pebs[l].pages[p]);
	}
	free(ebs);
	free(pebs);
	return 0;
}
