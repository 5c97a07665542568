// SPDX-License-Identifier: GPL-2.0
/*
 * JSON form of tree blocks and items: the information of the text dump,
 * as a schema documented in ghee-dump-tree(8).  A block is an object with
 * its header fields and "items" (leaves) or "ptrs" (nodes); an item has
 * "slot", "key", "offset", "size" and one member named after what it
 * holds ("inode_item", "dir_entries", "file_extent", ...).  Item bodies
 * go through the same size checks as the text printers; a body that does
 * not fit its item becomes an "error" member.
 */
#include <string.h>
#include "json-writer.h"
#include "print-tree.h"
#include "print-tree-internal.h"
#include "extent_io.h"

struct jitem {
	struct btrfs_printer *p;
	struct json_writer *w;
	struct btrfs_key key;
	const u8 *ptr;
	u32 size;
};

static bool hidden(const struct jitem *j)
{
	return j->p->mode & BTRFS_PRINT_TREE_HIDE_NAMES;
}

static bool jfits(struct jitem *j, u32 need, const char *what)
{
	if (j->size >= need)
		return true;
	json_kv_stringf(j->w, "error", "invalid %s: item size %u, need %u",
			what, j->size, need);
	return false;
}

/* ---- common pieces ---- */

static void json_key_fields(struct json_writer *w, u64 objectid, u8 type,
			    u64 offset)
{
	const char *name;

	json_kv_u64(w, "objectid", objectid);
	name = btrfs_objectid_name(objectid, type);
	if (name && strcmp(name, "-1"))
		json_kv_string(w, "objectid_name", name);
	name = btrfs_key_type_name(objectid, type);
	if (name)
		json_kv_string(w, "type", name);
	else
		json_kv_stringf(w, "type", "UNKNOWN.%u", type);
	json_kv_u64(w, "type_num", type);
	json_kv_u64(w, "offset", offset);
}

void btrfs_json_key(struct json_writer *w, const char *name,
		    const struct btrfs_disk_key *key)
{
	json_kv_object_begin(w, name);
	json_key_fields(w, btrfs_disk_key_objectid(key), btrfs_disk_key_type(key),
			btrfs_disk_key_offset(key));
	json_object_end(w);
}

/* a hex field in an object, or a bare hex value in an array when @name is NULL */
static void json_hex_field(struct json_writer *w, const char *name, const u8 *p,
			   u32 len)
{
	if (name)
		json_kv_hex(w, name, p, len);
	else
		json_hex(w, p, len);
}

void btrfs_json_uuid(struct json_writer *w, const char *name, const u8 *uuid)
{
	char buf[BTRFS_UUID_UNPARSED_SIZE];

	btrfs_format_uuid(uuid, buf);
	json_kv_string(w, name, buf);
}

/* a flag word: its value and the names progs would print */
static void json_flags(struct json_writer *w, const char *name, u64 value,
		       const char *names)
{
	const char *s = names, *bar;

	json_kv_object_begin(w, name);
	json_kv_u64(w, "value", value);
	json_kv_array_begin(w, "names");
	while (*s) {
		bar = strchr(s, '|');
		if (!bar)
			bar = s + strlen(s);
		if (bar > s)
			json_string_len(w, s, bar - s);
		s = *bar ? bar + 1 : bar;
	}
	json_array_end(w);
	json_object_end(w);
}

static void json_time(struct json_writer *w, const char *name,
		      const struct btrfs_timespec *ts)
{
	json_kv_object_begin(w, name);
	json_kv_u64(w, "sec", btrfs_timespec_sec(ts));
	json_kv_u64(w, "nsec", btrfs_timespec_nsec(ts));
	json_object_end(w);
}

/* a name or xattr value: the whole bytes, or null when hidden */
static void json_name(struct jitem *j, const char *name, const u8 *s, u32 len)
{
	if (hidden(j))
		json_kv_null(j->w, name);
	else
		json_kv_string_len(j->w, name, (const char *)s, len);
}

/* ---- inodes and directories ---- */

static void json_inode_item(struct jitem *j)
{
	const struct btrfs_inode_item *ii = (const void *)j->ptr;
	struct json_writer *w = j->w;
	char flags[128];

	if (!jfits(j, sizeof(*ii), "inode item"))
		return;
	btrfs_inode_flags_to_str(btrfs_inode_flags(ii), flags, sizeof(flags));
	json_kv_object_begin(w, "inode_item");
	json_kv_u64(w, "generation", btrfs_inode_generation(ii));
	json_kv_u64(w, "transid", btrfs_inode_transid(ii));
	json_kv_u64(w, "size", btrfs_inode_size(ii));
	json_kv_u64(w, "nbytes", btrfs_inode_nbytes(ii));
	json_kv_u64(w, "block_group", btrfs_inode_block_group(ii));
	json_kv_u64(w, "mode", btrfs_inode_mode(ii));
	json_kv_u64(w, "nlink", btrfs_inode_nlink(ii));
	json_kv_u64(w, "uid", btrfs_inode_uid(ii));
	json_kv_u64(w, "gid", btrfs_inode_gid(ii));
	json_kv_u64(w, "rdev", btrfs_inode_rdev(ii));
	json_kv_u64(w, "sequence", btrfs_inode_sequence(ii));
	json_flags(w, "flags", btrfs_inode_flags(ii),
		   strcmp(flags, "none") ? flags : "");
	json_time(w, "atime", &ii->atime);
	json_time(w, "ctime", &ii->ctime);
	json_time(w, "mtime", &ii->mtime);
	json_time(w, "otime", &ii->otime);
	json_object_end(w);
}

static void json_walk_error(struct jitem *j, int st, u32 cur)
{
	if (st < 0)
		json_kv_stringf(j->w, "error",
				"%u bytes left at offset %u, too short for an entry",
				j->size - cur, cur);
}

static void json_name_entry(struct jitem *j, const struct btrfs_name_entry *e)
{
	json_kv_u64(j->w, "name_len", e->name_len);
	json_name(j, "name", e->name, e->name_avail);
	if (e->name_avail < e->name_len)
		json_kv_stringf(j->w, "error", "name_len %u but only %u bytes left in the item",
				e->name_len, e->name_avail);
}

static void json_inode_refs(struct jitem *j, bool ext)
{
	struct json_writer *w = j->w;
	struct btrfs_name_entry e = { 0 };
	int st;

	json_kv_array_begin(w, ext ? "inode_extrefs" : "inode_refs");
	while ((st = btrfs_walk_name_entry(ext ? BTRFS_INODE_EXTREF_KEY : BTRFS_INODE_REF_KEY,
					   j->ptr, j->size, &e)) > 0) {
		json_object_begin(w);
		if (ext)
			json_kv_u64(w, "parent", e.parent);
		json_kv_u64(w, "index", e.index);
		json_name_entry(j, &e);
		json_object_end(w);
	}
	json_array_end(w);
	json_walk_error(j, st, e.off + e.len);
}

static void json_dir_entries(struct jitem *j)
{
	struct json_writer *w = j->w;
	struct btrfs_name_entry e = { 0 };
	const char *type;
	int st;

	json_kv_array_begin(w, "dir_entries");
	/* dir items, dir indexes and xattrs share the layout */
	while ((st = btrfs_walk_name_entry(BTRFS_DIR_ITEM_KEY, j->ptr, j->size, &e)) > 0) {
		json_object_begin(w);
		btrfs_json_key(w, "location", &e.di->location);
		type = btrfs_dir_type_name(btrfs_dir_type(e.di));
		if (type)
			json_kv_string(w, "type", type);
		else
			json_kv_stringf(w, "type", "DIR_ITEM.%u", btrfs_dir_type(e.di));
		json_kv_u64(w, "type_num", btrfs_dir_type(e.di));
		json_kv_u64(w, "transid", btrfs_dir_transid(e.di));
		json_kv_u64(w, "data_len", e.data_len);
		json_name_entry(j, &e);
		if (e.data_len) {
			json_name(j, "data", e.data, e.data_avail);
			if (e.data_avail < e.data_len)
				json_kv_stringf(w, "data_error",
						"data_len %u but only %u bytes left in the item",
						e.data_len, e.data_avail);
		}
		json_object_end(w);
	}
	json_array_end(w);
	json_walk_error(j, st, e.off + e.len);
}

/* ---- roots ---- */

static void json_root_item(struct jitem *j)
{
	struct json_writer *w = j->w;
	struct btrfs_root_item ri;

	memset(&ri, 0, sizeof(ri));
	memcpy(&ri, j->ptr, j->size < sizeof(ri) ? j->size : sizeof(ri));
	json_kv_object_begin(w, "root_item");
	json_kv_u64(w, "generation", btrfs_root_generation(&ri));
	json_kv_u64(w, "root_dirid", btrfs_root_dirid(&ri));
	json_kv_u64(w, "bytenr", btrfs_root_bytenr(&ri));
	json_kv_u64(w, "byte_limit", btrfs_root_byte_limit(&ri));
	json_kv_u64(w, "bytes_used", btrfs_root_bytes_used(&ri));
	json_kv_u64(w, "last_snapshot", btrfs_root_last_snapshot(&ri));
	json_flags(w, "flags", btrfs_root_flags(&ri),
		   (btrfs_root_flags(&ri) & BTRFS_ROOT_SUBVOL_RDONLY) ? "RDONLY" : "");
	json_kv_u64(w, "refs", btrfs_root_refs(&ri));
	btrfs_json_key(w, "drop_progress", &ri.drop_progress);
	json_kv_u64(w, "drop_level", btrfs_root_drop_level(&ri));
	json_kv_u64(w, "level", btrfs_root_level(&ri));
	json_kv_u64(w, "generation_v2", btrfs_root_generation_v2(&ri));
	/* as in the text: the v2 fields only when generation_v2 is current */
	if (btrfs_root_generation(&ri) == btrfs_root_generation_v2(&ri)) {
		btrfs_json_uuid(w, "uuid", ri.uuid);
		btrfs_json_uuid(w, "parent_uuid", ri.parent_uuid);
		btrfs_json_uuid(w, "received_uuid", ri.received_uuid);
		json_kv_u64(w, "ctransid", btrfs_root_ctransid(&ri));
		json_kv_u64(w, "otransid", btrfs_root_otransid(&ri));
		json_kv_u64(w, "stransid", btrfs_root_stransid(&ri));
		json_kv_u64(w, "rtransid", btrfs_root_rtransid(&ri));
		json_time(w, "ctime", &ri.ctime);
		json_time(w, "otime", &ri.otime);
		json_time(w, "stime", &ri.stime);
		json_time(w, "rtime", &ri.rtime);
	}
	json_object_end(w);
}

static void json_root_ref(struct jitem *j)
{
	const struct btrfs_root_ref *ref = (const void *)j->ptr;
	struct json_writer *w = j->w;
	u32 len, avail;

	if (!jfits(j, sizeof(*ref), "root ref"))
		return;
	len = btrfs_root_ref_name_len(ref);
	avail = j->size - sizeof(*ref);
	json_kv_object_begin(w, "root_ref");
	json_kv_u64(w, "dirid", btrfs_root_ref_dirid(ref));
	json_kv_u64(w, "sequence", btrfs_root_ref_sequence(ref));
	json_kv_u64(w, "name_len", len);
	/* progs never hides these names; neither does the text here */
	json_kv_string_len(w, "name", (const char *)(ref + 1), len < avail ? len : avail);
	if (avail < len)
		json_kv_stringf(w, "error", "name_len %u but only %u bytes left in the item",
				len, avail);
	json_object_end(w);
}

/* ---- extents ---- */

static const char *inline_ref_name(u8 type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY:		return "TREE_BLOCK_REF";
	case BTRFS_SHARED_BLOCK_REF_KEY:	return "SHARED_BLOCK_REF";
	case BTRFS_EXTENT_DATA_REF_KEY:		return "EXTENT_DATA_REF";
	case BTRFS_SHARED_DATA_REF_KEY:		return "SHARED_DATA_REF";
	case BTRFS_EXTENT_OWNER_REF_KEY:	return "EXTENT_OWNER_REF";
	}
	return "UNKNOWN";
}

static void json_data_ref_fields(struct json_writer *w,
				 const struct btrfs_extent_data_ref *dref)
{
	json_kv_u64(w, "root", btrfs_extent_data_ref_root(dref));
	json_kv_u64(w, "objectid", btrfs_extent_data_ref_objectid(dref));
	json_kv_u64(w, "offset", btrfs_extent_data_ref_offset(dref));
	json_kv_u64(w, "count", btrfs_extent_data_ref_count(dref));
}

static void json_inline_ref(struct json_writer *w, const struct inline_ref *ref)
{
	json_object_begin(w);
	json_kv_string(w, "type", inline_ref_name(ref->type));
	json_kv_u64(w, "type_num", ref->type);
	switch (ref->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_EXTENT_OWNER_REF_KEY:
		json_kv_u64(w, "root", ref->offset);
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		json_kv_u64(w, "parent", ref->offset);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		json_data_ref_fields(w, ref->dref);
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		json_kv_u64(w, "parent", ref->offset);
		json_kv_u64(w, "count", ref->count);
		break;
	}
	json_object_end(w);
}

static void json_inline_refs(struct jitem *j, u32 cur)
{
	struct json_writer *w = j->w;
	enum inline_ref_status st;
	struct inline_ref ref;

	json_kv_array_begin(w, "inline_refs");
	while ((st = btrfs_next_inline_ref(j->ptr, j->size, &cur, &ref)) == INLINE_REF_OK)
		json_inline_ref(w, &ref);
	json_array_end(w);
	if (st == INLINE_REF_UNKNOWN)
		json_kv_stringf(w, "error", "unknown inline ref type %u at offset %u",
				ref.type, cur);
	else if (st == INLINE_REF_SHORT)
		json_kv_stringf(w, "error", "inline ref type %u does not fit, %u bytes left",
				ref.type, j->size - cur);
}

static void json_extent_item(struct jitem *j)
{
	const struct btrfs_extent_item *ei = (const void *)j->ptr;
	struct json_writer *w = j->w;
	char flags[32];
	u64 fl;
	u32 cur = sizeof(*ei);

	if (!jfits(j, sizeof(*ei), "extent item"))
		return;
	fl = btrfs_extent_flags(ei);
	btrfs_extent_flags_to_str(fl, flags, sizeof(flags));
	json_kv_object_begin(w, "extent_item");
	json_kv_u64(w, "refs", btrfs_extent_refs(ei));
	json_kv_u64(w, "generation", btrfs_extent_generation(ei));
	json_flags(w, "flags", fl, flags);
	if (j->key.type == BTRFS_METADATA_ITEM_KEY) {
		json_kv_u64(w, "level", j->key.offset);
	} else if (fl & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		const struct btrfs_tree_block_info *info = (const void *)(ei + 1);

		if (!jfits(j, sizeof(*ei) + sizeof(*info), "tree block info")) {
			json_object_end(w);
			return;
		}
		btrfs_json_key(w, "tree_block_key", &info->key);
		json_kv_u64(w, "level", btrfs_tree_block_level(info));
		cur += sizeof(*info);
	}
	json_inline_refs(j, cur);
	json_object_end(w);
}

static void json_extent_csum(struct jitem *j)
{
	struct btrfs_printer *p = j->p;
	struct json_writer *w = j->w;
	u32 csum_size = p->csum_size ? p->csum_size : 4;
	u32 count = j->size / csum_size;
	u32 i;

	json_kv_object_begin(w, "extent_csum");
	json_kv_u64(w, "start", j->key.offset);
	json_kv_u64(w, "end", j->key.offset + (u64)(u32)(count * p->sectorsize));
	json_kv_u64(w, "length", (u32)(count * p->sectorsize));
	if (p->mode & BTRFS_PRINT_TREE_CSUM_ITEMS) {
		json_kv_array_begin(w, "csums");
		for (i = 0; i < count; i++)
			json_hex_field(w, NULL, j->ptr + i * csum_size, csum_size);
		json_array_end(w);
	}
	json_object_end(w);
}

static void json_file_extent(struct jitem *j)
{
	const struct btrfs_file_extent_item *fi = (const void *)j->ptr;
	struct json_writer *w = j->w;
	char cbuf[16];
	u8 type;

	if (!jfits(j, BTRFS_FILE_EXTENT_INLINE_DATA_START, "file extent"))
		return;
	type = btrfs_file_extent_type(fi);
	json_kv_object_begin(w, "file_extent");
	json_kv_u64(w, "generation", btrfs_file_extent_generation(fi));
	json_kv_string(w, "type", btrfs_file_extent_type_name(type));
	json_kv_u64(w, "type_num", type);
	json_kv_string(w, "compression",
		       btrfs_compress_name(btrfs_file_extent_compression(fi),
					   cbuf, sizeof(cbuf)));
	json_kv_u64(w, "compression_num", btrfs_file_extent_compression(fi));
	json_kv_u64(w, "encryption", btrfs_file_extent_encryption(fi));
	json_kv_u64(w, "other_encoding", btrfs_file_extent_other_encoding(fi));
	json_kv_u64(w, "ram_bytes", btrfs_file_extent_ram_bytes(fi));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		json_kv_u64(w, "inline_size",
			    j->size - BTRFS_FILE_EXTENT_INLINE_DATA_START);
	} else if (jfits(j, sizeof(*fi), "file extent")) {
		json_kv_u64(w, "disk_bytenr", btrfs_file_extent_disk_bytenr(fi));
		json_kv_u64(w, "disk_num_bytes", btrfs_file_extent_disk_num_bytes(fi));
		json_kv_u64(w, "offset", btrfs_file_extent_offset(fi));
		json_kv_u64(w, "num_bytes", btrfs_file_extent_num_bytes(fi));
	}
	json_object_end(w);
}

static void json_data_ref(struct jitem *j)
{
	if (!jfits(j, sizeof(struct btrfs_extent_data_ref), "extent data ref"))
		return;
	json_kv_object_begin(j->w, "extent_data_ref");
	json_data_ref_fields(j->w, (const void *)j->ptr);
	json_object_end(j->w);
}

static void json_shared_data_ref(struct jitem *j)
{
	if (!jfits(j, sizeof(struct btrfs_shared_data_ref), "shared data ref"))
		return;
	json_kv_object_begin(j->w, "shared_data_ref");
	json_kv_u64(j->w, "count",
		    btrfs_shared_data_ref_count((const void *)j->ptr));
	json_object_end(j->w);
}

/* ---- block groups, free space, chunks, devices ---- */

static void json_bg_flags(struct json_writer *w, const char *name, u64 flags)
{
	char str[BTRFS_BG_FLAGS_STR_LEN];

	btrfs_bg_flags_to_str(flags, str);
	json_flags(w, name, flags, str);
}

static void json_block_group(struct jitem *j)
{
	const struct btrfs_block_group_item *bg = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*bg), "block group item"))
		return;
	json_kv_object_begin(w, "block_group");
	json_kv_u64(w, "used", btrfs_block_group_used(bg));
	json_kv_u64(w, "chunk_objectid", btrfs_block_group_chunk_objectid(bg));
	json_bg_flags(w, "flags", btrfs_block_group_flags(bg));
	json_object_end(w);
}

static void json_free_space_info(struct jitem *j)
{
	const struct btrfs_free_space_info *info = (const void *)j->ptr;

	if (!jfits(j, sizeof(*info), "free space info"))
		return;
	json_kv_object_begin(j->w, "free_space_info");
	json_kv_u64(j->w, "extent_count", btrfs_free_space_extent_count(info));
	json_kv_u64(j->w, "flags", btrfs_free_space_flags(info));
	json_object_end(j->w);
}

static void json_free_space_header(struct jitem *j)
{
	const struct btrfs_free_space_header *h = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*h), "free space header"))
		return;
	json_kv_object_begin(w, "free_space_header");
	btrfs_json_key(w, "location", &h->location);
	json_kv_u64(w, "generation", btrfs_free_space_generation(h));
	json_kv_u64(w, "entries", btrfs_free_space_entries(h));
	json_kv_u64(w, "bitmaps", btrfs_free_space_bitmaps(h));
	json_object_end(w);
}

static void json_chunk(struct jitem *j)
{
	const struct btrfs_chunk *chunk = (const void *)j->ptr;
	struct json_writer *w = j->w;
	u16 num, i;

	if (!jfits(j, offsetof(struct btrfs_chunk, stripe), "chunk item"))
		return;
	num = btrfs_chunk_num_stripes(chunk);
	if (num < 1) {
		json_kv_stringf(w, "error", "invalid num_stripes: %u", num);
		return;
	}
	if (!jfits(j, btrfs_chunk_item_size(num), "chunk item"))
		return;
	json_kv_object_begin(w, "chunk");
	json_kv_u64(w, "length", btrfs_chunk_length(chunk));
	json_kv_u64(w, "owner", btrfs_chunk_owner(chunk));
	json_kv_u64(w, "stripe_len", btrfs_chunk_stripe_len(chunk));
	json_bg_flags(w, "type", btrfs_chunk_type(chunk));
	json_kv_u64(w, "io_align", btrfs_chunk_io_align(chunk));
	json_kv_u64(w, "io_width", btrfs_chunk_io_width(chunk));
	json_kv_u64(w, "sector_size", btrfs_chunk_sector_size(chunk));
	json_kv_u64(w, "num_stripes", num);
	json_kv_u64(w, "sub_stripes", btrfs_chunk_sub_stripes(chunk));
	json_kv_array_begin(w, "stripes");
	for (i = 0; i < num; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(chunk, i);

		json_object_begin(w);
		json_kv_u64(w, "devid", btrfs_stripe_devid(s));
		json_kv_u64(w, "offset", btrfs_stripe_offset(s));
		btrfs_json_uuid(w, "dev_uuid", s->dev_uuid);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

static void json_dev_item(struct jitem *j)
{
	const struct btrfs_dev_item *d = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*d), "dev item"))
		return;
	json_kv_object_begin(w, "dev_item");
	json_kv_u64(w, "devid", btrfs_device_id(d));
	json_kv_u64(w, "total_bytes", btrfs_device_total_bytes(d));
	json_kv_u64(w, "bytes_used", btrfs_device_bytes_used(d));
	json_kv_u64(w, "io_align", btrfs_device_io_align(d));
	json_kv_u64(w, "io_width", btrfs_device_io_width(d));
	json_kv_u64(w, "sector_size", btrfs_device_sector_size(d));
	json_kv_u64(w, "type", btrfs_device_type(d));
	json_kv_u64(w, "generation", btrfs_device_generation(d));
	json_kv_u64(w, "start_offset", btrfs_device_start_offset(d));
	json_kv_u64(w, "dev_group", btrfs_device_group(d));
	json_kv_u64(w, "seek_speed", btrfs_device_seek_speed(d));
	json_kv_u64(w, "bandwidth", btrfs_device_bandwidth(d));
	btrfs_json_uuid(w, "uuid", d->uuid);
	btrfs_json_uuid(w, "fsid", d->fsid);
	json_object_end(w);
}

static void json_dev_extent(struct jitem *j)
{
	const struct btrfs_dev_extent *de = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*de), "dev extent"))
		return;
	json_kv_object_begin(w, "dev_extent");
	json_kv_u64(w, "chunk_tree", btrfs_dev_extent_chunk_tree(de));
	json_kv_u64(w, "chunk_objectid", btrfs_dev_extent_chunk_objectid(de));
	json_kv_u64(w, "chunk_offset", btrfs_dev_extent_chunk_offset(de));
	json_kv_u64(w, "length", btrfs_dev_extent_length(de));
	btrfs_json_uuid(w, "chunk_tree_uuid", de->chunk_tree_uuid);
	json_object_end(w);
}

/* ---- quotas, uuids, strings, odd items ---- */

static void json_qgroup_status(struct jitem *j)
{
	const struct btrfs_qgroup_status_item *s = (const void *)j->ptr;
	struct json_writer *w = j->w;
	char flags[32];

	if (!jfits(j, offsetof(struct btrfs_qgroup_status_item, enable_gen),
		   "qgroup status"))
		return;
	btrfs_qgroup_status_flags_to_str(btrfs_qgroup_status_flags(s), flags,
					 sizeof(flags));
	json_kv_object_begin(w, "qgroup_status");
	json_kv_u64(w, "version", btrfs_qgroup_status_version(s));
	json_kv_u64(w, "generation", btrfs_qgroup_status_generation(s));
	json_flags(w, "flags", btrfs_qgroup_status_flags(s), flags);
	json_kv_u64(w, "rescan", btrfs_qgroup_status_rescan(s));
	if (j->size >= sizeof(*s))
		json_kv_u64(w, "enable_gen", btrfs_qgroup_status_enable_gen(s));
	json_object_end(w);
}

static void json_qgroup_info(struct jitem *j)
{
	const struct btrfs_qgroup_info_item *qi = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*qi), "qgroup info"))
		return;
	json_kv_object_begin(w, "qgroup_info");
	json_kv_u64(w, "generation", btrfs_qgroup_info_generation(qi));
	json_kv_u64(w, "referenced", btrfs_qgroup_info_rfer(qi));
	json_kv_u64(w, "referenced_compressed", btrfs_qgroup_info_rfer_cmpr(qi));
	json_kv_u64(w, "exclusive", btrfs_qgroup_info_excl(qi));
	json_kv_u64(w, "exclusive_compressed", btrfs_qgroup_info_excl_cmpr(qi));
	json_object_end(w);
}

static void json_qgroup_limit(struct jitem *j)
{
	const struct btrfs_qgroup_limit_item *ql = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*ql), "qgroup limit"))
		return;
	json_kv_object_begin(w, "qgroup_limit");
	json_kv_u64(w, "flags", btrfs_qgroup_limit_flags(ql));
	json_kv_s64(w, "max_referenced", (s64)btrfs_qgroup_limit_max_rfer(ql));
	json_kv_s64(w, "max_exclusive", (s64)btrfs_qgroup_limit_max_excl(ql));
	json_kv_s64(w, "rsv_referenced", (s64)btrfs_qgroup_limit_rsv_rfer(ql));
	json_kv_s64(w, "rsv_exclusive", (s64)btrfs_qgroup_limit_rsv_excl(ql));
	json_object_end(w);
}

static void json_uuid_item(struct jitem *j)
{
	u32 off;

	if (j->size % sizeof(u64)) {
		json_kv_stringf(j->w, "error", "uuid item with illegal size %u", j->size);
		return;
	}
	json_kv_array_begin(j->w, "subvol_ids");
	for (off = 0; off < j->size; off += sizeof(u64))
		json_u64(j->w, get_unaligned_le64(j->ptr + off));
	json_array_end(j->w);
}

static void json_dev_stats(struct jitem *j)
{
	static const char *const names[] = {
		"write_errs", "read_errs", "flush_errs", "corruption_errs",
		"generation_errs",
	};
	struct json_writer *w = j->w;
	u32 i;

	if (!jfits(j, BTRFS_DEV_STAT_VALUES_MAX * sizeof(u64), "device stats"))
		return;
	json_kv_object_begin(w, "dev_stats");
	for (i = 0; i < BTRFS_DEV_STAT_VALUES_MAX; i++)
		json_kv_u64(w, names[i], get_unaligned_le64(j->ptr + i * 8));
	if (j->size >= (BTRFS_DEV_STAT_VALUES_MAX + 1) * sizeof(u64)) {
		json_kv_array_begin(w, "unknown_values");
		for (; (i + 1) * sizeof(u64) <= j->size; i++)
			json_u64(w, get_unaligned_le64(j->ptr + i * 8));
		json_array_end(w);
	}
	json_object_end(w);
}

static void json_balance_args(struct json_writer *w, const char *name,
			      const struct btrfs_disk_balance_args *ba)
{
	json_kv_object_begin(w, name);
	json_kv_u64(w, "profiles", btrfs_disk_balance_args_profiles(ba));
	json_kv_u64(w, "devid", btrfs_disk_balance_args_devid(ba));
	json_kv_u64(w, "target", btrfs_disk_balance_args_target(ba));
	json_kv_u64(w, "flags", btrfs_disk_balance_args_flags(ba));
	json_kv_u64(w, "usage_min", btrfs_disk_balance_args_usage_min(ba));
	json_kv_u64(w, "usage_max", btrfs_disk_balance_args_usage_max(ba));
	json_kv_u64(w, "pstart", btrfs_disk_balance_args_pstart(ba));
	json_kv_u64(w, "pend", btrfs_disk_balance_args_pend(ba));
	json_kv_u64(w, "vstart", btrfs_disk_balance_args_vstart(ba));
	json_kv_u64(w, "vend", btrfs_disk_balance_args_vend(ba));
	json_kv_u64(w, "limit_min", btrfs_disk_balance_args_limit_min(ba));
	json_kv_u64(w, "limit_max", btrfs_disk_balance_args_limit_max(ba));
	json_kv_u64(w, "stripes_min", btrfs_disk_balance_args_stripes_min(ba));
	json_kv_u64(w, "stripes_max", btrfs_disk_balance_args_stripes_max(ba));
	json_object_end(w);
}

static void json_temporary_item(struct jitem *j)
{
	const struct btrfs_balance_item *bi = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (j->key.objectid == 13) {
		/* progs 6.2's experimental checksum conversion */
		json_kv_u64(w, "csum_tree_tmp_root", j->key.offset);
		return;
	}
	if (j->key.objectid != BTRFS_BALANCE_OBJECTID) {
		json_kv_stringf(w, "error", "unknown temporary item objectid %llu",
				(unsigned long long)j->key.objectid);
		return;
	}
	if (!jfits(j, offsetof(struct btrfs_balance_item, unused), "balance item"))
		return;
	json_kv_object_begin(w, "balance");
	json_kv_u64(w, "flags", btrfs_balance_flags(bi));
	json_balance_args(w, "data", &bi->data);
	json_balance_args(w, "metadata", &bi->meta);
	json_balance_args(w, "system", &bi->sys);
	json_object_end(w);
}

static void json_dev_replace(struct jitem *j)
{
	const struct btrfs_dev_replace_item *r = (const void *)j->ptr;
	struct json_writer *w = j->w;

	if (!jfits(j, sizeof(*r), "dev replace item"))
		return;
	json_kv_object_begin(w, "dev_replace");
	json_kv_u64(w, "src_devid", btrfs_dev_replace_src_devid(r));
	json_kv_u64(w, "cursor_left", btrfs_dev_replace_cursor_left(r));
	json_kv_u64(w, "cursor_right", btrfs_dev_replace_cursor_right(r));
	json_kv_u64(w, "cont_reading_from_srcdev_mode",
		    btrfs_dev_replace_cont_reading_from_srcdev_mode(r));
	json_kv_u64(w, "replace_state", btrfs_dev_replace_replace_state(r));
	json_kv_u64(w, "time_started", btrfs_dev_replace_time_started(r));
	json_kv_u64(w, "time_stopped", btrfs_dev_replace_time_stopped(r));
	json_kv_u64(w, "num_write_errors", btrfs_dev_replace_num_write_errors(r));
	json_kv_u64(w, "num_uncorrectable_read_errors",
		    btrfs_dev_replace_num_uncorrectable_read_errors(r));
	json_object_end(w);
}

static void json_verity_desc(struct jitem *j)
{
	const struct btrfs_verity_descriptor_item *v = (const void *)j->ptr;

	if (!jfits(j, sizeof(*v), "verity descriptor"))
		return;
	json_kv_object_begin(j->w, "verity_descriptor");
	json_kv_u64(j->w, "size", btrfs_verity_descriptor_size(v));
	json_kv_u64(j->w, "encryption", btrfs_verity_descriptor_encryption(v));
	json_object_end(j->w);
}

static void json_empty(struct jitem *j, const char *name)
{
	json_kv_object_begin(j->w, name);
	json_object_end(j->w);
}

static void json_dir_log(struct jitem *j)
{
	if (!jfits(j, sizeof(struct btrfs_dir_log_item), "dir log item"))
		return;
	json_kv_object_begin(j->w, "dir_log");
	json_kv_u64(j->w, "end", btrfs_dir_log_end((const void *)j->ptr));
	json_object_end(j->w);
}

static void json_item_body(struct jitem *j)
{
	switch (j->key.type) {
	case BTRFS_INODE_ITEM_KEY:	json_inode_item(j); break;
	case BTRFS_INODE_REF_KEY:	json_inode_refs(j, false); break;
	case BTRFS_INODE_EXTREF_KEY:	json_inode_refs(j, true); break;
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:	json_dir_entries(j); break;
	case BTRFS_DIR_LOG_INDEX_KEY:
	case BTRFS_DIR_LOG_ITEM_KEY:	json_dir_log(j); break;
	case BTRFS_VERITY_DESC_ITEM_KEY: json_verity_desc(j); break;
	case BTRFS_ORPHAN_ITEM_KEY:	json_empty(j, "orphan_item"); break;
	case BTRFS_ROOT_ITEM_KEY:	json_root_item(j); break;
	case BTRFS_ROOT_REF_KEY:
	case BTRFS_ROOT_BACKREF_KEY:	json_root_ref(j); break;
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:	json_extent_item(j); break;
	case BTRFS_TREE_BLOCK_REF_KEY:	json_empty(j, "tree_block_ref"); break;
	case BTRFS_SHARED_BLOCK_REF_KEY: json_empty(j, "shared_block_ref"); break;
	case BTRFS_EXTENT_DATA_REF_KEY:	json_data_ref(j); break;
	case BTRFS_SHARED_DATA_REF_KEY:	json_shared_data_ref(j); break;
	case BTRFS_EXTENT_REF_V0_KEY:	json_empty(j, "extent_ref_v0"); break;
	case BTRFS_CSUM_ITEM_KEY:	json_empty(j, "csum_item"); break;
	case BTRFS_EXTENT_CSUM_KEY:	json_extent_csum(j); break;
	case BTRFS_EXTENT_DATA_KEY:	json_file_extent(j); break;
	case BTRFS_BLOCK_GROUP_ITEM_KEY: json_block_group(j); break;
	case BTRFS_FREE_SPACE_INFO_KEY:	json_free_space_info(j); break;
	case BTRFS_FREE_SPACE_EXTENT_KEY: json_empty(j, "free_space_extent"); break;
	case BTRFS_FREE_SPACE_BITMAP_KEY: json_empty(j, "free_space_bitmap"); break;
	case BTRFS_CHUNK_ITEM_KEY:	json_chunk(j); break;
	case BTRFS_DEV_ITEM_KEY:	json_dev_item(j); break;
	case BTRFS_DEV_EXTENT_KEY:	json_dev_extent(j); break;
	case BTRFS_QGROUP_STATUS_KEY:	json_qgroup_status(j); break;
	case BTRFS_QGROUP_INFO_KEY:	json_qgroup_info(j); break;
	case BTRFS_QGROUP_LIMIT_KEY:	json_qgroup_limit(j); break;
	case BTRFS_QGROUP_RELATION_KEY:	json_empty(j, "qgroup_relation"); break;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL: json_uuid_item(j); break;
	case BTRFS_STRING_ITEM_KEY:
		json_kv_string_len(j->w, "string", (const char *)j->ptr, j->size);
		break;
	case BTRFS_PERSISTENT_ITEM_KEY:
		if (j->key.objectid == BTRFS_DEV_STATS_OBJECTID)
			json_dev_stats(j);
		else
			json_kv_stringf(j->w, "error", "unknown persistent item objectid %llu",
					(unsigned long long)j->key.objectid);
		break;
	case BTRFS_TEMPORARY_ITEM_KEY:	json_temporary_item(j); break;
	case BTRFS_DEV_REPLACE_KEY:	json_dev_replace(j); break;
	}
}

static void json_item(struct btrfs_printer *p, const struct extent_buffer *eb,
		      u32 slot)
{
	struct json_writer *w = p->json;
	struct jitem j;

	j.p = p;
	j.w = w;
	btrfs_item_key_to_cpu(eb, &j.key, slot);
	j.ptr = btrfs_item_ptr_raw(eb, slot);
	j.size = btrfs_item_size(eb, slot);
	json_object_begin(w);
	json_kv_u64(w, "slot", slot);
	json_kv_object_begin(w, "key");
	json_key_fields(w, j.key.objectid, j.key.type, j.key.offset);
	json_object_end(w);
	json_kv_u64(w, "offset", btrfs_item_offset(eb, slot));
	json_kv_u64(w, "size", j.size);
	if (j.key.type == 0 && j.key.objectid == BTRFS_FREE_SPACE_OBJECTID)
		json_free_space_header(&j);
	json_item_body(&j);
	json_object_end(w);
}

/* ---- blocks ---- */

static void json_header(struct btrfs_printer *p, const struct extent_buffer *eb)
{
	const struct btrfs_header *h = eb_header(eb);
	struct json_writer *w = p->json;
	u64 flags = btrfs_header_flags(h) & ~BTRFS_BACKREF_REV_MASK;
	u32 nr = btrfs_header_nritems(h);
	int level = btrfs_header_level(h);
	const char *owner;

	json_kv_u64(w, "bytenr", btrfs_header_bytenr(h));
	json_kv_string(w, "type", level ? "node" : "leaf");
	json_kv_u64(w, "level", level);
	json_kv_u64(w, "nritems", nr);
	if (level)
		json_kv_s64(w, "free_space", (s64)btrfs_max_node_ptrs(eb->len) - nr);
	else
		json_kv_s64(w, "free_space", btrfs_print_leaf_free_space(eb));
	json_kv_u64(w, "generation", btrfs_header_generation(h));
	json_kv_u64(w, "owner", btrfs_header_owner(h));
	owner = btrfs_objectid_name(btrfs_header_owner(h), 0);
	if (owner && strcmp(owner, "-1"))
		json_kv_string(w, "owner_name", owner);
	json_flags(w, "flags", flags,
		   (flags & BTRFS_HEADER_FLAG_WRITTEN) ?
		   ((flags & BTRFS_HEADER_FLAG_RELOC) ? "WRITTEN|RELOC" : "WRITTEN") :
		   ((flags & BTRFS_HEADER_FLAG_RELOC) ? "RELOC" : ""));
	json_kv_u64(w, "backref_rev", btrfs_header_backref_rev(h));
	btrfs_json_uuid(w, "fsid", h->fsid);
	btrfs_json_uuid(w, "chunk_tree_uuid", h->chunk_tree_uuid);
	if (p->mode & BTRFS_PRINT_TREE_CSUM_HEADERS)
		json_hex_field(w, "csum", h->csum, p->csum_size);
}

static void json_leaf_items(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	struct json_writer *w = p->json;
	u32 nr = btrfs_print_leaf_nritems(p, eb);
	u32 i;

	json_kv_array_begin(w, "items");
	for (i = 0; i < nr; i++) {
		if (!btrfs_print_item_ok(p, eb, i))
			break;
		json_item(p, eb, i);
	}
	json_array_end(w);
}

static void json_node_ptrs(struct btrfs_printer *p,
			   const struct extent_buffer *eb)
{
	struct json_writer *w = p->json;
	u32 nr = btrfs_print_node_nritems(p, eb);
	u32 i;

	json_kv_array_begin(w, "ptrs");
	for (i = 0; i < nr; i++) {
		struct btrfs_key_ptr *ptr = btrfs_key_ptr_nr(eb, i);

		json_object_begin(w);
		btrfs_json_key(w, "key", &ptr->key);
		json_kv_u64(w, "blockptr", btrfs_key_blockptr(ptr));
		json_kv_u64(w, "generation", btrfs_key_generation(ptr));
		json_object_end(w);
	}
	json_array_end(w);
}

void btrfs_json_print_block(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	struct json_writer *w = p->json;

	if (!w)
		return;
	json_object_begin(w);
	json_header(p, eb);
	if (btrfs_eb_level(eb))
		json_node_ptrs(p, eb);
	else
		json_leaf_items(p, eb);
	json_object_end(w);
}
