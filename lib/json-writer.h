/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: objects, arrays, keys, strings, integers,
 * booleans and null, written straight to a FILE as they come, pretty
 * printed with a two-space indent or compact.
 *
 * The writer keeps track of nesting and commas, so callers just say what
 * comes next.  Misuse (a value in an object without a key, closing the
 * wrong kind of container, nesting deeper than JSON_WRITER_MAX_DEPTH, a
 * second top-level value) puts the writer in an error state: from then on
 * nothing more is written, and json_writer_finish() returns -EINVAL.
 *
 * Strings are bytes.  Valid UTF-8 passes through; quote, backslash and
 * control characters are escaped; each byte that is not part of a valid
 * UTF-8 sequence is written as \u00XX (its Latin-1 reading), so any byte
 * string gives valid JSON.
 *
 * Usage:
 *	struct json_writer w;
 *
 *	json_writer_init(&w, stdout, JSON_WRITER_PRETTY);
 *	json_object_begin(&w);
 *	json_kv_u64(&w, "answer", 42);
 *	json_kv_array_begin(&w, "list");
 *	json_string(&w, "a");
 *	json_array_end(&w);
 *	json_object_end(&w);
 *	ret = json_writer_finish(&w);
 */
#ifndef GHEE_JSON_WRITER_H
#define GHEE_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_WRITER_MAX_DEPTH	64

/* flags for json_writer_init() */
#define JSON_WRITER_PRETTY	(1U << 0)	/* newlines and 2-space indent */

/* the fields are private to json-writer.c; the struct is public so it can live on the stack */
struct json_writer {
	FILE *out;
	unsigned int flags;
	int depth;			/* open containers */
	bool error;			/* misuse seen: write nothing more */
	bool have_key;			/* in an object, a key waits for its value */
	bool done;			/* the top-level value is complete */
	bool is_array[JSON_WRITER_MAX_DEPTH];
	bool nonempty[JSON_WRITER_MAX_DEPTH];
};

void json_writer_init(struct json_writer *w, FILE *out, unsigned int flags);
/*
 * End the document (a final newline when pretty printing).  Returns 0,
 * -EINVAL after misuse or when containers are left open or nothing was
 * written, -EIO when the stream has an error.
 */
int json_writer_finish(struct json_writer *w);
bool json_writer_failed(const struct json_writer *w);

/* containers */
void json_object_begin(struct json_writer *w);
void json_object_end(struct json_writer *w);
void json_array_begin(struct json_writer *w);
void json_array_end(struct json_writer *w);

/* the key of the next value inside an object */
void json_key(struct json_writer *w, const char *key);

/* values: array elements, the value after a key, or the top-level value */
void json_string(struct json_writer *w, const char *s);
void json_string_len(struct json_writer *w, const char *s, size_t len);
__attribute__((format(printf, 2, 3)))
void json_stringf(struct json_writer *w, const char *fmt, ...);
void json_u64(struct json_writer *w, uint64_t v);
void json_s64(struct json_writer *w, int64_t v);
void json_bool(struct json_writer *w, bool v);
/* a decimal number given scaled: (1234, 2) writes 12.34 (at most 9 decimals) */
void json_fixed(struct json_writer *w, int64_t scaled, unsigned int decimals);
void json_null(struct json_writer *w);

/* key and value in one call */
void json_kv_object_begin(struct json_writer *w, const char *key);
void json_kv_array_begin(struct json_writer *w, const char *key);
void json_kv_string(struct json_writer *w, const char *key, const char *s);
void json_kv_string_len(struct json_writer *w, const char *key,
			const char *s, size_t len);
__attribute__((format(printf, 3, 4)))
void json_kv_stringf(struct json_writer *w, const char *key,
		     const char *fmt, ...);
void json_kv_u64(struct json_writer *w, const char *key, uint64_t v);
void json_kv_s64(struct json_writer *w, const char *key, int64_t v);
void json_kv_bool(struct json_writer *w, const char *key, bool v);
void json_kv_fixed(struct json_writer *w, const char *key, int64_t scaled,
		   unsigned int decimals);
void json_kv_null(struct json_writer *w, const char *key);

/* @len bytes as a lower-case hex string (a checksum, a raw field) */
void json_hex(struct json_writer *w, const void *p, size_t len);
void json_kv_hex(struct json_writer *w, const char *key, const void *p,
		 size_t len);

#endif
