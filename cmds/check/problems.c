// SPDX-License-Identifier: GPL-2.0
/*
 * The finding catalog (problems.def) and the one function every phase
 * calls to report a finding.  Templates name the object in braces; the
 * same expansion feeds the text output and the JSON "message".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "check.h"
#include "json-output.h"
#include "kernel-shared/print-tree.h"

struct problem_def {
	const char *name;
	const char *template;
	bool repairable;
};

static const struct problem_def catalog[PR_COUNT] = {
#define PROBLEM(code, rep, msg) [PR_##code] = { #code, msg, rep },
#include "problems.def"
#undef PROBLEM
};

const char *problem_code_name(enum problem_code code)
{
	return code < PR_COUNT ? catalog[code].name : "UNKNOWN";
}

const char *problem_template(enum problem_code code)
{
	return code < PR_COUNT ? catalog[code].template : "";
}

bool problem_repairable(enum problem_code code)
{
	return code < PR_COUNT && catalog[code].repairable;
}

void check_format_key(const struct btrfs_key *key, char *buf, size_t len)
{
	const char *type = btrfs_key_type_name(key->objectid, key->type);

	if (type)
		snprintf(buf, len, "(%llu %s %llu)", (unsigned long long)key->objectid,
			 type, (unsigned long long)key->offset);
	else
		snprintf(buf, len, "(%llu %u %llu)", (unsigned long long)key->objectid,
			 key->type, (unsigned long long)key->offset);
}

/* the value of placeholder @name as text; false if the name is unknown */
static bool placeholder_value(const char *name, size_t nlen,
			      const struct problem_ctx *pctx, char *buf,
			      size_t len)
{
#define IS(s) (nlen == sizeof(s) - 1 && !memcmp(name, s, nlen))
#define U64(field) snprintf(buf, len, "%" PRIu64, pctx->field)
	if (IS("root"))
		U64(root);
	else if (IS("block"))
		U64(block);
	else if (IS("inode"))
		U64(inode);
	else if (IS("bytenr"))
		U64(bytenr);
	else if (IS("len"))
		U64(len);
	else if (IS("devid"))
		U64(devid);
	else if (IS("index"))
		U64(index);
	else if (IS("expected"))
		U64(expected);
	else if (IS("found"))
		U64(found);
	else if (IS("mirror"))
		snprintf(buf, len, "%d", pctx->mirror);
	else if (IS("slot"))
		snprintf(buf, len, "%d", pctx->slot);
	else if (IS("key"))
		check_format_key(&pctx->key, buf, len);
	else if (IS("name"))
		snprintf(buf, len, "%s", pctx->name ? pctx->name : "");
	else if (IS("detail"))
		snprintf(buf, len, "%s", pctx->detail ? pctx->detail : "");
	else
		return false;
	return true;
#undef U64
#undef IS
}

void problem_format(enum problem_code code, const struct problem_ctx *pctx,
		    char *buf, size_t len)
{
	const char *t = problem_template(code);
	size_t used = 0;

	if (!len)
		return;
	while (*t && used + 1 < len) {
		const char *end = *t == '{' ? strchr(t, '}') : NULL;
		char value[256];

		if (end && placeholder_value(t + 1, end - t - 1, pctx, value,
					     sizeof(value))) {
			size_t n = strlen(value);

			if (n > len - 1 - used)
				n = len - 1 - used;
			memcpy(buf + used, value, n);
			used += n;
			t = end + 1;
			continue;
		}
		buf[used++] = *t++;
	}
	buf[used] = 0;
}

void check_problem(struct check_ctx *ctx, enum problem_code code,
		   const struct problem_ctx *pctx)
{
	char msg[1024];

	ctx->problems_total++;
	if (ctx->phase_index >= 0 && ctx->phase_index < 16)
		ctx->problems_by_phase[ctx->phase_index]++;
	if (code < PR_COUNT)
		ctx->problems_by_code[code]++;
	if (ctx->on_problem)
		ctx->on_problem(ctx->on_problem_data, ctx, code, pctx);
	problem_format(code, pctx, msg, sizeof(msg));
	if (ctx->json) {
		check_json_problem(ctx->json, ctx, code, pctx, msg);
		return;
	}
	if (ctx->progress.active)
		fprintf(stderr, "\r\033[K");
	fprintf(ctx->out, "ERROR: [%s] %s\n", problem_code_name(code), msg);
}

/*
 * A warning: a state the kernel and btrfs check accept but a user should
 * know about.  Printed and emitted like a finding, never counted as an
 * error (the exit status stays clean).
 */
void check_warning(struct check_ctx *ctx, enum problem_code code,
		   const struct problem_ctx *pctx)
{
	char msg[1024];

	ctx->warnings_total++;
	/* the repair fixes the warnings that have an action */
	if (ctx->on_problem) {
		ctx->reporting_warning = true;
		ctx->on_problem(ctx->on_problem_data, ctx, code, pctx);
		ctx->reporting_warning = false;
	}
	problem_format(code, pctx, msg, sizeof(msg));
	if (ctx->json) {
		check_json_warning(ctx->json, code, pctx, msg);
		return;
	}
	if (ctx->progress.active)
		fprintf(stderr, "\r\033[K");
	fprintf(ctx->out, "WARNING: [%s] %s\n", problem_code_name(code), msg);
}

struct queued_problem {
	enum problem_code code;
	struct problem_ctx pctx;	/* name and detail point to copies */
};

struct problem_queue {
	struct queued_problem *v;
	size_t nr;
	size_t alloc;
};

struct problem_queue *problem_queue_create(void)
{
	return calloc(1, sizeof(struct problem_queue));
}

int problem_queue_add(struct problem_queue *q, enum problem_code code,
		      const struct problem_ctx *pctx)
{
	struct queued_problem *e;

	if (ARRAY_RESERVE(q->v, q->alloc, q->nr + 1, 16))
		return -ENOMEM;
	e = &q->v[q->nr];
	e->code = code;
	e->pctx = *pctx;
	e->pctx.name = pctx->name ? strdup(pctx->name) : NULL;
	e->pctx.detail = pctx->detail ? strdup(pctx->detail) : NULL;
	if ((pctx->name && !e->pctx.name) || (pctx->detail && !e->pctx.detail)) {
		free((char *)e->pctx.name);
		free((char *)e->pctx.detail);
		return -ENOMEM;
	}
	q->nr++;
	return 0;
}

size_t problem_queue_len(const struct problem_queue *q)
{
	return q->nr;
}

void problem_queue_report(struct check_ctx *ctx, const struct problem_queue *q)
{
	size_t i;

	for (i = 0; i < q->nr; i++)
		check_problem(ctx, q->v[i].code, &q->v[i].pctx);
}

void problem_queue_destroy(struct problem_queue *q)
{
	size_t i;

	if (!q)
		return;
	for (i = 0; i < q->nr; i++) {
		free((char *)q->v[i].pctx.name);
		free((char *)q->v[i].pctx.detail);
	}
	free(q->v);
	free(q);
}

void check_info(struct check_ctx *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ctx->json) {
		check_json_note(ctx->json, msg);
		return;
	}
	if (!ctx->opts->quiet)
		fprintf(ctx->out, "%s\n", msg);
}
