// SPDX-License-Identifier: GPL-2.0
/*
 * Printing one superblock: as text, line for line what btrfs-progs 6.2
 * "inspect-internal dump-super" prints, or as members of a JSON object
 * (schema in ghee-dump-super(8)).
 *
 * The superblock is a 4 KiB buffer read from the device and is not
 * trusted: the only variable-length part, sys_chunk_array, is decoded by
 * sys_array_next(), which checks every key and chunk against both the
 * stated array size and the 2048 bytes the array really has.
 */
#include <stdarg.h>
#include <string.h>
#include "dump-super.h"
#include "json-writer.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/print-tree.h"

/* ---- facts shared by both printers ---- */

void sb_view_init(struct sb_view *v, const struct btrfs_super_block *sb)
{
	u64 incompat = btrfs_super_incompat_flags(sb);

	memset(v, 0, sizeof(*v));
	v->sb = sb;
	v->csum_type = btrfs_super_csum_type(sb);
	v->csum_known = btrfs_csum_type_valid(v->csum_type);
	v->csum_size = v->csum_known ? btrfs_csum_type_size(v->csum_type) :
				       BTRFS_CSUM_SIZE;
	v->csum_match = v->csum_known && btrfs_super_csum_ok(sb);
	v->magic_match = btrfs_super_magic(sb) == BTRFS_MAGIC;
	/* without the feature the metadata uuid is the fsid */
	if (incompat & BTRFS_FEATURE_INCOMPAT_METADATA_UUID)
		v->metadata_uuid = sb->metadata_uuid;
	else
		v->metadata_uuid = sb->fsid;
	v->dev_fsid_match = !memcmp(sb->dev_item.fsid, v->metadata_uuid,
				    BTRFS_FSID_SIZE);
}

/* ---- flag words ---- */

struct flag_name {
	u64 bit;
	const char *name;
	bool in_text;		/* progs 6.2 prints this name */
};

struct flag_table {
	const struct flag_name *names;
	size_t nr;
	/* bits progs 6.2 does not call "unknown flag" */
	u64 text_known;
};

/* in the order progs prints them; names it lacks only go to JSON */
static const struct flag_name super_flag_names[] = {
	{ BTRFS_HEADER_FLAG_WRITTEN, "WRITTEN", true },
	{ BTRFS_HEADER_FLAG_RELOC, "RELOC", true },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID, "CHANGING_FSID", true },
	{ BTRFS_SUPER_FLAG_SEEDING, "SEEDING", true },
	{ BTRFS_SUPER_FLAG_METADUMP, "METADUMP", true },
	{ BTRFS_SUPER_FLAG_METADUMP_V2, "METADUMP_V2", true },
	{ BTRFS_SUPER_FLAG_ERROR, "ERROR", false },
	{ BTRFS_SUPER_FLAG_CHANGING_FSID_V2, "CHANGING_FSID_V2", false },
	{ BTRFS_SUPER_FLAG_CHANGING_BG_TREE, "CHANGING_BG_TREE", false },
	{ BTRFS_SUPER_FLAG_CHANGING_DATA_CSUM, "CHANGING_DATA_CSUM", false },
	{ BTRFS_SUPER_FLAG_CHANGING_META_CSUM, "CHANGING_META_CSUM", false },
};

/* progs knows VERITY (it is not "unknown") but has no name to print */
static const struct flag_name compat_ro_names[] = {
	{ BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE, "FREE_SPACE_TREE", true },
	{ BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID, "FREE_SPACE_TREE_VALID", true },
	{ BTRFS_FEATURE_COMPAT_RO_VERITY, "VERITY", false },
	{ BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, "BLOCK_GROUP_TREE", true },
};

/* progs names EXTENT_TREE_V2 and still reports its bit as unknown */
static const struct flag_name incompat_names[] = {
	{ BTRFS_FEATURE_INCOMPAT_MIXED_BACKREF, "MIXED_BACKREF", true },
	{ BTRFS_FEATURE_INCOMPAT_DEFAULT_SUBVOL, "DEFAULT_SUBVOL", true },
	{ BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS, "MIXED_GROUPS", true },
	{ BTRFS_FEATURE_INCOMPAT_COMPRESS_LZO, "COMPRESS_LZO", true },
	{ BTRFS_FEATURE_INCOMPAT_COMPRESS_ZSTD, "COMPRESS_ZSTD", true },
	{ BTRFS_FEATURE_INCOMPAT_BIG_METADATA, "BIG_METADATA", true },
	{ BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF, "EXTENDED_IREF", true },
	{ BTRFS_FEATURE_INCOMPAT_RAID56, "RAID56", true },
	{ BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA, "SKINNY_METADATA", true },
	{ BTRFS_FEATURE_INCOMPAT_NO_HOLES, "NO_HOLES", true },
	{ BTRFS_FEATURE_INCOMPAT_METADATA_UUID, "METADATA_UUID", true },
	{ BTRFS_FEATURE_INCOMPAT_RAID1C34, "RAID1C34", true },
	{ BTRFS_FEATURE_INCOMPAT_ZONED, "ZONED", true },
	{ BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2, "EXTENT_TREE_V2", true },
	{ BTRFS_FEATURE_INCOMPAT_RAID_STRIPE_TREE, "RAID_STRIPE_TREE", false },
	{ BTRFS_FEATURE_INCOMPAT_SIMPLE_QUOTA, "SIMPLE_QUOTA", false },
};

#define FLAG_TABLE(a, known) { a, sizeof(a) / sizeof(a[0]), known }

static const struct flag_table super_flags_table =
	FLAG_TABLE(super_flag_names, BTRFS_HEADER_FLAG_WRITTEN |
		   BTRFS_HEADER_FLAG_RELOC | BTRFS_SUPER_FLAG_CHANGING_FSID |
		   BTRFS_SUPER_FLAG_SEEDING | BTRFS_SUPER_FLAG_METADUMP |
		   BTRFS_SUPER_FLAG_METADUMP_V2);
static const struct flag_table compat_ro_table =
	FLAG_TABLE(compat_ro_names, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
		   BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID |
		   BTRFS_FEATURE_COMPAT_RO_VERITY |
		   BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE);
static const struct flag_table incompat_table =
	FLAG_TABLE(incompat_names, (BTRFS_FEATURE_INCOMPAT_ZONED << 1) - 1);
static const struct flag_table compat_table = { NULL, 0, 0 };

/*
 * progs' layout of a decoded flag word:
 *			( NAME_A |
 *			  NAME_B |
 *			  unknown flag: 0x... )
 * Names are listed only when at least one bit progs knows is set; a word
 * of nothing but unknown bits shows just the "unknown flag" part.
 */
static void text_flag_names(FILE *out, u64 flags, const struct flag_table *t)
{
	const char *sep = "";
	u64 unknown = flags & ~t->text_known;
	size_t i;

	if (!flags)
		return;
	fputs("\t\t\t( ", out);
	for (i = 0; (flags & t->text_known) && i < t->nr; i++) {
		if (!t->names[i].in_text || !(flags & t->names[i].bit))
			continue;
		fprintf(out, "%s%s ", sep, t->names[i].name);
		sep = "|\n\t\t\t  ";
	}
	if (unknown)
		fprintf(out, "%sunknown flag: 0x%llx ", sep,
			(unsigned long long)unknown);
	fputs(")\n", out);
}

/* {"value": N, "names": [...], "unknown": N}, names in bit order */
static void json_flags(struct json_writer *w, const char *key, u64 flags,
		       const struct flag_table *t)
{
	u64 named = 0;
	size_t i;
	int bit;

	json_kv_object_begin(w, key);
	json_kv_u64(w, "value", flags);
	json_kv_array_begin(w, "names");
	for (bit = 0; bit < 64; bit++) {
		for (i = 0; i < t->nr; i++) {
			if (t->names[i].bit != (1ULL << bit) ||
			    !(flags & t->names[i].bit))
				continue;
			json_string(w, t->names[i].name);
			named |= t->names[i].bit;
		}
	}
	json_array_end(w);
	json_kv_u64(w, "unknown", flags & ~named);
	json_object_end(w);
}

/* ---- small text pieces ---- */

static void text_dec(FILE *out, const char *label, u64 v)
{
	fprintf(out, "%s%llu\n", label, (unsigned long long)v);
}

static void text_hex(FILE *out, const char *label, u64 v)
{
	fprintf(out, "%s0x%llx\n", label, (unsigned long long)v);
}

static void text_uuid(FILE *out, const char *label, const u8 *uuid)
{
	char buf[BTRFS_UUID_UNPARSED_SIZE];

	btrfs_format_uuid(uuid, buf);
	fprintf(out, "%s%s\n", label, buf);
}

static bool printable(u8 c)
{
	return c >= 0x20 && c < 0x7f;
}

/* bytes as progs shows them: printable ASCII as is, the rest as '.' */
static void text_chars(FILE *out, const u8 *p, size_t len, bool stop_at_nul)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (stop_at_nul && !p[i])
			break;
		fputc(printable(p[i]) ? p[i] : '.', out);
	}
}

static const char *match_text(bool match)
{
	return match ? "[match]" : "[DON'T MATCH]";
}

static size_t label_len(const struct btrfs_super_block *sb)
{
	const char *nul = memchr(sb->label, 0, BTRFS_LABEL_SIZE);

	return nul ? (size_t)(nul - sb->label) : BTRFS_LABEL_SIZE;
}

/* ---- sys_chunk_array ---- */

struct sys_array_iter {
	const struct btrfs_super_block *sb;
	u32 size;		/* the stated size */
	u32 cur;		/* offset of the next key */
	int nr;			/* index of the next item */
	bool stop;
	char error[128];	/* why the walk stopped early, "" if it did not */
};

struct sys_array_item {
	int nr;
	u32 offset;			/* of the key */
	struct btrfs_disk_key key;
	const struct btrfs_chunk *chunk;	/* NULL: not a valid chunk */
};

static void sys_array_init(struct sys_array_iter *it,
			   const struct btrfs_super_block *sb)
{
	memset(it, 0, sizeof(*it));
	it->sb = sb;
	it->size = btrfs_super_sys_array_size(sb);
	if (it->size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE) {
		snprintf(it->error, sizeof(it->error),
			 "sys_array_size %u shouldn't exceed %u bytes",
			 it->size, BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
		it->stop = true;
	}
}

static bool sys_array_short(struct sys_array_iter *it, u32 need)
{
	/* it->size <= 2048 was checked, so this also bounds the buffer */
	if (it->cur + need <= it->size)
		return false;
	snprintf(it->error, sizeof(it->error),
		 "sys_array too short to read %u bytes at offset %u",
		 need, it->cur);
	it->stop = true;
	return true;
}

/*
 * The next item: false at the end or when not even a key fits.  An item
 * whose key was read but whose chunk is unusable comes back with chunk
 * NULL, and the walk ends after it (it->error says why).  The checks and
 * messages are those of progs, so the text output matches.
 */
static bool sys_array_next(struct sys_array_iter *it, struct sys_array_item *item)
{
	const u8 *array = it->sb->sys_chunk_array;
	const struct btrfs_chunk *chunk;
	u32 num_stripes, len;

	if (it->stop || it->cur >= it->size)
		return false;
	if (sys_array_short(it, sizeof(struct btrfs_disk_key)))
		return false;
	memset(item, 0, sizeof(*item));
	item->nr = it->nr++;
	item->offset = it->cur;
	memcpy(&item->key, array + it->cur, sizeof(item->key));
	it->cur += sizeof(struct btrfs_disk_key);

	if (btrfs_disk_key_type(&item->key) != BTRFS_CHUNK_ITEM_KEY) {
		snprintf(it->error, sizeof(it->error),
			 "unexpected item type %u in sys_array at offset %u",
			 btrfs_disk_key_type(&item->key), it->cur);
		it->stop = true;
		return true;
	}
	/* the fixed part with its first stripe, then all the stripes */
	if (sys_array_short(it, sizeof(struct btrfs_chunk)))
		return true;
	chunk = (const struct btrfs_chunk *)(array + it->cur);
	num_stripes = btrfs_chunk_num_stripes(chunk);
	if (!num_stripes) {
		snprintf(it->error, sizeof(it->error),
			 "invalid number of stripes %u in sys_array at offset %u",
			 num_stripes, it->cur);
		it->stop = true;
		return true;
	}
	len = btrfs_chunk_item_size(num_stripes);
	if (sys_array_short(it, len))
		return true;
	item->chunk = chunk;
	it->cur += len;
	return true;
}

static void text_chunk(FILE *out, const struct btrfs_chunk *chunk)
{
	char type[BTRFS_BG_FLAGS_STR_LEN];
	char uuid[BTRFS_UUID_UNPARSED_SIZE];
	u16 i, num_stripes = btrfs_chunk_num_stripes(chunk);

	btrfs_bg_flags_to_str(btrfs_chunk_type(chunk), type);
	fprintf(out, "\t\tlength %llu owner %llu stripe_len %llu type %s\n"
		"\t\tio_align %u io_width %u sector_size %u\n"
		"\t\tnum_stripes %u sub_stripes %u\n",
		(unsigned long long)btrfs_chunk_length(chunk),
		(unsigned long long)btrfs_chunk_owner(chunk),
		(unsigned long long)btrfs_chunk_stripe_len(chunk), type,
		btrfs_chunk_io_align(chunk), btrfs_chunk_io_width(chunk),
		btrfs_chunk_sector_size(chunk), num_stripes,
		btrfs_chunk_sub_stripes(chunk));
	for (i = 0; i < num_stripes; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(chunk, i);

		btrfs_format_uuid(s->dev_uuid, uuid);
		fprintf(out, "\t\t\tstripe %u devid %llu offset %llu\n"
			"\t\t\tdev_uuid %s\n", i,
			(unsigned long long)btrfs_stripe_devid(s),
			(unsigned long long)btrfs_stripe_offset(s), uuid);
	}
}

static void text_sys_array(FILE *out, const struct btrfs_super_block *sb)
{
	struct sys_array_iter it;
	struct sys_array_item item;

	fprintf(out, "sys_chunk_array[%d]:\n", BTRFS_SYSTEM_CHUNK_ARRAY_SIZE);
	sys_array_init(&it, sb);
	while (sys_array_next(&it, &item)) {
		fprintf(out, "\titem %d ", item.nr);
		btrfs_print_key(out, &item.key);
		fputc('\n', out);
		if (item.chunk)
			text_chunk(out, item.chunk);
	}
	if (it.error[0])
		cmd_error("%s", it.error);
}

/* ---- backup roots ---- */

/* progs skips a slot whose tree root and its generation are both zero */
static bool backup_empty(const struct btrfs_root_backup *b)
{
	return !btrfs_backup_tree_root(b) && !btrfs_backup_tree_root_gen(b);
}

static void text_backup_line(FILE *out, const char *label, u64 bytenr,
			     u64 gen, u8 level)
{
	fprintf(out, "\t\t%s\t%llu\tgen: %llu\tlevel: %d\n", label,
		(unsigned long long)bytenr, (unsigned long long)gen, level);
}

static void text_backup(FILE *out, const struct btrfs_root_backup *b,
			bool extent_tree_v2)
{
	/* with extent-tree-v2 the extent root slot holds the block group tree */
	text_backup_line(out, "backup_tree_root:", btrfs_backup_tree_root(b),
			 btrfs_backup_tree_root_gen(b),
			 btrfs_backup_tree_root_level(b));
	text_backup_line(out, "backup_chunk_root:", btrfs_backup_chunk_root(b),
			 btrfs_backup_chunk_root_gen(b),
			 btrfs_backup_chunk_root_level(b));
	text_backup_line(out, extent_tree_v2 ? "backup_block_group_root:" :
			 "backup_extent_root:", btrfs_backup_extent_root(b),
			 btrfs_backup_extent_root_gen(b),
			 btrfs_backup_extent_root_level(b));
	text_backup_line(out, "backup_fs_root:\t", btrfs_backup_fs_root(b),
			 btrfs_backup_fs_root_gen(b),
			 btrfs_backup_fs_root_level(b));
	text_backup_line(out, "backup_dev_root:", btrfs_backup_dev_root(b),
			 btrfs_backup_dev_root_gen(b),
			 btrfs_backup_dev_root_level(b));
	/* progs labels this one without the "backup_" prefix */
	text_backup_line(out, "csum_root:", btrfs_backup_csum_root(b),
			 btrfs_backup_csum_root_gen(b),
			 btrfs_backup_csum_root_level(b));
	text_dec(out, "\t\tbackup_total_bytes:\t", btrfs_backup_total_bytes(b));
	text_dec(out, "\t\tbackup_bytes_used:\t", btrfs_backup_bytes_used(b));
	text_dec(out, "\t\tbackup_num_devices:\t", btrfs_backup_num_devices(b));
}

static void text_backups(FILE *out, const struct btrfs_super_block *sb)
{
	bool v2 = btrfs_super_incompat_flags(sb) &
		  BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2;
	int i;

	fprintf(out, "backup_roots[%d]:\n", BTRFS_NUM_BACKUP_ROOTS);
	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		if (backup_empty(&sb->super_roots[i]))
			continue;
		fprintf(out, "\tbackup %d:\n", i);
		text_backup(out, &sb->super_roots[i], v2);
		fputc('\n', out);
	}
}

/* ---- text ---- */

static void text_csum(FILE *out, const struct sb_view *v)
{
	u32 i;

	fprintf(out, "csum_type\t\t%hu (%s)\n", v->csum_type,
		btrfs_csum_type_name(v->csum_type));
	text_dec(out, "csum_size\t\t", v->csum_size);
	fputs("csum\t\t\t0x", out);
	for (i = 0; i < v->csum_size; i++)
		fprintf(out, "%02x", v->sb->csum[i]);
	if (!v->csum_known)
		fputs(" [UNKNOWN CSUM TYPE OR SIZE]\n", out);
	else
		fprintf(out, " %s\n", match_text(v->csum_match));
}

static void text_identity(FILE *out, const struct sb_view *v)
{
	const struct btrfs_super_block *sb = v->sb;

	text_dec(out, "bytenr\t\t\t", btrfs_super_bytenr(sb));
	text_hex(out, "flags\t\t\t", btrfs_super_flags(sb));
	text_flag_names(out, btrfs_super_flags(sb), &super_flags_table);
	fputs("magic\t\t\t", out);
	text_chars(out, (const u8 *)&sb->magic, sizeof(sb->magic), false);
	fprintf(out, " %s\n", match_text(v->magic_match));
	text_uuid(out, "fsid\t\t\t", sb->fsid);
	text_uuid(out, "metadata_uuid\t\t", v->metadata_uuid);
	fputs("label\t\t\t", out);
	text_chars(out, (const u8 *)sb->label, label_len(sb), true);
	fputc('\n', out);
}

static void text_geometry(FILE *out, const struct btrfs_super_block *sb)
{
	text_dec(out, "generation\t\t", btrfs_super_generation(sb));
	text_dec(out, "root\t\t\t", btrfs_super_root(sb));
	text_dec(out, "sys_array_size\t\t", btrfs_super_sys_array_size(sb));
	text_dec(out, "chunk_root_generation\t",
		 btrfs_super_chunk_root_generation(sb));
	text_dec(out, "root_level\t\t", btrfs_super_root_level(sb));
	text_dec(out, "chunk_root\t\t", btrfs_super_chunk_root(sb));
	text_dec(out, "chunk_root_level\t", btrfs_super_chunk_root_level(sb));
	text_dec(out, "log_root\t\t", btrfs_super_log_root(sb));
	text_dec(out, "log_root_transid (deprecated)\t",
		 btrfs_super_log_root_transid(sb));
	text_dec(out, "log_root_level\t\t", btrfs_super_log_root_level(sb));
	text_dec(out, "total_bytes\t\t", btrfs_super_total_bytes(sb));
	text_dec(out, "bytes_used\t\t", btrfs_super_bytes_used(sb));
	text_dec(out, "sectorsize\t\t", btrfs_super_sectorsize(sb));
	text_dec(out, "nodesize\t\t", btrfs_super_nodesize(sb));
	text_dec(out, "leafsize (deprecated)\t", btrfs_super_leafsize(sb));
	text_dec(out, "stripesize\t\t", btrfs_super_stripesize(sb));
	text_dec(out, "root_dir\t\t", btrfs_super_root_dir(sb));
	text_dec(out, "num_devices\t\t", btrfs_super_num_devices(sb));
}

static void text_features(FILE *out, const struct btrfs_super_block *sb)
{
	text_hex(out, "compat_flags\t\t", btrfs_super_compat_flags(sb));
	text_hex(out, "compat_ro_flags\t\t", btrfs_super_compat_ro_flags(sb));
	text_flag_names(out, btrfs_super_compat_ro_flags(sb), &compat_ro_table);
	text_hex(out, "incompat_flags\t\t", btrfs_super_incompat_flags(sb));
	text_flag_names(out, btrfs_super_incompat_flags(sb), &incompat_table);
	text_dec(out, "cache_generation\t", btrfs_super_cache_generation(sb));
	text_dec(out, "uuid_tree_generation\t",
		 btrfs_super_uuid_tree_generation(sb));
}

static void text_dev_item(FILE *out, const struct sb_view *v)
{
	const struct btrfs_dev_item *d = &v->sb->dev_item;
	char fsid[BTRFS_UUID_UNPARSED_SIZE];

	text_uuid(out, "dev_item.uuid\t\t", d->uuid);
	btrfs_format_uuid(d->fsid, fsid);
	fprintf(out, "dev_item.fsid\t\t%s %s\n", fsid,
		match_text(v->dev_fsid_match));
	text_dec(out, "dev_item.type\t\t", btrfs_device_type(d));
	text_dec(out, "dev_item.total_bytes\t", btrfs_device_total_bytes(d));
	text_dec(out, "dev_item.bytes_used\t", btrfs_device_bytes_used(d));
	text_dec(out, "dev_item.io_align\t", btrfs_device_io_align(d));
	text_dec(out, "dev_item.io_width\t", btrfs_device_io_width(d));
	text_dec(out, "dev_item.sector_size\t", btrfs_device_sector_size(d));
	text_dec(out, "dev_item.devid\t\t", btrfs_device_id(d));
	text_dec(out, "dev_item.dev_group\t", btrfs_device_group(d));
	text_dec(out, "dev_item.seek_speed\t", btrfs_device_seek_speed(d));
	text_dec(out, "dev_item.bandwidth\t", btrfs_device_bandwidth(d));
	text_dec(out, "dev_item.generation\t", btrfs_device_generation(d));
}

void dump_super_text(FILE *out, const struct sb_view *v, bool full)
{
	text_csum(out, v);
	text_identity(out, v);
	text_geometry(out, v->sb);
	text_features(out, v->sb);
	text_dev_item(out, v);
	if (!full)
		return;
	text_sys_array(out, v->sb);
	text_backups(out, v->sb);
}

/* ---- JSON ---- */

static void json_csum(struct json_writer *w, const struct sb_view *v)
{
	json_kv_object_begin(w, "csum_type");
	json_kv_u64(w, "value", v->csum_type);
	if (v->csum_known)
		json_kv_string(w, "name", btrfs_csum_type_name(v->csum_type));
	else
		json_kv_null(w, "name");
	json_object_end(w);
	json_kv_u64(w, "csum_size", v->csum_size);
	json_kv_hex(w, "csum", v->sb->csum, v->csum_size);
	json_kv_bool(w, "csum_match", v->csum_match);
}

static void json_identity(struct json_writer *w, const struct sb_view *v)
{
	const struct btrfs_super_block *sb = v->sb;
	char magic[sizeof(sb->magic) + 1];
	const u8 *m = (const u8 *)&sb->magic;
	size_t i;

	json_kv_u64(w, "bytenr", btrfs_super_bytenr(sb));
	json_flags(w, "flags", btrfs_super_flags(sb), &super_flags_table);
	for (i = 0; i < sizeof(sb->magic); i++)
		magic[i] = printable(m[i]) ? m[i] : '.';
	magic[i] = 0;
	json_kv_string(w, "magic", magic);
	json_kv_bool(w, "magic_match", v->magic_match);
	btrfs_json_uuid(w, "fsid", sb->fsid);
	btrfs_json_uuid(w, "metadata_uuid", v->metadata_uuid);
	json_kv_string_len(w, "label", sb->label, label_len(sb));
}

static void json_geometry(struct json_writer *w, const struct btrfs_super_block *sb)
{
	json_kv_u64(w, "generation", btrfs_super_generation(sb));
	json_kv_u64(w, "root", btrfs_super_root(sb));
	json_kv_u64(w, "sys_array_size", btrfs_super_sys_array_size(sb));
	json_kv_u64(w, "chunk_root_generation",
		    btrfs_super_chunk_root_generation(sb));
	json_kv_u64(w, "root_level", btrfs_super_root_level(sb));
	json_kv_u64(w, "chunk_root", btrfs_super_chunk_root(sb));
	json_kv_u64(w, "chunk_root_level", btrfs_super_chunk_root_level(sb));
	json_kv_u64(w, "log_root", btrfs_super_log_root(sb));
	json_kv_u64(w, "log_root_transid", btrfs_super_log_root_transid(sb));
	json_kv_u64(w, "log_root_level", btrfs_super_log_root_level(sb));
	json_kv_u64(w, "total_bytes", btrfs_super_total_bytes(sb));
	json_kv_u64(w, "bytes_used", btrfs_super_bytes_used(sb));
	json_kv_u64(w, "sectorsize", btrfs_super_sectorsize(sb));
	json_kv_u64(w, "nodesize", btrfs_super_nodesize(sb));
	json_kv_u64(w, "leafsize", btrfs_super_leafsize(sb));
	json_kv_u64(w, "stripesize", btrfs_super_stripesize(sb));
	json_kv_u64(w, "root_dir", btrfs_super_root_dir(sb));
	json_kv_u64(w, "num_devices", btrfs_super_num_devices(sb));
}

static void json_features(struct json_writer *w, const struct btrfs_super_block *sb)
{
	json_flags(w, "compat_flags", btrfs_super_compat_flags(sb), &compat_table);
	json_flags(w, "compat_ro_flags", btrfs_super_compat_ro_flags(sb),
		   &compat_ro_table);
	json_flags(w, "incompat_flags", btrfs_super_incompat_flags(sb),
		   &incompat_table);
	json_kv_u64(w, "cache_generation", btrfs_super_cache_generation(sb));
	json_kv_u64(w, "uuid_tree_generation",
		    btrfs_super_uuid_tree_generation(sb));
	/* not printed by progs 6.2, kept here so JSON has every field */
	json_kv_u64(w, "nr_global_roots", btrfs_super_nr_global_roots(sb));
	json_kv_u64(w, "block_group_root", btrfs_super_block_group_root(sb));
	json_kv_u64(w, "block_group_root_generation",
		    btrfs_super_block_group_root_generation(sb));
	json_kv_u64(w, "block_group_root_level",
		    btrfs_super_block_group_root_level(sb));
}

static void json_dev_item(struct json_writer *w, const struct sb_view *v)
{
	const struct btrfs_dev_item *d = &v->sb->dev_item;

	json_kv_object_begin(w, "dev_item");
	btrfs_json_uuid(w, "uuid", d->uuid);
	btrfs_json_uuid(w, "fsid", d->fsid);
	json_kv_bool(w, "fsid_match", v->dev_fsid_match);
	json_kv_u64(w, "type", btrfs_device_type(d));
	json_kv_u64(w, "total_bytes", btrfs_device_total_bytes(d));
	json_kv_u64(w, "bytes_used", btrfs_device_bytes_used(d));
	json_kv_u64(w, "io_align", btrfs_device_io_align(d));
	json_kv_u64(w, "io_width", btrfs_device_io_width(d));
	json_kv_u64(w, "sector_size", btrfs_device_sector_size(d));
	json_kv_u64(w, "devid", btrfs_device_id(d));
	json_kv_u64(w, "dev_group", btrfs_device_group(d));
	json_kv_u64(w, "seek_speed", btrfs_device_seek_speed(d));
	json_kv_u64(w, "bandwidth", btrfs_device_bandwidth(d));
	json_kv_u64(w, "generation", btrfs_device_generation(d));
	json_object_end(w);
}

static const struct flag_name chunk_type_names[] = {
	{ BTRFS_BLOCK_GROUP_DATA, "DATA", true },
	{ BTRFS_BLOCK_GROUP_SYSTEM, "SYSTEM", true },
	{ BTRFS_BLOCK_GROUP_METADATA, "METADATA", true },
	{ BTRFS_BLOCK_GROUP_RAID0, "RAID0", true },
	{ BTRFS_BLOCK_GROUP_RAID1, "RAID1", true },
	{ BTRFS_BLOCK_GROUP_DUP, "DUP", true },
	{ BTRFS_BLOCK_GROUP_RAID10, "RAID10", true },
	{ BTRFS_BLOCK_GROUP_RAID5, "RAID5", true },
	{ BTRFS_BLOCK_GROUP_RAID6, "RAID6", true },
	{ BTRFS_BLOCK_GROUP_RAID1C3, "RAID1C3", true },
	{ BTRFS_BLOCK_GROUP_RAID1C4, "RAID1C4", true },
};
static const struct flag_table chunk_type_table =
	FLAG_TABLE(chunk_type_names, 0);

static void json_chunk(struct json_writer *w, const struct sys_array_item *item)
{
	const struct btrfs_chunk *chunk = item->chunk;
	u16 i, num_stripes = btrfs_chunk_num_stripes(chunk);
	char uuid[BTRFS_UUID_UNPARSED_SIZE];

	json_object_begin(w);
	json_kv_u64(w, "offset", item->offset);
	json_kv_object_begin(w, "key");
	json_kv_u64(w, "objectid", btrfs_disk_key_objectid(&item->key));
	json_kv_u64(w, "type", btrfs_disk_key_type(&item->key));
	json_kv_u64(w, "offset", btrfs_disk_key_offset(&item->key));
	json_object_end(w);
	json_kv_u64(w, "length", btrfs_chunk_length(chunk));
	json_kv_u64(w, "owner", btrfs_chunk_owner(chunk));
	json_kv_u64(w, "stripe_len", btrfs_chunk_stripe_len(chunk));
	json_flags(w, "type", btrfs_chunk_type(chunk), &chunk_type_table);
	json_kv_u64(w, "io_align", btrfs_chunk_io_align(chunk));
	json_kv_u64(w, "io_width", btrfs_chunk_io_width(chunk));
	json_kv_u64(w, "sector_size", btrfs_chunk_sector_size(chunk));
	json_kv_u64(w, "num_stripes", num_stripes);
	json_kv_u64(w, "sub_stripes", btrfs_chunk_sub_stripes(chunk));
	json_kv_array_begin(w, "stripes");
	for (i = 0; i < num_stripes; i++) {
		const struct btrfs_stripe *s = btrfs_chunk_stripe(chunk, i);

		btrfs_format_uuid(s->dev_uuid, uuid);
		json_object_begin(w);
		json_kv_u64(w, "devid", btrfs_stripe_devid(s));
		json_kv_u64(w, "offset", btrfs_stripe_offset(s));
		json_kv_string(w, "dev_uuid", uuid);
		json_object_end(w);
	}
	json_array_end(w);
	json_object_end(w);
}

static void json_sys_array(struct json_writer *w,
			   const struct btrfs_super_block *sb)
{
	struct sys_array_iter it;
	struct sys_array_item item;

	sys_array_init(&it, sb);
	json_kv_array_begin(w, "sys_chunk_array");
	while (sys_array_next(&it, &item)) {
		if (item.chunk)
			json_chunk(w, &item);
	}
	json_array_end(w);
	if (it.error[0]) {
		json_kv_string(w, "sys_chunk_array_error", it.error);
		cmd_error("%s", it.error);
	} else {
		json_kv_null(w, "sys_chunk_array_error");
	}
}

static void json_backup_root(struct json_writer *w, const char *name,
			     u64 bytenr, u64 gen, u8 level)
{
	json_kv_object_begin(w, name);
	json_kv_u64(w, "bytenr", bytenr);
	json_kv_u64(w, "generation", gen);
	json_kv_u64(w, "level", level);
	json_object_end(w);
}

static void json_backup(struct json_writer *w, const struct btrfs_root_backup *b,
			int index)
{
	json_object_begin(w);
	json_kv_u64(w, "index", index);
	json_backup_root(w, "tree_root", btrfs_backup_tree_root(b),
			 btrfs_backup_tree_root_gen(b),
			 btrfs_backup_tree_root_level(b));
	json_backup_root(w, "chunk_root", btrfs_backup_chunk_root(b),
			 btrfs_backup_chunk_root_gen(b),
			 btrfs_backup_chunk_root_level(b));
	json_backup_root(w, "extent_root", btrfs_backup_extent_root(b),
			 btrfs_backup_extent_root_gen(b),
			 btrfs_backup_extent_root_level(b));
	json_backup_root(w, "fs_root", btrfs_backup_fs_root(b),
			 btrfs_backup_fs_root_gen(b),
			 btrfs_backup_fs_root_level(b));
	json_backup_root(w, "dev_root", btrfs_backup_dev_root(b),
			 btrfs_backup_dev_root_gen(b),
			 btrfs_backup_dev_root_level(b));
	json_backup_root(w, "csum_root", btrfs_backup_csum_root(b),
			 btrfs_backup_csum_root_gen(b),
			 btrfs_backup_csum_root_level(b));
	json_kv_u64(w, "total_bytes", btrfs_backup_total_bytes(b));
	json_kv_u64(w, "bytes_used", btrfs_backup_bytes_used(b));
	json_kv_u64(w, "num_devices", btrfs_backup_num_devices(b));
	json_object_end(w);
}

static void json_backups(struct json_writer *w, const struct btrfs_super_block *sb)
{
	int i;

	json_kv_array_begin(w, "backup_roots");
	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		if (!backup_empty(&sb->super_roots[i]))
			json_backup(w, &sb->super_roots[i], i);
	}
	json_array_end(w);
}

void dump_super_json(struct json_writer *w, const struct sb_view *v, bool full)
{
	json_csum(w, v);
	json_identity(w, v);
	json_geometry(w, v->sb);
	json_features(w, v->sb);
	json_dev_item(w, v);
	if (!full)
		return;
	json_sys_array(w, v->sb);
	json_backups(w, v->sb);
}
