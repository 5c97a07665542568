// SPDX-License-Identifier: GPL-2.0
/*
 * ghee tree-stats: the shape of each tree of an unmounted filesystem:
 * blocks per level, leaves, items, how full leaves and nodes are, the
 * fanout.  The numbers btrfs-progs' "inspect-internal tree-stats" prints
 * too (total size, inline data, levels, nodes per level) are counted the
 * same way: every block reachable from the tree's root, depth first,
 * shared blocks of snapshots counted in each tree.  ghee-tree-stats(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "commands.h"
#include "inspect-common.h"
#include "check/progress.h"
#include "kernel-shared/ctree.h"
#include "array.h"
#include "json-writer.h"

struct tree_stat {
	u64 id;
	u64 root_bytenr;
	int levels;
	u64 nodes;			/* every block, leaves included */
	u64 per_level[BTRFS_MAX_LEVEL];
	u64 items;			/* leaf items */
	u64 ptrs;			/* pointers in internal nodes */
	u64 leaf_bytes_used;		/* item headers and data */
	u64 inline_data;
	u64 lowest;
	u64 highest;
	u64 unreadable;			/* blocks that could not be read */
	bool root_unreadable;
	bool missing;			/* no root item */
};

struct ts_ctx {
	struct btrfs_fs_info *fs_info;
	bool raw;
	bool json;
	struct json_writer jw;
	struct check_progress progress;
	unsigned int errors;
};

static const struct {
	const char *name;
	u64 id;
} tree_names[] = {
	{ "root", BTRFS_ROOT_TREE_OBJECTID },
	{ "extent", BTRFS_EXTENT_TREE_OBJECTID },
	{ "chunk", BTRFS_CHUNK_TREE_OBJECTID },
	{ "dev", BTRFS_DEV_TREE_OBJECTID },
	{ "device", BTRFS_DEV_TREE_OBJECTID },
	{ "fs", BTRFS_FS_TREE_OBJECTID },
	{ "csum", BTRFS_CSUM_TREE_OBJECTID },
	{ "checksum", BTRFS_CSUM_TREE_OBJECTID },
	{ "quota", BTRFS_QUOTA_TREE_OBJECTID },
	{ "uuid", BTRFS_UUID_TREE_OBJECTID },
	{ "free-space", BTRFS_FREE_SPACE_TREE_OBJECTID },
	{ "free_space", BTRFS_FREE_SPACE_TREE_OBJECTID },
	{ "block-group", BTRFS_BLOCK_GROUP_TREE_OBJECTID },
	{ "block_group", BTRFS_BLOCK_GROUP_TREE_OBJECTID },
	{ "data-reloc", BTRFS_DATA_RELOC_TREE_OBJECTID },
	{ "data_reloc", BTRFS_DATA_RELOC_TREE_OBJECTID },
};

static void usage(FILE *out)
{
	fputs("usage: ghee tree-stats [options] DEVICE [DEVICE...]\n"
	      "\n"
	      "Print the size and shape of each tree of an unmounted btrfs filesystem:\n"
	      "blocks per level, leaves, items, leaf and node fill, fanout, inline data.\n"
	      "\n"
	      "  -b|--raw               sizes in bytes (default: human units, base 1024)\n"
	      "  -t|--tree TREE         only this tree: a number or root, extent, chunk, dev,\n"
	      "                         fs, csum, quota, uuid, free-space, block-group,\n"
	      "                         data-reloc (repeatable)\n"
	      "  --format text|json     output format (default text)\n"
	      "  -V|--version           print the version\n"
	      "  -h|--help              this help\n"
	      "\n"
	      "Exit status: 0 ok, 1 a tree or block could not be read, 2 usage error.\n", out);
}

static bool parse_tree(const char *s, u64 *id)
{
	size_t i;

	if (inspect_parse_u64(s, id))
		return *id != 0;
	for (i = 0; i < sizeof(tree_names) / sizeof(tree_names[0]); i++)
		if (!strcasecmp(s, tree_names[i].name)) {
			*id = tree_names[i].id;
			return true;
		}
	return false;
}

static const char *tree_name(u64 id)
{
	size_t i;

	if (id >= BTRFS_FIRST_FREE_OBJECTID && id <= BTRFS_LAST_FREE_OBJECTID)
		return "subvolume";
	for (i = 0; i < sizeof(tree_names) / sizeof(tree_names[0]); i++)
		if (tree_names[i].id == id)
			return tree_names[i].name;
	return "tree";
}

static void account_leaf(struct tree_stat *st, const struct extent_buffer *eb)
{
	u32 nr = btrfs_eb_nritems(eb), i;

	st->items += nr;
	for (i = 0; i < nr; i++) {
		struct btrfs_key key;
		u32 size = btrfs_item_size(eb, i);

		st->leaf_bytes_used += sizeof(struct btrfs_item) + size;
		btrfs_item_key_to_cpu(eb, &key, i);
		if (key.type != BTRFS_EXTENT_DATA_KEY ||
		    size < BTRFS_FILE_EXTENT_INLINE_DATA_START)
			continue;
		if (btrfs_file_extent_type(btrfs_item_ptr(eb, i, struct btrfs_file_extent_item)) ==
		    BTRFS_FILE_EXTENT_INLINE)
			st->inline_data += size - BTRFS_FILE_EXTENT_INLINE_DATA_START;
	}
}

/* depth first, as progs walks; a child that cannot be read is counted and named */
static void walk(struct ts_ctx *c, struct tree_stat *st, struct extent_buffer *eb)
{
	int level = btrfs_eb_level(eb);
	u32 nr = btrfs_eb_nritems(eb), i;

	st->nodes++;
	st->per_level[level]++;
	if (eb->start < st->lowest)
		st->lowest = eb->start;
	if (eb->start > st->highest)
		st->highest = eb->start;
	if (level == 0) {
		account_leaf(st, eb);
		return;
	}
	st->ptrs += nr;
	for (i = 0; i < nr; i++) {
		struct extent_buffer *child;
		int err = 0;

		child = btrfs_read_node_slot(eb, i, &err);
		if (!child) {
			st->unreadable++;
			c->errors++;
			cmd_error("tree %llu: cannot read block %llu (slot %u of node %llu): %s",
				  (unsigned long long)st->id,
				  (unsigned long long)btrfs_node_blockptr(eb, i), i,
				  (unsigned long long)eb->start, strerror(err ? -err : EIO));
			continue;
		}
		walk(c, st, child);
		free_extent_buffer(child);
	}
}

/* the root of tree @id: a pointer into fs_info or @tmp (released by the caller) */
static struct btrfs_root *get_root(struct ts_ctx *c, u64 id, struct btrfs_root *tmp,
				   int *err)
{
	struct btrfs_fs_info *fs_info = c->fs_info;

	*err = 0;
	if (id == BTRFS_ROOT_TREE_OBJECTID)
		return &fs_info->tree_root;
	if (id == BTRFS_CHUNK_TREE_OBJECTID)
		return &fs_info->chunk_root;
	memset(tmp, 0, sizeof(*tmp));
	*err = btrfs_read_root(fs_info, id, tmp);
	if (*err)
		return NULL;
	return tmp;
}

static void print_size(struct ts_ctx *c, const char *indent, const char *label, u64 v)
{
	char buf[40];

	printf("%s%s: %s\n", indent, label, inspect_size(buf, sizeof(buf), v, c->raw));
}

/* a ratio in hundredths of a percent, or of a unit */
static u64 ratio100(u64 num, u64 den, u64 scale)
{
	return den ? (u64)((double)num * scale * 100 / (double)den + 0.5) : 0;
}

static void print_text(struct ts_ctx *c, const struct tree_stat *st)
{
	u32 ns = c->fs_info->nodesize;
	u64 leaves = st->per_level[0], inner = st->nodes - leaves;
	u64 leaf_fill = ratio100(st->leaf_bytes_used, leaves * btrfs_leaf_data_size(ns), 100);
	u64 node_fill = ratio100(st->ptrs, inner * btrfs_max_node_ptrs(ns), 100);
	u64 fanout = ratio100(st->ptrs, inner, 1);
	int i;

	/* progs' header line; trees progs does not name get their id */
	if (st->id >= BTRFS_FIRST_FREE_OBJECTID && st->id <= BTRFS_LAST_FREE_OBJECTID)
		printf("Calculating size of subvolume tree %llu\n", (unsigned long long)st->id);
	else
		printf("Calculating size of %s tree\n", tree_name(st->id));
	if (st->root_unreadable) {
		printf(st->missing ? "\tno such tree\n" : "\tthe root block cannot be read\n");
		return;
	}
	print_size(c, "\t", "Total size", st->nodes * ns);
	print_size(c, "\t\t", "Inline data", st->inline_data);
	print_size(c, "\t", "Lowest to highest block", st->highest - st->lowest);
	printf("\tLevels: %d\n", st->levels);
	printf("\tTotal nodes: %llu\n", (unsigned long long)st->nodes);
	for (i = 0; i < st->levels && i < BTRFS_MAX_LEVEL; i++) {
		printf("\t\tOn level %d: %8llu", i, (unsigned long long)st->per_level[i]);
		/* progs: blocks of the level below per block of this one */
		if (i && st->per_level[i])
			printf(" (avg fanout %llu)",
			       (unsigned long long)(st->per_level[i - 1] / st->per_level[i]));
		printf("\n");
	}
	printf("\tLeaves: %llu\n", (unsigned long long)leaves);
	printf("\tInternal nodes: %llu\n", (unsigned long long)inner);
	printf("\tItems: %llu\n", (unsigned long long)st->items);
	printf("\tLeaf fill: %llu.%02llu%%\n", (unsigned long long)(leaf_fill / 100),
	       (unsigned long long)(leaf_fill % 100));
	if (inner) {
		printf("\tNode fill: %llu.%02llu%%\n", (unsigned long long)(node_fill / 100),
		       (unsigned long long)(node_fill % 100));
		printf("\tFanout: %llu.%02llu\n", (unsigned long long)(fanout / 100),
		       (unsigned long long)(fanout % 100));
	}
	if (st->unreadable)
		printf("\tUnreadable blocks: %llu\n", (unsigned long long)st->unreadable);
}

static void print_json(struct ts_ctx *c, const struct tree_stat *st)
{
	struct json_writer *w = &c->jw;
	u32 ns = c->fs_info->nodesize;
	u64 leaves = st->per_level[0], inner = st->nodes - leaves;
	int i;

	json_object_begin(w);
	json_kv_u64(w, "id", st->id);
	json_kv_string(w, "name", tree_name(st->id));
	json_kv_u64(w, "root_bytenr", st->root_bytenr);
	json_kv_bool(w, "exists", !st->missing);
	json_kv_bool(w, "readable", !st->root_unreadable);
	if (!st->root_unreadable) {
		json_kv_u64(w, "levels", st->levels);
		json_kv_u64(w, "nodes", st->nodes);
		json_kv_array_begin(w, "nodes_per_level");
		for (i = 0; i < st->levels && i < BTRFS_MAX_LEVEL; i++)
			json_u64(w, st->per_level[i]);
		json_array_end(w);
		json_kv_u64(w, "leaves", leaves);
		json_kv_u64(w, "internal_nodes", inner);
		json_kv_u64(w, "total_bytes", st->nodes * ns);
		json_kv_u64(w, "inline_data", st->inline_data);
		json_kv_u64(w, "block_span", st->highest - st->lowest);
		json_kv_u64(w, "items", st->items);
		json_kv_fixed(w, "leaf_fill",
			      (s64)ratio100(st->leaf_bytes_used, leaves * btrfs_leaf_data_size(ns), 100), 2);
		json_kv_fixed(w, "node_fill",
			      (s64)ratio100(st->ptrs, inner * btrfs_max_node_ptrs(ns), 100), 2);
		json_kv_fixed(w, "fanout", (s64)ratio100(st->ptrs, inner, 1), 2);
	}
	json_kv_u64(w, "unreadable_blocks", st->unreadable);
	json_object_end(w);
}

static void stat_tree(struct ts_ctx *c, u64 id)
{
	struct btrfs_root tmp, *root;
	struct tree_stat st;
	int err;

	root = get_root(c, id, &tmp, &err);

	memset(&st, 0, sizeof(st));
	st.id = id;
	st.lowest = (u64)-1;
	if (!root || !root->node) {
		st.root_unreadable = true;
		c->errors++;
		st.missing = err == -ENOENT;
		if (st.missing)
			cmd_error("tree %llu (%s): no root item in the tree of tree roots",
				  (unsigned long long)id, tree_name(id));
		else
			cmd_error("cannot read the root of tree %llu (%s)", (unsigned long long)id,
				  tree_name(id));
	} else {
		st.root_bytenr = root->node->start;
		st.levels = btrfs_eb_level(root->node) + 1;
		walk(c, &st, root->node);
	}
	if (c->json)
		print_json(c, &st);
	else
		print_text(c, &st);
	if (root == &tmp)
		btrfs_release_root(&tmp);
}

/* every tree with a root item, in the root tree's order, plus root and chunk */
static int list_trees(struct ts_ctx *c, u64 **ids, size_t *nr)
{
	struct btrfs_root *rt = &c->fs_info->tree_root;
	struct btrfs_key key = { 0, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	size_t alloc = 0;
	int ret;

	*ids = NULL;
	*nr = 0;
	if (ARRAY_RESERVE(*ids, alloc, 2, 64))
		return -ENOMEM;
	(*ids)[(*nr)++] = BTRFS_ROOT_TREE_OBJECTID;
	(*ids)[(*nr)++] = BTRFS_CHUNK_TREE_OBJECTID;
	if (!rt->node)
		return 0;
	ret = btrfs_search_first(rt, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.type == BTRFS_ROOT_ITEM_KEY && key.objectid != BTRFS_TREE_RELOC_OBJECTID &&
		    key.objectid != BTRFS_TREE_LOG_OBJECTID &&
		    (!*nr || (*ids)[*nr - 1] != key.objectid)) {
			if (ARRAY_RESERVE(*ids, alloc, *nr + 1, 64)) {
				ret = -ENOMEM;
				break;
			}
			(*ids)[(*nr)++] = key.objectid;
		}
		ret = btrfs_next_item(rt, &path);
	}
	btrfs_release_path(&path);
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		cmd_error("the tree of tree roots cannot be read to its end: trees after %llu are not listed",
			  (unsigned long long)key.objectid);
		c->errors++;
	}
	return 0;
}

int cmd_tree_stats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, NULL, 'b' },
		{ "tree", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct inspect_open io;
	struct ts_ctx c;
	u64 *ids = NULL, id;
	size_t nr = 0, alloc = 0, i;
	int ch, ret;

	memset(&c, 0, sizeof(c));
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":bt:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			c.raw = true;
			break;
		case 't':
			if (!parse_tree(optarg, &id)) {
				cmd_error("unknown tree '%s'", optarg);
				free(ids);
				return GHEE_EXIT_USAGE;
			}
			if (ARRAY_RESERVE(ids, alloc, nr + 1, 8)) {
				free(ids);
				return GHEE_EXIT_FAILURE;
			}
			ids[nr++] = id;
			break;
		case 'F':
			if (!inspect_parse_format(optarg, &c.json)) {
				free(ids);
				return GHEE_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			free(ids);
			return GHEE_EXIT_OK;
		case 'V':
			printf("%s\n", ghee_version_string);
			free(ids);
			return GHEE_EXIT_OK;
		default:
			cmd_option_error("tree-stats", argv, ch);
			free(ids);
			return GHEE_EXIT_USAGE;
		}
	}
	ret = inspect_devices(&io, argv, optind, argc, false, usage);
	if (ret) {
		free(ids);
		return ret == -EINVAL ? GHEE_EXIT_USAGE : GHEE_EXIT_FAILURE;
	}
	c.fs_info = inspect_open_fs(&io);
	if (!c.fs_info) {
		inspect_close(&io, NULL);
		free(ids);
		return GHEE_EXIT_FAILURE;
	}
	ret = 0;
	if (!nr)
		ret = list_trees(&c, &ids, &nr);
	if (ret) {
		cmd_error("%s", strerror(-ret));
		c.errors++;
		nr = 0;
	}
	c.progress.enabled = isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
	if (c.json) {
		json_writer_init(&c.jw, stdout, JSON_WRITER_PRETTY);
		json_object_begin(&c.jw);
		json_kv_u64(&c.jw, "nodesize", c.fs_info->nodesize);
		json_kv_array_begin(&c.jw, "trees");
	}
	progress_start(&c.progress, "trees", nr);
	for (i = 0; i < nr; i++) {
		stat_tree(&c, ids[i]);
		progress_update(&c.progress, i + 1);
	}
	progress_end(&c.progress);
	if (c.json) {
		json_array_end(&c.jw);
		json_object_end(&c.jw);
		if (json_writer_finish(&c.jw))
			c.errors++;
	}
	ret = c.errors || io.reported_errors ? GHEE_EXIT_FAILURE : GHEE_EXIT_OK;
	free(ids);
	inspect_close(&io, c.fs_info);
	return inspect_finish_output(ret);
}
