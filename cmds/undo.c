// SPDX-License-Identifier: GPL-2.0
/*
 * Undo files (format in undo.h): the writer hooked under every device
 * write of a repair, and `ghee undo FILE DEVICE...`.
 *
 * Only bytes that are about to be overwritten for the first time are
 * saved, and the undo file is synced before the device write goes ahead,
 * so after a crash at any point the file holds the original content of
 * everything the repair changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdbool.h>
#include "cmds/undo.h"
#include "cmds/mount-probe.h"
#include "cmds/commands.h"
#include "crc32c.h"
#include "ranges.h"
#include "kernel-shared/accessors.h"
#include "kernel-shared/disk-io.h"
#include "kernel-shared/transaction.h"
#include "kernel-shared/volumes.h"

#define UNDO_MAGIC	"GHEEUNDO"
#define UNDO_VERSION	1
#define UNDO_REC	0x31434552U	/* "REC1" */
#define UNDO_END	0x31444e45U	/* "END1" */
#define UNDO_MAX_REC	(1U << 20)

struct undo_dev_state {
	u64 devid;
	u64 generation;
	u8 csum[BTRFS_CSUM_SIZE];
};

struct undo_writer {
	int fd;
	char *path;
	struct btrfs_fs_info *fs_info;
	u64 records;
	int error;
	struct range_list saved[GHEE_MAX_DEVICES];	/* by device index */
};

static int write_all(int fd, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len, u64 off)
{
	u8 *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			memset(p, 0, len);	/* beyond the end of an image */
			return 0;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static void put_le32(u8 *p, u32 v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put_le64(u8 *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static u32 get_le32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static u64 get_le64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* the primary superblock of @fd as the undo file records it */
static int dev_state(int fd, struct undo_dev_state *st)
{
	struct btrfs_super_block sb;
	int ret = read_full(fd, &sb, sizeof(sb), BTRFS_SUPER_INFO_OFFSET);

	if (ret)
		return ret;
	st->devid = btrfs_device_id(&sb.dev_item);
	st->generation = btrfs_super_generation(&sb);
	memcpy(st->csum, sb.csum, BTRFS_CSUM_SIZE);
	return 0;
}

static void encode_state(u8 *p, const struct undo_dev_state *st)
{
	put_le64(p, st->devid);
	put_le64(p + 8, st->generation);
	memcpy(p + 16, st->csum, BTRFS_CSUM_SIZE);
}

#define UNDO_STATE_SIZE	(16 + BTRFS_CSUM_SIZE)

static int dev_index(struct btrfs_fs_info *fs, struct btrfs_device *dev)
{
	int i;

	for (i = 0; i < fs->num_devices; i++) {
		if (&fs->devices[i] == dev)
			return i;
	}
	return -1;
}

static int save_range(struct undo_writer *u, struct btrfs_device *dev,
		      u64 start, u64 len)
{
	u8 head[32];
	u8 *buf;
	int ret = 0;

	while (len && !ret) {
		u32 n = len > UNDO_MAX_REC ? UNDO_MAX_REC : (u32)len;

		buf = malloc(n);
		if (!buf)
			return -ENOMEM;
		ret = read_full(dev->fd, buf, n, start);
		if (!ret) {
			put_le32(head, UNDO_REC);
			put_le32(head + 4, n);
			put_le64(head + 8, dev->devid);
			put_le64(head + 16, start);
			put_le32(head + 24, crc32c_value(buf, n));
			put_le32(head + 28, 0);
			ret = write_all(u->fd, head, sizeof(head));
		}
		if (!ret)
			ret = write_all(u->fd, buf, n);
		free(buf);
		u->records++;
		start += n;
		len -= n;
	}
	return ret;
}

static int undo_before_write(void *data, struct btrfs_device *dev, u64 physical,
			     u64 len)
{
	struct undo_writer *u = data;
	struct btrfs_fs_info *fs = u->fs_info;
	struct range_list want, missing;
	int idx, ret = 0;
	size_t i;

	if (u->error)
		return u->error;
	idx = dev_index(fs, dev);
	if (idx < 0)
		return -ENODEV;
	if (range_list_covers(&u->saved[idx], physical, len))
		return 0;
	range_list_init(&want);
	range_list_init(&missing);
	range_list_add(&want, physical, len);
	range_list_subtract(&want, &u->saved[idx], &missing);
	for (i = 0; i < missing.nr && !ret; i++)
		ret = save_range(u, dev, missing.r[i].start,
				 missing.r[i].end - missing.r[i].start);
	if (!ret && fdatasync(u->fd))
		ret = -errno;
	if (!ret)
		range_list_add(&u->saved[idx], physical, len);
	if (missing.oom || u->saved[idx].oom)
		ret = -ENOMEM;
	range_list_release(&want);
	range_list_release(&missing);
	if (ret)
		u->error = ret;
	return ret;
}

int undo_writer_open(struct undo_writer **ret_u, const char *path,
		     struct btrfs_fs_info *fs_info)
{
	struct undo_writer *u;
	size_t hlen = 8 + 4 + 4 + BTRFS_FSID_SIZE +
		      (size_t)fs_info->num_devices * UNDO_STATE_SIZE;
	u8 *head;
	int i, ret = 0;

	u = calloc(1, sizeof(*u));
	head = calloc(1, hlen);
	if (!u || !head) {
		free(u);
		free(head);
		return -ENOMEM;
	}
	u->fs_info = fs_info;
	for (i = 0; i < GHEE_MAX_DEVICES; i++)
		range_list_init(&u->saved[i]);
	/* never overwrite an existing undo file: it may be the only copy */
	u->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0) {
		ret = -errno;
		goto fail;
	}
	u->path = strdup(path);
	memcpy(head, UNDO_MAGIC, 8);
	put_le32(head + 8, UNDO_VERSION);
	put_le32(head + 12, (u32)fs_info->num_devices);
	memcpy(head + 16, fs_info->fsid, BTRFS_FSID_SIZE);
	for (i = 0; i < fs_info->num_devices && !ret; i++) {
		struct undo_dev_state st;

		ret = dev_state(fs_info->devices[i].fd, &st);
		if (!ret)
			encode_state(head + 16 + BTRFS_FSID_SIZE + i * UNDO_STATE_SIZE, &st);
	}
	if (!ret)
		ret = write_all(u->fd, head, hlen);
	if (!ret && fsync(u->fd))
		ret = -errno;
	if (ret)
		goto fail;
	free(head);
	fs_info->write->before_write = undo_before_write;
	fs_info->write->before_write_data = u;
	*ret_u = u;
	return 0;
fail:
	if (u->fd >= 0) {
		close(u->fd);
		unlink(path);
	}
	free(u->path);
	free(u);
	free(head);
	return ret;
}

int undo_writer_finish(struct undo_writer *u, struct btrfs_fs_info *fs_info)
{
	size_t tlen = 8 + (size_t)fs_info->num_devices * UNDO_STATE_SIZE + 4;
	u8 *t = calloc(1, tlen);
	int i, ret = u->error;

	if (fs_info->write && fs_info->write->before_write_data == u) {
		fs_info->write->before_write = NULL;
		fs_info->write->before_write_data = NULL;
	}
	if (!t)
		ret = -ENOMEM;
	if (!u->records && !ret) {
		close(u->fd);
		unlink(u->path);
		goto out;
	}
	put_le32(t, UNDO_END);
	put_le32(t + 4, (u32)fs_info->num_devices);
	for (i = 0; i < fs_info->num_devices && t; i++) {
		struct undo_dev_state st;
		int r = dev_state(fs_info->devices[i].fd, &st);

		if (r && !ret)
			ret = r;
		encode_state(t + 8 + i * UNDO_STATE_SIZE, &st);
	}
	if (t) {
		put_le32(t + tlen - 4, crc32c_value(t, tlen - 4));
		i = write_all(u->fd, t, tlen);
		if (i && !ret)
			ret = i;
	}
	if (fsync(u->fd) && !ret)
		ret = -errno;
	close(u->fd);
out:
	for (i = 0; i < GHEE_MAX_DEVICES; i++)
		range_list_release(&u->saved[i]);
	free(t);
	free(u->path);
	free(u);
	return ret;
}

/* ---- ghee undo FILE DEVICE... ---- */

struct undo_file {
	u8 *data;
	size_t size;
	u32 nr_devices;
	const u8 *before;	/* per device states in the header */
	const u8 *after;	/* in the trailer; NULL when the file has none */
	size_t records_end;	/* offset of the trailer (or end of file) */
};

static int load_undo_file(const char *path, struct undo_file *f)
{
	FILE *in = fopen(path, "rb");
	size_t off, hlen, tlen;
	long size;

	memset(f, 0, sizeof(*f));
	if (!in) {
		cmd_error("cannot open %s: %m", path);
		return -errno;
	}
	if (fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		fclose(in);
		cmd_error("cannot read %s: %m", path);
		return -EIO;
	}
	f->size = (size_t)size;
	f->data = malloc(f->size ? f->size : 1);
	if (!f->data || fread(f->data, 1, f->size, in) != f->size) {
		fclose(in);
		cmd_error("cannot read %s", path);
		return -EIO;
	}
	fclose(in);
	if (f->size < 16 + BTRFS_FSID_SIZE || memcmp(f->data, UNDO_MAGIC, 8) ||
	    get_le32(f->data + 8) != UNDO_VERSION) {
		cmd_error("%s is not a ghee undo file (version %d)", path, UNDO_VERSION);
		return -EINVAL;
	}
	f->nr_devices = get_le32(f->data + 12);
	hlen = 16 + BTRFS_FSID_SIZE + (size_t)f->nr_devices * UNDO_STATE_SIZE;
	if (!f->nr_devices || f->nr_devices > GHEE_MAX_DEVICES || hlen > f->size) {
		cmd_error("%s: invalid header (%u devices)", path, f->nr_devices);
		return -EINVAL;
	}
	f->before = f->data + 16 + BTRFS_FSID_SIZE;
	tlen = 8 + (size_t)f->nr_devices * UNDO_STATE_SIZE + 4;
	for (off = hlen; off + 4 <= f->size;) {
		u32 tag = get_le32(f->data + off);

		if (tag == UNDO_END) {
			if (off + tlen != f->size ||
			    get_le32(f->data + off + 4) != f->nr_devices ||
			    get_le32(f->data + off + tlen - 4) !=
			    crc32c_value(f->data + off, tlen - 4)) {
				cmd_error("%s: damaged trailer at offset %zu", path, off);
				return -EINVAL;
			}
			f->after = f->data + off + 8;
			break;
		}
		if (tag != UNDO_REC || off + 32 > f->size ||
		    off + 32 + get_le32(f->data + off + 4) > f->size) {
			cmd_error("%s: damaged record at offset %zu", path, off);
			return -EINVAL;
		}
		if (crc32c_value(f->data + off + 32, get_le32(f->data + off + 4)) !=
		    get_le32(f->data + off + 24)) {
			cmd_error("%s: record at offset %zu fails its checksum", path, off);
			return -EINVAL;
		}
		off += 32 + get_le32(f->data + off + 4);
	}
	f->records_end = off;
	return 0;
}

static const u8 *find_state(const u8 *states, u32 nr, u64 devid)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		if (get_le64(states + i * UNDO_STATE_SIZE) == devid)
			return states + i * UNDO_STATE_SIZE;
	}
	return NULL;
}

static bool is_super_range(u64 physical)
{
	int i;

	for (i = 0; i < BTRFS_SUPER_MIRROR_MAX; i++) {
		if (physical == btrfs_sb_offset(i))
			return true;
	}
	return false;
}

/* write the records of @devid back: data first, superblocks (primary last) after */
static int restore_device(const struct undo_file *f, int fd, u64 devid)
{
	size_t hlen = 16 + BTRFS_FSID_SIZE + (size_t)f->nr_devices * UNDO_STATE_SIZE;
	int pass, ret = 0;

	for (pass = 0; pass < 3 && !ret; pass++) {
		size_t off;

		for (off = hlen; off < f->records_end && !ret;) {
			u32 len = get_le32(f->data + off + 4);
			u64 rdev = get_le64(f->data + off + 8);
			u64 phys = get_le64(f->data + off + 16);
			bool sup = is_super_range(phys);
			bool primary = phys == BTRFS_SUPER_INFO_OFFSET;

			if (rdev == devid &&
			    ((pass == 0 && !sup) || (pass == 1 && sup && !primary) ||
			     (pass == 2 && primary))) {
				const u8 *p = f->data + off + 32;
				u32 left = len;

				while (left) {
					ssize_t n = pwrite(fd, p, left, phys);

					if (n < 0 && errno == EINTR)
						continue;
					if (n <= 0) {
						ret = n < 0 ? -errno : -EIO;
						break;
					}
					p += n;
					left -= n;
					phys += n;
				}
			}
			off += 32 + len;
		}
		if (!ret && fsync(fd))
			ret = -errno;
	}
	return ret;
}

static void undo_usage(FILE *out)
{
	fprintf(out,
		"usage: ghee undo [--force-incomplete] FILE DEVICE [DEVICE...]\n"
		"\n"
		"Put back what a repair (ghee check --repair --undo FILE) overwrote.\n"
		"Refused when a device changed since the repair (its superblock is not\n"
		"the one the repair left) or is mounted.\n"
		"\n"
		"  --force-incomplete  restore from a file whose repair never finished\n"
		"                      (no trailer): the devices cannot be verified\n"
		"  -h, --help          this help\n"
		"  -V, --version       print the version\n");
}

int cmd_undo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force-incomplete", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct undo_file f;
	bool incomplete_ok = false;
	int c, i, ret = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			incomplete_ok = true;
			break;
		case 'h':
			undo_usage(stdout);
			return GHEE_EXIT_OK;
		case 'V':
			printf("%s\n", ghee_version_string);
			return GHEE_EXIT_OK;
		default:
			cmd_option_error("undo", argv, c);
			return GHEE_EXIT_USAGE;
		}
	}
	if (argc - optind < 2) {
		undo_usage(stderr);
		return GHEE_EXIT_USAGE;
	}
	if (load_undo_file(argv[optind], &f)) {
		free(f.data);
		return GHEE_EXIT_FAILURE;
	}
	if (!f.after && !incomplete_ok) {
		cmd_error("%s has no trailer: the repair did not finish; use --force-incomplete to restore anyway",
			  argv[optind]);
		free(f.data);
		return GHEE_EXIT_FAILURE;
	}
	for (i = optind + 1; i < argc && !ret; i++) {
		struct undo_dev_state now;
		const u8 *after, *before;
		int fd;

		if (device_refuse_in_use(argv[i])) {
			ret = -EBUSY;
			break;
		}
		fd = open(argv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			cmd_error("cannot open %s: %m", argv[i]);
			ret = -errno;
			break;
		}
		ret = dev_state(fd, &now);
		if (ret) {
			cmd_error("cannot read the superblock of %s", argv[i]);
			close(fd);
			break;
		}
		before = find_state(f.before, f.nr_devices, now.devid);
		after = f.after ? find_state(f.after, f.nr_devices, now.devid) : NULL;
		if (!before) {
			cmd_error("%s (devid %llu) is not a device of this undo file",
				  argv[i], (unsigned long long)now.devid);
			ret = -EINVAL;
		} else if (after && (get_le64(after + 8) != now.generation ||
				     memcmp(after + 16, now.csum, BTRFS_CSUM_SIZE))) {
			cmd_error("%s changed since the repair (superblock generation %llu, the repair left %llu): refusing to undo",
				  argv[i], (unsigned long long)now.generation,
				  (unsigned long long)get_le64(after + 8));
			ret = -ESTALE;
		} else {
			ret = restore_device(&f, fd, now.devid);
			if (ret)
				cmd_error("restoring %s failed: %s", argv[i], strerror(-ret));
			else if (!dev_state(fd, &now) &&
				 (now.generation != get_le64(before + 8) ||
				  memcmp(now.csum, before + 16, BTRFS_CSUM_SIZE))) {
				cmd_error("%s: the restored superblock is not the original", argv[i]);
				ret = -EIO;
			} else {
				printf("%s: restored generation %llu\n", argv[i],
				       (unsigned long long)now.generation);
			}
		}
		close(fd);
	}
	free(f.data);
	return ret ? GHEE_EXIT_FAILURE : GHEE_EXIT_OK;
}
