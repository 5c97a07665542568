// SPDX-License-Identifier: GPL-2.0
/*
 * Geometry -> a filesystem, made by the engine (fs-create.h): mkfs only
 * chooses the identities (UUIDs, label, times), hands over the devices and
 * the first chunks, adds what the engine leaves to its callers (the quota
 * tree), and commits.
 *
 * Crash safety comes from the engine: old superblocks are wiped first,
 * every superblock carries a temporary magic until the final commit, and
 * the primary copies are written last.  When anything fails after the
 * first write, mkfs additionally zeroes every superblock copy it may have
 * written (bypassing the aborted engine), so a failed mkfs never leaves a
 * filesystem that looks valid: not the old one, not a half-made new one.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <uuid/uuid.h>
#include "mkfs.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/block-group.h"
#include "kernel-shared/fs-create.h"
#include "kernel-shared/messages.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/chunk-alloc.h"
#include "kernel-shared/ctree.h"

static void report_to_stderr(void *ctx, enum btrfs_report_level level,
			     const char *msg)
{
	const struct mkfs_params *p = ctx;

	if (level == BTRFS_REPORT_ERROR)
		cmd_error("%s", msg);
	else if (level == BTRFS_REPORT_WARNING)
		cmd_warning("%s", msg);
	else if (p && p->verbosity >= 2)
		fprintf(stderr, "%s\n", msg);
}

/*
 * With -U every other UUID follows from it, so that equal inputs give
 * equal images: sha256 of the fsid and a label naming the UUID's role,
 * shaped as a random (version 4) UUID.
 */
static void derive_uuid(const u8 *fsid, const char *role, u8 *out)
{
	u8 in[BTRFS_FSID_SIZE + 32], digest[BTRFS_CSUM_SIZE];
	size_t len = strlen(role);

	memcpy(in, fsid, BTRFS_FSID_SIZE);
	memcpy(in + BTRFS_FSID_SIZE, role, len);
	btrfs_csum_data(BTRFS_CSUM_TYPE_SHA256, in, BTRFS_FSID_SIZE + len, digest);
	memcpy(out, digest, BTRFS_UUID_SIZE);
	out[6] = (u8)((out[6] & 0x0f) | 0x40);
	out[8] = (u8)((out[8] & 0x3f) | 0x80);
}

static void set_identities(const struct mkfs_params *p, struct mkfs_geometry *g,
			   struct btrfs_create_params *cp)
{
	char role[32];
	int i;

	if (p->fsid_given)
		memcpy(cp->fsid, p->fsid, BTRFS_FSID_SIZE);
	else
		uuid_generate(cp->fsid);
	if (p->fsid_given) {
		derive_uuid(cp->fsid, "chunk-tree", cp->chunk_tree_uuid);
		derive_uuid(cp->fsid, "subvol-5", cp->fs_tree_uuid);
	} else {
		uuid_generate(cp->chunk_tree_uuid);
		uuid_generate(cp->fs_tree_uuid);
	}
	for (i = 0; i < g->nr_devs; i++) {
		snprintf(role, sizeof(role), "device-%d", i + 1);
		if (i == 0 && p->dev_uuid_given)
			memcpy(g->devs[i].uuid, p->dev_uuid, BTRFS_UUID_SIZE);
		else if (p->fsid_given)
			derive_uuid(cp->fsid, role, g->devs[i].uuid);
		else
			uuid_generate(g->devs[i].uuid);
	}
	memcpy(cp->label, p->label, sizeof(cp->label));
	/* SOURCE_DATE_EPOCH or now; mkfs.btrfs stamps whole seconds */
	cp->now_sec = p->now_sec;
	cp->now_nsec = 0;
}

static void add_chunk_request(struct btrfs_create_params *cp,
			      const struct mkfs_chunk_plan *plan)
{
	struct btrfs_chunk_request *req = &cp->chunks[cp->nr_chunks++];

	memset(req, 0, sizeof(*req));
	req->type = plan->type;
	req->stripe_size = plan->stripe_size;
	req->nr_devs = plan->num_stripes /
		       ((plan->type & BTRFS_BLOCK_GROUP_DUP) ? 2 : 1);
}

/*
 * The first chunks exactly as geometry.c planned them, where mkfs.btrfs
 * puts them.  It starts with single bootstrap chunks at fixed places of
 * the first device (mkfs_bootstrap_start()) and keeps those whose profile
 * is single; the others come after the bootstrap area, each group as
 * system, metadata, data.  The bootstrap places it drops stay free, and
 * the kernel needs such small holes: relocating the last chunks (a full
 * balance of a small filesystem) can need a new metadata chunk after data
 * chunks took every large hole.  Devices too small for that get the
 * chunks packed from the first megabyte.
 */
static void set_chunks(const struct mkfs_params *p, const struct mkfs_geometry *g,
		       struct btrfs_create_params *cp)
{
	u64 next = mkfs_bootstrap_end(p);
	int pass, i;

	cp->nr_chunks = 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < MKFS_NR_CHUNKS; i++) {
			const struct mkfs_chunk_plan *plan = &g->chunks[i];
			bool single = !(plan->type & BTRFS_BLOCK_GROUP_PROFILE_MASK);
			struct btrfs_chunk_request *req;

			if (!plan->length || single != (pass == 0))
				continue;
			req = &cp->chunks[cp->nr_chunks];
			add_chunk_request(cp, plan);
			if (!g->bootstrap_layout)
				continue;
			if (single) {
				/* a data chunk grown for --rootdir may pass the area */
				req->logical = mkfs_bootstrap_start(p, i);
				req->min_physical = req->logical;
				if (req->logical + plan->length > next)
					next = req->logical + plan->length;
				continue;
			}
			req->logical = next;
			req->first_dev_min_physical = mkfs_bootstrap_end(p);
			next += plan->length;
		}
	}
	cp->system_profile = p->meta_profile;
	cp->metadata_profile = p->meta_profile;
	cp->data_profile = p->data_profile;
}

static void fill_create_params(const struct mkfs_params *p,
			      struct mkfs_geometry *g,
			      struct btrfs_create_params *cp,
			      struct btrfs_create_device *devs)
{
	int i;

	memset(cp, 0, sizeof(*cp));
	memset(devs, 0, sizeof(*devs) * (size_t)g->nr_devs);
	set_identities(p, g, cp);
	cp->nodesize = p->nodesize;
	cp->sectorsize = p->sectorsize;
	cp->csum_type = p->csum_type;
	cp->incompat_flags = g->incompat;
	cp->compat_ro_flags = g->compat_ro;
	for (i = 0; i < g->nr_devs; i++) {
		devs[i].path = g->devs[i].path;
		devs[i].fd = g->devs[i].fd;
		devs[i].total_bytes = g->devs[i].size;
		memcpy(devs[i].uuid, g->devs[i].uuid, BTRFS_UUID_SIZE);
	}
	cp->nr_devices = g->nr_devs;
	cp->devices = devs;
	set_chunks(p, g, cp);
	/*
	 * --rootdir appends to the trees: recently written blocks are all it
	 * reads back, so a small cache keeps the memory flat however big the
	 * tree (the dirty blocks of one commit interval come on top).
	 */
	if (p->rootdir.path)
		cp->cache_budget = 16ULL << 20;
	cp->reporter.report = report_to_stderr;
	cp->reporter.ctx = (void *)p;
}

/*
 * Quota: the quota tree with its status item (on, consistent) and the
 * qgroup of the top subvolume, which holds exactly the fs tree's one leaf.
 */
static int create_quota_tree(struct btrfs_trans_handle *trans, u32 nodesize)
{
	struct btrfs_qgroup_status_item status;
	struct btrfs_qgroup_info_item info;
	struct btrfs_qgroup_limit_item limit;
	struct btrfs_root *root;
	struct btrfs_key key;
	int ret;

	ret = btrfs_create_tree(trans, BTRFS_QUOTA_TREE_OBJECTID, &root);
	if (ret)
		return ret;
	/* the 32-byte item of btrfs-progs and kernels before simple quotas */
	memset(&status, 0, sizeof(status));
	btrfs_set_qgroup_status_version(&status, BTRFS_QGROUP_STATUS_VERSION);
	btrfs_set_qgroup_status_generation(&status, trans->transid);
	btrfs_set_qgroup_status_flags(&status, BTRFS_QGROUP_STATUS_FLAG_ON);
	key.objectid = 0;
	key.type = BTRFS_QGROUP_STATUS_KEY;
	key.offset = 0;
	ret = btrfs_insert_item(trans, root, &key, &status,
				offsetof(struct btrfs_qgroup_status_item,
					 enable_gen));
	if (ret)
		return ret;

	memset(&info, 0, sizeof(info));
	btrfs_set_qgroup_info_generation(&info, trans->transid);
	btrfs_set_qgroup_info_rfer(&info, nodesize);
	btrfs_set_qgroup_info_rfer_cmpr(&info, nodesize);
	btrfs_set_qgroup_info_excl(&info, nodesize);
	btrfs_set_qgroup_info_excl_cmpr(&info, nodesize);
	key.type = BTRFS_QGROUP_INFO_KEY;
	key.offset = BTRFS_FS_TREE_OBJECTID;
	ret = btrfs_insert_item(trans, root, &key, &info, sizeof(info));
	if (ret)
		return ret;

	memset(&limit, 0, sizeof(limit));
	key.type = BTRFS_QGROUP_LIMIT_KEY;
	return btrfs_insert_item(trans, root, &key, &limit, sizeof(limit));
}

static int kind_of(u64 flags)
{
	if (flags & BTRFS_BLOCK_GROUP_SYSTEM)
		return MKFS_CHUNK_SYSTEM;
	if (flags & BTRFS_BLOCK_GROUP_METADATA)
		return MKFS_CHUNK_METADATA;
	return MKFS_CHUNK_DATA;
}

/* what the summary reports: the block groups as the engine made them */
static void collect_result(struct btrfs_fs_info *fs, struct mkfs_result *res)
{
	size_t i, nr = btrfs_nr_block_groups(fs);

	memcpy(res->fsid, fs->fsid, BTRFS_FSID_SIZE);
	memcpy(res->chunk_tree_uuid, fs->chunk_tree_uuid, BTRFS_UUID_SIZE);
	res->generation = btrfs_super_generation(&fs->super_copy);
	res->bytes_used = btrfs_super_bytes_used(&fs->super_copy);
	for (i = 0; i < nr; i++) {
		struct btrfs_block_group *bg = btrfs_block_group_nr(fs, i);
		int k = kind_of(bg->flags);

		res->chunk_bytes[k] += bg->length;
		res->chunk_type[k] = bg->flags;
	}
}

/*
 * After a failure: zero the superblock copies of every device, through
 * fresh file descriptors (the engine closed its own and refuses to write
 * after an abort).  Only the magic matters, but the whole copy goes.
 */
static void wipe_after_failure(const struct mkfs_geometry *g)
{
	static const u8 zero[BTRFS_SUPER_INFO_SIZE];
	int i, mirror, fd;

	for (i = 0; i < g->nr_devs; i++) {
		fd = open(g->devs[i].path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (mirror = 0; mirror < BTRFS_SUPER_MIRROR_MAX; mirror++) {
			u64 off = btrfs_sb_offset(mirror);

			if (off + BTRFS_SUPER_INFO_SIZE > g->devs[i].size)
				break;
			if (pwrite(fd, zero, sizeof(zero), (off_t)off) !=
			    (ssize_t)sizeof(zero))
				cmd_warning("cannot clear the superblock at %llu of %s: %m",
					     (unsigned long long)off,
					     g->devs[i].path);
		}
		fsync(fd);
		close(fd);
	}
}

static int commit_and_restart(struct btrfs_fs_info *fs, struct btrfs_trans_handle **trans)
{
	int ret = btrfs_commit_transaction(*trans);

	*trans = NULL;
	if (!ret)
		ret = btrfs_start_transaction(fs, trans);
	return ret;
}

/* truncate image files to the shrunk device size (after the last commit) */
static int truncate_images(const struct mkfs_geometry *g, u64 size)
{
	int i;

	for (i = 0; i < g->nr_devs; i++) {
		if (g->devs[i].is_blockdev)
			continue;
		if (truncate(g->devs[i].path, (off_t)size)) {
			cmd_error("cannot truncate %s to %llu bytes: %m", g->devs[i].path,
				  (unsigned long long)size);
			return -errno;
		}
	}
	return 0;
}

static int populate(const struct mkfs_params *p, struct mkfs_geometry *g,
		    struct btrfs_fs_info *fs, struct btrfs_trans_handle **trans,
		    struct mkfs_result *res)
{
	struct rootdir_image image = { 0, 0 };
	struct stat st;
	int ret;

	if (!g->devs[0].is_blockdev && !stat(g->devs[0].path, &st)) {
		image.dev = st.st_dev;
		image.ino = st.st_ino;
	}
	/* -v lists the files on stdout, which holds only JSON with --format json */
	ret = rootdir_populate(fs, trans, &p->rootdir, &g->scan, &image,
			       p->format == MKFS_FORMAT_JSON && p->verbosity > 1 ? 1 : p->verbosity,
			       &res->rootdir);
	if (ret == -ENOSPC)
		cmd_error("not enough space for --rootdir %s: the tree needs about %llu bytes per device",
			  p->rootdir.path, (unsigned long long)g->rootdir_need);
	else if (ret)
		cmd_error("cannot copy --rootdir %s: %s", p->rootdir.path, strerror(-ret));
	if (!ret && (p->features[MKFS_FEAT_QUOTA] || p->rootdir.shrink))
		ret = commit_and_restart(fs, trans);
	if (!ret && p->features[MKFS_FEAT_QUOTA]) {
		ret = mkfs_fill_qgroups(*trans, res->rootdir.subvols);
		if (ret)
			cmd_error("cannot set the quota groups of the subvolumes: %s",
				  strerror(-ret));
	}
	if (!ret && p->rootdir.shrink) {
		ret = btrfs_shrink_devices_to_used(fs);
		if (ret)
			cmd_error("cannot shrink the devices: %s", strerror(-ret));
		else
			res->shrunk_size = fs->devices[0].total_bytes;
	}
	return ret;
}

static int build(const struct mkfs_params *p, struct mkfs_geometry *g,
		 struct btrfs_create_params *cp, struct mkfs_result *res)
{
	struct btrfs_fs_info *fs = NULL;
	struct btrfs_trans_handle *trans = NULL;
	int ret;

	ret = btrfs_create_fs(cp, &fs, &trans);
	if (ret) {
		cmd_error("cannot create the filesystem: %s", strerror(-ret));
		return ret;
	}
	if (p->features[MKFS_FEAT_QUOTA]) {
		ret = create_quota_tree(trans, p->nodesize);
		if (ret) {
			cmd_error("cannot create the quota tree: %s",
				   strerror(-ret));
			btrfs_abort_transaction(trans, ret);
			goto out;
		}
	}
	if (p->rootdir.path) {
		ret = populate(p, g, fs, &trans, res);
		if (ret) {
			if (trans)
				btrfs_abort_transaction(trans, ret);
			goto out;
		}
	}
	ret = btrfs_create_fs_finish(trans);
	if (ret) {
		cmd_error("cannot commit the new filesystem: %s",
			   strerror(-ret));
		goto out;
	}
	collect_result(fs, res);
out:
	close_ctree(fs);
	if (!ret && res->shrunk_size) {
		g->devs[0].size = res->shrunk_size;
		g->total_bytes = res->shrunk_size;
		ret = truncate_images(g, res->shrunk_size);
	}
	return ret;
}

int mkfs_create(const struct mkfs_params *p, struct mkfs_geometry *g,
		struct mkfs_result *res)
{
	struct btrfs_create_device devs[MKFS_MAX_DEVICES];
	struct btrfs_create_params *cp;
	int i, ret;

	cp = calloc(1, sizeof(*cp));
	if (!cp) {
		cmd_error("out of memory");
		return -ENOMEM;
	}
	ret = mkfs_wipe_devices(g);
	if (ret) {
		wipe_after_failure(g);
		free(cp);
		return ret;
	}
	fill_create_params(p, g, cp, devs);
	/* from here on the engine owns (and closes) the descriptors */
	for (i = 0; i < g->nr_devs; i++)
		g->devs[i].fd = -1;
	ret = build(p, g, cp, res);
	if (ret)
		wipe_after_failure(g);
	free(cp);
	return ret;
}
