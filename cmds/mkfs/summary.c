// SPDX-License-Identifier: GPL-2.0
/*
 * What mkfs made: for people in the layout mkfs.btrfs prints (so eyes and
 * scripts that know it keep working), for scripts as one JSON object with
 * a stable schema (documented in ghee-mkfs(8)).
 */
#include "config.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <uuid/uuid.h>
#include "mkfs.h"
#include "kernel-shared/compression.h"
#include "kernel-shared/csum.h"

/* base 1024, two decimals: "8.00MiB", "1.00GiB" */
void mkfs_pretty_size(u64 bytes, char *buf, size_t len)
{
	static const char *const units[] = {
		"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"
	};
	int i = 0;
	u64 div = 1;

	while (i < 6 && bytes / div >= 1024) {
		div *= 1024;
		i++;
	}
	snprintf(buf, len, "%.2f%s", (double)bytes / (double)div, units[i]);
}

static const char *csum_display_name(u16 type)
{
	return btrfs_csum_type_name(type);
}

static bool any_ssd(const struct mkfs_geometry *g)
{
	int i;

	for (i = 0; i < g->nr_devs; i++) {
		if (!g->devs[i].rotational)
			return true;
	}
	return false;
}

/* the features of one summary line, comma separated */
static void print_feature_line(FILE *out, const char *title,
			       const struct mkfs_params *p, bool runtime)
{
	const char *sep = "";
	int f;

	fprintf(out, "%-20s", title);
	for (f = 0; f < MKFS_FEAT_COUNT; f++) {
		if (!p->features[f] || mkfs_feature_is_runtime(f) != runtime)
			continue;
		fprintf(out, "%s%s", sep, mkfs_feature_name(f));
		sep = ", ";
	}
	fputc('\n', out);
}

static void print_profile_line(FILE *out, const char *title, u64 type,
			       u64 bytes)
{
	char size[32], label[32];

	snprintf(label, sizeof(label), "  %s:", title);
	mkfs_pretty_size(bytes, size, sizeof(size));
	fprintf(out, "%-20s%-10s%15s\n", label, mkfs_profile_name(type), size);
}

static void print_profiles(FILE *out, const struct mkfs_params *p,
			   const struct mkfs_result *res)
{
	fprintf(out, "Block group profiles:\n");
	if (p->mixed) {
		print_profile_line(out, "Data+Metadata",
				   res->chunk_type[MKFS_CHUNK_METADATA],
				   res->chunk_bytes[MKFS_CHUNK_METADATA]);
	} else {
		print_profile_line(out, "Data", res->chunk_type[MKFS_CHUNK_DATA],
				   res->chunk_bytes[MKFS_CHUNK_DATA]);
		print_profile_line(out, "Metadata",
				   res->chunk_type[MKFS_CHUNK_METADATA],
				   res->chunk_bytes[MKFS_CHUNK_METADATA]);
	}
	print_profile_line(out, "System", res->chunk_type[MKFS_CHUNK_SYSTEM],
			   res->chunk_bytes[MKFS_CHUNK_SYSTEM]);
}

static void print_devices(FILE *out, const struct mkfs_geometry *g)
{
	char size[32];
	int i;

	fprintf(out, "Devices:\n");
	fprintf(out, "   ID        SIZE  PATH\n");
	for (i = 0; i < g->nr_devs; i++) {
		mkfs_pretty_size(g->devs[i].size, size, sizeof(size));
		fprintf(out, "  %3llu  %10s  %s\n",
			(unsigned long long)g->devs[i].devid, size,
			g->devs[i].path);
	}
}

/* --rootdir: what was copied, in one line */
static void print_rootdir(FILE *out, const struct mkfs_params *p,
			  const struct mkfs_result *res)
{
	const struct rootdir_stats *r = &res->rootdir;
	char bytes[32];

	mkfs_pretty_size(r->bytes, bytes, sizeof(bytes));
	fprintf(out, "%-20s%s\n", "Rootdir:", p->rootdir.path);
	fprintf(out, "%-20s%llu inodes (%llu files, %llu directories, %llu symlinks, %llu other, %llu more hard links), %s in %llu extents and %llu inline, %llu xattrs\n",
		"Copied:", (unsigned long long)r->inodes, (unsigned long long)r->regular,
		(unsigned long long)r->dirs, (unsigned long long)r->symlinks,
		(unsigned long long)r->special, (unsigned long long)r->hardlinks, bytes,
		(unsigned long long)r->extents, (unsigned long long)r->inline_extents,
		(unsigned long long)r->xattrs);
	if (p->rootdir.compress_type != BTRFS_COMPRESS_NONE) {
		char disk[32];

		mkfs_pretty_size(r->compressed_ram_bytes, bytes, sizeof(bytes));
		mkfs_pretty_size(r->compressed_disk_bytes, disk, sizeof(disk));
		fprintf(out, "%-20s%s: %llu extents and %llu inline hold %s in %s\n",
			"Compressed:", btrfs_compress_type_name(p->rootdir.compress_type),
			(unsigned long long)r->compressed_extents,
			(unsigned long long)r->compressed_inline, bytes, disk);
	}
	if (p->rootdir.reflink) {
		mkfs_pretty_size(r->reflinked_bytes, bytes, sizeof(bytes));
		fprintf(out, "%-20s%s cloned\n", "Reflinked:", bytes);
	}
}

void mkfs_print_summary(FILE *out, const struct mkfs_params *p,
			const struct mkfs_geometry *g,
			const struct mkfs_result *res)
{
	char uuid[37], size[32];

	uuid_unparse(res->fsid, uuid);
	mkfs_pretty_size(res->shrunk_size ? res->shrunk_size : g->total_bytes, size,
			 sizeof(size));
	fprintf(out, "%-20s%s\n", "Label:", p->label[0] ? p->label : "(null)");
	fprintf(out, "%-20s%s\n", "UUID:", uuid);
	fprintf(out, "%-20s%u\n", "Node size:", p->nodesize);
	fprintf(out, "%-20s%u\n", "Sector size:", p->sectorsize);
	fprintf(out, "%-20s%s\n", "Filesystem size:", size);
	print_profiles(out, p, res);
	fprintf(out, "%-20s%s\n", "SSD detected:", any_ssd(g) ? "yes" : "no");
	fprintf(out, "%-20s%s\n", "Zoned device:", "no");
	print_feature_line(out, "Incompat features:", p, false);
	print_feature_line(out, "Runtime features:", p, true);
	fprintf(out, "%-20s%s\n", "Checksum:", csum_display_name(p->csum_type));
	fprintf(out, "%-20s%d\n", "Number of devices:", g->nr_devs);
	print_devices(out, g);
	if (p->rootdir.path)
		print_rootdir(out, p, res);
	fputc('\n', out);
	/* what mkfs.btrfs tells, because the kernel may pick a slow driver */
	if (p->csum_type == BTRFS_CSUM_TYPE_SHA256)
		fprintf(out, "NOTE: you may need to manually load kernel module implementing accelerated SHA256 in case\n"
			"      the generic implementation is built-in, before mount. Check lsmod or /proc/crypto\n\n");
}

/* a JSON string: quotes, backslashes and control characters escaped */
static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_block_group(FILE *out, const char *type, u64 flags, u64 bytes,
			     bool last)
{
	const char *name = mkfs_profile_name(flags);
	char lower[16];
	size_t i;

	/* the spelling -d and -m take: "single", "dup", "raid1c3" */
	for (i = 0; name[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[i] = '\0';
	fprintf(out, "    { \"type\": \"%s\", \"profile\": \"%s\", \"size\": %llu }%s\n",
		type, lower, (unsigned long long)bytes, last ? "" : ",");
}

static void json_features(FILE *out, const struct mkfs_params *p)
{
	const char *sep = "";
	int f;

	fprintf(out, "  \"features\": [");
	for (f = 0; f < MKFS_FEAT_COUNT; f++) {
		if (!p->features[f])
			continue;
		fprintf(out, "%s\"%s\"", sep, mkfs_feature_name(f));
		sep = ", ";
	}
	fprintf(out, "],\n");
}

static void json_devices(FILE *out, const struct mkfs_geometry *g)
{
	char uuid[37];
	int i;

	fprintf(out, "  \"devices\": [\n");
	for (i = 0; i < g->nr_devs; i++) {
		const struct mkfs_device *d = &g->devs[i];

		uuid_unparse(d->uuid, uuid);
		fprintf(out, "    { \"devid\": %llu, \"size\": %llu, \"uuid\": \"%s\", \"path\": ",
			(unsigned long long)d->devid,
			(unsigned long long)d->size, uuid);
		json_string(out, d->path);
		fprintf(out, " }%s\n", i + 1 < g->nr_devs ? "," : "");
	}
	fprintf(out, "  ]\n");
}

static void json_rootdir(FILE *out, const struct mkfs_params *p,
			 const struct mkfs_result *res)
{
	const struct rootdir_stats *r = &res->rootdir;

	fprintf(out, "  \"rootdir\": {\n    \"path\": ");
	json_string(out, p->rootdir.path);
	fprintf(out, ",\n    \"inodes\": %llu,\n    \"files\": %llu,\n    \"directories\": %llu,\n"
		"    \"symlinks\": %llu,\n    \"special\": %llu,\n    \"extra_hard_links\": %llu,\n"
		"    \"xattrs\": %llu,\n    \"bytes\": %llu,\n    \"extents\": %llu,\n"
		"    \"extent_bytes\": %llu,\n    \"inline_extents\": %llu,\n"
		"    \"hole_extents\": %llu,\n    \"compressed_extents\": %llu,\n"
		"    \"compressed_inline_extents\": %llu,\n    \"compressed_bytes\": %llu,\n"
		"    \"compressed_disk_bytes\": %llu,\n    \"reflinked_bytes\": %llu,\n"
		"    \"shrunk_size\": %llu\n  },\n",
		(unsigned long long)r->inodes, (unsigned long long)r->regular,
		(unsigned long long)r->dirs, (unsigned long long)r->symlinks,
		(unsigned long long)r->special, (unsigned long long)r->hardlinks,
		(unsigned long long)r->xattrs, (unsigned long long)r->bytes,
		(unsigned long long)r->extents, (unsigned long long)r->data_extent_bytes,
		(unsigned long long)r->inline_extents, (unsigned long long)r->hole_extents,
		(unsigned long long)r->compressed_extents,
		(unsigned long long)r->compressed_inline,
		(unsigned long long)r->compressed_ram_bytes,
		(unsigned long long)r->compressed_disk_bytes,
		(unsigned long long)r->reflinked_bytes,
		(unsigned long long)res->shrunk_size);
}

void mkfs_print_json(FILE *out, const struct mkfs_params *p,
		     const struct mkfs_geometry *g,
		     const struct mkfs_result *res)
{
	char uuid[37];

	fprintf(out, "{\n");
	fprintf(out, "  \"label\": ");
	json_string(out, p->label);
	uuid_unparse(res->fsid, uuid);
	fprintf(out, ",\n  \"uuid\": \"%s\",\n", uuid);
	fprintf(out, "  \"nodesize\": %u,\n  \"sectorsize\": %u,\n",
		p->nodesize, p->sectorsize);
	fprintf(out, "  \"size\": %llu,\n  \"bytes_used\": %llu,\n",
		(unsigned long long)(res->shrunk_size ? res->shrunk_size : g->total_bytes),
		(unsigned long long)res->bytes_used);
	fprintf(out, "  \"generation\": %llu,\n",
		(unsigned long long)res->generation);
	fprintf(out, "  \"block_groups\": [\n");
	if (p->mixed) {
		json_block_group(out, "data+metadata",
				 res->chunk_type[MKFS_CHUNK_METADATA],
				 res->chunk_bytes[MKFS_CHUNK_METADATA], false);
	} else {
		json_block_group(out, "data", res->chunk_type[MKFS_CHUNK_DATA],
				 res->chunk_bytes[MKFS_CHUNK_DATA], false);
		json_block_group(out, "metadata",
				 res->chunk_type[MKFS_CHUNK_METADATA],
				 res->chunk_bytes[MKFS_CHUNK_METADATA], false);
	}
	json_block_group(out, "system", res->chunk_type[MKFS_CHUNK_SYSTEM],
			 res->chunk_bytes[MKFS_CHUNK_SYSTEM], true);
	fprintf(out, "  ],\n");
	fprintf(out, "  \"ssd\": %s,\n  \"zoned\": false,\n",
		any_ssd(g) ? "true" : "false");
	json_features(out, p);
	fprintf(out, "  \"incompat_flags\": %llu,\n  \"compat_ro_flags\": %llu,\n",
		(unsigned long long)g->incompat,
		(unsigned long long)g->compat_ro);
	fprintf(out, "  \"checksum\": \"%s\",\n", csum_display_name(p->csum_type));
	fprintf(out, "  \"num_devices\": %d,\n", g->nr_devs);
	if (p->rootdir.path)
		json_rootdir(out, p, res);
	json_devices(out, g);
	fprintf(out, "}\n");
}
