/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee mkfs: a pipeline of small steps, each with its own file.
 *
 *   main.c      argv -> struct mkfs_raw (strings and flags as typed)
 *   params.c    struct mkfs_raw -> struct mkfs_params (validated values)
 *   features.c  the -O / -R feature table
 *   probe.c     open the targets, refuse mounted or in-use ones, libblkid
 *               signature checks, sizes, discard
 *   geometry.c  struct mkfs_params + device sizes -> struct mkfs_geometry
 *               (minimum size, profiles, the size of every first chunk)
 *   wipe.c      clear old signatures and the start and end of each device
 *   create.c    struct mkfs_geometry -> a filesystem, through the engine
 *   summary.c   what was made, as text (mkfs.btrfs layout) or JSON
 *
 * Every step returns 0 or a negative errno and prints its own error
 * message, so the caller only maps failures to exit codes.
 */
#ifndef GHEE_MKFS_H
#define GHEE_MKFS_H

#include <stdbool.h>
#include <stdio.h>
#include "kernel-shared/format.h"
#include "cmds/commands.h"
#include "rootdir.h"

struct btrfs_trans_handle;

#define MKFS_MAX_DEVICES	64

/* the user's words, before any validation */
struct mkfs_raw {
	const char *label;
	const char *fs_uuid;
	const char *dev_uuid;
	const char *nodesize;
	const char *sectorsize;
	const char *byte_count;
	const char *csum;
	const char *data_profile;
	const char *meta_profile;
	/* -O and -R may be given more than once; each adds to the list */
	const char *features[32];
	int nr_features;
	bool mixed;
	bool force;
	bool nodiscard;
	int verbosity;		/* 0 quiet, 1 normal, 2+ verbose */
	const char *format;	/* "text" or "json" */
	const char *rootdir;
	const char *subvols[MKFS_MAX_SUBVOLS];
	int nr_subvols;
	const char *iflags[MKFS_MAX_SUBVOLS];
	int nr_iflags;
	const char *owner;
	const char *root_owner;
	bool one_file_system;
	bool shrink;
	const char *compress;	/* --compress ALGO[:LEVEL] */
	bool reflink;
	const char *max_inline;	/* --max-inline BYTES */
	char **devices;
	int nr_devices;
};

enum mkfs_format {
	MKFS_FORMAT_TEXT,
	MKFS_FORMAT_JSON,
};

/* features ghee mkfs can set, in the order the summary lists them */
enum mkfs_feature {
	MKFS_FEAT_MIXED_BG,
	MKFS_FEAT_EXTREF,
	MKFS_FEAT_RAID56,
	MKFS_FEAT_SKINNY_METADATA,
	MKFS_FEAT_NO_HOLES,
	MKFS_FEAT_RAID1C34,
	MKFS_FEAT_ZONED,
	MKFS_FEAT_QUOTA,
	MKFS_FEAT_FREE_SPACE_TREE,
	MKFS_FEAT_BLOCK_GROUP_TREE,
	MKFS_FEAT_COUNT
};

/* validated parameters; nothing here depends on the devices yet */
struct mkfs_params {
	char label[BTRFS_LABEL_SIZE];
	u8 fsid[BTRFS_FSID_SIZE];
	bool fsid_given;
	u8 dev_uuid[BTRFS_UUID_SIZE];
	bool dev_uuid_given;
	u32 nodesize;
	u32 sectorsize;
	u64 byte_count;		/* 0: whole device */
	u16 csum_type;
	u64 data_profile;	/* BTRFS_BLOCK_GROUP_* profile bit, 0 = single */
	u64 meta_profile;
	bool data_profile_given;
	bool meta_profile_given;
	bool mixed;
	bool features[MKFS_FEAT_COUNT];
	bool force;
	bool discard;
	int verbosity;
	enum mkfs_format format;
	int nr_devices;
	char **paths;
	u64 now_sec;		/* SOURCE_DATE_EPOCH or the current time */
	struct mkfs_rootdir_opts rootdir;
};

/* one target, as opened by probe.c */
struct mkfs_device {
	const char *path;
	int fd;
	bool is_blockdev;
	bool created;		/* an image file mkfs made itself */
	u64 raw_size;		/* what the file or device holds */
	u64 size;		/* what the filesystem uses (-b or raw_size) */
	u64 devid;
	u8 uuid[BTRFS_UUID_SIZE];
	bool rotational;
};

/* the first chunk of one kind: its type and sizes */
struct mkfs_chunk_plan {
	u64 type;		/* BTRFS_BLOCK_GROUP_{SYSTEM,METADATA,DATA} | profile */
	u64 length;		/* logical bytes */
	u64 stripe_size;	/* bytes on each stripe */
	int num_stripes;
	int sub_stripes;
};

#define MKFS_CHUNK_SYSTEM	0
#define MKFS_CHUNK_METADATA	1
#define MKFS_CHUNK_DATA		2
#define MKFS_NR_CHUNKS		3

/* everything derived from the parameters and the device sizes */
struct mkfs_geometry {
	struct mkfs_device devs[MKFS_MAX_DEVICES];
	int nr_devs;
	u64 total_bytes;	/* sum of device sizes */
	u64 min_dev_size;
	u64 incompat;
	u64 compat_ro;
	/* system, metadata and data chunks; in mixed mode the metadata
	 * plan is the one mixed chunk and the data plan has length 0 */
	struct mkfs_chunk_plan chunks[MKFS_NR_CHUNKS];
	/*
	 * the chunks are placed like mkfs.btrfs's, after its bootstrap area
	 * (mkfs_bootstrap_start()); false on devices too small for that,
	 * where they are packed from the first megabyte
	 */
	bool bootstrap_layout;
	/* --rootdir: the pre-scan and the device size it needs (0: none) */
	struct rootdir_scan scan;
	u64 rootdir_need;
};

/* the result, for the summary */
struct mkfs_result {
	u8 fsid[BTRFS_FSID_SIZE];
	u8 chunk_tree_uuid[BTRFS_UUID_SIZE];
	u64 generation;
	u64 bytes_used;
	/* allocated logical bytes per kind, as the summary shows them */
	u64 chunk_bytes[MKFS_NR_CHUNKS];
	u64 chunk_type[MKFS_NR_CHUNKS];
	struct rootdir_stats rootdir;
	u64 shrunk_size;	/* --shrink: the device size after it, 0 if not */
};


/* params.c */
int mkfs_parse_size(const char *str, u64 *ret);
int mkfs_parse_profile(const char *str, u64 *ret);
const char *mkfs_profile_name(u64 profile);	/* "single", "DUP", "RAID1", ... */
int mkfs_validate_params(const struct mkfs_raw *raw, struct mkfs_params *p);

/* features.c */
const char *mkfs_feature_name(enum mkfs_feature f);
bool mkfs_feature_is_runtime(enum mkfs_feature f);
void mkfs_features_defaults(bool features[MKFS_FEAT_COUNT]);
/* apply one comma separated list; @runtime: it came from -R */
int mkfs_features_parse(const char *list, bool runtime,
			bool features[MKFS_FEAT_COUNT], bool *list_all);
void mkfs_features_list_all(FILE *out, bool runtime);
void mkfs_features_to_flags(const bool features[MKFS_FEAT_COUNT],
			    u64 *incompat, u64 *compat_ro);

/* probe.c */
int mkfs_probe_devices(const struct mkfs_params *p, struct mkfs_geometry *g);
int mkfs_discard_devices(const struct mkfs_params *p, struct mkfs_geometry *g);
void mkfs_close_devices(struct mkfs_geometry *g, bool remove_created);

/* wipe.c */
int mkfs_wipe_devices(const struct mkfs_geometry *g);

/* geometry.c */
/* where mkfs.btrfs's bootstrap chunk of MKFS_CHUNK_* @chunk is, and its area's end */
u64 mkfs_bootstrap_start(const struct mkfs_params *p, int chunk);
u64 mkfs_bootstrap_end(const struct mkfs_params *p);
u64 mkfs_min_dev_size(const struct mkfs_params *p);
int mkfs_compute_geometry(const struct mkfs_params *p, struct mkfs_geometry *g);

/* rootdir-size.c: pre-scan and size for --rootdir; chunk sizes for --shrink */
int mkfs_rootdir_size(const struct mkfs_params *p, struct mkfs_geometry *g);
void mkfs_rootdir_fit_chunks(const struct mkfs_params *p, struct mkfs_geometry *g);

/* qgroups.c: the qgroup of every subvolume after --rootdir */
int mkfs_fill_qgroups(struct btrfs_trans_handle *trans, u64 nr_subvols);

/* create.c */
int mkfs_create(const struct mkfs_params *p, struct mkfs_geometry *g,
		struct mkfs_result *res);

/* summary.c */
void mkfs_print_summary(FILE *out, const struct mkfs_params *p,
			const struct mkfs_geometry *g,
			const struct mkfs_result *res);
void mkfs_print_json(FILE *out, const struct mkfs_params *p,
		     const struct mkfs_geometry *g,
		     const struct mkfs_result *res);
/* "1.00GiB" like btrfs-progs' pretty sizes */
void mkfs_pretty_size(u64 bytes, char *buf, size_t len);

#endif
