// SPDX-License-Identifier: GPL-2.0
/*
 * Tree block printing: block headers, keys and their names, and the walk
 * over the children of a node (breadth first or depth first).  The text
 * layout is the one of btrfs-progs 6.2 "inspect-internal dump-tree", line
 * for line; the item bodies live in print-tree-items.c and the JSON form
 * in print-tree-json.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "print-tree.h"
#include "print-tree-internal.h"
#include "extent_io.h"
#include "disk-io.h"
#include "ctree.h"
#include "array.h"

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

/* ---- number formatting without printf ---- */

/* digits of @v written backwards ending at @end; returns the first one */
static char *digits_u64(char *end, u64 v)
{
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

static char *digits_base(char *end, u64 v, unsigned int shift)
{
	static const char hex[] = "0123456789abcdef";
	u64 mask = (1U << shift) - 1;

	do {
		*--end = hex[v & mask];
		v >>= shift;
	} while (v);
	return end;
}

static char *put_u64(char *s, u64 v)
{
	char tmp[24];
	char *d = digits_u64(tmp + sizeof(tmp), v);
	size_t n = tmp + sizeof(tmp) - d;

	memcpy(s, d, n);
	return s + n;
}

static char *put_str(char *s, const char *str)
{
	size_t n = strlen(str);

	memcpy(s, str, n);
	return s + n;
}

/* 0x and 16 hex digits */
static char *put_hex16(char *s, u64 v)
{
	int i;

	*s++ = '0';
	*s++ = 'x';
	for (i = 15; i >= 0; i--) {
		s[i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	}
	return s + 16;
}

static char *put_objectid(char *s, u64 objectid, u8 type)
{
	const char *name;

	switch (type) {
	case BTRFS_QGROUP_RELATION_KEY:
		s = put_u64(s, qgroup_level(objectid));
		*s++ = '/';
		return put_u64(s, qgroup_subvolid(objectid));
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		return put_hex16(s, objectid);
	}
	name = btrfs_objectid_name(objectid, type);
	if (name)
		return put_str(s, name);
	return put_u64(s, objectid);
}

static char *put_key_type(char *s, u64 objectid, u8 type)
{
	const char *name = btrfs_key_type_name(objectid, type);

	if (name)
		return put_str(s, name);
	s = put_str(s, "UNKNOWN.");
	return put_u64(s, type);
}

int btrfs_format_objectid(char *buf, u64 objectid, u8 type)
{
	char *end = put_objectid(buf, objectid, type);

	*end = 0;
	return end - buf;
}

int btrfs_format_key(char *buf, const struct btrfs_disk_key *key)
{
	u64 objectid = btrfs_disk_key_objectid(key);
	u8 type = btrfs_disk_key_type(key);
	u64 offset = btrfs_disk_key_offset(key);
	char *s = buf;

	s = put_str(s, "key (");
	s = put_objectid(s, objectid, type);
	*s++ = ' ';
	s = put_key_type(s, objectid, type);
	*s++ = ' ';
	switch (type) {
	case BTRFS_QGROUP_RELATION_KEY:
	case BTRFS_QGROUP_INFO_KEY:
	case BTRFS_QGROUP_LIMIT_KEY:
		s = put_u64(s, qgroup_level(offset));
		*s++ = '/';
		s = put_u64(s, qgroup_subvolid(offset));
		break;
	case BTRFS_UUID_KEY_SUBVOL:
	case BTRFS_UUID_KEY_RECEIVED_SUBVOL:
		s = put_hex16(s, offset);
		break;
	case BTRFS_ROOT_ITEM_KEY:
		/* a relocation tree's offset is the id of the tree it relocates */
		if (objectid == BTRFS_TREE_RELOC_OBJECTID)
			s = put_objectid(s, offset, type);
		else
			s = put_u64(s, offset);
		break;
	default:
		if (offset == (u64)-1)
			s = put_str(s, "-1");
		else
			s = put_u64(s, offset);
	}
	*s++ = ')';
	*s = 0;
	return s - buf;
}

void btrfs_print_objectid(FILE *out, u64 objectid, u8 type)
{
	char buf[BTRFS_KEY_STR_LEN];

	fwrite_unlocked(buf, 1, btrfs_format_objectid(buf, objectid, type), out);
}

void btrfs_print_key_type(FILE *out, u64 objectid, u8 type)
{
	char buf[BTRFS_KEY_STR_LEN];
	char *end = put_key_type(buf, objectid, type);

	fwrite_unlocked(buf, 1, end - buf, out);
}

void btrfs_print_key(FILE *out, const struct btrfs_disk_key *key)
{
	char buf[BTRFS_KEY_STR_LEN];

	fwrite_unlocked(buf, 1, btrfs_format_key(buf, key), out);
}

/* ---- the printer's own buffer ---- */

void pr_flush(struct btrfs_printer *p)
{
	if (p->len)
		fwrite_unlocked(p->buf, 1, p->len, p->out);
	p->len = 0;
}

void pr_mem_slow(struct btrfs_printer *p, const void *s, size_t n)
{
	pr_flush(p);
	if (n >= sizeof(p->buf)) {
		fwrite_unlocked(s, 1, n, p->out);
		return;
	}
	memcpy(p->buf, s, n);
	p->len = n;
}

void pr_u64(struct btrfs_printer *p, u64 v)
{
	char tmp[24];
	char *s = digits_u64(tmp + sizeof(tmp), v);

	pr_mem(p, s, tmp + sizeof(tmp) - s);
}

void pr_key(struct btrfs_printer *p, const struct btrfs_disk_key *key)
{
	char buf[BTRFS_KEY_STR_LEN];

	pr_mem(p, buf, btrfs_format_key(buf, key));
}

void pr_objectid(struct btrfs_printer *p, u64 objectid, u8 type)
{
	char buf[BTRFS_KEY_STR_LEN];

	pr_mem(p, buf, btrfs_format_objectid(buf, objectid, type));
}

static void pr_padded(struct btrfs_printer *p, const char *s, size_t n,
		      int width, bool zero)
{
	while (width > 0 && (size_t)width > n) {
		pr_char(p, zero ? '0' : ' ');
		width--;
	}
	pr_mem(p, s, n);
}

enum { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE };

static u64 arg_unsigned(va_list *ap, int len)
{
	switch (len) {
	case LEN_CHAR:	return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT:	return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG:	return va_arg(*ap, unsigned long);
	case LEN_LLONG:	return va_arg(*ap, unsigned long long);
	case LEN_SIZE:	return va_arg(*ap, size_t);
	}
	return va_arg(*ap, unsigned int);
}

static s64 arg_signed(va_list *ap, int len)
{
	switch (len) {
	case LEN_CHAR:	return (signed char)va_arg(*ap, int);
	case LEN_SHORT:	return (short)va_arg(*ap, int);
	case LEN_LONG:	return va_arg(*ap, long);
	case LEN_LLONG:	return va_arg(*ap, long long);
	case LEN_SIZE:	return va_arg(*ap, ssize_t);
	}
	return va_arg(*ap, int);
}

/* the length modifier at *f (hh h l ll z), moving past it */
static int parse_length(const char **f)
{
	const char *s = *f;
	int len = LEN_INT;

	if (s[0] == 'h')
		len = s[1] == 'h' ? LEN_CHAR : LEN_SHORT;
	else if (s[0] == 'l')
		len = s[1] == 'l' ? LEN_LLONG : LEN_LONG;
	else if (s[0] == 'z')
		len = LEN_SIZE;
	*f += (len == LEN_CHAR || len == LEN_LLONG) ? 2 : len != LEN_INT;
	return len;
}

static void pr_conversion(struct btrfs_printer *p, char conv, int len,
			  int width, int prec, bool zero, va_list *ap)
{
	char tmp[32], *end = tmp + sizeof(tmp), *d;
	const char *str;
	s64 v;

	switch (conv) {
	case 'd':
	case 'i':
		v = arg_signed(ap, len);
		d = digits_u64(end, v < 0 ? -(u64)v : (u64)v);
		if (v < 0)
			*--d = '-';
		pr_padded(p, d, end - d, width, zero);
		return;
	case 'u':
		d = digits_u64(end, arg_unsigned(ap, len));
		break;
	case 'x':
		d = digits_base(end, arg_unsigned(ap, len), 4);
		break;
	case 'o':
		d = digits_base(end, arg_unsigned(ap, len), 3);
		break;
	case 'c':
		pr_char(p, (char)va_arg(*ap, int));
		return;
	case 's':
		str = va_arg(*ap, const char *);
		pr_padded(p, str, prec >= 0 ? strnlen(str, prec) : strlen(str),
			  width, false);
		return;
	case '%':
		pr_char(p, '%');
		return;
	default:
		/* not used by the printers; show it rather than guess */
		pr_char(p, '%');
		if (conv)
			pr_char(p, conv);
		return;
	}
	pr_padded(p, d, end - d, width, zero);
}

/*
 * The part of printf the printers use: %d %i %u %x %o %s %c %%, the 0
 * flag, a width, ".*" or a number as precision of %s, and the hh h l ll z
 * length modifiers.  Several times faster than vfprintf.
 */
static void pr_vfmt(struct btrfs_printer *p, const char *fmt, va_list *ap)
{
	const char *lit = fmt, *f = fmt;
	int width, prec, len;
	bool zero;

	while (*f) {
		if (*f != '%') {
			f++;
			continue;
		}
		pr_mem(p, lit, f - lit);
		f++;
		zero = *f == '0';
		if (zero)
			f++;
		for (width = 0; *f >= '0' && *f <= '9'; f++)
			width = width * 10 + (*f - '0');
		prec = -1;
		if (*f == '.') {
			f++;
			if (*f == '*') {
				prec = va_arg(*ap, int);
				f++;
			} else {
				for (prec = 0; *f >= '0' && *f <= '9'; f++)
					prec = prec * 10 + (*f - '0');
			}
		}
		len = parse_length(&f);
		pr_conversion(p, *f, len, width, prec, zero, ap);
		if (*f)
			f++;
		lit = f;
	}
	pr_mem(p, lit, f - lit);
}

void pr_fmt(struct btrfs_printer *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pr_vfmt(p, fmt, &ap);
	va_end(ap);
}

/* a problem report, after what the printer has buffered */
void pr_report(struct btrfs_printer *p, enum btrfs_report_level level,
	       const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	pr_flush(p);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	btrfs_report(&p->rep, level, "%s", msg);
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

/*
 * The profile of a block group with several profile bits is the first
 * of them in this order, as the kernel decides it.
 */
static u64 bg_profile(u64 flags)
{
	static const u64 order[] = {
		BTRFS_BLOCK_GROUP_RAID10, BTRFS_BLOCK_GROUP_RAID1,
		BTRFS_BLOCK_GROUP_RAID1C3, BTRFS_BLOCK_GROUP_RAID1C4,
		BTRFS_BLOCK_GROUP_DUP, BTRFS_BLOCK_GROUP_RAID0,
		BTRFS_BLOCK_GROUP_RAID5, BTRFS_BLOCK_GROUP_RAID6,
	};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (flags & order[i])
			return order[i];
	return 0;
}

void btrfs_bg_flags_to_str(u64 flags, char *buf)
{
	bool data = flags & BTRFS_BLOCK_GROUP_DATA;

	/*
	 * progs puts a bar before METADATA and SYSTEM only after DATA (so a
	 * METADATA|SYSTEM group reads "METADATASYSTEM"), and always one
	 * before the profile.
	 */
	snprintf(buf, BTRFS_BG_FLAGS_STR_LEN, "%s%s%s%s%s|%s",
		 data ? "DATA" : "",
		 (data && (flags & BTRFS_BLOCK_GROUP_METADATA)) ? "|" : "",
		 (flags & BTRFS_BLOCK_GROUP_METADATA) ? "METADATA" : "",
		 (data && (flags & BTRFS_BLOCK_GROUP_SYSTEM)) ? "|" : "",
		 (flags & BTRFS_BLOCK_GROUP_SYSTEM) ? "SYSTEM" : "",
		 btrfs_profile_name(bg_profile(flags)));
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
int btrfs_print_leaf_free_space(const struct extent_buffer *eb)
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
	u32 i;

	if (level)
		pr_fmt(p, "node %llu level %d items %u free space %u generation %llu owner ",
			(unsigned long long)eb->start, level, nr,
			btrfs_max_node_ptrs(eb->len) - nr,
			(unsigned long long)btrfs_header_generation(h));
	else
		pr_fmt(p, "leaf %llu items %u free space %d generation %llu owner ",
			(unsigned long long)btrfs_header_bytenr(h), nr,
			btrfs_print_leaf_free_space(eb),
			(unsigned long long)btrfs_header_generation(h));
	pr_objectid(p, btrfs_header_owner(h), 0);
	pr_char(p, '\n');

	header_flags_to_str(flags, flags_str, sizeof(flags_str));
	pr_fmt(p, "%s %llu flags 0x%llx(%s) backref revision %d",
		level ? "node" : "leaf",
		(unsigned long long)btrfs_header_bytenr(h),
		(unsigned long long)flags, flags_str, backref_rev);
	if (p->mode & BTRFS_PRINT_TREE_CSUM_HEADERS) {
		pr_str(p, " csum 0x");
		for (i = 0; i < p->csum_size && i < BTRFS_CSUM_SIZE; i++)
			pr_fmt(p, "%02x", h->csum[i]);
	}
	pr_char(p, '\n');

	btrfs_format_uuid(h->fsid, fsid);
	btrfs_format_uuid(h->chunk_tree_uuid, chunk_uuid);
	pr_fmt(p, "fs uuid %s\nchunk uuid %s\n", fsid, chunk_uuid);
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
	pr_report(p, BTRFS_REPORT_ERROR,
		  "leaf %llu slot %u pointer invalid, offset %u size %u leaf data limit %u",
		  (unsigned long long)btrfs_eb_bytenr(eb), slot, off, size,
		  data_size);
	pr_report(p, BTRFS_REPORT_ERROR, "skip remaining slots");
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
	pr_report(p, BTRFS_REPORT_ERROR, "leaf %llu nritems %u corrupted, only %u items fit, printing those",
		  (unsigned long long)btrfs_eb_bytenr(eb), nr, max);
	return max;
}

static void print_leaf_text(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	u32 nr, i;

	print_header_info(p, eb);
	nr = btrfs_print_leaf_nritems(p, eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_item *item = btrfs_item_nr(eb, i);

		if (!btrfs_print_item_ok(p, eb, i))
			break;
		pr_str(p, "\titem ");
		pr_u64(p, i);
		pr_char(p, ' ');
		pr_key(p, &item->key);
		pr_fmt(p, " itemoff %u itemsize %u\n",
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
	pr_flush(p);
}

/* number of key pointers that fit in the block, with a warning if fewer */
u32 btrfs_print_node_nritems(struct btrfs_printer *p,
			     const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb);
	u32 max = btrfs_max_node_ptrs(eb->len);

	if (nr <= max)
		return nr;
	pr_report(p, BTRFS_REPORT_WARNING, "node nr_items corrupted, has %u limit %u, continue anyway",
		   nr, max);
	return max;
}

static void print_node_text(struct btrfs_printer *p,
			    const struct extent_buffer *eb)
{
	u32 nr, i;

	nr = btrfs_print_node_nritems(p, eb);
	print_header_info(p, eb);
	for (i = 0; i < nr; i++) {
		struct btrfs_key_ptr *ptr = btrfs_key_ptr_nr(eb, i);

		pr_char(p, '\t');
		pr_key(p, &ptr->key);
		pr_str(p, " block ");
		pr_u64(p, btrfs_key_blockptr(ptr));
		pr_str(p, " gen ");
		pr_u64(p, btrfs_key_generation(ptr));
		pr_char(p, '\n');
	}
}

void btrfs_print_node(struct btrfs_printer *p, const struct extent_buffer *eb)
{
	if (p->format == BTRFS_PRINT_FORMAT_JSON)
		btrfs_json_print_block(p, eb);
	else
		print_node_text(p, eb);
	pr_flush(p);
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

/*
 * Tree blocks seen in one walk.  A valid tree holds each block once; a
 * hostile one can point many slots at the same subtree, which would make
 * the walk exponential, so a block is followed only the first time.
 */
struct visited {
	u64 *slots;		/* open addressing, 0 is free (no block lives at 0) */
	size_t cap;		/* a power of two */
	size_t nr;
};

static size_t visited_hash(u64 bytenr, size_t cap)
{
	return (size_t)((bytenr >> 12) * 0x9E3779B97F4A7C15ULL) & (cap - 1);
}

static int visited_grow(struct visited *v)
{
	size_t cap = v->cap ? v->cap * 2 : 1024, i, h;
	u64 *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < v->cap; i++) {
		if (!v->slots[i])
			continue;
		for (h = visited_hash(v->slots[i], cap); slots[h]; h = (h + 1) & (cap - 1))
			;
		slots[h] = v->slots[i];
	}
	free(v->slots);
	v->slots = slots;
	v->cap = cap;
	return 0;
}

/* true when @bytenr was not seen yet (and is now); also true without memory */
static bool visit(struct visited *v, u64 bytenr)
{
	size_t h;

	if (!bytenr)
		return true;
	if ((v->nr + 1) * 2 > v->cap && visited_grow(v))
		return true;
	for (h = visited_hash(bytenr, v->cap); v->slots[h]; h = (h + 1) & (v->cap - 1))
		if (v->slots[h] == bytenr)
			return false;
	v->slots[h] = bytenr;
	v->nr++;
	return true;
}

/* a child to follow; reports a repeated one */
static bool follow_child(struct btrfs_printer *p, struct visited *v,
			 const struct extent_buffer *parent, u32 slot)
{
	u64 bytenr = btrfs_node_blockptr(parent, slot);

	if (visit(v, bytenr))
		return true;
	pr_report(p, BTRFS_REPORT_ERROR,
		  "node %llu slot %u points to block %llu again, not following it twice",
		  (unsigned long long)btrfs_eb_bytenr(parent), slot,
		  (unsigned long long)bytenr);
	p->read_errors++;
	return false;
}

static struct extent_buffer *read_block(struct btrfs_printer *p, u64 bytenr,
					u64 transid, int level, int *err)
{
	struct tree_block_check check;

	/* what the read reports must come after what is printed */
	pr_flush(p);
	memset(&check, 0, sizeof(check));
	check.transid = transid;
	check.level = level;
	return read_tree_block(p->fs_info, bytenr, &check, err);
}

/* the blocks of one level of a breadth first walk, left to right */
struct level_list {
	struct {
		u64 bytenr;
		u64 generation;
	} *refs;
	size_t nr;
	size_t cap;
};

static int level_list_add_children(struct btrfs_printer *p, struct visited *v,
				   struct level_list *l,
				   const struct extent_buffer *node)
{
	u32 nr = btrfs_print_node_nritems(p, node);
	u32 i;

	for (i = 0; i < nr; i++) {
		if (!follow_child(p, v, node, i))
			continue;
		if (ARRAY_RESERVE(l->refs, l->cap, l->nr + 1, 256))
			return -ENOMEM;
		l->refs[l->nr].bytenr = btrfs_node_blockptr(node, i);
		l->refs[l->nr].generation = btrfs_node_ptr_generation(node, i);
		l->nr++;
	}
	return 0;
}

/*
 * Breadth first: every block of one level from left to right, then the
 * next level down.  A block that cannot be read ends the walk, as in
 * progs (which reaches each block from the leftmost path, sibling after
 * sibling, and gives up at the first failure).
 */
static void print_children_bfs(struct btrfs_printer *p, struct visited *v,
			       struct extent_buffer *root)
{
	struct level_list cur = { NULL, 0, 0 }, next = { NULL, 0, 0 }, tmp;
	struct extent_buffer *eb;
	int level = btrfs_eb_level(root);
	size_t i;
	int err = 0;

	if (level_list_add_children(p, v, &cur, root))
		goto nomem;
	while (--level >= 0) {
		next.nr = 0;
		for (i = 0; i < cur.nr; i++) {
			eb = read_block(p, cur.refs[i].bytenr, cur.refs[i].generation,
					level, &err);
			if (!eb) {
				p->read_errors++;
				goto out;
			}
			print_one_block(p, eb);
			err = level ? level_list_add_children(p, v, &next, eb) : 0;
			free_extent_buffer(eb);
			if (err)
				goto nomem;
		}
		tmp = cur;
		cur = next;
		next = tmp;
	}
	goto out;
nomem:
	pr_report(p, BTRFS_REPORT_ERROR, "out of memory while walking tree blocks");
	p->read_errors++;
out:
	free(cur.refs);
	free(next.refs);
}

static void print_tree_visited(struct btrfs_printer *p, struct visited *v,
			       struct extent_buffer *eb);

/* depth first: each child and its subtree before the next child */
static void print_children_dfs(struct btrfs_printer *p, struct visited *v,
			       struct extent_buffer *eb)
{
	int level = btrfs_eb_level(eb);
	u32 nr = btrfs_print_node_nritems(p, eb);
	struct extent_buffer *next;
	u32 i;
	int err;

	for (i = 0; i < nr; i++) {
		if (!follow_child(p, v, eb, i))
			continue;
		next = read_block(p, btrfs_node_blockptr(eb, i),
				  btrfs_node_ptr_generation(eb, i), -1, &err);
		if (!next) {
			pr_report(p, BTRFS_REPORT_ERROR, "failed to read %llu in tree %llu",
				  (unsigned long long)btrfs_node_blockptr(eb, i),
				  (unsigned long long)btrfs_eb_owner(eb));
			p->read_errors++;
			continue;
		}
		if (btrfs_eb_level(next) != level - 1) {
			pr_report(p, BTRFS_REPORT_WARNING,
				  "eb corrupted: parent bytenr %llu slot %u level %d child bytenr %llu level has %d expect %d, skipping the slot",
				  (unsigned long long)btrfs_eb_bytenr(eb), i, level,
				  (unsigned long long)btrfs_eb_bytenr(next),
				  btrfs_eb_level(next), level - 1);
			free_extent_buffer(next);
			continue;
		}
		print_tree_visited(p, v, next);
		free_extent_buffer(next);
	}
}

static void print_tree_visited(struct btrfs_printer *p, struct visited *v,
			       struct extent_buffer *eb)
{
	print_one_block(p, eb);
	if (btrfs_eb_level(eb) == 0 || !(p->mode & BTRFS_PRINT_TREE_FOLLOW) ||
	    !p->fs_info)
		return;
	/* breadth first is the default and wins when both are asked for */
	if ((p->mode & BTRFS_PRINT_TREE_DFS) && !(p->mode & BTRFS_PRINT_TREE_BFS))
		print_children_dfs(p, v, eb);
	else
		print_children_bfs(p, v, eb);
}

void btrfs_print_tree(struct btrfs_printer *p, struct extent_buffer *eb)
{
	struct visited v = { NULL, 0, 0 };

	if (!eb)
		return;
	visit(&v, eb->start);
	print_tree_visited(p, &v, eb);
	free(v.slots);
	pr_flush(p);
}

static void print_extents_visited(struct btrfs_printer *p, struct visited *v,
				  struct extent_buffer *eb)
{
	int level = btrfs_eb_level(eb);
	struct extent_buffer *next;
	u32 nr, i;
	int err;

	if (level == 0) {
		btrfs_print_leaf(p, eb);
		return;
	}
	nr = btrfs_print_node_nritems(p, eb);
	for (i = 0; i < nr; i++) {
		if (!follow_child(p, v, eb, i))
			continue;
		next = read_block(p, btrfs_node_blockptr(eb, i),
				  btrfs_node_ptr_generation(eb, i), -1, &err);
		if (!next) {
			p->read_errors++;
			continue;
		}
		if (btrfs_eb_level(next) != level - 1) {
			pr_report(p, BTRFS_REPORT_WARNING,
				  "eb corrupted: item %u eb level %d next level %d, skipping the rest",
				  i, btrfs_eb_level(next), level);
			free_extent_buffer(next);
			return;
		}
		print_extents_visited(p, v, next);
		free_extent_buffer(next);
	}
}

void btrfs_print_extents(struct btrfs_printer *p, struct extent_buffer *eb)
{
	struct visited v = { NULL, 0, 0 };

	if (!eb)
		return;
	if (btrfs_eb_level(eb) && !p->fs_info)
		return;
	visit(&v, eb->start);
	print_extents_visited(p, &v, eb);
	free(v.slots);
	pr_flush(p);
}
