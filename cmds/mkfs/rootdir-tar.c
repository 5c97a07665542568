// SPDX-License-Identifier: GPL-2.0
/*
 * --rootdir ARCHIVE: a tar archive (any compression libarchive reads, or
 * "-" for stdin) as the source of the walk.
 *
 * A stream can be read only once, and the walk needs the tree sorted by
 * name, so the pre-scan reads the whole archive first: every entry's
 * metadata goes into an in-memory index (one node per path, names and
 * xattrs in pools, a hash of (parent, name) to find paths), and the data
 * of every regular file into a region of a spool file under $TMPDIR
 * (default /var/tmp), written at the archive's offsets so that sparse
 * entries keep their holes.  The walk then reads the index like a
 * directory tree and the data through the regions (each one punched out
 * once copied), so the archive and its unpacked tree give the same walk,
 * the same inode numbers and the same image.  Memory is per-entry
 * metadata only.
 *
 * A spool file has no name from the moment it exists (O_TMPFILE, else
 * unlinked right after mkstemp()): a run that is killed, even with
 * SIGKILL, leaves nothing behind, and a few descriptors hold the data of
 * any number of entries.  Regions start at multiples of SPOOL_ALIGN, so
 * the holes of one stay holes for SEEK_DATA and --reflink can clone from
 * them; a file past SPOOL_FILE_MAX bytes starts the next spool file.
 *
 * As tar extracts: a later entry for a path replaces the earlier one;
 * leading '/' are removed; a path with a ".." component is refused;
 * directories the archive lacks are made (mode 0755, owner 0:0 or the
 * --root-owner, times SOURCE_DATE_EPOCH or 0); ctime and the creation
 * time are the time of the mkfs run (clamped to SOURCE_DATE_EPOCH), atime
 * the archive's or that time.  POSIX ACLs become the system.posix_acl_*
 * xattrs the kernel would store for them.
 */
#define _GNU_SOURCE
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "rootdir-internal.h"
#include "lib/array.h"
#include "cmds/commands.h"
#include "kernel-shared/accessors.h"

bool rootdir_is_tar(const char *path)
{
	struct stat st;

	return !strcmp(path, "-") || (!stat(path, &st) && S_ISREG(st.st_mode));
}

#ifndef HAVE_LIBARCHIVE

int rootdir_tar_read(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		     struct rootdir_scan *scan)
{
	(void)sectorsize;
	(void)scan;
	cmd_error("--rootdir %s: tar input not built in (ghee was built without libarchive)",
		  o->path);
	return -EOPNOTSUPP;
}

void rootdir_tar_source(struct rootdir_tar *t, struct rootdir_src *src)
{
	(void)t;
	memset(src, 0, sizeof(*src));
}

void rootdir_tar_free(struct rootdir_tar *t)
{
	(void)t;
}

#else

#include <archive.h>
#include <archive_entry.h>

#define NO_NODE		UINT32_MAX
#define SPOOL_ALIGN	(64U << 10)	/* above any block size a spool lives on */
#define SPOOL_FILE_MAX	(1ULL << 40)	/* well below ext4's 16 TiB file size */

struct tar_node {
	u32 name;		/* offset in the name pool */
	u32 parent;
	u32 leader;		/* the node holding the inode (hard links), or itself */
	u32 nlink;		/* on a leader: the names of its group */
	u32 kids, nr_kids;	/* children: a range of the sorted kids array */
	u32 target;		/* symlink target in the name pool */
	u32 mode, uid, gid, rdev_major, rdev_minor;
	u64 xattr_off;		/* in the xattr pool: records of struct xattr_rec */
	u32 xattr_len;
	u32 atime_ns, mtime_ns;
	bool has_atime;
	s64 atime, mtime;
	u64 size;
	u64 alloc;		/* data bytes in the archive (sparse: the map's) */
	u64 base;		/* regular file: its region in spool file @spool */
	u32 spool;
};

/* an xattr in the pool: header, name with its NUL, value */
struct xattr_rec {
	u32 name_len;
	u32 val_len;
};

struct rootdir_tar {
	const struct mkfs_rootdir_opts *o;
	struct tar_node *nodes;
	size_t nr, alloc;
	char *names;
	size_t names_len, names_alloc;
	u8 *xattrs;
	size_t xattrs_len, xattrs_alloc;
	u32 *hash;		/* node + 1, 0 free; (parent, name) -> node */
	size_t hash_alloc;	/* power of two */
	u32 *kids;
	const char *spool_dir;	/* where the spool files are (messages) */
	int *spools;		/* descriptors of the unnamed spool files */
	u32 nr_spools;
	size_t spools_alloc;
	u64 spool_end;		/* the end of the last region of the last one */
	u64 now;
	bool warned_slash;
	char *path_buf;		/* sanitized paths */
	size_t path_alloc;
};

static const char *node_name(const struct rootdir_tar *t, u32 n)
{
	return t->names + t->nodes[n].name;
}

static int add_string(struct rootdir_tar *t, const char *s, size_t len, u32 *off)
{
	if (t->names_len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (ARRAY_RESERVE(t->names, t->names_alloc, t->names_len + len + 1, 1 << 16))
		return -ENOMEM;
	memcpy(t->names + t->names_len, s, len);
	t->names[t->names_len + len] = 0;
	*off = (u32)t->names_len;
	t->names_len += len + 1;
	return 0;
}

static u64 hash_key(u32 parent, const char *name, size_t len)
{
	u64 h = 1469598103934665603ULL ^ parent;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (u8)name[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static void hash_put(struct rootdir_tar *t, u32 n)
{
	const char *name = node_name(t, n);
	u64 i = hash_key(t->nodes[n].parent, name, strlen(name));

	for (;; i++) {
		u32 *slot = &t->hash[i & (t->hash_alloc - 1)];

		if (!*slot) {
			*slot = n + 1;
			return;
		}
	}
}

static u32 hash_find(const struct rootdir_tar *t, u32 parent, const char *name, size_t len)
{
	u64 i = hash_key(parent, name, len);

	for (;; i++) {
		u32 v = t->hash[i & (t->hash_alloc - 1)];

		if (!v)
			return NO_NODE;
		if (t->nodes[v - 1].parent == parent && !strncmp(node_name(t, v - 1), name, len) &&
		    !node_name(t, v - 1)[len])
			return v - 1;
	}
}

static int hash_grow(struct rootdir_tar *t)
{
	size_t n = t->hash_alloc ? t->hash_alloc * 2 : 1024, i;

	free(t->hash);
	t->hash = calloc(n, sizeof(u32));
	if (!t->hash)
		return -ENOMEM;
	t->hash_alloc = n;
	for (i = 1; i < t->nr; i++)
		hash_put(t, (u32)i);
	return 0;
}

/* the directory tar would make for a path the archive lacks */
static void implied_dir(struct rootdir_tar *t, struct tar_node *n)
{
	const struct mkfs_owner *own = &t->o->root_owner;
	s64 when = t->o->have_epoch ? (s64)t->o->epoch : 0;

	n->mode = S_IFDIR | 0755;
	n->uid = own->set ? own->uid : 0;
	n->gid = own->set ? own->gid : 0;
	n->atime = n->mtime = when;
	n->atime_ns = n->mtime_ns = 0;
	n->has_atime = true;
	n->size = n->alloc = 0;
	n->xattr_len = 0;
	n->target = 0;
}

static int new_node(struct rootdir_tar *t, u32 parent, const char *name, size_t len, u32 *ret)
{
	struct tar_node *n;
	int err;

	if (t->nr >= UINT32_MAX - 1)
		return -E2BIG;
	if (ARRAY_RESERVE(t->nodes, t->alloc, t->nr + 1, 1024))
		return -ENOMEM;
	n = &t->nodes[t->nr];
	memset(n, 0, sizeof(*n));
	err = add_string(t, name, len, &n->name);
	if (err)
		return err;
	n->parent = parent;
	n->leader = (u32)t->nr;
	n->nlink = 1;
	implied_dir(t, n);
	*ret = (u32)t->nr++;
	if (*ret)
		t->nodes[parent].nr_kids++;
	if (t->nr * 2 > t->hash_alloc)
		return hash_grow(t);
	hash_put(t, *ret);
	return 0;
}

/*
 * @path as tar extracts it: leading '/' and "." components dropped, ".."
 * refused.  Fills t->path_buf with the clean path ("" for the top).
 */
static int clean_path(struct rootdir_tar *t, const char *path, bool *stripped)
{
	const char *p = path;
	size_t len = 0;

	*stripped = false;
	if (ARRAY_RESERVE(t->path_buf, t->path_alloc, strlen(path) + 1, 256))
		return -ENOMEM;
	while (*p == '/') {
		p++;
		*stripped = true;
	}
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if (n == 2 && !strncmp(p, "..", 2)) {
			cmd_error("tar entry '%s': a path with a '..' component is refused", path);
			return -EINVAL;
		}
		if (n > BTRFS_NAME_LEN) {
			cmd_error("tar entry '%s': a name longer than %d bytes", path, BTRFS_NAME_LEN);
			return -ENAMETOOLONG;
		}
		if (n && !(n == 1 && *p == '.')) {
			if (len)
				t->path_buf[len++] = '/';
			memcpy(t->path_buf + len, p, n);
			len += n;
		}
		p = *end ? end + 1 : end;
	}
	t->path_buf[len] = 0;
	return 0;
}

/* the node of t->path_buf, made with its missing parents when @create */
static int lookup_path(struct rootdir_tar *t, const char *orig, bool create, u32 *ret)
{
	const char *p = t->path_buf;
	u32 cur = 0;
	int err;

	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);
		u32 next;

		if (!S_ISDIR(t->nodes[cur].mode)) {
			cmd_error("tar entry '%s': '%s' is not a directory", orig, node_name(t, cur));
			return -ENOTDIR;
		}
		next = hash_find(t, cur, p, n);
		if (next == NO_NODE) {
			if (!create) {
				cmd_error("tar entry '%s': hard link to '%s', which is not in the archive before it",
					  orig, t->path_buf);
				return -ENOENT;
			}
			err = new_node(t, cur, p, n, &next);
			if (err)
				return err;
		}
		cur = next;
		p = *end ? end + 1 : end;
	}
	*ret = cur;
	return 0;
}

struct xent {
	const char *name;
	const void *val;
	size_t len;
	size_t seq;		/* the archive's order: the first of a name wins */
};

static int cmp_xent(const void *a, const void *b)
{
	const struct xent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->seq < y->seq ? -1 : x->seq > y->seq);
}

struct xattr_list {
	struct xent *e;
	size_t nr, alloc;
	u8 **owned;		/* generated values (ACLs) to free */
	size_t nr_owned, owned_alloc;
};

static int xattr_list_add(struct xattr_list *x, const char *name, const void *val, size_t len)
{
	if (ARRAY_RESERVE(x->e, x->alloc, x->nr + 1, 16))
		return -ENOMEM;
	x->e[x->nr].name = name;
	x->e[x->nr].val = val;
	x->e[x->nr].len = len;
	x->e[x->nr].seq = x->nr;
	x->nr++;
	return 0;
}

/* the kernel's POSIX ACL xattr: version 2, entries sorted by tag and id */
struct acl_ent {
	u16 tag;
	u16 perm;
	u32 id;
};

static void put_le16(u16 v, u8 *p)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
}

static int cmp_acl(const void *a, const void *b)
{
	const struct acl_ent *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static u16 linux_acl_tag(int tag)
{
	switch (tag) {
	case ARCHIVE_ENTRY_ACL_USER_OBJ: return 0x01;
	case ARCHIVE_ENTRY_ACL_USER: return 0x02;
	case ARCHIVE_ENTRY_ACL_GROUP_OBJ: return 0x04;
	case ARCHIVE_ENTRY_ACL_GROUP: return 0x08;
	case ARCHIVE_ENTRY_ACL_MASK: return 0x10;
	case ARCHIVE_ENTRY_ACL_OTHER: return 0x20;
	}
	return 0;
}

/*
 * One ACL of @e as an xattr value in *@out (NULL when the kernel would
 * store none: no entries, or an access ACL the mode says all of).
 */
static int acl_to_xattr(struct archive_entry *e, int type, u8 **out, size_t *len, u32 *mode)
{
	struct acl_ent *ents;
	int n = archive_entry_acl_reset(e, type), i = 0, atype, perm, tag, id;
	bool extended = false;
	const char *name;
	u8 *p;

	*out = NULL;
	*len = 0;
	if (n <= 0)
		return 0;
	ents = calloc((size_t)n, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	while (i < n && archive_entry_acl_next(e, type, &atype, &perm, &tag, &id, &name) ==
	       ARCHIVE_OK) {
		ents[i].tag = linux_acl_tag(tag);
		ents[i].perm = (u16)(perm & 7);
		ents[i].id = (tag == ARCHIVE_ENTRY_ACL_USER || tag == ARCHIVE_ENTRY_ACL_GROUP) ?
			     (u32)id : UINT32_MAX;
		if (ents[i].tag & (0x02 | 0x08 | 0x10))
			extended = true;
		/*
		 * libarchive keeps the group class of the mode as the owning
		 * group's entry; the file's group bits are the mask, as
		 * setting the ACL makes them
		 */
		if (ents[i].tag == 0x10 && type == ARCHIVE_ENTRY_ACL_TYPE_ACCESS)
			*mode = (*mode & ~070U) | (u32)(ents[i].perm << 3);
		if (ents[i].tag)
			i++;
	}
	if (type == ARCHIVE_ENTRY_ACL_TYPE_ACCESS && !extended) {
		free(ents);
		return 0;
	}
	qsort(ents, (size_t)i, sizeof(*ents), cmp_acl);
	*len = 4 + (size_t)i * 8;
	*out = p = malloc(*len);
	if (!p) {
		free(ents);
		return -ENOMEM;
	}
	put_unaligned_le32(2, p);
	for (n = 0; n < i; n++) {
		put_le16(ents[n].tag, p + 4 + n * 8);
		put_le16(ents[n].perm, p + 6 + n * 8);
		put_unaligned_le32(ents[n].id, p + 8 + n * 8);
	}
	free(ents);
	return 0;
}

static int add_acl(struct xattr_list *x, struct archive_entry *e, int type, const char *name,
		   u32 *mode)
{
	size_t len;
	u8 *val;
	int ret = acl_to_xattr(e, type, &val, &len, mode);

	if (ret || !val)
		return ret;
	if (ARRAY_RESERVE(x->owned, x->owned_alloc, x->nr_owned + 1, 2)) {
		free(val);
		return -ENOMEM;
	}
	x->owned[x->nr_owned++] = val;
	/* an xattr of that name in the archive wins: it is added first */
	return xattr_list_add(x, name, val, len);
}

/* @e's xattrs and ACLs, sorted by name, into the pool for node @n */
static int store_xattrs(struct rootdir_tar *t, struct archive_entry *e, struct tar_node *n)
{
	struct xattr_list x = { 0 };
	const char *name;
	const void *val;
	size_t len, i, start = t->xattrs_len;
	int ret = 0;

	archive_entry_xattr_reset(e);
	while (!ret && archive_entry_xattr_next(e, &name, &val, &len) == ARCHIVE_OK)
		ret = xattr_list_add(&x, name, val, len);
	if (!ret)
		ret = add_acl(&x, e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS, "system.posix_acl_access",
			      &n->mode);
	if (!ret && S_ISDIR(n->mode))
		ret = add_acl(&x, e, ARCHIVE_ENTRY_ACL_TYPE_DEFAULT, "system.posix_acl_default",
			      &n->mode);
	if (!ret && x.nr)
		qsort(x.e, x.nr, sizeof(*x.e), cmp_xent);
	for (i = 0; !ret && i < x.nr; i++) {
		const struct xent *xe = &x.e[i];
		size_t nl = strlen(xe->name) + 1;
		struct xattr_rec rec = { (u32)nl, (u32)xe->len };

		if (i && !strcmp(xe->name, x.e[i - 1].name))
			continue;
		if (ARRAY_RESERVE(t->xattrs, t->xattrs_alloc,
				  t->xattrs_len + sizeof(rec) + nl + xe->len, 4096)) {
			ret = -ENOMEM;
			break;
		}
		memcpy(t->xattrs + t->xattrs_len, &rec, sizeof(rec));
		memcpy(t->xattrs + t->xattrs_len + sizeof(rec), xe->name, nl);
		memcpy(t->xattrs + t->xattrs_len + sizeof(rec) + nl, xe->val, xe->len);
		t->xattrs_len += sizeof(rec) + nl + xe->len;
	}
	n->xattr_off = start;
	n->xattr_len = (u32)(t->xattrs_len - start);
	for (i = 0; i < x.nr_owned; i++)
		free(x.owned[i]);
	free(x.owned);
	free(x.e);
	return ret;
}

/* a new spool file, nameless from the start (or at once) */
static int new_spool(struct rootdir_tar *t)
{
	size_t len = strlen(t->spool_dir) + 32;
	char *tmpl;
	int fd, ret;

	if (ARRAY_RESERVE(t->spools, t->spools_alloc, t->nr_spools + 1, 4))
		return -ENOMEM;
	fd = open(t->spool_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		ret = -errno;
		cmd_error("cannot make a spool file in %s: %m", t->spool_dir);
		return ret;
	}
	if (fd < 0) {
		/* no O_TMPFILE there: the name lives for one system call */
		tmpl = malloc(len);
		if (!tmpl)
			return -ENOMEM;
		snprintf(tmpl, len, "%s/ghee-mkfs-tar.XXXXXX", t->spool_dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
		free(tmpl);
		if (fd < 0) {
			ret = -errno;
			cmd_error("cannot make a spool file in %s: %m", t->spool_dir);
			return ret;
		}
	}
	t->spools[t->nr_spools++] = fd;
	t->spool_end = 0;
	return 0;
}

/* free a region that is copied or replaced (best effort) */
static void drop_region(const struct rootdir_tar *t, const struct tar_node *n)
{
	if (n->size && n->spool < t->nr_spools)
		fallocate(t->spools[n->spool], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)n->base, (off_t)n->size);
}

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

/* the entry's data into a new region for node @idx, holes kept */
static int spool_data(struct rootdir_tar *t, struct archive *a, struct archive_entry *e,
		      u32 idx, const char *path)
{
	struct tar_node *n = &t->nodes[idx];
	const void *buf;
	size_t len;
	la_int64_t off;
	int fd, r, ret = 0;

	(void)e;
	if (!t->nr_spools || (t->spool_end && t->spool_end + n->size > SPOOL_FILE_MAX)) {
		ret = new_spool(t);
		if (ret)
			return ret;
	}
	fd = t->spools[t->nr_spools - 1];
	n->spool = t->nr_spools - 1;
	n->base = t->spool_end;
	n->alloc = 0;
	while ((r = archive_read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK) {
		size_t done = 0;

		if (off < 0 || (u64)off + len > n->size) {
			cmd_error("--rootdir %s: tar entry '%s': data past its size of %llu bytes",
				  t->o->path, path, (unsigned long long)n->size);
			return -EINVAL;
		}
		while (done < len) {
			ssize_t w = pwrite(fd, (const u8 *)buf + done, len - done,
					   (off_t)(n->base + (u64)off + done));

			if (w < 0) {
				ret = -errno;
				cmd_error("cannot write the spool file of %s in %s: %m", path,
					  t->spool_dir);
				return ret;
			}
			done += (size_t)w;
		}
		n->alloc += len;
	}
	if (r != ARCHIVE_EOF) {
		cmd_error("--rootdir %s: tar entry '%s': %s", t->o->path, path,
			  archive_error_string(a) ? archive_error_string(a) :
			  "cannot read its data");
		return -EIO;
	}
	t->spool_end = round_up_to(n->base + n->size, SPOOL_ALIGN);
	/* the last region's trailing hole is the file's too */
	if (ftruncate(fd, (off_t)t->spool_end)) {
		ret = -errno;
		cmd_error("cannot write the spool file of %s in %s: %m", path, t->spool_dir);
	}
	return ret;
}

static void set_times(struct tar_node *n, struct archive_entry *e, u64 now)
{
	n->mtime = archive_entry_mtime_is_set(e) ? archive_entry_mtime(e) : (s64)now;
	n->mtime_ns = archive_entry_mtime_is_set(e) ? (u32)archive_entry_mtime_nsec(e) : 0;
	n->has_atime = true;
	n->atime = archive_entry_atime_is_set(e) ? archive_entry_atime(e) : (s64)now;
	n->atime_ns = archive_entry_atime_is_set(e) ? (u32)archive_entry_atime_nsec(e) : 0;
}

/* the archive's file type bits are the host's (AE_IF* = S_IF* on Linux) */
static int entry_mode(struct archive_entry *e, const char *path, u32 *mode)
{
	*mode = archive_entry_mode(e);
	switch (*mode & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFIFO: case S_IFSOCK:
	case S_IFCHR: case S_IFBLK:
		return 0;
	}
	cmd_error("tar entry '%s': unknown file type %o", path, *mode & S_IFMT);
	return -EINVAL;
}

static int add_entry(struct rootdir_tar *t, struct archive *a, struct archive_entry *e)
{
	const char *path = archive_entry_pathname(e), *hl = archive_entry_hardlink(e);
	struct tar_node *n;
	bool stripped;
	u32 idx, target, mode = 0;
	int ret;

	if (!path) {
		cmd_error("tar entry without a path name");
		return -EINVAL;
	}
	ret = clean_path(t, path, &stripped);
	if (!ret && stripped && !t->warned_slash) {
		/* once, as tar says it */
		cmd_warning("--rootdir %s: leading '/' removed from member names (first: '%s')",
			    t->o->path, path);
		t->warned_slash = true;
	}
	if (!ret && hl) {
		ret = clean_path(t, hl, &stripped);
		if (!ret)
			ret = lookup_path(t, hl, false, &target);
		if (!ret && S_ISDIR(t->nodes[target].mode)) {
			cmd_error("tar entry '%s': hard link to the directory '%s'", path, hl);
			ret = -EINVAL;
		}
		if (!ret)
			target = t->nodes[target].leader;
		if (!ret)
			ret = clean_path(t, path, &stripped);
	}
	if (!ret && !hl)
		ret = entry_mode(e, path, &mode);
	if (!ret)
		ret = lookup_path(t, path, true, &idx);
	if (ret)
		return ret;
	n = &t->nodes[idx];
	if (!idx && (hl || !S_ISDIR(mode))) {
		cmd_error("tar entry '%s': the top directory as something else", path);
		return -EINVAL;
	}
	if (n->leader == idx && n->nlink > 1) {
		cmd_error("tar entry '%s' replaces a path other names link to: not supported", path);
		return -EINVAL;
	}
	if (S_ISDIR(n->mode) && n->nr_kids && (hl || !S_ISDIR(mode))) {
		cmd_error("tar entry '%s' replaces a directory that has entries", path);
		return -EINVAL;
	}
	if (n->leader != idx) {
		t->nodes[n->leader].nlink--;
	} else if (S_ISREG(n->mode)) {
		/* the data of the replaced entry */
		drop_region(t, n);
	}
	if (hl) {
		n->leader = target;
		t->nodes[target].nlink++;
		return 0;
	}
	n->leader = idx;
	n->nlink = 1;
	n->mode = mode;
	n->uid = (u32)archive_entry_uid(e);
	n->gid = (u32)archive_entry_gid(e);
	n->rdev_major = archive_entry_rdevmajor(e);
	n->rdev_minor = archive_entry_rdevminor(e);
	n->size = S_ISREG(mode) ? (u64)archive_entry_size(e) : 0;
	n->alloc = 0;
	n->target = 0;
	set_times(n, e, t->now);
	if (S_ISLNK(mode)) {
		const char *sl = archive_entry_symlink(e);

		ret = add_string(t, sl ? sl : "", sl ? strlen(sl) : 0, &n->target);
		n = &t->nodes[idx];
		n->size = sl ? strlen(sl) : 0;
	}
	if (!ret)
		ret = store_xattrs(t, e, n);
	if (!ret && S_ISREG(mode))
		ret = spool_data(t, a, e, idx, path);
	return ret;
}

static int cmp_kid(const void *a, const void *b, void *arg)
{
	const struct rootdir_tar *t = arg;

	return strcmp(node_name(t, *(const u32 *)a), node_name(t, *(const u32 *)b));
}

/* every directory's children as a sorted range of t->kids */
static int build_kids(struct rootdir_tar *t)
{
	size_t i, pos = 0;

	t->kids = malloc((t->nr ? t->nr : 1) * sizeof(u32));
	if (!t->kids)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		t->nodes[i].kids = (u32)pos;
		pos += t->nodes[i].nr_kids;
		t->nodes[i].nr_kids = 0;
	}
	for (i = 1; i < t->nr; i++) {
		struct tar_node *p = &t->nodes[t->nodes[i].parent];

		t->kids[p->kids + p->nr_kids++] = (u32)i;
	}
	for (i = 0; i < t->nr; i++) {
		if (t->nodes[i].nr_kids > 1)
			qsort_r(t->kids + t->nodes[i].kids, t->nodes[i].nr_kids, sizeof(u32),
				cmp_kid, t);
	}
	return 0;
}

/* what the pre-scan of the unpacked tree would count */
static void count_scan(const struct rootdir_tar *t, u32 sectorsize, struct rootdir_scan *s)
{
	size_t i;

	for (i = 1; i < t->nr; i++) {
		const struct tar_node *n = &t->nodes[i];
		const u8 *x = t->xattrs + n->xattr_off, *end = x + n->xattr_len;

		s->entries++;
		s->name_bytes += strlen(node_name(t, (u32)i));
		if (n->leader != i)
			continue;
		s->inodes++;
		while (x < end) {
			struct xattr_rec rec;

			memcpy(&rec, x, sizeof(rec));
			s->xattrs++;
			s->xattr_bytes += rec.name_len - 1 + rec.val_len;
			x += sizeof(rec) + rec.name_len + rec.val_len;
		}
		if (S_ISDIR(n->mode)) {
			s->dirs++;
		} else if (S_ISLNK(n->mode)) {
			s->inline_bytes += n->size;
		} else if (S_ISREG(n->mode) && n->size <= t->o->max_inline && n->size < sectorsize) {
			s->inline_bytes += n->size;
		} else if (S_ISREG(n->mode)) {
			u64 size = round_up_to(n->size, sectorsize);
			u64 alloc = round_up_to(n->alloc, sectorsize);

			size = alloc < size ? alloc : size;
			s->data_bytes += size;
			s->extents += size / ROOTDIR_MAX_EXTENT + 1;
		}
	}
}

static int read_archive(struct rootdir_tar *t, const char *path)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	bool seen = false;
	int r, ret = 0;
	/*
	 * pax names are UTF-8, which libarchive converts to the locale's
	 * charset: with a UTF-8 one the bytes stay the names the files had
	 */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0), old = 0;

	if (!a)
		return -ENOMEM;
	if (utf8)
		old = uselocale(utf8);
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	r = !strcmp(path, "-") ? archive_read_open_fd(a, STDIN_FILENO, 1 << 16) :
				  archive_read_open_filename(a, path, 1 << 16);
	if (r != ARCHIVE_OK) {
		cmd_error("--rootdir %s is not a directory nor a tar archive (%s)", path,
			  archive_error_string(a) ? archive_error_string(a) : "unknown format");
		ret = -EINVAL;
	}
	while (!ret) {
		r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_WARN) {
			cmd_warning("--rootdir %s: %s", path, archive_error_string(a));
		} else if (r != ARCHIVE_OK && t->nr == 1 && !seen) {
			cmd_error("--rootdir %s is not a directory nor a tar archive (%s)", path,
				  archive_error_string(a) ? archive_error_string(a) : "unknown format");
			ret = -EINVAL;
			break;
		} else if (r != ARCHIVE_OK) {
			cmd_error("--rootdir %s: %s", path, archive_error_string(a) ?
				  archive_error_string(a) : "not a tar archive");
			ret = -EINVAL;
			break;
		}
		seen = true;
		ret = add_entry(t, a, e);
	}
	archive_read_free(a);
	if (utf8) {
		uselocale(old);
		freelocale(utf8);
	}
	return ret;
}

static u32 find_kid(const struct rootdir_tar *t, long dir, const char *name);

/* every --subvol SUBDIR must be a directory of the archive (not a symlink to one) */
static int check_subvols(const struct rootdir_tar *t)
{
	const struct mkfs_rootdir_opts *o = t->o;
	char name[BTRFS_NAME_LEN + 1];
	int i;

	for (i = 0; i < o->nr_subvols; i++) {
		const char *p = o->subvols[i].rel;
		u32 cur = 0;

		while (*p && cur != NO_NODE && S_ISDIR(t->nodes[cur].mode)) {
			const char *slash = strchrnul(p, '/');
			size_t n = (size_t)(slash - p);

			if (n > BTRFS_NAME_LEN) {
				cur = NO_NODE;
				break;
			}
			memcpy(name, p, n);
			name[n] = 0;
			cur = find_kid(t, cur, name);
			p = *slash ? slash + 1 : slash;
		}
		if (cur == NO_NODE || *p || !S_ISDIR(t->nodes[cur].mode)) {
			cmd_error("--subvol %s: %s in the archive %s", o->subvols[i].rel,
				  cur == NO_NODE || *p ? "no such directory" : "not a directory",
				  o->path);
			return -EINVAL;
		}
	}
	return 0;
}

int rootdir_tar_read(const struct mkfs_rootdir_opts *o, u32 sectorsize,
		     struct rootdir_scan *scan)
{
	struct rootdir_tar *t = calloc(1, sizeof(*t));
	u32 top;
	int ret;

	if (!t)
		return -ENOMEM;
	t->o = o;
	t->now = o->now_sec;
	t->spool_dir = getenv("TMPDIR");
	if (!t->spool_dir || !*t->spool_dir)
		t->spool_dir = "/var/tmp";
	ret = new_node(t, 0, "", 0, &top);
	if (!ret)
		ret = read_archive(t, o->path);
	if (!ret)
		ret = build_kids(t);
	if (!ret)
		ret = check_subvols(t);
	free(t->hash);
	t->hash = NULL;
	if (ret) {
		rootdir_tar_free(t);
		return ret;
	}
	count_scan(t, sectorsize, scan);
	scan->tar = t;
	return 0;
}

void rootdir_tar_free(struct rootdir_tar *t)
{
	u32 i;

	if (!t)
		return;
	/* nameless: closing them is all it takes */
	for (i = 0; i < t->nr_spools; i++)
		close(t->spools[i]);
	free(t->spools);
	free(t->nodes);
	free(t->names);
	free(t->xattrs);
	free(t->hash);
	free(t->kids);
	free(t->path_buf);
	free(t);
}

/* the walk's side: handles are directory nodes */
static u32 find_kid(const struct rootdir_tar *t, long dir, const char *name)
{
	const struct tar_node *d = &t->nodes[dir];
	u32 lo = 0, hi = d->nr_kids;

	if (!name)
		return (u32)dir;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2, k = t->kids[d->kids + mid];
		int c = strcmp(name, node_name(t, k));

		if (!c)
			return k;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NO_NODE;
}

static int kid(struct rootdir_src *s, long dir, const char *name, const char *path, u32 *n)
{
	*n = find_kid(s->priv, dir, name);
	if (*n != NO_NODE)
		return 0;
	cmd_error("%s: not in the archive's index", path);
	return -ENOENT;
}

static int tar_top(struct rootdir_src *s, long *dir, struct statx *stx)
{
	*dir = 0;
	return s->stat(s, 0, NULL, "", stx);
}

static int tar_list(struct rootdir_src *s, long dir, const char *path,
		    int (*add)(void *arg, const char *name), void *arg)
{
	const struct rootdir_tar *t = s->priv;
	const struct tar_node *d = &t->nodes[dir];
	u32 i;
	int ret = 0;

	(void)path;
	for (i = 0; !ret && i < d->nr_kids; i++)
		ret = add(arg, node_name(t, t->kids[d->kids + i]));
	return ret;
}

static void set_ts(struct statx_timestamp *ts, s64 sec, u32 nsec)
{
	ts->tv_sec = sec;
	ts->tv_nsec = nsec;
}

static int tar_stat(struct rootdir_src *s, long dir, const char *name, const char *path,
		    struct statx *stx)
{
	const struct rootdir_tar *t = s->priv;
	const struct tar_node *n;
	u32 k;
	int ret = kid(s, dir, name, path, &k);

	if (ret)
		return ret;
	n = &t->nodes[t->nodes[k].leader];
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = ROOTDIR_STATX_MASK;
	stx->stx_mode = (u16)n->mode;
	stx->stx_uid = n->uid;
	stx->stx_gid = n->gid;
	stx->stx_nlink = n->nlink;
	stx->stx_ino = t->nodes[k].leader + 1ULL;
	stx->stx_size = n->size;
	stx->stx_rdev_major = n->rdev_major;
	stx->stx_rdev_minor = n->rdev_minor;
	set_ts(&stx->stx_mtime, n->mtime, n->mtime_ns);
	set_ts(&stx->stx_atime, n->atime, n->atime_ns);
	/* what extraction gives: changed and born now */
	set_ts(&stx->stx_ctime, (s64)t->now, 0);
	set_ts(&stx->stx_btime, (s64)t->now, 0);
	return 0;
}

static int tar_open_dir(struct rootdir_src *s, long dir, const char *name, const char *path,
			long *sub)
{
	u32 k;
	int ret = kid(s, dir, name, path, &k);

	*sub = k;
	return ret;
}

static void tar_close_dir(struct rootdir_src *s, long dir)
{
	(void)s;
	(void)dir;
}

static int tar_open_file(struct rootdir_src *s, long dir, const char *name, const char *path,
			 int *fd, u64 *base, struct rootdir_prefetch **pf)
{
	const struct rootdir_tar *t = s->priv;
	const struct tar_node *n;
	u32 k;
	int ret = kid(s, dir, name, path, &k);

	*pf = NULL;
	if (ret)
		return ret;
	n = &t->nodes[t->nodes[k].leader];
	*base = n->base;
	if (!n->size) {
		/* nothing spooled (maybe not even a spool file): nothing is read */
		*fd = -1;
		return 0;
	}
	*fd = t->spools[n->spool];
	return 0;
}

/*
 * A file of one name is read once: its region is freed after the copy.
 * One of hard links is read again for each subvolume its names are in
 * (the links are split there), so it stays until the end.
 */
static void tar_close_file(struct rootdir_src *s, long dir, const char *name, int fd)
{
	const struct rootdir_tar *t = s->priv;
	u32 k = find_kid(t, dir, name);

	(void)fd;
	if (k != NO_NODE && t->nodes[t->nodes[k].leader].nlink == 1)
		drop_region(t, &t->nodes[t->nodes[k].leader]);
}

static ssize_t tar_readlink(struct rootdir_src *s, long dir, const char *name,
			    const char *path, char *buf, size_t len)
{
	const struct rootdir_tar *t = s->priv;
	const char *target;
	size_t n;
	u32 k;
	int ret = kid(s, dir, name, path, &k);

	if (ret)
		return ret;
	target = t->names + t->nodes[t->nodes[k].leader].target;
	n = strlen(target);
	memcpy(buf, target, n < len ? n : len);
	return (ssize_t)(n < len ? n : len);
}

static int tar_xattrs(struct rootdir_src *s, struct btrfs_trans_handle *trans,
		      struct btrfs_root *root, u64 ino, long dir, const char *name, int fd,
		      const char *path, u64 *count)
{
	const struct rootdir_tar *t = s->priv;
	const struct tar_node *n;
	const u8 *x, *end;
	u32 k;
	int ret = kid(s, dir, name, path, &k);

	(void)fd;
	if (ret)
		return ret;
	n = &t->nodes[t->nodes[k].leader];
	x = t->xattrs + n->xattr_off;
	end = x + n->xattr_len;
	while (x < end) {
		struct xattr_rec rec;

		memcpy(&rec, x, sizeof(rec));
		ret = rootdir_insert_xattr(trans, root, ino, (const char *)x + sizeof(rec),
					   x + sizeof(rec) + rec.name_len, rec.val_len, path);
		if (ret)
			return ret;
		(*count)++;
		x += sizeof(rec) + rec.name_len + rec.val_len;
	}
	return 0;
}

void rootdir_tar_source(struct rootdir_tar *t, struct rootdir_src *src)
{
	src->priv = t;
	src->sealed = true;
	src->top = tar_top;
	src->list = tar_list;
	src->stat = tar_stat;
	src->open_dir = tar_open_dir;
	src->close_dir = tar_close_dir;
	src->open_file = tar_open_file;
	src->close_file = tar_close_file;
	src->readlink = tar_readlink;
	src->xattrs = tar_xattrs;
}

#endif
