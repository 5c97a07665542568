// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 7: the record of the inode being streamed and the checks that
 * need only its own items.
 *
 * The INODE_ITEM sorts first among an inode's items, so its mode, link
 * count and sizes are known before the refs, dir entries and file extents
 * that follow; those add what they found to the record, and when the next
 * inode starts the totals are compared with what the inode item claims:
 *  - mode: permission bits and one of the POSIX file types, nothing else;
 *  - flags: only the BTRFS_INODE_* bits the kernel knows (low 32 bits)
 *    and read-only compat bits (high 32 bits); no IMMUTABLE or APPEND on a
 *    symlink (no system call can set them there);
 *  - generation and transid not beyond the superblock's next transaction;
 *  - link count: a file has one link per inode ref and extref entry; a
 *    directory has exactly one name and nlink 1;
 *  - nlink 0 is valid only with an orphan item: the kernel finishes
 *    deleting such an inode at the next mount, so whatever is left of it
 *    (names in an unlinked directory, extents of a half-truncated file) is
 *    not judged;
 *  - a directory's size is the sum of the name lengths of its dir items
 *    and dir indexes (each name counts twice);
 *  - the tree's root directory (root_dirid of its root item) exists and
 *    is a directory; its ".." inode ref names itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "fs-trees.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/inode.h"

/* the bits BTRFS_INODE_* define in the low half of the flags */
#define FS_INODE_KNOWN_FLAGS \
	(BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW | BTRFS_INODE_READONLY | \
	 BTRFS_INODE_NOCOMPRESS | BTRFS_INODE_PREALLOC | BTRFS_INODE_SYNC | \
	 BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND | BTRFS_INODE_NODUMP | \
	 BTRFS_INODE_NOATIME | BTRFS_INODE_DIRSYNC | BTRFS_INODE_COMPRESS | \
	 BTRFS_INODE_ROOT_ITEM_INIT)
/* and in the high half: read-only compatible flags */
#define FS_INODE_KNOWN_RO_FLAGS	BTRFS_INODE_RO_VERITY

bool fs_tree_is_orphan(const struct fs_tree *t, u64 ino)
{
	size_t lo = 0, hi = t->nr_orphans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->orphans[mid] < ino)
			lo = mid + 1;
		else if (t->orphans[mid] > ino)
			hi = mid;
		else
			return true;
	}
	return false;
}

void fs_inode_begin(struct fs_tree *t, u64 ino)
{
	memset(&t->ino, 0, sizeof(t->ino));
	t->ino.ino = ino;
}

static void report_inode(struct fs_tree *t, enum problem_code code,
			 const char *detail, u64 found, u64 expected)
{
	fs_problem(t, code, &(struct problem_ctx){
		.root = t->root_id, .inode = t->ino.ino, .detail = detail,
		.found = found, .expected = expected });
}

static bool mode_type_valid(u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
	case S_IFDIR:
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
	case S_IFLNK:
		return true;
	}
	return false;
}

static void check_mode(struct fs_tree *t)
{
	u32 mode = t->ino.mode;
	char detail[64];

	if (!(mode & ~(u32)(S_IFMT | 07777)) && mode_type_valid(mode))
		return;
	t->ino.bad_mode = true;
	snprintf(detail, sizeof(detail), "0%o", mode);
	report_inode(t, PR_INODE_MODE_INVALID, detail, 0, 0);
}

static void check_flags(struct fs_tree *t)
{
	u64 flags = t->ino.flags;
	u32 low = (u32)flags, ro = (u32)(flags >> 32);
	char detail[128];

	if (low & ~(u32)FS_INODE_KNOWN_FLAGS)
		snprintf(detail, sizeof(detail), "0x%" PRIx64 ": unknown flags 0x%x",
			 flags, low & ~(u32)FS_INODE_KNOWN_FLAGS);
	else if (ro & ~(u32)FS_INODE_KNOWN_RO_FLAGS)
		snprintf(detail, sizeof(detail), "0x%" PRIx64 ": unknown read-only flags 0x%x",
			 flags, ro & ~(u32)FS_INODE_KNOWN_RO_FLAGS);
	else if (S_ISLNK(t->ino.mode) &&
		 (low & (BTRFS_INODE_IMMUTABLE | BTRFS_INODE_APPEND)))
		snprintf(detail, sizeof(detail), "0x%" PRIx64 ": IMMUTABLE or APPEND on a symlink",
			 flags);
	else
		return;
	report_inode(t, PR_INODE_FLAGS_INVALID, detail, 0, 0);
}

static void check_generation(struct fs_tree *t)
{
	u64 limit = t->super_gen + 1;
	char detail[160];

	if (t->ino.generation <= limit && t->ino.transid <= limit)
		return;
	snprintf(detail, sizeof(detail),
		 "generation %" PRIu64 " transid %" PRIu64 ", expect at most %" PRIu64,
		 t->ino.generation, t->ino.transid, limit);
	report_inode(t, PR_INODE_GENERATION_INVALID, detail, 0, 0);
}

void fs_inode_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot)
{
	const struct btrfs_inode_item *ii =
		btrfs_item_ptr(leaf, slot, struct btrfs_inode_item);
	struct fs_inode *in = &t->ino;

	in->has_item = true;
	in->mode = btrfs_inode_mode(ii);
	in->nlink = btrfs_inode_nlink(ii);
	in->size = btrfs_inode_size(ii);
	in->nbytes = btrfs_inode_nbytes(ii);
	in->flags = btrfs_inode_flags(ii);
	in->generation = btrfs_inode_generation(ii);
	in->transid = btrfs_inode_transid(ii);
	in->orphan = in->nlink == 0 && fs_tree_is_orphan(t, in->ino);
	check_mode(t);
	check_flags(t);
	check_generation(t);
}

/*
 * Xattrs share the dir item layout (phase 3 checked it fits the item):
 * each needs a name, and the item is keyed by the hash of the names it
 * holds.
 */
void fs_xattr_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		   const struct btrfs_key *key)
{
	struct btrfs_name_entry e = { 0 };
	char name[64], detail[96];

	while (btrfs_next_item_name(leaf, slot, &e) > 0) {
		u32 name_len = e.name_len;
		const char *n = (const char *)e.name;
		u32 hash;

		snprintf(name, sizeof(name), "%.*s", (int)(name_len < 48 ? name_len : 48), n);
		if (!name_len) {
			fs_problem(t, PR_XATTR_INVALID, &(struct problem_ctx){
				.root = t->root_id, .inode = t->ino.ino, .name = "",
				.detail = "empty name" });
		} else if ((hash = (u32)btrfs_name_hash(n, name_len)) != key->offset) {
			snprintf(detail, sizeof(detail),
				 "key offset %" PRIu64 " is not the name hash %u",
				 key->offset, hash);
			fs_problem(t, PR_XATTR_INVALID, &(struct problem_ctx){
				.root = t->root_id, .inode = t->ino.ino, .name = name,
				.detail = detail });
		}
	}
}

static void check_dir_links(struct fs_tree *t)
{
	struct fs_inode *in = &t->ino;

	if (in->nlink != 1)
		report_inode(t, PR_DIR_NLINK, NULL, in->nlink, 1);
	if (in->nr_refs != 1)
		report_inode(t, PR_DIR_REFS, NULL, in->nr_refs, 1);
	if (in->size != in->dir_names)
		report_inode(t, PR_DIR_ISIZE, NULL, in->size, in->dir_names);
}

static void check_links(struct fs_tree *t)
{
	struct fs_inode *in = &t->ino;

	if (in->nlink == 0 && !in->orphan) {
		report_inode(t, PR_INODE_NO_ORPHAN, NULL, 0, 0);
		return;
	}
	if (in->orphan && in->nr_refs == 0)
		return;		/* being deleted */
	if (S_ISDIR(in->mode) && !in->bad_mode)
		check_dir_links(t);
	else if (in->nlink != in->nr_refs)
		report_inode(t, PR_INODE_NLINK, NULL, in->nlink, in->nr_refs);
}

void fs_inode_finish(struct fs_tree *t)
{
	struct fs_inode *in = &t->ino;

	fs_dir_finish(t);
	if (!in->ino)
		return;
	if (in->ino == t->root_dirid) {
		t->root_dir_seen = true;
		if (in->has_item && !in->bad_mode && !S_ISDIR(in->mode))
			report_inode(t, PR_INODE_INVALID, "the tree's root directory is not a directory",
				     0, 0);
	}
	if (!in->has_item) {
		if (!in->damaged)
			report_inode(t, PR_INODE_ITEM_MISSING, "other items exist for it", 0, 0);
		return;
	}
	if (in->damaged)
		return;		/* phase 3 reported an item; totals would mislead */
	if (!t->light)
		check_links(t);
	fs_extents_finish(t);
}
