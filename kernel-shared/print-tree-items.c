// SPDX-License-Identifier: GPL-2.0
/*
 * Text bodies of leaf items, one printer per item type, in the layout of
 * btrfs-progs 6.2.  Every printer first checks that the item is large
 * enough for the fields it decodes; a malformed item gets a note saying
 * what is wrong instead of bytes from its neighbours.
 */
#include <string.h>
#include "print-tree.h"
#include "print-tree-internal.h"
#include "extent_io.h"

/* everything an item printer needs */
struct item_ctx {
	struct btrfs_printer *p;
	const struct extent_buffer *eb;
	int slot;
	struct btrfs_key key;
	const u8 *ptr;		/* item data, inside the leaf */
	u32 size;
};

static bool hide_names(const struct item_ctx *c)
{
	return c->p->mode & BTRFS_PRINT_TREE_HIDE_NAMES;
}

/* the note printed instead of a body that would not fit in the item */
static bool item_fits(const struct item_ctx *c, u32 need, const char *what)
{
	if (c->size >= need)
		return true;
	pr_fmt(c->p, "\t\tinvalid %s: item size %u, need %u\n",
		what, c->size, need);
	return false;
}

/* like printf("%.*s"): stops at the first NUL */
static void out_name(struct btrfs_printer *p, const u8 *name, u32 len)
{
	const u8 *nul = memchr(name, 0, len);

	if (nul)
		len = nul - name;
	pr_mem(p, name, len);
}

static void print_timespec(struct item_ctx *c, const char *label,
			   const struct btrfs_timespec *ts)
{
	u64 sec = btrfs_timespec_sec(ts);

	pr_fmt(c->p, "\t\t%s %llu.%u (%s)\n", label, (unsigned long long)sec,
		btrfs_timespec_nsec(ts), btrfs_format_time(c->p, sec));
}

static void print_uuid_line(struct btrfs_printer *p, const char *label,
			    const u8 *uuid)
{
	char buf[BTRFS_UUID_UNPARSED_SIZE];

	btrfs_format_uuid(uuid, buf);
	pr_fmt(p, "\t\t%s %s\n", label, buf);
}

/* ---- flag words ---- */

void btrfs_inode_flags_to_str(u64 flags, char *buf, size_t len)
{
	static const struct {
		u64 bit;
		const char *name;
	} names[] = {
		{ BTRFS_INODE_NODATASUM, "NODATASUM" },
		{ BTRFS_INODE_NODATACOW, "NODATACOW" },
		{ BTRFS_INODE_READONLY, "READONLY" },
		{ BTRFS_INODE_NOCOMPRESS, "NOCOMPRESS" },
		{ BTRFS_INODE_PREALLOC, "PREALLOC" },
		{ BTRFS_INODE_SYNC, "SYNC" },
		{ BTRFS_INODE_IMMUTABLE, "IMMUTABLE" },
		{ BTRFS_INODE_APPEND, "APPEND" },
		{ BTRFS_INODE_NODUMP, "NODUMP" },
		{ BTRFS_INODE_NOATIME, "NOATIME" },
		{ BTRFS_INODE_DIRSYNC, "DIRSYNC" },
		{ BTRFS_INODE_COMPRESS, "COMPRESS" },
	};
	size_t i, used = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		used += snprintf(buf + used, len - used, "%s%s",
				 used ? "|" : "", names[i].name);
		if (used >= len)
			return;
	}
	if (!used)
		snprintf(buf, len, "none");
}

void btrfs_extent_flags_to_str(u64 flags, char *buf, size_t len)
{
	bool data = flags & BTRFS_EXTENT_FLAG_DATA;

	/* progs: a bar before TREE_BLOCK only after DATA, always before FULL_BACKREF */
	snprintf(buf, len, "%s%s%s%s",
		 data ? "DATA" : "",
		 (data && (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK)) ? "|" : "",
		 (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) ? "TREE_BLOCK" : "",
		 (flags & BTRFS_BLOCK_FLAG_FULL_BACKREF) ? "|FULL_BACKREF" : "");
}

void btrfs_qgroup_status_flags_to_str(u64 flags, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s",
		 (flags & BTRFS_QGROUP_STATUS_FLAG_ON) ? "ON" : "OFF",
		 (flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN) ? "|SCANNING" : "",
		 (flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT) ? "|INCONSISTENT" : "");
}

const char *btrfs_compress_name(u8 type, char *buf, size_t len)
{
	switch (type) {
	case BTRFS_COMPRESS_NONE:	return "none";
	case BTRFS_COMPRESS_ZLIB:	return "zlib";
	case BTRFS_COMPRESS_LZO:	return "lzo";
	case BTRFS_COMPRESS_ZSTD:	return "zstd";
	}
	snprintf(buf, len, "UNKNOWN.%d", type);
	return buf;
}

const char *btrfs_file_extent_type_name(u8 type)
{
	switch (type) {
	case BTRFS_FILE_EXTENT_INLINE:		return "inline";
	case BTRFS_FILE_EXTENT_PREALLOC:	return "prealloc";
	case BTRFS_FILE_EXTENT_REG:		return "regular";
	}
	return "unknown";
}

const char *btrfs_dir_type_name(u8 type)
{
	static const char *const names[] = {
		[BTRFS_FT_REG_FILE]	= "FILE",
		[BTRFS_FT_DIR]		= "DIR",
		[BTRFS_FT_CHRDEV]	= "CHRDEV",
		[BTRFS_FT_BLKDEV]	= "BLKDEV",
		[BTRFS_FT_FIFO]		= "FIFO",
		[BTRFS_FT_SOCK]		= "SOCK",
		[BTRFS_FT_SYMLINK]	= "SYMLINK",
		[BTRFS_FT_XATTR]	= "XATTR",
	};

	if (type < sizeof(names) / sizeof(names[0]))
		return names[type];
	return NULL;
}

/* ---- inode items and references ---- */

static void print_inode_item(struct item_ctx *c)
{
	const struct btrfs_inode_item *ii = (const void *)c->ptr;
	char flags[128];

	if (!item_fits(c, sizeof(*ii), "inode item"))
		return;
	btrfs_inode_flags_to_str(btrfs_inode_flags(ii), flags, sizeof(flags));
	pr_fmt(c->p,
		"\t\tgeneration %llu transid %llu size %llu nbytes %llu\n"
		"\t\tblock group %llu mode %o links %u uid %u gid %u rdev %llu\n"
		"\t\tsequence %llu flags 0x%llx(%s)\n",
		(unsigned long long)btrfs_inode_generation(ii),
		(unsigned long long)btrfs_inode_transid(ii),
		(unsigned long long)btrfs_inode_size(ii),
		(unsigned long long)btrfs_inode_nbytes(ii),
		(unsigned long long)btrfs_inode_block_group(ii),
		btrfs_inode_mode(ii), btrfs_inode_nlink(ii),
		btrfs_inode_uid(ii), btrfs_inode_gid(ii),
		(unsigned long long)btrfs_inode_rdev(ii),
		(unsigned long long)btrfs_inode_sequence(ii),
		(unsigned long long)btrfs_inode_flags(ii), flags);
	print_timespec(c, "atime", &ii->atime);
	print_timespec(c, "ctime", &ii->ctime);
	print_timespec(c, "mtime", &ii->mtime);
	print_timespec(c, "otime", &ii->otime);
}

/* progs reads names into a buffer of BTRFS_NAME_LEN bytes */
static u32 shown_len(u32 len)
{
	return len < BTRFS_NAME_LEN ? len : BTRFS_NAME_LEN;
}

static void print_entry_name(struct item_ctx *c, const struct btrfs_name_entry *e,
			     const char *prefix)
{
	pr_str(c->p, prefix);
	if (hide_names(c)) {
		pr_str(c->p, "name: HIDDEN\n");
		return;
	}
	pr_str(c->p, "name: ");
	out_name(c->p, e->name, shown_len(e->name_avail));
	pr_char(c->p, '\n');
	if (e->name_avail < e->name_len)
		pr_fmt(c->p, "\t\tinvalid name: name_len %u but only %u bytes left in the item\n",
			e->name_len, e->name_avail);
}

static void print_walk_short(struct item_ctx *c, u32 cur, const char *what)
{
	pr_fmt(c->p, "\t\tinvalid %s: %u bytes left at offset %u, too short for an entry\n",
		what, c->size - cur, cur);
}

static void print_inode_ref(struct item_ctx *c)
{
	struct btrfs_name_entry e = { 0 };
	int st;

	while ((st = btrfs_walk_name_entry(BTRFS_INODE_REF_KEY, c->ptr, c->size, &e)) > 0) {
		pr_fmt(c->p, "\t\tindex %llu namelen %u ",
			(unsigned long long)e.index, e.name_len);
		print_entry_name(c, &e, "");
	}
	if (st < 0)
		print_walk_short(c, e.off + e.len, "inode ref");
}

static void print_inode_extref(struct item_ctx *c)
{
	struct btrfs_name_entry e = { 0 };
	int st;

	while ((st = btrfs_walk_name_entry(BTRFS_INODE_EXTREF_KEY, c->ptr, c->size, &e)) > 0) {
		pr_fmt(c->p, "\t\tindex %llu parent %llu namelen %u ",
			(unsigned long long)e.index, (unsigned long long)e.parent,
			e.name_len);
		print_entry_name(c, &e, "");
	}
	if (st < 0)
		print_walk_short(c, e.off + e.len, "inode extref");
}

static void print_dir_item(struct item_ctx *c)
{
	struct btrfs_name_entry e = { 0 };
	const char *type;
	int st;

	/* dir items, dir indexes and xattrs share the layout */
	while ((st = btrfs_walk_name_entry(BTRFS_DIR_ITEM_KEY, c->ptr, c->size, &e)) > 0) {
		pr_str(c->p, "\t\tlocation ");
		pr_key(c->p, &e.di->location);
		type = btrfs_dir_type_name(btrfs_dir_type(e.di));
		if (type)
			pr_fmt(c->p, " type %s\n", type);
		else
			pr_fmt(c->p, " type DIR_ITEM.%u\n", btrfs_dir_type(e.di));
		pr_fmt(c->p, "\t\ttransid %llu data_len %u name_len %u\n",
			(unsigned long long)btrfs_dir_transid(e.di), e.data_len,
			e.name_len);
		print_entry_name(c, &e, "\t\t");
		if (!e.data_len)
			continue;
		if (hide_names(c)) {
			pr_str(c->p, "\t\tdata HIDDEN\n");
			continue;
		}
		pr_str(c->p, "\t\tdata ");
		out_name(c->p, e.data, shown_len(e.data_avail));
		pr_char(c->p, '\n');
		if (e.data_avail < e.data_len)
			pr_fmt(c->p, "\t\tinvalid data: data_len %u but only %u bytes left in the item\n",
				e.data_len, e.data_avail);
	}
	if (st < 0)
		print_walk_short(c, e.off + e.len, "dir item");
}

static void print_dir_log(struct item_ctx *c)
{
	if (!item_fits(c, sizeof(struct btrfs_dir_log_item), "dir log item"))
		return;
	pr_fmt(c->p, "\t\tdir log end %llu\n",
		(unsigned long long)btrfs_dir_log_end((const void *)c->ptr));
}

/* ---- roots ---- */

static void print_root_item(struct item_ctx *c)
{
	struct btrfs_root_item ri;
	char flags[16];

	/* older items are shorter; the missing tail reads as zeroes */
	memset(&ri, 0, sizeof(ri));
	memcpy(&ri, c->ptr, c->size < sizeof(ri) ? c->size : sizeof(ri));
	snprintf(flags, sizeof(flags), "%s",
		 (btrfs_root_flags(&ri) & BTRFS_ROOT_SUBVOL_RDONLY) ? "RDONLY" : "none");
	pr_fmt(c->p,
		"\t\tgeneration %llu root_dirid %llu bytenr %llu byte_limit %llu bytes_used %llu\n"
		"\t\tlast_snapshot %llu flags 0x%llx(%s) refs %u\n",
		(unsigned long long)btrfs_root_generation(&ri),
		(unsigned long long)btrfs_root_dirid(&ri),
		(unsigned long long)btrfs_root_bytenr(&ri),
		(unsigned long long)btrfs_root_byte_limit(&ri),
		(unsigned long long)btrfs_root_bytes_used(&ri),
		(unsigned long long)btrfs_root_last_snapshot(&ri),
		(unsigned long long)btrfs_root_flags(&ri), flags,
		btrfs_root_refs(&ri));
	pr_str(c->p, "\t\tdrop_progress ");
	pr_key(c->p, &ri.drop_progress);
	pr_fmt(c->p, " drop_level %u\n", btrfs_root_drop_level(&ri));
	pr_fmt(c->p, "\t\tlevel %u generation_v2 %llu\n", btrfs_root_level(&ri),
		(unsigned long long)btrfs_root_generation_v2(&ri));
	/* the v2 fields are only meaningful when the kernel updated them */
	if (btrfs_root_generation(&ri) != btrfs_root_generation_v2(&ri))
		return;
	print_uuid_line(c->p, "uuid", ri.uuid);
	print_uuid_line(c->p, "parent_uuid", ri.parent_uuid);
	print_uuid_line(c->p, "received_uuid", ri.received_uuid);
	pr_fmt(c->p, "\t\tctransid %llu otransid %llu stransid %llu rtransid %llu\n",
		(unsigned long long)btrfs_root_ctransid(&ri),
		(unsigned long long)btrfs_root_otransid(&ri),
		(unsigned long long)btrfs_root_stransid(&ri),
		(unsigned long long)btrfs_root_rtransid(&ri));
	print_timespec(c, "ctime", &ri.ctime);
	print_timespec(c, "otime", &ri.otime);
	print_timespec(c, "stime", &ri.stime);
	print_timespec(c, "rtime", &ri.rtime);
}

static void print_root_ref(struct item_ctx *c, const char *tag)
{
	const struct btrfs_root_ref *ref = (const void *)c->ptr;
	u32 len, avail;

	if (!item_fits(c, sizeof(*ref), "root ref"))
		return;
	len = btrfs_root_ref_name_len(ref);
	avail = c->size - sizeof(*ref);
	pr_fmt(c->p, "\t\troot %s key dirid %llu sequence %llu name ", tag,
		(unsigned long long)btrfs_root_ref_dirid(ref),
		(unsigned long long)btrfs_root_ref_sequence(ref));
	out_name(c->p, c->ptr + sizeof(*ref), len < avail ? len : avail);
	pr_char(c->p, '\n');
	if (avail < len)
		pr_fmt(c->p, "\t\tinvalid name: name_len %u but only %u bytes left in the item\n",
			len, avail);
}

/* ---- extents and back references ---- */

enum inline_ref_status btrfs_next_inline_ref(const u8 *item, u32 size, u32 *cur,
					     struct inline_ref *ref)
{
	const struct btrfs_extent_inline_ref *iref;
	u32 need;

	if (*cur >= size)
		return INLINE_REF_END;
	memset(ref, 0, sizeof(*ref));
	ref->type = item[*cur];
	need = btrfs_extent_inline_ref_size(ref->type);
	if (!need)
		return INLINE_REF_UNKNOWN;
	if (size - *cur < need)
		return INLINE_REF_SHORT;
	iref = (const struct btrfs_extent_inline_ref *)(item + *cur);
	if (ref->type == BTRFS_EXTENT_DATA_REF_KEY) {
		ref->dref = (const struct btrfs_extent_data_ref *)(item + *cur + 1);
	} else {
		ref->offset = btrfs_extent_inline_ref_offset(iref);
		if (ref->type == BTRFS_SHARED_DATA_REF_KEY)
			ref->count = get_unaligned_le32(iref + 1);
	}
	*cur += need;
	return INLINE_REF_OK;
}

static void print_inline_ref(struct item_ctx *c, const struct inline_ref *ref)
{
	struct btrfs_printer *p = c->p;

	switch (ref->type) {
	case BTRFS_TREE_BLOCK_REF_KEY:
		pr_str(p, "\t\ttree block backref root ");
		pr_objectid(p, ref->offset, 0);
		pr_char(p, '\n');
		break;
	case BTRFS_SHARED_BLOCK_REF_KEY:
		pr_fmt(p, "\t\tshared block backref parent %llu\n",
			(unsigned long long)ref->offset);
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:
		pr_str(p, "\t\textent data backref root ");
		pr_objectid(p, btrfs_extent_data_ref_root(ref->dref), 0);
		pr_fmt(p, " objectid %llu offset %llu count %u\n",
			(unsigned long long)btrfs_extent_data_ref_objectid(ref->dref),
			(unsigned long long)btrfs_extent_data_ref_offset(ref->dref),
			btrfs_extent_data_ref_count(ref->dref));
		break;
	case BTRFS_SHARED_DATA_REF_KEY:
		pr_fmt(p, "\t\tshared data backref parent %llu count %u\n",
			(unsigned long long)ref->offset, ref->count);
		break;
	}
}

static void print_extent_item(struct item_ctx *c)
{
	const struct btrfs_extent_item *ei = (const void *)c->ptr;
	bool skinny = c->key.type == BTRFS_METADATA_ITEM_KEY;
	struct inline_ref ref;
	enum inline_ref_status st;
	char flags_str[32];
	u64 flags;
	u32 cur = sizeof(*ei);

	/* progs prints nothing for the old 4 byte (v0) items */
	if (c->size < sizeof(*ei))
		return;
	flags = btrfs_extent_flags(ei);
	btrfs_extent_flags_to_str(flags, flags_str, sizeof(flags_str));
	pr_fmt(c->p, "\t\trefs %llu gen %llu flags %s\n",
		(unsigned long long)btrfs_extent_refs(ei),
		(unsigned long long)btrfs_extent_generation(ei), flags_str);
	if (skinny) {
		pr_fmt(c->p, "\t\ttree block skinny level %d\n",
			(int)c->key.offset);
	} else if (flags & BTRFS_EXTENT_FLAG_TREE_BLOCK) {
		const struct btrfs_tree_block_info *info = (const void *)(ei + 1);

		if (!item_fits(c, sizeof(*ei) + sizeof(*info), "tree block info"))
			return;
		pr_str(c->p, "\t\ttree block ");
		pr_key(c->p, &info->key);
		pr_fmt(c->p, " level %d\n", btrfs_tree_block_level(info));
		cur += sizeof(*info);
	}
	/* progs 6.2 knows no owner references and stops there, as on any unknown type */
	while ((st = btrfs_next_inline_ref(c->ptr, c->size, &cur, &ref)) == INLINE_REF_OK &&
	       ref.type != BTRFS_EXTENT_OWNER_REF_KEY)
		print_inline_ref(c, &ref);
	if (st == INLINE_REF_SHORT)
		pr_fmt(c->p, "\t\tinvalid inline ref: type %u does not fit, %u bytes left\n",
			ref.type, c->size - cur);
}

static void print_extent_data_ref(struct item_ctx *c)
{
	const struct btrfs_extent_data_ref *dref = (const void *)c->ptr;

	if (!item_fits(c, sizeof(*dref), "extent data ref"))
		return;
	pr_str(c->p, "\t\textent data backref root ");
	pr_objectid(c->p, btrfs_extent_data_ref_root(dref), 0);
	pr_fmt(c->p, " objectid %llu offset %llu count %u\n",
		(unsigned long long)btrfs_extent_data_ref_objectid(dref),
		(unsigned long long)btrfs_extent_data_ref_offset(dref),
		btrfs_extent_data_ref_count(dref));
}

static void print_shared_data_ref(struct item_ctx *c)
{
	if (!item_fits(c, sizeof(struct btrfs_shared_data_ref), "shared data ref"))
		return;
	pr_fmt(c->p, "\t\tshared data backref count %u\n",
		btrfs_shared_data_ref_count((const void *)c->ptr));
}

static void print_extent_csum(struct item_ctx *c)
{
	struct btrfs_printer *p = c->p;
	u32 csum_size = p->csum_size ? p->csum_size : 4;
	u32 count = c->size / csum_size;
	u32 len = count * p->sectorsize;
	u32 per_line, on_line = 0, i, j;
	u64 start = c->key.offset;
	const u8 *csum = c->ptr;

	pr_fmt(c->p, "\t\trange start %llu end %llu length %u\n",
		(unsigned long long)start, (unsigned long long)(start + len), len);
	if (!(p->mode & BTRFS_PRINT_TREE_CSUM_ITEMS) || !count)
		return;
	/* a line holds 4 crc32c, 2 xxhash64 or 1 sha256/blake2 checksum */
	per_line = BTRFS_CSUM_SIZE / csum_size / 2;
	if (!per_line)
		per_line = 1;
	pr_str(c->p, "\t\t");
	for (i = 0; i < count; i++) {
		if (on_line == per_line) {
			pr_str(c->p, "\n\t\t");
			on_line = 0;
		} else if (on_line) {
			pr_char(c->p, ' ');
		}
		pr_fmt(c->p, "[%llu] 0x", (unsigned long long)start);
		for (j = 0; j < csum_size; j++)
			pr_fmt(c->p, "%02x", *csum++);
		start += p->sectorsize;
		on_line++;
	}
	pr_char(c->p, '\n');
}

static void print_file_extent(struct item_ctx *c)
{
	const struct btrfs_file_extent_item *fi = (const void *)c->ptr;
	char cbuf[16];
	const char *compress;
	u8 type;

	if (!item_fits(c, BTRFS_FILE_EXTENT_INLINE_DATA_START, "file extent"))
		return;
	type = btrfs_file_extent_type(fi);
	compress = btrfs_compress_name(btrfs_file_extent_compression(fi), cbuf,
				       sizeof(cbuf));
	pr_fmt(c->p, "\t\tgeneration %llu type %u (%s)\n",
		(unsigned long long)btrfs_file_extent_generation(fi), type,
		btrfs_file_extent_type_name(type));
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		pr_fmt(c->p, "\t\tinline extent data size %u ram_bytes %llu compression %u (%s)\n",
			c->size - (u32)BTRFS_FILE_EXTENT_INLINE_DATA_START,
			(unsigned long long)btrfs_file_extent_ram_bytes(fi),
			btrfs_file_extent_compression(fi), compress);
		return;
	}
	if (!item_fits(c, sizeof(*fi), "file extent"))
		return;
	if (type == BTRFS_FILE_EXTENT_PREALLOC) {
		pr_fmt(c->p, "\t\tprealloc data disk byte %llu nr %llu\n"
			"\t\tprealloc data offset %llu nr %llu\n",
			(unsigned long long)btrfs_file_extent_disk_bytenr(fi),
			(unsigned long long)btrfs_file_extent_disk_num_bytes(fi),
			(unsigned long long)btrfs_file_extent_offset(fi),
			(unsigned long long)btrfs_file_extent_num_bytes(fi));
		return;
	}
	pr_fmt(c->p, "\t\textent data disk byte %llu nr %llu\n"
		"\t\textent data offset %llu nr %llu ram %llu\n"
		"\t\textent compression %u (%s)\n",
		(unsigned long long)btrfs_file_extent_disk_bytenr(fi),
		(unsigned long long)btrfs_file_extent_disk_num_bytes(fi),
		(unsigned long long)btrfs_file_extent_offset(fi),
		(unsigned long long)btrfs_file_extent_num_bytes(fi),
		(unsigned long long)btrfs_file_extent_ram_bytes(fi),
		btrfs_file_extent_compression(fi), compress);
}

/* ---- block groups, free space, chunks, devices ---- */

static void print_block_group(struct item_ctx *c)
{
	const struct btrfs_block_group_item *bg = (const void *)c->ptr;
	char flags[BTRFS_BG_FLAGS_STR_LEN];

	if (!item_fits(c, sizeof(*bg), "block group item"))
		return;
	btrfs_bg_flags_to_str(btrfs_block_group_flags(bg), flags);
	pr_fmt(c->p, "\t\tblock group used %llu chunk_objectid %llu flags %s\n",
		(unsigned long long)btrfs_block_group_used(bg),
		(unsigned long long)btrfs_block_group_chunk_objectid(bg), flags);
}

static void print_free_space_info(struct item_ctx *c)
{
	const struct btrfs_free_space_info *info = (const void *)c->ptr;

	if (!item_fits(c, sizeof(*info), "free space info"))
		return;
	pr_fmt(c->p, "\t\tfree space info extent count %u flags %u\n",
		btrfs_free_space_extent_count(info), btrfs_free_space_flags(info));
}

static void print_free_space_header(struct item_ctx *c)
{
	const struct btrfs_free_space_header *h = (const void *)c->ptr;

	if (!item_fits(c, sizeof(*h), "free space header"))
		return;
	pr_str(c->p, "\t\tlocation ");
	pr_key(c->p, &h->location);
	pr_fmt(c->p, "\n\t\tcache generation %llu entries %llu bitmaps %llu\n",
		(unsigned long long)btrfs_free_space_generation(h),
		(unsigned long long)btrfs_free_space_entries(h),
		(unsigned long long)btrfs_free_space_bitmaps(h));
}

static void print_chunk(struct item_ctx *c)
{
	const struct btrfs_chunk *chunk = (const void *)c->ptr;
	char flags[BTRFS_BG_FLAGS_STR_LEN];
	char uuid[BTRFS_UUID_UNPARSED_SIZE];
	u16 num_stripes;
	int i;

	if (!item_fits(c, offsetof(struct btrfs_chunk, stripe), "chunk item"))
		return;
	num_stripes = btrfs_chunk_num_stripes(chunk);
	if (num_stripes < 1) {
		pr_fmt(c->p, "invalid num_stripes: %u\n", num_stripes);
		return;
	}
	if (c->size < btrfs_chunk_item_size(num_stripes)) {
		pr_str(c->p, "\t\tchunk item invalid\n");
		return;
	}
	btrfs_bg_flags_to_str(btrfs_chunk_type(chunk), flags);
	pr_fmt(c->p, "\t\tlength %llu owner %llu stripe_len %llu type %s\n"
		"\t\tio_align %u io_width %u sector_size %u\n"
		"\t\tnum_stripes %u sub_stripes %u\n",
		(unsigned long long)btrfs_chunk_length(chunk),
		(unsigned long long)btrfs_chunk_owner(chunk),
		(unsigned long long)btrfs_chunk_stripe_len(chunk), flags,
		btrfs_chunk_io_align(chunk), btrfs_chunk_io_width(chunk),
		btrfs_chunk_sector_size(chunk), num_stripes,
		btrfs_chunk_sub_stripes(chunk));
	for (i = 0; i < num_stripes; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(chunk, i);

		btrfs_format_uuid(s->dev_uuid, uuid);
		pr_fmt(c->p, "\t\t\tstripe %d devid %llu offset %llu\n"
			"\t\t\tdev_uuid %s\n", i,
			(unsigned long long)btrfs_stripe_devid(s),
			(unsigned long long)btrfs_stripe_offset(s), uuid);
	}
}

static void print_dev_item(struct item_ctx *c)
{
	const struct btrfs_dev_item *d = (const void *)c->ptr;
	char uuid[BTRFS_UUID_UNPARSED_SIZE];
	char fsid[BTRFS_UUID_UNPARSED_SIZE];

	if (!item_fits(c, sizeof(*d), "dev item"))
		return;
	btrfs_format_uuid(d->uuid, uuid);
	btrfs_format_uuid(d->fsid, fsid);
	pr_fmt(c->p, "\t\tdevid %llu total_bytes %llu bytes_used %llu\n"
		"\t\tio_align %u io_width %u sector_size %u type %llu\n"
		"\t\tgeneration %llu start_offset %llu dev_group %u\n"
		"\t\tseek_speed %u bandwidth %u\n"
		"\t\tuuid %s\n"
		"\t\tfsid %s\n",
		(unsigned long long)btrfs_device_id(d),
		(unsigned long long)btrfs_device_total_bytes(d),
		(unsigned long long)btrfs_device_bytes_used(d),
		btrfs_device_io_align(d), btrfs_device_io_width(d),
		btrfs_device_sector_size(d),
		(unsigned long long)btrfs_device_type(d),
		(unsigned long long)btrfs_device_generation(d),
		(unsigned long long)btrfs_device_start_offset(d),
		btrfs_device_group(d), btrfs_device_seek_speed(d),
		btrfs_device_bandwidth(d), uuid, fsid);
}

static void print_dev_extent(struct item_ctx *c)
{
	const struct btrfs_dev_extent *de = (const void *)c->ptr;
	char uuid[BTRFS_UUID_UNPARSED_SIZE];

	if (!item_fits(c, sizeof(*de), "dev extent"))
		return;
	btrfs_format_uuid(de->chunk_tree_uuid, uuid);
	pr_fmt(c->p, "\t\tdev extent chunk_tree %llu\n"
		"\t\tchunk_objectid %llu chunk_offset %llu length %llu\n"
		"\t\tchunk_tree_uuid %s\n",
		(unsigned long long)btrfs_dev_extent_chunk_tree(de),
		(unsigned long long)btrfs_dev_extent_chunk_objectid(de),
		(unsigned long long)btrfs_dev_extent_chunk_offset(de),
		(unsigned long long)btrfs_dev_extent_length(de), uuid);
}

/* ---- quotas, uuids, strings ---- */

static void print_qgroup_status(struct item_ctx *c)
{
	const struct btrfs_qgroup_status_item *s = (const void *)c->ptr;
	char flags[32];

	/* enable_gen, the last field, came later */
	if (!item_fits(c, offsetof(struct btrfs_qgroup_status_item, enable_gen),
		       "qgroup status"))
		return;
	btrfs_qgroup_status_flags_to_str(btrfs_qgroup_status_flags(s), flags,
					 sizeof(flags));
	pr_fmt(c->p, "\t\tversion %llu generation %llu flags %s scan %llu\n",
		(unsigned long long)btrfs_qgroup_status_version(s),
		(unsigned long long)btrfs_qgroup_status_generation(s), flags,
		(unsigned long long)btrfs_qgroup_status_rescan(s));
}

static void print_qgroup_info(struct item_ctx *c)
{
	const struct btrfs_qgroup_info_item *qi = (const void *)c->ptr;

	if (!item_fits(c, sizeof(*qi), "qgroup info"))
		return;
	pr_fmt(c->p, "\t\tgeneration %llu\n"
		"\t\treferenced %llu referenced_compressed %llu\n"
		"\t\texclusive %llu exclusive_compressed %llu\n",
		(unsigned long long)btrfs_qgroup_info_generation(qi),
		(unsigned long long)btrfs_qgroup_info_rfer(qi),
		(unsigned long long)btrfs_qgroup_info_rfer_cmpr(qi),
		(unsigned long long)btrfs_qgroup_info_excl(qi),
		(unsigned long long)btrfs_qgroup_info_excl_cmpr(qi));
}

static void print_qgroup_limit(struct item_ctx *c)
{
	const struct btrfs_qgroup_limit_item *ql = (const void *)c->ptr;

	if (!item_fits(c, sizeof(*ql), "qgroup limit"))
		return;
	pr_fmt(c->p, "\t\tflags %llx\n"
		"\t\tmax_referenced %lld max_exclusive %lld\n"
		"\t\trsv_referenced %lld rsv_exclusive %lld\n",
		(unsigned long long)btrfs_qgroup_limit_flags(ql),
		(long long)btrfs_qgroup_limit_max_rfer(ql),
		(long long)btrfs_qgroup_limit_max_excl(ql),
		(long long)btrfs_qgroup_limit_rsv_rfer(ql),
		(long long)btrfs_qgroup_limit_rsv_excl(ql));
}

static void print_uuid_item(struct item_ctx *c)
{
	u32 off;

	if (c->size % sizeof(u64)) {
		pr_fmt(c->p, "btrfs: uuid item with illegal size %lu!\n",
			(unsigned long)c->size);
		return;
	}
	for (off = 0; off < c->size; off += sizeof(u64))
		pr_fmt(c->p, "\t\tsubvol_id %llu\n",
			(unsigned long long)get_unaligned_le64(c->ptr + off));
}

static void print_string_item(struct item_ctx *c)
{
	pr_str(c->p, "\t\titem data ");
	out_name(c->p, c->ptr, c->size);
	pr_char(c->p, '\n');
}

/* ---- persistent and temporary items ---- */

static void print_dev_stats(struct item_ctx *c)
{
	const struct btrfs_dev_stats_item *s = (const void *)c->ptr;
	u32 known = BTRFS_DEV_STAT_VALUES_MAX * sizeof(u64);
	u32 i;

	pr_str(c->p, "\t\tdevice stats\n");
	if (!item_fits(c, known, "device stats"))
		return;
	pr_fmt(c->p, "\t\twrite_errs %llu read_errs %llu flush_errs %llu corruption_errs %llu generation %llu\n",
		(unsigned long long)btrfs_dev_stats_value(s, 0),
		(unsigned long long)btrfs_dev_stats_value(s, 1),
		(unsigned long long)btrfs_dev_stats_value(s, 2),
		(unsigned long long)btrfs_dev_stats_value(s, 3),
		(unsigned long long)btrfs_dev_stats_value(s, 4));
	if (c->size <= known)
		return;
	/* progs starts this line without ending it */
	pr_fmt(c->p, "\t\tunknown stats item bytes %u", c->size - known);
	for (i = BTRFS_DEV_STAT_VALUES_MAX; (i + 1) * sizeof(u64) <= c->size; i++)
		pr_fmt(c->p, "\t\tunknown item %u offset %zu value %llu\n", i,
			i * sizeof(u64),
			(unsigned long long)get_unaligned_le64(c->ptr + i * 8));
	if (c->size % sizeof(u64))
		pr_fmt(c->p, "\t\tunknown item %u offset %zu: only %u bytes\n",
			i, i * sizeof(u64), c->size % (u32)sizeof(u64));
}

static void print_persistent_item(struct item_ctx *c)
{
	pr_str(c->p, "\t\tpersistent item objectid ");
	pr_objectid(c->p, c->key.objectid, BTRFS_PERSISTENT_ITEM_KEY);
	pr_fmt(c->p, " offset %llu\n", (unsigned long long)c->key.offset);
	if (c->key.objectid == BTRFS_DEV_STATS_OBJECTID)
		print_dev_stats(c);
	else
		pr_fmt(c->p, "\t\tunknown persistent item objectid %llu\n",
			(unsigned long long)c->key.objectid);
}

static void print_balance_args(struct btrfs_printer *p,
			       const struct btrfs_disk_balance_args *ba)
{
	pr_fmt(p, "\t\tprofiles %llu devid %llu target %llu flags %llu\n"
		"\t\tusage_min %u usage_max %u pstart %llu pend %llu\n"
		"\t\tvstart %llu vend %llu limit_min %u limit_max %u\n"
		"\t\tstripes_min %u stripes_max %u\n",
		(unsigned long long)btrfs_disk_balance_args_profiles(ba),
		(unsigned long long)btrfs_disk_balance_args_devid(ba),
		(unsigned long long)btrfs_disk_balance_args_target(ba),
		(unsigned long long)btrfs_disk_balance_args_flags(ba),
		btrfs_disk_balance_args_usage_min(ba),
		btrfs_disk_balance_args_usage_max(ba),
		(unsigned long long)btrfs_disk_balance_args_pstart(ba),
		(unsigned long long)btrfs_disk_balance_args_pend(ba),
		(unsigned long long)btrfs_disk_balance_args_vstart(ba),
		(unsigned long long)btrfs_disk_balance_args_vend(ba),
		btrfs_disk_balance_args_limit_min(ba),
		btrfs_disk_balance_args_limit_max(ba),
		btrfs_disk_balance_args_stripes_min(ba),
		btrfs_disk_balance_args_stripes_max(ba));
}

/* objectid of the (experimental, progs 6.2) csum conversion tree pointer */
#define BTRFS_CSUM_TREE_TMP_OBJECTID 13ULL

static void print_balance_item(struct item_ctx *c)
{
	const struct btrfs_balance_item *bi = (const void *)c->ptr;

	/* the unused tail is not needed */
	if (!item_fits(c, offsetof(struct btrfs_balance_item, unused), "balance item"))
		return;
	pr_fmt(c->p, "\t\tbalance status flags %llu\n",
		(unsigned long long)btrfs_balance_flags(bi));
	pr_str(c->p, "\t\tDATA\n");
	print_balance_args(c->p, &bi->data);
	pr_str(c->p, "\t\tMETADATA\n");
	print_balance_args(c->p, &bi->meta);
	pr_str(c->p, "\t\tSYSTEM\n");
	print_balance_args(c->p, &bi->sys);
}

static void print_temporary_item(struct item_ctx *c)
{
	pr_str(c->p, "\t\ttemporary item objectid ");
	pr_objectid(c->p, c->key.objectid, BTRFS_TEMPORARY_ITEM_KEY);
	pr_fmt(c->p, " offset %llu\n", (unsigned long long)c->key.offset);
	switch (c->key.objectid) {
	case BTRFS_BALANCE_OBJECTID:
		print_balance_item(c);
		break;
	case BTRFS_CSUM_TREE_TMP_OBJECTID:
		pr_fmt(c->p, "\t\tcsum tree tmp root %llu\n",
			(unsigned long long)c->key.offset);
		break;
	default:
		pr_fmt(c->p, "\t\tunknown temporary item objectid %llu\n",
			(unsigned long long)c->key.objectid);
	}
}

/* ---- dispatch ---- */

static void print_item_body(struct item_ctx *c)
{
	struct btrfs_printer *p = c->p;

	switch (c->key.type) {
	case BTRFS_INODE_ITEM_KEY:	print_inode_item(c); break;
	case BTRFS_INODE_REF_KEY:	print_inode_ref(c); break;
	case BTRFS_INODE_EXTREF_KEY:	print_inode_extref(c); break;
	case BTRFS_DIR_ITEM_KEY:
	case BTRFS_DIR_INDEX_KEY:
	case BTRFS_XATTR_ITEM_KEY:	print_dir_item(c); break;
	case BTRFS_DIR_LOG_INDEX_KEY:
	case BTRFS_DIR_LOG_ITEM_KEY:	print_dir_log(c); break;
	case BTRFS_ORPHAN_ITEM_KEY:	pr_str(p, "\t\torphan item\n"); break;
	case BTRFS_ROOT_ITEM_KEY:	print_root_item(c); break;
	case BTRFS_ROOT_REF_KEY:	print_root_ref(c, "ref"); break;
	case BTRFS_ROOT_BACKREF_KEY:	print_root_ref(c, "backref"); break;
	case BTRFS_EXTENT_ITEM_KEY:
	case BTRFS_METADATA_ITEM_KEY:	print_extent_item(c); break;
	case BTRFS_TREE_BLOCK_REF_KEY:	pr_str(p, "\t\ttree block backref\n"); break;
	case BTRFS_SHARED_BLOCK_REF_KEY: pr_str(p, "\t\tshared block backref\n"); break;
	case BTRFS_EXTENT_DATA_REF_KEY:	print_extent_data_ref(c); break;
	case BTRFS_SHARED_DATA_REF_KEY:	print_shared_data_ref(c); break;
	case BTRFS_EXTENT_REF_V0_KEY:	pr_str(p, "\t\textent ref v0 (deprecated)\n"); break;
	case BTRFS_CSUM_ITEM_KEY:	pr_str(p, "\t\tcsum item\n"); break;
	case BTRFS_EXTENT_CSUM_KEY:	print_extent_csum(c); break;
	case BTRFS_EXTENT_DATA_KEY:	print_file_extent(c); break;
	case BTRFS_BLOCK_GROUP_ITEM_KEY: print_block_group(c); break;
	case BTRFS_FREE_SPACE_INFO_KEY:	print_free_space_info(c); break;
	case BTRFS_FREE_SPACE_EXTENT_KEY: pr_str(p, "\t\tfree space extent\n"); break;
	case BTRFS_FREE_SPACE_BITMAP_KEY: pr_str(p, "\t\tfree space bitmap\n"); break;
	case BTRFS_CHUNK_ITEM_KEY:	print_chunk(c); break;
	case BTRFS_DEV_ITEM_KEY:	print_dev_item(c); break;
	case BTRFS_DEV_EXTENT_KEY:	print_dev_extent(c); break;
	case BTRFS_QGROUP_STATUS_KEY:	print_qgroup_status(c); break;
	case BTRFS_QGROUP_INFO_KEY:	print_qgroup_info(c); break;
	case BTRFS_QGROUP_LIMIT_KEY:	print_qgroup_limit(c); break;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL: print_uuid_item(c); break;
	case BTRFS_STRING_ITEM_KEY:	print_string_item(c); break;
	case BTRFS_PERSISTENT_ITEM_KEY:	print_persistent_item(c); break;
	case BTRFS_TEMPORARY_ITEM_KEY:	print_temporary_item(c); break;
	}
}

void btrfs_print_item(struct btrfs_printer *p, const struct extent_buffer *eb,
		      int slot)
{
	struct item_ctx c;

	c.p = p;
	c.eb = eb;
	c.slot = slot;
	btrfs_item_key_to_cpu(eb, &c.key, slot);
	c.ptr = btrfs_item_ptr_raw(eb, slot);
	c.size = btrfs_item_size(eb, slot);
	/* v1 free space cache headers (objectid FREE_SPACE, type 0) */
	if (c.key.type == 0 && c.key.objectid == BTRFS_FREE_SPACE_OBJECTID)
		print_free_space_header(&c);
	print_item_body(&c);
}
