// SPDX-License-Identifier: GPL-2.0
/*
 * Raw options -> validated parameters.  Everything that can be judged
 * without looking at the devices is judged here, with the messages users
 * know from mkfs.btrfs.
 */
#include "config.h"
#include <errno.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
#include <stdint.h>
#include <uuid/uuid.h>
#include "mkfs.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/compression.h"

/* "16k", "1G", "1GiB", "4096": binary multiples; a plain number is bytes */
int mkfs_parse_size(const char *str, u64 *ret)
{
	static const char units[] = "KMGTPE";
	const char *unit;
	unsigned long long val;
	char *end;
	int shift = 0;

	if (!str || !isdigit((unsigned char)*str))
		return -EINVAL;
	errno = 0;
	val = strtoull(str, &end, 0);
	if (errno)
		return -ERANGE;
	if (*end) {
		unit = strchr(units, toupper((unsigned char)*end));
		if (!unit)
			return -EINVAL;
		shift = 10 * (int)(unit - units + 1);
		end++;
		if (!strcasecmp(end, "iB") || !strcasecmp(end, "B"))
			end += strlen(end);
		if (*end)
			return -EINVAL;
		if (val > (~0ULL >> shift))
			return -ERANGE;
	}
	*ret = (u64)val << shift;
	return 0;
}

static const struct {
	const char *name;
	const char *display;
	u64 flag;
} profiles[] = {
	{ "single",	"single",	0 },
	{ "dup",	"DUP",		BTRFS_BLOCK_GROUP_DUP },
	{ "raid0",	"RAID0",	BTRFS_BLOCK_GROUP_RAID0 },
	{ "raid1",	"RAID1",	BTRFS_BLOCK_GROUP_RAID1 },
	{ "raid1c3",	"RAID1C3",	BTRFS_BLOCK_GROUP_RAID1C3 },
	{ "raid1c4",	"RAID1C4",	BTRFS_BLOCK_GROUP_RAID1C4 },
	{ "raid10",	"RAID10",	BTRFS_BLOCK_GROUP_RAID10 },
	{ "raid5",	"RAID5",	BTRFS_BLOCK_GROUP_RAID5 },
	{ "raid6",	"RAID6",	BTRFS_BLOCK_GROUP_RAID6 },
};

int mkfs_parse_profile(const char *str, u64 *ret)
{
	size_t i;

	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (!strcasecmp(str, profiles[i].name)) {
			*ret = profiles[i].flag;
			return 0;
		}
	}
	return -EINVAL;
}

const char *mkfs_profile_name(u64 profile)
{
	size_t i;

	profile &= BTRFS_BLOCK_GROUP_PROFILE_MASK;
	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (profiles[i].flag == profile)
			return profiles[i].display;
	}
	return "unknown";
}

static int parse_csum(const char *str, u16 *ret)
{
	static const struct {
		const char *name;
		u16 type;
	} names[] = {
		{ "crc32c", BTRFS_CSUM_TYPE_CRC32 },
		{ "xxhash", BTRFS_CSUM_TYPE_XXHASH },
		{ "xxhash64", BTRFS_CSUM_TYPE_XXHASH },
		{ "sha256", BTRFS_CSUM_TYPE_SHA256 },
		{ "blake2", BTRFS_CSUM_TYPE_BLAKE2 },
		{ "blake2b", BTRFS_CSUM_TYPE_BLAKE2 },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(str, names[i].name)) {
			*ret = names[i].type;
			return 0;
		}
	}
	cmd_error("unknown csum type %s", str);
	return -EINVAL;
}

static int parse_block_size(const char *what, const char *str, u32 *ret)
{
	u64 val;

	if (mkfs_parse_size(str, &val)) {
		cmd_error("invalid %s '%s'", what, str);
		return -EINVAL;
	}
	if (val > 1024 * 1024) {
		cmd_error("invalid %s %s, expected range is [4K, 64K]",
			   what, str);
		return -EINVAL;
	}
	*ret = (u32)val;
	return 0;
}

static bool is_power_of_2(u64 v)
{
	return v && !(v & (v - 1));
}

static int check_sectorsize(u32 sectorsize)
{
	long page = sysconf(_SC_PAGESIZE);

	if (sectorsize < 4096 || sectorsize > 65536 ||
	    !is_power_of_2(sectorsize)) {
		cmd_error("invalid sectorsize %u, expected range is [4K, 64K]",
			   sectorsize);
		return -EINVAL;
	}
	/* the kernel mounts 4K sectors on any page size, else only equal */
	if (sectorsize != 4096 && page > 0 && sectorsize != (u32)page)
		cmd_warning("the filesystem may not be mountable, sectorsize %u doesn't match page size %ld",
			     sectorsize, page);
	return 0;
}

static int check_nodesize(const struct mkfs_params *p)
{
	u32 n = p->nodesize;

	if (n < p->sectorsize) {
		cmd_error("illegal nodesize %u (smaller than %u)", n,
			   p->sectorsize);
		return -EINVAL;
	}
	if (n > BTRFS_MAX_METADATA_BLOCKSIZE) {
		cmd_error("illegal nodesize %u (larger than %u)", n,
			   BTRFS_MAX_METADATA_BLOCKSIZE);
		return -EINVAL;
	}
	if (n & (p->sectorsize - 1) || !is_power_of_2(n)) {
		cmd_error("illegal nodesize %u (not aligned to %u)", n,
			   p->sectorsize);
		return -EINVAL;
	}
	if (p->mixed && n != p->sectorsize) {
		cmd_error("illegal nodesize %u (not equal to %u for mixed block group)",
			   n, p->sectorsize);
		return -EINVAL;
	}
	return 0;
}

static int parse_uuid(const char *str, u8 *out)
{
	if (uuid_parse(str, out)) {
		cmd_error("could not parse UUID: %s", str);
		return -EINVAL;
	}
	return 0;
}

static int parse_label(const char *str, struct mkfs_params *p)
{
	if (strlen(str) >= BTRFS_LABEL_SIZE) {
		cmd_error("label %s is too long (max %d)", str,
			   BTRFS_LABEL_SIZE - 1);
		return -EINVAL;
	}
	strcpy(p->label, str);
	return 0;
}

static int parse_features(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	bool list_all = false;
	int i, ret;

	mkfs_features_defaults(p->features);
	for (i = 0; i < raw->nr_features; i++) {
		const char *s = raw->features[i];
		bool runtime = s[0] == 'R';

		ret = mkfs_features_parse(s + 1, runtime, p->features,
					  &list_all);
		if (ret)
			return ret;
		if (list_all) {
			mkfs_features_list_all(stderr, runtime);
			return 1;
		}
	}
	if (raw->mixed)
		p->features[MKFS_FEAT_MIXED_BG] = true;
	p->mixed = p->features[MKFS_FEAT_MIXED_BG];
	return 0;
}

static int parse_profiles(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	if (raw->data_profile) {
		if (mkfs_parse_profile(raw->data_profile, &p->data_profile)) {
			cmd_error("unknown data profile %s", raw->data_profile);
			return -EINVAL;
		}
		p->data_profile_given = true;
	}
	if (raw->meta_profile) {
		if (mkfs_parse_profile(raw->meta_profile, &p->meta_profile)) {
			cmd_error("unknown metadata profile %s",
				   raw->meta_profile);
			return -EINVAL;
		}
		p->meta_profile_given = true;
	}
	return 0;
}

static int devs_min(u64 profile)
{
	switch (profile & BTRFS_BLOCK_GROUP_PROFILE_MASK) {
	case BTRFS_BLOCK_GROUP_RAID1:
	case BTRFS_BLOCK_GROUP_RAID10:
		return 2;
	case BTRFS_BLOCK_GROUP_RAID1C3:
		return 3;
	case BTRFS_BLOCK_GROUP_RAID1C4:
		return 4;
	default:
		return 1;
	}
}

static int check_one_profile(const char *what, u64 profile, int nr_devices)
{
	int need = devs_min(profile);

	if (nr_devices < need) {
		cmd_error("unable to create FS with %s profile %s (have %d devices but %d devices are required)",
			   what, mkfs_profile_name(profile), nr_devices, need);
		return -EINVAL;
	}
	if (nr_devices > 1 && (profile & BTRFS_BLOCK_GROUP_DUP))
		cmd_warning("DUP is not recommended on filesystem with multiple devices");
	return 0;
}

static int check_profiles_for_devices(const struct mkfs_params *p)
{
	int ret;

	ret = check_one_profile("metadata", p->meta_profile, p->nr_devices);
	if (ret)
		return ret;
	if (p->mixed && p->data_profile == p->meta_profile)
		return 0;
	return check_one_profile("data", p->data_profile, p->nr_devices);
}

/*
 * Defaults of btrfs-progs 6.2: data single; metadata DUP on one device
 * and RAID1 on several; mixed block groups use one profile for both,
 * single unless one of them was given.
 */
static int settle_profiles(struct mkfs_params *p)
{
	const u64 raid56 = BTRFS_BLOCK_GROUP_RAID5 | BTRFS_BLOCK_GROUP_RAID6;

	if (p->mixed) {
		if (p->data_profile_given && !p->meta_profile_given)
			p->meta_profile = p->data_profile;
		else if (p->meta_profile_given && !p->data_profile_given)
			p->data_profile = p->meta_profile;
		if (p->data_profile != p->meta_profile) {
			cmd_error("with mixed block groups data and metadata profiles must be the same");
			return -EINVAL;
		}
	} else if (!p->meta_profile_given) {
		p->meta_profile = p->nr_devices > 1 ? BTRFS_BLOCK_GROUP_RAID1 :
						      BTRFS_BLOCK_GROUP_DUP;
	}
	if ((p->data_profile | p->meta_profile) & raid56) {
		cmd_error("RAID5/6 profiles are not supported by ghee mkfs, use raid1, raid1c3, raid1c4 or raid10");
		return -EOPNOTSUPP;
	}
	if ((p->data_profile | p->meta_profile) &
	    (BTRFS_BLOCK_GROUP_RAID1C3 | BTRFS_BLOCK_GROUP_RAID1C4))
		p->features[MKFS_FEAT_RAID1C34] = true;
	return check_profiles_for_devices(p);
}

static int parse_sizes(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	int ret;

	p->sectorsize = 4096;
	if (raw->sectorsize) {
		ret = parse_block_size("sectorsize", raw->sectorsize,
				       &p->sectorsize);
		if (ret)
			return ret;
	}
	ret = check_sectorsize(p->sectorsize);
	if (ret)
		return ret;
	if (raw->nodesize) {
		ret = parse_block_size("nodesize", raw->nodesize, &p->nodesize);
		if (ret)
			return ret;
	} else {
		/* mixed block groups share blocks between data and trees */
		p->nodesize = p->mixed ? p->sectorsize :
			      (p->sectorsize > 16384 ? p->sectorsize : 16384);
	}
	ret = check_nodesize(p);
	if (ret)
		return ret;
	if (raw->byte_count && mkfs_parse_size(raw->byte_count, &p->byte_count)) {
		cmd_error("invalid size '%s'", raw->byte_count);
		return -EINVAL;
	}
	return 0;
}

static int parse_names(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	int ret;

	if (raw->label) {
		ret = parse_label(raw->label, p);
		if (ret)
			return ret;
	}
	if (raw->fs_uuid) {
		ret = parse_uuid(raw->fs_uuid, p->fsid);
		if (ret)
			return ret;
		p->fsid_given = true;
	}
	if (raw->dev_uuid) {
		ret = parse_uuid(raw->dev_uuid, p->dev_uuid);
		if (ret)
			return ret;
		if (raw->nr_devices > 1) {
			cmd_error("--device-uuid can be used with one device only");
			return -EINVAL;
		}
		p->dev_uuid_given = true;
	}
	return 0;
}

/* "UID:GID", both decimal */
static int parse_owner(const char *opt, const char *str, struct mkfs_owner *o)
{
	unsigned long long uid, gid;
	char *end;

	errno = 0;
	uid = strtoull(str, &end, 10);
	if (errno || end == str || *end != ':' || uid > UINT32_MAX)
		goto bad;
	str = end + 1;
	gid = strtoull(str, &end, 10);
	if (errno || end == str || *end || gid > UINT32_MAX)
		goto bad;
	o->set = true;
	o->uid = (u32)uid;
	o->gid = (u32)gid;
	return 0;
bad:
	cmd_error("invalid %s '%s', expected UID:GID", opt, str);
	return -EINVAL;
}

/* SOURCE_DATE_EPOCH: seconds since 1970, as reproducible builds define it */
static int parse_epoch(struct mkfs_params *p)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	unsigned long long v;
	struct timespec now;
	char *end;

	clock_gettime(CLOCK_REALTIME, &now);
	p->now_sec = (u64)now.tv_sec;
	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoull(env, &end, 10);
	if (errno || *end || !isdigit((unsigned char)*env)) {
		cmd_error("invalid SOURCE_DATE_EPOCH '%s', expected seconds since 1970", env);
		return -EINVAL;
	}
	p->now_sec = v;
	p->rootdir.have_epoch = true;
	p->rootdir.epoch = v;
	return 0;
}

static int subvol_error(const char *arg, const char *why)
{
	cmd_error("--subvol %s: %s", arg, why);
	return -EINVAL;
}

/* a/b/c: no empty, "." or ".." component (how the walk spells paths) */
static bool plain_rel_path(const char *rel)
{
	const char *p = rel;

	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return false;
		p += n + (slash ? 1 : 0);
	}
	return true;
}

/* [TYPE:]SUBDIR -> type and SUBDIR without leading "./" or trailing '/' */
static int parse_one_subvol(const char *dir, const char *arg, struct mkfs_subvol *sv)
{
	static const struct { const char *name; enum mkfs_subvol_type type; } types[] = {
		{ "rw:", MKFS_SUBVOL_RW }, { "ro:", MKFS_SUBVOL_RO },
		{ "default:", MKFS_SUBVOL_DEFAULT }, { "default-ro:", MKFS_SUBVOL_DEFAULT_RO },
	};
	const char *rel = arg;
	char *full, *real_dir, *real_sub;
	struct stat st;
	size_t i, len;
	bool inside;

	sv->type = MKFS_SUBVOL_RW;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!strncmp(arg, types[i].name, strlen(types[i].name))) {
			sv->type = types[i].type;
			rel = arg + strlen(types[i].name);
			break;
		}
	}
	while (!strncmp(rel, "./", 2))
		rel += 2;
	len = strlen(rel);
	while (len && rel[len - 1] == '/')
		len--;
	if (!len || rel[0] == '/')
		return subvol_error(arg, "expected a directory relative to --rootdir");
	sv->rel = strndup(rel, len);
	full = malloc(strlen(dir) + len + 2);
	if (!sv->rel || !full) {
		free(full);
		return -ENOMEM;
	}
	sprintf(full, "%s/%s", dir, sv->rel);
	/* in a tar archive: checked against its index once it is read */
	if (rootdir_is_tar(dir)) {
		free(full);
		return plain_rel_path(sv->rel) ? 0 :
		       subvol_error(arg, "expected a plain path inside the archive (no '.', '..' or empty components)");
	}
	if (lstat(full, &st) || !S_ISDIR(st.st_mode)) {
		free(full);
		return subvol_error(arg, "not a directory inside --rootdir");
	}
	real_dir = realpath(dir, NULL);
	real_sub = realpath(full, NULL);
	free(full);
	inside = real_dir && real_sub && strlen(real_sub) > strlen(real_dir) &&
		 !strncmp(real_sub, real_dir, strlen(real_dir)) &&
		 (real_sub[strlen(real_dir)] == '/' || !strcmp(real_dir, "/"));
	/* the walk matches the path as typed: it must be the real one */
	if (inside && strcmp(real_sub + strlen(real_dir) + (strcmp(real_dir, "/") ? 1 : 0),
			     sv->rel))
		inside = false;
	free(real_dir);
	free(real_sub);
	if (!inside)
		return subvol_error(arg, "not a directory inside --rootdir (use its plain path)");
	return 0;
}

static int parse_subvols(const struct mkfs_raw *raw, struct mkfs_rootdir_opts *o)
{
	int i, j, defaults = 0, ret;

	for (i = 0; i < raw->nr_subvols; i++) {
		ret = parse_one_subvol(o->path, raw->subvols[i], &o->subvols[i]);
		o->nr_subvols = i + 1;
		if (ret)
			return ret;
		for (j = 0; j < i; j++) {
			if (!strcmp(o->subvols[j].rel, o->subvols[i].rel))
				return subvol_error(raw->subvols[i], "given twice");
		}
		if (o->subvols[i].type == MKFS_SUBVOL_DEFAULT ||
		    o->subvols[i].type == MKFS_SUBVOL_DEFAULT_RO)
			defaults++;
	}
	if (defaults > 1) {
		cmd_error("--subvol: at most one default subvolume");
		return -EINVAL;
	}
	return 0;
}

/* FLAGS:PATH, FLAGS a comma separated list of nodatacow and nodatasum */
static int parse_one_iflags(const char *dir, const char *arg, struct mkfs_inode_flags *f)
{
	const char *colon = strchr(arg, ':'), *s = arg;
	char *full;
	struct stat st;
	size_t len;

	f->flags = 0;
	if (!colon) {
		cmd_error("--inode-flags %s: expected FLAGS:PATH", arg);
		return -EINVAL;
	}
	while (s < colon) {
		const char *end = memchr(s, ',', (size_t)(colon - s));
		size_t n = (size_t)((end ? end : colon) - s);

		if (n == 9 && !strncmp(s, "nodatacow", 9))
			f->flags |= BTRFS_INODE_NODATACOW;
		else if (n == 9 && !strncmp(s, "nodatasum", 9))
			f->flags |= BTRFS_INODE_NODATASUM;
		else {
			cmd_error("--inode-flags %s: unknown flag '%.*s' (nodatacow, nodatasum)",
				  arg, (int)n, s);
			return -EINVAL;
		}
		s += n + (end ? 1 : 0);
	}
	s = colon + 1;
	while (!strncmp(s, "./", 2))
		s += 2;
	len = strlen(s);
	while (len && s[len - 1] == '/')
		len--;
	if (!f->flags || !len || s[0] == '/' || strstr(s, "..")) {
		cmd_error("--inode-flags %s: expected FLAGS:PATH, PATH relative to --rootdir", arg);
		return -EINVAL;
	}
	f->rel = strndup(s, len);
	full = malloc(strlen(dir) + len + 2);
	if (!f->rel || !full) {
		free(full);
		return -ENOMEM;
	}
	sprintf(full, "%s/%s", dir, f->rel);
	/* in a tar archive a PATH not found names nothing, like a typo in tar -x */
	if (!rootdir_is_tar(dir) && lstat(full, &st)) {
		cmd_error("--inode-flags %s: %s: %m", arg, full);
		free(full);
		return -EINVAL;
	}
	free(full);
	return 0;
}

static int parse_all_iflags(const struct mkfs_raw *raw, struct mkfs_rootdir_opts *o)
{
	int i, j, ret;

	for (i = 0; i < raw->nr_iflags; i++) {
		ret = parse_one_iflags(o->path, raw->iflags[i], &o->iflags[i]);
		o->nr_iflags = i + 1;
		if (ret)
			return ret;
		for (j = 0; j < i; j++) {
			if (!strcmp(o->iflags[j].rel, o->iflags[i].rel)) {
				cmd_error("--inode-flags %s: the path is given twice", raw->iflags[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* --compress ALGO[:LEVEL], the names and level ranges of btrfs-progs */
static int parse_compress(const char *arg, struct mkfs_rootdir_opts *o)
{
	static const u8 types[] = { BTRFS_COMPRESS_ZLIB, BTRFS_COMPRESS_LZO,
				    BTRFS_COMPRESS_ZSTD };
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	char *end;
	long level = 0;
	size_t i;

	if (colon) {
		errno = 0;
		level = strtol(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || level < 0 || level > 1000) {
			cmd_error("--compress %s: invalid level '%s'", arg, colon + 1);
			return -EINVAL;
		}
	}
	if ((len == 2 && !strncmp(arg, "no", 2)) || (len == 4 && !strncmp(arg, "none", 4))) {
		o->compress_type = BTRFS_COMPRESS_NONE;
		return 0;
	}
	for (i = 0; i < sizeof(types); i++) {
		const char *name = btrfs_compress_type_name(types[i]);

		if (strlen(name) != len || strncmp(arg, name, len))
			continue;
		if (!btrfs_compress_supported(types[i])) {
			cmd_error("--compress %s: %s support is not built in", arg, name);
			return -EOPNOTSUPP;
		}
		/* progs takes lzo:1, its only level */
		if (types[i] == BTRFS_COMPRESS_LZO && level == 1)
			level = 0;
		if (!btrfs_compress_level_valid(types[i], (int)level)) {
			cmd_error("--compress %s: level %ld out of range for %s (%s)", arg,
				  level, name, types[i] == BTRFS_COMPRESS_ZLIB ? "1..9" :
				  types[i] == BTRFS_COMPRESS_ZSTD ? "1..15" : "1..1");
			return -EINVAL;
		}
		o->compress_type = types[i];
		o->compress_level = (int)level;
		return 0;
	}
	cmd_error("--compress %s: unknown algorithm '%.*s' (no, zlib, lzo, zstd)", arg,
		  (int)len, arg);
	return -EINVAL;
}

static int parse_rootdir(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	struct mkfs_rootdir_opts *o = &p->rootdir;
	int ret;

	if (!raw->rootdir) {
		if (raw->owner || raw->root_owner || raw->shrink || raw->one_file_system ||
		    raw->nr_subvols || raw->nr_iflags || raw->compress || raw->reflink ||
		    raw->max_inline) {
			cmd_error("--subvol, --inode-flags, --owner, --root-owner, --shrink, --one-file-system, --compress, --reflink and --max-inline need --rootdir");
			return -EINVAL;
		}
		return 0;
	}
	if (raw->nr_devices > 1) {
		cmd_error("the option --rootdir is limited to a single device");
		return -EINVAL;
	}
	o->path = raw->rootdir;
	o->shrink = raw->shrink;
	o->one_file_system = raw->one_file_system;
	o->reflink = raw->reflink;
	o->max_inline = ROOTDIR_MAX_INLINE;
	if (raw->max_inline) {
		u64 v;

		ret = mkfs_parse_size(raw->max_inline, &v);
		if (ret || v > UINT32_MAX) {
			cmd_error("--max-inline %s: expected a size in bytes", raw->max_inline);
			return -EINVAL;
		}
		o->max_inline = (u32)v;
	}
	ret = raw->compress ? parse_compress(raw->compress, o) : 0;
	if (!ret && raw->owner)
		ret = parse_owner("--owner", raw->owner, &o->owner);
	if (!ret && raw->root_owner)
		ret = parse_owner("--root-owner", raw->root_owner, &o->root_owner);
	o->now_sec = p->now_sec;
	o->derive_uuids = p->fsid_given;
	if (!ret)
		ret = parse_subvols(raw, o);
	if (!ret)
		ret = parse_all_iflags(raw, o);
	return ret;
}

static int parse_format(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	if (!raw->format || !strcmp(raw->format, "text")) {
		p->format = MKFS_FORMAT_TEXT;
	} else if (!strcmp(raw->format, "json")) {
		p->format = MKFS_FORMAT_JSON;
	} else {
		cmd_error("unknown output format '%s', expected text or json",
			   raw->format);
		return -EINVAL;
	}
	return 0;
}

/*
 * Returns 0 when @p is ready, 1 when the request was only for a listing
 * (-O list-all) that has been printed, or a negative errno after an
 * error message.
 */
int mkfs_validate_params(const struct mkfs_raw *raw, struct mkfs_params *p)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->nr_devices = raw->nr_devices;
	p->paths = raw->devices;
	p->force = raw->force;
	p->discard = !raw->nodiscard;
	p->verbosity = raw->verbosity;
	p->csum_type = BTRFS_CSUM_TYPE_CRC32;

	ret = parse_features(raw, p);
	if (ret)
		return ret;
	ret = parse_format(raw, p);
	if (!ret)
		ret = parse_names(raw, p);
	if (!ret)
		ret = parse_epoch(p);
	if (!ret)
		ret = parse_rootdir(raw, p);
	if (!ret && raw->csum)
		ret = parse_csum(raw->csum, &p->csum_type);
	if (!ret)
		ret = parse_sizes(raw, p);
	/* inline data is less than a sector: the kernel's limit is at most one */
	if (!ret && p->rootdir.path && p->rootdir.max_inline > p->sectorsize) {
		cmd_error("--max-inline %s: more than the sector size %u", raw->max_inline,
			  p->sectorsize);
		ret = -EINVAL;
	}
	if (!ret)
		ret = parse_profiles(raw, p);
	if (!ret)
		ret = settle_profiles(p);
	if (!ret && p->features[MKFS_FEAT_BLOCK_GROUP_TREE] &&
	    !p->features[MKFS_FEAT_FREE_SPACE_TREE]) {
		cmd_error("block-group-tree feature requires free-space-tree feature");
		ret = -EINVAL;
	}
	return ret;
}
