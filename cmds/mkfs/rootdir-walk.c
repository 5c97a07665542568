// SPDX-License-Identifier: GPL-2.0
/*
 * The --rootdir walk.  Each directory is read whole, its names sorted
 * with strcmp(); its entries then get consecutive inode numbers in that
 * order and are created (inode, ref, xattrs, data, dir item and index),
 * and only then are its subdirectories walked, in the same order.  So
 * the inode numbers depend only on the names, and nearly every item goes
 * in at the end of the fs tree.
 *
 * State kept per file: none, except for files the host says have more
 * than one link (the hard-link map); per directory: its sorted listing
 * while its subdirectories are walked.  The transaction is committed
 * every ROOTDIR_COMMIT_INODES inodes, and sooner when its dirty tree
 * blocks reach ROOTDIR_COMMIT_DIRTY bytes, to bound the memory held by
 * dirty tree blocks and queued extent refs (both counts depend only on
 * the tree, so the commits fall at the same places in every run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include "rootdir-internal.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/file-item.h"
#include "cmds/commands.h"
#include "cmds/check/progress.h"

#define ROOTDIR_COMMIT_INODES	16384
#define ROOTDIR_COMMIT_DIRTY	(16ULL << 20)

struct walk {
	struct btrfs_fs_info *fs;
	struct btrfs_trans_handle **trans;
	struct btrfs_root *root;
	const struct mkfs_rootdir_opts *o;
	const struct rootdir_image *image;
	struct rootdir_src src;
	struct rootdir_data_ctx dc;
	struct rootdir_links links;
	struct rootdir_links *xattr_inodes;	/* the pre-scan's, NULL: ask all */
	struct rootdir_stats *stats;
	u64 next_ino;
	u64 top_dev;
	u64 dir_flags;		/* --inode-flags the current directory passes on */
	u64 cur_flags;		/* those of the entry being created */
	u64 since_commit;
	int verbosity;
	u32 max_symlink;
	struct rootdir_path path;
	struct check_progress progress;
	u64 progress_total;
};

static int read_listing(struct walk *w, long dir, struct rootdir_names *l)
{
	int ret;

	memset(l, 0, sizeof(*l));
	ret = w->src.list(&w->src, dir, w->path.s, rootdir_names_add, l);
	if (!ret)
		rootdir_names_sort(l);
	return ret;
}

static int commit_now(struct walk *w)
{
	int ret;

	w->since_commit = 0;
	/* --compress: the pending pieces belong to this transaction */
	ret = rootdir_data_flush(&w->dc);
	if (ret)
		return ret;
	ret = btrfs_commit_transaction(*w->trans);
	*w->trans = NULL;
	if (!ret)
		ret = btrfs_start_transaction(w->fs, w->trans);
	return ret;
}

static bool dirty_over_budget(const struct walk *w)
{
	return btrfs_trans_dirty_bytes(*w->trans) >= ROOTDIR_COMMIT_DIRTY;
}

static int commit_if_due(struct walk *w)
{
	if (++w->since_commit < ROOTDIR_COMMIT_INODES && !dirty_over_budget(w))
		return 0;
	return commit_now(w);
}

static u64 stx_dev(const struct statx *stx)
{
	return makedev(stx->stx_dev_major, stx->stx_dev_minor);
}

/* the entry's xattrs, unless the pre-scan found that it has none */
static int copy_xattrs(struct walk *w, u64 ino, long dir, const char *name, int fd,
		       const struct statx *stx)
{
	if (w->xattr_inodes && !rootdir_links_find(w->xattr_inodes, stx_dev(stx), stx->stx_ino))
		return 0;
	return w->src.xattrs(&w->src, *w->trans, w->root, ino, dir, name, fd, w->path.s,
			     &w->stats->xattrs);
}

static int insert_inode(struct walk *w, u64 ino, const struct statx *stx, u64 size,
			u64 nbytes)
{
	struct btrfs_inode_params ip;

	rootdir_inode_params(w->o, stx, false, &ip);
	ip.size = size;
	ip.nbytes = nbytes;
	if (S_ISDIR(stx->stx_mode))
		ip.flags = w->cur_flags;
	else if (S_ISREG(stx->stx_mode))
		ip.flags = (w->cur_flags & BTRFS_INODE_NODATACOW ?
			    w->cur_flags | BTRFS_INODE_NODATASUM : w->cur_flags) |
			   w->dc.file_flags;
	return btrfs_insert_inode(*w->trans, w->root, ino, &ip);
}

static int create_regular(struct walk *w, long dir, const char *name, u64 ino,
			  const struct statx *stx)
{
	struct statx after;
	u64 nbytes;
	int fd, ret;

	ret = w->src.open_file(&w->src, dir, name, w->path.s, &fd, &w->dc.base, &w->dc.pf);
	if (ret)
		return ret;
	w->dc.sealed = w->src.sealed;
	ret = copy_xattrs(w, ino, dir, name, fd, stx);
	/* nodatacow files have no checksums either, as the kernel keeps them */
	w->dc.nodatasum = w->cur_flags & (BTRFS_INODE_NODATASUM | BTRFS_INODE_NODATACOW);
	if (!ret)
		ret = rootdir_copy_file(&w->dc, *w->trans, w->root, ino, fd, w->path.s,
					stx->stx_size, &nbytes);
	/* a read that met end of file at the size has checked it already */
	if (!ret && !w->dc.eof_seen && !w->dc.sealed &&
	    (statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, &after) ||
	     after.stx_size != stx->stx_size)) {
		cmd_error("%s changed size while it was copied", w->path.s);
		ret = -ESTALE;
	}
	w->src.close_file(&w->src, dir, name, fd);
	/* after the data: nbytes is known only now */
	if (!ret)
		ret = insert_inode(w, ino, stx, stx->stx_size, nbytes);
	w->stats->regular++;
	return ret;
}

static int create_symlink(struct walk *w, long dir, const char *name, u64 ino,
			  const struct statx *stx)
{
	char target[PATH_MAX + 1];
	ssize_t len = w->src.readlink(&w->src, dir, name, w->path.s, target, sizeof(target));
	int ret;

	if (len < 0)
		return (int)len;
	if ((size_t)len > w->max_symlink || len >= PATH_MAX) {
		cmd_error("symlink %s: target of %zd bytes is longer than the %u an inline extent holds",
			  w->path.s, len, w->max_symlink);
		return -ENAMETOOLONG;
	}
	ret = insert_inode(w, ino, stx, (u64)len, (u64)len);
	if (!ret)
		ret = copy_xattrs(w, ino, dir, name, -1, stx);
	if (!ret && len)
		ret = btrfs_insert_inline_extent(*w->trans, w->root, ino, target, (u32)len,
						 (u64)len, BTRFS_COMPRESS_NONE);
	w->stats->symlinks++;
	return ret;
}

/* directories, fifos, sockets, devices: inode and xattrs */
static int create_other(struct walk *w, long dir, const char *name, u64 ino,
			const struct statx *stx)
{
	int ret = insert_inode(w, ino, stx, 0, 0);

	if (!ret)
		ret = copy_xattrs(w, ino, dir, name, -1, stx);
	if (S_ISDIR(stx->stx_mode))
		w->stats->dirs++;
	else
		w->stats->special++;
	return ret;
}

static int create_inode(struct walk *w, long dir, const char *name, u64 ino,
			const struct statx *stx)
{
	u32 mode = stx->stx_mode;

	if (w->verbosity >= 2)
		printf("ADD: %s\n", w->path.s);
	w->stats->inodes++;
	if (S_ISREG(mode))
		return create_regular(w, dir, name, ino, stx);
	if (S_ISLNK(mode))
		return create_symlink(w, dir, name, ino, stx);
	if (S_ISDIR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode) || S_ISCHR(mode) ||
	    S_ISBLK(mode))
		return create_other(w, dir, name, ino, stx);
	cmd_error("%s: unknown file type %o", w->path.s, mode & S_IFMT);
	return -EINVAL;
}

enum entry_kind {
	ENTRY_SKIPPED,		/* no entry at all: the image itself */
	ENTRY_OTHER,
	ENTRY_DIR,		/* walk it later, in the same tree */
	ENTRY_SUBVOL,		/* walk it later, into its own tree */
};

/* a --subvol directory: its own tree, an entry pointing at its root */
static int add_subvol(struct walk *w, long dir, u64 dir_ino, const char *name, u64 index,
		      const struct statx *stx, int idx, u64 *id)
{
	enum mkfs_subvol_type type = w->o->subvols[idx].type;
	struct btrfs_root *root;
	int ret;

	*id = BTRFS_FIRST_FREE_OBJECTID + w->stats->subvols;
	if (w->verbosity >= 2)
		printf("ADD: %s (subvolume %llu)\n", w->path.s, (unsigned long long)*id);
	ret = rootdir_make_subvol(*w->trans, w->o, w->root, dir_ino, name, index, *id,
				  type == MKFS_SUBVOL_RO || type == MKFS_SUBVOL_DEFAULT_RO,
				  stx, &w->src, dir, name, w->path.s, &root, &w->stats->xattrs);
	if (ret)
		return ret;
	w->stats->subvols++;
	w->stats->dirs++;
	w->stats->inodes++;
	if (type == MKFS_SUBVOL_DEFAULT || type == MKFS_SUBVOL_DEFAULT_RO)
		w->stats->default_subvol = *id;
	return 0;
}

/* --inode-flags naming the entry at the path */
static u64 path_flags(const struct walk *w)
{
	const char *rel = w->path.s + w->path.top_len + 1;
	u64 flags = 0;
	int i;

	for (i = 0; i < w->o->nr_iflags; i++) {
		if (!strcmp(w->o->iflags[i].rel, rel))
			flags |= w->o->iflags[i].flags;
	}
	return flags;
}

/*
 * The inode a name stands for: the one made for an earlier name of the
 * same host inode (hard links, only for files the host says have more
 * than one link), or the next inode number.  *@is_new: create it.
 */
static int resolve_inode(struct walk *w, const struct statx *stx, u64 *ino, bool *is_new)
{
	struct rootdir_link *link = NULL;
	bool linked = !S_ISDIR(stx->stx_mode) && stx->stx_nlink > 1;

	if (linked)
		link = rootdir_links_find(&w->links, stx_dev(stx), stx->stx_ino);
	*is_new = !link;
	if (link) {
		*ino = link->btrfs_ino;
		link->found++;
		w->stats->hardlinks++;
		return 0;
	}
	*ino = w->next_ino++;
	return linked ? rootdir_links_add(&w->links, stx_dev(stx), stx->stx_ino, *ino) : 0;
}

/* the name in its directory: inode ref (or extref), dir item and index */
static int link_entry(struct walk *w, u64 dir_ino, const char *name, u64 index, u64 ino,
		      u32 mode)
{
	struct btrfs_key loc = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	int len = (int)strlen(name);
	int ret;

	ret = btrfs_insert_inode_ref(*w->trans, w->root, name, len, ino, dir_ino, index);
	if (ret == -EOVERFLOW)
		cmd_error("%s: too many names for one inode in one directory (the extref feature is off)",
			  w->path.s);
	if (!ret)
		ret = btrfs_insert_dir_item(*w->trans, w->root, name, len, dir_ino, &loc,
					    btrfs_mode_to_type(mode), index);
	return ret;
}

/*
 * One entry of directory @dir_ino, with index @index: its inode (or one
 * more name of a hard-linked one) and its name, or a subvolume.  *@kind
 * tells the caller whether to walk it later, *@flags the --inode-flags it
 * passes on.
 */
static int add_entry(struct walk *w, long dir, u64 dir_ino, const char *name,
		     u64 index, u64 *ino_ret, u8 *kind, u64 *flags)
{
	struct statx stx;
	bool is_new;
	int ret, sv;

	*kind = ENTRY_OTHER;
	ret = w->src.stat(&w->src, dir, name, w->path.s, &stx);
	if (ret)
		return ret;
	if (w->image->ino && S_ISREG(stx.stx_mode) && stx.stx_ino == w->image->ino &&
	    stx_dev(&stx) == w->image->dev) {
		cmd_warning("%s is the image being made: not copied", w->path.s);
		*kind = ENTRY_SKIPPED;
		return 0;
	}
	*flags = path_flags(w);
	w->cur_flags = w->dir_flags | *flags;
	sv = S_ISDIR(stx.stx_mode) && w->o->nr_subvols ?
	     rootdir_subvol_index(w->o, w->path.s + w->path.top_len + 1) : -1;
	if (sv >= 0) {
		/* a subvolume inherits nothing from outside */
		*kind = ENTRY_SUBVOL;
		ret = add_subvol(w, dir, dir_ino, name, index, &stx, sv, ino_ret);
		return ret ? ret : commit_if_due(w);
	}
	ret = resolve_inode(w, &stx, ino_ret, &is_new);
	if (!ret && is_new)
		ret = create_inode(w, dir, name, *ino_ret, &stx);
	if (!ret)
		ret = link_entry(w, dir_ino, name, index, *ino_ret, stx.stx_mode);
	if (ret)
		return ret;
	/* a mount point with --one-file-system: the directory only */
	if (S_ISDIR(stx.stx_mode) &&
	    !(w->o->one_file_system && stx_dev(&stx) != w->top_dev))
		*kind = ENTRY_DIR;
	*flags = w->cur_flags;
	progress_update(&w->progress, w->stats->bytes);
	return commit_if_due(w);
}

static int set_dir_size(struct walk *w, u64 dir_ino, u64 size)
{
	struct btrfs_inode_item item;
	int ret = btrfs_read_inode(w->root, dir_ino, &item);

	if (ret)
		return ret;
	btrfs_set_inode_size(&item, size);
	return btrfs_update_inode(*w->trans, w->root, dir_ino, &item);
}

static int walk_dir(struct walk *w, long dir, u64 dir_ino);

/* walk the subdirectory @name (inode @ino) of @dir */
static int walk_subdir(struct walk *w, long dir, const char *name, u64 ino)
{
	long sub;
	int ret = w->src.open_dir(&w->src, dir, name, w->path.s, &sub);

	if (ret)
		return ret;
	ret = walk_dir(w, sub, ino);
	w->src.close_dir(&w->src, sub);
	return ret;
}

static int fix_link_counts(struct walk *w);

/* the subvolume @id: its own tree, inode numbers and hard-link map */
static int walk_subvol(struct walk *w, long dir, const char *name, u64 id)
{
	struct btrfs_root *saved_root = w->root;
	struct rootdir_links saved_links = w->links;
	u64 saved_next = w->next_ino;
	int ret;

	w->root = btrfs_get_root(w->fs, id);
	if (!w->root)
		return -ENOENT;
	w->next_ino = BTRFS_FIRST_FREE_OBJECTID + 1;
	rootdir_links_init(&w->links);
	ret = walk_subdir(w, dir, name, BTRFS_FIRST_FREE_OBJECTID);
	if (!ret)
		ret = fix_link_counts(w);
	rootdir_links_free(&w->links);
	w->root = saved_root;
	w->links = saved_links;
	w->next_ino = saved_next;
	return ret;
}

static int walk_dir(struct walk *w, long dir, u64 dir_ino)
{
	struct rootdir_names l;
	u64 *inos = NULL, *fl = NULL, size = 0, parent_flags = w->dir_flags;
	u8 *dirs = NULL;
	size_t i, old;
	int ret;

	ret = read_listing(w, dir, &l);
	if (!ret && l.nr) {
		inos = malloc(l.nr * sizeof(*inos));
		fl = malloc(l.nr * sizeof(*fl));
		dirs = malloc(l.nr * sizeof(*dirs));
		if (!inos || !dirs || !fl)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < l.nr; i++) {
		ret = rootdir_path_push(&w->path, rootdir_names_at(&l, i), &old);
		if (!ret)
			ret = add_entry(w, dir, dir_ino, rootdir_names_at(&l, i), i + 2,
					&inos[i], &dirs[i], &fl[i]);
		rootdir_path_pop(&w->path, old);
		if (!ret && dirs[i] != ENTRY_SKIPPED)
			size += 2 * strlen(rootdir_names_at(&l, i));
	}
	if (!ret && size)
		ret = set_dir_size(w, dir_ino, size);
	for (i = 0; !ret && i < l.nr; i++) {
		if (dirs[i] == ENTRY_OTHER || dirs[i] == ENTRY_SKIPPED)
			continue;
		ret = rootdir_path_push(&w->path, rootdir_names_at(&l, i), &old);
		w->dir_flags = fl[i];
		if (!ret && dirs[i] == ENTRY_SUBVOL)
			ret = walk_subvol(w, dir, rootdir_names_at(&l, i), inos[i]);
		else if (!ret)
			ret = walk_subdir(w, dir, rootdir_names_at(&l, i), inos[i]);
		w->dir_flags = parent_flags;
		rootdir_path_pop(&w->path, old);
	}
	free(fl);
	free(inos);
	free(dirs);
	rootdir_names_free(&l);
	return ret;
}

static int cmp_link_ino(const void *a, const void *b)
{
	u64 x = (*(struct rootdir_link *const *)a)->btrfs_ino;
	u64 y = (*(struct rootdir_link *const *)b)->btrfs_ino;

	return x < y ? -1 : x > y;
}

/*
 * Hard-linked inodes were inserted with nlink 1: set the names found, in
 * inode order (the map's slot order follows the host's inode numbers,
 * which must not decide the order the leaves are changed in).  These
 * inodes are spread over the whole tree, nearly one leaf each: commit on
 * the dirty budget, or thousands of them would be held at once.
 */
static int fix_link_counts(struct walk *w)
{
	struct rootdir_link **todo;
	size_t i, nr = 0;
	int ret = 0;

	todo = malloc((w->links.nr ? w->links.nr : 1) * sizeof(*todo));
	if (!todo)
		return -ENOMEM;
	for (i = 0; i < w->links.alloc; i++) {
		struct rootdir_link *e = &w->links.slots[i];

		if (e->ino && e->found >= 2 && nr < w->links.nr)
			todo[nr++] = e;
	}
	qsort(todo, nr, sizeof(*todo), cmp_link_ino);
	for (i = 0; !ret && i < nr; i++) {
		struct btrfs_inode_item item;

		ret = btrfs_read_inode(w->root, todo[i]->btrfs_ino, &item);
		if (ret)
			break;
		btrfs_set_inode_nlink(&item, todo[i]->found);
		ret = btrfs_update_inode(*w->trans, w->root, todo[i]->btrfs_ino, &item);
		if (!ret && dirty_over_budget(w))
			ret = commit_now(w);
	}
	free(todo);
	return ret;
}

/* the top directory's owner, mode, times and xattrs go on inode 256 */
static int fill_top(struct walk *w, long dir, const struct statx *stx)
{
	struct btrfs_inode_params ip;
	struct btrfs_inode_item item;
	int ret;

	ret = btrfs_read_inode(w->root, BTRFS_FIRST_FREE_OBJECTID, &item);
	if (ret)
		return ret;
	rootdir_inode_params(w->o, stx, true, &ip);
	btrfs_set_inode_mode(&item, ip.mode);
	btrfs_set_inode_uid(&item, ip.uid);
	btrfs_set_inode_gid(&item, ip.gid);
	btrfs_set_timespec_sec(&item.atime, ip.atime.sec);
	btrfs_set_timespec_nsec(&item.atime, ip.atime.nsec);
	btrfs_set_timespec_sec(&item.mtime, ip.mtime.sec);
	btrfs_set_timespec_nsec(&item.mtime, ip.mtime.nsec);
	btrfs_set_timespec_sec(&item.ctime, ip.ctime.sec);
	btrfs_set_timespec_nsec(&item.ctime, ip.ctime.nsec);
	btrfs_set_timespec_sec(&item.otime, ip.otime.sec);
	btrfs_set_timespec_nsec(&item.otime, ip.otime.nsec);
	ret = btrfs_update_inode(*w->trans, w->root, BTRFS_FIRST_FREE_OBJECTID, &item);
	if (!ret)
		ret = w->src.xattrs(&w->src, *w->trans, w->root, BTRFS_FIRST_FREE_OBJECTID,
				    dir, NULL, -1, w->path.s, &w->stats->xattrs);
	return ret;
}

/* deep trees keep one descriptor per level open */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void init_walk(struct walk *w, struct btrfs_fs_info *fs,
		      struct btrfs_trans_handle **trans, const struct mkfs_rootdir_opts *o,
		      int verbosity, struct rootdir_stats *stats)
{
	u32 leaf_inline = btrfs_max_inline_data_size(fs);

	memset(w, 0, sizeof(*w));
	w->fs = fs;
	w->trans = trans;
	w->root = &fs->fs_root;
	w->o = o;
	w->stats = stats;
	w->verbosity = verbosity;
	w->next_ino = BTRFS_FIRST_FREE_OBJECTID + 1;
	w->max_symlink = leaf_inline < PATH_MAX - 1 ? leaf_inline : PATH_MAX - 1;
	w->dc.fs = fs;
	w->dc.sectorsize = fs->sectorsize;
	w->dc.max_inline = leaf_inline < o->max_inline ? leaf_inline : o->max_inline;
	w->dc.no_holes = btrfs_fs_incompat(fs, BTRFS_FEATURE_INCOMPAT_NO_HOLES);
	w->dc.stats = stats;
	w->dc.compress_type = o->compress_type;
	w->dc.compress_level = o->compress_level;
	w->dc.reflink = o->reflink;
	w->dc.pool_threads = rootdir_compress_threads();
	rootdir_links_init(&w->links);
	w->progress.enabled = verbosity >= 1 && isatty(STDERR_FILENO);
}

/*
 * With a thread to spare, the host directory is read ahead (the writer,
 * the reader, then compressing workers); -1: not.
 */
static int start_readahead(struct walk *w)
{
	int threads = rootdir_compress_threads();
	struct rootdir_ra_params p = {
		.o = w->o,
		.image = w->image,
		.xattr_inodes = w->xattr_inodes,
		.sectorsize = w->dc.sectorsize,
		.csum_type = w->fs->csum_type,
		.csum_size = w->fs->csum_size,
		.max_inline = w->dc.max_inline,
		.read_data = !w->o->reflink,
		.workers = w->o->compress_type != BTRFS_COMPRESS_NONE ? threads - 2 : 0,
		.window = rootdir_ra_window(),
	};

	if (threads < 2 || !p.window || rootdir_ra_start(&p, &w->src))
		return -1;
	/* the pieces come compressed: the pool needs no workers (with --reflink no data comes) */
	if (p.read_data)
		w->dc.pool_threads = 1;
	/* the writeback starts without the writer (a failure: it does it itself) */
	rootdir_data_flusher(&w->dc);
	return 0;
}

int rootdir_populate(struct btrfs_fs_info *fs, struct btrfs_trans_handle **trans,
		     const struct mkfs_rootdir_opts *o, const struct rootdir_scan *scan,
		     const struct rootdir_image *image, int verbosity,
		     struct rootdir_stats *stats)
{
	static const struct rootdir_image no_image = { 0, 0 };
	struct statx stx;
	struct walk w;
	bool ra = false;
	long top = -1;
	int ret;

	init_walk(&w, fs, trans, o, verbosity, stats);
	w.image = image;
	raise_fd_limit();
	w.dc.buf = malloc(ROOTDIR_READ_BUF + ROOTDIR_READ_SLACK);
	ret = w.dc.buf ? rootdir_path_init(&w.path, o->path) : -ENOMEM;
	if (ret) {
		free(w.dc.buf);
		return ret;
	}
	if (scan->tar) {
		rootdir_tar_source(scan->tar, &w.src);
		w.image = &no_image;
	} else {
		w.xattr_inodes = scan->xattr_inodes;
		ra = !start_readahead(&w);
		if (!ra)
			rootdir_host_source(o->path, &w.src);
	}
	if (!ret)
		ret = w.src.top(&w.src, &top, &stx);
	if (!ret) {
		w.top_dev = stx_dev(&stx);
		stats->inodes = 1;
		stats->dirs = 1;
		progress_start(&w.progress, "bytes", scan->data_bytes + scan->inline_bytes);
		ret = fill_top(&w, top, &stx);
	}
	if (!ret)
		ret = walk_dir(&w, top, BTRFS_FIRST_FREE_OBJECTID);
	if (!ret)
		ret = rootdir_data_flush(&w.dc);
	if (!ret)
		ret = fix_link_counts(&w);
	if (!ret && stats->default_subvol)
		ret = rootdir_set_default_subvol(*trans, stats->default_subvol);
	progress_end(&w.progress);
	if (top >= 0)
		w.src.close_dir(&w.src, top);
	if (ra)
		rootdir_ra_stop(&w.src);
	rootdir_links_free(&w.links);
	free(w.path.s);
	rootdir_data_finish(&w.dc);
	free(w.dc.buf);
	return ret;
}
