// SPDX-License-Identifier: GPL-2.0
/*
 * The read-ahead of --rootdir.  A thread walks the host directory in the
 * walk's order (rootdir-walk.c: a directory's sorted entries, then its
 * subdirectories) ahead of the writer and makes the system calls the
 * writer would make: listing and sorting directories, statx, opening
 * regular files, reading their xattrs, asking for their holes as the data
 * writer asks (rootdir-data.c's next_segment()), reading their data, and
 * reading symlinks.  The writer takes the results, in the same order,
 * through a struct rootdir_src; a failure is reported when the writer
 * gets there, with the host source's message (rootdir-host.c), so the
 * output and the exit status do not change.
 *
 * With --compress the thread also runs the kernel's sampling heuristic
 * over the pieces the data writer will cut (add_data()'s walk over ranges,
 * chunks and pieces, the heuristic's answers only), and the pieces are
 * compressed by whichever thread has time: the reader when its window is
 * full, extra workers, the writer when it comes to one nobody took.
 *
 * The writer keeps every decision: what it gets here is a cache, looked
 * up by what it asks (a read of a range, a seek, a piece), and whatever
 * is not in it (a file not read ahead: a second name of a hard-linked
 * file, --reflink; a seek or a read not foreseen) it asks the host for
 * itself, through the descriptors the records hold.  So the image is the
 * same whatever the thread count.
 *
 * Bounded: file data sits in one ring of the window's bytes, in chunks of
 * at most RA_CHUNK; at most max_records records (each with at most one
 * open descriptor) are out.  A file larger than the ring streams through
 * it: the writer frees the chunks behind its reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include "rootdir-internal.h"
#include "kernel-shared/compression.h"
#include "kernel-shared/file-item.h"
#include "cmds/commands.h"

#define RA_CHUNK		(1U << 20)
#define RA_PIECES		(RA_CHUNK / BTRFS_MAX_UNCOMPRESSED)
#define RA_DEFAULT_WINDOW	(16ULL << 20)
/* a writer's largest read, and room to stream a file past it */
#define RA_MIN_WINDOW		(ROOTDIR_READ_BUF + 4ULL * RA_CHUNK)
#define RA_MAX_WINDOW		(1ULL << 30)
#define RA_MAX_RECORDS		2048
/* the reader is woken when this many records can be freed */
#define RA_WAKE_RECORDS		64
#define RA_SEEKS		8
/* fewer records than this ahead: the reader is the slower one */
#define RA_AHEAD		64
#define RA_NONE			UINT64_MAX

enum ra_job_state { JOB_PENDING, JOB_RUNNING, JOB_DONE, JOB_CANCELLED };

/* a piece to compress (as the data writer will ask for it) */
struct ra_job {
	u64 off;
	u32 len;
	bool whole_file;	/* the file as an inline extent */
	bool heuristic;		/* false: nothing to compress */
	u8 state;
	int ret;
	size_t clen;
	u8 *out;
};

/* file data in the ring */
struct ra_chunk {
	struct rootdir_prefetch *pf;
	u64 off;		/* file offset */
	size_t len;		/* bytes read (zeros follow to a sector) */
	size_t pos;		/* in the ring */
	size_t sums;		/* the sectors' checksums in the ring (not with --compress) */
	size_t end;		/* the ring is taken up to here */
	bool released;
	int running;		/* jobs reading it */
	int nr_jobs;
	struct ra_job *jobs;	/* RA_PIECES of them (--compress) */
};

struct rootdir_prefetch {
	struct ra *ra;
	int fd;
	u64 size;
	/* lseek() answers in the order asked: the offset or -errno */
	struct {
		u64 off;
		s64 res;
		int whence;
	} seeks[RA_SEEKS];
	int nr_seeks;
	u64 c_first, c_end;	/* its chunks, by sequence number */
	u64 read_upto;		/* what is below was read (or is a hole) */
	u64 eof_at;		/* a read met end of file there */
	u64 err_at;		/* a read failed there, with @err */
	int err;
	bool done;		/* the reader is through with it */
	bool abandoned;		/* the writer is */
	u64 failed_at;		/* a piece there did not compress: not the later ones */
	/* the reader's walk over the pieces of the segment being read */
	bool whole_inline;
	u64 seg, seg_end, skip_to;
};

enum ra_kind { RA_DIR, RA_ENTRY };

struct ra_rec {
	struct ra_rec *next;		/* the queue, then the free list */
	struct ra_rec *all_prev, *all_next;
	struct ra_rec *parent;
	enum ra_kind kind;
	int refs;
	char *name;			/* NULL: the top directory */
	int err;			/* stat (entry), open or stat (directory) */
	enum rootdir_host_op failed;
	struct statx stx;
	int fd;
	/* a directory: its names, sorted */
	struct rootdir_names names;
	int list_err;
	bool readdir_failed;
	/* an entry */
	bool opened;			/* a regular file the reader opened (or tried: @open_err) */
	int open_err;
	bool have_xattrs;
	struct rootdir_xattrs xattrs;
	char *target;			/* a symlink's, @target_len bytes or -errno */
	ssize_t target_len;
	struct rootdir_prefetch pf;
};

struct ra {
	pthread_mutex_t lock;
	pthread_cond_t wake_writer, wake_reader, wake_workers;
	bool writer_waits, reader_waits;
	int workers_wait;
	bool stop, reader_done;
	int reader_err;
	/* what to read */
	const char *top_path;
	const struct mkfs_rootdir_opts *o;
	const struct rootdir_image *image;
	struct rootdir_links *xattr_inodes;
	u32 sectorsize, max_inline;
	u16 csum_type;
	u32 csum_size;
	bool read_data, sums;
	u8 compress_type;
	int compress_level;
	/* records: the queue the writer takes from, all of them, the freed */
	struct ra_rec *head, *tail, *cur, *freed, *all;
	size_t records, queued, nr_freed, max_records;
	/* the ring and its chunks, a circular array in sequence order */
	u8 *ring;
	size_t ring_size, ring_head, ring_tail;
	struct ra_chunk *chunks;
	struct ra_job *jobs;
	u64 nr_chunks, q_first, q_end;
	/* below job_low and from job_high on no chunk has a piece to compress */
	u64 job_low, job_high;
	/* threads */
	pthread_t reader;
	bool reader_started;
	pthread_t *workers;
	int nr_workers;
	struct btrfs_compress_ws *writer_ws;
	u8 *writer_scratch;
	/* the reader's */
	u64 top_dev;
	struct rootdir_path path;
	struct rootdir_links linked;	/* hard-linked files read already */
};

static u64 round_up_to(u64 v, u64 a)
{
	return (v + a - 1) / a * a;
}

static u64 stx_dev(const struct statx *stx)
{
	return makedev(stx->stx_dev_major, stx->stx_dev_minor);
}

size_t rootdir_ra_window(void)
{
	const char *env = getenv("GHEE_MKFS_READAHEAD");
	unsigned long long v;
	char *end;

	if (!env || !*env)
		return RA_DEFAULT_WINDOW;
	v = strtoull(env, &end, 10);
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	if (*end)
		return RA_DEFAULT_WINDOW;
	if (!v)
		return 0;
	if (v < RA_MIN_WINDOW)
		return RA_MIN_WINDOW;
	return v > RA_MAX_WINDOW ? RA_MAX_WINDOW : v;
}

/* ---- waking (all under the lock) ---- */

static void wake_writer(struct ra *ra)
{
	if (ra->writer_waits)
		pthread_cond_signal(&ra->wake_writer);
}

static void wake_reader(struct ra *ra)
{
	if (ra->reader_waits)
		pthread_cond_signal(&ra->wake_reader);
}

static void free_records(struct ra *ra);

/*
 * The writer waits for the reader (or a job): the reader may go on first.
 * It frees what the reader would free, if anything, instead (and
 * returns: the caller looks again).
 */
static void writer_wait(struct ra *ra)
{
	if (ra->freed) {
		free_records(ra);
		return;
	}
	wake_reader(ra);
	ra->writer_waits = true;
	pthread_cond_wait(&ra->wake_writer, &ra->lock);
	ra->writer_waits = false;
}

/* ---- the ring ---- */

static struct ra_chunk *chunk_at(struct ra *ra, u64 seq)
{
	return &ra->chunks[seq % ra->nr_chunks];
}

static size_t ring_used(const struct ra *ra)
{
	if (ra->q_first == ra->q_end)
		return 0;
	if (ra->ring_head > ra->ring_tail)
		return ra->ring_head - ra->ring_tail;
	return ra->ring_size - ra->ring_tail + ra->ring_head;
}

/* room for @need bytes at *@pos? (only the reader allocates) */
static bool ring_fit(struct ra *ra, size_t need, size_t *pos)
{
	if (ra->q_first == ra->q_end)
		ra->ring_head = ra->ring_tail = 0;
	if (ra->q_first == ra->q_end || ra->ring_head > ra->ring_tail) {
		if (ra->ring_size - ra->ring_head >= need) {
			*pos = ra->ring_head;
			return true;
		}
		/* the end of the ring is skipped: freed with this chunk */
		if (ra->ring_tail >= need) {
			*pos = 0;
			return true;
		}
		return false;
	}
	if (ra->ring_tail - ra->ring_head >= need) {
		*pos = ra->ring_head;
		return true;
	}
	return false;
}

static void free_job_outputs(struct ra_chunk *c)
{
	int i;

	for (i = 0; i < c->nr_jobs; i++) {
		free(c->jobs[i].out);
		c->jobs[i].out = NULL;
	}
}

/* give the ring back behind the oldest chunks nobody needs */
static void reclaim(struct ra *ra)
{
	while (ra->q_first < ra->q_end) {
		struct ra_chunk *c = chunk_at(ra, ra->q_first);

		if (!c->released || c->running)
			break;
		free_job_outputs(c);
		ra->ring_tail = c->end;
		ra->q_first++;
	}
	if (ra->reader_waits && ring_used(ra) <= ra->ring_size / 2)
		wake_reader(ra);
}

static void release_chunk(struct ra_chunk *c)
{
	int i;

	c->released = true;
	for (i = 0; i < c->nr_jobs; i++) {
		if (c->jobs[i].state == JOB_PENDING)
			c->jobs[i].state = JOB_CANCELLED;
	}
}

/* @pf's chunks that end at or before @below (RA_NONE: all) are not needed */
static void release_chunks(struct ra *ra, struct rootdir_prefetch *pf, u64 below)
{
	while (pf->c_first < pf->c_end) {
		struct ra_chunk *c = chunk_at(ra, pf->c_first);

		if (below != RA_NONE && c->off + c->len > below)
			break;
		release_chunk(c);
		pf->c_first++;
	}
	reclaim(ra);
}

/* ---- records ---- */

static void unref(struct ra *ra, struct ra_rec *r)
{
	if (--r->refs)
		return;
	r->next = ra->freed;
	ra->freed = r;
	if (++ra->nr_freed >= RA_WAKE_RECORDS || ra->nr_freed >= ra->max_records / 4)
		wake_reader(ra);
}

static void free_rec(struct ra_rec *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->name);
	rootdir_names_free(&r->names);
	free(r->target);
	rootdir_xattrs_free(&r->xattrs);
	free(r);
}

/* free the records nobody holds any more (the reader, outside the lock) */
static void free_records(struct ra *ra)
{
	struct ra_rec *list = ra->freed, *r;

	if (!list)
		return;
	ra->freed = NULL;
	for (r = list; r; r = r->next) {
		if (r->all_prev)
			r->all_prev->all_next = r->all_next;
		else
			ra->all = r->all_next;
		if (r->all_next)
			r->all_next->all_prev = r->all_prev;
		ra->records--;
	}
	ra->nr_freed = 0;
	pthread_mutex_unlock(&ra->lock);
	while (list) {
		r = list;
		list = r->next;
		free_rec(r);
	}
	pthread_mutex_lock(&ra->lock);
}

static void publish(struct ra *ra, struct ra_rec *r)
{
	pthread_mutex_lock(&ra->lock);
	if (ra->tail)
		ra->tail->next = r;
	else
		ra->head = r;
	ra->tail = r;
	ra->queued++;
	wake_writer(ra);
	pthread_mutex_unlock(&ra->lock);
}

/* ---- compressing ---- */

/* a piece of chunk @c nobody took, the last one when @last */
static struct ra_job *chunk_job(struct ra_chunk *c, bool last)
{
	struct ra_job *found = NULL;
	int i;

	for (i = 0; i < c->nr_jobs && (last || !found); i++) {
		struct ra_job *j = &c->jobs[i];

		if (j->state != JOB_PENDING)
			continue;
		if (c->released || j->off >= c->pf->failed_at)
			j->state = JOB_CANCELLED;
		else
			found = j;
	}
	return found;
}

/*
 * A piece nobody took (under the lock): the oldest, which the writer
 * needs next, or (@newest, for the reader) the newest, so that the two do
 * not meet until the pieces between them are done.
 */
static bool pick_job(struct ra *ra, bool newest, struct ra_chunk **cp, struct ra_job **jp)
{
	u64 low = ra->job_low > ra->q_first ? ra->job_low : ra->q_first;
	u64 high = ra->job_high < ra->q_end ? ra->job_high : ra->q_end;
	struct ra_job *j = NULL;

	while (low < high && !j) {
		*cp = chunk_at(ra, newest ? high - 1 : low);
		j = chunk_job(*cp, newest);
		if (!j && newest)
			high--;
		else if (!j)
			low++;
	}
	ra->job_low = low;
	ra->job_high = high;
	*jp = j;
	return j;
}

/* run a job claimed under the lock; the lock is dropped meanwhile */
static void run_job(struct ra *ra, struct btrfs_compress_ws *ws, u8 *scratch,
		    struct ra_chunk *c, struct ra_job *j)
{
	const u8 *in = ra->ring + c->pos + (j->off - c->off);
	size_t clen = BTRFS_MAX_UNCOMPRESSED;
	u8 *out = NULL;
	int ret;

	j->state = JOB_RUNNING;
	c->running++;
	pthread_mutex_unlock(&ra->lock);
	ret = rootdir_compress_small_ws(ws, ra->compress_type, ra->compress_level,
					ra->sectorsize, in, j->len,
					j->whole_file ? ra->max_inline : 0, scratch, &clen);
	if (!ret) {
		out = malloc(clen ? clen : 1);
		if (out)
			memcpy(out, scratch, clen);
	}
	pthread_mutex_lock(&ra->lock);
	c->running--;
	if (!ret && !out) {
		/* no memory: the writer does it itself */
		j->state = JOB_CANCELLED;
	} else {
		j->ret = ret;
		j->clen = clen;
		j->out = out;
		j->state = JOB_DONE;
		/* a released chunk's record may be freed already */
		if (ret == -E2BIG && !j->whole_file && !c->released &&
		    j->off < c->pf->failed_at)
			c->pf->failed_at = j->off;
	}
	if (c->released && !c->running)
		reclaim(ra);
	if (ra->writer_waits)
		pthread_cond_broadcast(&ra->wake_writer);
}

/* one piece compressed, if there was one (under the lock) */
static bool help_compress(struct ra *ra, struct btrfs_compress_ws *ws, u8 *scratch,
			  bool newest)
{
	struct ra_chunk *c;
	struct ra_job *j;

	if (!ws || !scratch || !pick_job(ra, newest, &c, &j))
		return false;
	run_job(ra, ws, scratch, c, j);
	return true;
}

struct ra_thread {
	struct btrfs_compress_ws *ws;
	u8 *scratch;
};

static void thread_init(struct ra *ra, struct ra_thread *t)
{
	t->ws = NULL;
	t->scratch = NULL;
	if (ra->compress_type == BTRFS_COMPRESS_NONE)
		return;
	t->ws = btrfs_compress_ws_alloc();
	t->scratch = malloc(BTRFS_MAX_UNCOMPRESSED);
}

static void thread_exit(struct ra_thread *t)
{
	btrfs_compress_ws_free(t->ws);
	free(t->scratch);
}

static void *worker_main(void *arg)
{
	struct ra *ra = arg;
	struct ra_thread t;

	thread_init(ra, &t);
	pthread_mutex_lock(&ra->lock);
	while (!ra->stop) {
		if (help_compress(ra, t.ws, t.scratch, false))
			continue;
		ra->workers_wait++;
		pthread_cond_wait(&ra->wake_workers, &ra->lock);
		ra->workers_wait--;
	}
	pthread_mutex_unlock(&ra->lock);
	thread_exit(&t);
	return NULL;
}

/* ---- the reader ---- */

/*
 * Wait (under the lock) until a record may be made (@need_bytes 0) or
 * the ring has @need_bytes at *@pos; compress meanwhile.  -ECANCELED
 * when stopped.
 */
static int reader_wait(struct ra *ra, struct ra_thread *t, size_t need_bytes, size_t *pos)
{
	for (;;) {
		free_records(ra);
		if (ra->stop)
			return -ECANCELED;
		/*
		 * An empty queue means the writer waits for the reader: a
		 * record more, whatever the count (deep trees hold one
		 * directory per level, as the walk does).
		 */
		if (need_bytes ? ring_fit(ra, need_bytes, pos) :
				 ra->records < ra->max_records || !ra->head)
			return 0;
		if (help_compress(ra, t->ws, t->scratch, true))
			continue;
		ra->reader_waits = true;
		pthread_cond_wait(&ra->wake_reader, &ra->lock);
		ra->reader_waits = false;
	}
}

static int new_rec(struct ra *ra, struct ra_thread *t, enum ra_kind kind,
		   struct ra_rec *parent, const char *name, struct ra_rec **ret)
{
	struct ra_rec *r;
	int err;

	pthread_mutex_lock(&ra->lock);
	err = reader_wait(ra, t, 0, NULL);
	pthread_mutex_unlock(&ra->lock);
	if (err)
		return err;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (name) {
		r->name = strdup(name);
		if (!r->name) {
			free(r);
			return -ENOMEM;
		}
	}
	r->kind = kind;
	r->parent = parent;
	r->refs = 1;
	r->fd = -1;
	r->pf.fd = -1;
	r->pf.ra = ra;
	pthread_mutex_lock(&ra->lock);
	r->all_next = ra->all;
	if (ra->all)
		ra->all->all_prev = r;
	ra->all = r;
	ra->records++;
	pthread_mutex_unlock(&ra->lock);
	*ret = r;
	return 0;
}

static void list_dir(struct ra_rec *d)
{
	d->list_err = rootdir_host_list(d->fd, rootdir_names_add, &d->names, &d->readdir_failed);
	if (!d->list_err)
		rootdir_names_sort(&d->names);
}

/* lseek() as next_segment() asks it, the answer kept for the writer */
static off_t ask_seek(struct ra *ra, struct rootdir_prefetch *pf, u64 off, int whence)
{
	off_t res = lseek(pf->fd, (off_t)off, whence);
	int err = errno;

	if (pf->nr_seeks < RA_SEEKS) {
		pf->seeks[pf->nr_seeks].off = off;
		pf->seeks[pf->nr_seeks].whence = whence;
		pf->seeks[pf->nr_seeks].res = res < 0 ? -err : res;
		pthread_mutex_lock(&ra->lock);
		pf->nr_seeks++;
		pthread_mutex_unlock(&ra->lock);
	}
	errno = err;
	return res;
}

/* next_segment(): [*@data, *@hole) at or after @off; 1 none, -1 failed */
static int next_segment(struct ra *ra, struct rootdir_prefetch *pf, u64 off, bool data_only,
			u64 *data, u64 *hole)
{
	off_t d = ask_seek(ra, pf, off, SEEK_DATA), h;

	if (d < 0) {
		if (errno == ENXIO)
			return 1;
		if (errno != EINVAL)
			return -1;
		*data = off;
		*hole = pf->size;
		return 0;
	}
	*data = (u64)d;
	*hole = pf->size;
	if (!data_only) {
		h = ask_seek(ra, pf, (u64)d, SEEK_HOLE);
		if (h < 0)
			return -1;
		if ((u64)h < pf->size)
			*hole = (u64)h;
	}
	return (u64)d >= pf->size ? 1 : 0;
}

static void add_job(struct ra_chunk *c, u64 off, u32 len, bool whole_file, bool heuristic)
{
	struct ra_job *j = &c->jobs[c->nr_jobs++];

	memset(j, 0, sizeof(*j));
	j->off = off;
	j->len = len;
	j->whole_file = whole_file;
	j->heuristic = heuristic;
	j->state = heuristic ? JOB_PENDING : JOB_DONE;
}

/*
 * The pieces of chunk @c the data writer will try to compress, as
 * add_data() walks them: 128 KiB pieces from the segment's start; the
 * heuristic saying no to the first piece of a 128 MiB range leaves the
 * range plain, to another piece (or a piece of a single block) the rest
 * of its 512 KiB chunk.  A file of at most a sector is one inline try.
 */
static void plan_pieces(struct ra *ra, struct rootdir_prefetch *pf, struct ra_chunk *c,
			size_t want)
{
	const u8 *data = ra->ring + c->pos;
	u64 p;

	if (pf->whole_inline) {
		add_job(c, 0, (u32)pf->size, true,
			btrfs_compress_heuristic(data, ra->sectorsize));
		return;
	}
	for (p = c->off; p < c->off + want; p += BTRFS_MAX_UNCOMPRESSED) {
		u64 rel = p - pf->seg, n = pf->seg_end - p, range, range_end, chunk_end;
		bool heuristic;

		if (n > BTRFS_MAX_UNCOMPRESSED)
			n = BTRFS_MAX_UNCOMPRESSED;
		if (p < pf->skip_to)
			continue;
		range = pf->seg + rel / ROOTDIR_MAX_EXTENT * ROOTDIR_MAX_EXTENT;
		range_end = pf->seg_end - range < ROOTDIR_MAX_EXTENT ? pf->seg_end :
			    range + ROOTDIR_MAX_EXTENT;
		chunk_end = pf->seg + (rel / ROOTDIR_COMPRESS_CHUNK + 1) * ROOTDIR_COMPRESS_CHUNK;
		if (chunk_end > range_end)
			chunk_end = range_end;
		if (n <= ra->sectorsize) {
			pf->skip_to = chunk_end;
			continue;
		}
		heuristic = btrfs_compress_heuristic(data + (p - c->off), n);
		add_job(c, p, (u32)n, false, heuristic);
		if (!heuristic)
			pf->skip_to = p == range ? range_end : chunk_end;
	}
}

/* chunk @c (made at the ring's head) goes to the writer */
static void publish_chunk(struct ra *ra, struct rootdir_prefetch *pf, struct ra_chunk *c,
			  u64 upto)
{
	u64 seq = ra->q_end;
	int i;

	pthread_mutex_lock(&ra->lock);
	ra->ring_head = c->end;
	ra->q_end++;
	if (c->nr_jobs)
		ra->job_high = ra->q_end;
	if (pf->c_first == pf->c_end)
		pf->c_first = seq;
	pf->c_end = seq + 1;
	pf->read_upto = upto;
	if (pf->abandoned)
		release_chunks(ra, pf, RA_NONE);
	wake_writer(ra);
	for (i = 0; i < c->nr_jobs && ra->workers_wait; i++) {
		if (c->jobs[i].state == JOB_PENDING) {
			pthread_cond_signal(&ra->wake_workers);
			break;
		}
	}
	pthread_mutex_unlock(&ra->lock);
}

/*
 * Read [@seg, min(@seg_end, size)) in chunks from @seg (so no 128 KiB
 * piece spans two), asking for the byte after the size where the data
 * ends there, as read_data() does.  1: the file ended early, a read
 * failed or the writer left it: no more.
 */
static int read_segment(struct ra *ra, struct ra_thread *t, struct rootdir_prefetch *pf,
			u64 seg, u64 seg_end)
{
	u64 stop = seg_end < pf->size ? seg_end : pf->size, cs;
	bool compress = ra->compress_type != BTRFS_COMPRESS_NONE;

	pf->seg = seg;
	pf->seg_end = seg_end;
	for (cs = seg; cs < stop; cs += RA_CHUNK) {
		size_t want = stop - cs < RA_CHUNK ? (size_t)(stop - cs) : RA_CHUNK;
		bool to_end = cs + want == pf->size, sums;
		size_t data = round_up_to(want + to_end, ra->sectorsize), pos, alloc;
		struct ra_chunk *c;
		ssize_t got;
		int ret;

		pthread_mutex_lock(&ra->lock);
		/* the checksums, unless the writer waits for the reader (it works them out then) */
		sums = ra->sums && !ra->writer_waits &&
		       (ra->queued >= RA_AHEAD || ring_used(ra) >= ra->ring_size / 2);
		alloc = data + (sums ? round_up_to(want, ra->sectorsize) / ra->sectorsize *
				ra->csum_size : 0);
		ret = reader_wait(ra, t, alloc, &pos);
		if (!ret && pf->abandoned)
			ret = 1;
		pthread_mutex_unlock(&ra->lock);
		if (ret)
			return ret;
		got = rootdir_read_full(pf->fd, ra->ring + pos, want + to_end, cs, want, 0);
		if (got < 0) {
			pthread_mutex_lock(&ra->lock);
			pf->err = (int)got;
			pf->err_at = cs;
			pthread_mutex_unlock(&ra->lock);
			return 1;
		}
		c = chunk_at(ra, ra->q_end);
		memset(c, 0, sizeof(*c));
		if (ra->jobs)
			c->jobs = ra->jobs + ra->q_end % ra->nr_chunks * RA_PIECES;
		c->pf = pf;
		c->off = cs;
		c->len = (size_t)got;
		c->pos = pos;
		c->end = pos + alloc;
		if ((size_t)got == want) {
			/* the page cache past the end of file is zeros */
			memset(ra->ring + pos + got, 0, data - (size_t)got);
			if (compress)
				plan_pieces(ra, pf, c, want);
			if (sums) {
				c->sums = pos + data;
				btrfs_csum_sectors(ra->csum_type, ra->csum_size, ra->sectorsize,
						   ra->ring + pos,
						   round_up_to(want, ra->sectorsize) / ra->sectorsize,
						   ra->ring + c->sums);
			}
		}
		if ((size_t)got < want || (to_end && (size_t)got == want)) {
			pthread_mutex_lock(&ra->lock);
			pf->eof_at = cs + (u64)got;
			pthread_mutex_unlock(&ra->lock);
		}
		publish_chunk(ra, pf, c, cs + want);
		if ((size_t)got != want)
			return 1;
	}
	return 0;
}

/* the data of a regular file, segment by segment as the writer asks */
static void read_data(struct ra *ra, struct ra_thread *t, struct rootdir_prefetch *pf)
{
	u64 ss = ra->sectorsize, end = round_up_to(pf->size, ss), off = 0, data, hole;
	int ret;

	/*
	 * The writer waits for the reader: it reads a small file itself
	 * (not read ahead, it asks the host); not with --compress, where
	 * it would compress it alone too
	 */
	pthread_mutex_lock(&ra->lock);
	ret = ra->writer_waits && pf->size <= RA_CHUNK && !ra->jobs;
	pthread_mutex_unlock(&ra->lock);
	if (ret || !ra->read_data || !pf->size)
		goto done;
	ret = next_segment(ra, pf, 0, pf->size < ss, &data, &hole);
	pf->whole_inline = !ret && pf->size <= ss && !data;
	while (!ret) {
		u64 seg = data / ss * ss, seg_end = round_up_to(hole, ss);

		if (seg < off)
			seg = off;
		ret = read_segment(ra, t, pf, seg, seg_end);
		off = seg_end;
		if (ret || off >= end)
			break;
		ret = next_segment(ra, pf, off, false, &data, &hole);
	}
done:
	pthread_mutex_lock(&ra->lock);
	pf->done = true;
	pf->read_upto = RA_NONE;
	wake_writer(ra);
	pthread_mutex_unlock(&ra->lock);
}

static bool is_image(const struct ra *ra, const struct statx *stx)
{
	return ra->image->ino && stx->stx_ino == ra->image->ino &&
	       stx_dev(stx) == ra->image->dev;
}

/* does the walk go into this entry? (rootdir-walk.c's add_entry()) */
static bool walks_into(const struct ra *ra, const struct statx *stx)
{
	if (!S_ISDIR(stx->stx_mode))
		return false;
	if (ra->o->nr_subvols && rootdir_subvol_index(ra->o, ra->path.s + ra->path.top_len + 1) >= 0)
		return true;
	return !(ra->o->one_file_system && stx_dev(stx) != ra->top_dev);
}

/* what the writer asks of an entry besides statx; -errno only for the reader's own failures */
static int read_entry_meta(struct ra *ra, struct ra_rec *dir, struct ra_rec *e)
{
	const struct statx *stx = &e->stx;
	bool xattrs = !ra->xattr_inodes ||
		      rootdir_links_find(ra->xattr_inodes, stx_dev(stx), stx->stx_ino);
	int fd, ret;

	if (S_ISREG(stx->stx_mode)) {
		/* the image is left out; a hard-linked file is read once */
		if (is_image(ra, stx))
			return 0;
		if (stx->stx_nlink > 1) {
			if (rootdir_links_find(&ra->linked, stx_dev(stx), stx->stx_ino))
				return 0;
			ret = rootdir_links_add(&ra->linked, stx_dev(stx), stx->stx_ino, 0);
			if (ret)
				return ret;
		}
		e->opened = true;
		fd = rootdir_host_open(dir->fd, e->name, false);
		if (fd < 0) {
			e->open_err = fd;
			return 0;
		}
		e->fd = fd;
		e->pf.fd = fd;
		e->pf.size = stx->stx_size;
		e->pf.eof_at = RA_NONE;
		e->pf.err_at = RA_NONE;
		e->pf.failed_at = RA_NONE;
		if (xattrs) {
			rootdir_read_xattrs(fd, ra->path.s, &e->xattrs);
			e->have_xattrs = true;
		}
		return 0;
	}
	if (S_ISLNK(stx->stx_mode)) {
		e->target = malloc(PATH_MAX + 1);
		if (!e->target)
			return -ENOMEM;
		e->target_len = rootdir_host_readlink(dir->fd, e->name, e->target, PATH_MAX + 1);
	}
	if (xattrs) {
		rootdir_read_xattrs(-1, ra->path.s, &e->xattrs);
		e->have_xattrs = true;
	}
	return 0;
}

static int walk_dir(struct ra *ra, struct ra_thread *t, struct ra_rec *dir);

static int read_entry(struct ra *ra, struct ra_thread *t, struct ra_rec *dir, const char *name,
		      u8 *walk)
{
	struct ra_rec *e;
	bool held;
	int ret = new_rec(ra, t, RA_ENTRY, dir, name, &e);

	if (ret)
		return ret;
	e->err = rootdir_host_stat(dir->fd, name, &e->stx);
	if (!e->err) {
		*walk = walks_into(ra, &e->stx);
		ret = read_entry_meta(ra, dir, e);
	}
	/*
	 * The writer may start on it while its data comes in (held till
	 * then); a record not held may be freed as soon as it is published.
	 */
	held = !ret && e->fd >= 0;
	if (held)
		e->refs++;
	publish(ra, e);
	if (held) {
		read_data(ra, t, &e->pf);
		pthread_mutex_lock(&ra->lock);
		unref(ra, e);
		pthread_mutex_unlock(&ra->lock);
	}
	return ret;
}

static int read_subdir(struct ra *ra, struct ra_thread *t, struct ra_rec *dir, const char *name)
{
	struct ra_rec *d;
	int ret = new_rec(ra, t, RA_DIR, dir, name, &d);

	if (ret)
		return ret;
	d->fd = rootdir_host_open(dir->fd, name, true);
	if (d->fd < 0) {
		d->err = d->fd;
		d->fd = -1;
	} else {
		list_dir(d);
	}
	d->refs++;
	publish(ra, d);
	if (!d->err && !d->list_err)
		ret = walk_dir(ra, t, d);
	pthread_mutex_lock(&ra->lock);
	unref(ra, d);
	pthread_mutex_unlock(&ra->lock);
	return ret;
}

static int walk_dir(struct ra *ra, struct ra_thread *t, struct ra_rec *dir)
{
	u8 *walk = calloc(dir->names.nr ? dir->names.nr : 1, 1);
	size_t i, old;
	int ret = walk ? 0 : -ENOMEM;

	for (i = 0; !ret && i < dir->names.nr; i++) {
		ret = rootdir_path_push(&ra->path, rootdir_names_at(&dir->names, i), &old);
		if (!ret)
			ret = read_entry(ra, t, dir, rootdir_names_at(&dir->names, i), &walk[i]);
		rootdir_path_pop(&ra->path, old);
	}
	for (i = 0; !ret && i < dir->names.nr; i++) {
		if (!walk[i])
			continue;
		ret = rootdir_path_push(&ra->path, rootdir_names_at(&dir->names, i), &old);
		if (!ret)
			ret = read_subdir(ra, t, dir, rootdir_names_at(&dir->names, i));
		rootdir_path_pop(&ra->path, old);
	}
	free(walk);
	return ret;
}

static int read_top(struct ra *ra, struct ra_thread *t)
{
	struct ra_rec *top;
	int ret = new_rec(ra, t, RA_DIR, NULL, NULL, &top);

	if (ret)
		return ret;
	top->err = rootdir_host_open_top(ra->top_path, &top->fd, &top->stx, &top->failed);
	if (!top->err) {
		ra->top_dev = stx_dev(&top->stx);
		list_dir(top);
		rootdir_read_xattrs(top->fd, ra->path.s, &top->xattrs);
		top->have_xattrs = true;
	}
	top->refs++;
	publish(ra, top);
	if (!top->err && !top->list_err)
		ret = walk_dir(ra, t, top);
	pthread_mutex_lock(&ra->lock);
	unref(ra, top);
	pthread_mutex_unlock(&ra->lock);
	return ret;
}

static void *reader_main(void *arg)
{
	struct ra *ra = arg;
	struct ra_thread t;
	int ret;

	thread_init(ra, &t);
	ret = read_top(ra, &t);
	pthread_mutex_lock(&ra->lock);
	ra->reader_done = true;
	ra->reader_err = ret;
	wake_writer(ra);
	/* then free what the writer is done with, and compress */
	for (;;) {
		free_records(ra);
		if (ra->stop)
			break;
		if (help_compress(ra, t.ws, t.scratch, true))
			continue;
		ra->reader_waits = true;
		pthread_cond_wait(&ra->wake_reader, &ra->lock);
		ra->reader_waits = false;
	}
	pthread_mutex_unlock(&ra->lock);
	thread_exit(&t);
	return NULL;
}

/* ---- the writer's side: the data ---- */

bool rootdir_pf_read(struct rootdir_prefetch *pf, u8 *buf, size_t len, u64 off,
		     size_t enough, size_t *done, ssize_t *ret)
{
	struct ra *ra = pf->ra;
	bool answered = true;

	(void)enough;
	*done = 0;
	pthread_mutex_lock(&ra->lock);
	/* reads go forward: what is behind this one is not read again (or from the file) */
	release_chunks(ra, pf, off);
	for (;;) {
		u64 p = off + *done, s;
		struct ra_chunk *c = NULL;

		if (*done == len) {
			*ret = (ssize_t)len;
			break;
		}
		for (s = pf->c_first; s < pf->c_end; s++) {
			struct ra_chunk *x = chunk_at(ra, s);

			if (x->off <= p && p < x->off + x->len) {
				c = x;
				break;
			}
		}
		if (c) {
			size_t n = c->off + c->len - p < len - *done ?
				   (size_t)(c->off + c->len - p) : len - *done;

			/* only this thread frees the chunk */
			if (buf) {
				pthread_mutex_unlock(&ra->lock);
				memcpy(buf + *done, ra->ring + c->pos + (p - c->off), n);
				pthread_mutex_lock(&ra->lock);
			}
			*done += n;
			continue;
		}
		if (p >= pf->err_at) {
			*ret = pf->err;
			break;
		}
		if (p >= pf->eof_at) {
			*ret = (ssize_t)*done;
			break;
		}
		if (p < pf->read_upto || pf->done) {
			answered = false;
			break;
		}
		writer_wait(ra);
	}
	pthread_mutex_unlock(&ra->lock);
	return answered;
}

bool rootdir_pf_seek(struct rootdir_prefetch *pf, u64 off, int whence, s64 *res)
{
	struct ra *ra = pf->ra;
	bool found = false;
	int i;

	pthread_mutex_lock(&ra->lock);
	for (;;) {
		for (i = 0; i < pf->nr_seeks && !found; i++) {
			if (pf->seeks[i].off == off && pf->seeks[i].whence == whence) {
				*res = pf->seeks[i].res;
				found = true;
			}
		}
		if (found || pf->done || pf->nr_seeks == RA_SEEKS)
			break;
		writer_wait(ra);
	}
	pthread_mutex_unlock(&ra->lock);
	return found;
}

bool rootdir_pf_sums(struct rootdir_prefetch *pf, u64 off, u64 len, u8 *sums)
{
	struct ra *ra = pf->ra;
	u64 ss = ra->sectorsize, cs = ra->csum_size, p = off, s;
	bool found = true;

	pthread_mutex_lock(&ra->lock);
	while (found && p < off + len) {
		found = false;
		for (s = pf->c_first; s < pf->c_end && !found; s++) {
			struct ra_chunk *c = chunk_at(ra, s);
			u64 end = c->off + round_up_to(c->len, ss);

			if (!c->sums || p < c->off || p >= c->off + c->len)
				continue;
			if (end > off + len)
				end = off + len;
			memcpy(sums + (p - off) / ss * cs, ra->ring + c->sums + (p - c->off) / ss * cs,
			       (end - p) / ss * cs);
			p = end;
			found = true;
		}
	}
	pthread_mutex_unlock(&ra->lock);
	return found;
}

size_t rootdir_pf_span(struct rootdir_prefetch *pf, u64 off, size_t len, const u8 **data)
{
	struct ra *ra = pf->ra;
	size_t n = 0;
	u64 s;

	pthread_mutex_lock(&ra->lock);
	for (s = pf->c_first; s < pf->c_end && !n; s++) {
		struct ra_chunk *c = chunk_at(ra, s);
		u64 end = c->off + round_up_to(c->len, ra->sectorsize);

		if (c->off <= off && off < end) {
			n = end - off < len ? (size_t)(end - off) : len;
			*data = ra->ring + c->pos + (off - c->off);
		}
	}
	pthread_mutex_unlock(&ra->lock);
	return n;
}

static struct ra_job *find_job(struct ra *ra, struct rootdir_prefetch *pf, u64 off, u32 len,
			       bool whole_file, struct ra_chunk **cp)
{
	u64 s;
	int i;

	for (s = pf->c_first; s < pf->c_end; s++) {
		struct ra_chunk *c = chunk_at(ra, s);

		for (i = 0; i < c->nr_jobs; i++) {
			struct ra_job *j = &c->jobs[i];

			if (j->off == off && j->len == len && j->whole_file == whole_file) {
				*cp = c;
				return j;
			}
		}
	}
	return NULL;
}

bool rootdir_pf_piece(struct rootdir_prefetch *pf, u64 off, u32 len, bool whole_file,
		      struct rootdir_pf_piece *piece)
{
	struct ra *ra = pf->ra;
	struct ra_chunk *c;
	struct ra_job *j;
	bool found = false;

	pthread_mutex_lock(&ra->lock);
	j = find_job(ra, pf, off, len, whole_file, &c);
	/* another thread has it: the writer compresses the next one meanwhile */
	while (j && j->state == JOB_RUNNING) {
		if (!help_compress(ra, ra->writer_ws, ra->writer_scratch, false))
			writer_wait(ra);
	}
	if (j && j->state == JOB_PENDING) {
		if (ra->writer_ws && ra->writer_scratch)
			run_job(ra, ra->writer_ws, ra->writer_scratch, c, j);
		else
			j->state = JOB_CANCELLED;
	}
	if (j && j->state == JOB_DONE) {
		piece->heuristic = j->heuristic;
		piece->ret = j->ret;
		piece->out = j->out;
		piece->clen = j->clen;
		found = true;
	}
	pthread_mutex_unlock(&ra->lock);
	return found;
}

/* ---- the writer's side: the source ---- */

static struct ra_rec *handle_rec(long handle)
{
	return (struct ra_rec *)(intptr_t)handle;
}

/* the entry the writer moves past is done with */
static void retire_cur(struct ra *ra)
{
	struct ra_rec *r = ra->cur;

	if (!r)
		return;
	ra->cur = NULL;
	r->pf.abandoned = true;
	release_chunks(ra, &r->pf, RA_NONE);
	unref(ra, r);
}

/* the next record, which must be @kind for @name in @parent */
static int take(struct ra *ra, enum ra_kind kind, struct ra_rec *parent, const char *name,
		const char *path, struct ra_rec **ret)
{
	struct ra_rec *r;
	int err = 0;

	pthread_mutex_lock(&ra->lock);
	retire_cur(ra);
	while (!ra->head && !ra->reader_done)
		writer_wait(ra);
	r = ra->head;
	if (r) {
		ra->head = r->next;
		if (!ra->head)
			ra->tail = NULL;
		r->next = NULL;
		ra->queued--;
	} else {
		err = ra->reader_err ? ra->reader_err : -EIO;
	}
	pthread_mutex_unlock(&ra->lock);
	if (!err && (r->kind != kind || r->parent != parent ||
		     (name ? !r->name || strcmp(r->name, name) : !!r->name)))
		err = -EIO;
	if (err == -EIO)
		cmd_error("internal error: the read-ahead is out of step at %s", path);
	*ret = err ? NULL : r;
	return err;
}

static void drop(struct ra *ra, struct ra_rec *r)
{
	pthread_mutex_lock(&ra->lock);
	unref(ra, r);
	pthread_mutex_unlock(&ra->lock);
}

static int ra_top(struct rootdir_src *s, long *dir, struct statx *stx)
{
	struct ra *ra = s->priv;
	struct ra_rec *r;
	int ret = take(ra, RA_DIR, NULL, NULL, ra->top_path, &r);

	if (ret)
		return ret;
	if (r->err) {
		ret = rootdir_host_report(r->failed, ra->top_path, r->err);
		drop(ra, r);
		return ret;
	}
	*stx = r->stx;
	*dir = (long)(intptr_t)r;
	return 0;
}

static int ra_list(struct rootdir_src *s, long dir, const char *path,
		   int (*add)(void *arg, const char *name), void *arg)
{
	struct ra_rec *d = handle_rec(dir);
	size_t i;
	int ret = 0;

	(void)s;
	if (d->list_err) {
		if (d->readdir_failed)
			rootdir_host_report(ROOTDIR_HOST_LIST, path, d->list_err);
		return d->list_err;
	}
	for (i = 0; !ret && i < d->names.nr; i++)
		ret = add(arg, rootdir_names_at(&d->names, i));
	return ret;
}

static int ra_stat(struct rootdir_src *s, long dir, const char *name, const char *path,
		   struct statx *stx)
{
	struct ra *ra = s->priv;
	struct ra_rec *e;
	int ret = take(ra, RA_ENTRY, handle_rec(dir), name, path, &e);

	if (ret)
		return ret;
	/* until the next record is taken */
	ra->cur = e;
	if (e->err)
		return rootdir_host_report(ROOTDIR_HOST_STAT, path, e->err);
	*stx = e->stx;
	return 0;
}

/* the entry the writer is on, if it is @name in @dir */
static struct ra_rec *cur_entry(struct ra *ra, long dir, const char *name)
{
	struct ra_rec *e = ra->cur;

	if (e && e->parent == handle_rec(dir) && name && e->name && !strcmp(e->name, name))
		return e;
	return NULL;
}

static int ra_open_dir(struct rootdir_src *s, long dir, const char *name, const char *path,
		       long *sub)
{
	struct ra *ra = s->priv;
	struct ra_rec *d;
	int ret = take(ra, RA_DIR, handle_rec(dir), name, path, &d);

	if (ret)
		return ret;
	if (d->err) {
		ret = rootdir_host_report(ROOTDIR_HOST_OPEN_DIR, path, d->err);
		drop(ra, d);
		return ret;
	}
	*sub = (long)(intptr_t)d;
	return 0;
}

static void ra_close_dir(struct rootdir_src *s, long dir)
{
	drop(s->priv, handle_rec(dir));
}

static int ra_open_file(struct rootdir_src *s, long dir, const char *name, const char *path,
			int *fd, u64 *base, struct rootdir_prefetch **pf)
{
	struct ra *ra = s->priv;
	struct ra_rec *e = cur_entry(ra, dir, name);

	*base = 0;
	*pf = NULL;
	if (e && e->opened) {
		if (e->open_err)
			return rootdir_host_report(ROOTDIR_HOST_OPEN_FILE, path, e->open_err);
		*fd = e->fd;
		if (ra->read_data)
			*pf = &e->pf;
		return 0;
	}
	/* not read ahead: opened here (closed by ra_close_file()) */
	*fd = rootdir_host_open(handle_rec(dir)->fd, name, false);
	return *fd < 0 ? rootdir_host_report(ROOTDIR_HOST_OPEN_FILE, path, *fd) : 0;
}

static void ra_close_file(struct rootdir_src *s, long dir, const char *name, int fd)
{
	struct ra_rec *e = cur_entry(s->priv, dir, name);

	/* the reader closes its own when it frees the record */
	if (!e || e->fd != fd)
		close(fd);
}

static ssize_t ra_readlink(struct rootdir_src *s, long dir, const char *name,
			   const char *path, char *buf, size_t len)
{
	struct ra_rec *e = cur_entry(s->priv, dir, name);
	ssize_t n;

	if (e && e->target) {
		n = e->target_len;
		if (n >= 0) {
			if ((size_t)n > len)
				n = (ssize_t)len;
			memcpy(buf, e->target, (size_t)n);
		}
	} else {
		n = rootdir_host_readlink(handle_rec(dir)->fd, name, buf, len);
	}
	return n < 0 ? rootdir_host_report(ROOTDIR_HOST_READLINK, path, (int)n) : n;
}

static int ra_xattrs(struct rootdir_src *s, struct btrfs_trans_handle *trans,
		     struct btrfs_root *root, u64 ino, long dir, const char *name, int fd,
		     const char *path, u64 *count)
{
	struct ra_rec *r = name ? cur_entry(s->priv, dir, name) : handle_rec(dir);

	if (r && r->have_xattrs)
		return rootdir_store_xattrs(trans, root, ino, &r->xattrs, path, count);
	/* as the host source: the top directory through its descriptor, others by path */
	if (fd < 0 && !name)
		fd = handle_rec(dir)->fd;
	return rootdir_copy_xattrs(trans, root, ino, fd, path, count);
}

/* ---- start and stop ---- */

/* records (and descriptors) ahead: within the descriptors this process may open */
static size_t max_records(void)
{
	struct rlimit rl;
	size_t n = RA_MAX_RECORDS;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return n;
	if (rl.rlim_cur < 128)
		return 0;
	return (rl.rlim_cur - 128) / 2 < n ? (size_t)(rl.rlim_cur - 128) / 2 : n;
}

static void free_all(struct ra *ra)
{
	u64 s;

	while (ra->all) {
		struct ra_rec *r = ra->all;

		ra->all = r->all_next;
		free_rec(r);
	}
	for (s = ra->q_first; s < ra->q_end; s++)
		free_job_outputs(chunk_at(ra, s));
	free(ra->ring);
	free(ra->chunks);
	free(ra->jobs);
	free(ra->workers);
	free(ra->path.s);
	free(ra->writer_scratch);
	btrfs_compress_ws_free(ra->writer_ws);
	rootdir_links_free(&ra->linked);
	pthread_cond_destroy(&ra->wake_writer);
	pthread_cond_destroy(&ra->wake_reader);
	pthread_cond_destroy(&ra->wake_workers);
	pthread_mutex_destroy(&ra->lock);
	free(ra);
}

void rootdir_ra_stop(struct rootdir_src *src)
{
	struct ra *ra = src->priv;
	int i;

	pthread_mutex_lock(&ra->lock);
	ra->stop = true;
	pthread_cond_broadcast(&ra->wake_reader);
	pthread_cond_broadcast(&ra->wake_workers);
	pthread_mutex_unlock(&ra->lock);
	if (ra->reader_started)
		pthread_join(ra->reader, NULL);
	for (i = 0; i < ra->nr_workers; i++)
		pthread_join(ra->workers[i], NULL);
	free_all(ra);
	src->priv = NULL;
}

static void ra_source(struct ra *ra, struct rootdir_src *src)
{
	memset(src, 0, sizeof(*src));
	src->priv = ra;
	src->sealed = false;
	src->top = ra_top;
	src->list = ra_list;
	src->stat = ra_stat;
	src->open_dir = ra_open_dir;
	src->close_dir = ra_close_dir;
	src->open_file = ra_open_file;
	src->close_file = ra_close_file;
	src->readlink = ra_readlink;
	src->xattrs = ra_xattrs;
}

static int ra_alloc(const struct rootdir_ra_params *p, struct ra **ret)
{
	struct ra *ra = calloc(1, sizeof(*ra));

	*ret = ra;
	if (!ra)
		return -ENOMEM;
	pthread_mutex_init(&ra->lock, NULL);
	pthread_cond_init(&ra->wake_writer, NULL);
	pthread_cond_init(&ra->wake_reader, NULL);
	pthread_cond_init(&ra->wake_workers, NULL);
	rootdir_links_init(&ra->linked);
	ra->top_path = p->o->path;
	ra->o = p->o;
	ra->image = p->image;
	ra->xattr_inodes = (struct rootdir_links *)p->xattr_inodes;
	ra->sectorsize = p->sectorsize;
	ra->max_inline = p->max_inline;
	ra->read_data = p->read_data;
	ra->csum_type = p->csum_type;
	ra->csum_size = p->csum_size;
	/* with --compress most checksums are of compressed bytes: none ahead */
	ra->sums = p->o->compress_type == BTRFS_COMPRESS_NONE;
	ra->compress_type = p->o->compress_type;
	ra->compress_level = p->o->compress_level;
	ra->max_records = max_records();
	ra->ring_size = p->window;
	/* a chunk takes a sector of the ring at least */
	ra->nr_chunks = p->window / p->sectorsize + 1;
	ra->ring = malloc(ra->ring_size);
	ra->chunks = calloc(ra->nr_chunks, sizeof(*ra->chunks));
	ra->workers = calloc((size_t)p->workers + 1, sizeof(*ra->workers));
	if (!ra->ring || !ra->chunks || !ra->workers)
		return -ENOMEM;
	if (ra->compress_type != BTRFS_COMPRESS_NONE) {
		ra->jobs = calloc(ra->nr_chunks * RA_PIECES, sizeof(*ra->jobs));
		ra->writer_ws = btrfs_compress_ws_alloc();
		ra->writer_scratch = malloc(BTRFS_MAX_UNCOMPRESSED);
		if (!ra->jobs)
			return -ENOMEM;
	}
	/* paths as the walk spells them */
	return rootdir_path_init(&ra->path, p->o->path);
}

int rootdir_ra_start(const struct rootdir_ra_params *p, struct rootdir_src *src)
{
	struct ra *ra;
	int i, ret = ra_alloc(p, &ra);

	if (!ret && ra->max_records < 16)
		ret = -EMFILE;
	if (!ret && pthread_create(&ra->reader, NULL, reader_main, ra))
		ret = -EAGAIN;
	if (ret) {
		if (ra)
			free_all(ra);
		return ret;
	}
	ra->reader_started = true;
	for (i = 0; i < p->workers; i++) {
		if (pthread_create(&ra->workers[i], NULL, worker_main, ra))
			break;
		ra->nr_workers++;
	}
	ra_source(ra, src);
	return 0;
}
