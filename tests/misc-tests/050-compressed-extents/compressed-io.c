// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for 050-compressed-extents.
 *
 * "write IMAGE ALGO[:LEVEL] NAME=SRC...": open IMAGE writable and add
 * regular files NAME (copies of host files SRC) to the top directory of
 * the top-level subvolume, their data compressed with ALGO[:LEVEL] by
 * kernel-shared/compression.c: pieces of up to 128 KiB, each stored
 * compressed when that saves a sector and plain otherwise; a file
 * shorter than a sector whose compressed bytes fit the kernel's default
 * max_inline (2048) goes inline, compressed.  Sets the incompat bit the
 * algorithm needs, commits, and prints "compressed N plain N inline N
 * lzo-pads N" (lzo: sector ends padded so no segment header crosses one).
 *
 * "read IMAGE INO OUT": rebuild the content of inode INO of the top-level
 * subvolume into OUT from its file extent items, decompressing with
 * kernel-shared/compression.c (so extents the kernel wrote test the
 * decoders), and print "zlib N lzo N zstd N plain N inline N".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "disk-io.h"
#include "transaction.h"
#include "ctree.h"
#include "inode.h"
#include "file-item.h"
#include "extent-tree.h"
#include "write-io.h"
#include "compression.h"
#include "accessors.h"

#define TOP_DIR 256ULL
#define MAX_INLINE 2048

struct counts {
	unsigned long compressed, plain, inline_, lzo_pads;
};

/* lzo: sector ends padded because a segment header would not fit */
static unsigned long lzo_pads(const u8 *c, size_t clen, u32 ss)
{
	size_t pos = 4;
	unsigned long pads = 0;

	while (pos + 4 <= clen) {
		if (ss - pos % ss < 4) {
			pads++;
			pos += ss - pos % ss;
			continue;
		}
		pos += 4 + get_unaligned_le32(c + pos);
	}
	return pads;
}

static void report(void *ctx, enum btrfs_report_level level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s: %s\n", level == BTRFS_REPORT_ERROR ? "error" : "note", msg);
}

static int read_file(const char *path, u8 **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -EIO;
	}
	*data = malloc(n + 1);
	if (!*data || fread(*data, 1, n, f) != (size_t)n) {
		fclose(f);
		free(*data);
		return -EIO;
	}
	fclose(f);
	*len = n;
	return 0;
}

/* one piece of at most 128 KiB at @off: compressed if that pays */
static int write_piece(struct btrfs_trans_handle *trans, struct btrfs_root *root,
		       u64 ino, u64 off, const u8 *data, size_t len, u8 type, int level,
		       struct counts *cnt)
{
	struct btrfs_fs_info *fs = trans->fs_info;
	u32 ss = fs->sectorsize;
	size_t ram = (len + ss - 1) / ss * ss, clen = BTRFS_MAX_UNCOMPRESSED, disk;
	struct btrfs_file_extent_params p = { 0 };
	u8 *in = calloc(1, ram), *out = calloc(1, BTRFS_MAX_UNCOMPRESSED);
	u64 bytenr;
	int ret;

	if (!in || !out) {
		ret = -ENOMEM;
		goto out;
	}
	/* the kernel compresses whole sectors, the tail past EOF zeroed */
	memcpy(in, data, len);
	ret = btrfs_compress_extent(type, level, in, ram, ss, out, &clen);
	if (ret == -E2BIG) {
		cnt->plain++;
		ret = btrfs_write_file_extent(trans, root, ino, off, data, len, false, NULL);
		goto out;
	}
	if (ret)
		goto out;
	if (type == BTRFS_COMPRESS_LZO)
		cnt->lzo_pads += lzo_pads(out, clen, ss);
	disk = (clen + ss - 1) / ss * ss;
	memset(out + clen, 0, disk - clen);
	ret = btrfs_alloc_data_extent(trans, disk, root->root_key.objectid, ino, off, &bytenr);
	if (!ret)
		ret = btrfs_write_logical(fs, bytenr, out, disk);
	if (!ret)
		ret = btrfs_csum_file_blocks(trans, bytenr, out, disk);
	if (!ret) {
		p.disk_bytenr = bytenr;
		p.disk_num_bytes = disk;
		p.num_bytes = ram;
		p.ram_bytes = ram;
		p.compression = type;
		p.type = BTRFS_FILE_EXTENT_REG;
		ret = btrfs_insert_file_extent(trans, root, ino, off, &p);
	}
	cnt->compressed++;
out:
	free(in);
	free(out);
	return ret;
}

/* a small file inline and compressed, if it gets small enough: 1, else 0 */
static int try_inline(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
		      const u8 *data, size_t len, u8 type, int level)
{
	u8 out[BTRFS_MAX_UNCOMPRESSED];
	size_t clen = sizeof(out);
	int ret;

	if (len >= trans->fs_info->sectorsize)
		return 0;
	ret = btrfs_compress_extent(type, level, data, len, trans->fs_info->sectorsize,
				    out, &clen);
	if (ret == -E2BIG || (!ret && clen > MAX_INLINE))
		return 0;
	if (ret)
		return ret;
	ret = btrfs_insert_inline_extent(trans, root, ino, out, clen, len, type);
	return ret ? ret : 1;
}

static int add_file(struct btrfs_trans_handle *trans, struct btrfs_root *root, u64 ino,
		    u64 index, const char *name, const u8 *data, size_t len, u8 type,
		    int level, struct counts *cnt)
{
	u32 ss = trans->fs_info->sectorsize;
	struct btrfs_inode_params ip;
	u64 nbytes = 0;
	int ret;

	ret = try_inline(trans, root, ino, data, len, type, level);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		cnt->inline_++;
		nbytes = len;
	} else {
		for (size_t off = 0; off < len; off += BTRFS_MAX_UNCOMPRESSED) {
			size_t n = len - off < BTRFS_MAX_UNCOMPRESSED ? len - off :
				   BTRFS_MAX_UNCOMPRESSED;

			ret = write_piece(trans, root, ino, off, data + off, n, type, level, cnt);
			if (ret)
				return ret;
			nbytes += (n + ss - 1) / ss * ss;
		}
	}
	memset(&ip, 0, sizeof(ip));
	ip.generation = trans->transid;
	ip.transid = trans->transid;
	ip.nlink = 1;
	ip.mode = 0100644;
	ip.size = len;
	ip.nbytes = nbytes;
	ip.atime.sec = ip.ctime.sec = ip.mtime.sec = ip.otime.sec = (u64)time(NULL);
	ret = btrfs_insert_inode(trans, root, ino, &ip);
	if (!ret)
		ret = btrfs_add_link(trans, root, ino, TOP_DIR, name, strlen(name),
				     BTRFS_FT_REG_FILE, index);
	return ret;
}

static int parse_algo(const char *s, u8 *type, int *level)
{
	char name[16];
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	if (n >= sizeof(name))
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = 0;
	*level = colon ? atoi(colon + 1) : 0;
	for (*type = BTRFS_COMPRESS_ZLIB; *type <= BTRFS_COMPRESS_ZSTD; (*type)++)
		if (!strcmp(name, btrfs_compress_type_name(*type)))
			return btrfs_compress_level_valid(*type, *level) ? 0 : -EINVAL;
	return -EINVAL;
}

static int run(struct btrfs_fs_info *fs, u8 type, int level, char **specs, int nr,
	       struct counts *cnt)
{
	struct btrfs_trans_handle *trans;
	struct btrfs_root *root = btrfs_get_root(fs, BTRFS_FS_TREE_OBJECTID);
	u64 ino = 0, index = 0;
	int i, ret;

	if (!root)
		return -ENOENT;
	ret = btrfs_start_transaction(fs, &trans);
	if (ret)
		return ret;
	ret = btrfs_find_highest_objectid(root, &ino);
	if (!ret)
		ret = btrfs_next_dir_index(root, TOP_DIR, &index);
	for (i = 0; !ret && i < nr; i++) {
		char *eq = strchr(specs[i], '=');
		u8 *data = NULL;
		size_t len = 0;

		if (!eq) {
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		ret = read_file(eq + 1, &data, &len);
		if (!ret)
			ret = add_file(trans, root, ++ino, index++, specs[i], data, len, type,
				       level, cnt);
		if (ret)
			fprintf(stderr, "%s: %s\n", specs[i], strerror(-ret));
		free(data);
	}
	if (!ret) {
		u64 flag = btrfs_compress_incompat_flag(type);

		btrfs_set_super_incompat_flags(&fs->super_copy,
					       btrfs_super_incompat_flags(&fs->super_copy) | flag);
		fs->incompat |= flag;
		return btrfs_commit_transaction(trans);
	}
	btrfs_abort_transaction(trans, ret);
	return ret;
}

static int write_main(int argc, char **argv)
{
	struct open_ctree_args args;
	struct btrfs_fs_info *fs;
	struct counts cnt = { 0 };
	const char *paths[1];
	int level, err, ret;
	u8 type;

	if (argc < 4 || parse_algo(argv[2], &type, &level)) {
		fprintf(stderr, "usage: %s write IMAGE zlib|lzo|zstd[:LEVEL] NAME=SRC...\n",
			argv[0]);
		return 2;
	}
	if (!btrfs_compress_supported(type)) {
		fprintf(stderr, "%s is not built in\n", argv[2]);
		return 3;
	}
	paths[0] = argv[1];
	memset(&args, 0, sizeof(args));
	args.paths = paths;
	args.nr_paths = 1;
	args.backup_root = -1;
	args.flags = OPEN_CTREE_WRITES;
	args.reporter.report = report;
	fs = btrfs_open_ctree_writable(&args, &err);
	if (!fs) {
		fprintf(stderr, "open %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	ret = run(fs, type, level, argv + 3, argc - 3, &cnt);
	close_ctree(fs);
	if (ret) {
		fprintf(stderr, "failed: %s\n", strerror(-ret));
		return 1;
	}
	printf("compressed %lu plain %lu inline %lu lzo-pads %lu\n", cnt.compressed, cnt.plain,
	       cnt.inline_, cnt.lzo_pads);
	return 0;
}

/* ---- read ---- */

struct read_counts {
	unsigned long by_type[4], inline_;
};

/* the file bytes [@pos, @pos + @len) of one file extent item into @file */
static int read_extent(struct btrfs_fs_info *fs, const struct btrfs_file_extent_item *fi,
		       u32 item_size, u8 *file, u64 pos, u64 size, struct read_counts *cnt)
{
	u8 type = btrfs_file_extent_type(fi), comp = btrfs_file_extent_compression(fi);
	u64 ram = btrfs_file_extent_ram_bytes(fi), len, disk, dbytenr, off;
	u8 *raw = NULL, *plain = NULL;
	size_t plen;
	int ret = 0;

	if (comp > BTRFS_COMPRESS_ZSTD || ram > BTRFS_MAX_UNCOMPRESSED * 8192ULL)
		return -EUCLEAN;
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		const u8 *data = (const u8 *)fi + BTRFS_FILE_EXTENT_INLINE_DATA_START;
		size_t dlen = item_size - BTRFS_FILE_EXTENT_INLINE_DATA_START;

		cnt->inline_++;
		if (pos != 0 || ram > size)
			return -EUCLEAN;
		if (comp == BTRFS_COMPRESS_NONE) {
			memcpy(file, data, dlen < ram ? dlen : ram);
			return 0;
		}
		plen = ram;
		return btrfs_decompress_extent(comp, data, dlen, fs->sectorsize, file, &plen);
	}
	dbytenr = btrfs_file_extent_disk_bytenr(fi);
	disk = btrfs_file_extent_disk_num_bytes(fi);
	off = btrfs_file_extent_offset(fi);
	len = btrfs_file_extent_num_bytes(fi);
	if (pos >= size || dbytenr == 0 || type == BTRFS_FILE_EXTENT_PREALLOC)
		return 0;		/* a hole or beyond EOF: zeros */
	if (len > size - pos)
		len = size - pos;
	cnt->by_type[comp]++;
	if (comp == BTRFS_COMPRESS_NONE)
		return btrfs_read_logical(fs, dbytenr + off, file + pos, len, 0);
	if (disk > BTRFS_MAX_COMPRESSED || ram > BTRFS_MAX_UNCOMPRESSED || off + len > ram)
		return -EUCLEAN;
	raw = malloc(disk);
	plain = calloc(1, ram);
	if (!raw || !plain) {
		ret = -ENOMEM;
		goto out;
	}
	ret = btrfs_read_logical(fs, dbytenr, raw, disk, 0);
	plen = ram;
	if (!ret)
		ret = btrfs_decompress_extent(comp, raw, disk, fs->sectorsize, plain, &plen);
	if (!ret)
		memcpy(file + pos, plain + off, len);
out:
	free(raw);
	free(plain);
	return ret;
}

static int read_inode_data(struct btrfs_fs_info *fs, struct btrfs_root *root, u64 ino,
			   u8 *file, u64 size, struct read_counts *cnt)
{
	struct btrfs_key key = { ino, BTRFS_EXTENT_DATA_KEY, 0 };
	struct btrfs_path path;
	int ret;

	btrfs_init_path(&path);
	ret = btrfs_search_slot(NULL, root, &key, &path, 0, 0);
	if (ret > 0)
		ret = btrfs_path_fixup_slot(root, &path);
	while (ret == 0) {
		struct extent_buffer *leaf = path.nodes[0];
		int slot = path.slots[0];

		btrfs_path_key(&path, &key);
		if (key.objectid != ino || key.type != BTRFS_EXTENT_DATA_KEY)
			break;
		ret = read_extent(fs, btrfs_item_ptr_raw(leaf, slot), btrfs_item_size(leaf, slot),
				  file, key.offset, size, cnt);
		if (!ret)
			ret = btrfs_next_item(root, &path);
	}
	btrfs_release_path(&path);
	return ret < 0 ? ret : 0;
}

static int read_main(int argc, char **argv)
{
	struct open_ctree_args args;
	struct read_counts cnt = { { 0 }, 0 };
	struct btrfs_inode_item ii;
	struct btrfs_fs_info *fs;
	struct btrfs_root root;
	const char *paths[1];
	u8 *file = NULL;
	u64 ino, size = 0;
	FILE *out;
	int err, ret;

	if (argc != 5) {
		fprintf(stderr, "usage: %s read IMAGE INO OUT\n", argv[0]);
		return 2;
	}
	ino = strtoull(argv[3], NULL, 0);
	paths[0] = argv[2];
	memset(&args, 0, sizeof(args));
	args.paths = paths;
	args.nr_paths = 1;
	args.backup_root = -1;
	args.reporter.report = report;
	fs = open_ctree(&args, &err);
	if (!fs) {
		fprintf(stderr, "open %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	memset(&root, 0, sizeof(root));
	ret = btrfs_read_root(fs, BTRFS_FS_TREE_OBJECTID, &root);
	if (!ret)
		ret = btrfs_read_inode(&root, ino, &ii);
	if (!ret) {
		size = btrfs_inode_size(&ii);
		file = calloc(1, size + 1);
		ret = file ? read_inode_data(fs, &root, ino, file, size, &cnt) : -ENOMEM;
	}
	btrfs_release_root(&root);
	close_ctree(fs);
	if (ret) {
		fprintf(stderr, "inode %llu: %s\n", (unsigned long long)ino, strerror(-ret));
		free(file);
		return 1;
	}
	out = fopen(argv[4], "wb");
	if (!out || fwrite(file, 1, size, out) != size || fclose(out)) {
		fprintf(stderr, "%s: cannot write\n", argv[4]);
		free(file);
		return 1;
	}
	free(file);
	printf("zlib %lu lzo %lu zstd %lu plain %lu inline %lu\n",
	       cnt.by_type[BTRFS_COMPRESS_ZLIB], cnt.by_type[BTRFS_COMPRESS_LZO],
	       cnt.by_type[BTRFS_COMPRESS_ZSTD], cnt.by_type[BTRFS_COMPRESS_NONE], cnt.inline_);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "write"))
		return write_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "read"))
		return read_main(argc, argv);
	fprintf(stderr, "usage: %s write|read ...\n", argv[0]);
	return 2;
}
