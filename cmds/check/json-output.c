// SPDX-License-Identifier: GPL-2.0
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "json-output.h"
#include "lib/json-writer.h"
#include "cmds/commands.h"

struct check_json {
	struct json_writer w;
};

struct check_json *check_json_begin(FILE *out, const struct check_options *opts)
{
	struct check_json *j = calloc(1, sizeof(*j));
	int i;

	if (!j)
		return NULL;
	json_writer_init(&j->w, out, JSON_WRITER_PRETTY);
	json_object_begin(&j->w);
	json_kv_string(&j->w, "ghee_version", PACKAGE_VERSION);
	json_kv_array_begin(&j->w, "devices");
	for (i = 0; i < opts->nr_devices; i++)
		json_string(&j->w, opts->devices[i]);
	json_array_end(&j->w);
	json_kv_object_begin(&j->w, "options");
	json_kv_bool(&j->w, "check_data_csum", opts->check_data_csum);
	json_kv_s64(&j->w, "super_mirror", opts->super_mirror);
	json_kv_bool(&j->w, "backup_roots", opts->use_backup_roots);
	json_kv_u64(&j->w, "tree_root", opts->tree_root);
	json_kv_u64(&j->w, "chunk_root", opts->chunk_root);
	json_object_end(&j->w);
	json_kv_array_begin(&j->w, "phases");
	return j;
}

void check_json_phase_begin(struct check_json *j, int index, int total,
			    const struct check_phase *phase)
{
	json_object_begin(&j->w);
	json_kv_s64(&j->w, "index", index);
	json_kv_s64(&j->w, "of", total);
	json_kv_string(&j->w, "name", phase->name);
	json_kv_string(&j->w, "title", phase->title);
	json_kv_array_begin(&j->w, "messages");
}

/* emit the context fields the code's template names, typed */
static void emit_object(struct json_writer *w, enum problem_code code,
			const struct problem_ctx *pctx)
{
	const char *t = problem_template(code);
	char keybuf[128];

	json_kv_object_begin(w, "object");
	while ((t = strchr(t, '{')) != NULL) {
		const char *end = strchr(t, '}');
		size_t n;

		if (!end)
			break;
		n = end - t - 1;
		t = end + 1;
#define FIELD(s) (n == sizeof(s) - 1 && !memcmp(end - n, s, n))
		if (FIELD("root"))
			json_kv_u64(w, "root", pctx->root);
		else if (FIELD("block"))
			json_kv_u64(w, "block", pctx->block);
		else if (FIELD("inode"))
			json_kv_u64(w, "inode", pctx->inode);
		else if (FIELD("bytenr"))
			json_kv_u64(w, "bytenr", pctx->bytenr);
		else if (FIELD("len"))
			json_kv_u64(w, "len", pctx->len);
		else if (FIELD("devid"))
			json_kv_u64(w, "devid", pctx->devid);
		else if (FIELD("index"))
			json_kv_u64(w, "index", pctx->index);
		else if (FIELD("expected"))
			json_kv_u64(w, "expected", pctx->expected);
		else if (FIELD("found"))
			json_kv_u64(w, "found", pctx->found);
		else if (FIELD("mirror"))
			json_kv_s64(w, "mirror", pctx->mirror);
		else if (FIELD("slot"))
			json_kv_s64(w, "slot", pctx->slot);
		else if (FIELD("name"))
			json_kv_string(w, "name", pctx->name ? pctx->name : "");
		else if (FIELD("detail"))
			json_kv_string(w, "detail", pctx->detail ? pctx->detail : "");
		else if (FIELD("key")) {
			check_format_key(&pctx->key, keybuf, sizeof(keybuf));
			json_kv_object_begin(w, "key");
			json_kv_u64(w, "objectid", pctx->key.objectid);
			json_kv_u64(w, "type", pctx->key.type);
			json_kv_u64(w, "offset", pctx->key.offset);
			json_kv_string(w, "text", keybuf);
			json_object_end(w);
		}
#undef FIELD
	}
	json_object_end(w);
}

void check_json_problem(struct check_json *j, const struct check_ctx *ctx,
			enum problem_code code, const struct problem_ctx *pctx,
			const char *message)
{
	(void)ctx;
	json_object_begin(&j->w);
	json_kv_string(&j->w, "type", "finding");
	json_kv_string(&j->w, "code", problem_code_name(code));
	json_kv_bool(&j->w, "repairable", problem_repairable(code));
	json_kv_string(&j->w, "message", message);
	emit_object(&j->w, code, pctx);
	json_object_end(&j->w);
}

void check_json_warning(struct check_json *j, enum problem_code code,
			const struct problem_ctx *pctx, const char *message)
{
	json_object_begin(&j->w);
	json_kv_string(&j->w, "type", "warning");
	json_kv_string(&j->w, "code", problem_code_name(code));
	json_kv_bool(&j->w, "repairable", problem_repairable(code));
	json_kv_string(&j->w, "message", message);
	emit_object(&j->w, code, pctx);
	json_object_end(&j->w);
}

void check_json_note(struct check_json *j, const char *message)
{
	json_object_begin(&j->w);
	json_kv_string(&j->w, "type", "note");
	json_kv_string(&j->w, "message", message);
	json_object_end(&j->w);
}

void check_json_phase_end(struct check_json *j, u64 problems)
{
	json_array_end(&j->w);
	json_kv_u64(&j->w, "problems", problems);
	json_object_end(&j->w);
}

void check_json_finish(struct check_json *j, const struct check_ctx *ctx,
		       int exit_code)
{
	int code;

	json_array_end(&j->w);
	json_kv_object_begin(&j->w, "totals");
	json_kv_u64(&j->w, "problems", ctx->problems_total);
	json_kv_u64(&j->w, "warnings", ctx->warnings_total);
	json_kv_object_begin(&j->w, "by_code");
	for (code = 0; code < PR_COUNT; code++) {
		if (ctx->problems_by_code[code])
			json_kv_u64(&j->w, problem_code_name(code),
				    ctx->problems_by_code[code]);
	}
	json_object_end(&j->w);
	json_object_end(&j->w);
	json_kv_string(&j->w, "result", ctx->problems_total ? "errors" : "clean");
	json_kv_s64(&j->w, "exit_code", exit_code);
	json_object_end(&j->w);
	json_writer_finish(&j->w);
	free(j);
}

void check_json_cannot(struct check_json *j, const char *message, int err)
{
	json_array_end(&j->w);
	json_kv_string(&j->w, "result", "cannot-check");
	/* err 0: @message says it all */
	json_kv_stringf(&j->w, "error", "%s%s%s", message,
			message[0] && err ? ": " : "", err ? strerror(-err) : "");
	json_kv_s64(&j->w, "exit_code", CHECK_EXIT_CANNOT);
	json_object_end(&j->w);
	json_writer_finish(&j->w);
	free(j);
}
