// SPDX-License-Identifier: GPL-2.0
/*
 * --compress workers.  The data writer cuts a file into pieces of up to
 * 128 KiB (the kernel's compressed extent size) and hands them over in
 * batches; the workers compress the pieces of a batch in any order, each
 * with its own workspace, while the writer reads the next batch (and
 * then compresses what is left of the batch it waits for: with one
 * thread, the writer alone does everything, one after the other).  Only
 * compression runs in the workers: allocation, writes, checksums and
 * items stay in the writer, batch after batch and piece after piece in
 * file order, so the image does not depend on the thread count or on
 * which worker finished first.  At most two batches are out (bounded
 * memory: 2 x ROOTDIR_BATCH x 2 x 128 KiB).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "rootdir.h"
#include "kernel-shared/compression.h"

struct rootdir_cpool {
	pthread_mutex_t lock;
	pthread_cond_t work;	/* a batch was submitted, or stop */
	pthread_cond_t done;	/* a batch is complete */
	struct rootdir_batch batch[2];
	u64 seq;		/* submission counter: the older batch goes first */
	bool stop;
	u8 type;
	int level;
	u32 sectorsize;
	int nr_threads;
	pthread_t *threads;
	struct btrfs_compress_ws *own_ws;	/* the writer's inline attempts */
};

int rootdir_compress_threads(void)
{
	const char *env = getenv("GHEE_MKFS_THREADS");
	cpu_set_t set;
	int n = 0;

	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (!*end && v >= 1 && v <= ROOTDIR_MAX_THREADS)
			return (int)v;
	}
	/* the CPUs this process may use (taskset), not the machine's */
	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return n > ROOTDIR_MAX_THREADS ? ROOTDIR_MAX_THREADS : n;
}

static void compress_piece(struct rootdir_cpool *pool, struct btrfs_compress_ws *ws,
			   struct rootdir_batch *b, int i)
{
	struct rootdir_piece *p = &b->pieces[i];
	size_t clen = BTRFS_MAX_UNCOMPRESSED;
	int ret;

	/* the writer compressed it already (the first piece of a file) */
	if (p->ready)
		return;
	p->type = BTRFS_COMPRESS_NONE;
	if (!p->ram)
		return;
	ret = btrfs_compress_extent_ws(ws, pool->type, pool->level, rootdir_piece_in(b, i),
				       p->ram, pool->sectorsize, rootdir_piece_out(b, i),
				       &clen);
	if (ret == -E2BIG)
		return;
	if (ret) {
		p->err = ret;
		return;
	}
	p->type = pool->type;
	p->clen = (u32)clen;
}

/* the oldest submitted batch with a piece nobody took yet */
static struct rootdir_batch *pick(struct rootdir_cpool *pool)
{
	struct rootdir_batch *best = NULL;
	int i;

	for (i = 0; i < 2; i++) {
		struct rootdir_batch *b = &pool->batch[i];

		if (b->submitted && b->next < b->nr && (!best || b->seq < best->seq))
			best = b;
	}
	return best;
}

static void *worker(void *arg)
{
	struct rootdir_cpool *pool = arg;
	struct btrfs_compress_ws *ws = btrfs_compress_ws_alloc();

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct rootdir_batch *b = pick(pool);
		int i;

		if (!b) {
			if (pool->stop)
				break;
			pthread_cond_wait(&pool->work, &pool->lock);
			continue;
		}
		i = b->next++;
		pthread_mutex_unlock(&pool->lock);
		if (ws)
			compress_piece(pool, ws, b, i);
		else
			b->pieces[i].err = -ENOMEM;
		pthread_mutex_lock(&pool->lock);
		if (++b->done == b->nr)
			pthread_cond_broadcast(&pool->done);
	}
	pthread_mutex_unlock(&pool->lock);
	btrfs_compress_ws_free(ws);
	return NULL;
}

void rootdir_cpool_destroy(struct rootdir_cpool *pool)
{
	int i;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < pool->nr_threads; i++)
		pthread_join(pool->threads[i], NULL);
	for (i = 0; i < 2; i++) {
		free(pool->batch[i].in);
		free(pool->batch[i].out);
	}
	btrfs_compress_ws_free(pool->own_ws);
	pthread_cond_destroy(&pool->work);
	pthread_cond_destroy(&pool->done);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool);
}

int rootdir_cpool_create(u8 type, int level, u32 sectorsize, int threads,
			 struct rootdir_cpool **ret)
{
	struct rootdir_cpool *pool = calloc(1, sizeof(*pool));
	int i;

	*ret = NULL;
	if (!pool)
		return -ENOMEM;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work, NULL);
	pthread_cond_init(&pool->done, NULL);
	pool->type = type;
	pool->level = level;
	pool->sectorsize = sectorsize;
	pool->own_ws = btrfs_compress_ws_alloc();
	pool->threads = calloc((size_t)threads + 1, sizeof(*pool->threads));
	for (i = 0; i < 2; i++) {
		pool->batch[i].in = malloc((size_t)ROOTDIR_BATCH * BTRFS_MAX_UNCOMPRESSED +
					   ROOTDIR_READ_SLACK);
		pool->batch[i].out = malloc((size_t)ROOTDIR_BATCH * BTRFS_MAX_UNCOMPRESSED);
		if (!pool->batch[i].in || !pool->batch[i].out)
			goto nomem;
	}
	if (!pool->own_ws || !pool->threads)
		goto nomem;
	/* the writer is one of the @threads (it compresses while it waits) */
	for (i = 0; i < threads - 1; i++) {
		if (pthread_create(&pool->threads[i], NULL, worker, pool))
			break;
		pool->nr_threads++;
	}
	*ret = pool;
	return 0;
nomem:
	rootdir_cpool_destroy(pool);
	return -ENOMEM;
}

struct rootdir_batch *rootdir_cpool_batch(struct rootdir_cpool *pool, int i)
{
	return &pool->batch[i];
}

u8 *rootdir_piece_in(struct rootdir_batch *b, int i)
{
	return b->in + (size_t)i * BTRFS_MAX_UNCOMPRESSED;
}

u8 *rootdir_piece_out(struct rootdir_batch *b, int i)
{
	return b->out + (size_t)i * BTRFS_MAX_UNCOMPRESSED;
}

void rootdir_cpool_submit(struct rootdir_cpool *pool, struct rootdir_batch *b)
{
	pthread_mutex_lock(&pool->lock);
	b->next = 0;
	b->done = 0;
	b->seq = ++pool->seq;
	b->submitted = true;
	pthread_cond_broadcast(&pool->work);
	pthread_mutex_unlock(&pool->lock);
}

void rootdir_cpool_wait(struct rootdir_cpool *pool, struct rootdir_batch *b)
{
	pthread_mutex_lock(&pool->lock);
	/* the writer compresses too rather than wait idle */
	while (b->submitted && b->next < b->nr) {
		int i = b->next++;

		pthread_mutex_unlock(&pool->lock);
		compress_piece(pool, pool->own_ws, b, i);
		pthread_mutex_lock(&pool->lock);
		if (++b->done == b->nr)
			pthread_cond_broadcast(&pool->done);
	}
	while (b->submitted && b->done < b->nr)
		pthread_cond_wait(&pool->done, &pool->lock);
	b->submitted = false;
	pthread_mutex_unlock(&pool->lock);
}

int rootdir_compress_small_ws(struct btrfs_compress_ws *ws, u8 type, int level,
			      u32 sectorsize, const u8 *in, size_t len, size_t inline_max,
			      u8 *out, size_t *out_len)
{
	/*
	 * The kernel's lzo gives up on output larger than its input only
	 * past two sectors: a small file goes inline compressed whenever the
	 * result fits, even a little longer than the file.
	 */
	if (inline_max && type == BTRFS_COMPRESS_LZO)
		return btrfs_compress_limit_ws(ws, type, level, in, len, sectorsize, out,
					       inline_max, out_len);
	if (inline_max)
		return btrfs_compress_shorter_ws(ws, type, level, in, len, sectorsize, out,
						 out_len);
	return btrfs_compress_extent_ws(ws, type, level, in, len, sectorsize, out, out_len);
}

int rootdir_cpool_compress_small(struct rootdir_cpool *pool, const u8 *in, size_t len,
				 size_t inline_max, u8 *out, size_t *out_len)
{
	return rootdir_compress_small_ws(pool->own_ws, pool->type, pool->level,
					 pool->sectorsize, in, len, inline_max, out, out_len);
}
