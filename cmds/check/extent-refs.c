// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing extent items and keyed back references.
 *
 * Inline references follow the extent item header (and, for non-skinny
 * tree blocks, the tree block info).  btrfs keeps them sorted: by type
 * ascending, and within one type by "sequence" descending, where the
 * sequence is the offset field (root or parent) or, for keyed data refs,
 * the hash of (root, inode, offset) that also serves as their key offset.
 * A reader that trusts this order (the kernel's lookup does) misses
 * references that break it, so the order is checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "extent-refs.h"
#include "extent-tally.h"
#include "kernel-shared/disk-io.h"
#include "crc32c.h"

bool is_keyed_backref_type(u8 type)
{
	return type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY ||
	       type == BTRFS_EXTENT_DATA_REF_KEY || type == BTRFS_SHARED_DATA_REF_KEY;
}

u64 extent_data_ref_hash(u64 root, u64 objectid, u64 offset)
{
	u32 high, low;
	le64 v;

	v = htole64(root);
	high = crc32c(~0U, &v, sizeof(v));
	v = htole64(objectid);
	low = crc32c(~0U, &v, sizeof(v));
	v = htole64(offset);
	low = crc32c(low, &v, sizeof(v));
	return ((u64)high << 31) ^ (u64)low;
}

u64 backref_ident(const struct backref *ref)
{
	return tally_ref_ident(ref->type, ref->a, ref->b, ref->c, ref->len);
}

int backref_cmp(const struct backref *x, const struct backref *y)
{
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP(type);
	CMP(a);
	CMP(b);
	CMP(c);
	CMP(len);
#undef CMP
	return 0;
}

void backref_describe(const struct backref *ref, char *buf, size_t len)
{
	unsigned long long a = ref->a;

	switch (ref->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		snprintf(buf, len, "tree block ref root %llu", a);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		snprintf(buf, len, "shared block ref parent %llu", a);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		snprintf(buf, len, "data ref root %llu inode %llu offset %llu", a,
			 (unsigned long long)ref->b, (unsigned long long)ref->c);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		snprintf(buf, len, "shared data ref parent %llu", a);
		break;
	default:
		snprintf(buf, len, "ref type %u offset %llu", ref->type, a);
		break;
	}
}

__attribute__((format(printf, 2, 3)))
static void set_why(struct extent_info *info, const char *fmt, ...)
{
	va_list ap;

	if (info->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(info->why, sizeof(info->why), fmt, ap);
	va_end(ap);
}

/* the header: refs, generation, flags, level; false when unusable */
static bool parse_header(const struct btrfs_fs_info *fs_info, const u8 *p, u32 size,
			 const struct btrfs_key *key, struct extent_info *info,
			 u32 *cur)
{
	const struct btrfs_extent_item *ei = (const void *)p;
	u64 max_gen = fs_info->generation + 1;
	u64 known = BTRFS_EXTENT_FLAG_DATA | BTRFS_EXTENT_FLAG_TREE_BLOCK |
		    BTRFS_BLOCK_FLAG_FULL_BACKREF;

	if (size < sizeof(*ei)) {
		set_why(info, size == sizeof(struct btrfs_extent_item_v0) ?
			"legacy v0 extent item, not supported" :
			"item size %u, too small for an extent item", size);
		return false;
	}
	info->refs = btrfs_extent_refs(ei);
	info->generation = btrfs_extent_generation(ei);
	info->flags = btrfs_extent_flags(ei);
	info->tree_block = info->skinny || (info->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK);
	*cur = sizeof(*ei);
	if (info->flags & ~known)
		set_why(info, "unknown flags 0x%llx", (unsigned long long)info->flags);
	if (!(info->flags & BTRFS_EXTENT_FLAG_DATA) ==
	    !(info->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		set_why(info, "flags 0x%llx, expect exactly one of DATA and TREE_BLOCK",
			(unsigned long long)info->flags);
	if (info->skinny && !(info->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
		set_why(info, "metadata item without the TREE_BLOCK flag");
	if ((info->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF) && !info->tree_block)
		set_why(info, "FULL_BACKREF flag on a data extent");
	if (info->generation > max_gen)
		set_why(info, "invalid generation, have %llu expect (0, %llu]",
			(unsigned long long)info->generation, (unsigned long long)max_gen);
	if (!info->refs)
		set_why(info, "refs is 0");
	if (key->type == BTRFS_EXTENT_ITEM_KEY && info->tree_block) {
		const struct btrfs_tree_block_info *tbi;

		if (size < *cur + sizeof(*tbi)) {
			set_why(info, "item size %u, too small for a tree block extent", size);
			return false;
		}
		tbi = (const void *)(p + *cur);
		info->level = btrfs_tree_block_level(tbi);
		*cur += sizeof(*tbi);
		if (key->offset != fs_info->nodesize)
			set_why(info, "tree block length %llu, expect nodesize %u",
				(unsigned long long)key->offset, fs_info->nodesize);
	}
	if (info->tree_block && (info->level < 0 || info->level >= BTRFS_MAX_LEVEL))
		set_why(info, "bad backref level, has %d expect [0, %d]", info->level,
			BTRFS_MAX_LEVEL - 1);
	if (!info->tree_block && (!info->len || info->len % fs_info->sectorsize))
		set_why(info, "data extent length %llu, expect a non-zero multiple of %u",
			(unsigned long long)info->len, fs_info->sectorsize);
	return true;
}

/* one inline ref at @iref (its size checked); its order sequence in *seq */
static void inline_ref_read(const u8 *iref, const struct extent_info *info,
			    struct backref *ref, u64 *seq)
{
	u8 type = iref[0];

	memset(ref, 0, sizeof(*ref));
	ref->type = type;
	ref->count = 1;
	if (type == BTRFS_EXTENT_DATA_REF_KEY) {
		const struct btrfs_extent_data_ref *dref = (const void *)(iref + 1);

		ref->a = btrfs_extent_data_ref_root(dref);
		ref->b = btrfs_extent_data_ref_objectid(dref);
		ref->c = btrfs_extent_data_ref_offset(dref);
		ref->count = btrfs_extent_data_ref_count(dref);
		*seq = extent_data_ref_hash(ref->a, ref->b, ref->c);
	} else {
		ref->a = get_unaligned_le64(iref + 1);
		*seq = ref->a;
		if (type == BTRFS_SHARED_DATA_REF_KEY)
			ref->count = get_unaligned_le32(iref + 9);
	}
	if (type == BTRFS_EXTENT_DATA_REF_KEY || type == BTRFS_SHARED_DATA_REF_KEY)
		ref->len = info->len;
}

static bool inline_type_fits(u8 type, bool tree_block)
{
	if (tree_block)
		return type == BTRFS_TREE_BLOCK_REF_KEY || type == BTRFS_SHARED_BLOCK_REF_KEY;
	return type == BTRFS_EXTENT_DATA_REF_KEY || type == BTRFS_SHARED_DATA_REF_KEY ||
	       type == BTRFS_EXTENT_OWNER_REF_KEY;
}

static void parse_inline_refs(const u8 *p, u32 size, u32 cur,
			      struct extent_info *info, backref_fn fn, void *data)
{
	u8 last_type = 0;
	u64 last_seq = (u64)-1;

	while (cur < size) {
		u8 type = p[cur];
		u32 rsize = btrfs_extent_inline_ref_size(type);
		struct backref ref;
		u64 seq;

		if (!rsize) {
			set_why(info, "unknown inline ref type %u at offset %u", type, cur);
			return;
		}
		if (rsize > size - cur) {
			set_why(info, "inline ref type %u at offset %u overflows the item (size %u)",
				type, cur, size);
			return;
		}
		inline_ref_read(p + cur, info, &ref, &seq);
		if (!inline_type_fits(type, info->tree_block))
			set_why(info, "inline ref type %u does not belong to a %s extent",
				type, info->tree_block ? "tree block" : "data");
		if (type < last_type)
			set_why(info, "inline ref out of order: type %u after type %u",
				type, last_type);
		else if (type == last_type && seq > last_seq)
			set_why(info, "inline ref out of order: type %u sequence 0x%llx after 0x%llx",
				type, (unsigned long long)seq, (unsigned long long)last_seq);
		if (type != last_type)
			last_seq = (u64)-1;
		if (type >= last_type) {
			last_type = type;
			last_seq = seq;
		}
		if (!ref.count)
			set_why(info, "inline %s ref with count 0",
				type == BTRFS_SHARED_DATA_REF_KEY ? "shared data" : "data");
		if (type != BTRFS_EXTENT_OWNER_REF_KEY) {
			info->ref_count += ref.count;
			if (fn)
				fn(data, &ref);
		}
		cur += rsize;
	}
}

int extent_item_parse(const struct btrfs_fs_info *fs_info,
		      const struct extent_buffer *leaf, int slot,
		      const struct btrfs_key *key, struct extent_info *info,
		      backref_fn fn, void *data)
{
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	u32 size = btrfs_item_size(leaf, slot);
	u32 cur;

	memset(info, 0, sizeof(*info));
	info->bytenr = key->objectid;
	info->skinny = key->type == BTRFS_METADATA_ITEM_KEY;
	info->len = info->skinny ? fs_info->nodesize : key->offset;
	info->level = -1;
	if (info->skinny)
		info->level = key->offset > 0xffff ? 0xffff : (int)key->offset;
	if (!parse_header(fs_info, p, size, key, info, &cur))
		return -EUCLEAN;
	parse_inline_refs(p, size, cur, info, fn, data);
	return 0;
}

int keyed_backref_parse(const struct extent_buffer *leaf, int slot,
			const struct btrfs_key *key, u64 extent_len,
			struct backref *ref, char *why, size_t why_len)
{
	u32 size = btrfs_item_size(leaf, slot);
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);

	memset(ref, 0, sizeof(*ref));
	ref->type = key->type;
	ref->a = key->offset;
	ref->count = 1;
	switch (key->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
		if (size) {
			snprintf(why, why_len, "item size %u, expect 0", size);
			return -EUCLEAN;
		}
		return 0;
	case BTRFS_EXTENT_DATA_REF_KEY: {
		const struct btrfs_extent_data_ref *dref = (const void *)p;

		ref->len = extent_len;
		if (size != sizeof(*dref)) {
			snprintf(why, why_len, "item size %u, expect %zu", size, sizeof(*dref));
			return -EUCLEAN;
		}
		ref->a = btrfs_extent_data_ref_root(dref);
		ref->b = btrfs_extent_data_ref_objectid(dref);
		ref->c = btrfs_extent_data_ref_offset(dref);
		ref->count = btrfs_extent_data_ref_count(dref);
		if (key->offset != extent_data_ref_hash(ref->a, ref->b, ref->c)) {
			snprintf(why, why_len, "key offset 0x%llx is not the hash 0x%llx of its reference",
				 (unsigned long long)key->offset,
				 (unsigned long long)extent_data_ref_hash(ref->a, ref->b, ref->c));
			return -EUCLEAN;
		}
		break;
	}
	case BTRFS_SHARED_DATA_REF_KEY:
		ref->len = extent_len;
		if (size != sizeof(struct btrfs_shared_data_ref)) {
			snprintf(why, why_len, "item size %u, expect %zu", size,
				 sizeof(struct btrfs_shared_data_ref));
			return -EUCLEAN;
		}
		ref->count = get_unaligned_le32(p);
		break;
	default:
		snprintf(why, why_len, "not a back reference");
		return -EUCLEAN;
	}
	if (!ref->count) {
		snprintf(why, why_len, "count is 0");
		return -EUCLEAN;
	}
	return 0;
}
