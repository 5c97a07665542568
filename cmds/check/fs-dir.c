// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 7: names.  A link "dir D holds name N for inode I" is written
 * three times: a DIR_ITEM in D keyed by the name hash (colliding names
 * share one item), a DIR_INDEX in D keyed by the entry's sequence number,
 * and an INODE_REF in I keyed by D (or an INODE_EXTREF keyed by a hash of
 * D and N when the refs outgrow a leaf).  The three must agree on the
 * name, the inode, the index and the file type.
 *
 * A directory's DIR_ITEMs come right before its DIR_INDEXes, so the two
 * are paired while the directory is read; the pair becomes one "entry"
 * link record (32 bytes), appended in (dir, index) order since that is
 * the order of the stream.  An inode ref usually comes after its entry
 * (directories are mostly older than what they hold): it is looked up
 * by (dir, index), and when it agrees in every respect the entry is
 * marked and nothing more is kept.  Whatever does not pair that way (a
 * ref met before its directory, a mismatch, an entry missing half of
 * itself) is kept aside; when the tree ends the unmarked entries join it,
 * and all are sorted by (dir, inode, name hash, name length) and merged,
 * which is where findings are made.  So a healthy tree costs one record
 * per name.  Names are read again only to report a mismatch.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fs-trees.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/inode.h"
#include "kernel-shared/tree-checker.h"
#include "array.h"

#define FS_NAME_SHOWN	(BTRFS_NAME_LEN + 1)

static int fs_link_add(struct fs_tree *t, struct fs_links *list,
		       const struct fs_link *l)
{
	if (t->error)
		return t->error;
	if (list->nr == list->alloc) {
		/* grow by half: the arrays are most of this phase's memory */
		size_t n = list->alloc ? list->alloc + list->alloc / 2 : 1024;
		struct fs_link *p = realloc(list->v, n * sizeof(*p));

		if (!p) {
			t->error = -ENOMEM;
			return t->error;
		}
		list->v = p;
		list->alloc = n;
	}
	list->v[list->nr++] = *l;
	return 0;
}

void fs_links_release(struct fs_tree *t)
{
	free(t->entries.v);
	free(t->extra.v);
	memset(&t->entries, 0, sizeof(t->entries));
	memset(&t->extra, 0, sizeof(t->extra));
}

/* entries go in stream order; anything out of it is merged by sorting */
static void add_entry(struct fs_tree *t, const struct fs_link *l)
{
	const struct fs_link *last = t->entries.nr ? &t->entries.v[t->entries.nr - 1] : NULL;

	if (!last || last->parent < l->parent ||
	    (last->parent == l->parent && last->index < l->index))
		fs_link_add(t, &t->entries, l);
	else
		fs_link_add(t, &t->extra, l);
}

/* the entry of (dir, index), if the stream has passed it */
static struct fs_link *find_entry(struct fs_tree *t, u64 parent, u64 index)
{
	size_t lo = 0, hi = t->entries.nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fs_link *e = &t->entries.v[mid];

		if (e->parent < parent || (e->parent == parent && e->index < index))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->entries.nr && t->entries.v[lo].parent == parent &&
	    t->entries.v[lo].index == index)
		return &t->entries.v[lo];
	return NULL;
}

/* an inode ref that agrees with its entry in every respect uses it up */
static bool ref_pairs_cleanly(struct fs_tree *t, const struct fs_link *r)
{
	struct fs_link *e = find_entry(t, r->parent, r->index);
	const u8 complete = FS_LINK_HAS_ITEM | FS_LINK_HAS_INDEX;

	if (!e || (e->flags & (FS_LINK_MATCHED | FS_LINK_SUBVOL)) ||
	    (e->flags & complete) != complete || e->child != r->child ||
	    e->hash != r->hash || e->name_len != r->name_len ||
	    (r->type != BTRFS_FT_UNKNOWN && r->type != e->type))
		return false;
	e->flags |= FS_LINK_MATCHED;
	return true;
}

/* a name as it may be printed: control and non-ASCII bytes become '?' */
static void show_name(const u8 *name, u32 len, char *buf, size_t size)
{
	u32 i;

	if (!size)
		return;
	for (i = 0; i < len && i + 1 < size; i++)
		buf[i] = (name[i] < 0x20 || name[i] >= 0x7f) ? '?' : (char)name[i];
	buf[i] = 0;
}

static u8 entry_type(const struct btrfs_dir_item *di)
{
	return btrfs_dir_type(di) & ~BTRFS_FT_ENCRYPTED;
}

static const char *type_name(u8 type)
{
	static const char *const names[] = {
		"unknown", "file", "dir", "chrdev", "blkdev", "fifo", "sock",
		"symlink", "xattr",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "invalid";
}

static void report_entry(struct fs_tree *t, enum problem_code code, u64 dir,
			 const u8 *name, u32 name_len, const char *detail,
			 u64 found, u64 expected)
{
	char shown[FS_NAME_SHOWN];

	show_name(name, name_len, shown, sizeof(shown));
	fs_problem(t, code, &(struct problem_ctx){
		.root = t->root_id, .inode = dir, .name = shown, .detail = detail,
		.found = found, .expected = expected });
}

/* entries in an inode that is not a directory: said once per inode */
static void check_parent_is_dir(struct fs_tree *t)
{
	struct fs_inode *in = &t->ino;

	if (!in->has_item || in->bad_mode || in->reported_not_dir ||
	    S_ISDIR(in->mode))
		return;
	in->reported_not_dir = true;
	fs_problem(t, PR_INODE_INVALID, &(struct problem_ctx){
		.root = t->root_id, .inode = in->ino,
		.detail = "has dir entries but is not a directory" });
}

/*
 * What a dir entry points to: an inode of this tree or the root of a
 * subvolume.  False (after a finding) when it is neither.
 */
static bool entry_location(struct fs_tree *t, const struct btrfs_dir_item *di,
			   const u8 *name, u32 name_len, u64 *child, u8 *flags)
{
	struct btrfs_key loc;
	char detail[96];

	btrfs_disk_key_to_cpu(&loc, &di->location);
	*child = loc.objectid;
	*flags = 0;
	if (loc.type == BTRFS_INODE_ITEM_KEY && loc.objectid >= BTRFS_FIRST_FREE_OBJECTID &&
	    loc.objectid <= BTRFS_LAST_FREE_OBJECTID)
		return true;
	if (loc.type == BTRFS_ROOT_ITEM_KEY &&
	    loc.objectid >= BTRFS_FIRST_FREE_OBJECTID &&
	    loc.objectid <= BTRFS_LAST_FREE_OBJECTID) {
		*flags = FS_LINK_SUBVOL;
		return true;
	}
	snprintf(detail, sizeof(detail), "location (%" PRIu64 " %u %" PRIu64
		 ") is neither an inode nor a subvolume",
		 loc.objectid, loc.type, loc.offset);
	report_entry(t, PR_DIR_ENTRY_INVALID, t->ino.ino, name, name_len, detail, 0, 0);
	return false;
}

static int pend_add(struct fs_tree *t, const struct fs_dir_pending *p)
{
	if (ARRAY_RESERVE(t->pend, t->alloc_pend, t->nr_pend + 1, 256)) {
		t->error = -ENOMEM;
		return t->error;
	}
	t->pend[t->nr_pend++] = *p;
	t->pend_sorted = false;
	return 0;
}

/* an entry of the DIR_ITEM at @slot before @upto with the same name */
static void check_duplicate(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
			    u32 upto, const u8 *name, u32 name_len)
{
	struct btrfs_name_entry e = { 0 };

	while (btrfs_next_item_name(leaf, slot, &e) > 0 && e.off < upto) {
		if (e.name_len == name_len && !memcmp(e.name, name, name_len)) {
			report_entry(t, PR_DIR_ENTRY_DUPLICATE, t->ino.ino, name,
				     name_len, NULL, 0, 0);
			return;
		}
	}
}

/* DIR_ITEM: phase 3 checked that the entries fit the item */
void fs_dir_item(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		 const struct btrfs_key *key)
{
	struct btrfs_name_entry e = { 0 };

	check_parent_is_dir(t);
	while (btrfs_next_item_name(leaf, slot, &e) > 0) {
		const struct btrfs_dir_item *di = e.di;
		u32 name_len = e.name_len;
		const u8 *name = e.name;
		struct fs_dir_pending pend = { 0 };
		u32 hash = (u32)btrfs_name_hash((const char *)name, name_len);

		t->ino.dir_names += name_len;
		if (!name_len) {
			report_entry(t, PR_DIR_ENTRY_INVALID, t->ino.ino, name, 0,
				     "empty name in a dir item", 0, 0);
		} else {
			if (hash != key->offset)
				report_entry(t, PR_DIR_ITEM_HASH, t->ino.ino, name,
					     name_len, NULL, key->offset, hash);
			check_duplicate(t, leaf, slot, e.off, name, name_len);
			if (!t->light && !t->ino.orphan &&
			    entry_location(t, di, name, name_len, &pend.child, &pend.flags)) {
				pend.hash = hash;
				pend.name_len = name_len;
				pend.type = entry_type(di);
				pend_add(t, &pend);
			}
		}
	}
}

static int cmp_pending(const void *a, const void *b)
{
	const struct fs_dir_pending *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	return 0;
}

/* the first unmatched DIR_ITEM entry with this name and inode */
static struct fs_dir_pending *pend_find(struct fs_tree *t, u32 hash, u8 name_len,
					u64 child)
{
	struct fs_dir_pending want = { .child = child, .hash = hash, .name_len = name_len };
	size_t lo = 0, hi = t->nr_pend;

	if (!t->nr_pend)
		return NULL;
	if (!t->pend_sorted) {
		qsort(t->pend, t->nr_pend, sizeof(*t->pend), cmp_pending);
		t->pend_sorted = true;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_pending(&t->pend[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->nr_pend && !cmp_pending(&t->pend[lo], &want); lo++)
		if (!t->pend[lo].matched)
			return &t->pend[lo];
	return NULL;
}

/* DIR_INDEX: one entry per item (phase 3 checked) */
void fs_dir_index(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		  const struct btrfs_key *key)
{
	const struct btrfs_dir_item *di = btrfs_item_ptr(leaf, slot, struct btrfs_dir_item);
	u32 name_len = btrfs_dir_name_len(di);
	const u8 *name = (const u8 *)(di + 1);
	struct fs_link link = { .parent = t->ino.ino, .index = key->offset };
	struct fs_dir_pending *pend;
	char detail[96];

	check_parent_is_dir(t);
	t->ino.dir_names += name_len;
	if (!name_len) {
		report_entry(t, PR_DIR_ENTRY_INVALID, t->ino.ino, name, 0,
			     "empty name in a dir index", 0, 0);
		return;
	}
	if (t->light || t->ino.orphan ||
	    !entry_location(t, di, name, name_len, &link.child, &link.flags))
		return;
	link.hash = (u32)btrfs_name_hash((const char *)name, name_len);
	link.name_len = name_len;
	link.type = entry_type(di);
	link.flags |= FS_LINK_HAS_INDEX;
	pend = pend_find(t, link.hash, link.name_len, link.child);
	if (pend) {
		pend->matched = 1;
		link.flags |= FS_LINK_HAS_ITEM;
		if (pend->type != link.type) {
			snprintf(detail, sizeof(detail), "dir item type %s, dir index type %s",
				 type_name(pend->type), type_name(link.type));
			report_entry(t, PR_DIR_ENTRY_MISMATCH, t->ino.ino, name,
				     name_len, detail, 0, 0);
		}
	}
	add_entry(t, &link);
}

void fs_dir_finish(struct fs_tree *t)
{
	size_t i;

	for (i = 0; i < t->nr_pend; i++) {
		const struct fs_dir_pending *p = &t->pend[i];

		if (p->matched)
			continue;
		fs_link_add(t, &t->extra, &(struct fs_link){
			.parent = t->ino.ino, .child = p->child, .hash = p->hash,
			.name_len = p->name_len, .type = p->type,
			.flags = p->flags | FS_LINK_HAS_ITEM });
	}
	t->nr_pend = 0;
	t->pend_sorted = false;
}

/* one name of an inode ref or extref */
static void add_ref(struct fs_tree *t, u64 parent, u64 index, const u8 *name,
		    u32 name_len, u8 flags)
{
	struct fs_inode *in = &t->ino;
	struct fs_link link = {
		.parent = parent, .child = in->ino, .index = index,
		.flags = flags | FS_LINK_REF,
	};

	in->nr_refs++;
	if (t->light)
		return;
	if (!name_len || name_len > BTRFS_NAME_LEN) {
		fs_problem(t, PR_INODE_REF_INVALID, &(struct problem_ctx){
			.root = t->root_id, .inode = in->ino, .index = index,
			.found = parent, .detail = name_len ? "name too long" : "empty name" });
		return;
	}
	/* the root directory's ".." names itself and has no dir entry */
	if (parent == in->ino && in->ino == t->root_dirid)
		return;
	if (parent == in->ino) {
		fs_problem(t, PR_INODE_REF_INVALID, &(struct problem_ctx){
			.root = t->root_id, .inode = in->ino, .index = index,
			.found = parent, .detail = "the inode names itself as its directory" });
		return;
	}
	link.hash = (u32)btrfs_name_hash((const char *)name, name_len);
	link.name_len = name_len;
	if (!in->has_item)
		link.flags |= FS_LINK_NO_INODE;
	else if (!in->bad_mode)
		link.type = btrfs_mode_to_type(in->mode);
	if (!ref_pairs_cleanly(t, &link))
		fs_link_add(t, &t->extra, &link);
}

/* INODE_REF (inode, parent): entries of index, name_len, name */
void fs_inode_ref(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		  const struct btrfs_key *key)
{
	struct btrfs_name_entry e = { 0 };

	while (btrfs_next_item_name(leaf, slot, &e) > 0)
		add_ref(t, key->offset, e.index, e.name, e.name_len, 0);
}

/* INODE_EXTREF (inode, hash(parent, name)): parent, index, name_len, name */
void fs_inode_extref(struct fs_tree *t, const struct extent_buffer *leaf, int slot,
		     const struct btrfs_key *key)
{
	struct btrfs_name_entry e = { 0 };
	char detail[96];

	while (btrfs_next_item_name(leaf, slot, &e) > 0) {
		u64 hash = btrfs_extref_hash(e.parent, (const char *)e.name, e.name_len);

		if (hash != key->offset) {
			snprintf(detail, sizeof(detail),
				 "extref key offset %" PRIu64 " is not the hash %" PRIu64
				 " of its directory and name", key->offset, hash);
			fs_problem(t, PR_INODE_REF_INVALID, &(struct problem_ctx){
				.root = t->root_id, .inode = t->ino.ino,
				.index = e.index, .found = e.parent,
				.detail = detail });
		}
		add_ref(t, e.parent, e.index, e.name, e.name_len, FS_LINK_EXTREF);
	}
}

/* ---- merge ---- */

static int cmp_link(const void *a, const void *b)
{
	const struct fs_link *x = a, *y = b;
	u8 xr = x->flags & FS_LINK_REF, yr = y->flags & FS_LINK_REF;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	if (xr != yr)
		return xr < yr ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return 0;
}

static bool same_name(const struct fs_link *a, const struct fs_link *b)
{
	return a->parent == b->parent && a->child == b->child &&
	       a->hash == b->hash && a->name_len == b->name_len;
}

/* does this dir item / index / ref entry name the link? */
static bool name_matches(const struct fs_link *l, const u8 *name, u32 name_len)
{
	return name_len == l->name_len &&
	       (u32)btrfs_name_hash((const char *)name, name_len) == l->hash;
}

/*
 * Find the link's name in the items of type @type of @objectid, from
 * key offset @offset (exact when @exact); false when it is not there.
 */
static bool name_in_items(struct fs_tree *t, const struct fs_link *l, u64 objectid,
			  u8 type, u64 offset, bool exact, char *buf, size_t size)
{
	struct btrfs_key key = { objectid, type, exact ? offset : 0 };
	struct btrfs_path path;
	bool found = false;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &t->root, &key, &path, 0, 0);
	if (ret > 0)
		ret = exact ? 1 : btrfs_path_fixup_slot(&t->root, &path);
	while (ret == 0 && !found) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];
		struct btrfs_name_entry e = { 0 };
		struct tree_check_error err;

		btrfs_path_key(&path, &key);
		if (key.objectid != objectid || key.type != type ||
		    (exact && key.offset != offset))
			break;
		if (btrfs_check_item(t->ctx->fs_info, leaf, slot, &err))
			goto next;
		while (!found && btrfs_next_item_name(leaf, slot, &e) > 0) {
			/* an INODE_REF's parent is its key: any entry may match */
			if (type == BTRFS_INODE_EXTREF_KEY ? e.parent != l->parent :
			    type != BTRFS_INODE_REF_KEY && e.location.objectid != l->child)
				continue;
			if (e.name_len && name_matches(l, e.name, e.name_len)) {
				show_name(e.name, e.name_len, buf, size);
				found = true;
			}
		}
next:
		if (exact)
			break;
		ret = btrfs_next_item(&t->root, &path);
	}
	btrfs_release_path(&path);
	return found;
}

/*
 * Names found only by scanning all items of a type of one inode (extrefs,
 * dir items under a wrong hash): a damaged tree could make that quadratic,
 * so after this many scans a name is shown by its hash.
 */
#define FS_NAME_SCANS_MAX	256

static bool may_scan(struct fs_tree *t)
{
	return t->name_scans++ < FS_NAME_SCANS_MAX;
}

/* the name of a link record, read back from the tree for a message */
static void link_name(struct fs_tree *t, const struct fs_link *l, char *buf, size_t size)
{
	bool found;

	if (l->flags & FS_LINK_REF)
		found = name_in_items(t, l, l->child, BTRFS_INODE_REF_KEY, l->parent,
				      true, buf, size) ||
			((l->flags & FS_LINK_EXTREF) && may_scan(t) &&
			 name_in_items(t, l, l->child, BTRFS_INODE_EXTREF_KEY, 0,
				       false, buf, size));
	else if (l->flags & FS_LINK_HAS_INDEX)
		found = name_in_items(t, l, l->parent, BTRFS_DIR_INDEX_KEY, l->index,
				      true, buf, size);
	else
		found = name_in_items(t, l, l->parent, BTRFS_DIR_ITEM_KEY, l->hash,
				      true, buf, size) ||
			(may_scan(t) &&
			 name_in_items(t, l, l->parent, BTRFS_DIR_ITEM_KEY, 0,
				       false, buf, size));
	if (!found)
		snprintf(buf, size, "(name hash %u length %u)", l->hash, l->name_len);
}

static bool inode_exists(struct fs_tree *t, u64 ino)
{
	struct btrfs_key key = { ino, BTRFS_INODE_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, &t->root, &key, &path, 0, 0);
	btrfs_release_path(&path);
	return ret == 0;
}

static void report_link(struct fs_tree *t, enum problem_code code,
			const struct fs_link *named, u64 inode, u64 index,
			u64 found, u64 expected, const char *detail)
{
	char name[FS_NAME_SHOWN + 32];

	link_name(t, named, name, sizeof(name));
	fs_problem(t, code, &(struct problem_ctx){
		.root = t->root_id, .inode = inode, .index = index, .name = name,
		.found = found, .expected = expected, .detail = detail });
}

/* a dir entry and the inode ref of the same name */
static void check_pair(struct fs_tree *t, const struct fs_link *e, const struct fs_link *r)
{
	char detail[128];

	if (!(e->flags & FS_LINK_HAS_INDEX))
		report_link(t, PR_DIR_INDEX_MISSING, e, e->parent, r->index, 0, 0, NULL);
	else if (e->index != r->index) {
		snprintf(detail, sizeof(detail), "dir index %" PRIu64 ", inode ref index %" PRIu64,
			 e->index, r->index);
		report_link(t, PR_DIR_ENTRY_MISMATCH, e, e->parent, 0, 0, 0, detail);
	}
	if (!(e->flags & FS_LINK_HAS_ITEM))
		report_link(t, PR_DIR_ITEM_MISSING, e, e->parent, e->index, 0, 0, NULL);
	if (r->type != BTRFS_FT_UNKNOWN && e->type != r->type) {
		snprintf(detail, sizeof(detail), "type %s, but inode %" PRIu64 " is a %s",
			 type_name(e->type), e->child, type_name(r->type));
		report_link(t, PR_DIR_ENTRY_MISMATCH, e, e->parent, 0, 0, 0, detail);
	}
}

/* a dir entry no inode ref answers */
static void check_lone_entry(struct fs_tree *t, const struct fs_link *e)
{
	if (e->flags & FS_LINK_SUBVOL) {
		/* a subvolume has no inode ref here; its root ref is phase 4's */
		if (!(e->flags & FS_LINK_HAS_INDEX))
			report_link(t, PR_DIR_INDEX_MISSING, e, e->parent, 0, 0, 0, NULL);
		if (!(e->flags & FS_LINK_HAS_ITEM))
			report_link(t, PR_DIR_ITEM_MISSING, e, e->parent, e->index, 0, 0, NULL);
		if (e->type != BTRFS_FT_DIR)
			report_link(t, PR_DIR_ENTRY_MISMATCH, e, e->parent, 0, 0, 0,
				    "points to a subvolume but its type is not dir");
		return;
	}
	if (!inode_exists(t, e->child)) {
		report_link(t, PR_DIR_ENTRY_DANGLING, e, e->parent, e->index, e->child, 0, NULL);
		return;
	}
	report_link(t, PR_INODE_REF_MISSING, e, e->parent, e->index, e->child, 0, NULL);
	if (!(e->flags & FS_LINK_HAS_INDEX))
		report_link(t, PR_DIR_INDEX_MISSING, e, e->parent, 0, 0, 0, NULL);
	if (!(e->flags & FS_LINK_HAS_ITEM))
		report_link(t, PR_DIR_ITEM_MISSING, e, e->parent, e->index, 0, 0, NULL);
}

/*
 * One group: every record of one name in one directory for one inode.
 * Entries sort before refs and each kind by index, so a ref pairs first
 * with the entry of its index (a merge of the two runs), then with an
 * entry left over; linear however many records a damaged tree repeats.
 */
static void merge_group(struct fs_tree *t, struct fs_link *g, size_t n)
{
	size_t ne = 0, i, j;
	bool *used;

	while (ne < n && !(g[ne].flags & FS_LINK_REF))
		ne++;
	if (ne == 1 && n == 2) {
		check_pair(t, &g[0], &g[1]);
		return;
	}
	used = calloc(n, sizeof(*used));
	if (!used) {
		t->error = -ENOMEM;
		return;
	}
	for (i = 0, j = ne; i < ne && j < n;) {
		if (!(g[i].flags & FS_LINK_HAS_INDEX) || g[i].index < g[j].index) {
			i++;
		} else if (g[i].index > g[j].index) {
			j++;
		} else {
			used[i] = used[j] = true;
			check_pair(t, &g[i++], &g[j++]);
		}
	}
	for (i = 0, j = ne; i < ne && j < n;) {
		if (used[i]) {
			i++;
		} else if (used[j]) {
			j++;
		} else {
			used[i] = used[j] = true;
			check_pair(t, &g[i++], &g[j++]);
		}
	}
	for (i = 0; i < n; i++) {
		if (used[i])
			continue;
		if (i < ne)
			check_lone_entry(t, &g[i]);
		else
			report_link(t, PR_INODE_REF_UNMATCHED, &g[i], g[i].child,
				    g[i].index, g[i].parent, 0, NULL);
	}
	free(used);
}

/* unmarked entries join the records kept aside */
static void gather_unmatched(struct fs_tree *t)
{
	size_t i;

	for (i = 0; i < t->entries.nr && !t->error; i++)
		if (!(t->entries.v[i].flags & FS_LINK_MATCHED))
			fs_link_add(t, &t->extra, &t->entries.v[i]);
	free(t->entries.v);
	memset(&t->entries, 0, sizeof(t->entries));
}

void fs_links_merge(struct fs_tree *t)
{
	struct fs_links *x = &t->extra;
	size_t i, start;

	gather_unmatched(t);
	if (t->error) {
		check_info(t->ctx, "root %" PRIu64 ": out of memory, names not cross-checked",
			   t->root_id);
		goto out;
	}
	if (x->nr)
		qsort(x->v, x->nr, sizeof(*x->v), cmp_link);
	for (start = 0; start < x->nr; start = i) {
		for (i = start + 1; i < x->nr && same_name(&x->v[start], &x->v[i]); i++)
			;
		merge_group(t, &x->v[start], i - start);
	}
out:
	fs_links_release(t);
}
