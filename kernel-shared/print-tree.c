// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block printing: block headers, keys and their names, and the walk
 * over the children of a node (breadth first or depth first).  The text
 * layout is the one of btrfs-progs 6.2 "inspect-internal dump-tree", line
 * for line; the item bodies live in print-tree-items.c and the JSON form
 * in print-tree-json.c.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include "print-tree.h"
#include "print-tree-internal.h"
#include "extent_io.h"
#include "disk-io.h"
#include "ctree.h"

void btrfs_printer_init(struct btrfs_printer *p, FILE *out,
			struct btrfs_fs_info *fs_info, unsigned int mode)
{
	memset(p, 0, sizeof(*p));
	p->out = out;
	p->fs_info = fs_info;
	p->mode = mode;
	p->format = BTRFS_PRINT_FORMAT_TEXT;
	if (fs_info) {
		p->nodesize = fs_info->nodesize;
		p->sectorsize = fs_info->sectorsize;
		p->csum_size = fs_info->csum_size;
		p->csum_type = fs_info->csum_type;
		p->rep = fs_info->reporter;
	} else {
		p->nodesize = 16384;
		p->sectorsize = 4096;
		p->csum_size = 4;
	}
}

/* ---- names ---- */

static const char *const key_type_names[256] = {
	[BTRFS_INODE_ITEM_KEY]		= "INODE_ITEM",
	[BTRFS_INODE_REF_KEY]		= "INODE_REF",
	[BTRFS_INODE_EXTREF_KEY]	= "INODE_EXTREF",
	[BTRFS_XATTR_ITEM_KEY]		= "XATTR_ITEM",
	[BTRFS_VERITY_DESC_ITEM_KEY]	= "VERITY_DESC_ITEM",
	[BTRFS_VERITY_MERKLE_ITEM_KEY]	= "VERITY_MERKLE_ITEM",
	[BTRFS_ORPHAN_ITEM_KEY]		= "ORPHAN_ITEM",
	[BTRFS_DIR_LOG_ITEM_KEY]	= "DIR_LOG_ITEM",
	[BTRFS_DIR_LOG_INDEX_KEY]	= "DIR_LOG_INDEX",
	[BTRFS_DIR_ITEM_KEY]		= "DIR_ITEM",
	[BTRFS_DIR_INDEX_KEY]		= "DIR_INDEX",
	[BTRFS_EXTENT_DATA_KEY]		= "EXTENT_DATA",
	[BTRFS_CSUM_ITEM_KEY]		= "CSUM_ITEM",
	[BTRFS_EXTENT_CSUM_KEY]		= "EXTENT_CSUM",
	[BTRFS_ROOT_ITEM_KEY]		= "ROOT_ITEM",
	[BTRFS_ROOT_BACKREF_KEY]	= "ROOT_BACKREF",
	[BTRFS_ROOT_REF_KEY]		= "ROOT_REF",
	[BTRFS_EXTENT_ITEM_KEY]		= "EXTENT_ITEM",
	[BTRFS_METADATA_ITEM_KEY]	= "METADATA_ITEM",
	[BTRFS_TREE_BLOCK_REF_KEY]	= "TREE_BLOCK_REF",
	[BTRFS_EXTENT_DATA_REF_KEY]	= "EXTENT_DATA_REF",
	[BTRFS_EXTENT_REF_V0_KEY]	= "EXTENT_REF_V0",
	[BTRFS_SHARED_BLOCK_REF_KEY]	= "SHARED_BLOCK_REF",
	[BTRFS_SHARED_DATA_REF_KEY]	= "SHARED_DATA_REF",
	[BTRFS_BLOCK_GROUP_ITEM_KEY]	= "BLOCK_GROUP_ITEM",
	[BTRFS_FREE_SPACE_INFO_KEY]	= "FREE_SPACE_INFO",
	[BTRFS_FREE_SPACE_EXTENT_KEY]	= "FREE_SPACE_EXTENT",
	[BTRFS_FREE_SPACE_BITMAP_KEY]	= "FREE_SPACE_BITMAP",
	[BTRFS_DEV_EXTENT_KEY]		= "DEV_EXTENT",
	[BTRFS_DEV_ITEM_KEY]		= "DEV_ITEM",
	[BTRFS_CHUNK_ITEM_KEY]		= "CHUNK_ITEM",
	[BTRFS_QGROUP_STATUS_KEY]	= "QGROUP_STATUS",
	[BTRFS_QGROUP_INFO_KEY]		= "QGROUP_INFO",
	[BTRFS_QGROUP_LIMIT_KEY]	= "QGROUP_LIMIT",
	[BTRFS_QGROUP_RELATION_KEY]	= "QGROUP_RELATION",
	[BTRFS_TEMPORARY_ITEM_KEY]	= "TEMPORARY_ITEM",
	[BTRFS_PERSISTENT_ITEM_KEY]	= "PERSISTENT_ITEM",
	[BTRFS_DEV_REPLACE_KEY]		= "DEV_REPLACE",
	[BTRFS_UUID_KEY_SUBVOL]		= "UUID_KEY_SUBVOL",
	[BTRFS_UUID_KEY_RECEIVED_SUBVOL] = "UUID_KEY_RECEIVED_SUBVOL",
	[BTRFS_STRING_ITEM_KEY]		= "STRING_ITEM",
};

const char *btrfs_key_type_name(u64 objectid, u8 type)
{
	/* the v1 free space cache headers in the root tree have type 0 */
	if (type == 0 && objectid == BTRFS_FREE_SPACE_OBJECTID)
		return "UNTYPED";
	return key_type_names[type];
}

/* well-known object ids that keep their name whatever the key type */
static const char *fixed_objectid_name(u64 objectid)
{
	switch (objectid) {
	case BTRFS_EXTENT_TREE_OBJECTID:	return "EXTENT_TREE";
	case BTRFS_CHUNK_TREE_OBJECTID:		return "CHUNK_TREE";
	case BTRFS_DEV_TREE_OBJECTID:		return "DEV_TREE";
	case BTRFS_FS_TREE_OBJECTID:		return "FS_TREE";
	case BTRFS_ROOT_TREE_DIR_OBJECTID:	return "ROOT_TREE_DIR";
	case BTRFS_CSUM_TREE_OBJECTID:		return "CSUM_TREE";
	case BTRFS_QUOTA_TREE_OBJECTID:		return "QUOTA_TREE";
	case BTRFS_UUID_TREE_OBJECTID:		return "UUID_TREE";
	case BTRFS_FREE_SPACE_TREE_OBJECTID:	return "FREE_SPACE_TREE";
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:	return "BLOCK_GROUP_TREE";
	case BTRFS_BALANCE_OBJECTID:		return "BALANCE";
	case BTRFS_ORPHAN_OBJECTID:		return "ORPHAN";
	case BTRFS_TREE_LOG_OBJECTID:		return "TREE_LOG";
	case BTRFS_TREE_LOG_FIXUP_OBJECTID:	return "LOG_FIXUP";
	case BTRFS_TREE_RELOC_OBJECTID:		return "TREE_RELOC";
	case BTRFS_DATA_RELOC_TREE_OBJECTID:	return "DATA_RELOC_TREE";
	case BTRFS_EXTENT_CSUM_OBJECTID:	return "EXTENT_CSUM";
	case BTRFS_FREE_SPACE_OBJECTID:		return "FREE_SPACE";
	case BTRFS_FREE_INO_OBJECTID:		return "FREE_INO";
	case BTRFS_MULTIPLE_OBJECTIDS:		return "MULTIPLE";
	case (u64)-1:				return "-1";
	}
	return NULL;
}

const char *btrfs_objectid_name(u64 objectid, u8 type)
{
	switch (type) {
	case BTRFS_PERSISTENT_ITEM_KEY:
		return objectid == BTRFS_DEV_STATS_OBJECTID ? "DEV_STATS" : NULL;
	case BTRFS_DEV_EXTENT_KEY:
	case BTRFS_QGROUP_RELATION_KEY:
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		return NULL;
	}
	/* 1 is both the root tree and the device items of the chunk tree */
	if (objectid == BTRFS_ROOT_TREE_OBJECTID)
		return type == BTRFS_DEV_ITEM_KEY ? "DEV_ITEMS" : "ROOT_TREE";
	if (objectid == BTRFS_FIRST_CHUNK_TREE_OBJECTID)
		return type == BTRFS_CHUNK_ITEM_KEY ? "FIRST_CHUNK_TREE" : NULL;
	return fixed_objectid_name(objectid);
}

static u64 qgroup_level(u64 qgroupid)
{
	return qgroupid >> 48;
}

static u64 qgroup_subvolid(u64 qgroupid)
{
	return qgroupid & ((1ULL << 48) - 1);
}

void btrfs_print_objectid(FILE *out, u64 objectid, u8 type)
{
	const char *name;

	switch (type) {
	case BTRFS_QGROUP_RELATION_KEY:
		fprintf(out, "%llu/%llu", (unsigned long long)qgroup_level(objectid),
			(unsigned long long)qgroup_subvolid(objectid));
		return;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		fprintf(out, "0x%016llx", (unsigned long long)objectid);
		return;
	}
	name = btrfs_objectid_name(objectid, type);
	if (name)
		fputs(name, out);
	else
		out_u64(out, objectid);
}

void btrfs_print_key_type(FILE *out, u64 objectid, u8 type)
{
	const char *name = btrfs_key_type_name(objectid, type);

	if (name)
		fputs(name, out);
	else
		fprintf(out, "UNKNOWN.%d", type);
}

void btrfs_print_key(FILE *out, const struct btrfs_disk_key *key)
{
	u64 objectid = btrfs_disk_key_objectid(key);
	u8 type = btrfs_disk_key_type(key);
	u64 offset = btrfs_disk_key_offset(key);

	fputs("key (", out);
	btrfs_print_objectid(out, objectid, type);
	putc_unlocked(' ', out);
	btrfs_print_key_type(out, objectid, type);
	switch (type) {
	case BTRFS_QGROUP_RELATION_KEY:
	case BTRFS_QGROUP_INFO_KEY:
	case BTRFS_QGROUP_LIMIT_KEY:
		fprintf(out, " %u/%llu)", (unsigned int)qgroup_level(offset),
			(unsigned long long)qgroup_subvolid(offset));
		return;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		fprintf(out, " 0x%016llx)", (unsigned long long)offset);
		return;
	case BTRFS_ROOT_ITEM_KEY:
		/* a relocation tree's offset is the id of the tree it relocates */
		putc_unlocked(' ', out);
		if (objectid == BTRFS_TREE_RELOC_OBJECTID)
			btrfs_print_objectid(out, offset, type);
		else
			out_u64(out, offset);
		putc_unlocked(')', out);
		return;
	}
	if (offset == (u64)-1) {
		fputs(" -1)", out);
		return;
	}
	putc_unlocked(' ', out);
	out_u64(out, offset);
	putc_unlocked(')', out);
}

/* ---- small formatting helpers ---- */

void out_u64(FILE *out, u64 v)
{
	char buf[24];
	char *s = buf + sizeof(buf);

	do {
		*--s = '0' + v % 10;
		v /= 10;
	} while (v);
	fwrite_unlocked(s, 1, buf + sizeof(buf) - s, out);
}

void btrfs_format_uuid(const u8 *uuid, char *out)
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = 0; i < BTRFS_UUID_SIZE; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*out++ = '-';
		*out++ = hex[uuid[i] >> 4];
		*out++ = hex[uuid[i] & 15];
	}
	*out = 0;
}

void btrfs_bg_flags_to_str(u64 flags, char *buf)
{
	u64 profile = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	const char *sep = "";
	int len = 0;

	buf[0] = 0;
	if (flags & BTRFS_BLOCK_GROUP_DATA) {
		len += snprintf(buf + len, BTRFS_BG_FLAGS_STR_LEN - len, "DATA");
		sep = "|";
	}
	if (flags & BTRFS_BLOCK_GROUP_METADATA) {
		len += snprintf(buf + len, BTRFS_BG_FLAGS_STR_LEN - len, "%sMETADATA", sep);
		sep = "|";
	}
	if (flags & BTRFS_BLOCK_GROUP_SYSTEM)
		len += snprintf(buf + len, BTRFS_BG_FLAGS_STR_LEN - len, "%sSYSTEM", sep);
	/* the profile always follows a bar, even with no type bit before it */
	switch (profile) {
	case 0:
		snprintf(buf + len, BTRFS_BG_FLAGS_STR_LEN - len, "|single");
		break;
	case BTRFS_BLOCK_GROUP_RAID0:
	case BTRFS_BLOCK_GROUP_RAID1:
	case BTRFS_BLOCK_GROUP_DUP:
	case BTRFS_BLOCK_GROUP_RAID10:
	case BTRFS_BLOCK_GROUP_RAID5:
	case BTRFS_BLOCK_GROUP_RAID6:
	case BTRFS_BLOCK_GROUP_RAID1C3:
	case BTRFS_BLOCK_GROUP_RAID1C4:
		snprintf(buf + len, BTRFS_BG_FLAGS_STR_LEN - len, "|%s",
			 btrfs_profile_name(profile));
		break;
	default:
		snprintf(buf + len, BTRFS_BG_FLAGS_STR_LEN - len,
			 "|UNKNOWN.0x%llx", (unsigned long long)profile);
	}
}

const char *btrfs_profile_name(u64 profile)
{
	switch (profile) {
	case 0:				return "single";
	case BTRFS_BLOCK_GROUP_RAID0:	return "RAID0";
	case BTRFS_BLOCK_GROUP_RAID1:	return "RAID1";
	case BTRFS_BLOCK_GROUP_DUP:	return "DUP";
	case BTRFS_BLOCK_GROUP_RAID10:	return "RAID10";
	case BTRFS_BLOCK_GROUP_RAID5:	return "RAID5";
	case BTRFS_BLOCK_GROUP_RAID6:	return "RAID6";
	case BTRFS_BLOCK_GROUP_RAID1C3:	return "RAID1C3";
	case BTRFS_BLOCK_GROUP_RAID1C4:	return "RAID1C4";
	}
	return NULL;
}

/*
 * "SEC.NSEC (YYYY-MM-DD HH:MM:SS)" in local time, as progs prints it.
 * Consecutive inodes mostly share their seconds, so the last conversion
 * is kept.
 */
const char *btrfs_format_time(struct btrfs_printer *p, u64 sec)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (p->time_cache_valid && p->time_cache_sec == (s64)sec)
		return p->time_cache;
	if (!localtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	if (!strftime(p->time_cache, sizeof(p->time_cache),
		      "%Y-%m-%d %H:%M:%S", &tm))
		p->time_cache[0] = 0;
	p->time_cache_sec = (s64)sec;
	p->time_cache_valid = true;
	return p->time_cache;
}

/* ---- block headers ---- */

static void header_flags_to_str(u64 flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s",
		 (flags & BTRFS_HEADER_FLAG_WRITTEN) ? "WRITTEN" : "",
		 ((flags & BTRFS_HEADER_FLAG_WRITTEN) &&
		  (flags & BTRFS_HEADER_FLAG_RELOC)) ? "|" : "",
		 (flags & BTRFS_HEADER_FLAG_RELOC) ? "RELOC" : "");
}

/*
 * Free space of a leaf the way progs computes it: from the first and last
 * item only, in int arithmetic, so a corrupted leaf gives the same odd
 * number.  Only item headers that lie inside the block are looked at.
 */
int btrfs_print_leaf_free_space(const struct btrfs_printer *p,
				const struct extent_buffer *eb)
{
	u32 data_size = btrfs_leaf_data_size(eb->len);
	u32 nr = btrfs_eb_nritems(eb);
	u32 used;

	if (nr == 0)
		return (int)data_size;
	if (nr > btrfs_print_max_items(eb))
		return 0;
	used = btrfs_item_offset(eb, 0) + btrfs_item_size(eb, 0) -
	       btrfs_item_offset(eb, nr - 1);
	used += (u32)sizeof(struct btrfs_item) * nr;
	(void)p;
	return (int)(data_size - used);
}

u32 btrfs_print_max_items(const struct extent_buffer *eb)
{
	return btrfs_leaf_data_size(eb->len) / sizeof(struct btrfs_item);
}

static void print_header_info(struct btrfs_printer *p,
			      const struct extent_buffer *eb)
{
	const struct btrfs_header *h = eb_header(eb);
	u64 flags = btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK;
	int backref_rev = (int)(btrfs_header_flags(h) >> BTRFS_BACKREF_REV_SHIFT);
	u32 nr = btrfs_header_nritems(h);
	int level = btrfs_header_level(h);
	char fsid[BTRFS_UUID_UNPARSED_SIZE];
	char chunk_uuid[BTRFS_UUID_UNPARSED_SIZE];
	char flags_str[32];
	FILE *out = p->out;
	u32 i;

	if (level)
		fprintf(out, "node %llu level %d items %u free space %u generation %llu owner ",
			(unsigned long long)eb->start, level, nr,
			btrfs_max_node_ptrs(eb->len) - nr,
			(unsigned long long)btrfs_header_generation(h));
	else
		fprintf(out, "leaf %llu items %u free space %d generation %llu owner ",
			(unsigned long long)btrfs_header_bytenr(h), nr,
			btrfs_print_leaf_free_space(p, eb),
			(unsigned long long)btrfs_header_generation(h));
	btrfs_print_objectid(out, btrfs_header_owner(h), 0);
	putc_unlocked('\n', out);

	header_flags_to_str(flags, flags_str, sizeof(flags_str));
	fprintf(out, "%s %llu flags 0x%llx(%s) backref revision %d",
		level ? "node" : "leaf",
		(unsigned long long)btrfs_header_bytenr(h),
		(unsigned long long)flags, flags_str, backref_rev);
	if (p->mode & BTRFS_PRINT_TREE_CSUM_HEADERS) {
		fputs(" csum 0x", out);
		for (i = 0; i < p->csum_size && i < BTRFS_CSUM_SIZE; i++)
			fprintf(out, "%02x", h->csum[i]);
	}
	putc_unlocked('\n', out);

	btrfs_format_uuid(h->fsid, fsid);
	btrfs_format_uuid(h->chunk_tree_uuid, chunk_uuid);
	fprintf(out, "fs uuid %s\nchunk uuid %s\n", fsid, chunk_uuid);
}

/* ---- leaves and nodes ---- */

/*
 * The item at @slot lies inside the leaf data area.  Reports like progs
 * ("pointer invalid" and "skip remaining slots") when it does not.
 */
bool btrfs_print_item_ok(struct btrfs_printer *p,
			 const struct extent_buffer *eb, u32 slot)
{
	u32 data_size = btrfs_leaf_data_size(eb->len);
	u32 off = btrfs_item_offset(eb, slot);
	u32 size = btrfs_item_size(eb, slot);

	if (off <= data_size && (u64)off + size <= data_size)
		return true;
	btrfs_err(&p->rep,
		  "leaf %llu slot %u pointer invalid, offset %u size %u leaf data limit %u",
		  (unsigned long long)btrfs_eb_bytenr(eb), slot, off, size,
		  data_size);
	btrfs_err(&p->rep, "skip remaining slots");
	return false;
}

/* number of item headers that fit in the block, with a report if fewer */
u32 btrfs_print_leaf_nritems(struct btrfs_printer *p,
			     const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);
	u32 max = btrfs_print_max_items(eb);

	if (nr <= max)
		return nr;
	btrfs_err(&p->rep, "leaf %llu nritems %u corrupted, only %u items fit, printing those",
		  (unsigned long long)btrfs_eb_bytenr(eb), nr, max);
	return max;
}

static void print_leaf_text(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	FILE *out = p->out;
	u32 nr, i;

	print_header_info(p, eb);
	nr = btrfs_print_leaf_nritems(p, eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_item *item = btrfs_item_nr(eb, i);

		if (!btrfs_print_item_ok(p, eb, i))
			break;
		fputs("\titem ", out);
		out_u64(out, i);
		putc_unlocked(' ', out);
		btrfs_print_key(out, &item->key);
		fprintf(out, " itemoff %u itemsize %u\n",
			btrfs_raw_item_offset(item), btrfs_raw_item_size(item));
		btrfs_print_item(p, eb, i);
	}
}

void btrfs_print_leaf(struct btrfs_printer *p, const struct extent_buffer *eb)
{
	if (p->format == BTRFS_PRINT_FORMAT_JSON)
		btrfs_json_print_block(p, eb);
	else
		print_leaf_text(p, eb);
}

/* number of key pointers that fit in the block, with a warning if fewer */
u32 btrfs_print_node_nritems(struct btrfs_printer *p,
			     const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);
	u32 max = btrfs_max_node_ptrs(eb->len);

	if (nr <= max)
		return nr;
	btrfs_warn(&p->rep, "node nr_items corrupted, has %u limit %u, continue anyway",
		   nr, max);
	return max;
}

static void print_node_text(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	FILE *out = p->out;
	u32 nr, i;

	nr = btrfs_print_node_nritems(p, eb);
	print_header_info(p, eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key_ptr *ptr = btrfs_key_ptr_nr(eb, i);

		putc_unlocked('\t', out);
		btrfs_print_key(out, &ptr->key);
		fputs(" block ", out);
		out_u64(out, btrfs_key_blockptr(ptr));
		fputs(" gen ", out);
		out_u64(out, btrfs_key_generation(ptr));
		putc_unlocked('\n', out);
	}
}

void btrfs_print_node(struct btrfs_printer *p, const struct extent_buffer *eb)
{
	if (p->format == BTRFS_PRINT_FORMAT_JSON)
		btrfs_json_print_block(p, eb);
	else
		print_node_text(p, eb);
}

static void print_one_block(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	if (btrfs_eb_level(eb) == 0)
		btrfs_print_leaf(p, eb);
	else
		btrfs_print_node(p, eb);
}

/* ---- following children ---- */

/* read child @slot of @parent, checking the generation and level it implies */
static struct extent_buffer *read_child(struct btrfs_printer *p,
					struct extent_buffer *parent, u32 slot,
					int level, int *err)
{
	struct tree_block_check check;

	memset(&check, 0, sizeof(check));
	check.transid = btrfs_node_ptr_generation(parent, slot);
	check.level = level;
	return read_tree_block(p->fs_info, btrfs_node_blockptr(parent, slot),
			       &check, err);
}

static void release_nodes(struct extent_buffer **nodes, int from, int to)
{
	int i;

	for (i = from; i <= to; i++) {
		free_extent_buffer(nodes[i]);
		nodes[i] = NULL;
	}
}

/*
 * Fill nodes[level - 1 .. target] by always taking slot 0, starting from
 * nodes[level].  Returns 0 or a negative errno.
 */
static int descend_leftmost(struct btrfs_printer *p, struct extent_buffer **nodes,
			    u32 *slots, int level, int target)
{
	int err = 0;

	for (; level > target; level--) {
		slots[level] = 0;
		if (!btrfs_eb_nritems(nodes[level]))
			return -ENOENT;
		nodes[level - 1] = read_child(p, nodes[level], 0, level - 1, &err);
		if (!nodes[level - 1])
			return err;
	}
	slots[target] = 0;
	return 0;
}

/*
 * Move nodes[target] to its right neighbour at the same level, climbing
 * as high as needed.  Returns 0, 1 at the end of the level, or -errno.
 */
static int next_sibling(struct btrfs_printer *p, struct extent_buffer **nodes,
			u32 *slots, int root_level, int target)
{
	struct extent_buffer *next;
	int level = target + 1;
	int err = 0;
	u32 nr;

	for (;;) {
		if (level > root_level)
			return 1;
		nr = btrfs_print_node_nritems(p, nodes[level]);
		if (slots[level] + 1 < nr)
			break;
		level++;
	}
	next = read_child(p, nodes[level], slots[level] + 1, level - 1, &err);
	if (!next)
		return err;
	slots[level]++;
	release_nodes(nodes, target, level - 1);
	nodes[level - 1] = next;
	return descend_leftmost(p, nodes, slots, level - 1, target);
}

/*
 * Breadth first: every node of one level from left to right, then the
 * next level down.  A child that cannot be read ends the walk, as in
 * progs.
 */
static void print_children_bfs(struct btrfs_printer *p, struct extent_buffer *root)
{
	struct extent_buffer *nodes[BTRFS_MAX_LEVEL + 1] = { NULL };
	u32 slots[BTRFS_MAX_LEVEL + 1] = { 0 };
	int root_level = btrfs_eb_level(root);
	int level, ret;

	if (root_level >= BTRFS_MAX_LEVEL)
		return;
	nodes[root_level] = extent_buffer_get(root);
	for (level = root_level - 1; level >= 0; level--) {
		release_nodes(nodes, 0, root_level - 1);
		ret = descend_leftmost(p, nodes, slots, root_level, level);
		while (!ret) {
			print_one_block(p, nodes[level]);
			ret = next_sibling(p, nodes, slots, root_level, level);
		}
		if (ret < 0) {
			p->read_errors++;
			break;
		}
	}
	release_nodes(nodes, 0, root_level);
}

/* depth first: each child and its subtree before the next child */
static void print_children_dfs(struct btrfs_printer *p, struct extent_buffer *eb)
{
	int level = btrfs_eb_level(eb);
	u32 nr = btrfs_print_node_nritems(p, eb);
	struct extent_buffer *next;
	u32 i;
	int err;

	for (i = 0; i < nr; i++) {
		next = read_child(p, eb, i, -1, &err);
		if (!next) {
			btrfs_err(&p->rep, "failed to read %llu in tree %llu",
				  (unsigned long long)btrfs_node_blockptr(eb, i),
				  (unsigned long long)btrfs_eb_owner(eb));
			p->read_errors++;
			continue;
		}
		if (btrfs_eb_level(next) != level - 1) {
			btrfs_warn(&p->rep,
				   "eb corrupted: parent bytenr %llu slot %u level %d child bytenr %llu level has %d expect %d, skipping the slot",
				   (unsigned long long)btrfs_eb_bytenr(eb), i, level,
				   (unsigned long long)btrfs_eb_bytenr(next),
				   btrfs_eb_level(next), level - 1);
			free_extent_buffer(next);
			continue;
		}
		btrfs_print_tree(p, next);
		free_extent_buffer(next);
	}
}

void btrfs_print_tree(struct btrfs_printer *p, struct extent_buffer *eb)
{
	if (!eb)
		return;
	print_one_block(p, eb);
	if (btrfs_eb_level(eb) == 0 || !(p->mode & BTRFS_PRINT_TREE_FOLLOW) ||
	    !p->fs_info)
		return;
	/* breadth first is the default and wins when both are asked for */
	if ((p->mode & BTRFS_PRINT_TREE_DFS) && !(p->mode & BTRFS_PRINT_TREE_BFS))
		print_children_dfs(p, eb);
	else
		print_children_bfs(p, eb);
}

void btrfs_print_extents(struct btrfs_printer *p, struct extent_buffer *eb)
{
	int level = btrfs_eb_level(eb);
	struct extent_buffer *next;
	u32 nr, i;
	int err;

	if (level == 0) {
		btrfs_print_leaf(p, eb);
		return;
	}
	if (!p->fs_info)
		return;
	nr = btrfs_print_node_nritems(p, eb);
	for (i = 0; i < nr; i++) {
		next = read_child(p, eb, i, -1, &err);
		if (!next) {
			p->read_errors++;
			continue;
		}
		if (btrfs_eb_level(next) != level - 1) {
			btrfs_warn(&p->rep,
				   "eb corrupted: item %u eb level %d next level %d, skipping the rest",
				   i, btrfs_eb_level(next), level);
			free_extent_buffer(next);
			return;
		}
		btrfs_print_extents(p, next);
		free_extent_buffer(next);
	}
}
