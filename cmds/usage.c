// SPDX-License-Identifier: GPL-2.0
/*
 * ghee usage: what "btrfs filesystem usage" prints, offline, from the
 * chunk tree (allocation per profile and device), the block group items
 * (used bytes) and the device items (sizes).  Raw (on-device) bytes count
 * every copy and parity: a RAID5 chunk of N devices holds length * N /
 * (N - 1) raw bytes.  ghee-usage(8) gives the formulas and the JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "inspect-common.h"
#include "kernel-shared/free-space-read.h"
#include "kernel-shared/volumes.h"
#include "json-writer.h"

#define MAX_PROFILES 32

/* chunks of one type (data, metadata, system, mixed) and profile */
struct profile_usage {
	u64 flags;		/* type | profile bits */
	u64 size;		/* logical bytes of the chunks */
	u64 used;		/* bytes used according to the block group items */
	u64 raw;		/* bytes on the devices */
	u64 dev_bytes[GHEE_MAX_DEVICES];	/* raw bytes on each device */
};

struct usage {
	struct profile_usage p[MAX_PROFILES];
	int nr;
	u64 dev_size;
	u64 dev_allocated;
	u64 dev_missing;
	u64 dev_slack;
	u64 global_reserve;
	double data_ratio;
	double meta_ratio;
	double max_ratio;
	u64 used_raw;
	u64 free_est;
	u64 free_min;
	u64 free_statfs;
	bool multiple_profiles;
	bool mixed;
};

struct usage_opts {
	bool raw;
	bool json;
};

static void usage_help(FILE *out)
{
	fputs("usage: ghee usage [options] DEVICE [DEVICE...]\n"
	      "\n"
	      "Show how the space of an unmounted btrfs filesystem is allocated and used,\n"
	      "like \"btrfs filesystem usage\": overall, per type and profile, per device.\n"
	      "\n"
	      "  -b|--raw               sizes in bytes (default: human units, base 1024)\n"
	      "  --format text|json     output format (default text; JSON is always in bytes)\n"
	      "  -V|--version           print the version\n"
	      "  -h|--help              this help\n"
	      "\n"
	      "Exit status: 0 ok, 1 something could not be read, 2 usage error.\n", out);
}

/* bytes of the chunk each of its stripes holds on a device */
static u64 stripe_bytes(const struct map_lookup *ml)
{
	u64 profile = ml->type & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int n = ml->num_stripes, data = n;

	switch (profile) {
	case BTRFS_BLOCK_GROUP_RAID0:
		break;
	case BTRFS_BLOCK_GROUP_RAID10:
		data = ml->sub_stripes ? n / ml->sub_stripes : 0;
		break;
	case BTRFS_BLOCK_GROUP_RAID5:
		data = n - 1;
		break;
	case BTRFS_BLOCK_GROUP_RAID6:
		data = n - 2;
		break;
	default:
		return ml->length;
	}
	return data > 0 ? ml->length / data : 0;
}

static struct profile_usage *find_profile(struct usage *u, u64 flags)
{
	u64 key = flags & (BTRFS_BLOCK_GROUP_TYPE_MASK | BTRFS_BLOCK_GROUP_PROFILE_MASK);
	int i;

	for (i = 0; i < u->nr; i++)
		if (u->p[i].flags == key)
			return &u->p[i];
	if (u->nr >= MAX_PROFILES)
		return NULL;
	memset(&u->p[u->nr], 0, sizeof(u->p[0]));
	u->p[u->nr].flags = key;
	return &u->p[u->nr++];
}

static int device_index(const struct btrfs_fs_info *fs_info, u64 devid)
{
	int i;

	for (i = 0; i < fs_info->num_devices; i++)
		if (fs_info->devices[i].devid == devid)
			return i;
	return -1;
}

static u64 root_used(const struct btrfs_root *root)
{
	return root->has_root_item ? btrfs_root_bytes_used(&root->root_item) : 0;
}

/*
 * The kernel's global block reserve: the bytes of the extent, csum and
 * free space trees (and the block group tree), at least room to insert
 * (1 + those trees + 6) items plus the delayed refs of an unlink (twice
 * that with the free space tree), at most 512 MiB.  The tree root counts
 * as 0: its bytes are not known to the kernel until it has written it.
 */
static u64 global_reserve(struct btrfs_fs_info *fs_info)
{
	u64 per_item = (u64)fs_info->nodesize * BTRFS_MAX_LEVEL * 2;
	u64 bytes = 0, min, refs;
	int items = 1 + 2;

	bytes += root_used(&fs_info->extent_root) + root_used(&fs_info->csum_root);
	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE)) {
		bytes += root_used(&fs_info->free_space_root);
		items++;
	}
	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE)) {
		bytes += root_used(&fs_info->block_group_root);
		items++;
	}
	items += 6;
	refs = per_item * 6;
	if (btrfs_fs_compat_ro(fs_info, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE))
		refs *= 2;
	min = per_item * items + refs;
	if (bytes < min)
		bytes = min;
	return bytes < (512ULL << 20) ? bytes : 512ULL << 20;
}

/*
 * The kernel's statfs(2) estimate of the free bytes (f_bavail, what df
 * prints as available), from what is on disk.  The kernel:
 *  - takes the free bytes of the data block groups (mixed ones included),
 *    raw (times each group's copies), and divides by the copies of the
 *    data profile it lists last (in its order raid10, raid1, dup, raid0,
 *    single, raid5, raid6, raid1c3, raid1c4);
 *  - adds what new chunks of the profile it would allocate data in could
 *    hold in the unallocated space of the present devices (see
 *    unallocated_for_data()), divided the same way;
 *  - counts in sectors, rounding down.
 * It would report 0 when metadata is full (no new metadata chunk could be
 * allocated since the mount and the free metadata is below the global
 * reserve plus 4 MiB): "full" is a flag of the running kernel, false after
 * a fresh mount, so it is taken as false here; so is the read-only state
 * of a block group (only a running balance or scrub sets it).
 */
struct raid_attr {
	u64 flag;
	int devs_min;
	int dev_stripes;
	int ncopies;
};

/* in the kernel's raid index order */
static const struct raid_attr raid_attrs[] = {
	{ BTRFS_BLOCK_GROUP_RAID10, 2, 1, 2 },
	{ BTRFS_BLOCK_GROUP_RAID1, 2, 1, 2 },
	{ BTRFS_BLOCK_GROUP_DUP, 1, 2, 2 },
	{ BTRFS_BLOCK_GROUP_RAID0, 1, 1, 1 },
	{ 0, 1, 1, 1 },				/* single */
	{ BTRFS_BLOCK_GROUP_RAID5, 2, 1, 1 },
	{ BTRFS_BLOCK_GROUP_RAID6, 3, 1, 1 },
	{ BTRFS_BLOCK_GROUP_RAID1C3, 3, 1, 3 },
	{ BTRFS_BLOCK_GROUP_RAID1C4, 4, 1, 4 },
};
#define NR_RAID_ATTRS (int)(sizeof(raid_attrs) / sizeof(raid_attrs[0]))

static int raid_index(u64 flags)
{
	u64 profile = flags & BTRFS_BLOCK_GROUP_PROFILE_MASK;
	int i;

	for (i = 0; i < NR_RAID_ATTRS; i++)
		if (raid_attrs[i].flag == profile)
			return i;
	return 4;
}

/*
 * The profile new data chunks get: of the data profiles present, those the
 * present devices allow, the most redundant one first.
 */
static int data_alloc_index(const struct usage *u, int nr_devices)
{
	static const u64 preference[] = {
		BTRFS_BLOCK_GROUP_RAID1C4, BTRFS_BLOCK_GROUP_RAID6, BTRFS_BLOCK_GROUP_RAID1C3,
		BTRFS_BLOCK_GROUP_RAID5, BTRFS_BLOCK_GROUP_RAID10, BTRFS_BLOCK_GROUP_RAID1,
		BTRFS_BLOCK_GROUP_DUP, BTRFS_BLOCK_GROUP_RAID0,
	};
	u64 present = 0;
	size_t k;
	int i;

	for (i = 0; i < u->nr; i++) {
		int r = raid_index(u->p[i].flags);

		if ((u->p[i].flags & BTRFS_BLOCK_GROUP_DATA) &&
		    nr_devices >= raid_attrs[r].devs_min)
			present |= raid_attrs[r].flag;
	}
	for (k = 0; k < sizeof(preference) / sizeof(preference[0]); k++)
		if (present & preference[k])
			return raid_index(preference[k]);
	return 4;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Raw bytes new data chunks could take from the unallocated space: each
 * present device offers its unallocated bytes rounded down to 64 KiB,
 * less the first MiB (no device with less than that plus one stripe
 * counts); from the smallest offer up, each step takes that offer from
 * itself and the next larger ones, as many as the profile's stripes.
 */
static u64 unallocated_for_data(const struct btrfs_fs_info *fs_info, int r, int nr_present)
{
	u64 avail[GHEE_MAX_DEVICES], min_stripe = (u64)raid_attrs[r].dev_stripes * BTRFS_STRIPE_LEN;
	u64 total = 0, take;
	int n = 0, i, j, stripes;

	for (i = 0; i < fs_info->num_devices; i++) {
		const struct btrfs_device *dev = &fs_info->devices[i];
		u64 a;

		if (dev->fd < 0 || dev->total_bytes <= dev->bytes_used)
			continue;
		a = (dev->total_bytes - dev->bytes_used) / BTRFS_STRIPE_LEN * BTRFS_STRIPE_LEN;
		if (a <= (1ULL << 20) + min_stripe)
			continue;
		avail[n++] = a - (1ULL << 20);
	}
	qsort(avail, n, sizeof(avail[0]), cmp_u64_desc);
	if (raid_attrs[r].flag == BTRFS_BLOCK_GROUP_RAID0)
		stripes = nr_present;
	else if (raid_attrs[r].flag == BTRFS_BLOCK_GROUP_RAID10)
		stripes = 4;
	else if (raid_attrs[r].flag & (BTRFS_BLOCK_GROUP_RAID1 | BTRFS_BLOCK_GROUP_RAID1C3 |
				       BTRFS_BLOCK_GROUP_RAID1C4))
		stripes = raid_attrs[r].ncopies;
	else
		stripes = 1;
	for (i = n - 1; n >= raid_attrs[r].devs_min && i >= 0; i--, n--) {
		if (stripes > n)
			stripes = n;
		if (avail[i] < min_stripe)
			continue;
		take = avail[i];
		total += take * (u64)stripes;
		for (j = i + 1 - stripes; j <= i; j++)
			avail[j] -= take;
	}
	return total;
}

static u64 statfs_available(const struct btrfs_fs_info *fs_info, const struct usage *u)
{
	u64 free_raw = 0, unalloc;
	int i, factor = 1, last = -1, nr_present = 0;

	for (i = 0; i < u->nr; i++) {
		const struct profile_usage *p = &u->p[i];
		int r = raid_index(p->flags);

		if (!(p->flags & BTRFS_BLOCK_GROUP_DATA))
			continue;
		if (p->size > p->used)
			free_raw += (p->size - p->used) * (u64)raid_attrs[r].ncopies;
		if (r > last)
			last = r;
	}
	if (last >= 0)
		factor = raid_attrs[last].ncopies;
	for (i = 0; i < fs_info->num_devices; i++)
		if (fs_info->devices[i].fd >= 0)
			nr_present++;
	unalloc = unallocated_for_data(fs_info, data_alloc_index(u, nr_present), nr_present);
	return (free_raw / factor + unalloc / factor) / fs_info->sectorsize * fs_info->sectorsize;
}

static int compute(struct btrfs_fs_info *fs_info, struct usage *u, unsigned int *errors)
{
	const struct chunk_map *map = &fs_info->chunk_map;
	u64 data_size = 0, data_raw = 0, data_used = 0, meta_size = 0, meta_raw = 0;
	struct bg_info *bgs;
	size_t nr, missing, i;
	u64 types_seen[3] = { 0 };
	int ret, j;

	ret = btrfs_read_bg_infos(fs_info, &bgs, &nr, &missing);
	if (ret)
		return ret;
	if (missing) {
		cmd_error("%zu of %zu chunks have no readable block group item: their used bytes count as 0",
			  missing, nr);
		(*errors)++;
	}
	for (i = 0; i < map->nr; i++) {
		const struct map_lookup *ml = map->maps[i];
		struct profile_usage *p = find_profile(u, ml->type);
		u64 sb = stripe_bytes(ml);

		if (!p)
			continue;
		p->size += ml->length;
		p->used += bgs[i].used;
		for (j = 0; j < ml->num_stripes; j++) {
			int d = device_index(fs_info, ml->stripes[j].devid);

			p->raw += sb;
			if (d >= 0)
				p->dev_bytes[d] += sb;
		}
	}
	free(bgs);
	u->max_ratio = 1;
	for (j = 0; j < u->nr; j++) {
		struct profile_usage *p = &u->p[j];
		double ratio = p->size ? (double)p->raw / (double)p->size : 1;
		int t = p->flags & BTRFS_BLOCK_GROUP_DATA ? 0 :
			p->flags & BTRFS_BLOCK_GROUP_METADATA ? 1 : 2;

		if ((p->flags & BTRFS_BLOCK_GROUP_DATA) && (p->flags & BTRFS_BLOCK_GROUP_METADATA))
			u->mixed = true;
		if (types_seen[t] &&
		    types_seen[t] != ((p->flags & BTRFS_BLOCK_GROUP_PROFILE_MASK) | (1ULL << 63)))
			u->multiple_profiles = true;
		types_seen[t] = (p->flags & BTRFS_BLOCK_GROUP_PROFILE_MASK) | (1ULL << 63);
		if (ratio > u->max_ratio)
			u->max_ratio = ratio;
		u->used_raw += p->size ? (u64)((double)p->used * ratio + 0.5) : 0;
		if (p->flags & BTRFS_BLOCK_GROUP_DATA) {
			data_size += p->size;
			data_raw += p->raw;
			data_used += p->used;
		} else if (p->flags & BTRFS_BLOCK_GROUP_METADATA) {
			meta_size += p->size;
			meta_raw += p->raw;
		}
	}
	for (j = 0; j < fs_info->num_devices; j++) {
		const struct btrfs_device *dev = &fs_info->devices[j];

		u->dev_size += dev->total_bytes;
		u->dev_allocated += dev->bytes_used;
		if (dev->fd < 0)
			u->dev_missing += dev->total_bytes;
		else if (dev->size > dev->total_bytes)
			u->dev_slack += dev->size - dev->total_bytes;
	}
	u->data_ratio = data_size ? (double)data_raw / (double)data_size : 1;
	u->meta_ratio = meta_size ? (double)meta_raw / (double)meta_size : 1;
	u->global_reserve = global_reserve(fs_info);
	u->free_est = data_size - data_used;
	/*
	 * Mixed groups hold the metadata too, and its global reserve comes
	 * out of the same free space; the metadata ratio is the data one.
	 */
	if (u->mixed) {
		u->free_est = u->free_est > u->global_reserve ? u->free_est - u->global_reserve : 0;
		u->meta_ratio = u->data_ratio;
	}
	u->free_min = u->free_est;
	/* less than 16 MiB unallocated in all cannot take a chunk: not counted */
	if (u->dev_size > u->dev_allocated && u->dev_size - u->dev_allocated >= (16ULL << 20)) {
		u64 unalloc = u->dev_size - u->dev_allocated;

		u->free_est += (u64)((double)unalloc / u->data_ratio);
		u->free_min += (u64)((double)unalloc / u->max_ratio);
	}
	u->free_statfs = statfs_available(fs_info, u);
	return 0;
}

static const char *type_label(u64 flags)
{
	if ((flags & BTRFS_BLOCK_GROUP_DATA) && (flags & BTRFS_BLOCK_GROUP_METADATA))
		return "Data+Metadata";
	if (flags & BTRFS_BLOCK_GROUP_DATA)
		return "Data";
	if (flags & BTRFS_BLOCK_GROUP_METADATA)
		return "Metadata";
	return "System";
}

static const char *type_json(u64 flags)
{
	if ((flags & BTRFS_BLOCK_GROUP_DATA) && (flags & BTRFS_BLOCK_GROUP_METADATA))
		return "data+metadata";
	if (flags & BTRFS_BLOCK_GROUP_DATA)
		return "data";
	if (flags & BTRFS_BLOCK_GROUP_METADATA)
		return "metadata";
	return "system";
}

/* data first, then metadata, then system, as progs orders them */
static int type_rank(u64 flags)
{
	if (flags & BTRFS_BLOCK_GROUP_DATA)
		return 0;
	if (flags & BTRFS_BLOCK_GROUP_METADATA)
		return 1;
	return 2;
}

static int cmp_profile(const void *a, const void *b)
{
	const struct profile_usage *x = a, *y = b;

	if (type_rank(x->flags) != type_rank(y->flags))
		return type_rank(x->flags) - type_rank(y->flags);
	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

static const char *dev_name(const struct btrfs_device *dev, char *buf, size_t len)
{
	if (dev->path)
		return dev->path;
	snprintf(buf, len, "<missing device %llu>", (unsigned long long)dev->devid);
	return buf;
}

static void overall_line(const char *label, int width, u64 v, bool raw)
{
	char buf[40];

	printf("    %s%*s\n", label, width, inspect_size(buf, sizeof(buf), v, raw));
}

static void print_text(struct btrfs_fs_info *fs_info, const struct usage *u, bool raw)
{
	char a[40], b[40], nb[64];
	int i, j;

	/* progs pads raw numbers to 18 columns, human sizes to 10 */
	int w = raw ? 18 : 10;

	printf("Overall:\n");
	overall_line("Device size:\t\t", w, u->dev_size, raw);
	overall_line("Device allocated:\t\t", w, u->dev_allocated, raw);
	overall_line("Device unallocated:\t\t", w, u->dev_size - u->dev_allocated, raw);
	overall_line("Device missing:\t\t", w, u->dev_missing, raw);
	overall_line("Device slack:\t\t", w, u->dev_slack, raw);
	overall_line("Used:\t\t\t", w, u->used_raw, raw);
	printf("    Free (estimated):\t\t%*s\t(min: %s)\n", w,
	       inspect_size(a, sizeof(a), u->free_est, raw),
	       inspect_size(b, sizeof(b), u->free_min, raw));
	overall_line("Free (statfs, df):\t\t", w, u->free_statfs, raw);
	printf("    Data ratio:\t\t\t%*.2f\n", w, u->data_ratio);
	printf("    Metadata ratio:\t\t%*.2f\n", w, u->meta_ratio);
	printf("    Global reserve:\t\t%*s\t(used: %s)\n", w,
	       inspect_size(a, sizeof(a), u->global_reserve, raw), inspect_size(b, sizeof(b), 0, raw));
	printf("    Multiple profiles:\t\t%*s\n", w, u->multiple_profiles ? "yes" : "no");
	for (i = 0; i < u->nr; i++) {
		const struct profile_usage *p = &u->p[i];

		printf("\n%s,%s: Size:%s, Used:%s (%.2f%%)\n", type_label(p->flags),
		       btrfs_bg_type_profile_name(p->flags), inspect_size(a, sizeof(a), p->size, raw),
		       inspect_size(b, sizeof(b), p->used, raw),
		       p->size ? (double)p->used * 100.0 / (double)p->size : 0.0);
		for (j = 0; j < fs_info->num_devices; j++)
			if (p->dev_bytes[j])
				printf("   %s\t%10s\n", dev_name(&fs_info->devices[j], nb, sizeof(nb)),
				       inspect_size(a, sizeof(a), p->dev_bytes[j], raw));
	}
	printf("\nUnallocated:\n");
	for (j = 0; j < fs_info->num_devices; j++) {
		const struct btrfs_device *dev = &fs_info->devices[j];
		u64 un = dev->total_bytes > dev->bytes_used ? dev->total_bytes - dev->bytes_used : 0;

		printf("   %s\t%10s\n", dev_name(dev, nb, sizeof(nb)), inspect_size(a, sizeof(a), un, raw));
	}
}

static int print_json(struct btrfs_fs_info *fs_info, const struct usage *u)
{
	struct json_writer w;
	char nb[64];
	int i, j;

	json_writer_init(&w, stdout, JSON_WRITER_PRETTY);
	json_object_begin(&w);
	json_kv_object_begin(&w, "overall");
	json_kv_u64(&w, "device_size", u->dev_size);
	json_kv_u64(&w, "device_allocated", u->dev_allocated);
	json_kv_u64(&w, "device_unallocated", u->dev_size - u->dev_allocated);
	json_kv_u64(&w, "device_missing", u->dev_missing);
	json_kv_u64(&w, "device_slack", u->dev_slack);
	json_kv_u64(&w, "used", u->used_raw);
	json_kv_u64(&w, "free_estimated", u->free_est);
	json_kv_u64(&w, "free_estimated_min", u->free_min);
	json_kv_u64(&w, "free_statfs", u->free_statfs);
	json_kv_fixed(&w, "data_ratio", (s64)(u->data_ratio * 100 + 0.5), 2);
	json_kv_fixed(&w, "metadata_ratio", (s64)(u->meta_ratio * 100 + 0.5), 2);
	json_kv_u64(&w, "global_reserve", u->global_reserve);
	json_kv_bool(&w, "multiple_profiles", u->multiple_profiles);
	json_object_end(&w);
	json_kv_array_begin(&w, "profiles");
	for (i = 0; i < u->nr; i++) {
		const struct profile_usage *p = &u->p[i];

		json_object_begin(&w);
		json_kv_string(&w, "type", type_json(p->flags));
		json_kv_string(&w, "profile", btrfs_bg_type_profile_name(p->flags));
		json_kv_u64(&w, "size", p->size);
		json_kv_u64(&w, "used", p->used);
		json_kv_u64(&w, "raw", p->raw);
		json_kv_array_begin(&w, "devices");
		for (j = 0; j < fs_info->num_devices; j++) {
			if (!p->dev_bytes[j])
				continue;
			json_object_begin(&w);
			json_kv_u64(&w, "devid", fs_info->devices[j].devid);
			json_kv_string(&w, "path", dev_name(&fs_info->devices[j], nb, sizeof(nb)));
			json_kv_u64(&w, "bytes", p->dev_bytes[j]);
			json_object_end(&w);
		}
		json_array_end(&w);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_kv_array_begin(&w, "devices");
	for (j = 0; j < fs_info->num_devices; j++) {
		const struct btrfs_device *dev = &fs_info->devices[j];

		json_object_begin(&w);
		json_kv_u64(&w, "devid", dev->devid);
		json_kv_string(&w, "path", dev_name(dev, nb, sizeof(nb)));
		json_kv_bool(&w, "missing", dev->fd < 0);
		json_kv_u64(&w, "size", dev->total_bytes);
		json_kv_u64(&w, "allocated", dev->bytes_used);
		json_kv_u64(&w, "unallocated", dev->total_bytes > dev->bytes_used ?
			    dev->total_bytes - dev->bytes_used : 0);
		json_object_end(&w);
	}
	json_array_end(&w);
	json_object_end(&w);
	return json_writer_finish(&w);
}

int cmd_usage(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "raw", no_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct usage_opts o = { 0 };
	struct btrfs_fs_info *fs_info;
	struct inspect_open io;
	struct usage *u;
	unsigned int errors = 0;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":bhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.raw = true;
			break;
		case 'F':
			if (!inspect_parse_format(optarg, &o.json))
				return GHEE_EXIT_USAGE;
			break;
		case 'h':
			usage_help(stdout);
			return GHEE_EXIT_OK;
		case 'V':
			printf("%s\n", ghee_version_string);
			return GHEE_EXIT_OK;
		default:
			cmd_option_error("usage", argv, c);
			return GHEE_EXIT_USAGE;
		}
	}
	ret = inspect_devices(&io, argv, optind, argc, false, usage_help);
	if (ret)
		return ret == -EINVAL ? GHEE_EXIT_USAGE : GHEE_EXIT_FAILURE;
	/* chunks, block groups, device items and the reserve's trees suffice */
	io.skip_roots = OPEN_ROOT_DEV | OPEN_ROOT_FS | OPEN_ROOT_QUOTA | OPEN_ROOT_UUID;
	fs_info = inspect_open_fs(&io);
	if (!fs_info) {
		inspect_close(&io, NULL);
		return GHEE_EXIT_FAILURE;
	}
	u = calloc(1, sizeof(*u));
	ret = u ? compute(fs_info, u, &errors) : -ENOMEM;
	if (ret) {
		cmd_error("%s", strerror(-ret));
		ret = GHEE_EXIT_FAILURE;
	} else {
		qsort(u->p, u->nr, sizeof(u->p[0]), cmp_profile);
		if (o.json) {
			if (print_json(fs_info, u))
				errors++;
		} else {
			print_text(fs_info, u, o.raw);
		}
		ret = errors || io.reported_errors ? GHEE_EXIT_FAILURE : GHEE_EXIT_OK;
	}
	free(u);
	inspect_close(&io, fs_info);
	return inspect_finish_output(ret);
}
