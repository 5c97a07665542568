// SPDX-License-Identifier: GPL-2.0
/*
 * ghee dump-free-space: the free space of every block group, offline, as
 * the free space tree, the v1 space cache or the extent tree records it:
 * used and free bytes, the number of free extents, the largest one, a
 * fragmentation score comparable with python-btrfs', optionally every
 * free extent and a power-of-two histogram of their sizes; --compare
 * prints exactly where two of the sources disagree.  ghee-dump-free-space(8)
 * describes the output and the JSON document.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "inspect-common.h"
#include "check/progress.h"
#include "kernel-shared/free-space-read.h"
#include "kernel-shared/volumes.h"
#include "json-writer.h"

#define OUT_BUFFER_SIZE (1U << 20)
#define HIST_BUCKETS 64
#define MAX_SUPER_RANGES 16

enum fs_source {
	SRC_DEFAULT,
	SRC_TREE,
	SRC_CACHE,
	SRC_EXTENTS,
};

struct dfs_opts {
	bool extents;
	bool histogram;
	bool json;
	bool one_group;
	u64 group;
	enum fs_source source;
	enum fs_source compare;	/* SRC_DEFAULT: no comparison */
	bool cache_fallback;	/* default source: groups without a cache use the extent tree */
};

struct histogram {
	u64 count[HIST_BUCKETS];
	u64 bytes[HIST_BUCKETS];
	u64 total_bytes;
};

/* what one block group's free space amounts to */
struct bg_stats {
	u64 free;
	u64 nr;
	u64 largest;
	double score;
	struct histogram hist;
};

struct dfs_ctx {
	struct dfs_opts *o;
	struct btrfs_fs_info *fs_info;
	struct json_writer jw;
	struct check_progress progress;
	unsigned int errors;
	/* totals */
	u64 nr_groups;
	u64 used;
	u64 free;
	u64 nr_extents;
	u64 largest;
	struct histogram hist;
	/* --compare */
	u64 nr_compared;
	u64 nr_differences;
	u64 diff_bytes;
};

static void usage(FILE *out)
{
	fputs("usage: ghee dump-free-space [options] DEVICE [DEVICE...]\n"
	      "\n"
	      "Print the free space of each block group of an unmounted btrfs filesystem:\n"
	      "used, free, number of free extents, largest free extent, fragmentation score.\n"
	      "\n"
	      "  -x|--extents               list every free extent\n"
	      "  --block-group BYTENR       only the block group that starts at BYTENR\n"
	      "  --histogram                power-of-two histogram of free extent sizes,\n"
	      "                             per block group and for the whole filesystem\n"
	      "  --source tree|cache|extents  where the free space is read from: the free\n"
	      "                             space tree, the v1 space cache or the gaps of the\n"
	      "                             extent tree (default: what the filesystem uses)\n"
	      "  --compare tree|cache|extents  print where that source and --source disagree\n"
	      "                             (exit 1 when they do)\n"
	      "  --format text|json         output format (default text)\n"
	      "  -V|--version               print the version\n"
	      "  -h|--help                  this help\n"
	      "\n"
	      "Exit status: 0 ok, 1 something could not be read (or --compare found a\n"
	      "difference), 2 usage error.\n", out);
}

static enum fs_source parse_source(const char *s)
{
	if (!strcmp(s, "tree"))
		return SRC_TREE;
	if (!strcmp(s, "cache"))
		return SRC_CACHE;
	if (!strcmp(s, "extents"))
		return SRC_EXTENTS;
	return SRC_DEFAULT;
}

static const char *source_name(enum fs_source s)
{
	switch (s) {
	case SRC_TREE:
		return "tree";
	case SRC_CACHE:
		return "cache";
	case SRC_EXTENTS:
		return "extents";
	default:
		return "default";
	}
}

static const char *source_long_name(enum fs_source s)
{
	switch (s) {
	case SRC_TREE:
		return "free space tree";
	case SRC_CACHE:
		return "v1 space cache";
	case SRC_EXTENTS:
		return "extent tree";
	default:
		return "?";
	}
}

enum { OPT_BLOCK_GROUP = 256, OPT_HISTOGRAM, OPT_SOURCE, OPT_COMPARE, OPT_FORMAT };

/* returns the index of the first device, 0 when --help was handled, -1 on error */
static int parse_options(int argc, char **argv, struct dfs_opts *o)
{
	static const struct option longopts[] = {
		{ "extents", no_argument, NULL, 'x' },
		{ "block-group", required_argument, NULL, OPT_BLOCK_GROUP },
		{ "histogram", no_argument, NULL, OPT_HISTOGRAM },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "compare", required_argument, NULL, OPT_COMPARE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":xhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'x':
			o->extents = true;
			break;
		case OPT_BLOCK_GROUP:
			if (!inspect_parse_u64(optarg, &o->group)) {
				cmd_error("invalid block group address: %s", optarg);
				return -1;
			}
			o->one_group = true;
			break;
		case OPT_HISTOGRAM:
			o->histogram = true;
			break;
		case OPT_SOURCE:
		case OPT_COMPARE:
			if (parse_source(optarg) == SRC_DEFAULT) {
				cmd_error("unknown source '%s' (tree, cache or extents)", optarg);
				return -1;
			}
			if (c == OPT_SOURCE)
				o->source = parse_source(optarg);
			else
				o->compare = parse_source(optarg);
			break;
		case OPT_FORMAT:
			if (!inspect_parse_format(optarg, &o->json))
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("%s\n", ghee_version_string);
			return 0;
		default:
			cmd_option_error("dump-free-space", argv, c);
			return -1;
		}
	}
	if (optind >= argc) {
		cmd_error("no device given");
		usage(stderr);
		return -1;
	}
	return optind;
}

/* what the kernel would use: the tree when it is on, else a v1 cache, else the extent tree */
static enum fs_source default_source(const struct btrfs_fs_info *fs_info)
{
	u64 gen = btrfs_super_cache_generation(&fs_info->super_copy);

	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		return SRC_TREE;
	if (gen && gen != (u64)-1)
		return SRC_CACHE;
	return SRC_EXTENTS;
}

static const char *bg_type_name(u64 flags)
{
	u64 t = flags & BTRFS_BLOCK_GROUP_TYPE_MASK;

	if (t == (BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA))
		return "data+metadata";
	if (t & BTRFS_BLOCK_GROUP_DATA)
		return "data";
	if (t & BTRFS_BLOCK_GROUP_METADATA)
		return "metadata";
	if (t & BTRFS_BLOCK_GROUP_SYSTEM)
		return "system";
	return "unknown";
}

/* bytes of @l inside the superblock copies of @bg */
static void remove_super_ranges(struct dfs_ctx *d, const struct bg_info *bg,
				struct range_list *l)
{
	u64 starts[MAX_SUPER_RANGES], lens[MAX_SUPER_RANGES];
	struct range_list sup, out;
	int n, i;

	n = btrfs_bg_super_ranges(d->fs_info, bg, starts, lens, MAX_SUPER_RANGES);
	if (n <= 0)
		return;
	range_list_init(&sup);
	range_list_init(&out);
	for (i = 0; i < n; i++)
		range_list_add(&sup, starts[i], lens[i]);
	range_list_subtract(l, &sup, &out);
	range_list_release(&sup);
	range_list_release(l);
	*l = out;
}

static u64 super_bytes(struct dfs_ctx *d, const struct bg_info *bg)
{
	u64 starts[MAX_SUPER_RANGES], lens[MAX_SUPER_RANGES], sum = 0;
	struct range_list sup;
	int n, i;

	n = btrfs_bg_super_ranges(d->fs_info, bg, starts, lens, MAX_SUPER_RANGES);
	range_list_init(&sup);
	for (i = 0; i < n; i++)
		range_list_add(&sup, starts[i], lens[i]);
	sum = range_list_total(&sup);
	range_list_release(&sup);
	return sum;
}

/*
 * The free ranges of @bg from @src into @l (normalized).  Returns 0; 1
 * with @why when the source has nothing usable for the group (damaged,
 * stale); 2 with @why when the ranges were read but disagree with what
 * the source's own header or the block group item says; 3 when a v1
 * cache is simply absent (the kernel writes none for small groups);
 * <0 on no memory.
 */
static int read_source(struct dfs_ctx *d, enum fs_source src, const struct bg_info *bg,
		       struct range_list *l, char *why, size_t why_len)
{
	struct btrfs_v1_cache_header h;
	struct fst_bg_info info;
	u64 want;
	int ret;

	range_list_init(l);
	switch (src) {
	case SRC_TREE:
		ret = btrfs_fst_read_bg(d->fs_info, bg, &info, l, why, why_len);
		if (ret == -ENOMEM)
			return ret;
		if (ret)
			return 1;
		range_list_normalize(l);
		if (info.found && info.extent_count != l->nr) {
			snprintf(why, why_len, "FREE_SPACE_INFO of block group %llu counts %u free extents, the items hold %zu",
				 (unsigned long long)bg->start, info.extent_count, l->nr);
			return 2;
		}
		return 0;
	case SRC_CACHE:
		ret = btrfs_v1_cache_load(d->fs_info, bg->start, &h, l, why, why_len);
		if (ret == -ENOMEM)
			return ret;
		if (ret == -ENOENT)
			return 3;
		if (ret)
			return 1;
		/* the kernel drops a cache whose total is not the group's free space */
		want = bg->length - bg->used - super_bytes(d, bg);
		if (bg->has_item && l->added != want) {
			snprintf(why, why_len, "the cache holds %llu free bytes, the block group item implies %llu",
				 (unsigned long long)l->added, (unsigned long long)want);
			range_list_normalize(l);
			return 2;
		}
		range_list_normalize(l);
		return 0;
	case SRC_EXTENTS:
		ret = btrfs_extent_gaps_read_bg(d->fs_info, bg, l);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			snprintf(why, why_len, "the extent tree cannot be read inside block group %llu",
				 (unsigned long long)bg->start);
			return 1;
		}
		range_list_normalize(l);
		return 0;
	default:
		return 1;
	}
}

static int hist_bucket(u64 len)
{
	return len ? 63 - __builtin_clzll(len) : 0;
}

/*
 * python-btrfs' show_free_space_fragmentation score of one free extent;
 * lb is log2 of the group's length
 */
static double extent_score(double lb, u64 len)
{
	double half_width = (lb - 11) / 2, shift = (lb + 11) / 2;

	if (half_width <= 0)
		return 0;
	return 1 - fabs((log2((double)len) - shift) / half_width);
}

static void compute_stats(const struct bg_info *bg, const struct range_list *l,
			  struct bg_stats *st)
{
	double lb = log2((double)bg->length);
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < l->nr; i++) {
		u64 len = l->r[i].end - l->r[i].start;
		int b = hist_bucket(len);

		st->free += len;
		st->nr++;
		if (len > st->largest)
			st->largest = len;
		st->score += extent_score(lb, len);
		st->hist.count[b]++;
		st->hist.bytes[b] += len;
		st->hist.total_bytes += len;
	}
}

static void hist_add(struct histogram *to, const struct histogram *from)
{
	int b;

	for (b = 0; b < HIST_BUCKETS; b++) {
		to->count[b] += from->count[b];
		to->bytes[b] += from->bytes[b];
	}
	to->total_bytes += from->total_bytes;
}

/* percent of the bytes, in hundredths */
static u64 hist_pct100(const struct histogram *h, int b)
{
	if (!h->total_bytes)
		return 0;
	return (u64)((double)h->bytes[b] * 10000.0 / (double)h->total_bytes + 0.5);
}

static void print_histogram_text(const struct histogram *h, const char *indent)
{
	char lo[32], hi[32];
	int b;

	printf("%shistogram of free extent sizes:\n", indent);
	printf("%s%12s - %-12s %10s %16s %8s\n", indent, "from", "to", "count", "bytes", "percent");
	for (b = 0; b < HIST_BUCKETS; b++) {
		u64 pct;

		if (!h->count[b])
			continue;
		pct = hist_pct100(h, b);
		inspect_size(lo, sizeof(lo), 1ULL << b, false);
		if (b == 63)
			snprintf(hi, sizeof(hi), "-");
		else
			inspect_size(hi, sizeof(hi), 1ULL << (b + 1), false);
		printf("%s%12s - %-12s %10llu %16llu %5llu.%02llu%%\n", indent, lo, hi,
		       (unsigned long long)h->count[b], (unsigned long long)h->bytes[b],
		       (unsigned long long)(pct / 100), (unsigned long long)(pct % 100));
	}
}

static void print_histogram_json(struct json_writer *w, const struct histogram *h)
{
	int b;

	json_kv_array_begin(w, "histogram");
	for (b = 0; b < HIST_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		json_object_begin(w);
		json_kv_u64(w, "min", 1ULL << b);
		if (b == 63)
			json_kv_null(w, "max");
		else
			json_kv_u64(w, "max", 1ULL << (b + 1));
		json_kv_u64(w, "count", h->count[b]);
		json_kv_u64(w, "bytes", h->bytes[b]);
		json_kv_fixed(w, "percent", (s64)hist_pct100(h, b), 2);
		json_object_end(w);
	}
	json_array_end(w);
}

static void print_header_text(void)
{
	printf("%16s %12s %-14s %-8s %12s %12s %9s %12s %7s %s\n", "start", "length", "type",
	       "profile", "used", "free", "extents", "largest", "score", "source");
}

static void print_group_text(struct dfs_ctx *d, const struct bg_info *bg,
			     const struct range_list *l, const struct bg_stats *st,
			     enum fs_source src)
{
	size_t i;

	printf("%16llu %12llu %-14s %-8s %12llu %12llu %9llu %12llu %7lld %s\n",
	       (unsigned long long)bg->start, (unsigned long long)bg->length,
	       bg_type_name(bg->flags), btrfs_bg_type_profile_name(bg->flags),
	       (unsigned long long)bg->used, (unsigned long long)st->free,
	       (unsigned long long)st->nr, (unsigned long long)st->largest,
	       (long long)st->score, source_name(src));
	if (d->o->extents)
		for (i = 0; i < l->nr; i++)
			printf("    free %llu length %llu\n", (unsigned long long)l->r[i].start,
			       (unsigned long long)(l->r[i].end - l->r[i].start));
	if (d->o->histogram && st->nr)
		print_histogram_text(&st->hist, "    ");
}

static void print_group_json(struct dfs_ctx *d, const struct bg_info *bg,
			     const struct range_list *l, const struct bg_stats *st,
			     enum fs_source src, const char *problem)
{
	struct json_writer *w = &d->jw;
	size_t i;

	json_object_begin(w);
	json_kv_u64(w, "start", bg->start);
	json_kv_u64(w, "length", bg->length);
	json_kv_string(w, "type", bg_type_name(bg->flags));
	json_kv_string(w, "profile", btrfs_bg_type_profile_name(bg->flags));
	json_kv_u64(w, "flags", bg->flags);
	json_kv_string(w, "source", source_name(src));
	if (bg->has_item)
		json_kv_u64(w, "used", bg->used);
	else
		json_kv_null(w, "used");
	if (problem) {
		json_kv_string(w, "error", problem);
	}
	if (l) {
		json_kv_u64(w, "free", st->free);
		json_kv_u64(w, "free_extents", st->nr);
		json_kv_u64(w, "largest_free_extent", st->largest);
		json_kv_fixed(w, "fragmentation_score", (s64)(st->score * 100), 2);
		if (d->o->extents) {
			json_kv_array_begin(w, "extents");
			for (i = 0; i < l->nr; i++) {
				json_object_begin(w);
				json_kv_u64(w, "start", l->r[i].start);
				json_kv_u64(w, "length", l->r[i].end - l->r[i].start);
				json_object_end(w);
			}
			json_array_end(w);
		}
		if (d->o->histogram)
			print_histogram_json(w, &st->hist);
	}
	json_object_end(w);
}

/* the ranges in @a and not in @b, each printed as a difference */
static void report_only_in(struct dfs_ctx *d, const struct bg_info *bg, struct range_list *a,
			   struct range_list *b, enum fs_source src)
{
	struct range_list out;
	size_t i;

	range_list_init(&out);
	range_list_subtract(a, b, &out);
	for (i = 0; i < out.nr; i++) {
		u64 len = out.r[i].end - out.r[i].start;

		d->nr_differences++;
		d->diff_bytes += len;
		if (d->o->json) {
			json_object_begin(&d->jw);
			json_kv_u64(&d->jw, "block_group", bg->start);
			json_kv_string(&d->jw, "free_only_in", source_name(src));
			json_kv_u64(&d->jw, "start", out.r[i].start);
			json_kv_u64(&d->jw, "length", len);
			json_object_end(&d->jw);
		} else {
			printf("block group %llu: free only in the %s: %llu length %llu\n",
			       (unsigned long long)bg->start, source_long_name(src),
			       (unsigned long long)out.r[i].start, (unsigned long long)len);
		}
	}
	range_list_release(&out);
}

/* --compare: one block group read from both sources */
static int compare_group(struct dfs_ctx *d, const struct bg_info *bg)
{
	enum fs_source sa = d->o->source, sb = d->o->compare;
	struct range_list a, b;
	char wa[256] = "", wb[256] = "";
	int ra, rb, ret = 0;

	ra = read_source(d, sa, bg, &a, wa, sizeof(wa));
	rb = read_source(d, sb, bg, &b, wb, sizeof(wb));
	if (ra < 0 || rb < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (ra == 3 || rb == 3) {
		if (!d->o->json)
			printf("block group %llu: no v1 space cache, not compared\n",
			       (unsigned long long)bg->start);
		goto out;
	}
	if (ra == 1 || rb == 1) {
		/* nothing to compare with: say so, it is a difference too */
		const char *why = ra == 1 ? wa : wb;

		d->nr_differences++;
		if (d->o->json) {
			json_object_begin(&d->jw);
			json_kv_u64(&d->jw, "block_group", bg->start);
			json_kv_string(&d->jw, "unusable", source_name(ra == 1 ? sa : sb));
			json_kv_string(&d->jw, "reason", why);
			json_object_end(&d->jw);
		} else {
			printf("block group %llu: the %s is not usable: %s\n",
			       (unsigned long long)bg->start,
			       source_long_name(ra == 1 ? sa : sb), why);
		}
		goto out;
	}
	if (ra == 2 || rb == 2) {
		cmd_warning("%s", ra == 2 ? wa : wb);
	}
	/* the v1 cache never holds the superblock copies: leave them out of both */
	if (sa == SRC_CACHE || sb == SRC_CACHE) {
		remove_super_ranges(d, bg, &a);
		remove_super_ranges(d, bg, &b);
	}
	d->nr_compared++;
	report_only_in(d, bg, &a, &b, sa);
	report_only_in(d, bg, &b, &a, sb);
out:
	range_list_release(&a);
	range_list_release(&b);
	return ret;
}

static int dump_group(struct dfs_ctx *d, const struct bg_info *bg)
{
	enum fs_source src = d->o->source;
	struct range_list l;
	struct bg_stats st;
	char why[256] = "";
	bool have;
	int ret;

	ret = read_source(d, src, bg, &l, why, sizeof(why));
	if (ret > 0 && ret != 2 && d->o->cache_fallback) {
		/* as the kernel does: no usable cache, so the extent tree */
		if (ret == 1)
			cmd_warning("block group %llu: v1 space cache not usable (%s), using the extent tree",
				    (unsigned long long)bg->start, why);
		range_list_release(&l);
		src = SRC_EXTENTS;
		why[0] = 0;
		ret = read_source(d, src, bg, &l, why, sizeof(why));
	}
	if (ret < 0) {
		range_list_release(&l);
		return ret;
	}
	if (ret == 1 || ret == 2) {
		d->errors++;
		cmd_error("block group %llu: %s", (unsigned long long)bg->start, why);
	}
	have = ret == 0 || ret == 2;
	compute_stats(bg, &l, &st);
	d->nr_groups++;
	d->used += bg->used;
	if (have) {
		d->free += st.free;
		d->nr_extents += st.nr;
		if (st.largest > d->largest)
			d->largest = st.largest;
		hist_add(&d->hist, &st.hist);
	}
	if (d->o->json)
		print_group_json(d, bg, have ? &l : NULL, &st, src,
				 ret == 3 ? "no v1 space cache" : ret ? why : NULL);
	else if (!have)
		printf("%16llu %12llu %-14s %-8s %12llu   (%s)\n",
		       (unsigned long long)bg->start, (unsigned long long)bg->length,
		       bg_type_name(bg->flags), btrfs_bg_type_profile_name(bg->flags),
		       (unsigned long long)bg->used,
		       ret == 3 ? "no v1 space cache" : "no free space information");
	else
		print_group_text(d, bg, &l, &st, src);
	range_list_release(&l);
	return 0;
}

static void print_totals(struct dfs_ctx *d)
{
	struct json_writer *w = &d->jw;

	if (d->o->compare != SRC_DEFAULT) {
		if (d->o->json) {
			json_kv_u64(w, "compared_block_groups", d->nr_compared);
			json_kv_u64(w, "nr_differences", d->nr_differences);
			json_kv_u64(w, "difference_bytes", d->diff_bytes);
		} else if (!d->nr_differences && !d->nr_compared) {
			printf("no block group could be compared\n");
		} else if (!d->nr_differences) {
			printf("the %s and the %s agree (%llu block groups)\n",
			       source_long_name(d->o->source), source_long_name(d->o->compare),
			       (unsigned long long)d->nr_compared);
		} else {
			printf("%llu differences, %llu bytes\n",
			       (unsigned long long)d->nr_differences,
			       (unsigned long long)d->diff_bytes);
		}
		return;
	}
	if (d->o->json) {
		json_kv_object_begin(w, "total");
		json_kv_u64(w, "block_groups", d->nr_groups);
		json_kv_u64(w, "used", d->used);
		json_kv_u64(w, "free", d->free);
		json_kv_u64(w, "free_extents", d->nr_extents);
		json_kv_u64(w, "largest_free_extent", d->largest);
		json_kv_u64(w, "average_free_extent", d->nr_extents ? d->free / d->nr_extents : 0);
		if (d->o->histogram)
			print_histogram_json(w, &d->hist);
		json_object_end(w);
		return;
	}
	printf("total: %llu block groups, used %llu, free %llu, %llu free extents, largest %llu, average %llu\n",
	       (unsigned long long)d->nr_groups, (unsigned long long)d->used,
	       (unsigned long long)d->free, (unsigned long long)d->nr_extents,
	       (unsigned long long)d->largest,
	       (unsigned long long)(d->nr_extents ? d->free / d->nr_extents : 0));
	if (d->o->histogram && d->nr_extents)
		print_histogram_text(&d->hist, "");
}

static int run(struct dfs_ctx *d)
{
	struct bg_info *bgs;
	size_t nr, missing, i, done = 0;
	bool found = false;
	int ret;

	ret = btrfs_read_bg_infos(d->fs_info, &bgs, &nr, &missing);
	if (ret)
		return ret;
	if (missing) {
		cmd_error("%zu of %zu chunks have no readable block group item", missing, nr);
		d->errors++;
	}
	if (d->o->json) {
		json_object_begin(&d->jw);
		json_kv_string(&d->jw, "source", source_name(d->o->source));
		if (d->o->compare != SRC_DEFAULT) {
			json_kv_string(&d->jw, "compare", source_name(d->o->compare));
			json_kv_array_begin(&d->jw, "differences");
		} else {
			json_kv_array_begin(&d->jw, "block_groups");
		}
	} else if (d->o->compare != SRC_DEFAULT) {
		printf("comparing the %s with the %s\n", source_long_name(d->o->source),
		       source_long_name(d->o->compare));
	} else {
		printf("source: %s\n", source_long_name(d->o->source));
		print_header_text();
	}
	progress_start(&d->progress, "block groups", nr);
	for (i = 0; i < nr && !ret; i++) {
		if (d->o->one_group && bgs[i].start != d->o->group)
			continue;
		found = true;
		if (d->o->compare != SRC_DEFAULT)
			ret = compare_group(d, &bgs[i]);
		else
			ret = dump_group(d, &bgs[i]);
		progress_update(&d->progress, ++done);
	}
	progress_end(&d->progress);
	if (d->o->json)
		json_array_end(&d->jw);
	if (!ret && d->o->one_group && !found) {
		cmd_error("no block group starts at %llu", (unsigned long long)d->o->group);
		d->errors++;
	}
	if (!ret)
		print_totals(d);
	if (d->o->json) {
		json_object_end(&d->jw);
		if (json_writer_finish(&d->jw))
			d->errors++;
	}
	free(bgs);
	return ret;
}

int cmd_dump_free_space(int argc, char **argv)
{
	static char outbuf[OUT_BUFFER_SIZE];
	struct inspect_open io;
	struct dfs_opts o;
	struct dfs_ctx d;
	int first, ret;

	memset(&o, 0, sizeof(o));
	first = parse_options(argc, argv, &o);
	if (first <= 0)
		return first == 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	ret = inspect_devices(&io, argv, first, argc, false, usage);
	if (ret)
		return ret == -EINVAL ? GHEE_EXIT_USAGE : GHEE_EXIT_FAILURE;
	/* block groups, the free space tree, the v1 cache inodes and the extent tree suffice */
	io.skip_roots = OPEN_ROOT_DEV | OPEN_ROOT_FS | OPEN_ROOT_CSUM | OPEN_ROOT_QUOTA |
			OPEN_ROOT_UUID;
	memset(&d, 0, sizeof(d));
	d.o = &o;
	d.fs_info = inspect_open_fs(&io);
	if (!d.fs_info) {
		inspect_close(&io, NULL);
		return GHEE_EXIT_FAILURE;
	}
	if (o.source == SRC_DEFAULT) {
		o.source = default_source(d.fs_info);
		o.cache_fallback = o.source == SRC_CACHE;
	}
	if (o.compare == o.source) {
		cmd_error("--compare needs a source other than --source (%s)", source_name(o.source));
		inspect_close(&io, d.fs_info);
		return GHEE_EXIT_USAGE;
	}
	d.progress.enabled = isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
	if (o.json)
		json_writer_init(&d.jw, stdout, JSON_WRITER_PRETTY);
	else
		printf("%s\n", ghee_version_string);
	ret = run(&d);
	if (ret) {
		cmd_error("%s", strerror(-ret));
		ret = GHEE_EXIT_FAILURE;
	} else if (d.errors || io.reported_errors || d.nr_differences) {
		ret = GHEE_EXIT_FAILURE;
	} else {
		ret = GHEE_EXIT_OK;
	}
	inspect_close(&io, d.fs_info);
	return inspect_finish_output(ret);
}
