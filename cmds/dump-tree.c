// SPDX-License-Identifier: GPL-2.0
/*
 * ghee dump-tree: print the trees of a filesystem.  The text output is
 * that of btrfs-progs 6.2 "btrfs inspect-internal dump-tree", line for
 * line, except the first line that names ghee; --format json gives the
 * same information as a JSON document (see ghee-dump-tree(8)).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "commands.h"
#include "inspect-common.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/print-tree.h"
#include "json-writer.h"

#define OUT_BUFFER_SIZE (1U << 20)

struct dump_tree_opts {
	bool extent_only;
	bool device_only;
	bool roots_only;
	bool root_backups;
	bool uuid_only;
	bool noscan;
	unsigned int mode;	/* BTRFS_PRINT_TREE_* except the traversal */
	unsigned int traverse;	/* BTRFS_PRINT_TREE_BFS or _DFS, 0: default */
	enum btrfs_print_format format;
	u64 tree_id;		/* 0: all trees */
	u64 *blocks;		/* -b, in the order given */
	size_t nr_blocks;
	struct inspect_open io;		/* the devices, errors the engine reported */
};

/* what the walk over the trees needs */
struct dump_ctx {
	struct dump_tree_opts *o;
	struct btrfs_fs_info *fs_info;
	struct btrfs_printer p;
	struct extent_buffer *log_root;	/* the log root tree, if any */
	int errors;
	struct json_writer jw;
	bool json_list_open;	/* "trees" or "blocks" */
};

static void usage(FILE *out)
{
	fputs("usage: ghee dump-tree [options] DEVICE [DEVICE...]\n"
	      "\n"
	      "Print the trees of a btrfs filesystem, like btrfs-progs 6.2\n"
	      "\"btrfs inspect-internal dump-tree\". The dump contains file names.\n"
	      "\n"
	      "  -e|--extents           print only extent info: extent and device trees\n"
	      "  -d|--device            print only device info: tree root, chunk and device trees\n"
	      "  -r|--roots             print only short root node info\n"
	      "  -R|--backups           same as --roots plus print backup root info\n"
	      "  -u|--uuid              print only the uuid tree\n"
	      "  -b|--block BYTENR      print only this tree block (repeatable)\n"
	      "  -t|--tree TREE         print only this tree (name or number)\n"
	      "  --follow               with -b, print the children of the block too\n"
	      "  --noscan               use only the listed devices\n"
	      "  --bfs                  breadth-first traversal (default)\n"
	      "  --dfs                  depth-first traversal\n"
	      "  --hide-names           hide file names, xattrs and other names\n"
	      "  --csum-headers         print tree block checksums\n"
	      "  --csum-items           print data checksums of csum items\n"
	      "  --format text|json     output format (default text)\n"
	      "  -h|--help              this help\n"
	      "  -V|--version           print the version\n", out);
}

/* ---- option parsing ---- */

static bool parse_u64(const char *s, u64 *ret)
{
	unsigned long long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*ret = v;
	return true;
}

/*
 * A tree given by name, the way progs accepts it: an optional "BTRFS_"
 * prefix, a name from the table (case does not matter, the first prefix
 * that matches wins), then an optional "_TREE" and "_OBJECTID".  Dashes
 * may stand for underscores.  Returns 0 if not recognized; *end points
 * to what is left.
 */
static u64 treeid_from_string(const char *arg, const char **end)
{
	static const struct {
		const char *name;
		u64 id;
	} names[] = {
		{ "ROOT", BTRFS_ROOT_TREE_OBJECTID },
		{ "EXTENT", BTRFS_EXTENT_TREE_OBJECTID },
		{ "CHUNK", BTRFS_CHUNK_TREE_OBJECTID },
		{ "DEVICE", BTRFS_DEV_TREE_OBJECTID },
		{ "DEV", BTRFS_DEV_TREE_OBJECTID },
		{ "FS", BTRFS_FS_TREE_OBJECTID },
		{ "CSUM", BTRFS_CSUM_TREE_OBJECTID },
		{ "CHECKSUM", BTRFS_CSUM_TREE_OBJECTID },
		{ "QUOTA", BTRFS_QUOTA_TREE_OBJECTID },
		{ "UUID", BTRFS_UUID_TREE_OBJECTID },
		{ "FREE_SPACE", BTRFS_FREE_SPACE_TREE_OBJECTID },
		{ "TREE_LOG_FIXUP", BTRFS_TREE_LOG_FIXUP_OBJECTID },
		{ "TREE_LOG", BTRFS_TREE_LOG_OBJECTID },
		{ "TREE_RELOC", BTRFS_TREE_RELOC_OBJECTID },
		{ "DATA_RELOC", BTRFS_DATA_RELOC_TREE_OBJECTID },
		{ "BLOCK_GROUP_TREE", BTRFS_BLOCK_GROUP_TREE_OBJECTID },
		/* ghee: also the short form */
		{ "BLOCK_GROUP", BTRFS_BLOCK_GROUP_TREE_OBJECTID },
	};
	char buf[128];
	const char *str = buf;
	size_t i, len;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '-')
			buf[i] = '_';
	if (!strncasecmp(str, "BTRFS_", 6))
		str += 6;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		len = strlen(names[i].name);
		if (!strncasecmp(str, names[i].name, len))
			break;
	}
	if (i == sizeof(names) / sizeof(names[0]))
		return 0;
	str += len;
	if (!strncasecmp(str, "_TREE", 5))
		str += 5;
	if (!strncasecmp(str, "_OBJECTID", 9))
		str += 9;
	*end = arg + (str - buf);
	return names[i].id;
}

static int parse_tree_id(const char *arg, u64 *tree_id)
{
	const char *end = NULL;

	if (parse_u64(arg, tree_id)) {
		if (*tree_id == (u64)-1) {
			cmd_error("%s is too large", arg);
			return -ERANGE;
		}
		if (*tree_id)
			return 0;
	} else if (arg[0] >= '0' && arg[0] <= '9' && errno == ERANGE) {
		cmd_error("%s is too large", arg);
		return -ERANGE;
	} else {
		*tree_id = treeid_from_string(arg, &end);
	}
	if (!*tree_id) {
		cmd_error("unrecognized tree id: %s", arg);
		return -EINVAL;
	}
	if (end && *end) {
		cmd_error("unexpected tree id suffix of '%s': %s", arg, end);
		return -EINVAL;
	}
	return 0;
}

static int add_block(struct dump_tree_opts *o, const char *arg)
{
	u64 bytenr;
	size_t i;
	u64 *tmp;

	if (!parse_u64(arg, &bytenr)) {
		cmd_error("invalid block number: %s", arg);
		return -EINVAL;
	}
	for (i = 0; i < o->nr_blocks; i++) {
		if (o->blocks[i] == bytenr) {
			cmd_warning("tree block bytenr %llu is duplicated",
					  (unsigned long long)bytenr);
			return 0;
		}
	}
	tmp = realloc(o->blocks, (o->nr_blocks + 1) * sizeof(*tmp));
	if (!tmp) {
		cmd_error("out of memory");
		return -ENOMEM;
	}
	o->blocks = tmp;
	o->blocks[o->nr_blocks++] = bytenr;
	return 0;
}

enum {
	OPT_FOLLOW = 256,
	OPT_DFS,
	OPT_BFS,
	OPT_NOSCAN,
	OPT_HIDE_NAMES,
	OPT_CSUM_HEADERS,
	OPT_CSUM_ITEMS,
	OPT_FORMAT,
};

static const struct option long_options[] = {
	{ "extents", no_argument, NULL, 'e' },
	{ "device", no_argument, NULL, 'd' },
	{ "roots", no_argument, NULL, 'r' },
	{ "backups", no_argument, NULL, 'R' },
	{ "uuid", no_argument, NULL, 'u' },
	{ "block", required_argument, NULL, 'b' },
	{ "tree", required_argument, NULL, 't' },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "bfs", no_argument, NULL, OPT_BFS },
	{ "dfs", no_argument, NULL, OPT_DFS },
	{ "noscan", no_argument, NULL, OPT_NOSCAN },
	{ "hide-names", no_argument, NULL, OPT_HIDE_NAMES },
	{ "csum-headers", no_argument, NULL, OPT_CSUM_HEADERS },
	{ "csum-items", no_argument, NULL, OPT_CSUM_ITEMS },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/* returns 0, 1 when --help or --version was handled, or a negative errno */
static int parse_options(int argc, char **argv, struct dump_tree_opts *o)
{
	bool json;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":deb:rRut:hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'e': o->extent_only = true; break;
		case 'd': o->device_only = true; break;
		case 'r': o->roots_only = true; break;
		case 'R': o->roots_only = o->root_backups = true; break;
		case 'u': o->uuid_only = true; break;
		case 'b':
			if (add_block(o, optarg))
				return -EINVAL;
			break;
		case 't':
			if (parse_tree_id(optarg, &o->tree_id))
				return -EINVAL;
			break;
		case OPT_FOLLOW: o->mode |= BTRFS_PRINT_TREE_FOLLOW; break;
		case OPT_DFS: o->traverse = BTRFS_PRINT_TREE_DFS; break;
		case OPT_BFS: o->traverse = BTRFS_PRINT_TREE_BFS; break;
		case OPT_NOSCAN: o->noscan = true; break;
		case OPT_HIDE_NAMES: o->mode |= BTRFS_PRINT_TREE_HIDE_NAMES; break;
		case OPT_CSUM_HEADERS: o->mode |= BTRFS_PRINT_TREE_CSUM_HEADERS; break;
		case OPT_CSUM_ITEMS: o->mode |= BTRFS_PRINT_TREE_CSUM_ITEMS; break;
		case OPT_FORMAT:
			if (!inspect_parse_format(optarg, &json))
				return -EINVAL;
			o->format = json ? BTRFS_PRINT_FORMAT_JSON : BTRFS_PRINT_FORMAT_TEXT;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("%s\n", ghee_version_string);
			return 1;
		default:
			cmd_option_error("dump-tree", argv, c);
			return -EINVAL;
		}
	}
	if (optind >= argc) {
		cmd_error("not enough arguments: a device is needed");
		cmd_try_help("dump-tree");
		return -EINVAL;
	}
	return inspect_devices(&o->io, argv, optind, argc, o->noscan, usage);
}

/* ---- opening ---- */

static bool device_present(const struct btrfs_fs_info *fs_info, u64 devid)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++)
		if (fs_info->devices[i].devid == devid)
			return fs_info->devices[i].fd >= 0;
	return false;
}

/*
 * progs says "warning, device N is missing" on stdout while it maps the
 * chunks of the superblock's system chunk array: once for every stripe
 * on a device it was not given.
 */
static void print_missing_devices(const struct btrfs_fs_info *fs_info)
{
	const struct btrfs_super_block *sb = &fs_info->super_copy;
	const u8 *array = sb->sys_chunk_array;
	u32 size = btrfs_super_sys_array_size(sb);
	u32 cur = 0, len;
	u16 i, num;

	if (size > BTRFS_SYSTEM_CHUNK_ARRAY_SIZE)
		return;
	while (cur + sizeof(struct btrfs_disk_key) + offsetof(struct btrfs_chunk, stripe) <= size) {
		const struct btrfs_disk_key *key = (const void *)(array + cur);
		const struct btrfs_chunk *chunk = (const void *)(key + 1);

		if (btrfs_disk_key_type(key) != BTRFS_CHUNK_ITEM_KEY)
			return;
		num = btrfs_chunk_num_stripes(chunk);
		len = sizeof(*key) + btrfs_chunk_item_size(num);
		if (!num || cur + len > size)
			return;
		for (i = 0; i < num; i++) {
			u64 devid = btrfs_stripe_devid(btrfs_chunk_stripe(chunk, i));

			if (!device_present(fs_info, devid))
				printf("warning, device %llu is missing\n",
				       (unsigned long long)devid);
		}
		cur += len;
	}
}

/* the log root tree is not kept by open_ctree: read it from the superblock */
static struct extent_buffer *read_log_root(struct dump_ctx *d)
{
	const struct btrfs_super_block *sb = &d->fs_info->super_copy;
	struct tree_block_check check;
	struct extent_buffer *eb;
	int err = 0;

	if (!btrfs_super_log_root(sb))
		return NULL;
	memset(&check, 0, sizeof(check));
	check.level = btrfs_super_log_root_level(sb);
	eb = read_tree_block(d->fs_info, btrfs_super_log_root(sb), &check, &err);
	if (!eb) {
		cmd_error("cannot read the log root tree at %llu: %s",
				(unsigned long long)btrfs_super_log_root(sb),
				strerror(-err));
		d->errors++;
	}
	return eb;
}

/* ---- the JSON document (ghee-dump-tree(8) describes it) ---- */

static bool json_mode(const struct dump_ctx *d)
{
	return d->o->format == BTRFS_PRINT_FORMAT_JSON;
}

static void json_doc_begin(struct dump_ctx *d)
{
	struct json_writer *w = &d->jw;
	struct btrfs_fs_info *fs_info = d->fs_info;
	int i;

	json_writer_init(w, stdout, JSON_WRITER_PRETTY);
	d->p.json = w;
	json_object_begin(w);
	json_kv_string(w, "ghee_version", PACKAGE_VERSION);
	json_kv_array_begin(w, "missing_devices");
	for (i = 0; i < fs_info->num_devices; i++)
		if (fs_info->devices[i].fd < 0)
			json_u64(w, fs_info->devices[i].devid);
	json_array_end(w);
	json_kv_array_begin(w, d->o->nr_blocks ? "blocks" : "trees");
	d->json_list_open = true;
}

static void json_list_close(struct dump_ctx *d)
{
	if (!d->json_list_open)
		return;
	json_array_end(&d->jw);
	d->json_list_open = false;
}

static int json_doc_end(struct dump_ctx *d)
{
	int ret;

	json_list_close(d);
	json_object_end(&d->jw);
	ret = json_writer_finish(&d->jw);
	if (ret)
		cmd_error("cannot write the JSON document: %s", strerror(-ret));
	return ret;
}

static void json_tree_begin(struct dump_ctx *d, const char *name, u64 objectid,
			    const struct btrfs_disk_key *key)
{
	struct json_writer *w = &d->jw;

	json_object_begin(w);
	json_kv_string(w, "name", name);
	json_kv_u64(w, "objectid", objectid);
	if (key)
		btrfs_json_key(w, "key", key);
}

/* ---- output pieces that differ between text and JSON ---- */

/* "root tree", "chunk tree", "log root tree", "block group tree" */
static void begin_named_tree(struct dump_ctx *d, const char *name, u64 objectid)
{
	if (json_mode(d)) {
		json_tree_begin(d, name, objectid, NULL);
		json_kv_array_begin(&d->jw, "blocks");
	} else {
		printf("%s tree\n", name);
	}
}

/* "<name> tree key (...) " followed by the tree */
static void begin_keyed_tree(struct dump_ctx *d, const char *name,
			     const struct btrfs_disk_key *key)
{
	if (json_mode(d)) {
		json_tree_begin(d, name, btrfs_disk_key_objectid(key), key);
		json_kv_array_begin(&d->jw, "blocks");
		return;
	}
	printf("%s tree ", name);
	btrfs_print_key(stdout, key);
	/* progs ends the line with a space, except with --extents */
	fputs(d->o->extent_only ? "\n" : " \n", stdout);
}

static void end_tree(struct dump_ctx *d)
{
	if (json_mode(d)) {
		json_array_end(&d->jw);
		json_object_end(&d->jw);
	}
}

static void json_root_line(struct dump_ctx *d, const char *name, u64 objectid,
			   const struct btrfs_disk_key *key,
			   const struct extent_buffer *eb)
{
	json_tree_begin(d, name, objectid, key);
	json_kv_u64(&d->jw, "bytenr", eb->start);
	json_kv_u64(&d->jw, "level", btrfs_eb_level(eb));
	json_object_end(&d->jw);
}

static void print_named_root(struct dump_ctx *d, const char *name, u64 objectid,
			     const struct extent_buffer *eb)
{
	if (json_mode(d))
		json_root_line(d, name, objectid, NULL, eb);
	else
		printf("%s tree: %llu level %d\n", name,
		       (unsigned long long)eb->start, btrfs_eb_level(eb));
}

static void print_keyed_root(struct dump_ctx *d, const char *name,
			     const struct btrfs_disk_key *key,
			     const struct extent_buffer *eb)
{
	if (json_mode(d)) {
		json_root_line(d, name, btrfs_disk_key_objectid(key), key, eb);
		return;
	}
	printf("%s tree ", name);
	btrfs_print_key(stdout, key);
	printf(" %llu level %d\n", (unsigned long long)eb->start,
	       btrfs_eb_level(eb));
}

/* a whole tree, children included */
static void print_whole_tree(struct dump_ctx *d, struct extent_buffer *eb)
{
	unsigned int mode = d->p.mode;

	d->p.mode |= BTRFS_PRINT_TREE_FOLLOW;
	btrfs_print_tree(&d->p, eb);
	d->p.mode = mode;
}

static void print_special_tree(struct dump_ctx *d, const char *name,
			       u64 objectid, struct extent_buffer *eb)
{
	begin_named_tree(d, name, objectid);
	print_whole_tree(d, eb);
	end_tree(d);
}

/* ---- the trees listed in a tree of tree roots ---- */

static const char *tree_name(u64 objectid)
{
	switch (objectid) {
	case BTRFS_ROOT_TREE_OBJECTID:		return "root";
	case BTRFS_EXTENT_TREE_OBJECTID:	return "extent";
	case BTRFS_CHUNK_TREE_OBJECTID:		return "chunk";
	case BTRFS_DEV_TREE_OBJECTID:		return "device";
	case BTRFS_FS_TREE_OBJECTID:		return "fs";
	case BTRFS_ROOT_TREE_DIR_OBJECTID:	return "directory";
	case BTRFS_CSUM_TREE_OBJECTID:		return "checksum";
	case BTRFS_ORPHAN_OBJECTID:		return "orphan";
	case BTRFS_TREE_LOG_OBJECTID:		return "log";
	case BTRFS_TREE_LOG_FIXUP_OBJECTID:	return "log fixup";
	case BTRFS_TREE_RELOC_OBJECTID:		return "reloc";
	case BTRFS_DATA_RELOC_TREE_OBJECTID:	return "data reloc";
	case BTRFS_EXTENT_CSUM_OBJECTID:	return "extent checksum";
	case BTRFS_QUOTA_TREE_OBJECTID:		return "quota";
	case BTRFS_UUID_TREE_OBJECTID:		return "uuid";
	case BTRFS_FREE_SPACE_TREE_OBJECTID:	return "free space";
	case BTRFS_MULTIPLE_OBJECTIDS:		return "multiple";
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:	return "block group";
	}
	return "file";
}

/* which trees --extents, --device and --uuid keep, as progs decides */
static bool skip_tree(const struct dump_tree_opts *o, u64 objectid)
{
	bool skip = o->extent_only || o->device_only || o->uuid_only;

	switch (objectid) {
	case BTRFS_EXTENT_TREE_OBJECTID:
		if (!o->device_only && !o->uuid_only)
			skip = false;
		break;
	case BTRFS_DEV_TREE_OBJECTID:
		if (!o->uuid_only)
			skip = false;
		break;
	case BTRFS_ROOT_TREE_DIR_OBJECTID:
		skip = false;
		break;
	case BTRFS_UUID_TREE_OBJECTID:
		if (!o->extent_only && !o->device_only)
			skip = false;
		break;
	}
	return skip;
}

static void dump_root_item(struct dump_ctx *d, const struct extent_buffer *leaf,
			   int slot)
{
	const struct dump_tree_opts *o = d->o;
	struct btrfs_disk_key *key = &btrfs_item_nr(leaf, slot)->key;
	u64 objectid = btrfs_disk_key_objectid(key);
	const struct btrfs_root_item *ri;
	struct tree_block_check check;
	struct extent_buffer *eb;
	const char *name;
	int err = 0;

	if (btrfs_item_size(leaf, slot) <
	    offsetof(struct btrfs_root_item, bytenr) + sizeof(u64)) {
		cmd_error("root item %llu in block %llu is too short: %u bytes",
				(unsigned long long)objectid,
				(unsigned long long)leaf->start,
				btrfs_item_size(leaf, slot));
		d->errors++;
		return;
	}
	ri = btrfs_item_ptr(leaf, slot, struct btrfs_root_item);
	memset(&check, 0, sizeof(check));
	check.level = -1;
	eb = read_tree_block(d->fs_info, btrfs_root_bytenr(ri), &check, &err);
	if (!eb) {
		d->errors++;
		return;
	}
	if ((o->tree_id && objectid != o->tree_id) || skip_tree(o, objectid))
		goto out;
	name = tree_name(objectid);
	if (o->extent_only) {
		begin_keyed_tree(d, name, key);
		btrfs_print_extents(&d->p, eb);
		end_tree(d);
	} else if (o->roots_only) {
		print_keyed_root(d, name, key, eb);
	} else {
		begin_keyed_tree(d, name, key);
		print_whole_tree(d, eb);
		end_tree(d);
	}
out:
	free_extent_buffer(eb);
}

/* every ROOT_ITEM of @root, in key order */
static void dump_root_items(struct dump_ctx *d, struct btrfs_root *root)
{
	struct btrfs_path path;
	struct btrfs_key key = { 0, BTRFS_ROOT_ITEM_KEY, 0 };
	struct extent_buffer *leaf;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret < 0) {
		cmd_error("cannot read ROOT_ITEM from tree %llu: %s",
				(unsigned long long)root->root_key.objectid,
				strerror(-ret));
		d->errors++;
		goto out;
	}
	for (;;) {
		leaf = path.nodes[0];
		if ((u32)path.slots[0] >= btrfs_eb_nritems(leaf)) {
			ret = btrfs_next_leaf(root, &path);
			if (ret < 0)
				d->errors++;
			if (ret)
				break;
			continue;
		}
		if (btrfs_item_nr(leaf, path.slots[0])->key.type == BTRFS_ROOT_ITEM_KEY)
			dump_root_item(d, leaf, path.slots[0]);
		path.slots[0]++;
	}
out:
	btrfs_release_path(&path);
}

/* ---- the whole dump ---- */

static void dump_top_trees(struct dump_ctx *d)
{
	struct btrfs_fs_info *fs_info = d->fs_info;

	if (d->o->roots_only) {
		if (fs_info->tree_root.node)
			print_named_root(d, "root", BTRFS_ROOT_TREE_OBJECTID,
					 fs_info->tree_root.node);
		if (fs_info->chunk_root.node)
			print_named_root(d, "chunk", BTRFS_CHUNK_TREE_OBJECTID,
					 fs_info->chunk_root.node);
		if (d->log_root)
			print_named_root(d, "log root", BTRFS_TREE_LOG_OBJECTID,
					 d->log_root);
		return;
	}
	if (fs_info->tree_root.node)
		print_special_tree(d, "root", BTRFS_ROOT_TREE_OBJECTID,
				   fs_info->tree_root.node);
	if (fs_info->chunk_root.node)
		print_special_tree(d, "chunk", BTRFS_CHUNK_TREE_OBJECTID,
				   fs_info->chunk_root.node);
	if (d->log_root)
		print_special_tree(d, "log root", BTRFS_TREE_LOG_OBJECTID,
				   d->log_root);
}

/*
 * -t for the trees that no ROOT_ITEM points to.  Returns true when
 * @tree_id was one of them (printed or reported).
 */
static bool dump_special_tree(struct dump_ctx *d, u64 tree_id)
{
	struct btrfs_fs_info *fs_info = d->fs_info;
	struct extent_buffer *eb;
	const char *name;

	switch (tree_id) {
	case BTRFS_ROOT_TREE_OBJECTID:
		eb = fs_info->tree_root.node;
		name = "root";
		break;
	case BTRFS_CHUNK_TREE_OBJECTID:
		eb = fs_info->chunk_root.node;
		name = "chunk";
		break;
	case BTRFS_TREE_LOG_OBJECTID:
		eb = d->log_root;
		name = "log root";
		break;
	case BTRFS_BLOCK_GROUP_TREE_OBJECTID:
		eb = fs_info->block_group_root.node;
		name = "block group";
		break;
	default:
		return false;
	}
	if (!eb) {
		cmd_error("cannot print %s tree, invalid pointer", name);
		d->errors++;
		return true;
	}
	print_special_tree(d, name, tree_id, eb);
	return true;
}

static void json_backup_root(struct json_writer *w, const char *name, u64 gen,
			     u64 bytenr)
{
	json_kv_object_begin(w, name);
	json_kv_u64(w, "generation", gen);
	json_kv_u64(w, "bytenr", bytenr);
	json_object_end(w);
}

static void json_backup_roots(struct dump_ctx *d, const struct btrfs_super_block *sb)
{
	bool v2 = btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2;
	struct json_writer *w = &d->jw;
	int i;

	json_kv_array_begin(w, "backup_roots");
	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		json_object_begin(w);
		json_kv_u64(w, "slot", i);
		json_backup_root(w, "tree_root", btrfs_backup_tree_root_gen(b),
				 btrfs_backup_tree_root(b));
		json_backup_root(w, v2 ? "block_group_root" : "extent_root",
				 btrfs_backup_extent_root_gen(b),
				 btrfs_backup_extent_root(b));
		json_backup_root(w, "chunk_root", btrfs_backup_chunk_root_gen(b),
				 btrfs_backup_chunk_root(b));
		json_backup_root(w, "dev_root", btrfs_backup_dev_root_gen(b),
				 btrfs_backup_dev_root(b));
		json_backup_root(w, "csum_root", btrfs_backup_csum_root_gen(b),
				 btrfs_backup_csum_root(b));
		json_backup_root(w, "fs_root", btrfs_backup_fs_root_gen(b),
				 btrfs_backup_fs_root(b));
		json_kv_u64(w, "bytes_used", btrfs_backup_bytes_used(b));
		json_kv_u64(w, "total_bytes", btrfs_backup_total_bytes(b));
		json_kv_u64(w, "num_devices", btrfs_backup_num_devices(b));
		json_object_end(w);
	}
	json_array_end(w);
}

static void print_backup_roots(struct dump_ctx *d)
{
	const struct btrfs_super_block *sb = &d->fs_info->super_copy;
	bool v2 = btrfs_super_incompat_flags(sb) & BTRFS_FEATURE_INCOMPAT_EXTENT_TREE_V2;
	int i;

	if (json_mode(d)) {
		json_backup_roots(d, sb);
		return;
	}
	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		const struct btrfs_root_backup *b = &sb->super_roots[i];

		printf("btrfs root backup slot %d\n"
		       "\ttree root gen %llu block %llu\n"
		       "\t\t%s gen %llu block %llu\n"
		       "\t\tchunk root gen %llu block %llu\n"
		       "\t\tdevice root gen %llu block %llu\n"
		       "\t\tcsum root gen %llu block %llu\n"
		       "\t\tfs root gen %llu block %llu\n"
		       "\t\t%llu used %llu total %llu devices\n", i,
		       (unsigned long long)btrfs_backup_tree_root_gen(b),
		       (unsigned long long)btrfs_backup_tree_root(b),
		       v2 ? "block group root" : "extent root",
		       (unsigned long long)btrfs_backup_extent_root_gen(b),
		       (unsigned long long)btrfs_backup_extent_root(b),
		       (unsigned long long)btrfs_backup_chunk_root_gen(b),
		       (unsigned long long)btrfs_backup_chunk_root(b),
		       (unsigned long long)btrfs_backup_dev_root_gen(b),
		       (unsigned long long)btrfs_backup_dev_root(b),
		       (unsigned long long)btrfs_backup_csum_root_gen(b),
		       (unsigned long long)btrfs_backup_csum_root(b),
		       (unsigned long long)btrfs_backup_fs_root_gen(b),
		       (unsigned long long)btrfs_backup_fs_root(b),
		       (unsigned long long)btrfs_backup_bytes_used(b),
		       (unsigned long long)btrfs_backup_total_bytes(b),
		       (unsigned long long)btrfs_backup_num_devices(b));
	}
}

static void print_totals(struct dump_ctx *d)
{
	const struct btrfs_super_block *sb = &d->fs_info->super_copy;
	char uuid[BTRFS_UUID_UNPARSED_SIZE];

	if (json_mode(d)) {
		json_kv_u64(&d->jw, "total_bytes", btrfs_super_total_bytes(sb));
		json_kv_u64(&d->jw, "bytes_used", btrfs_super_bytes_used(sb));
		btrfs_format_uuid(sb->fsid, uuid);
		json_kv_string(&d->jw, "uuid", uuid);
		return;
	}
	btrfs_format_uuid(sb->fsid, uuid);
	printf("total bytes %llu\nbytes used %llu\nuuid %s\n",
	       (unsigned long long)btrfs_super_total_bytes(sb),
	       (unsigned long long)btrfs_super_bytes_used(sb), uuid);
}

/*
 * The order of progs: the tree of tree roots, the chunk tree and the log
 * root tree; then each tree with a ROOT_ITEM in the tree of tree roots,
 * then in the log root tree; then the totals.
 */
static void dump_trees(struct dump_ctx *d)
{
	const struct dump_tree_opts *o = d->o;
	struct btrfs_fs_info *fs_info = d->fs_info;
	struct btrfs_root log;

	if (!(o->extent_only || o->uuid_only || o->tree_id))
		dump_top_trees(d);
	if (fs_info->tree_root.node) {
		if (o->tree_id && dump_special_tree(d, o->tree_id))
			return;
		dump_root_items(d, &fs_info->tree_root);
	}
	if (fs_info->tree_root.node && d->log_root) {
		memset(&log, 0, sizeof(log));
		log.root_key.objectid = BTRFS_TREE_LOG_OBJECTID;
		log.root_key.type = BTRFS_ROOT_ITEM_KEY;
		log.node = d->log_root;
		log.fs_info = fs_info;
		dump_root_items(d, &log);
	}
	if (json_mode(d))
		json_list_close(d);
	if (o->extent_only || o->device_only || o->uuid_only)
		return;
	if (o->root_backups)
		print_backup_roots(d);
	print_totals(d);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* -b: each block in increasing order, with --follow its children */
static void dump_blocks(struct dump_ctx *d)
{
	struct dump_tree_opts *o = d->o;
	struct extent_buffer *eb;
	struct tree_block_check check;
	size_t i;
	int err;

	qsort(o->blocks, o->nr_blocks, sizeof(*o->blocks), cmp_u64);
	memset(&check, 0, sizeof(check));
	check.level = -1;
	for (i = 0; i < o->nr_blocks; i++) {
		err = 0;
		eb = read_tree_block(d->fs_info, o->blocks[i], &check, &err);
		if (!eb) {
			/*
			 * For an unaligned block the engine's message says it
			 * all; progs adds its "failed to read" only for 0.
			 */
			if (!o->blocks[i] || !(o->blocks[i] % d->fs_info->sectorsize))
				cmd_error("failed to read tree block %llu",
					  (unsigned long long)o->blocks[i]);
			d->errors++;
			continue;
		}
		btrfs_print_tree(&d->p, eb);
		free_extent_buffer(eb);
	}
}

static int dump(struct btrfs_fs_info *fs_info, struct dump_tree_opts *o)
{
	struct dump_ctx d;

	memset(&d, 0, sizeof(d));
	d.o = o;
	d.fs_info = fs_info;
	btrfs_printer_init(&d.p, stdout, fs_info, o->mode | o->traverse);
	d.p.format = o->format;
	if (json_mode(&d))
		json_doc_begin(&d);
	if (o->nr_blocks) {
		dump_blocks(&d);
	} else {
		d.log_root = read_log_root(&d);
		dump_trees(&d);
		free_extent_buffer(d.log_root);
	}
	if (json_mode(&d) && json_doc_end(&d))
		d.errors++;
	/* unlike progs, say when something could not be read or printed */
	if (d.errors || d.p.read_errors || o->io.reported_errors)
		return GHEE_EXIT_FAILURE;
	return GHEE_EXIT_OK;
}

int cmd_dump_tree(int argc, char **argv)
{
	static char outbuf[OUT_BUFFER_SIZE];
	struct dump_tree_opts o;
	struct btrfs_fs_info *fs_info;
	int ret;

	memset(&o, 0, sizeof(o));
	o.format = BTRFS_PRINT_FORMAT_TEXT;
	ret = parse_options(argc, argv, &o);
	if (ret) {
		inspect_close(&o.io, NULL);
		free(o.blocks);
		return ret > 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	}
	/* one large buffer: the dump is long and written in small pieces */
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (o.format == BTRFS_PRINT_FORMAT_TEXT)
		printf("%s\n", ghee_version_string);
	/* blocks are printed once each: a small cache keeps memory flat */
	o.io.cache_budget = 32U << 20;
	/* single blocks need the chunk tree only */
	if (o.nr_blocks)
		o.io.open_flags = OPEN_CTREE_CHUNK_ONLY;
	fs_info = inspect_open_fs(&o.io);
	if (!fs_info) {
		ret = GHEE_EXIT_FAILURE;
		goto out;
	}
	if (o.format == BTRFS_PRINT_FORMAT_TEXT)
		print_missing_devices(fs_info);
	ret = dump(fs_info, &o);
	close_ctree(fs_info);
out:
	ret = inspect_finish_output(ret);
	inspect_close(&o.io, NULL);
	free(o.blocks);
	return ret;
}
