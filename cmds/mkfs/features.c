// SPDX-License-Identifier: GPL-2.0
/*
 * The features -O (and, as btrfs-progs 6.2 spells some of them, -R)
 * can switch on or off.  One table holds the name, the flag it sets,
 * whether ghee can make it, and the default; everything else reads it.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include "mkfs.h"

struct mkfs_feature_desc {
	const char *name;
	const char *desc;
	u64 incompat;
	u64 compat_ro;
	bool runtime;		/* progs 6.2 takes it with -R */
	bool dflt;
	bool supported;		/* ghee mkfs can make it */
	const char *versions;	/* kernel versions, for list-all */
};

static const struct mkfs_feature_desc feature_table[MKFS_FEAT_COUNT] = {
	[MKFS_FEAT_MIXED_BG] = {
		"mixed-bg", "mixed data and metadata block groups",
		BTRFS_FEATURE_INCOMPAT_MIXED_GROUPS, 0, false, false, true,
		"compat=2.6.37, safe=2.6.37" },
	[MKFS_FEAT_EXTREF] = {
		"extref", "increased hardlink limit per file to 65536",
		BTRFS_FEATURE_INCOMPAT_EXTENDED_IREF, 0, false, true, true,
		"compat=3.7, safe=3.12, default=3.12" },
	[MKFS_FEAT_RAID56] = {
		"raid56", "raid56 extended format",
		BTRFS_FEATURE_INCOMPAT_RAID56, 0, false, false, false,
		"compat=3.9" },
	[MKFS_FEAT_SKINNY_METADATA] = {
		"skinny-metadata", "reduced-size metadata extent refs",
		BTRFS_FEATURE_INCOMPAT_SKINNY_METADATA, 0, false, true, true,
		"compat=3.10, safe=3.18, default=3.18" },
	[MKFS_FEAT_NO_HOLES] = {
		"no-holes", "no explicit hole extents for files",
		BTRFS_FEATURE_INCOMPAT_NO_HOLES, 0, false, true, true,
		"compat=3.14, safe=4.0, default=5.15" },
	[MKFS_FEAT_RAID1C34] = {
		"raid1c34", "RAID1 with 3 or 4 copies",
		BTRFS_FEATURE_INCOMPAT_RAID1C34, 0, false, false, true,
		"compat=5.5" },
	[MKFS_FEAT_ZONED] = {
		"zoned", "support zoned devices",
		BTRFS_FEATURE_INCOMPAT_ZONED, 0, false, false, false,
		"compat=5.12" },
	[MKFS_FEAT_QUOTA] = {
		"quota", "quota support (qgroups)",
		0, 0, true, false, true,
		"compat=3.4" },
	[MKFS_FEAT_FREE_SPACE_TREE] = {
		"free-space-tree", "free space tree (space_cache=v2)",
		0, BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE |
		   BTRFS_FEATURE_COMPAT_RO_FREE_SPACE_TREE_VALID,
		true, true, true,
		"compat=4.5, safe=4.9, default=5.15" },
	[MKFS_FEAT_BLOCK_GROUP_TREE] = {
		"block-group-tree", "block group tree to reduce mount time",
		0, BTRFS_FEATURE_COMPAT_RO_BLOCK_GROUP_TREE, false, false, true,
		"compat=6.1" },
};

const char *mkfs_feature_name(enum mkfs_feature f)
{
	return feature_table[f].name;
}

bool mkfs_feature_is_runtime(enum mkfs_feature f)
{
	return feature_table[f].runtime;
}

void mkfs_features_defaults(bool features[MKFS_FEAT_COUNT])
{
	int i;

	for (i = 0; i < MKFS_FEAT_COUNT; i++)
		features[i] = feature_table[i].dflt;
}

static int feature_lookup(const char *name, size_t len)
{
	int i;

	for (i = 0; i < MKFS_FEAT_COUNT; i++) {
		if (strlen(feature_table[i].name) == len &&
		    !strncasecmp(feature_table[i].name, name, len))
			return i;
	}
	/* the names btrfs-progs documents for the same things */
	if (len == 6 && !strncasecmp(name, "bg-tree", len))
		return MKFS_FEAT_BLOCK_GROUP_TREE;
	if (len == 3 && !strncasecmp(name, "fst", len))
		return MKFS_FEAT_FREE_SPACE_TREE;
	return -1;
}

static int feature_apply(const char *item, size_t len, bool runtime,
			 bool features[MKFS_FEAT_COUNT])
{
	bool off = false;
	int f;

	if (len && item[0] == '^') {
		off = true;
		item++;
		len--;
	}
	f = feature_lookup(item, len);
	if (f < 0) {
		cmd_error("unrecognized %s feature '%.*s'",
			   runtime ? "runtime" : "filesystem", (int)len, item);
		return -EINVAL;
	}
	if (!off && !feature_table[f].supported) {
		cmd_error("feature '%s' is not supported by ghee mkfs",
			   feature_table[f].name);
		return -EOPNOTSUPP;
	}
	features[f] = !off;
	return 0;
}

/*
 * Apply a comma separated list like "no-holes,^extref".  "list-all"
 * sets *list_all and stops; the caller prints the table.
 */
int mkfs_features_parse(const char *list, bool runtime,
			bool features[MKFS_FEAT_COUNT], bool *list_all)
{
	const char *p = list;
	int ret;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == 8 && !strncasecmp(p, "list-all", len)) {
			*list_all = true;
			return 0;
		}
		if (len) {
			ret = feature_apply(p, len, runtime, features);
			if (ret)
				return ret;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* the list-all table: same layout as mkfs.btrfs, on stderr like it */
void mkfs_features_list_all(FILE *out, bool runtime)
{
	int i;

	fprintf(out, "%s features available:\n",
		runtime ? "Runtime" : "Filesystem");
	for (i = 0; i < MKFS_FEAT_COUNT; i++) {
		const struct mkfs_feature_desc *d = &feature_table[i];

		if (!d->supported)
			continue;
		if (runtime && !d->runtime)
			continue;
		fprintf(out, "%-20s- %s (%s)\n", d->name, d->desc, d->versions);
	}
}

void mkfs_features_to_flags(const bool features[MKFS_FEAT_COUNT],
			    u64 *incompat, u64 *compat_ro)
{
	int i;

	*incompat = 0;
	*compat_ro = 0;
	for (i = 0; i < MKFS_FEAT_COUNT; i++) {
		if (!features[i])
			continue;
		*incompat |= feature_table[i].incompat;
		*compat_ro |= feature_table[i].compat_ro;
	}
}
