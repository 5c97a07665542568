// SPDX-License-Identifier: GPL-2.0
/*
 * Repairs of tree blocks (TREE_BLOCK_INVALID, TREE_BLOCK_UNREADABLE when
 * only the checksum is wrong) and of items the tree-checker rejects
 * (TREE_ITEM_INVALID, FS_TREE_UNKNOWN_KEY).
 *
 * A block that fails verification cannot be used by the engine, so the
 * repair opens the filesystem with a block fixer: for a block the first
 * check reported, whose checksum, address and fsid are sound, it mends in
 * memory what the header or the item layout got wrong (a generation that
 * differs from its parent pointer, a level that differs from it, keys out
 * of order, item data offsets that are not contiguous) and lets the
 * engine verify the result.  A block whose checksum fails is not mended:
 * when all the rest of it is what its parent expects and its items pass
 * the checks, only its checksum is recomputed.  Nothing is written then.  The action for the
 * finding copies the block on write: the mended copy goes to a new
 * address with the current generation, its parent pointer (or root item)
 * follows, and the old block stays as it was until the commit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "repair-tree-block.h"
#include "array.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"
#include "kernel-shared/tree-checker.h"

/* ---- the list of blocks and fixes ---- */

static bool u64_in(const u64 *v, size_t nr, u64 x)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (v[i] == x)
			return true;
	}
	return false;
}

int repair_block_fixes_allow(struct repair_block_fixes *f, u64 bytenr)
{
	if (u64_in(f->allowed, f->nr_allowed, bytenr))
		return 0;
	if (ARRAY_RESERVE(f->allowed, f->alloc_allowed, f->nr_allowed + 1, 8))
		return -ENOMEM;
	f->allowed[f->nr_allowed++] = bytenr;
	return 0;
}

void repair_block_fixes_release(struct repair_block_fixes *f)
{
	free(f->allowed);
	free(f->v);
	free(f->cowed);
	free(f->refused);
	memset(f, 0, sizeof(*f));
}

/* a block read again (evicted from the cache) is mended again: one record */
static void forget_fixes(struct repair_block_fixes *f, u64 bytenr)
{
	size_t i, j = 0;

	for (i = 0; i < f->nr; i++) {
		if (f->v[i].bytenr != bytenr)
			f->v[j++] = f->v[i];
	}
	f->nr = j;
}

__attribute__((format(printf, 6, 7)))
static int record_fix(struct repair_block_fixes *f, u64 bytenr, bool has_values,
		      u64 old_value, u64 new_value, const char *fmt, ...)
{
	struct repair_block_fix *x;
	va_list ap;

	if (ARRAY_RESERVE(f->v, f->alloc, f->nr + 1, 8))
		return -ENOMEM;
	x = &f->v[f->nr++];
	x->bytenr = bytenr;
	x->has_values = has_values;
	x->old_value = old_value;
	x->new_value = new_value;
	va_start(ap, fmt);
	vsnprintf(x->what, sizeof(x->what), fmt, ap);
	va_end(ap);
	return 0;
}

/* ---- mending a block in memory ---- */

static int cmp_slot_keys(const struct btrfs_disk_key *a, const struct btrfs_disk_key *b)
{
	struct btrfs_key ka, kb;

	btrfs_disk_key_to_cpu(&ka, a);
	btrfs_disk_key_to_cpu(&kb, b);
	return btrfs_comp_cpu_keys(&ka, &kb);
}

/*
 * Sort @nr entries of @size bytes, each starting with a disk key, by key
 * (insertion sort: a leaf has a few hundred items, usually nearly in
 * order).  1 when the order changed, 0 when it was right, -EEXIST on a
 * duplicate key (which of the two is right cannot be told).
 */
static int sort_entries(u8 *base, u32 nr, size_t size)
{
	u8 tmp[sizeof(struct btrfs_item) > sizeof(struct btrfs_key_ptr) ?
	       sizeof(struct btrfs_item) : sizeof(struct btrfs_key_ptr)];
	bool moved = false;
	u32 i, j;
	int c;

	for (i = 1; i < nr; i++) {
		memcpy(tmp, base + i * size, size);
		for (j = i; j > 0; j--) {
			c = cmp_slot_keys((void *)(base + (j - 1) * size), (void *)tmp);
			if (c == 0)
				return -EEXIST;
			if (c < 0)
				break;
			memcpy(base + j * size, base + (j - 1) * size, size);
			moved = true;
		}
		memcpy(base + j * size, tmp, size);
	}
	return moved;
}

/*
 * Whether the keys of @nr entries (each @size bytes, starting with a disk
 * key) are in order but for neighbours swapped: ... a < c > b < d ...
 * with a < b < c < d.  That is what a swap looks like; a key corrupted in
 * place (random bytes) is far from its neighbours and is not sorted into
 * a place it never had.  A swap with the last entry is refused too: its
 * larger key would end the block, where nothing bounds it.
 */
static bool only_neighbours_swapped(const u8 *base, u32 nr, size_t size)
{
#define KEY_AT(i) ((const struct btrfs_disk_key *)(base + (size_t)(i) * size))
	u32 i;

	for (i = 0; i + 1 < nr; i++) {
		if (cmp_slot_keys(KEY_AT(i), KEY_AT(i + 1)) < 0)
			continue;
		if (i + 2 >= nr || cmp_slot_keys(KEY_AT(i), KEY_AT(i + 2)) >= 0 ||
		    (i && cmp_slot_keys(KEY_AT(i - 1), KEY_AT(i + 1)) >= 0) ||
		    !cmp_slot_keys(KEY_AT(i), KEY_AT(i + 1)))
			return false;
		i++;	/* the pair is done; the next compares from its larger key */
	}
	return true;
#undef KEY_AT
}

/* the keys of a node out of order: sort the pointers with their keys */
static int mend_node(struct repair_block_fixes *f, struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);
	int ret;

	if (!nr || nr > btrfs_max_node_ptrs(eb->len))
		return -EUCLEAN;
	if (!only_neighbours_swapped((u8 *)btrfs_key_ptr_nr(eb, 0), nr,
				     sizeof(struct btrfs_key_ptr)))
		return -EUCLEAN;
	ret = sort_entries((u8 *)btrfs_key_ptr_nr(eb, 0), nr,
			   sizeof(struct btrfs_key_ptr));
	if (ret < 0)
		return ret;
	if (ret)
		return record_fix(f, eb->start, false, 0, 0,
				  "node %llu: %u pointers sorted by key",
				  (unsigned long long)eb->start, nr);
	return 0;
}

/*
 * Lay the data of @eb's items out end to end in slot order, as a leaf
 * keeps it, each item's bytes taken from @src (the data area as read) at
 * src_off[slot].  -EUCLEAN when the items do not fit the leaf.
 */
static int lay_out_items(struct extent_buffer *eb, const u8 *src, const u32 *src_off)
{
	u32 nr = btrfs_eb_nritems(eb), i, end = btrfs_leaf_data_size(eb->len);
	u8 *data = eb->data + sizeof(struct btrfs_header);
	u64 headers = (u64)nr * sizeof(struct btrfs_item);

	for (i = 0; i < nr; i++) {
		u32 size = btrfs_item_size(eb, i);

		if (end < headers || end - headers < size)
			return -EUCLEAN;
		end -= size;
		btrfs_set_raw_item_offset(btrfs_item_nr(eb, i), end);
	}
	/* the free space between the headers and the data is left zeroed */
	memset(data + headers, 0, end - headers);
	for (i = 0; i < nr; i++)
		memcpy(data + btrfs_item_offset(eb, i), src + src_off[i],
		       btrfs_item_size(eb, i));
	return 0;
}

/* the items of @eb the tree-checker rejects */
static u32 bad_items(const struct btrfs_fs_info *fs_info, const struct extent_buffer *eb)
{
	struct tree_check_error terr;
	u32 i, nr = btrfs_eb_nritems(eb), bad = 0;

	for (i = 0; i < nr; i++)
		bad += btrfs_check_item(fs_info, eb, (int)i, &terr) != 0;
	return bad;
}

/*
 * Keys out of order have two readings.  The keys moved and the data did
 * not (swapped keys: the data still follows the slot order), or whole
 * items moved (a key corrupted in place: its item belongs elsewhere).
 * Both are built; the one whose items the tree-checker accepts more of
 * wins, whole items on a tie.  Keys only: one sorted array of keys
 * written over the slots in order.
 */
static int sort_keys_only(struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb), i;
	struct btrfs_disk_key *keys;
	int ret;

	keys = malloc(sizeof(*keys) * nr);
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		keys[i] = btrfs_item_nr(eb, i)->key;
	ret = sort_entries((u8 *)keys, nr, sizeof(*keys));
	for (i = 0; ret >= 0 && i < nr; i++)
		btrfs_item_nr(eb, i)->key = keys[i];
	free(keys);
	return ret;
}

static struct extent_buffer *clone_eb(const struct extent_buffer *eb)
{
	struct extent_buffer *c = malloc(sizeof(*c) + eb->len);

	if (c) {
		memset(c, 0, sizeof(*c));
		c->start = eb->start;
		c->len = eb->len;
		c->fs_info = eb->fs_info;
		memcpy(c->data, eb->data, eb->len);
	}
	return c;
}

/* the source offset of each slot of @eb (before any data moved) */
static void item_offsets(const struct extent_buffer *eb, u32 *off)
{
	u32 i, nr = btrfs_eb_nritems(eb);

	for (i = 0; i < nr; i++)
		off[i] = btrfs_item_offset(eb, i);
}

/*
 * Whether slot @i of @eb is where its neighbours put it: its data ends
 * where the previous item's begins (the end of the data area for slot
 * 0).  A kernel-written leaf keeps its items' data end to end.
 */
static bool item_ends_at_neighbour(const struct extent_buffer *eb, u32 i)
{
	u64 upper = i ? btrfs_item_offset(eb, i - 1) : btrfs_leaf_data_size(eb->len);

	return (u64)btrfs_item_offset(eb, i) + btrfs_item_size(eb, i) == upper;
}

/*
 * One item whose offset or size alone is wrong (a bit flip or a stray
 * write in its header): its neighbours, each in place with the item on
 * its other side, bound a gap [lower, upper) the item must fill.  When
 * its size is exactly the gap's, the offset was the lie; when its offset
 * is where the gap begins and its size runs past the gap (into the
 * previous item's data), the size was.  An item that stops short of the
 * gap is no overlap: data moved down with its offsets leaves one too,
 * and lay_out_items() closes it.  Anything else (two damaged
 * neighbours, the last slot, whose lower bound nothing confirms, a gap
 * neither field explains) is left to the checks that follow, which
 * refuse it.  The items then pass the item checks or the whole mend is
 * refused.
 */
static int recover_item_bounds(struct repair_block_fixes *f, struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb), i;
	u64 headers = (u64)nr * sizeof(struct btrfs_item);
	int ret = 0;

	for (i = 0; i + 1 < nr && !ret; i++) {
		struct btrfs_item *item = btrfs_item_nr(eb, i);
		u64 upper, lower, off = btrfs_item_offset(eb, i), size = btrfs_item_size(eb, i);

		if (item_ends_at_neighbour(eb, i))
			continue;
		/* the neighbours must stand on their other sides */
		if (i > 0 && !item_ends_at_neighbour(eb, i - 1))
			return 0;
		if (i + 2 < nr && !item_ends_at_neighbour(eb, i + 2))
			return 0;
		upper = i ? btrfs_item_offset(eb, i - 1) : btrfs_leaf_data_size(eb->len);
		lower = (u64)btrfs_item_offset(eb, i + 1) + btrfs_item_size(eb, i + 1);
		if (lower > upper || btrfs_item_offset(eb, i + 1) < headers)
			return 0;
		if (off != lower && size == upper - lower) {
			btrfs_set_raw_item_offset(item, lower);
			ret = record_fix(f, eb->start, true, off, lower,
					 "leaf %llu slot %u data offset (the gap its neighbours leave)",
					 (unsigned long long)eb->start, i);
		} else if (off == lower && size > upper - lower) {
			btrfs_set_raw_item_size(item, upper - lower);
			ret = record_fix(f, eb->start, true, size, upper - lower,
					 "leaf %llu slot %u data size (the gap its neighbours leave)",
					 (unsigned long long)eb->start, i);
		} else {
			return 0;
		}
		i++;	/* the next slot was measured against this one */
	}
	return ret;
}

/* the items sorted and their data laid out end to end, as a leaf keeps it */
static int mend_leaf(struct repair_block_fixes *f, const struct btrfs_fs_info *fs_info,
		     struct extent_buffer *eb)
{
	u32 data_size = btrfs_leaf_data_size(eb->len);
	u32 nr = btrfs_eb_nritems(eb), i, run;
	const u8 *src = eb->data + sizeof(struct btrfs_header);
	struct extent_buffer *whole = NULL, *keys = NULL, *pick;
	u32 *off_whole = NULL, *off_keys = NULL, *old_off;
	int ret, sorted;

	if ((u64)nr * sizeof(struct btrfs_item) > data_size)
		return -EUCLEAN;
	ret = recover_item_bounds(f, eb);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++) {
		u64 off = btrfs_item_offset(eb, i), size = btrfs_item_size(eb, i);

		/* data outside the leaf: the size or offset itself is lost */
		if (off + size > data_size || off < (u64)nr * sizeof(struct btrfs_item))
			return -EUCLEAN;
	}
	ret = -ENOMEM;
	whole = clone_eb(eb);
	keys = clone_eb(eb);
	off_whole = malloc(sizeof(u32) * (nr ? nr : 1));
	off_keys = malloc(sizeof(u32) * (nr ? nr : 1));
	if (!whole || !keys || !off_whole || !off_keys)
		goto out;
	if (!only_neighbours_swapped((u8 *)btrfs_item_nr(eb, 0), nr, sizeof(struct btrfs_item))) {
		ret = -EUCLEAN;
		goto out;
	}
	sorted = sort_entries((u8 *)btrfs_item_nr(whole, 0), nr, sizeof(struct btrfs_item));
	if (sorted < 0) {
		ret = sorted;
		goto out;
	}
	item_offsets(whole, off_whole);
	ret = lay_out_items(whole, src, off_whole);
	if (ret)
		goto out;
	pick = whole;
	old_off = off_whole;
	if (sorted) {
		item_offsets(keys, off_keys);
		if (sort_keys_only(keys) >= 0 && !lay_out_items(keys, src, off_keys) &&
		    bad_items(fs_info, keys) < bad_items(fs_info, whole)) {
			pick = keys;
			old_off = off_keys;
		}
	}
	/*
	 * The data must have been in slot order with gaps at most: an
	 * overlap means an offset or size is itself wrong, and the bytes
	 * laid out from it would be some other item's.  Every item of the
	 * result must pass the item checks.
	 */
	for (i = 1; i < nr; i++) {
		if ((u64)old_off[i] + btrfs_item_size(pick, i) > old_off[i - 1]) {
			ret = -EUCLEAN;
			goto out;
		}
	}
	if (bad_items(fs_info, pick)) {
		ret = -EUCLEAN;
		goto out;
	}
	memcpy(eb->data + sizeof(struct btrfs_header), pick->data + sizeof(struct btrfs_header),
	       eb->len - sizeof(struct btrfs_header));
	ret = 0;
	if (sorted)
		ret = record_fix(f, eb->start, false, 0, 0, pick == keys ?
				 "leaf %llu: keys of its %u slots put in order, each slot keeping its data" :
				 "leaf %llu: its %u items sorted by key, each with its data",
				 (unsigned long long)eb->start, nr);
	/* one line per run of items whose data moved by the same amount */
	for (i = 0; i < nr && !ret; i = run) {
		s64 delta = (s64)btrfs_item_offset(eb, i) - old_off[i];

		for (run = i + 1; run < nr; run++) {
			if ((s64)btrfs_item_offset(eb, run) - old_off[run] != delta)
				break;
		}
		if (!delta)
			continue;
		ret = record_fix(f, eb->start, true, old_off[i], btrfs_item_offset(eb, i),
				 "leaf %llu items %u-%u data offset (slot %u)",
				 (unsigned long long)eb->start, i, run - 1, i);
	}
out:
	free(whole);
	free(keys);
	free(off_whole);
	free(off_keys);
	return ret;
}

static void rewrite_csum(const struct btrfs_fs_info *fs_info, struct extent_buffer *eb)
{
	u8 digest[BTRFS_CSUM_SIZE];

	btrfs_csum_data(fs_info->csum_type, eb->data + BTRFS_CSUM_SIZE,
			eb->len - BTRFS_CSUM_SIZE, digest);
	memcpy(eb->data, digest, fs_info->csum_size);
}

/*
 * A block read as a node only because its parent says so: the node
 * checks (sorted keys, aligned pointers) say little of bytes that were a
 * leaf, so every pointer must also be mapped and no newer than the block.
 */
static bool node_pointers_plausible(const struct extent_buffer *eb)
{
	u64 gen = btrfs_eb_generation(eb);
	u32 i, nr = btrfs_eb_nritems(eb);

	for (i = 0; i < nr; i++) {
		u64 g = btrfs_node_ptr_generation(eb, i);

		if (!g || g > gen ||
		    !btrfs_num_copies(eb->fs_info, btrfs_node_blockptr(eb, i), eb->len))
			return false;
	}
	return true;
}

bool repair_block_content_sound(const struct btrfs_fs_info *fs_info,
				const struct extent_buffer *eb)
{
	struct tree_check_error terr;

	if (btrfs_eb_level(eb))
		return !btrfs_check_node(fs_info, eb, &terr) && node_pointers_plausible(eb);
	return !btrfs_check_leaf_layout(fs_info, eb, &terr) && !bad_items(fs_info, eb);
}

/* the checksum of @csum as the engine's messages show it */
static void csum_str(const struct btrfs_fs_info *fs_info, const u8 *csum, char *buf,
		     size_t len)
{
	u32 i;

	if (fs_info->csum_size == 4) {
		snprintf(buf, len, "0x%08x", get_unaligned_le32(csum));
		return;
	}
	snprintf(buf, len, "0x");
	for (i = 0; i < fs_info->csum_size && 2 + 2 * i + 2 < len; i++)
		snprintf(buf + 2 + 2 * i, len - 2 - 2 * i, "%02x", csum[i]);
}

/*
 * Why the block in @eb, whose checksum fails, is more than a block with a
 * wrong checksum; NULL when every other thing the block says is what its
 * parent (or root item) expects and its content passes the checks.
 */
static const char *not_csum_only(const struct btrfs_fs_info *fs_info,
				 const struct extent_buffer *eb,
				 const struct tree_block_check *check,
				 char *why, size_t len)
{
	const struct btrfs_header *h = eb_header((struct extent_buffer *)eb);
	struct tree_check_error terr;
	u32 i, nr = btrfs_eb_nritems(eb);

	if (btrfs_header_bytenr(h) != eb->start)
		snprintf(why, len, "its header bytenr is %llu",
			 (unsigned long long)btrfs_header_bytenr(h));
	else if (memcmp(h->fsid, fs_info->metadata_uuid, BTRFS_FSID_SIZE))
		snprintf(why, len, "its fsid is not the filesystem's");
	else if (memcmp(h->chunk_tree_uuid, fs_info->chunk_tree_uuid, BTRFS_UUID_SIZE))
		snprintf(why, len, "its chunk tree uuid is not the filesystem's");
	else if (!check || check->level < 0 || !check->transid)
		snprintf(why, len, "no parent pointer to compare it with");
	else if (btrfs_header_level(h) != check->level)
		snprintf(why, len, "its level is %u, its parent says %d",
			 btrfs_header_level(h), check->level);
	else if (btrfs_header_generation(h) != check->transid)
		snprintf(why, len, "its generation is %llu, its parent says %llu",
			 (unsigned long long)btrfs_header_generation(h),
			 (unsigned long long)check->transid);
	else if (check->owner && btrfs_header_owner(h) != check->owner)
		snprintf(why, len, "its owner is %llu, not %llu",
			 (unsigned long long)btrfs_header_owner(h),
			 (unsigned long long)check->owner);
	else if (!nr)
		snprintf(why, len, "it has no items");
	else if (btrfs_header_level(h) == 0 ? btrfs_check_leaf_layout(fs_info, eb, &terr) :
		 btrfs_check_node(fs_info, eb, &terr))
		snprintf(why, len, "%s", terr.msg);
	else
		why[0] = 0;
	if (why[0])
		return why;
	if (check->has_first_key) {
		struct btrfs_key first;

		if (btrfs_header_level(h) == 0)
			btrfs_item_key_to_cpu(eb, &first, 0);
		else
			btrfs_node_key_to_cpu(eb, &first, 0);
		if (btrfs_comp_cpu_keys(&first, &check->first_key)) {
			snprintf(why, len, "its first key (%llu %u %llu) is not its parent's (%llu %u %llu)",
				 (unsigned long long)first.objectid, first.type,
				 (unsigned long long)first.offset,
				 (unsigned long long)check->first_key.objectid,
				 check->first_key.type,
				 (unsigned long long)check->first_key.offset);
			return why;
		}
	}
	if (btrfs_header_level(h) > 0) {
		if (!node_pointers_plausible(eb)) {
			snprintf(why, len, "a pointer of it is unmapped or newer than the node");
			return why;
		}
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		if (btrfs_check_item(fs_info, eb, (int)i, &terr)) {
			snprintf(why, len, "item %u: %s", i, terr.msg);
			return why;
		}
	}
	return NULL;
}

static int note_refusal(struct repair_block_fixes *f, u64 bytenr, const char *why)
{
	struct repair_block_refusal *x = NULL;
	size_t i;

	for (i = 0; i < f->nr_refused; i++) {
		if (f->refused[i].bytenr == bytenr)
			x = &f->refused[i];
	}
	if (!x) {
		if (ARRAY_RESERVE(f->refused, f->alloc_refused, f->nr_refused + 1, 8))
			return -ENOMEM;
		x = &f->refused[f->nr_refused++];
		x->bytenr = bytenr;
	}
	snprintf(x->why, sizeof(x->why), "%s", why);
	return 0;
}

/*
 * The checksum is all that is wrong with @eb (e2fsck's answer to
 * metadata whose checksum alone fails): its header is the block its
 * parent points to and its content passes every check, so the bytes are
 * taken as written and the checksum recomputed.  The copy on write
 * writes it with a correct one.
 */
static int accept_csum_only(struct repair_block_fixes *f, const struct btrfs_fs_info *fs_info,
			    struct extent_buffer *eb, const struct tree_block_check *check)
{
	char why[sizeof(((struct repair_block_refusal *)0)->why)];
	char old_csum[2 * BTRFS_CSUM_SIZE + 3], new_csum[2 * BTRFS_CSUM_SIZE + 3];
	int ret;

	if (not_csum_only(fs_info, eb, check, why, sizeof(why))) {
		ret = note_refusal(f, eb->start, why);
		return ret ? ret : -EUCLEAN;
	}
	forget_fixes(f, eb->start);
	csum_str(fs_info, eb->data, old_csum, sizeof(old_csum));
	rewrite_csum(fs_info, eb);
	csum_str(fs_info, eb->data, new_csum, sizeof(new_csum));
	return record_fix(f, eb->start, false, 0, 0, "block %llu checksum recomputed: %s -> %s",
			  (unsigned long long)eb->start, old_csum, new_csum);
}

int repair_block_fixer(void *data, const struct btrfs_fs_info *fs_info,
		       struct extent_buffer *eb, const struct tree_block_check *check)
{
	struct repair_block_fixes *f = data;
	struct btrfs_header *h = eb_header(eb);
	struct tree_check_error terr;
	bool level_changed = false;
	int ret;

	if (!u64_in(f->allowed, f->nr_allowed, eb->start))
		return -EPERM;
	/*
	 * A block whose checksum fails is not mended: at most, when all of
	 * it is what its parent expects, its checksum is made right.
	 */
	if (!btrfs_tree_block_csum_ok(fs_info, eb->data, eb->len))
		return accept_csum_only(f, fs_info, eb, check);
	if (btrfs_header_bytenr(h) != eb->start ||
	    memcmp(h->fsid, fs_info->metadata_uuid, BTRFS_FSID_SIZE))
		return -EUCLEAN;
	if (check && check->owner && btrfs_header_owner(h) != check->owner)
		return -EUCLEAN;
	forget_fixes(f, eb->start);
	ret = 0;
	if (check && check->level >= 0 && btrfs_header_level(h) != check->level) {
		/* the layout check below decides whether the level was the lie */
		ret = record_fix(f, eb->start, true, btrfs_header_level(h), check->level,
				 "block %llu header level", (unsigned long long)eb->start);
		btrfs_set_header_level(h, check->level);
		level_changed = true;
	} else if (btrfs_header_level(h) >= BTRFS_MAX_LEVEL) {
		return -EUCLEAN;
	}
	if (!ret && check && check->transid && btrfs_header_generation(h) != check->transid) {
		/*
		 * Checksum, address and fsid are sound: the content is the
		 * block its parent points to, written with another
		 * generation.  It takes the one its parent expects; the copy
		 * on write gives it the current one.
		 */
		ret = record_fix(f, eb->start, true, btrfs_header_generation(h),
				 check->transid, "block %llu header generation",
				 (unsigned long long)eb->start);
		btrfs_set_header_generation(h, check->transid);
	}
	if (ret)
		return ret;
	if (btrfs_header_level(h) == 0) {
		if (btrfs_check_leaf_layout(fs_info, eb, &terr))
			ret = mend_leaf(f, fs_info, eb);
	} else if (btrfs_check_node(fs_info, eb, &terr)) {
		ret = mend_node(f, eb);
	}
	if (!ret && level_changed && btrfs_header_level(h) > 0 && !node_pointers_plausible(eb))
		ret = -EUCLEAN;
	/*
	 * A leaf with an item the checks reject is damaged beyond its
	 * header or layout: mending the rest would show its other items as
	 * new findings of their own.  It stays failed.
	 */
	if (!ret && btrfs_header_level(h) == 0 && bad_items(fs_info, eb))
		ret = -EUCLEAN;
	if (ret) {
		forget_fixes(f, eb->start);
		return ret;
	}
	rewrite_csum(fs_info, eb);
	return 0;
}

/* ---- TREE_BLOCK_INVALID: copy the block on write ---- */

/*
 * Where @bytenr hangs in @root: the key and level of the pointer to it,
 * looked for in the nodes only (no other leaf is read); the block itself
 * is read with its parent's expectations.  0 found, 1 not in this tree,
 * <0 error (-EUCLEAN: it fails verification and cannot be mended).
 */
static int find_parent_key(struct extent_buffer *node, u64 bytenr,
			   struct btrfs_key *key, int *level)
{
	u32 i, nr = btrfs_eb_nritems(node);
	int ret = 1, err;

	for (i = 0; i < nr; i++) {
		if (btrfs_node_blockptr(node, i) == bytenr) {
			struct extent_buffer *eb;

			/* read (and so mended) before its fixes are noted */
			eb = btrfs_read_node_slot(node, i, &err);
			if (!eb)
				return err;
			free_extent_buffer(eb);
			btrfs_node_key_to_cpu(node, key, i);
			*level = btrfs_eb_level(node) - 1;
			return 0;
		}
	}
	if (btrfs_eb_level(node) == 1)
		return 1;
	for (i = 0; i < nr && ret == 1; i++) {
		struct extent_buffer *child = btrfs_read_node_slot(node, i, &err);

		if (!child)
			return err;
		ret = find_parent_key(child, bytenr, key, level);
		free_extent_buffer(child);
	}
	return ret;
}

static void note_block_fixes(struct repair_ctx *r, u64 bytenr)
{
	struct repair_block_fixes *f = r->block_fixes;
	size_t i;

	for (i = 0; f && i < f->nr; i++) {
		if (f->v[i].bytenr == bytenr)
			repair_note(r, REPAIR_OP_CHANGE, f->v[i].has_values,
				    f->v[i].old_value, f->v[i].new_value, "%s",
				    f->v[i].what);
	}
}

/*
 * Copy @bytenr on write in tree @tree_id: 0 copied, 1 the
 * tree does not hold it, <0 error.  The fixes made to the block are noted
 * before its first copy only.
 */
static int cow_block_in_tree(struct repair_ctx *r, u64 tree_id, u64 bytenr, bool *noted)
{
	struct btrfs_root *root;
	struct btrfs_path path;
	struct btrfs_key key = { 0, 0, 0 };
	int level, ret;

	root = repair_get_root(r, tree_id);
	if (!root)
		return -ENOENT;
	if (root->node->start == bytenr) {
		level = btrfs_eb_level(root->node);
		if (btrfs_eb_nritems(root->node)) {
			if (level)
				btrfs_node_key_to_cpu(root->node, &key, 0);
			else
				btrfs_item_key_to_cpu(root->node, &key, 0);
		}
	} else if (btrfs_eb_level(root->node) == 0) {
		return 1;
	} else {
		ret = find_parent_key(root->node, bytenr, &key, &level);
		if (ret)
			return ret;
	}
	if (!*noted)
		note_block_fixes(r, bytenr);
	*noted = true;
	/* a rebuild: where the copy goes is known only when it is made */
	repair_note(r, REPAIR_OP_REBUILD, false, 0, 0,
		    "tree %llu block %llu (level %d): copied to a new address with the current generation",
		    (unsigned long long)tree_id, (unsigned long long)bytenr, level);
	btrfs_init_path(&path);
	path.lowest_level = level;
	ret = btrfs_search_slot(r->trans, root, &key, &path, 0, 1);
	if (ret >= 0) {
		struct extent_buffer *eb = path.nodes[level];

		/* the copy: a new block of this transaction */
		ret = eb && eb->start != bytenr &&
		      btrfs_eb_generation(eb) == r->trans->transid ? 0 : -EIO;
	}
	btrfs_release_path(&path);
	/* a copy that failed half way must not be committed */
	if (ret)
		repair_fail_pass(r, ret);
	return ret;
}

/*
 * The subvolume trees other than @except, live ones (a snapshot shares
 * blocks with its source: a mended block shared by several trees is
 * copied in each, or the others keep reading the damaged one).
 */
int repair_other_subvol_trees(struct repair_ctx *r, u64 except, u64 **ids, size_t *nr)
{
	struct btrfs_root *root = &r->fs_info->tree_root;
	struct btrfs_key key = { BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	size_t alloc = 0;
	int ret;

	*ids = NULL;
	*nr = 0;
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		const struct btrfs_root_item *ri;

		btrfs_path_key(&path, &key);
		if (key.objectid > BTRFS_LAST_FREE_OBJECTID)
			break;
		if (key.type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_subvol_tree(key.objectid) ||
		    key.objectid == except ||
		    btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*ri))
			goto next;
		ri = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_root_item);
		if (!btrfs_root_refs(ri))
			goto next;
		if (ARRAY_RESERVE(*ids, alloc, *nr + 1, 8)) {
			ret = -ENOMEM;
			break;
		}
		(*ids)[(*nr)++] = key.objectid;
next:
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

int repair_tree_block(struct repair_ctx *r, const struct problem_ctx *p)
{
	bool noted = false;
	u64 *ids = NULL;
	size_t nr = 0, i;
	int ret;

	/* copying an empty leaf does not give it items */
	if (p->detail && strstr(p->detail, "has no items"))
		return -EOPNOTSUPP;
	/*
	 * A subvolume block owned by a tree that is no subvolume: which
	 * references it holds cannot be told, and copying it would drop
	 * the wrong ones.
	 */
	if (p->detail && !strncmp(p->detail, "owner ", 6) && btrfs_is_subvol_tree(p->root))
		return -EOPNOTSUPP;
	/* the parent's key is what changes, not the block */
	if (p->detail && strstr(p->detail, "first key mismatch"))
		return repair_first_key(r, p);
	if (r->block_fixes && u64_in(r->block_fixes->cowed, r->block_fixes->nr_cowed,
				     p->block))
		return 1;
	ret = cow_block_in_tree(r, p->root, p->block, &noted);
	if (ret)
		return ret < 0 ? ret : -ENOENT;
	if (btrfs_is_subvol_tree(p->root)) {
		ret = repair_other_subvol_trees(r, p->root, &ids, &nr);
		for (i = 0; !ret && i < nr; i++) {
			ret = cow_block_in_tree(r, ids[i], p->block, &noted);
			if (ret == 1 || ret == -ENOENT)
				ret = 0;
		}
		free(ids);
		if (ret)
			return ret;
	}
	if (r->block_fixes &&
	    !ARRAY_RESERVE(r->block_fixes->cowed, r->block_fixes->alloc_cowed,
			   r->block_fixes->nr_cowed + 1, 8))
		r->block_fixes->cowed[r->block_fixes->nr_cowed++] = p->block;
	return 0;
}

/* ---- TREE_ITEM_INVALID ---- */

/*
 * Only a skinny metadata item whose key offset (the block's level) is not
 * a level: it takes the level of the block it describes, read from the
 * block's header.
 */
static int fix_metadata_item_level(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = &r->fs_info->extent_root;
	struct btrfs_key key = p->key;
	struct extent_buffer *eb;
	struct btrfs_path path;
	char ks[96];
	int ret, err;

	eb = read_tree_block_header_only(r->fs_info, key.objectid, NULL, &err);
	if (!eb)
		return err;
	key.offset = btrfs_eb_level(eb);
	free_extent_buffer(eb);
	/* no item of that key may exist already */
	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	if (ret <= 0)
		return ret < 0 ? ret : -EEXIST;
	repair_key_str(&p->key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_CHANGE, true, p->key.offset, key.offset,
		    "extent tree %s key offset (the level of block %llu)", ks,
		    (unsigned long long)key.objectid);
	ret = repair_search(r, root, &p->key, &path);
	if (ret == 0)
		ret = btrfs_set_item_key_safe(r->trans, root, &path, &key);
	btrfs_release_path(&path);
	return ret > 0 ? -ENOENT : ret;
}

int repair_tree_item(struct repair_ctx *r, const struct problem_ctx *p)
{
	if (p->root == BTRFS_EXTENT_TREE_OBJECTID &&
	    p->key.type == BTRFS_METADATA_ITEM_KEY && p->key.offset >= BTRFS_MAX_LEVEL)
		return fix_metadata_item_level(r, p);
	return -EOPNOTSUPP;
}

/* ---- FS_TREE_UNKNOWN_KEY ---- */

/*
 * An item of a type no kernel defines: nothing reads it (the kernel
 * skips it, a user cannot reach it), btrfs check calls it an error; it
 * goes.
 */
int repair_unknown_key(struct repair_ctx *r, const struct problem_ctx *p)
{
	struct btrfs_root *root = repair_get_root(r, p->root);
	struct btrfs_path path;
	char ks[96];
	u32 size;
	int ret;

	if (!root)
		return -ENOENT;
	ret = repair_search(r, root, &p->key, &path);
	if (ret) {
		btrfs_release_path(&path);
		return ret < 0 ? ret : 1;
	}
	size = btrfs_item_size(path.nodes[0], path.slots[0]);
	repair_key_str(&p->key, ks, sizeof(ks));
	repair_note(r, REPAIR_OP_DELETE, false, 0, 0, "root %llu item %s (%u bytes)",
		    (unsigned long long)p->root, ks, size);
	ret = btrfs_del_item(r->trans, root, &path);
	btrfs_release_path(&path);
	return ret;
}

/* ---- TREE_BLOCK_UNREADABLE: a block whose checksum alone is wrong ---- */

static const char *refusal_of(const struct repair_block_fixes *f, u64 bytenr)
{
	size_t i;

	for (i = 0; f && i < f->nr_refused; i++) {
		if (f->refused[i].bytenr == bytenr)
			return f->refused[i].why;
	}
	return NULL;
}

/* the finding's message says why the checksum was not recomputed */
static void add_refusal(struct repair_ctx *r, const char *why)
{
	static const char sep[] = "; checksum not recomputed: ";
	size_t len;
	char *msg;

	if (!r->cur || !why || !r->cur->message || strstr(r->cur->message, why))
		return;
	len = strlen(r->cur->message) + sizeof(sep) + strlen(why);
	msg = malloc(len);
	if (!msg)
		return;
	snprintf(msg, len, "%s%s%s", r->cur->message, sep, why);
	free(r->cur->message);
	r->cur->message = msg;
}

/*
 * Only a block the fixer took as written (its checksum the one thing
 * wrong) is copied on write, as a mended one is; any other unreadable
 * block stays, with the reason it was not taken.
 */
int repair_tree_block_csum(struct repair_ctx *r, const struct problem_ctx *p)
{
	int ret;

	if (!p->detail || !strstr(p->detail, "checksum verify failed"))
		return -EOPNOTSUPP;
	ret = repair_tree_block(r, p);
	if (ret < 0)
		add_refusal(r, refusal_of(r->block_fixes, p->block));
	return ret;
}
