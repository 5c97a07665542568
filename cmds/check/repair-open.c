// SPDX-License-Identifier: GPL-2.0
/*
 * ghee check through another superblock copy or root (-s, -b, -r,
 * --chunk-root), and the repair from one.
 *
 * The check and the repair open the filesystem the same way.  The repair
 * makes the chosen state the current one: its first commit changes
 * nothing but writes every superblock copy from it, with a generation
 * above any on disk, so the primary is valid again and tools that take
 * the newest copy take this one.  The generations newer than the chosen
 * tree root are abandoned: nothing of them is read (a backup slot brings
 * its own chunk root; a chunk root newer than the tree root is refused;
 * their log tree is dropped), and their blocks, free space to the chosen
 * extent tree, may be reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "repair-open.h"
#include "kernel-shared/dev-overlay.h"
#include "kernel-shared/extent-tree.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/extent-io-tree.h"
#include "kernel-shared/transaction.h"

bool check_source_given(const struct check_options *o)
{
	return o->super_mirror > 0 || o->use_backup_roots || o->tree_root ||
	       o->chunk_root;
}

static void quiet_report(void *data, enum btrfs_report_level level, const char *msg)
{
	(void)data;
	(void)level;
	(void)msg;
}

struct btrfs_fs_info *check_source_open(const struct check_options *o,
					struct open_ctree_args *args, int *slot,
					int *err, char *msg, size_t len)
{
	struct open_ctree_args probe_args = *args;
	struct btrfs_super_block sb;
	struct btrfs_fs_info *fs;
	int order[BTRFS_NUM_BACKUP_ROOTS], n = 0, i, j;

	args->super_bytenr = o->super_mirror >= 0 ? btrfs_sb_offset(o->super_mirror) : 0;
	args->tree_root_bytenr = o->tree_root;
	args->chunk_root_bytenr = o->chunk_root;
	args->backup_root = -1;
	*slot = -1;
	if (!o->use_backup_roots && !(o->tree_root && !o->chunk_root))
		return open_ctree(args, err);

	/* the slots of the chosen superblock copy */
	probe_args = *args;
	probe_args.flags = OPEN_CTREE_SUPER_ONLY;
	probe_args.reporter = (struct btrfs_reporter){ quiet_report, NULL };
	fs = open_ctree(&probe_args, err);
	if (!fs)
		return open_ctree(args, err);	/* the same failure, reported */
	sb = fs->super_copy;
	close_ctree(fs);
	if (!o->use_backup_roots) {
		/* -r of a backup slot's tree root: that slot's chunk root with it */
		for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
			if (btrfs_backup_tree_root(&sb.super_roots[i]) == o->tree_root)
				args->chunk_root_bytenr =
					btrfs_backup_chunk_root(&sb.super_roots[i]);
		}
		return open_ctree(args, err);
	}
	/* newest first */
	for (i = 0; i < BTRFS_NUM_BACKUP_ROOTS; i++) {
		u64 gen = btrfs_backup_tree_root_gen(&sb.super_roots[i]);

		if (!btrfs_backup_tree_root(&sb.super_roots[i]))
			continue;
		for (j = n; j > 0 &&
		     btrfs_backup_tree_root_gen(&sb.super_roots[order[j - 1]]) < gen; j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	for (i = 0; i < n; i++) {
		const struct btrfs_root_backup *b = &sb.super_roots[order[i]];

		args->backup_root = order[i];
		/* the chunk tree of the same commit, not a newer one */
		if (!o->chunk_root)
			args->chunk_root_bytenr = btrfs_backup_chunk_root(b);
		fs = open_ctree(args, err);
		if (fs) {
			*slot = order[i];
			return fs;
		}
	}
	if (!n) {
		*err = -ENOENT;
		snprintf(msg, len, "no usable backup root in the superblock");
	}
	return NULL;
}

/* newest generation of a valid superblock copy on any device; the primary's */
static u64 newest_super_gen(const struct check_options *o,
			    struct btrfs_super_block *primary, bool *primary_ok)
{
	struct btrfs_super_block sb;
	u64 newest = 0;
	int d, m;

	*primary_ok = false;
	for (d = 0; d < o->nr_devices; d++) {
		int fd = open(o->devices[d], O_RDONLY);

		if (fd < 0)
			continue;
		for (m = 0; m < BTRFS_SUPER_MIRROR_MAX; m++) {
			if (btrfs_read_super_raw(fd, btrfs_sb_offset(m), &sb) ||
			    btrfs_super_magic(&sb) != BTRFS_MAGIC ||
			    !btrfs_super_csum_ok(&sb) ||
			    btrfs_super_bytenr(&sb) != btrfs_sb_offset(m))
				continue;
			if (btrfs_super_generation(&sb) > newest)
				newest = btrfs_super_generation(&sb);
			if (d == 0 && m == 0) {
				*primary = sb;
				*primary_ok = true;
			}
		}
		close(fd);
	}
	return newest;
}

static void describe(const struct check_options *o, int slot, u64 tree_bytenr,
		     struct repair_source *src)
{
	char copy[32] = "";

	if (o->super_mirror > 0)
		snprintf(copy, sizeof(copy), "superblock copy %d", o->super_mirror);
	if (slot >= 0)
		snprintf(src->what, sizeof(src->what), "backup root slot %d%s%s",
			 slot, copy[0] ? " of " : "", copy);
	else if (o->tree_root)
		snprintf(src->what, sizeof(src->what), "the tree root at %llu%s%s",
			 (unsigned long long)tree_bytenr, copy[0] ? " with " : "", copy);
	else if (copy[0])
		snprintf(src->what, sizeof(src->what), "%s", copy);
	else
		snprintf(src->what, sizeof(src->what), "the chunk root at %llu",
			 (unsigned long long)o->chunk_root);
}

static bool confirm_source(const struct check_options *o, const struct repair_source *src)
{
	char answer[16];

	if (o->assume_yes || o->dry_run)
		return true;
	if (!isatty(STDIN_FILENO)) {
		fprintf(stderr, "ghee check: a repair from %s rewrites every superblock copy%s; add -y or --force to do it without a terminal\n",
			src->what, src->tree_gen < src->newest_gen ?
			" and abandons newer generations" : "");
		return false;
	}
	fprintf(stderr, "Repair from %s (tree root generation %llu)? Every superblock copy is rewritten from it",
		src->what, (unsigned long long)src->tree_gen);
	if (src->tree_gen < src->newest_gen)
		fprintf(stderr, "; generations %llu to %llu are abandoned, what they changed is lost%s",
			(unsigned long long)src->tree_gen + 1,
			(unsigned long long)src->newest_gen,
			src->drops_log ? " (their log tree too)" : "");
	fprintf(stderr, ". [y/N] ");
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

bool repair_source_prepare(const struct check_options *o, struct repair_source *src)
{
	struct open_ctree_args args = {
		.paths = o->devices, .nr_paths = o->nr_devices,
		.flags = OPEN_CTREE_PARTIAL,
		.reporter = { quiet_report, NULL },
	};
	struct btrfs_super_block primary;
	struct btrfs_fs_info *fs;
	bool primary_ok;
	char msg[128] = "";
	int slot, err = 0;
	u64 root, chunk;

	memset(src, 0, sizeof(*src));
	if (!check_source_given(o))
		return true;
	fs = check_source_open(o, &args, &slot, &err, msg, sizeof(msg));
	if (!fs)
		return true;	/* the check says why; nothing is written */
	src->given = true;
	root = fs->tree_root.node->start;
	chunk = fs->chunk_root.node ? fs->chunk_root.node->start : 0;
	src->tree_gen = btrfs_eb_generation(fs->tree_root.node);
	src->chunk_gen = fs->chunk_root.node ? btrfs_eb_generation(fs->chunk_root.node) : 0;
	src->newest_gen = newest_super_gen(o, &primary, &primary_ok);
	src->drops_log = src->tree_gen < src->newest_gen &&
			 btrfs_super_log_root(&fs->super_copy);
	src->differs = !primary_ok || btrfs_super_root(&primary) != root ||
		       btrfs_super_chunk_root(&primary) != chunk ||
		       btrfs_super_generation(&primary) != src->tree_gen ||
		       memcmp(primary.sys_chunk_array, fs->super_copy.sys_chunk_array,
			      sizeof(primary.sys_chunk_array));
	describe(o, slot, root, src);
	close_ctree(fs);
	if (!src->differs)
		return true;	/* the primary leads to the same state: nothing to adopt */
	return confirm_source(o, src);
}

int repair_source_apply(struct btrfs_fs_info *fs, const struct check_options *o,
			struct repair_source *src)
{
	struct btrfs_super_block *sb = &fs->super_copy;
	struct btrfs_super_block primary;
	bool primary_ok;
	u64 tree_gen, chunk_gen, gen;

	if (!src->given || !src->differs)
		return 0;
	tree_gen = btrfs_eb_generation(fs->tree_root.node);
	chunk_gen = btrfs_eb_generation(fs->chunk_root.node);
	if (chunk_gen > tree_gen) {
		fprintf(stderr, "ERROR: the chunk root at %llu (generation %llu) is newer than the tree root at %llu (generation %llu): it belongs to a generation the repair would abandon; give the chunk root of generation %llu or older with --chunk-root (ghee dump-super -f lists the backup roots)\n",
			(unsigned long long)fs->chunk_root.node->start,
			(unsigned long long)chunk_gen,
			(unsigned long long)fs->tree_root.node->start,
			(unsigned long long)tree_gen, (unsigned long long)tree_gen);
		return -EINVAL;
	}
	src->newest_gen = newest_super_gen(o, &primary, &primary_ok);
	if (tree_gen < src->newest_gen && btrfs_super_log_root(sb)) {
		/* a log is replayed over the commit it follows, not an older one */
		btrfs_set_super_log_root(sb, 0);
		btrfs_set_super_log_root_level(sb, 0);
		src->drops_log = true;
	}
	/*
	 * Every block the chosen trees reach is of tree_gen or older; the
	 * commits to come are newer than anything on disk, abandoned or not.
	 */
	gen = btrfs_super_generation(sb);
	if (tree_gen > gen)
		gen = tree_gen;
	if (chunk_gen > gen)
		gen = chunk_gen;
	if (src->newest_gen > gen)
		gen = src->newest_gen;
	btrfs_set_super_generation(sb, gen);
	fs->generation = gen;
	return 0;
}

/* ---- the abandoned generations stay on disk until the repair ends ---- */

struct protect {
	struct btrfs_fs_info *fs;
	u64 min_gen;		/* blocks of this generation or older are chosen ones */
	u64 blocks;
};

/* out of allocation until close (the write state keeps pins) */
static int protect_block(struct protect *pr, u64 bytenr)
{
	/* 1: in use by the chosen state, or outside every group */
	int ret = btrfs_pin_unused_range(pr->fs, bytenr, pr->fs->nodesize);

	if (!ret)
		pr->blocks++;
	return ret;
}

static int protect_tree(struct protect *pr, u64 bytenr, u64 gen, int level, int depth);

/* the trees a root tree leaf of the newer generation names */
static int protect_root_items(struct protect *pr, const struct extent_buffer *eb, int depth)
{
	u32 i, nr = btrfs_eb_nritems(eb);
	int ret;

	for (i = 0; i < nr; i++) {
		struct btrfs_root_item item;
		struct btrfs_key key;
		u32 size = btrfs_item_size(eb, (int)i);

		btrfs_item_key_to_cpu(eb, &key, (int)i);
		if (key.type != BTRFS_ROOT_ITEM_KEY || size < offsetof(struct btrfs_root_item, level) + 1)
			continue;
		memset(&item, 0, sizeof(item));
		memcpy(&item, btrfs_item_ptr_raw(eb, (int)i), size < sizeof(item) ? size : sizeof(item));
		ret = protect_tree(pr, btrfs_root_bytenr(&item), btrfs_root_generation(&item),
				   btrfs_root_level(&item), depth + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The blocks of one tree newer than pr->min_gen: the subtrees of older
 * generations are shared with the chosen state and in use anyway.  A
 * block that does not read is kept by its address alone.
 */
static int protect_tree(struct protect *pr, u64 bytenr, u64 gen, int level, int depth)
{
	struct tree_block_check check = { .transid = gen, .level = level };
	struct extent_buffer *eb;
	u32 i, nr;
	int ret, err = 0;

	if (!bytenr || gen <= pr->min_gen || depth > 2 * BTRFS_MAX_LEVEL)
		return 0;
	/* a block the chosen state uses is not one of the newer generation's */
	ret = protect_block(pr, bytenr);
	if (ret)
		return ret > 0 ? 0 : ret;
	eb = read_tree_block(pr->fs, bytenr, &check, &err);
	if (!eb)
		return 0;
	nr = btrfs_eb_nritems(eb);
	if (btrfs_eb_level(eb) == 0) {
		ret = btrfs_header_owner(eb_header(eb)) == BTRFS_ROOT_TREE_OBJECTID ?
		      protect_root_items(pr, eb, depth) : 0;
	} else {
		for (i = 0, ret = 0; i < nr && !ret; i++)
			ret = protect_tree(pr, btrfs_node_blockptr(eb, (int)i),
					   btrfs_node_ptr_generation(eb, (int)i),
					   btrfs_eb_level(eb) - 1, depth + 1);
	}
	free_extent_buffer(eb);
	return ret;
}

int repair_source_protect(struct btrfs_fs_info *fs, const struct check_options *o,
			  struct repair_source *src)
{
	struct protect pr = { .fs = fs, .min_gen = src->tree_gen };
	struct btrfs_super_block primary;
	bool primary_ok;
	int ret;

	if (!src->differs)
		return 0;
	newest_super_gen(o, &primary, &primary_ok);
	if (!primary_ok || btrfs_super_generation(&primary) <= src->tree_gen)
		return 0;
	ret = protect_tree(&pr, btrfs_super_root(&primary), btrfs_super_generation(&primary),
			   btrfs_super_root_level(&primary), 0);
	if (!ret)
		ret = protect_tree(&pr, btrfs_super_chunk_root(&primary),
				   btrfs_super_chunk_root_generation(&primary),
				   btrfs_super_chunk_root_level(&primary), 0);
	if (!ret && btrfs_super_log_root(&primary))
		ret = protect_tree(&pr, btrfs_super_log_root(&primary),
				   btrfs_super_generation(&primary) + 1,
				   btrfs_super_log_root_level(&primary), 0);
	src->protected_blocks = pr.blocks;
	return ret;
}

int repair_source_commit(struct btrfs_fs_info *fs, const struct repair_source *src,
			 FILE *out)
{
	struct btrfs_trans_handle *trans;
	u64 transid;
	int ret;

	ret = btrfs_start_transaction(fs, &trans);
	if (ret)
		return ret;
	transid = trans->transid;
	fs->write->super_dirty = true;
	ret = btrfs_commit_transaction(trans);
	if (ret) {
		if (out)
			fprintf(out, "ERROR: commit of transaction %llu failed: %s\n",
				(unsigned long long)transid, strerror(-ret));
		return ret;
	}
	if (!out)
		return 0;
	/* a dry run commits into the overlay: nothing reaches the device */
	if (btrfs_overlay_captures_all(fs->overlay))
		fprintf(out, "would commit transaction %llu: would write every superblock copy from %s (tree root generation %llu)\n",
			(unsigned long long)transid, src->what,
			(unsigned long long)src->tree_gen);
	else
		fprintf(out, "committed transaction %llu: every superblock copy written from %s (tree root generation %llu)\n",
			(unsigned long long)transid, src->what,
			(unsigned long long)src->tree_gen);
	if (src->tree_gen < src->newest_gen)
		fprintf(out, "  generations %llu to %llu abandoned%s\n",
			(unsigned long long)src->tree_gen + 1,
			(unsigned long long)src->newest_gen,
			src->drops_log ? ", with their log tree" : "");
	if (src->protected_blocks)
		fprintf(out, "  %llu tree blocks of the primary's generation kept unused until the repair ends\n",
			(unsigned long long)src->protected_blocks);
	return 0;
}

void repair_source_clear(struct check_options *o)
{
	o->super_mirror = -1;
	o->use_backup_roots = false;
	o->tree_root = 0;
	o->chunk_root = 0;
}
