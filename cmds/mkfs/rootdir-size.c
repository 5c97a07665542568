// SPDX-License-Identifier: GPL-2.0
/*
 * The pre-scan of --rootdir (what the tree holds: inodes, names, data as
 * allocated on the host so sparse files count by their data, hard links
 * once, xattrs; on up to GHEE_MKFS_THREADS threads) and the device size
 * it needs: data, plus metadata sized from the item counts (item headers
 * and bodies as btrfs stores them, leaves assumed half full, every copy
 * of the profile), plus the fixed chunks and a margin.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/xattr.h>
#include <sys/sysmacros.h>
#include "rootdir-internal.h"
#include "cmds/commands.h"
#include "kernel-shared/csum.h"
#include "mkfs.h"

#define SZ_1M_ (1ULL << 20)

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

/* the most host inodes with xattrs the walk is told about */
#define ROOTDIR_XATTR_INODES_MAX	65536
/* threads scanning at most, and directories handed from one to another */
#define PRESCAN_THREADS		4
#define PRESCAN_JOBS		16

/* a directory for another thread to scan: open, its path for messages */
struct scan_job {
	int fd;
	char *path;
};

/*
 * The pre-scan, on one thread or several: a thread that finds a
 * subdirectory while another one is idle hands it over instead of going
 * in itself.  What is counted is a sum, the same in any order; the
 * hard-link map and the set of inodes with xattrs are shared.
 */
struct prescan {
	const struct mkfs_rootdir_opts *o;
	struct rootdir_scan *scan;
	u32 sectorsize;
	u64 top_dev;
	int threads;
	pthread_mutex_t lock;		/* for all below */
	pthread_cond_t cond;
	struct rootdir_links links;
	struct scan_job jobs[PRESCAN_JOBS];
	int nr_jobs;
	int idle;
	bool done;
	int err;			/* the first failure (reported) */
};

/* one thread's */
struct scanner {
	struct prescan *ps;
	struct rootdir_scan n;		/* what it counted */
	bool share;			/* other threads scan too */
	/* the working directory is the one being scanned (else /proc paths) */
	bool in_dir;
};

/* the walk lists the xattrs of every inode: the set is not kept */
static void forget_xattr_inodes(struct rootdir_scan *scan)
{
	if (!scan->xattr_inodes)
		return;
	rootdir_links_free(scan->xattr_inodes);
	free(scan->xattr_inodes);
	scan->xattr_inodes = NULL;
}

static void note_xattr_inode(struct prescan *ps, const struct statx *stx)
{
	struct rootdir_scan *scan = ps->scan;
	u64 dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);

	pthread_mutex_lock(&ps->lock);
	if (scan->xattr_inodes &&
	    (scan->xattr_inodes->nr >= ROOTDIR_XATTR_INODES_MAX ||
	     rootdir_links_add(scan->xattr_inodes, dev, stx->stx_ino, 0)))
		forget_xattr_inodes(scan);
	pthread_mutex_unlock(&ps->lock);
}

/* the first failure stops every thread; true: it is the first, say why */
static bool first_failure(struct prescan *ps, int err)
{
	bool first;

	pthread_mutex_lock(&ps->lock);
	first = !ps->err;
	if (first)
		__atomic_store_n(&ps->err, err, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&ps->cond);
	pthread_mutex_unlock(&ps->lock);
	return first;
}

static bool failed(struct prescan *ps)
{
	return __atomic_load_n(&ps->err, __ATOMIC_RELAXED) != 0;
}

/*
 * Names and values of an entry's xattrs, by the name in the working
 * directory (there is no dirfd-relative listxattr), or through
 * /proc/self/fd.  A list longer than the buffer is left uncounted (the
 * margin covers it).  An inode that has (or may have) xattrs goes in the
 * set the walk asks, so it lists only those.
 */
static void count_xattrs(struct scanner *sc, int dirfd, const char *name,
			 const struct statx *stx)
{
	char full[64 + BTRFS_NAME_LEN], list[4096], *p;
	const char *at = name;
	ssize_t len;

	if (!sc->in_dir) {
		snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", dirfd, name);
		at = full;
	}
	len = llistxattr(at, list, sizeof(list));
	if (len > 0 || (len < 0 && errno != ENOTSUP))
		note_xattr_inode(sc->ps, stx);
	for (p = list; len > 0 && p < list + len; p += strlen(p) + 1) {
		ssize_t v = lgetxattr(at, p, NULL, 0);

		sc->n.xattrs++;
		sc->n.xattr_bytes += strlen(p) + (v > 0 ? (u64)v : 0);
	}
}

/* make @dirfd the working directory, or stop using it */
static void enter_dir(struct scanner *sc, int dirfd)
{
	if (sc->in_dir && fchdir(dirfd))
		sc->in_dir = false;
}

static void count_file(struct scanner *sc, const struct statx *stx)
{
	u64 size = stx->stx_size, alloc = stx->stx_blocks * 512;
	u32 ss = sc->ps->sectorsize;

	if (size <= sc->ps->o->max_inline && size < ss) {
		sc->n.inline_bytes += size;
		return;
	}
	size = round_up_to(size, ss);
	alloc = round_up_to(alloc, ss);
	/* allocated bytes: sparse files by data (never more than the size) */
	size = alloc < size ? alloc : size;
	sc->n.data_bytes += size;
	sc->n.extents += size / ROOTDIR_MAX_EXTENT + 1;
}

static int scan_dir(struct scanner *sc, int dirfd, const char *path);

/* hand @fd (@sub) to an idle thread; false: none, or no room */
static bool hand_over(struct prescan *ps, int fd, char *sub)
{
	bool taken = false;

	pthread_mutex_lock(&ps->lock);
	if (ps->idle && ps->nr_jobs < PRESCAN_JOBS) {
		ps->jobs[ps->nr_jobs].fd = fd;
		ps->jobs[ps->nr_jobs].path = sub;
		ps->nr_jobs++;
		pthread_cond_signal(&ps->cond);
		taken = true;
	}
	pthread_mutex_unlock(&ps->lock);
	return taken;
}

static int scan_subdir(struct scanner *sc, int dirfd, const char *name, const char *path)
{
	size_t len = strlen(path) + strlen(name) + 2;
	char *sub = malloc(len);
	int fd, ret;

	if (!sub)
		return -ENOMEM;
	snprintf(sub, len, "%s/%s", path, name);
	fd = rootdir_openat_noatime(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (first_failure(sc->ps, ret))
			cmd_error("cannot open directory %s: %s", sub, strerror(-ret));
	} else if (sc->share && hand_over(sc->ps, fd, sub)) {
		return 0;
	} else {
		ret = scan_dir(sc, fd, sub);
		close(fd);
		/* back in the parent for the rest of its entries */
		enter_dir(sc, dirfd);
	}
	free(sub);
	return ret;
}

/* is this inode counted already (another name of a hard-linked file)? */
static int seen_link(struct prescan *ps, u64 dev, u64 ino)
{
	int ret = 0;

	pthread_mutex_lock(&ps->lock);
	if (rootdir_links_find(&ps->links, dev, ino))
		ret = 1;
	else
		ret = rootdir_links_add(&ps->links, dev, ino, 0);
	pthread_mutex_unlock(&ps->lock);
	return ret;
}

static int scan_entry(struct scanner *sc, int dirfd, const char *name, const char *path)
{
	struct prescan *ps = sc->ps;
	struct statx stx;
	u64 dev;
	int ret;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, ROOTDIR_STATX_MASK,
		  &stx)) {
		ret = -errno;
		if (first_failure(ps, ret))
			cmd_error("cannot stat %s/%s: %s", path, name, strerror(-ret));
		return ret;
	}
	dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	sc->n.entries++;
	sc->n.name_bytes += strlen(name);
	if (!S_ISDIR(stx.stx_mode) && stx.stx_nlink > 1) {
		ret = seen_link(ps, dev, stx.stx_ino);
		if (ret)
			return ret > 0 ? 0 : ret;
	}
	sc->n.inodes++;
	count_xattrs(sc, dirfd, name, &stx);
	if (S_ISREG(stx.stx_mode))
		count_file(sc, &stx);
	else if (S_ISLNK(stx.stx_mode))
		sc->n.inline_bytes += stx.stx_size;
	if (!S_ISDIR(stx.stx_mode))
		return 0;
	sc->n.dirs++;
	if (ps->o->one_file_system && dev != ps->top_dev)
		return 0;
	return scan_subdir(sc, dirfd, name, path);
}

static int scan_dir(struct scanner *sc, int dirfd, const char *path)
{
	int fd = dup(dirfd), ret = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		if (first_failure(sc->ps, ret))
			cmd_error("cannot read directory %s: %s", path, strerror(-ret));
		return ret;
	}
	enter_dir(sc, dirfd);
	while (!failed(sc->ps)) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				ret = -errno;
				if (first_failure(sc->ps, ret))
					cmd_error("cannot read directory %s: %s", path,
						  strerror(-ret));
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = scan_entry(sc, dirfd, de->d_name, path);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

/* scan the directories handed over until there are none and all are idle */
static void scan_jobs(struct scanner *sc)
{
	struct prescan *ps = sc->ps;

	pthread_mutex_lock(&ps->lock);
	while (!ps->done && !ps->err) {
		struct scan_job job;
		int ret;

		if (!ps->nr_jobs) {
			if (ps->idle == ps->threads - 1) {
				ps->done = true;
				pthread_cond_broadcast(&ps->cond);
				break;
			}
			ps->idle++;
			pthread_cond_wait(&ps->cond, &ps->lock);
			ps->idle--;
			continue;
		}
		job = ps->jobs[--ps->nr_jobs];
		pthread_mutex_unlock(&ps->lock);
		ret = scan_dir(sc, job.fd, job.path);
		close(job.fd);
		free(job.path);
		pthread_mutex_lock(&ps->lock);
		if (ret && !ps->err) {
			/* every waiting thread must see it and stop */
			__atomic_store_n(&ps->err, ret, __ATOMIC_RELAXED);
			pthread_cond_broadcast(&ps->cond);
		}
	}
	pthread_mutex_unlock(&ps->lock);
}

static void *scan_thread(void *arg)
{
	struct scanner *sc = arg;

	/* a working directory of its own, to enter directories too */
	sc->in_dir = !unshare(CLONE_FS);
	scan_jobs(sc);
	return NULL;
}

static void add_counts(struct rootdir_scan *to, const struct rootdir_scan *n)
{
	to->inodes += n->inodes;
	to->dirs += n->dirs;
	to->entries += n->entries;
	to->name_bytes += n->name_bytes;
	to->data_bytes += n->data_bytes;
	to->extents += n->extents;
	to->inline_bytes += n->inline_bytes;
	to->xattr_bytes += n->xattr_bytes;
	to->xattrs += n->xattrs;
}

/* scan from the top directory @fd on ps->threads threads (this one too) */
static int scan_tree(struct prescan *ps, int fd)
{
	struct scanner sc[PRESCAN_THREADS];
	pthread_t tid[PRESCAN_THREADS];
	int i, n = 1, cwd, ret;

	memset(sc, 0, sizeof(sc));
	ps->jobs[0].fd = dup(fd);
	ps->jobs[0].path = strdup(ps->o->path);
	if (ps->jobs[0].fd < 0 || !ps->jobs[0].path) {
		if (ps->jobs[0].fd >= 0)
			close(ps->jobs[0].fd);
		free(ps->jobs[0].path);
		return -ENOMEM;
	}
	ps->nr_jobs = 1;
	for (i = 0; i < ps->threads; i++) {
		sc[i].ps = ps;
		sc[i].share = ps->threads > 1;
	}
	for (; n < ps->threads; n++) {
		if (pthread_create(&tid[n], NULL, scan_thread, &sc[n]))
			break;
	}
	pthread_mutex_lock(&ps->lock);
	ps->threads = n;
	pthread_mutex_unlock(&ps->lock);
	/* this thread enters directories in the working directory it goes back to */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	sc[0].in_dir = cwd >= 0;
	scan_jobs(&sc[0]);
	for (i = 1; i < n; i++)
		pthread_join(tid[i], NULL);
	ret = ps->err;
	if (cwd >= 0 && fchdir(cwd) && !ret) {
		ret = -errno;
		cmd_error("cannot go back to the working directory: %m");
	}
	if (cwd >= 0)
		close(cwd);
	/* what a failure left unscanned */
	while (ps->nr_jobs) {
		ps->nr_jobs--;
		close(ps->jobs[ps->nr_jobs].fd);
		free(ps->jobs[ps->nr_jobs].path);
	}
	for (i = 0; i < n; i++)
		add_counts(ps->scan, &sc[i].n);
	return ret;
}

int rootdir_prescan(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		    struct rootdir_scan *scan)
{
	struct prescan ps = { .o = o, .scan = scan, .sectorsize = sectorsize };
	struct statx stx;
	int fd, ret;

	memset(scan, 0, sizeof(*scan));
	if (rootdir_is_tar(o->path))
		return rootdir_tar_read(o, sectorsize, scan);
	scan->xattr_inodes = calloc(1, sizeof(*scan->xattr_inodes));
	fd = rootdir_openat_noatime(AT_FDCWD, o->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOTDIR)
			cmd_error("--rootdir %s is not a directory", o->path);
		else
			cmd_error("cannot open --rootdir directory %s: %m", o->path);
		return ret;
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ps.top_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	ps.threads = rootdir_compress_threads();
	if (ps.threads > PRESCAN_THREADS)
		ps.threads = PRESCAN_THREADS;
	rootdir_links_init(&ps.links);
	pthread_mutex_init(&ps.lock, NULL);
	pthread_cond_init(&ps.cond, NULL);
	ret = scan_tree(&ps, fd);
	pthread_cond_destroy(&ps.cond);
	pthread_mutex_destroy(&ps.lock);
	rootdir_links_free(&ps.links);
	close(fd);
	return ret;
}

void rootdir_scan_free(struct rootdir_scan *scan)
{
	forget_xattr_inodes(scan);
	rootdir_tar_free(scan->tar);
	scan->tar = NULL;
}

static u64 profile_copies(u64 profile)
{
	if (profile & (BTRFS_BLOCK_GROUP_DUP | BTRFS_BLOCK_GROUP_RAID1 |
		       BTRFS_BLOCK_GROUP_RAID10))
		return 2;
	if (profile & BTRFS_BLOCK_GROUP_RAID1C3)
		return 3;
	if (profile & BTRFS_BLOCK_GROUP_RAID1C4)
		return 4;
	return 1;
}

/* metadata bytes (every copy) the tree's items need, pessimistically */
static u64 estimate_meta(const struct rootdir_scan *s, u32 nodesize, u32 sectorsize,
			 u16 csum_size, u64 meta_profile)
{
	const u64 item = 25;	/* struct btrfs_item */
	u64 fs_tree, extent_tree, csum_tree, meta;

	/* inode item, inode ref, dir item, dir index per name; xattrs; extents */
	fs_tree = s->inodes * (item + 160) +
		  s->entries * (3 * item + 10 + 2 * 30) + 3 * s->name_bytes +
		  s->xattrs * (item + 30) + s->xattr_bytes +
		  s->extents * (item + 53) + s->inline_bytes + s->inodes * (item + 21);
	/* extent item with one inline data ref per extent */
	extent_tree = s->extents * (item + 24 + 29);
	csum_tree = s->data_bytes / sectorsize * csum_size +
		    (s->data_bytes / ROOTDIR_MAX_EXTENT + s->extents) * item;
	meta = fs_tree + extent_tree + csum_tree;
	/* half-full leaves, nodes, and the tree blocks' own extent items */
	meta = meta * 2 + meta / (nodesize / 64);
	return meta * profile_copies(meta_profile);
}

u64 rootdir_estimate_size(const struct rootdir_scan *s, u32 nodesize,
			  u32 sectorsize, u16 csum_size, u64 meta_profile,
			  u64 data_profile, bool mixed)
{
	u64 meta = estimate_meta(s, nodesize, sectorsize, csum_size, meta_profile);
	u64 data = s->data_bytes * profile_copies(mixed ? meta_profile : data_profile);
	/* the fixed part: system and first chunks, 1 MiB reserved, slack */
	u64 size = data + meta + 64 * SZ_1M_ + (data + meta) / 10;

	return round_up_to(size, SZ_1M_);
}

int mkfs_rootdir_size(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	u64 min = mkfs_min_dev_size(p);
	int ret;

	if (!p->rootdir.path)
		return 0;
	ret = rootdir_prescan(&p->rootdir, p->sectorsize, &g->scan);
	if (ret)
		return ret;
	g->rootdir_need = rootdir_estimate_size(&g->scan, p->nodesize, p->sectorsize,
						(u16)btrfs_csum_type_size(p->csum_type),
						p->meta_profile, p->data_profile, p->mixed);
	if (g->rootdir_need < min)
		g->rootdir_need = min;
	return 0;
}

/*
 * The first data chunk is made big enough for all the data (up to what
 * the device has room for, keeping space for another metadata chunk):
 * extents can then reach the kernel's 128 MiB, and with --shrink no
 * further data chunk of the default size (a tenth of the device) ends
 * past what is needed.
 */
void mkfs_rootdir_fit_chunks(const struct mkfs_params *p, struct mkfs_geometry *g)
{
	struct mkfs_chunk_plan *d = &g->chunks[MKFS_CHUNK_DATA];
	u64 data = g->scan.data_bytes + g->scan.data_bytes / 64 + 4 * SZ_1M_;
	u64 used = SZ_1M_, room, per_dev, stripe;
	int i;

	if (!p->rootdir.path || p->mixed || !d->length || g->nr_devs != 1)
		return;
	for (i = 0; i < MKFS_NR_CHUNKS; i++) {
		const struct mkfs_chunk_plan *c = &g->chunks[i];

		if (c != d)
			used += c->stripe_size * (u64)c->num_stripes;
	}
	/*
	 * Room for the metadata the tree needs, in chunks of any size: the
	 * estimate assumes half-full leaves, appending fills them, so half
	 * of it and some slack.
	 */
	used += estimate_meta(&g->scan, p->nodesize, p->sectorsize,
			      (u16)btrfs_csum_type_size(p->csum_type), p->meta_profile) / 2 +
		32 * SZ_1M_;
	if (g->devs[0].size <= used)
		return;
	per_dev = (u64)d->num_stripes;
	room = (g->devs[0].size - used) / per_dev;
	if (data > (10ULL << 30))
		data = 10ULL << 30;
	stripe = round_up_to(data, BTRFS_STRIPE_LEN);
	if (stripe > room)
		stripe = room / BTRFS_STRIPE_LEN * BTRFS_STRIPE_LEN;
	if (stripe <= d->stripe_size)
		return;
	d->length = d->length / d->stripe_size * stripe;
	d->stripe_size = stripe;
}
