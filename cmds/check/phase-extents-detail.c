// SPDX-License-Identifier: GPL-2.0
/*
 * Phase 5, details: for the few extents whose back references differ from
 * what the trees reference (and those referenced without an extent item),
 * collect the exact references on both sides and report each difference:
 * a back reference nobody makes, a reference with no back reference, a
 * count that differs.  The trees are walked once more for this, quietly,
 * keeping only references to those extents; the extent tree is searched
 * for each of them.  Only damaged filesystems pay for this.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "phase-extents.h"
#include "shared.h"
#include "block-set.h"
#include "tree-walk.h"
#include "iter.h"
#include "kernel-shared/ctree.h"

/* keep at most this many references in memory for the details */
#define DETAIL_MAX_REFS		(1U << 18)

struct ref_rec {
	u64 bytenr;
	struct backref ref;
};

struct ref_list {
	struct ref_rec *recs;
	size_t nr;
	size_t alloc;
	bool truncated;
};

struct detail {
	struct phase5 *p5;
	struct ref_list found;		/* from walking the trees */
	struct ref_list stored;		/* from the extent tree */
	struct block_set *seen;		/* blocks walked */
	u64 cur_bytenr;			/* extent being read from the extent tree */
};

static int ref_list_add(struct ref_list *l, u64 bytenr, const struct backref *ref)
{
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 256;
		struct ref_rec *p;

		if (n > DETAIL_MAX_REFS) {
			l->truncated = true;
			return 0;
		}
		p = realloc(l->recs, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->recs = p;
		l->alloc = n;
	}
	l->recs[l->nr].bytenr = bytenr;
	l->recs[l->nr].ref = *ref;
	l->nr++;
	return 0;
}

static int rec_cmp(const void *x, const void *y)
{
	const struct ref_rec *a = x, *b = y;

	if (a->bytenr != b->bytenr)
		return a->bytenr < b->bytenr ? -1 : 1;
	return backref_cmp(&a->ref, &b->ref);
}

/* sort entries @from.. and fold equal references into one, counts summed */
static void ref_list_fold(struct ref_list *l, size_t from)
{
	size_t i, n = from;

	if (l->nr <= from)
		return;
	qsort(l->recs + from, l->nr - from, sizeof(*l->recs), rec_cmp);
	for (i = from + 1; i < l->nr; i++) {
		if (!rec_cmp(&l->recs[n], &l->recs[i]))
			l->recs[n].ref.count += l->recs[i].ref.count;
		else
			l->recs[++n] = l->recs[i];
	}
	l->nr = n + 1;
}

/* ---- the references the trees make ---- */

static bool detail_first_visit(struct tree_walk *w, const struct walk_root *r,
			       u64 bytenr)
{
	struct detail *d = w->data;
	int ret = block_set_add(d->seen, bytenr);

	(void)r;
	if (ret < 0)
		w->error = ret;
	return ret > 0;
}

static void detail_ref(struct tree_walk *w, const struct walk_ref *wr)
{
	struct detail *d = w->data;
	struct backref ref;

	if (!block_set_has(d->p5->mismatch, wr->bytenr))
		return;
	memset(&ref, 0, sizeof(ref));
	ref.type = wr->type;
	ref.a = wr->root_or_parent;
	ref.b = wr->objectid;
	ref.c = wr->offset;
	ref.len = wr->len;
	ref.count = 1;
	if (ref_list_add(&d->found, wr->bytenr, &ref))
		w->error = -ENOMEM;
}

static int collect_found(struct detail *d)
{
	const struct check_shared *shared = d->p5->ctx->shared;
	struct tree_walk w;
	size_t i;
	int ret;

	ret = tree_walk_init(&w, d->p5->ctx);
	if (ret)
		return ret;
	d->seen = block_set_create();
	if (!d->seen) {
		tree_walk_release(&w);
		return -ENOMEM;
	}
	w.report = false;
	w.full_backref = shared->full_backref;
	w.data = d;
	w.first_visit = detail_first_visit;
	w.ref = detail_ref;
	for (i = 0; i < shared->nr_roots && !ret; i++) {
		if (!shared->roots[i].log)
			ret = tree_walk_root(&w, &shared->roots[i]);
	}
	tree_walk_release(&w);
	block_set_destroy(d->seen);
	d->seen = NULL;
	return ret;
}

/* ---- the back references the extent tree stores ---- */

static void stored_inline(void *data, const struct backref *ref)
{
	struct detail *d = data;

	if (ref_list_add(&d->stored, d->cur_bytenr, ref))
		d->p5->error = -ENOMEM;
}

/* every item of extent @bytenr: the extent item, then its keyed refs */
static int collect_stored_one(struct detail *d, u64 bytenr, u64 *len)
{
	struct btrfs_root *root = &d->p5->fs_info->extent_root;
	struct btrfs_key key = { bytenr, 0, 0 };
	struct extent_info info;
	struct btrfs_path path;
	char why[160];
	bool have_item = false;
	int ret;

	btrfs_init_path(&path);
	d->cur_bytenr = bytenr;
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		struct backref ref;

		btrfs_path_key(&path, &key);
		if (key.objectid != bytenr)
			break;
		if (key.type == BTRFS_EXTENT_ITEM_KEY || key.type == BTRFS_METADATA_ITEM_KEY) {
			if (!have_item &&
			    !extent_item_parse(d->p5->fs_info, path.nodes[0], path.slots[0],
					       &key, &info, stored_inline, d)) {
				have_item = true;
				*len = info.len;
			}
		} else if (have_item && is_keyed_backref_type(key.type)) {
			keyed_backref_parse(path.nodes[0], path.slots[0], &key, *len,
					    &ref, why, sizeof(why));
			if (ref.count && ref_list_add(&d->stored, bytenr, &ref))
				d->p5->error = -ENOMEM;
		}
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	return d->p5->error;
}

/* ---- comparing ---- */

static void describe(const struct backref *ref, u64 extent_len, char *buf, size_t len)
{
	char what[120];

	backref_describe(ref, what, sizeof(what));
	if ((ref->type == BTRFS_EXTENT_DATA_REF_KEY || ref->type == BTRFS_SHARED_DATA_REF_KEY) &&
	    ref->len != extent_len)
		snprintf(buf, len, "%s for length %llu", what, (unsigned long long)ref->len);
	else
		snprintf(buf, len, "%s", what);
}

static void report_pair(struct detail *d, u64 bytenr, u64 len,
			const struct backref *ref, u64 stored, u64 found)
{
	enum problem_code code = found > stored ? PR_EXTENT_BACKREF_MISSING :
						  PR_EXTENT_BACKREF_UNUSED;
	char what[160], detail[300];

	describe(ref, len, what, sizeof(what));
	if (!stored)
		snprintf(detail, sizeof(detail), "%s, the trees make it %llu time(s)", what,
			 (unsigned long long)found);
	else if (!found)
		snprintf(detail, sizeof(detail), "%s count %llu, no tree makes it", what,
			 (unsigned long long)stored);
	else
		snprintf(detail, sizeof(detail), "%s count %llu, the trees make it %llu time(s)",
			 what, (unsigned long long)stored, (unsigned long long)found);
	check_problem(d->p5->ctx, code, &(struct problem_ctx){
		.bytenr = bytenr, .len = len, .detail = detail });
}

static void report_missing(struct detail *d, u64 bytenr, const struct ref_rec *f,
			   size_t nf)
{
	u64 len = d->p5->fs_info->nodesize, count = 0;
	char what[160];
	size_t i;

	if (!nf) {
		check_problem(d->p5->ctx, PR_EXTENT_ITEM_MISSING, &(struct problem_ctx){
			.bytenr = bytenr, .len = len, .found = 0,
			.detail = "a reference the detail pass could not keep" });
		return;
	}
	if (f[0].ref.type == BTRFS_EXTENT_DATA_REF_KEY ||
	    f[0].ref.type == BTRFS_SHARED_DATA_REF_KEY)
		len = f[0].ref.len;
	for (i = 0; i < nf; i++)
		count += f[i].ref.count;
	describe(&f[0].ref, len, what, sizeof(what));
	check_problem(d->p5->ctx, PR_EXTENT_ITEM_MISSING, &(struct problem_ctx){
		.bytenr = bytenr, .len = len, .found = count, .detail = what });
}

/* both lists of one extent, each sorted: report what differs */
static void compare_extent(struct detail *d, u64 bytenr, u64 len,
			   const struct ref_rec *s, size_t ns,
			   const struct ref_rec *f, size_t nf)
{
	size_t i = 0, j = 0;

	while (i < ns || j < nf) {
		int c = i >= ns ? 1 : j >= nf ? -1 : backref_cmp(&s[i].ref, &f[j].ref);

		if (c < 0) {
			report_pair(d, bytenr, len, &s[i].ref, s[i].ref.count, 0);
			i++;
		} else if (c > 0) {
			report_pair(d, bytenr, len, &f[j].ref, 0, f[j].ref.count);
			j++;
		} else {
			if (s[i].ref.count != f[j].ref.count)
				report_pair(d, bytenr, len, &s[i].ref, s[i].ref.count,
					    f[j].ref.count);
			i++;
			j++;
		}
	}
}

static size_t run_of(const struct ref_list *l, size_t from, u64 bytenr)
{
	size_t n = from;

	while (n < l->nr && l->recs[n].bytenr == bytenr)
		n++;
	return n - from;
}

static int compare_all(struct detail *d, const u64 *bytenrs, size_t nr)
{
	size_t k, fi = 0;
	int ret = 0;

	for (k = 0; k < nr && !ret; k++) {
		u64 bytenr = bytenrs[k], len = d->p5->fs_info->nodesize;
		size_t s0 = d->stored.nr, ns, nf;

		while (fi < d->found.nr && d->found.recs[fi].bytenr < bytenr)
			fi++;
		nf = run_of(&d->found, fi, bytenr);
		if (block_set_has(d->p5->missing, bytenr)) {
			report_missing(d, bytenr, d->found.recs + fi, nf);
			continue;
		}
		ret = collect_stored_one(d, bytenr, &len);
		ref_list_fold(&d->stored, s0);
		ns = d->stored.nr - s0;
		compare_extent(d, bytenr, len, d->stored.recs + s0, ns,
			       d->found.recs + fi, nf);
		d->stored.nr = s0;	/* done with this extent's back references */
	}
	return ret;
}

int extents_report_details(struct phase5 *p5)
{
	struct detail d;
	u64 *bytenrs;
	size_t nr;
	int ret;

	memset(&d, 0, sizeof(d));
	d.p5 = p5;
	bytenrs = block_set_sorted(p5->mismatch, &nr);
	if (!bytenrs)
		return nr ? -ENOMEM : 0;
	ret = collect_found(&d);
	if (!ret) {
		ref_list_fold(&d.found, 0);
		if (d.found.truncated)
			check_info(p5->ctx, "too many mismatched extents: details cut short");
		ret = compare_all(&d, bytenrs, nr);
	}
	free(d.found.recs);
	free(d.stored.recs);
	free(bytenrs);
	return ret;
}
