// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: one tree block of arbitrary bytes goes through the
 * layout verification, the per-item checks and both printers.  None of
 * them may read outside the block, whatever the header claims.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "kernel-shared/disk-io.h"
#include "kernel-shared/extent_io.h"
#include "kernel-shared/tree-checker.h"
#include "kernel-shared/print-tree.h"
#include "kernel-shared/csum.h"
#include "lib/json-writer.h"

#define FUZZ_NODESIZE 4096

static FILE *sink;

static void setup_fs_info(struct btrfs_fs_info *fs, const uint8_t *data, size_t size)
{
	memset(fs, 0, sizeof(*fs));
	fs->nodesize = FUZZ_NODESIZE;
	fs->sectorsize = 4096;
	/* let the input choose the checksum type so every csum size is printed */
	fs->csum_type = size ? data[size - 1] % 4 : BTRFS_CSUM_TYPE_CRC32;
	fs->csum_size = btrfs_csum_type_size(fs->csum_type);
}

/* the text printer, or the JSON one inside a document of its own */
static void print_block(struct btrfs_printer *printer, struct extent_buffer *eb,
			bool json)
{
	struct json_writer w;

	if (json) {
		json_writer_init(&w, sink, 0);
		printer->format = BTRFS_PRINT_FORMAT_JSON;
		printer->json = &w;
		json_array_begin(&w);
	}
	if (btrfs_eb_level(eb) == 0)
		btrfs_print_leaf(printer, eb);
	else
		btrfs_print_node(printer, eb);
	if (json) {
		json_array_end(&w);
		json_writer_finish(&w);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct btrfs_fs_info fs;
	struct tree_check_error err;
	struct btrfs_printer printer;
	struct extent_buffer *eb;
	unsigned int mode;

	if (!sink)
		sink = fopen("/dev/null", "w");
	setup_fs_info(&fs, data, size);
	eb = alloc_dummy_extent_buffer(&fs, 0, FUZZ_NODESIZE);
	if (!eb)
		return 0;
	memcpy(eb->data, data, size < FUZZ_NODESIZE ? size : FUZZ_NODESIZE);
	eb->start = btrfs_eb_bytenr(eb);

	if (btrfs_eb_level(eb) == 0) {
		if (!btrfs_check_leaf_layout(&fs, eb, &err))
			btrfs_check_leaf_items(&fs, eb, &err);
	} else {
		btrfs_check_node(&fs, eb, &err);
	}
	mode = size > 1 ? (data[size - 2] & (BTRFS_PRINT_TREE_CSUM_ITEMS |
					    BTRFS_PRINT_TREE_HIDE_NAMES)) : 0;
	btrfs_printer_init(&printer, sink, NULL, mode);
	printer.nodesize = FUZZ_NODESIZE;
	printer.sectorsize = fs.sectorsize;
	printer.csum_type = fs.csum_type;
	printer.csum_size = fs.csum_size;
	print_block(&printer, eb, size > 2 && (data[size - 3] & 1));
	free_extent_buffer(eb);
	return 0;
}
