// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and verifying data against the csum tree, on all cores.
 *
 * The main thread walks the csum tree and cuts its items into jobs of at
 * most JOB_SECTORS sectors (with a private copy of their checksums),
 * numbered in csum tree order.  One worker per CPU takes them in that
 * order and reads the first available copy; only when a sector fails does
 * it read the other copies, so a healthy filesystem is read exactly once.
 * A worker keeps the findings of its job to itself; finished jobs are
 * reported strictly in job order, so the output is the same from run to
 * run whatever the threads' timing.  At most WINDOW jobs are out between
 * the oldest unreported one and the newest, which bounds the memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "iter.h"
#include "data-csum.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/csum.h"
#include "kernel-shared/ctree.h"
#include "kernel-shared/volumes.h"

#define JOB_SECTORS	256
#define WINDOW		64
#define MAX_WORKERS	64

struct csum_job {
	u64 start;
	u32 nr_sectors;
	u8 *csums;
	struct problem_queue *findings;	/* created at the first finding */
	bool finished;
	bool lost;		/* a finding could not be queued (no memory) */
};

/* jobs are numbered from 0; job n lives in window[n % WINDOW] */
struct verify_state {
	struct check_ctx *ctx;
	pthread_mutex_t lock;
	pthread_cond_t job_ready;	/* a job was queued, or the last one */
	pthread_cond_t slot_free;	/* the oldest job was reported */
	struct csum_job window[WINDOW];
	u64 next_queue;		/* number of the next job to queue */
	u64 next_take;		/* ... for a worker to take */
	u64 next_report;	/* ... to report */
	bool done;		/* no more jobs will be queued */
	u64 bytes_done;
};

static void csum_hex(const u8 *csum, u32 size, char *out)
{
	u32 i;

	out += sprintf(out, "0x");
	for (i = 0; i < size; i++)
		out += sprintf(out, "%02x", csum[i]);
}

/* a finding of @job, reported later in job order */
static void job_problem(struct csum_job *job, enum problem_code code,
			const struct problem_ctx *pctx)
{
	if (!job->findings)
		job->findings = problem_queue_create();
	if (!job->findings || problem_queue_add(job->findings, code, pctx))
		job->lost = true;
}

/* one sector failed on the first copy: try every copy and report each bad one */
static void recheck_sector(struct verify_state *st, struct csum_job *job, u64 logical,
			   const u8 *want, u8 *buf)
{
	struct btrfs_fs_info *fs = st->ctx->fs_info;
	int copies = btrfs_num_copies(fs, logical, fs->sectorsize);
	char detail[160], w[2 * BTRFS_CSUM_SIZE + 3], f[2 * BTRFS_CSUM_SIZE + 3];
	u8 got[BTRFS_CSUM_SIZE];
	int mirror, ret;

	for (mirror = 1; mirror <= copies; mirror++) {
		ret = btrfs_read_logical(fs, logical, buf, fs->sectorsize, mirror);
		if (ret == -ENODEV)
			continue;	/* that device is missing */
		if (ret) {
			job_problem(job, PR_DATA_UNREADABLE, &(struct problem_ctx){
				.bytenr = logical, .mirror = mirror, .detail = strerror(-ret) });
			continue;
		}
		btrfs_csum_data(fs->csum_type, buf, fs->sectorsize, got);
		if (!memcmp(got, want, fs->csum_size))
			continue;
		csum_hex(want, fs->csum_size, w);
		csum_hex(got, fs->csum_size, f);
		snprintf(detail, sizeof(detail), "wanted %s found %s", w, f);
		job_problem(job, PR_DATA_CSUM_MISMATCH, &(struct problem_ctx){
			.bytenr = logical, .mirror = mirror, .detail = detail });
	}
}

static void run_job(struct verify_state *st, struct csum_job *job, u8 *buf,
		    u8 *sector_buf)
{
	struct btrfs_fs_info *fs = st->ctx->fs_info;
	u64 len = (u64)job->nr_sectors * fs->sectorsize;
	u8 got[BTRFS_CSUM_SIZE];
	bool read_ok;
	u32 i;

	read_ok = btrfs_read_logical(fs, job->start, buf, len, 0) == 0;
	for (i = 0; i < job->nr_sectors; i++) {
		const u8 *want = job->csums + (size_t)i * fs->csum_size;
		u64 logical = job->start + (u64)i * fs->sectorsize;

		if (read_ok) {
			btrfs_csum_data(fs->csum_type, buf + (size_t)i * fs->sectorsize,
					fs->sectorsize, got);
			if (!memcmp(got, want, fs->csum_size))
				continue;
		}
		recheck_sector(st, job, logical, want, sector_buf);
	}
}

/* under the lock: report and free the finished jobs at the window's start */
static void report_finished(struct verify_state *st)
{
	struct csum_job *job = &st->window[st->next_report % WINDOW];

	while (st->next_report < st->next_take && job->finished) {
		if (job->findings)
			problem_queue_report(st->ctx, job->findings);
		if (job->lost)
			check_info(st->ctx, "data at logical %llu: out of memory, findings of %u sectors lost",
				   (unsigned long long)job->start, job->nr_sectors);
		st->bytes_done += (u64)job->nr_sectors * st->ctx->fs_info->sectorsize;
		problem_queue_destroy(job->findings);
		free(job->csums);
		memset(job, 0, sizeof(*job));
		st->next_report++;
		job = &st->window[st->next_report % WINDOW];
		pthread_cond_signal(&st->slot_free);
	}
	progress_update(&st->ctx->progress, st->bytes_done);
}

static void *worker(void *arg)
{
	struct verify_state *st = arg;
	u32 sectorsize = st->ctx->fs_info->sectorsize;
	u8 *buf = malloc((size_t)JOB_SECTORS * sectorsize);
	u8 *sector_buf = malloc(sectorsize);

	pthread_mutex_lock(&st->lock);
	for (;;) {
		struct csum_job *job;

		while (st->next_take == st->next_queue && !st->done)
			pthread_cond_wait(&st->job_ready, &st->lock);
		if (st->next_take == st->next_queue)
			break;
		job = &st->window[st->next_take++ % WINDOW];
		pthread_mutex_unlock(&st->lock);
		if (buf && sector_buf)
			run_job(st, job, buf, sector_buf);
		else
			job->lost = true;
		pthread_mutex_lock(&st->lock);
		job->finished = true;
		report_finished(st);
	}
	pthread_mutex_unlock(&st->lock);
	free(buf);
	free(sector_buf);
	return NULL;
}

static int queue_job(struct verify_state *st, u64 start, u32 nr, const u8 *csums)
{
	size_t size = (size_t)nr * st->ctx->fs_info->csum_size;
	struct csum_job *job;
	u8 *copy = malloc(size);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, csums, size);
	pthread_mutex_lock(&st->lock);
	while (st->next_queue - st->next_report == WINDOW)
		pthread_cond_wait(&st->slot_free, &st->lock);
	job = &st->window[st->next_queue++ % WINDOW];
	job->start = start;
	job->nr_sectors = nr;
	job->csums = copy;
	pthread_cond_signal(&st->job_ready);
	pthread_mutex_unlock(&st->lock);
	return 0;
}

/* cut one csum item into jobs */
static int queue_item(struct verify_state *st, struct extent_buffer *leaf, int slot,
		      const struct btrfs_key *key)
{
	struct btrfs_fs_info *fs = st->ctx->fs_info;
	const u8 *csums = btrfs_item_ptr_raw(leaf, slot);
	u32 nr = btrfs_item_size(leaf, slot) / fs->csum_size;
	u32 done = 0;
	int ret;

	while (done < nr) {
		u32 n = nr - done < JOB_SECTORS ? nr - done : JOB_SECTORS;

		ret = queue_job(st, key->offset + (u64)done * fs->sectorsize, n,
				csums + (size_t)done * fs->csum_size);
		if (ret)
			return ret;
		done += n;
	}
	return 0;
}

static int produce_jobs(struct verify_state *st)
{
	struct btrfs_root *root = &st->ctx->fs_info->csum_root;
	struct btrfs_key key = { BTRFS_EXTENT_CSUM_OBJECTID, BTRFS_EXTENT_CSUM_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = check_iter_start(root, &key, &path);
	while (ret == 0) {
		btrfs_path_key(&path, &key);
		/* phase 8 already reported malformed items: skip them here */
		if (key.objectid == BTRFS_EXTENT_CSUM_OBJECTID &&
		    key.type == BTRFS_EXTENT_CSUM_KEY &&
		    !(key.offset % st->ctx->fs_info->sectorsize)) {
			ret = queue_item(st, path.nodes[0], path.slots[0], &key);
			if (ret)
				break;
		}
		ret = check_iter_next(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

int verify_data_csums(struct check_ctx *ctx, u64 total_bytes)
{
	pthread_t threads[MAX_WORKERS];
	struct verify_state st;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nr_threads, started = 0, i, ret;

	if (!ctx->fs_info->csum_size)
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.ctx = ctx;
	pthread_mutex_init(&st.lock, NULL);
	pthread_cond_init(&st.job_ready, NULL);
	pthread_cond_init(&st.slot_free, NULL);
	nr_threads = cpus < 1 ? 1 : cpus > MAX_WORKERS ? MAX_WORKERS : (int)cpus;
	progress_start(&ctx->progress, "data bytes", total_bytes);
	for (i = 0; i < nr_threads; i++) {
		if (pthread_create(&threads[i], NULL, worker, &st))
			break;
		started++;
	}
	if (!started) {
		ret = -EAGAIN;
		goto out;
	}
	ret = produce_jobs(&st);
	pthread_mutex_lock(&st.lock);
	st.done = true;
	pthread_cond_broadcast(&st.job_ready);
	pthread_mutex_unlock(&st.lock);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
out:
	progress_end(&ctx->progress);
	pthread_mutex_destroy(&st.lock);
	pthread_cond_destroy(&st.job_ready);
	pthread_cond_destroy(&st.slot_free);
	return ret;
}
