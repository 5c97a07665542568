// SPDX-License-Identifier: GPL-2.0
/*
 * ghee dump-extents: the extents of a filesystem with their back
 * references resolved to owners (files with their paths, trees), for a
 * range, a block group, one logical or physical address, or one file.
 * Read-only; ghee-dump-extents(8) describes the text and JSON output.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "inspect-common.h"
#include "check/progress.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent-owners.h"
#include "json-writer.h"
#include "array.h"

#define OUT_BUFFER_SIZE (1U << 20)

/*
 * Engine messages go to stderr; the same message again (a damaged block
 * met by many lookups) is counted, not repeated: a fixed table of the
 * hashes of recent messages.
 */
#define SEEN_MESSAGES 256

struct reporter_state {
	unsigned int nr_errors;
	unsigned long long suppressed;
	unsigned long long seen[SEEN_MESSAGES];
};

static unsigned long long message_hash(const char *msg)
{
	unsigned long long h = 1469598103934665603ULL;

	for (; *msg; msg++)
		h = (h ^ (unsigned char)*msg) * 1099511628211ULL;
	return h | 1;
}

static void report_to_stderr(void *ctx, enum btrfs_report_level level,
			     const char *msg)
{
	struct reporter_state *rs = ctx;
	unsigned long long h = message_hash(msg);
	unsigned long long *slot = &rs->seen[h % SEEN_MESSAGES];

	if (level == BTRFS_REPORT_ERROR)
		rs->nr_errors++;
	if (*slot == h) {
		rs->suppressed++;
		return;
	}
	*slot = h;
	fflush(stdout);
	fprintf(stderr, "%s%s\n", level == BTRFS_REPORT_ERROR ? "ERROR: " :
		level == BTRFS_REPORT_WARNING ? "WARNING: " : "", msg);
}

enum de_mode { MODE_ALL, MODE_RANGE, MODE_BLOCK_GROUP, MODE_LOGICAL, MODE_INODE,
	       MODE_PHYSICAL };
static const char *const mode_names[] = { "all", "range", "block_group",
					  "logical", "inode", "physical" };

struct de_opts {
	enum de_mode mode;
	u64 start, len;		/* range, block group, logical */
	u64 ino, subvol;
	bool have_ino, have_subvol;
	u64 devid, physical;
	bool json;
	bool noscan;
	bool no_paths;
	bool data_only, tree_only;
	struct inspect_open io;
	struct reporter_state rs;
};

struct subvol_name {
	u64 id;
	char *path;		/* NULL: unreachable */
};

struct de_ctx {
	struct de_opts *o;
	struct btrfs_fs_info *fs_info;
	struct btrfs_owner_resolver *res;
	struct json_writer jw;
	struct check_progress progress;
	u64 range_start, range_end;
	struct subvol_name *subvols;
	size_t nr_subvols, alloc_subvols;
	u64 pos;		/* offset in the extent for --logical, else -1 */
	u64 nr_extents, nr_data, nr_tree, nr_owners, nr_paths, nr_unresolved;
	int errors;
};

static void usage(FILE *out)
{
	fputs("usage: ghee dump-extents [options] DEVICE [DEVICE...]\n"
	      "\n"
	      "Print the extents of an unmounted btrfs filesystem with their back\n"
	      "references resolved to owners: files (subvolume, inode, offset, path)\n"
	      "for data extents, trees and level for tree blocks.\n"
	      "\n"
	      "  --range START[:LEN]       the extents overlapping this logical range\n"
	      "  --block-group BYTENR      the extents of the block group at BYTENR\n"
	      "  --logical ADDR            the files whose extents cover ADDR\n"
	      "                            (offline logical-resolve)\n"
	      "  --inode INO --subvol ID   the extents and paths of one file\n"
	      "                            (offline inode-resolve)\n"
	      "  --physical DEVID:OFFSET   map a device offset to its logical address\n"
	      "                            through the chunk tree, then as --logical\n"
	      "  --data                    only data extents\n"
	      "  --tree                    only tree blocks\n"
	      "  --no-paths                do not resolve owners to paths\n"
	      "  --noscan                  use only the listed devices\n"
	      "  --format text|json        output format (default text)\n"
	      "  -V|--version              print the version\n"
	      "  -h|--help                 this help\n"
	      "\n"
	      "Numbers may be decimal or 0x hex, with an optional K, M, G or T\n"
	      "(binary) suffix. Without a selection every extent\n"
	      "of the filesystem is printed.\n", out);
}

/* ---- options ---- */

static bool parse_num(const char *s, const char **end, u64 *ret)
{
	unsigned long long v;
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno)
		return false;
	/* binary size suffixes, handy for lengths */
	if (*e && strchr("kKmMgGtT", *e)) {
		int shift = strchr("kK", *e) ? 10 : strchr("mM", *e) ? 20 :
			    strchr("gG", *e) ? 30 : 40;

		if (v > (~0ULL >> shift))
			return false;
		v <<= shift;
		e++;
	}
	*ret = v;
	*end = e;
	return true;
}

static bool parse_u64_arg(const char *opt, const char *s, u64 *ret)
{
	const char *end;

	if (!parse_num(s, &end, ret) || *end) {
		cmd_error("%s: invalid number '%s'", opt, s);
		return false;
	}
	return true;
}

/* "A:B" with both numbers */
static bool parse_pair(const char *opt, const char *s, u64 *a, u64 *b, bool b_optional,
		       bool *have_b)
{
	const char *end;

	*have_b = false;
	if (!parse_num(s, &end, a))
		goto bad;
	if (!*end && b_optional)
		return true;
	if (*end != ':' || !parse_num(end + 1, &end, b) || *end)
		goto bad;
	*have_b = true;
	return true;
bad:
	cmd_error("%s: invalid argument '%s'", opt, s);
	return false;
}

static bool set_mode(struct de_opts *o, enum de_mode m)
{
	if (o->mode != MODE_ALL && o->mode != m) {
		cmd_error("--range, --block-group, --logical, --inode and --physical exclude each other");
		return false;
	}
	o->mode = m;
	return true;
}

enum {
	OPT_RANGE = 256, OPT_BG, OPT_LOGICAL, OPT_INODE, OPT_SUBVOL, OPT_PHYSICAL,
	OPT_FORMAT, OPT_NOSCAN, OPT_NO_PATHS, OPT_DATA, OPT_TREE,
};

static int parse_options(int argc, char **argv, struct de_opts *o)
{
	static const struct option long_options[] = {
		{ "range", required_argument, NULL, OPT_RANGE },
		{ "block-group", required_argument, NULL, OPT_BG },
		{ "logical", required_argument, NULL, OPT_LOGICAL },
		{ "inode", required_argument, NULL, OPT_INODE },
		{ "subvol", required_argument, NULL, OPT_SUBVOL },
		{ "physical", required_argument, NULL, OPT_PHYSICAL },
		{ "data", no_argument, NULL, OPT_DATA },
		{ "tree", no_argument, NULL, OPT_TREE },
		{ "no-paths", no_argument, NULL, OPT_NO_PATHS },
		{ "noscan", no_argument, NULL, OPT_NOSCAN },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_len;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_RANGE:
			if (!set_mode(o, MODE_RANGE) ||
			    !parse_pair("--range", optarg, &o->start, &o->len, true,
					&have_len))
				return -EINVAL;
			/* to the end of the address space, without wrapping */
			if (!have_len || o->len > (u64)-1 - o->start)
				o->len = (u64)-1 - o->start;
			if (!o->len) {
				cmd_error("--range: the length must not be 0");
				return -EINVAL;
			}
			break;
		case OPT_BG:
			if (!set_mode(o, MODE_BLOCK_GROUP) ||
			    !parse_u64_arg("--block-group", optarg, &o->start))
				return -EINVAL;
			break;
		case OPT_LOGICAL:
			if (!set_mode(o, MODE_LOGICAL) ||
			    !parse_u64_arg("--logical", optarg, &o->start))
				return -EINVAL;
			break;
		case OPT_INODE:
			if (!set_mode(o, MODE_INODE) ||
			    !parse_u64_arg("--inode", optarg, &o->ino))
				return -EINVAL;
			o->have_ino = true;
			break;
		case OPT_SUBVOL:
			if (!parse_u64_arg("--subvol", optarg, &o->subvol))
				return -EINVAL;
			o->have_subvol = true;
			break;
		case OPT_PHYSICAL:
			if (!set_mode(o, MODE_PHYSICAL) ||
			    !parse_pair("--physical", optarg, &o->devid, &o->physical,
					false, &have_len))
				return -EINVAL;
			break;
		case OPT_DATA: o->data_only = true; break;
		case OPT_TREE: o->tree_only = true; break;
		case OPT_NO_PATHS: o->no_paths = true; break;
		case OPT_NOSCAN: o->noscan = true; break;
		case OPT_FORMAT:
			if (!inspect_parse_format(optarg, &o->json))
				return -EINVAL;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("%s\n", ghee_version_string);
			return 1;
		default:
			cmd_option_error("dump-extents", argv, c);
			return -EINVAL;
		}
	}
	if (o->have_subvol != (o->mode == MODE_INODE)) {
		cmd_error("--inode and --subvol go together");
		return -EINVAL;
	}
	if (o->data_only && o->tree_only) {
		cmd_error("--data and --tree exclude each other");
		return -EINVAL;
	}
	return inspect_devices(&o->io, argv, optind, argc, o->noscan, usage);
}

/* ---- names ---- */

static const char *backref_name(u8 type)
{
	switch (type) {
	case BTRFS_TREE_BLOCK_REF_KEY: return "tree_block";
	case BTRFS_SHARED_BLOCK_REF_KEY: return "shared_block";
	case BTRFS_EXTENT_DATA_REF_KEY: return "extent_data";
	case BTRFS_SHARED_DATA_REF_KEY: return "shared_data";
	case BTRFS_EXTENT_OWNER_REF_KEY: return "owner";
	}
	return "unknown";
}

/* "/path/of/subvol" ("" for the top level); NULL when not linked */
static const char *subvol_prefix(struct de_ctx *c, u64 id)
{
	char buf[4097];
	size_t i;
	int ret;

	for (i = 0; i < c->nr_subvols; i++)
		if (c->subvols[i].id == id)
			return c->subvols[i].path;
	if (ARRAY_RESERVE(c->subvols, c->alloc_subvols, c->nr_subvols + 1, 8))
		return NULL;
	c->subvols[c->nr_subvols].id = id;
	c->subvols[c->nr_subvols].path = NULL;
	buf[0] = '/';
	ret = btrfs_subvol_path(c->res, id, buf + 1, sizeof(buf) - 1);
	if (!ret)
		c->subvols[c->nr_subvols].path = strdup(buf[1] ? buf : "");
	else
		cmd_warning("subvolume %llu: no path to it: %s",
			    (unsigned long long)id, strerror(-ret));
	return c->subvols[c->nr_subvols++].path;
}

/* ---- printing owners ---- */

struct path_print {
	struct de_ctx *c;
	const char *prefix;
};

static int print_one_path(void *ctx, const char *path)
{
	struct path_print *pp = ctx;
	struct de_ctx *c = pp->c;
	char full[8200];

	snprintf(full, sizeof(full), "%s/%s", pp->prefix ? pp->prefix : "?", path);
	if (!path[0] && pp->prefix && pp->prefix[0])
		snprintf(full, sizeof(full), "%s", pp->prefix);
	c->nr_paths++;
	if (c->o->json)
		json_string(&c->jw, full);
	else
		printf("\t\tpath %s\n", full);
	return 0;
}

static void print_paths(struct de_ctx *c, u64 root, u64 ino)
{
	struct path_print pp = { c, subvol_prefix(c, root) };
	int ret;

	if (c->o->json)
		json_kv_array_begin(&c->jw, "paths");
	ret = btrfs_inode_paths(c->res, root, ino, print_one_path, &pp);
	if (c->o->json)
		json_array_end(&c->jw);
	if (ret <= 0) {
		c->nr_unresolved++;
		if (!c->o->json)
			printf("\t\tpath unresolved (%s)\n",
			       ret ? strerror(-ret) : "no name");
	}
}

static int print_owner(void *ctx, const struct btrfs_data_owner *ow)
{
	struct de_ctx *c = ctx;

	c->nr_owners++;
	if (c->o->json) {
		json_object_begin(&c->jw);
		json_kv_u64(&c->jw, "subvol", ow->root);
		json_kv_u64(&c->jw, "inode", ow->ino);
		json_kv_u64(&c->jw, "offset", ow->file_offset);
		json_kv_u64(&c->jw, "leaf", ow->leaf);
		json_kv_u64(&c->jw, "compression", ow->compression);
	} else {
		printf("\towner subvol %llu inode %llu offset %llu leaf %llu%s\n",
		       (unsigned long long)ow->root, (unsigned long long)ow->ino,
		       (unsigned long long)ow->file_offset,
		       (unsigned long long)ow->leaf,
		       ow->compression ? " compressed" : "");
	}
	if (!c->o->no_paths)
		print_paths(c, ow->root, ow->ino);
	if (c->o->json)
		json_object_end(&c->jw);
	return 0;
}

static void print_backrefs(struct de_ctx *c, const struct btrfs_extent_desc *d)
{
	struct json_writer *w = &c->jw;
	size_t i;

	if (c->o->json)
		json_kv_array_begin(w, "backrefs");
	for (i = 0; i < d->nr_backrefs; i++) {
		const struct btrfs_extent_backref *b = &d->backrefs[i];

		if (c->o->json) {
			json_object_begin(w);
			json_kv_string(w, "type", backref_name(b->type));
			json_kv_bool(w, "inline", b->is_inline);
			if (b->type == BTRFS_SHARED_BLOCK_REF_KEY ||
			    b->type == BTRFS_SHARED_DATA_REF_KEY)
				json_kv_u64(w, "parent", b->parent);
			else
				json_kv_u64(w, "root", b->root);
			if (b->type == BTRFS_EXTENT_DATA_REF_KEY) {
				json_kv_u64(w, "inode", b->objectid);
				json_kv_u64(w, "offset", b->offset);
			}
			if (b->type == BTRFS_EXTENT_DATA_REF_KEY ||
			    b->type == BTRFS_SHARED_DATA_REF_KEY)
				json_kv_u64(w, "count", b->count);
			json_object_end(w);
			continue;
		}
		printf("\tbackref %s %s", b->is_inline ? "inline" : "keyed",
		       backref_name(b->type));
		if (b->type == BTRFS_SHARED_BLOCK_REF_KEY ||
		    b->type == BTRFS_SHARED_DATA_REF_KEY)
			printf(" parent %llu", (unsigned long long)b->parent);
		else
			printf(" root %llu", (unsigned long long)b->root);
		if (b->type == BTRFS_EXTENT_DATA_REF_KEY)
			printf(" inode %llu offset %llu", (unsigned long long)b->objectid,
			       (unsigned long long)b->offset);
		if (b->type == BTRFS_EXTENT_DATA_REF_KEY ||
		    b->type == BTRFS_SHARED_DATA_REF_KEY)
			printf(" count %u", b->count);
		printf("\n");
	}
	if (c->o->json)
		json_array_end(w);
}

static void print_tree_owners(struct de_ctx *c, const struct btrfs_extent_desc *d)
{
	const u64 *roots;
	int n, i;

	n = btrfs_tree_block_roots(c->res, d->bytenr, &roots);
	if (c->o->json) {
		json_kv_array_begin(&c->jw, "trees");
		for (i = 0; i < n; i++)
			json_u64(&c->jw, roots[i]);
		json_array_end(&c->jw);
		return;
	}
	if (n < 0) {
		printf("\ttrees unresolved (%s)\n", strerror(-n));
		return;
	}
	printf("\ttrees");
	for (i = 0; i < n; i++)
		printf(" %llu", (unsigned long long)roots[i]);
	printf("\n");
}

static bool only_direct_tree_refs(const struct btrfs_extent_desc *d)
{
	size_t i;

	for (i = 0; i < d->nr_backrefs; i++)
		if (d->backrefs[i].type != BTRFS_TREE_BLOCK_REF_KEY)
			return false;
	return true;
}

static int print_extent(void *ctx, const struct btrfs_extent_desc *d)
{
	struct de_ctx *c = ctx;
	struct json_writer *w = &c->jw;
	bool tree = d->flags & BTRFS_EXTENT_FLAG_TREE_BLOCK;
	int ret = 0;

	if (d->bytenr + d->num_bytes <= c->range_start || d->bytenr >= c->range_end)
		return 0;
	if ((c->o->data_only && tree) || (c->o->tree_only && !tree))
		return 0;
	c->nr_extents++;
	tree ? c->nr_tree++ : c->nr_data++;
	progress_update(&c->progress, (d->bytenr - c->range_start) >> 20);
	if (c->o->json) {
		json_object_begin(w);
		json_kv_u64(w, "bytenr", d->bytenr);
		json_kv_u64(w, "length", d->num_bytes);
		json_kv_string(w, "kind", tree ? "tree" : "data");
		json_kv_u64(w, "refs", d->refs);
		json_kv_u64(w, "generation", d->generation);
		json_kv_bool(w, "full_backref", d->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF);
		if (tree)
			json_kv_s64(w, "level", d->level);
		json_kv_bool(w, "damaged", d->damaged);
	} else {
		if (tree)
			printf("tree block %llu length %llu level %d refs %llu generation %llu%s%s\n",
			       (unsigned long long)d->bytenr,
			       (unsigned long long)d->num_bytes, d->level,
			       (unsigned long long)d->refs,
			       (unsigned long long)d->generation,
			       d->flags & BTRFS_BLOCK_FLAG_FULL_BACKREF ? " full_backref" : "",
			       d->damaged ? " DAMAGED" : "");
		else
			printf("data extent %llu length %llu refs %llu generation %llu%s\n",
			       (unsigned long long)d->bytenr,
			       (unsigned long long)d->num_bytes,
			       (unsigned long long)d->refs,
			       (unsigned long long)d->generation,
			       d->damaged ? " DAMAGED" : "");
	}
	print_backrefs(c, d);
	if (tree) {
		/* a block only the trees it names point to needs no search */
		if (!only_direct_tree_refs(d)) {
			print_tree_owners(c, d);
		} else if (c->o->json) {
			size_t i;

			json_kv_array_begin(w, "trees");
			for (i = 0; i < d->nr_backrefs; i++)
				json_u64(w, d->backrefs[i].root);
			json_array_end(w);
		}
	} else {
		if (c->o->json)
			json_kv_array_begin(w, "owners");
		ret = btrfs_data_extent_owners(c->res, d, c->pos, print_owner, c);
		if (c->o->json)
			json_array_end(w);
	}
	if (c->o->json)
		json_object_end(w);
	return ret;
}

/* ---- the modes ---- */

static void print_chunk_of(struct de_ctx *c, u64 logical)
{
	const struct map_lookup *ml = chunk_map_lookup(&c->fs_info->chunk_map, logical);
	struct json_writer *w = &c->jw;
	int copies, m;

	copies = btrfs_num_copies(c->fs_info, logical, 1);
	if (c->o->json) {
		json_kv_object_begin(w, "chunk");
		json_kv_u64(w, "start", ml->logical);
		json_kv_u64(w, "length", ml->length);
		json_kv_string(w, "type", inspect_bg_type_name(ml->type));
		json_kv_string(w, "profile", btrfs_bg_type_profile_name(ml->type));
		json_kv_array_begin(w, "copies");
	} else {
		printf("logical %llu in chunk %llu length %llu %s %s\n",
		       (unsigned long long)logical, (unsigned long long)ml->logical,
		       (unsigned long long)ml->length, inspect_bg_type_name(ml->type),
		       btrfs_bg_type_profile_name(ml->type));
	}
	for (m = 1; m <= copies; m++) {
		struct btrfs_device *dev = NULL;
		u64 len = 1, physical = 0;
		u64 devid;
		int ret = btrfs_map_block(c->fs_info, logical, &len, m, &dev, &physical);

		/* a missing device still has a stripe: name it */
		devid = dev ? dev->devid : 0;
		if (ret && ret != -ENODEV)
			continue;
		if (c->o->json) {
			json_object_begin(w);
			json_kv_u64(w, "mirror", m);
			json_kv_u64(w, "devid", devid);
			json_kv_u64(w, "physical", physical);
			json_kv_bool(w, "missing", ret == -ENODEV);
			json_object_end(w);
		} else {
			printf("\tmirror %d devid %llu physical %llu%s\n", m,
			       (unsigned long long)devid, (unsigned long long)physical,
			       ret == -ENODEV ? " (device missing)" : "");
		}
	}
	if (c->o->json) {
		json_array_end(w);
		json_object_end(w);
	}
}

static int run_logical(struct de_ctx *c, u64 logical)
{
	struct btrfs_extent_desc d;
	int ret;

	if (!chunk_map_lookup(&c->fs_info->chunk_map, logical)) {
		cmd_error("logical address %llu is not inside any chunk",
			  (unsigned long long)logical);
		return -ENOENT;
	}
	if (c->o->json)
		json_kv_u64(&c->jw, "logical", logical);
	print_chunk_of(c, logical);
	ret = btrfs_find_extent(c->fs_info, logical, &d);
	if (ret) {
		if (ret == -ENOENT)
			cmd_error("logical address %llu is not inside any extent (free space)",
				  (unsigned long long)logical);
		else
			cmd_error("cannot look up logical %llu in the extent tree: %s",
				  (unsigned long long)logical, strerror(-ret));
		return ret;
	}
	c->range_start = d.bytenr;
	c->range_end = d.bytenr + d.num_bytes;
	c->pos = logical - d.bytenr;
	if (c->o->json)
		json_kv_array_begin(&c->jw, "extents");
	ret = print_extent(c, &d);
	if (c->o->json)
		json_array_end(&c->jw);
	btrfs_extent_desc_release(&d);
	return ret;
}

static int run_physical(struct de_ctx *c)
{
	struct btrfs_physical_hit hit;
	struct json_writer *w = &c->jw;
	int ret;

	ret = btrfs_physical_to_logical(c->fs_info, c->o->devid, c->o->physical, &hit);
	if (ret) {
		cmd_error("device %llu offset %llu is not inside any chunk stripe",
			  (unsigned long long)c->o->devid,
			  (unsigned long long)c->o->physical);
		return ret;
	}
	if (c->o->json) {
		json_kv_object_begin(w, "physical");
		json_kv_u64(w, "devid", c->o->devid);
		json_kv_u64(w, "offset", c->o->physical);
		json_kv_u64(w, "chunk", hit.chunk_logical);
		json_kv_u64(w, "stripe", hit.stripe);
		json_kv_bool(w, "parity", hit.parity);
		json_kv_u64(w, "logical", hit.logical);
		json_object_end(w);
	} else {
		printf("physical devid %llu offset %llu -> %s %llu (chunk %llu %s %s stripe %d)\n",
		       (unsigned long long)c->o->devid,
		       (unsigned long long)c->o->physical,
		       hit.parity ? (hit.parity_index ? "Q parity of full stripe at logical" :
				     "P parity of full stripe at logical") : "logical",
		       (unsigned long long)hit.logical,
		       (unsigned long long)hit.chunk_logical,
		       inspect_bg_type_name(hit.chunk_type),
		       btrfs_bg_type_profile_name(hit.chunk_type), hit.stripe);
	}
	if (hit.parity)
		return 0;
	return run_logical(c, hit.logical);
}

static const char *file_extent_type_name(u8 type)
{
	switch (type) {
	case BTRFS_FILE_EXTENT_INLINE: return "inline";
	case BTRFS_FILE_EXTENT_REG: return "regular";
	case BTRFS_FILE_EXTENT_PREALLOC: return "prealloc";
	}
	return "unknown";
}

static void print_file_extent(struct de_ctx *c, const struct extent_buffer *eb,
			      int slot, const struct btrfs_key *key)
{
	const struct btrfs_file_extent_item *fi =
		btrfs_item_ptr(eb, slot, struct btrfs_file_extent_item);
	u32 size = btrfs_item_size(eb, slot);
	struct json_writer *w = &c->jw;
	u8 type;
	u64 len, disk = 0, disk_len = 0, off = 0;

	if (size < BTRFS_FILE_EXTENT_INLINE_DATA_START) {
		cmd_error("inode %llu: file extent item at %llu is too small (%u bytes)",
			  (unsigned long long)key->objectid,
			  (unsigned long long)key->offset, size);
		c->errors++;
		return;
	}
	type = btrfs_file_extent_type(fi);
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		len = btrfs_file_extent_ram_bytes(fi);
	} else if (size < sizeof(*fi)) {
		cmd_error("inode %llu: file extent item at %llu is too small (%u bytes)",
			  (unsigned long long)key->objectid,
			  (unsigned long long)key->offset, size);
		c->errors++;
		return;
	} else {
		len = btrfs_file_extent_num_bytes(fi);
		disk = btrfs_file_extent_disk_bytenr(fi);
		disk_len = btrfs_file_extent_disk_num_bytes(fi);
		off = btrfs_file_extent_offset(fi);
	}
	c->nr_extents++;
	if (c->o->json) {
		json_object_begin(w);
		json_kv_u64(w, "file_offset", key->offset);
		json_kv_u64(w, "length", len);
		json_kv_string(w, "type", file_extent_type_name(type));
		json_kv_u64(w, "compression", btrfs_file_extent_compression(fi));
		json_kv_u64(w, "disk_bytenr", disk);
		json_kv_u64(w, "disk_length", disk_len);
		json_kv_u64(w, "extent_offset", off);
		json_object_end(w);
		return;
	}
	printf("\tfile offset %llu length %llu %s", (unsigned long long)key->offset,
	       (unsigned long long)len, file_extent_type_name(type));
	if (type != BTRFS_FILE_EXTENT_INLINE) {
		if (disk)
			printf(" disk %llu length %llu offset %llu",
			       (unsigned long long)disk, (unsigned long long)disk_len,
			       (unsigned long long)off);
		else
			printf(" hole");
	}
	if (btrfs_file_extent_compression(fi))
		printf(" compression %u", btrfs_file_extent_compression(fi));
	printf("\n");
}

static int run_inode(struct de_ctx *c)
{
	struct btrfs_root *root = btrfs_owner_root(c->res, c->o->subvol);
	struct btrfs_key key = { c->o->ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct json_writer *w = &c->jw;
	const char *prefix;
	struct btrfs_path path;
	int ret;

	if (!root) {
		cmd_error("subvolume %llu cannot be read", (unsigned long long)c->o->subvol);
		return -ENOENT;
	}
	prefix = subvol_prefix(c, c->o->subvol);
	if (c->o->json) {
		json_kv_u64(w, "subvol", c->o->subvol);
		if (prefix)
			json_kv_string(w, "subvol_path", prefix[0] ? prefix : "/");
		else
			json_kv_null(w, "subvol_path");
		json_kv_u64(w, "inode", c->o->ino);
	} else {
		printf("inode %llu subvol %llu (%s)\n", (unsigned long long)c->o->ino,
		       (unsigned long long)c->o->subvol,
		       prefix ? (prefix[0] ? prefix : "/") : "unreachable");
	}
	print_paths(c, c->o->subvol, c->o->ino);
	if (c->o->json)
		json_kv_array_begin(w, "file_extents");
	ret = btrfs_search_first(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		if (key.objectid != c->o->ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		print_file_extent(c, path.nodes[0], path.slots[0], &key);
		ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	if (c->o->json)
		json_array_end(w);
	if (ret < 0) {
		cmd_error("subvolume %llu inode %llu: cannot read all file extents: %s",
			  (unsigned long long)c->o->subvol,
			  (unsigned long long)c->o->ino, strerror(-ret));
		return ret;
	}
	return 0;
}

static int run_walk(struct de_ctx *c)
{
	const struct map_lookup *ml;
	int ret;

	c->range_start = 0;
	c->range_end = (u64)-1;
	if (c->o->mode == MODE_RANGE) {
		c->range_start = c->o->start;
		c->range_end = c->o->start + c->o->len;
	} else if (c->o->mode == MODE_BLOCK_GROUP) {
		ml = chunk_map_lookup(&c->fs_info->chunk_map, c->o->start);
		if (!ml || ml->logical != c->o->start) {
			cmd_error("no block group starts at %llu",
				  (unsigned long long)c->o->start);
			return -ENOENT;
		}
		c->range_start = ml->logical;
		c->range_end = ml->logical + ml->length;
	} else {
		ml = chunk_map_next(&c->fs_info->chunk_map, 0);
		if (ml)
			c->range_start = ml->logical;
	}
	if (c->o->json) {
		json_kv_u64(&c->jw, "start", c->range_start);
		json_kv_u64(&c->jw, "end", c->range_end);
		json_kv_array_begin(&c->jw, "extents");
	}
	{
		u64 last = c->range_end;
		const struct chunk_map *map = &c->fs_info->chunk_map;

		if (map->nr && last > map->maps[map->nr - 1]->logical +
				      map->maps[map->nr - 1]->length)
			last = map->maps[map->nr - 1]->logical +
			       map->maps[map->nr - 1]->length;
		progress_start(&c->progress, "MiB of addresses",
			       last > c->range_start ? (last - c->range_start) >> 20 : 0);
	}
	ret = btrfs_walk_extents(c->fs_info, c->range_start, c->range_end,
				 print_extent, c);
	progress_end(&c->progress);
	if (c->o->json)
		json_array_end(&c->jw);
	return ret;
}

static void print_summary(struct de_ctx *c)
{
	struct json_writer *w = &c->jw;

	if (c->o->json) {
		json_kv_object_begin(w, "summary");
		json_kv_u64(w, "extents", c->nr_extents);
		json_kv_u64(w, "data_extents", c->nr_data);
		json_kv_u64(w, "tree_blocks", c->nr_tree);
		json_kv_u64(w, "owners", c->nr_owners);
		json_kv_u64(w, "paths", c->nr_paths);
		json_kv_u64(w, "unresolved", c->nr_unresolved);
		json_kv_u64(w, "errors", c->errors + btrfs_owner_resolver_errors(c->res) +
			    c->o->rs.nr_errors);
		json_object_end(w);
		return;
	}
	if (c->o->mode == MODE_INODE)
		return;
	printf("total: %llu extents (%llu data, %llu tree blocks), %llu owners, %llu paths, %llu unresolved\n",
	       (unsigned long long)c->nr_extents, (unsigned long long)c->nr_data,
	       (unsigned long long)c->nr_tree, (unsigned long long)c->nr_owners,
	       (unsigned long long)c->nr_paths, (unsigned long long)c->nr_unresolved);
}

static int dump(struct btrfs_fs_info *fs_info, struct de_opts *o)
{
	struct de_ctx c;
	size_t i;
	int ret;

	memset(&c, 0, sizeof(c));
	c.o = o;
	c.fs_info = fs_info;
	c.pos = (u64)-1;
	c.progress.enabled = isatty(STDERR_FILENO) && o->mode <= MODE_BLOCK_GROUP;
	c.res = btrfs_owner_resolver_new(fs_info);
	if (!c.res) {
		cmd_error("out of memory");
		return GHEE_EXIT_FAILURE;
	}
	if (o->json) {
		json_writer_init(&c.jw, stdout, JSON_WRITER_PRETTY);
		json_object_begin(&c.jw);
		json_kv_string(&c.jw, "version", ghee_version_string);
		json_kv_string(&c.jw, "mode", mode_names[o->mode]);
	}
	switch (o->mode) {
	case MODE_LOGICAL:
		ret = run_logical(&c, o->start);
		break;
	case MODE_PHYSICAL:
		ret = run_physical(&c);
		break;
	case MODE_INODE:
		ret = run_inode(&c);
		break;
	default:
		ret = run_walk(&c);
		break;
	}
	if (ret < 0 && o->json) {
		json_kv_stringf(&c.jw, "error", "%s", strerror(-ret));
	}
	print_summary(&c);
	if (o->json) {
		json_object_end(&c.jw);
		if (json_writer_finish(&c.jw))
			c.errors++;
	}
	if (ret < 0 || c.errors || btrfs_owner_resolver_errors(c.res) ||
	    o->rs.nr_errors)
		ret = GHEE_EXIT_FAILURE;
	else
		ret = GHEE_EXIT_OK;
	for (i = 0; i < c.nr_subvols; i++)
		free(c.subvols[i].path);
	free(c.subvols);
	btrfs_owner_resolver_free(c.res);
	return ret;
}

int cmd_dump_extents(int argc, char **argv)
{
	static char outbuf[OUT_BUFFER_SIZE];
	struct btrfs_fs_info *fs_info;
	struct de_opts o;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_options(argc, argv, &o);
	if (ret) {
		inspect_close(&o.io, NULL);
		return ret > 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* the resolver reads the trees that own extents itself, when asked */
	o.io.skip_roots = OPEN_ROOT_DEV | OPEN_ROOT_FS | OPEN_ROOT_CSUM | OPEN_ROOT_QUOTA |
			  OPEN_ROOT_UUID;
	/* tree blocks are revisited near each other: a modest cache suffices */
	o.io.cache_budget = 24U << 20;
	o.io.reporter.report = report_to_stderr;
	o.io.reporter.ctx = &o.rs;
	fs_info = inspect_open_fs(&o.io);
	if (!fs_info) {
		ret = GHEE_EXIT_FAILURE;
		goto out;
	}
	ret = dump(fs_info, &o);
	close_ctree(fs_info);
	if (o.rs.suppressed)
		fprintf(stderr, "(%llu repeated messages not shown)\n", o.rs.suppressed);
out:
	ret = inspect_finish_output(ret);
	inspect_close(&o.io, NULL);
	return ret;
}
