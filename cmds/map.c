// SPDX-License-Identifier: GPL-2.0
/*
 * ghee map: a self-contained SVG picture of a filesystem's block groups,
 * laid out by logical address (gaps between chunks left out) or, with
 * --physical, by offset on each device.  Colour says the type, darkness
 * the fill; in the logical layout the used extents of each group are
 * drawn over a light background, so free space shows when zoomed in.
 * Read-only; ghee-map(8) describes the picture.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "commands.h"
#include "inspect-common.h"
#include "check/progress.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent-owners.h"
#include "kernel-shared/print-tree.h"
#include "array.h"
#include "ranges.h"

extern char **environ;

#define MAP_WIDTH	1024	/* pixels of one row */
#define MAP_ROWS	96	/* rows the whole layout aims at */
#define ROW_HEIGHT	8
#define ROW_GAP		1
#define MARGIN		16
#define HEADER		28
#define LEGEND		64

struct map_opts {
	const char *output;
	const char *png;
	bool physical;
	bool noscan;
	struct inspect_open io;
};

struct bg_ent {
	struct btrfs_bg_desc bg;
	u64 pos;	/* bytes before it in the layout */
};

struct map_ctx {
	struct map_opts *o;
	struct btrfs_fs_info *fs_info;
	FILE *out;
	struct bg_ent *bgs;
	size_t nr_bgs, alloc_bgs;
	u64 total;		/* bytes laid out */
	double bpp;		/* bytes per pixel */
	int top;		/* y of the first row */
	/* the used run being merged, in the current group */
	size_t cur_bg;
	u64 run_start, run_end;
	u64 merge_gap;
	struct check_progress progress;
	int errors;
	/* --physical: the used logical ranges, merged closer than merge_gap */
	struct range_list used;
	u64 pend_start, pend_end;	/* the range being merged */
	struct range_list parity;	/* one RAID5/6 row's used in-stripe offsets */
	/* --physical: the used run being merged on one device band */
	u64 prun_start, prun_end;
	int prun_top;
	char prun_col[8];
};

static void usage(FILE *out)
{
	fputs("usage: ghee map [options] -o FILE.svg DEVICE [DEVICE...]\n"
	      "\n"
	      "Draw the block groups of an unmounted btrfs filesystem as an SVG\n"
	      "picture: by logical address (default) or by offset on each device,\n"
	      "coloured by type (data, metadata, system, mixed), darker when\n"
	      "fuller, with the used extents of each group and hover titles.\n"
	      "\n"
	      "  -o|--output FILE     the SVG file to write ('-' for stdout)\n"
	      "  --physical           lay out by physical offset, one band per device\n"
	      "  --png FILE           also rasterize to PNG with rsvg-convert\n"
	      "  --noscan             use only the listed devices\n"
	      "  -V|--version         print the version\n"
	      "  -h|--help            this help\n", out);
}

enum { OPT_PHYSICAL = 256, OPT_PNG, OPT_NOSCAN };

static int parse_options(int argc, char **argv, struct map_opts *o)
{
	static const struct option long_options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "physical", no_argument, NULL, OPT_PHYSICAL },
		{ "png", required_argument, NULL, OPT_PNG },
		{ "noscan", no_argument, NULL, OPT_NOSCAN },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case OPT_PHYSICAL: o->physical = true; break;
		case OPT_PNG: o->png = optarg; break;
		case OPT_NOSCAN: o->noscan = true; break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("%s\n", ghee_version_string);
			return 1;
		default:
			cmd_option_error("map", argv, c);
			return -EINVAL;
		}
	}
	if (!o->output) {
		cmd_error("an output file is needed: -o FILE.svg");
		return -EINVAL;
	}
	if (o->png && !strcmp(o->output, "-")) {
		cmd_error("--png needs the SVG in a file, not on stdout");
		return -EINVAL;
	}
	return inspect_devices(&o->io, argv, optind, argc, o->noscan, usage);
}

/* ---- colours ---- */

struct rgb {
	int r, g, b;
};

/* data blue, metadata green, system red, mixed purple */
static struct rgb type_colour(u64 flags)
{
	const char *t = inspect_bg_type_name(flags);

	if (!strcmp(t, "data"))
		return (struct rgb){ 40, 90, 220 };
	if (!strcmp(t, "metadata"))
		return (struct rgb){ 30, 160, 60 };
	if (!strcmp(t, "system"))
		return (struct rgb){ 210, 40, 40 };
	if (!strcmp(t, "mixed"))
		return (struct rgb){ 140, 60, 180 };
	return (struct rgb){ 128, 128, 128 };
}

/* towards white by @f (0..1) */
static struct rgb tint(struct rgb c, double f)
{
	return (struct rgb){ c.r + (int)((255 - c.r) * f),
			     c.g + (int)((255 - c.g) * f),
			     c.b + (int)((255 - c.b) * f) };
}

/* towards black by @f */
static struct rgb shade(struct rgb c, double f)
{
	return (struct rgb){ (int)(c.r * (1 - f)), (int)(c.g * (1 - f)),
			     (int)(c.b * (1 - f)) };
}

static double fill_of(const struct btrfs_bg_desc *bg)
{
	if (!bg->length)
		return 0;
	return bg->used >= bg->length ? 1.0 : (double)bg->used / bg->length;
}

/* the colour of used space: darker as the group fills */
static struct rgb used_colour(const struct btrfs_bg_desc *bg)
{
	return shade(type_colour(bg->flags), 0.35 * fill_of(bg));
}

static void hex(char *buf, struct rgb c)
{
	snprintf(buf, 8, "#%02x%02x%02x", c.r & 255, c.g & 255, c.b & 255);
}

/* ---- drawing ---- */

static double row_y(const struct map_ctx *m, u64 row)
{
	return m->top + (double)row * (ROW_HEIGHT + ROW_GAP);
}

/*
 * Bytes [@pos, @pos + @len) of a layout row-wrapped at MAP_WIDTH pixels,
 * as one rect per row touched, starting at @top.
 */
static void draw_span(struct map_ctx *m, int top, u64 pos, u64 len, const char *fill)
{
	double x0 = pos / m->bpp, x1 = (pos + len) / m->bpp;
	u64 row = (u64)(x0 / MAP_WIDTH);

	while (x0 < x1) {
		double row_start = (double)row * MAP_WIDTH;
		double a = x0 - row_start;
		double b = x1 - row_start > MAP_WIDTH ? MAP_WIDTH : x1 - row_start;

		fprintf(m->out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.3f\" height=\"%d\" fill=\"%s\"/>\n",
			MARGIN + a, top + (double)row * (ROW_HEIGHT + ROW_GAP),
			b - a, ROW_HEIGHT, fill);
		x0 = row_start + MAP_WIDTH;
		row++;
	}
}

static void format_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, units[u]);
}

static void group_begin(struct map_ctx *m, const struct bg_ent *e, int top, u64 pos,
			u64 len, const char *extra)
{
	const struct btrfs_bg_desc *bg = &e->bg;
	char col[8], id[64];
	double px;
	u64 row;
	size_t i;

	/* ids are unique: a stripe's suffix made of its numbers */
	snprintf(id, sizeof(id), "%s", extra);
	for (i = 0; id[i]; i++)
		if (id[i] == ' ')
			id[i] = '-';

	fprintf(m->out, "<g class=\"bg %s\" id=\"bg-%llu%s\" data-start=\"%llu\" data-length=\"%llu\" data-used=\"%llu\">\n"
		"<title>%s %s block group %llu length %llu used %llu (%.1f%%) free %llu%s</title>\n",
		inspect_bg_type_name(bg->flags), (unsigned long long)bg->start, id,
		(unsigned long long)bg->start, (unsigned long long)bg->length,
		(unsigned long long)bg->used, inspect_bg_type_name(bg->flags),
		btrfs_bg_type_profile_name(bg->flags), (unsigned long long)bg->start,
		(unsigned long long)bg->length, (unsigned long long)bg->used,
		100.0 * fill_of(bg),
		(unsigned long long)(bg->length > bg->used ? bg->length - bg->used : 0),
		extra);
	hex(col, tint(type_colour(bg->flags), 0.7));
	draw_span(m, top, pos, len, col);
	/* where the group starts: a dark tick */
	px = pos / m->bpp;
	row = (u64)(px / MAP_WIDTH);
	fprintf(m->out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"1\" height=\"%d\" fill=\"#333333\"/>\n",
		MARGIN + px - (double)row * MAP_WIDTH,
		top + (double)row * (ROW_HEIGHT + ROW_GAP), ROW_HEIGHT);
}

/* the used run being merged ends: draw it */
static void flush_run(struct map_ctx *m)
{
	const struct bg_ent *e;
	char col[8];

	if (m->run_end <= m->run_start)
		return;
	e = &m->bgs[m->cur_bg];
	hex(col, used_colour(&e->bg));
	draw_span(m, m->top, e->pos + (m->run_start - e->bg.start),
		  m->run_end - m->run_start, col);
	m->run_start = m->run_end = 0;
}

static int add_bg(void *ctx, const struct btrfs_bg_desc *bg)
{
	struct map_ctx *m = ctx;

	if (ARRAY_RESERVE(m->bgs, m->alloc_bgs, m->nr_bgs + 1, 64))
		return -ENOMEM;
	m->bgs[m->nr_bgs].bg = *bg;
	m->bgs[m->nr_bgs].pos = m->total;
	m->total += bg->length;
	m->nr_bgs++;
	return 0;
}

/* extents arrive in address order: group them into runs per block group */
static int add_extent(void *ctx, const struct btrfs_extent_desc *d)
{
	struct map_ctx *m = ctx;
	u64 start = d->bytenr, end = d->bytenr + d->num_bytes;
	const struct btrfs_bg_desc *bg;

	while (m->cur_bg < m->nr_bgs &&
	       m->bgs[m->cur_bg].bg.start + m->bgs[m->cur_bg].bg.length <= start) {
		flush_run(m);
		fputs("</g>\n", m->out);
		m->cur_bg++;
		if (m->cur_bg < m->nr_bgs) {
			const struct bg_ent *e = &m->bgs[m->cur_bg];

			group_begin(m, e, m->top, e->pos, e->bg.length, "");
		}
		progress_update(&m->progress, m->cur_bg);
	}
	if (m->cur_bg >= m->nr_bgs)
		return 1;
	bg = &m->bgs[m->cur_bg].bg;
	if (end <= bg->start)
		return 0;	/* outside every group: check reports that */
	if (start < bg->start)
		start = bg->start;
	if (end > bg->start + bg->length)
		end = bg->start + bg->length;
	if (m->run_end && start <= m->run_end + m->merge_gap) {
		if (end > m->run_end)
			m->run_end = end;
		return 0;
	}
	flush_run(m);
	m->run_start = start;
	m->run_end = end;
	return 0;
}

static void draw_legend(struct map_ctx *m, int y)
{
	static const u64 types[] = { BTRFS_BLOCK_GROUP_DATA, BTRFS_BLOCK_GROUP_METADATA,
				     BTRFS_BLOCK_GROUP_SYSTEM,
				     BTRFS_BLOCK_GROUP_DATA | BTRFS_BLOCK_GROUP_METADATA };
	char col[8], light[8], dark[8], a[32], b[32];
	double bar_bytes = m->bpp * 128;
	size_t i;
	int x = MARGIN;

	fprintf(m->out, "<g class=\"legend\" font-family=\"sans-serif\" font-size=\"11\">\n");
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct rgb c = type_colour(types[i]);

		hex(col, c);
		hex(light, tint(c, 0.7));
		hex(dark, shade(c, 0.35));
		fprintf(m->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>\n",
			x, y, light, x + 12, y, col, x + 24, y, dark, x + 40, y + 10,
			inspect_bg_type_name(types[i]));
		x += 130;
	}
	fprintf(m->out, "<text x=\"%d\" y=\"%d\">light: free, solid: used (darker: fuller group)</text>\n",
		x, y + 10);
	/* the scale: a bar of 128 pixels */
	format_bytes(a, sizeof(a), bar_bytes);
	format_bytes(b, sizeof(b), m->bpp * MAP_WIDTH);
	fprintf(m->out, "<rect x=\"%d\" y=\"%d\" width=\"128\" height=\"4\" fill=\"#000\"/>"
		"<text x=\"%d\" y=\"%d\">%s (1 px = %.0f bytes, one row = %s)</text>\n</g>\n",
		MARGIN, y + 26, MARGIN + 136, y + 31, a, m->bpp, b);
}

static void svg_begin(struct map_ctx *m, int height, const char *title)
{
	fprintf(m->out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
		"<title>%s</title>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
		"<text x=\"%d\" y=\"18\" font-family=\"sans-serif\" font-size=\"13\">%s</text>\n",
		MAP_WIDTH + 2 * MARGIN, height, MAP_WIDTH + 2 * MARGIN, height, title,
		MAP_WIDTH + 2 * MARGIN, height, MARGIN, title);
}

static double choose_bpp(u64 total, u64 rows, u32 sectorsize)
{
	double bpp = (double)total / ((double)MAP_WIDTH * rows);

	return bpp < sectorsize / 64.0 ? sectorsize / 64.0 : bpp;
}

static int draw_logical(struct map_ctx *m)
{
	char title[160], uuid[BTRFS_UUID_UNPARSED_SIZE], sz[32];
	u64 rows;
	int height, ret;

	m->bpp = choose_bpp(m->total, MAP_ROWS, m->fs_info->sectorsize);
	rows = (u64)(m->total / m->bpp + MAP_WIDTH - 1) / MAP_WIDTH;
	if (!rows)
		rows = 1;
	m->top = MARGIN + HEADER;
	height = (int)row_y(m, rows) + LEGEND;
	/* runs closer than an eighth of a pixel are one rect: bounded output */
	m->merge_gap = (u64)(m->bpp / 8);
	btrfs_format_uuid(m->fs_info->fsid, uuid);
	format_bytes(sz, sizeof(sz), (double)m->total);
	snprintf(title, sizeof(title), "btrfs %s: %zu block groups, %s, by logical address",
		 uuid, m->nr_bgs, sz);
	svg_begin(m, height, title);
	if (m->nr_bgs) {
		group_begin(m, &m->bgs[0], m->top, m->bgs[0].pos, m->bgs[0].bg.length, "");
		progress_start(&m->progress, "block groups", m->nr_bgs);
		ret = btrfs_walk_extents(m->fs_info, m->bgs[0].bg.start, (u64)-1,
					 add_extent, m);
		progress_end(&m->progress);
		if (ret < 0)
			m->errors++;
		/* close the last group and draw the empty ones after it */
		while (m->cur_bg < m->nr_bgs) {
			flush_run(m);
			fputs("</g>\n", m->out);
			m->cur_bg++;
			if (m->cur_bg < m->nr_bgs)
				group_begin(m, &m->bgs[m->cur_bg], m->top,
					    m->bgs[m->cur_bg].pos,
					    m->bgs[m->cur_bg].bg.length, "");
		}
	}
	draw_legend(m, height - LEGEND + 12);
	fputs("</svg>\n", m->out);
	return 0;
}

static const struct bg_ent *find_bg(const struct map_ctx *m, u64 start)
{
	size_t lo = 0, hi = m->nr_bgs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->bgs[mid].bg.start == start)
			return &m->bgs[mid];
		if (m->bgs[mid].bg.start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
			fputc(*s, out);
		else
			fputc('?', out);
	}
}

/* ---- the physical layout ---- */

/* the used logical ranges of the whole filesystem, merged like the runs */
static int collect_used(void *ctx, const struct btrfs_extent_desc *d)
{
	struct map_ctx *m = ctx;
	u64 start = d->bytenr, end = d->bytenr + d->num_bytes;

	if (m->pend_end && start <= m->pend_end + m->merge_gap) {
		if (end > m->pend_end)
			m->pend_end = end;
		return 0;
	}
	if (m->pend_end > m->pend_start)
		range_list_add(&m->used, m->pend_start, m->pend_end - m->pend_start);
	m->pend_start = start;
	m->pend_end = end;
	return 0;
}

/* the first used range ending after @pos */
static size_t first_used_after(const struct range_list *l, u64 pos)
{
	size_t lo = 0, hi = l->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->r[mid].end <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void phys_flush(struct map_ctx *m)
{
	if (m->prun_end > m->prun_start)
		draw_span(m, m->prun_top, m->prun_start, m->prun_end - m->prun_start,
			  m->prun_col);
	m->prun_start = m->prun_end = 0;
}

/* used bytes at device offset [@start, @start + @len) of the current band */
static void phys_emit(struct map_ctx *m, u64 start, u64 len)
{
	if (m->prun_end && start >= m->prun_start && start <= m->prun_end + m->merge_gap) {
		if (start + len > m->prun_end)
			m->prun_end = start + len;
		return;
	}
	phys_flush(m);
	m->prun_start = start;
	m->prun_end = start + len;
}

/*
 * The used parts of logical [@logical, @logical + @len), stored
 * contiguously from device offset @phys: emitted (@out NULL) or added to
 * @out as offsets from @logical.
 */
static void map_piece(struct map_ctx *m, u64 logical, u64 len, u64 phys,
		      struct range_list *out)
{
	u64 end = logical + len;
	size_t i;

	for (i = first_used_after(&m->used, logical);
	     i < m->used.nr && m->used.r[i].start < end; i++) {
		u64 a = m->used.r[i].start > logical ? m->used.r[i].start : logical;
		u64 b = m->used.r[i].end < end ? m->used.r[i].end : end;

		if (out)
			range_list_add(out, a - logical, b - a);
		else
			phys_emit(m, phys + (a - logical), b - a);
	}
}

/*
 * The used extents on stripe @idx of chunk @ml, which starts at device
 * offset @phys: each stripe element where the chunk map puts it (mirrored
 * profiles hold the chunk in one piece per copy; RAID0/10/5/6 rotate
 * elements of stripe_len bytes over the devices).  A RAID5/6 parity
 * element is used where a data element of its row is.
 */
static void draw_stripe_used(struct map_ctx *m, const struct map_lookup *ml, int idx,
			     u64 phys, u64 dev_len)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	u64 sl = ml->stripe_len ? ml->stripe_len : BTRFS_STRIPE_LEN;
	u64 per_dev, off, len;
	int nr_data, j;
	size_t i;

	per_dev = btrfs_stripe_dev_bytes(ml, &nr_data);
	if (dev_len > per_dev)
		dev_len = per_dev;
	if (!(profile & (BTRFS_BLOCK_GROUP_RAID0 | BTRFS_BLOCK_GROUP_RAID10 |
			 BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6))) {
		map_piece(m, ml->logical, dev_len, phys, NULL);
		return;
	}
	for (off = 0; off < dev_len; off += sl) {
		struct btrfs_physical_hit hit;

		len = dev_len - off < sl ? dev_len - off : sl;
		btrfs_stripe_offset_to_logical(ml, idx, off, &hit);
		if (!hit.parity) {
			map_piece(m, hit.logical, len, phys + off, NULL);
			continue;
		}
		m->parity.nr = 0;
		for (j = 0; j < nr_data; j++)
			map_piece(m, hit.logical + (u64)j * sl, len, 0, &m->parity);
		range_list_normalize(&m->parity);
		for (i = 0; i < m->parity.nr; i++)
			phys_emit(m, phys + off + m->parity.r[i].start,
				  m->parity.r[i].end - m->parity.r[i].start);
	}
}

static int stripe_index(const struct map_lookup *ml, u64 devid, u64 physical)
{
	int s;

	for (s = 0; s < ml->num_stripes; s++)
		if (ml->stripes[s].devid == devid && ml->stripes[s].physical == physical)
			return s;
	return -1;
}

/* one band per device: its device extents where they lie on the device */
static int draw_physical(struct map_ctx *m)
{
	struct btrfs_fs_info *fs_info = m->fs_info;
	struct btrfs_root *dev_root = &fs_info->dev_root;
	char title[160], uuid[BTRFS_UUID_UNPARSED_SIZE], extra[64];
	u64 max_size = 0, rows_total = 0, rows;
	int i, height, band_top[GHEE_MAX_DEVICES];
	struct btrfs_path path;
	struct btrfs_key key;
	int ret;

	if (!dev_root->node) {
		cmd_error("the device tree cannot be read: no physical layout");
		return -EIO;
	}
	for (i = 0; i < fs_info->num_devices; i++)
		if (fs_info->devices[i].total_bytes > max_size)
			max_size = fs_info->devices[i].total_bytes;
	m->bpp = choose_bpp(max_size * (u64)(fs_info->num_devices ? fs_info->num_devices : 1),
			    MAP_ROWS, fs_info->sectorsize);
	m->top = MARGIN + HEADER;
	for (i = 0; i < fs_info->num_devices; i++) {
		rows = (u64)(fs_info->devices[i].total_bytes / m->bpp + MAP_WIDTH - 1) / MAP_WIDTH;
		band_top[i] = (int)row_y(m, rows_total) + 14 * (i + 1);
		rows_total += rows ? rows : 1;
	}
	height = (int)row_y(m, rows_total) + 14 * fs_info->num_devices + LEGEND;
	/* the used extents, merged closer than an eighth of a pixel */
	m->merge_gap = (u64)(m->bpp / 8);
	ret = btrfs_walk_extents(fs_info, 0, (u64)-1, collect_used, m);
	if (ret < 0)
		m->errors++;
	if (m->pend_end > m->pend_start)
		range_list_add(&m->used, m->pend_start, m->pend_end - m->pend_start);
	range_list_normalize(&m->used);
	if (m->used.oom || m->parity.oom) {
		cmd_error("out of memory collecting the used extents");
		return -ENOMEM;
	}
	btrfs_format_uuid(fs_info->fsid, uuid);
	snprintf(title, sizeof(title), "btrfs %s: %d devices, by physical offset",
		 uuid, fs_info->num_devices);
	svg_begin(m, height, title);
	for (i = 0; i < fs_info->num_devices; i++) {
		const struct btrfs_device *dev = &fs_info->devices[i];
		char sz[32];

		format_bytes(sz, sizeof(sz), (double)dev->total_bytes);
		fprintf(m->out, "<text x=\"%d\" y=\"%d\" font-family=\"sans-serif\" font-size=\"11\">devid %llu ",
			MARGIN, band_top[i] - 3, (unsigned long long)dev->devid);
		xml_text(m->out, dev->path ? dev->path : "(missing)");
		fprintf(m->out, " %s</text>\n", sz);
		fprintf(m->out, "<rect class=\"device\" data-devid=\"%llu\" data-bytes-per-pixel=\"%.6f\" "
			"x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"#eeeeee\"/>\n",
			(unsigned long long)dev->devid, m->bpp, MARGIN, band_top[i],
			dev->total_bytes / m->bpp < MAP_WIDTH ? dev->total_bytes / m->bpp :
			(double)MAP_WIDTH, ROW_HEIGHT);
	}
	btrfs_init_path(&path);
	key.objectid = 0;
	key.type = BTRFS_DEV_EXTENT_KEY;
	key.offset = 0;
	ret = btrfs_search_slot(NULL, dev_root, &key, &path, 0, 0);
	if (ret >= 0)
		ret = btrfs_path_fixup_slot(dev_root, &path);
	while (ret == 0) {
		const struct btrfs_dev_extent *de;
		const struct bg_ent *e;
		int d;

		btrfs_path_key(&path, &key);
		if (key.type != BTRFS_DEV_EXTENT_KEY ||
		    btrfs_item_size(path.nodes[0], path.slots[0]) < sizeof(*de))
			goto next;
		de = btrfs_item_ptr(path.nodes[0], path.slots[0], struct btrfs_dev_extent);
		e = find_bg(m, btrfs_dev_extent_chunk_offset(de));
		for (d = 0; d < fs_info->num_devices; d++)
			if (fs_info->devices[d].devid == key.objectid)
				break;
		if (!e || d == fs_info->num_devices)
			goto next;
		snprintf(extra, sizeof(extra), " devid %llu physical %llu",
			 (unsigned long long)key.objectid, (unsigned long long)key.offset);
		{
			const struct map_lookup *ml =
				chunk_map_lookup(&fs_info->chunk_map, e->bg.start);
			int idx = ml && ml->logical == e->bg.start ?
				stripe_index(ml, key.objectid, key.offset) : -1;

			group_begin(m, e, band_top[d], key.offset,
				    btrfs_dev_extent_length(de), extra);
			/* a device extent no chunk stripe names: check reports it */
			if (idx >= 0) {
				hex(m->prun_col, used_colour(&e->bg));
				m->prun_top = band_top[d];
				draw_stripe_used(m, ml, idx, key.offset,
						 btrfs_dev_extent_length(de));
				phys_flush(m);
			}
			fputs("</g>\n", m->out);
		}
next:
		ret = btrfs_next_item(dev_root, &path);
	}
	btrfs_release_path(&path);
	if (ret < 0) {
		cmd_error("device tree: cannot read past devid %llu offset %llu: %s",
			  (unsigned long long)key.objectid, (unsigned long long)key.offset,
			  strerror(-ret));
		m->errors++;
	}
	draw_legend(m, height - LEGEND + 12);
	fputs("</svg>\n", m->out);
	return 0;
}

static int rasterize(const char *svg, const char *png)
{
	char *argv[] = { "rsvg-convert", "-o", (char *)png, (char *)svg, NULL };
	pid_t pid;
	int status, ret;

	ret = posix_spawnp(&pid, "rsvg-convert", NULL, NULL, argv, environ);
	if (ret) {
		cmd_error("cannot run rsvg-convert (package librsvg2-bin): %s", strerror(ret));
		return -ret;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		cmd_error("rsvg-convert failed to write %s", png);
		return -EIO;
	}
	return 0;
}

int cmd_map(int argc, char **argv)
{
	struct btrfs_fs_info *fs_info;
	struct map_ctx m;
	struct map_opts o;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_options(argc, argv, &o);
	if (ret) {
		inspect_close(&o.io, NULL);
		return ret > 0 ? GHEE_EXIT_OK : GHEE_EXIT_USAGE;
	}
	/* block groups, extents and device extents: no file trees needed */
	o.io.skip_roots = OPEN_ROOT_FS | OPEN_ROOT_CSUM | OPEN_ROOT_QUOTA | OPEN_ROOT_UUID;
	o.io.cache_budget = 16U << 20;
	fs_info = inspect_open_fs(&o.io);
	if (!fs_info) {
		inspect_close(&o.io, NULL);
		return GHEE_EXIT_FAILURE;
	}
	memset(&m, 0, sizeof(m));
	range_list_init(&m.used);
	range_list_init(&m.parity);
	m.o = &o;
	m.fs_info = fs_info;
	m.progress.enabled = isatty(STDERR_FILENO);
	ret = btrfs_walk_block_groups(fs_info, add_bg, &m);
	if (ret < 0)
		m.errors++;
	m.out = strcmp(o.output, "-") ? fopen(o.output, "w") : stdout;
	if (!m.out) {
		cmd_error("cannot create %s: %s", o.output, strerror(errno));
		ret = GHEE_EXIT_FAILURE;
		goto out;
	}
	ret = o.physical ? draw_physical(&m) : draw_logical(&m);
	if (ret)
		m.errors++;
	if (m.out != stdout ? fclose(m.out) : fflush(m.out)) {
		cmd_error("cannot write %s: %s", o.output, strerror(errno));
		m.errors++;
	}
	if (!m.errors && o.png && rasterize(o.output, o.png))
		m.errors++;
	ret = m.errors || o.io.reported_errors ? GHEE_EXIT_FAILURE : GHEE_EXIT_OK;
out:
	free(m.bgs);
	range_list_release(&m.used);
	range_list_release(&m.parity);
	inspect_close(&o.io, fs_info);
	return ret;
}
