/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ghee check --format json: one document, streamed as the phases run.
 * The schema is documented in ghee-check(8).
 */
#ifndef GHEE_CHECK_JSON_OUTPUT_H
#define GHEE_CHECK_JSON_OUTPUT_H

#include <stdio.h>
#include "check.h"

struct check_json;

struct check_json *check_json_begin(FILE *out, const struct check_options *opts);
void check_json_phase_begin(struct check_json *j, int index, int total,
			    const struct check_phase *phase);
void check_json_problem(struct check_json *j, const struct check_ctx *ctx,
			enum problem_code code, const struct problem_ctx *pctx,
			const char *message);
void check_json_warning(struct check_json *j, enum problem_code code,
			const struct problem_ctx *pctx, const char *message);
void check_json_note(struct check_json *j, const char *message);
void check_json_phase_end(struct check_json *j, u64 problems);
/* totals, result and exit code; frees @j */
void check_json_finish(struct check_json *j, const struct check_ctx *ctx,
		       int exit_code);
/* the filesystem could not be opened; frees @j */
void check_json_cannot(struct check_json *j, const char *message, int err);

#endif
