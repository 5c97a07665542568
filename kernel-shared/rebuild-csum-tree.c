// SPDX-License-Identifier: GPL-2.0
/*
 * check --init-csum-tree: a new csum tree computed from the data.
 *
 * Memory: the data ranges are 16 bytes per file extent item, sorted and
 * merged whenever they doubled (snapshots repeat the same ranges), so the
 * list holds at most about twice one entry per distinct extent; the data is read in
 * batches of BATCH_JOBS jobs of at most JOB_SECTORS sectors, one data
 * buffer per reader thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rebuild-csum-tree.h"
#include "ranges.h"
#include "accessors.h"
#include "csum.h"
#include "ctree.h"
#include "extent-tree.h"
#include "extent_io.h"
#include "transaction.h"
#include "volumes.h"

#define JOB_SECTORS	256
#define BATCH_JOBS	64
#define MAX_THREADS	16

/*
 * The data ranges with checksums (lib/ranges.h), normalized whenever they
 * doubled since the last time: snapshots add the same ranges again.
 */
struct data_ranges {
	struct range_list list;
	size_t normalized_nr;
};

static int data_ranges_add(struct data_ranges *d, u64 start, u64 len)
{
	range_list_add(&d->list, start, len);
	if (d->list.oom)
		return -ENOMEM;
	if (d->list.nr >= 65536 && d->list.nr >= 2 * d->normalized_nr) {
		range_list_normalize(&d->list);
		d->normalized_nr = d->list.nr;
	}
	return 0;
}

/* ---- which data has checksums ---- */

/* the range of @fi that has checksums, false when none */
static bool file_extent_summed_range(const struct btrfs_fs_info *fs,
				     const struct extent_buffer *leaf, int slot,
				     u64 *start, u64 *len)
{
	const struct btrfs_file_extent_item *fi;
	u32 size = btrfs_item_size(leaf, slot);
	u64 bytenr, disk_len, off, n, mask = fs->sectorsize - 1;

	if (size < sizeof(*fi))
		return false;	/* inline (or malformed): no checksums */
	fi = btrfs_item_ptr(leaf, slot, struct btrfs_file_extent_item);
	if (btrfs_file_extent_type(fi) != BTRFS_FILE_EXTENT_REG)
		return false;
	bytenr = btrfs_file_extent_disk_bytenr(fi);
	disk_len = btrfs_file_extent_disk_num_bytes(fi);
	if (!bytenr || !disk_len || (bytenr & mask) || (disk_len & mask) ||
	    bytenr + disk_len < bytenr)
		return false;
	if (btrfs_file_extent_compression(fi)) {
		*start = bytenr;
		*len = disk_len;
		return true;
	}
	off = btrfs_file_extent_offset(fi);
	n = btrfs_file_extent_num_bytes(fi);
	if (off >= disk_len || !n)
		return false;
	/* the sectors the item uses, within the extent */
	*start = bytenr + (off & ~mask);
	n = ((off + n + mask) & ~mask) - (off & ~mask);
	if ((off & ~mask) + n > disk_len)
		n = disk_len - (off & ~mask);
	*len = n;
	return true;
}

static int collect_tree(struct btrfs_root *root, struct data_ranges *l)
{
	struct btrfs_fs_info *fs = root->fs_info;
	struct btrfs_key key = { 0, 0, 0 };
	struct btrfs_path path;
	u64 cur_ino = 0;
	bool nodatasum = false;
	int ret;

	ret = btrfs_search_first(root, &key, &path);
	if (ret < 0)
		goto out;
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];
		u64 start, len;

		btrfs_item_key_to_cpu(leaf, &key, slot);
		if (key.type == BTRFS_INODE_ITEM_KEY &&
		    btrfs_item_size(leaf, slot) >= sizeof(struct btrfs_inode_item)) {
			struct btrfs_inode_item *ii =
				btrfs_item_ptr(leaf, slot, struct btrfs_inode_item);

			cur_ino = key.objectid;
			nodatasum = btrfs_inode_flags(ii) & BTRFS_INODE_NODATASUM;
		} else if (key.type == BTRFS_EXTENT_DATA_KEY) {
			/* an extent without its inode item counts as summed */
			bool skip = key.objectid == cur_ino && nodatasum;

			if (!skip && file_extent_summed_range(fs, leaf, slot, &start, &len)) {
				ret = data_ranges_add(l, start, len);
				if (ret)
					goto out;
			}
		}
		ret = btrfs_next_item(root, &path);
	}
	if (ret > 0)
		ret = 0;
out:
	btrfs_release_path(&path);
	return ret;
}

/* every filesystem tree named by a ROOT_ITEM, reloc trees included */
static int collect_ranges(struct btrfs_fs_info *fs, struct data_ranges *l,
			  struct btrfs_csum_rebuild_stats *st)
{
	struct btrfs_root *tree_root = &fs->tree_root;
	struct btrfs_key key = { 0, BTRFS_ROOT_ITEM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	ret = btrfs_search_first(tree_root, &key, &path);
	if (ret < 0)
		goto out;
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		struct btrfs_root_item ri;
		struct tree_block_check check = { 0 };
		struct btrfs_root sub = { 0 };
		u32 size;
		int err = 0;

		btrfs_item_key_to_cpu(leaf, &key, path.slots[0]);
		if (key.type != BTRFS_ROOT_ITEM_KEY || !btrfs_is_file_tree(key.objectid))
			goto next;
		size = btrfs_item_size(leaf, path.slots[0]);
		memset(&ri, 0, sizeof(ri));
		memcpy(&ri, btrfs_item_ptr_raw(leaf, path.slots[0]),
		       size < sizeof(ri) ? size : sizeof(ri));
		check.transid = btrfs_root_generation(&ri);
		check.level = btrfs_root_level(&ri);
		check.owner = key.objectid == BTRFS_TREE_RELOC_OBJECTID ? 0 : key.objectid;
		sub.root_key = key;
		sub.fs_info = fs;
		sub.node = read_tree_block(fs, btrfs_root_bytenr(&ri), &check, &err);
		if (!sub.node) {
			/* its data cannot be found; the check reports the tree */
			goto next;
		}
		ret = collect_tree(&sub, l);
		free_extent_buffer(sub.node);
		if (ret)
			goto out;
		st->fs_trees++;
next:
		ret = btrfs_next_item(tree_root, &path);
	}
	if (ret > 0)
		ret = 0;
out:
	btrfs_release_path(&path);
	if (!ret)
		range_list_normalize(&l->list);
	return ret;
}

/* ---- the old tree, read in address order ---- */

struct old_cursor {
	struct btrfs_root root;
	struct btrfs_path path;
	bool valid;		/* path is at an item */
	bool dead;		/* nothing more to read */
	u64 start, end;		/* the current item's range */
	u64 resume;		/* !valid: nothing readable before this address */
};

static void cursor_load(struct old_cursor *c)
{
	struct btrfs_fs_info *fs = c->root.fs_info;
	struct btrfs_key key;
	u32 size;

	btrfs_path_key(&c->path, &key);
	size = btrfs_item_size(c->path.nodes[0], c->path.slots[0]);
	c->start = key.offset;
	c->end = key.offset;
	if (key.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
	    key.type == BTRFS_EXTENT_CSUM_KEY && !(size % fs->csum_size))
		c->end = key.offset + (u64)(size / fs->csum_size) * fs->sectorsize;
}

/*
 * A block on the way to @bytenr cannot be read: the lowest key after that
 * block's range (from its parents), where reading may go on; 0 when the
 * way to @bytenr reads fine or nothing follows the block.
 */
static u64 skip_unreadable(struct old_cursor *c, u64 bytenr)
{
	struct btrfs_key want = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, bytenr };
	struct extent_buffer *eb = extent_buffer_get(c->root.node);
	u64 hi = (u64)-1;

	while (btrfs_eb_level(eb) > 0) {
		struct tree_block_check check = { .level = btrfs_eb_level(eb) - 1 };
		u32 i, nr = btrfs_eb_nritems(eb), slot = 0;
		struct extent_buffer *child;
		struct btrfs_key key;
		int err = 0;

		for (i = 1; i < nr; i++) {
			btrfs_node_key_to_cpu(eb, &key, (int)i);
			if (btrfs_comp_cpu_keys(&key, &want) > 0)
				break;
			slot = i;
		}
		if (slot + 1 < nr) {
			btrfs_node_key_to_cpu(eb, &key, (int)slot + 1);
			if (key.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
			    key.type == BTRFS_EXTENT_CSUM_KEY && key.offset < hi)
				hi = key.offset;
		}
		check.transid = btrfs_node_ptr_generation(eb, (int)slot);
		child = read_tree_block(c->root.fs_info, btrfs_node_blockptr(eb, (int)slot),
					&check, &err);
		free_extent_buffer(eb);
		if (!child)
			return hi == (u64)-1 ? 0 : hi;
		eb = child;
	}
	free_extent_buffer(eb);
	return 0;
}

/* position at the item holding @bytenr or the first one after it */
static int cursor_seek(struct old_cursor *c, u64 bytenr)
{
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, bytenr };
	int ret;

	btrfs_release_path(&c->path);
	ret = btrfs_search_slot(NULL, &c->root, &key, &c->path, 0, 0);
	if (ret < 0)
		return ret;
	if (ret > 0 && c->path.slots[0] > 0) {
		c->path.slots[0]--;	/* the item before may cover @bytenr */
	} else if (ret > 0 && btrfs_prev_item(&c->root, &c->path)) {
		btrfs_release_path(&c->path);
		ret = btrfs_search_slot(NULL, &c->root, &key, &c->path, 0, 0);
		if (ret < 0)
			return ret;
	}
	ret = btrfs_path_fixup_slot(&c->root, &c->path);
	if (ret < 0)
		return ret;
	if (ret > 0) {
		c->dead = true;		/* past the last item */
		return 0;
	}
	c->valid = true;
	cursor_load(c);
	return 0;
}

/* an unreadable block at or after @bytenr: go on after it, if anything follows */
static void cursor_broken(struct old_cursor *c, u64 bytenr)
{
	c->valid = false;
	c->resume = skip_unreadable(c, bytenr);
	if (c->resume <= bytenr)
		c->dead = true;
}

static int cursor_init(struct old_cursor *c, struct btrfs_fs_info *fs,
		       struct extent_buffer *old_node)
{
	memset(c, 0, sizeof(*c));
	btrfs_init_path(&c->path);
	c->root.root_key.objectid = BTRFS_CSUM_TREE_OBJECTID;
	c->root.root_key.type = BTRFS_ROOT_ITEM_KEY;
	c->root.fs_info = fs;
	c->root.node = old_node;
	if (!old_node) {
		c->dead = true;
		return 0;
	}
	if (cursor_seek(c, 0))
		cursor_broken(c, 0);
	return 0;
}

/*
 * The old checksum of the sector at @bytenr (ascending calls): true if
 * any.  Unreadable blocks of the old tree are stepped over: the sums of
 * the blocks after them still count.
 */
static bool cursor_get(struct old_cursor *c, u64 bytenr, u8 *out)
{
	struct btrfs_fs_info *fs = c->root.fs_info;
	const u8 *p;
	int tries;

	for (tries = 0; tries < 4 && !c->dead; tries++) {
		if (!c->valid) {
			if (bytenr < c->resume)
				return false;
			if (cursor_seek(c, bytenr)) {
				cursor_broken(c, bytenr);
				continue;
			}
			if (!c->valid)
				break;
		}
		while (c->end <= bytenr) {
			int ret = btrfs_next_item(&c->root, &c->path);

			if (ret > 0) {
				c->dead = true;
				break;
			}
			if (ret < 0) {
				cursor_broken(c, c->end);
				break;
			}
			cursor_load(c);
		}
		if (c->valid || c->dead)
			break;
	}
	if (c->dead || !c->valid || bytenr < c->start || bytenr >= c->end)
		return false;
	p = btrfs_item_ptr_raw(c->path.nodes[0], c->path.slots[0]);
	memcpy(out, p + (bytenr - c->start) / fs->sectorsize * fs->csum_size,
	       fs->csum_size);
	return true;
}

static void cursor_release(struct old_cursor *c)
{
	btrfs_release_path(&c->path);
}

/* ---- reading and summing, on several threads ---- */

struct sum_job {
	u64 start;
	u32 nr;			/* sectors */
	u8 *sums;		/* nr * csum_size */
	u8 *ok;			/* per sector: the first copy read */
};

struct sum_batch {
	struct btrfs_fs_info *fs;
	struct sum_job jobs[BATCH_JOBS];
	int nr_jobs;
	int next;		/* next job to take */
	pthread_mutex_t lock;
};

static void sum_job_run(struct btrfs_fs_info *fs, struct sum_job *job, u8 *buf)
{
	u32 ss = fs->sectorsize, i;
	u8 digest[BTRFS_CSUM_SIZE];

	if (btrfs_read_logical(fs, job->start, buf, (u64)job->nr * ss, 0)) {
		/* sector by sector: keep what reads */
		for (i = 0; i < job->nr; i++)
			job->ok[i] = !btrfs_read_logical(fs, job->start + (u64)i * ss,
							 buf + (size_t)i * ss, ss, 0);
	} else {
		memset(job->ok, 1, job->nr);
	}
	for (i = 0; i < job->nr; i++) {
		if (!job->ok[i])
			continue;
		btrfs_csum_data(fs->csum_type, buf + (size_t)i * ss, ss, digest);
		memcpy(job->sums + (size_t)i * fs->csum_size, digest, fs->csum_size);
	}
}

static void *sum_worker(void *arg)
{
	struct sum_batch *b = arg;
	u8 *buf = malloc((size_t)JOB_SECTORS * b->fs->sectorsize);

	for (;;) {
		int idx;

		pthread_mutex_lock(&b->lock);
		idx = b->next < b->nr_jobs ? b->next++ : -1;
		pthread_mutex_unlock(&b->lock);
		if (idx < 0)
			break;
		if (buf) {
			sum_job_run(b->fs, &b->jobs[idx], buf);
		} else {
			memset(b->jobs[idx].ok, 0, b->jobs[idx].nr);
		}
	}
	free(buf);
	return NULL;
}

static void sum_batch_run(struct sum_batch *b, int nr_threads)
{
	pthread_t tids[MAX_THREADS];
	int i, started = 0;

	b->next = 0;
	for (i = 1; i < nr_threads && i < b->nr_jobs; i++) {
		if (pthread_create(&tids[started], NULL, sum_worker, b))
			break;
		started++;
	}
	sum_worker(b);		/* the calling thread reads too */
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

/* ---- writing the new tree ---- */

struct item_writer {
	struct btrfs_trans_handle *trans;
	struct btrfs_root *root;
	u64 start;		/* first sector of the pending item */
	u32 nr;			/* sectors in it */
	u32 max;		/* sums per item, as the kernel packs them */
	u8 *sums;
	u64 items;
};

static int writer_flush(struct item_writer *w)
{
	struct btrfs_fs_info *fs = w->trans->fs_info;
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, w->start };
	int ret;

	if (!w->nr)
		return 0;
	ret = btrfs_insert_item(w->trans, w->root, &key, w->sums, w->nr * fs->csum_size);
	w->nr = 0;
	if (!ret)
		w->items++;
	return ret;
}

static int writer_add(struct item_writer *w, u64 bytenr, const u8 *sum)
{
	struct btrfs_fs_info *fs = w->trans->fs_info;
	int ret;

	if (w->nr && (w->nr == w->max ||
		      w->start + (u64)w->nr * fs->sectorsize != bytenr)) {
		ret = writer_flush(w);
		if (ret)
			return ret;
	}
	if (!w->nr)
		w->start = bytenr;
	memcpy(w->sums + (size_t)w->nr * fs->csum_size, sum, fs->csum_size);
	w->nr++;
	return 0;
}

/* decide the checksum of each sector of @job and queue it for the tree */
static int job_commit(struct btrfs_fs_info *fs, struct sum_job *job,
		      struct old_cursor *old, struct item_writer *w,
		      struct btrfs_csum_rebuild_stats *st, u8 *sector)
{
	u32 ss = fs->sectorsize, cs = fs->csum_size, i;
	u8 was[BTRFS_CSUM_SIZE], got[BTRFS_CSUM_SIZE];
	int ret;

	for (i = 0; i < job->nr; i++) {
		u64 bytenr = job->start + (u64)i * ss;
		const u8 *sum = job->sums + (size_t)i * cs;
		bool had = cursor_get(old, bytenr, was);

		if (job->ok[i] && had && !memcmp(sum, was, cs)) {
			st->same++;
		} else if (job->ok[i] && !had) {
			st->added++;
		} else {
			/* first copy unreadable or not matching the old sum */
			int copies = btrfs_num_copies(fs, bytenr, ss), m;
			bool kept = false;

			for (m = 1; had && m <= copies; m++) {
				if (btrfs_read_logical(fs, bytenr, sector, ss, m))
					continue;
				btrfs_csum_data(fs->csum_type, sector, ss, got);
				if (!memcmp(got, was, cs)) {
					kept = true;
					break;
				}
			}
			if (kept) {
				st->kept_old++;
				sum = was;
			} else if (job->ok[i]) {
				st->changed++;
			} else if (had) {
				/* nothing readable: the old sum is all there is */
				st->unreadable++;
				sum = was;
			} else {
				st->unreadable++;
				continue;
			}
		}
		ret = writer_add(w, bytenr, sum);
		if (ret)
			return ret;
		st->sectors++;
	}
	return 0;
}

static int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

static int build_new_tree(struct btrfs_trans_handle *trans, const struct range_list *l,
			  struct old_cursor *old, int nr_threads,
			  struct btrfs_csum_rebuild_stats *st)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct item_writer w = { .trans = trans, .root = &fs->csum_root };
	struct sum_batch *b;
	u8 *sector = malloc(fs->sectorsize);
	size_t r = 0;
	u64 pos = 0;
	int i, ret = 0;

	w.max = (u32)((btrfs_leaf_data_size(fs->nodesize) - 2 * sizeof(struct btrfs_item)) /
		      fs->csum_size - 1);
	w.sums = malloc((size_t)w.max * fs->csum_size);
	b = calloc(1, sizeof(*b));
	if (!b || !w.sums || !sector) {
		ret = -ENOMEM;
		goto out;
	}
	b->fs = fs;
	pthread_mutex_init(&b->lock, NULL);
	for (i = 0; i < BATCH_JOBS; i++) {
		b->jobs[i].sums = malloc((size_t)JOB_SECTORS * fs->csum_size);
		b->jobs[i].ok = malloc(JOB_SECTORS);
		if (!b->jobs[i].sums || !b->jobs[i].ok)
			ret = -ENOMEM;
	}
	if (ret)
		goto out_batch;
	if (l->nr)
		pos = l->r[0].start;
	st->ranges = l->nr;
	while (r < l->nr) {
		/* cut the next jobs out of the ranges */
		for (b->nr_jobs = 0; b->nr_jobs < BATCH_JOBS && r < l->nr; b->nr_jobs++) {
			struct sum_job *job = &b->jobs[b->nr_jobs];
			u64 end = l->r[r].end;
			u64 n = (end - pos) / fs->sectorsize;

			job->start = pos;
			job->nr = n > JOB_SECTORS ? JOB_SECTORS : (u32)n;
			pos += (u64)job->nr * fs->sectorsize;
			if (pos >= end && ++r < l->nr)
				pos = l->r[r].start;
		}
		sum_batch_run(b, nr_threads);
		for (i = 0; i < b->nr_jobs && !ret; i++)
			ret = job_commit(fs, &b->jobs[i], old, &w, st, sector);
		if (ret)
			break;
	}
	if (!ret)
		ret = writer_flush(&w);
	st->items = w.items;
out_batch:
	for (i = 0; i < BATCH_JOBS; i++) {
		free(b->jobs[i].sums);
		free(b->jobs[i].ok);
	}
	pthread_mutex_destroy(&b->lock);
out:
	free(b);
	free(w.sums);
	free(sector);
	return ret;
}

/* ---- dropping the old tree ---- */

struct freed_set {
	u64 *v;
	size_t nr;
	size_t alloc;
};

static int freed_add(struct freed_set *f, u64 bytenr)
{
	if (f->nr == f->alloc) {
		size_t n = f->alloc ? f->alloc * 2 : 256;
		u64 *v = realloc(f->v, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		f->alloc = n;
	}
	f->v[f->nr++] = bytenr;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static bool freed_has(const struct freed_set *f, u64 bytenr)
{
	return f->nr && bsearch(&bytenr, f->v, f->nr, sizeof(*f->v), cmp_u64);
}

/*
 * Free a block that cannot be read: a stand-in buffer carries what the
 * engine needs (address, generation, level, written).
 */
static int free_unreadable(struct btrfs_trans_handle *trans, u64 bytenr,
			   u64 generation, int level)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct extent_buffer *eb = alloc_dummy_extent_buffer(fs, bytenr, fs->nodesize);
	struct btrfs_header *h;
	int ret;

	if (!eb)
		return -ENOMEM;
	h = eb_header(eb);
	btrfs_set_header_bytenr(h, bytenr);
	btrfs_set_header_generation(h, generation);
	btrfs_set_header_level(h, (u8)level);
	btrfs_set_header_owner(h, BTRFS_CSUM_TREE_OBJECTID);
	btrfs_set_header_flags(h, BTRFS_HEADER_FLAG_WRITTEN);
	ret = btrfs_free_tree_block(trans, &trans->fs_info->csum_root, eb);
	free_extent_buffer(eb);
	return ret;
}

static int free_old_block(struct btrfs_trans_handle *trans, struct extent_buffer *eb,
			  struct freed_set *freed, struct btrfs_csum_rebuild_stats *st)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	int level = btrfs_eb_level(eb), ret = 0;
	u32 i, nr = btrfs_eb_nritems(eb);

	for (i = 0; level > 0 && i < nr && !ret; i++) {
		struct tree_block_check check = {
			.transid = btrfs_node_ptr_generation(eb, (int)i),
			.level = level - 1,
			.owner = BTRFS_CSUM_TREE_OBJECTID,
		};
		struct extent_buffer *child;
		int err = 0;

		child = read_tree_block(fs, btrfs_node_blockptr(eb, (int)i), &check, &err);
		if (!child) {
			st->old_lost++;
			continue;
		}
		ret = free_old_block(trans, child, freed, st);
		free_extent_buffer(child);
	}
	if (!ret)
		ret = freed_add(freed, eb->start);
	if (ret)
		return ret;
	ret = btrfs_free_tree_block(trans, &fs->csum_root, eb);
	if (!ret)
		st->old_blocks++;
	return ret;
}

/* the owner root of a tree block's extent item when it has one keyed ref */
static bool extent_item_csum_block(const struct btrfs_fs_info *fs,
				   const struct extent_buffer *leaf, int slot,
				   const struct btrfs_key *key, u64 *gen, int *level)
{
	u32 size = btrfs_item_size(leaf, slot), off = sizeof(struct btrfs_extent_item);
	const u8 *p = btrfs_item_ptr_raw(leaf, slot);
	const struct btrfs_extent_item *ei = (const void *)p;
	const struct btrfs_extent_inline_ref *ref;

	if (size < off)
		return false;
	if (key->type == BTRFS_METADATA_ITEM_KEY) {
		*level = (int)key->offset;
	} else if (key->type == BTRFS_EXTENT_ITEM_KEY && key->offset == fs->nodesize &&
		   (btrfs_extent_flags(ei) & BTRFS_EXTENT_FLAG_TREE_BLOCK)) {
		if (size < off + sizeof(struct btrfs_tree_block_info))
			return false;
		*level = ((const struct btrfs_tree_block_info *)(p + off))->level;
		off += sizeof(struct btrfs_tree_block_info);
	} else {
		return false;
	}
	if (size < off + sizeof(*ref) || btrfs_extent_refs(ei) != 1)
		return false;
	ref = (const void *)(p + off);
	if (ref->type != BTRFS_TREE_BLOCK_REF_KEY ||
	    get_unaligned_le64(&ref->offset) != BTRFS_CSUM_TREE_OBJECTID)
		return false;
	*gen = btrfs_extent_generation(ei);
	return true;
}

/*
 * Part of the old tree could not be read: free every block the extent
 * tree gives to the csum tree that the walk did not reach (the new
 * tree's blocks, created in this transaction, have no item yet).
 */
static int free_lost_blocks(struct btrfs_trans_handle *trans, struct freed_set *freed,
			    struct btrfs_csum_rebuild_stats *st)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct btrfs_root *root = btrfs_extent_root(fs);
	struct btrfs_key key = { 0, 0, 0 };
	struct freed_set lost = { 0 };
	struct btrfs_path path;
	u64 *gens = NULL;
	int *levels = NULL;
	size_t i;
	int ret;

	if (freed->nr)
		qsort(freed->v, freed->nr, sizeof(*freed->v), cmp_u64);
	ret = btrfs_search_first(root, &key, &path);
	if (ret < 0)
		goto out;
	while (ret == 0) {
		u64 gen;
		int level;

		btrfs_path_key(&path, &key);
		if (extent_item_csum_block(fs, path.nodes[0], path.slots[0], &key,
					   &gen, &level) &&
		    gen < trans->transid && !freed_has(freed, key.objectid)) {
			size_t n = lost.nr;

			ret = freed_add(&lost, key.objectid);
			if (!ret && lost.alloc != n) {
				u64 *g = realloc(gens, lost.alloc * sizeof(*g));
				int *l = g ? realloc(levels, lost.alloc * sizeof(*l)) : NULL;

				if (g)
					gens = g;
				if (l)
					levels = l;
				if (!g || !l)
					ret = -ENOMEM;
			}
			if (ret)
				goto out;
			gens[n] = gen;
			levels[n] = level;
		}
		ret = btrfs_next_item(root, &path);
	}
	if (ret < 0)
		goto out;
	btrfs_release_path(&path);
	/* freed after the walk: freeing queues changes to the extent tree */
	for (i = 0, ret = 0; i < lost.nr && !ret; i++) {
		ret = free_unreadable(trans, lost.v[i], gens[i], levels[i]);
		if (!ret)
			st->old_blocks++;
	}
out:
	btrfs_release_path(&path);
	free(lost.v);
	free(gens);
	free(levels);
	return ret;
}

int btrfs_rebuild_csum_tree(struct btrfs_trans_handle *trans, int nr_threads,
			    struct btrfs_csum_rebuild_stats *stats)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	struct data_ranges ranges = { 0 };
	struct freed_set freed = { 0 };
	struct extent_buffer *old_node, *leaf;
	struct old_cursor old;
	int ret;

	memset(stats, 0, sizeof(*stats));
	range_list_init(&ranges.list);
	if (nr_threads <= 0)
		nr_threads = default_threads();
	if (nr_threads > MAX_THREADS)
		nr_threads = MAX_THREADS;
	if (!fs->csum_root.has_root_item && !fs->csum_root.node)
		return -ENOENT;
	ret = collect_ranges(fs, &ranges, stats);
	if (ret)
		goto out;
	/* the new tree starts as an empty leaf; the old root stays readable */
	old_node = fs->csum_root.node;
	leaf = btrfs_alloc_tree_block(trans, &fs->csum_root, 0, NULL, &ret);
	if (!leaf)
		goto out;
	fs->csum_root.node = leaf;
	btrfs_root_mark_dirty(fs, &fs->csum_root);
	cursor_init(&old, fs, old_node);
	ret = build_new_tree(trans, &ranges.list, &old, nr_threads, stats);
	cursor_release(&old);
	if (!ret && old_node)
		ret = free_old_block(trans, old_node, &freed, stats);
	else if (!old_node)
		stats->old_lost++;
	free_extent_buffer(old_node);
	if (!ret && stats->old_lost)
		ret = free_lost_blocks(trans, &freed, stats);
out:
	free(freed.v);
	range_list_release(&ranges.list);
	return ret;
}
