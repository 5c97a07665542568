/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GHEE_CHECK_DATA_CSUM_H
#define GHEE_CHECK_DATA_CSUM_H

#include "kernel-shared/format.h"

struct check_ctx;

/*
 * --check-data-csum: read every data sector that has a checksum, on every
 * copy when the first one fails, with one worker thread per CPU.
 * @total_bytes (the covered bytes) drives the progress line.
 */
int verify_data_csums(struct check_ctx *ctx, u64 total_bytes);

#endif
