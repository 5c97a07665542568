// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming JSON writer (see json-writer.h).  Every value goes through
 * value_prefix(), which writes the comma and indentation the position
 * needs and refuses what JSON does not allow there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "json-writer.h"

void json_writer_init(struct json_writer *w, FILE *out, unsigned int flags)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->flags = flags;
}

bool json_writer_failed(const struct json_writer *w)
{
	return w->error;
}

int json_writer_finish(struct json_writer *w)
{
	if (!w->error && (w->depth || !w->done))
		w->error = true;
	if (w->error)
		return -EINVAL;
	if (w->flags & JSON_WRITER_PRETTY)
		fputc('\n', w->out);
	if (ferror(w->out))
		return -EIO;
	return 0;
}

static bool pretty(const struct json_writer *w)
{
	return w->flags & JSON_WRITER_PRETTY;
}

static void newline_indent(struct json_writer *w, int depth)
{
	/* a newline and up to JSON_WRITER_MAX_DEPTH levels of two spaces */
	static const char spaces[1 + 2 * JSON_WRITER_MAX_DEPTH + 1] =
		"\n                                                                "
		"                                                                ";

	if (!pretty(w))
		return;
	if (depth > JSON_WRITER_MAX_DEPTH)
		depth = JSON_WRITER_MAX_DEPTH;
	fwrite_unlocked(spaces, 1, 1 + 2 * depth, w->out);
}

/* decimal digits of @v, written without printf: dumps print millions */
static void write_u64(FILE *out, uint64_t v, bool negative)
{
	char buf[24];
	int pos = sizeof(buf);

	do {
		buf[--pos] = '0' + v % 10;
		v /= 10;
	} while (v);
	if (negative)
		buf[--pos] = '-';
	fwrite_unlocked(buf + pos, 1, sizeof(buf) - pos, out);
}

/*
 * Before any value: the separator for this position.  Returns false (and
 * sets the error state) when no value may come here.
 */
static bool value_prefix(struct json_writer *w)
{
	int top = w->depth - 1;

	if (w->error)
		return false;
	if (!w->depth) {
		if (w->done)
			goto misuse;
		return true;
	}
	if (!w->is_array[top]) {
		/* in an object only after a key, which wrote the separator */
		if (!w->have_key)
			goto misuse;
		w->have_key = false;
		return true;
	}
	if (w->nonempty[top])
		fputc(',', w->out);
	w->nonempty[top] = true;
	newline_indent(w, w->depth);
	return true;
misuse:
	w->error = true;
	return false;
}

/* after a scalar value or a closed container */
static void value_done(struct json_writer *w)
{
	if (!w->depth)
		w->done = true;
}

static void container_begin(struct json_writer *w, bool is_array)
{
	if (!value_prefix(w))
		return;
	if (w->depth >= JSON_WRITER_MAX_DEPTH) {
		w->error = true;
		return;
	}
	w->is_array[w->depth] = is_array;
	w->nonempty[w->depth] = false;
	w->depth++;
	fputc(is_array ? '[' : '{', w->out);
}

static void container_end(struct json_writer *w, bool is_array)
{
	int top = w->depth - 1;

	if (w->error)
		return;
	if (!w->depth || w->is_array[top] != is_array || w->have_key) {
		w->error = true;
		return;
	}
	w->depth--;
	if (w->nonempty[top])
		newline_indent(w, w->depth);
	fputc(is_array ? ']' : '}', w->out);
	value_done(w);
}

void json_object_begin(struct json_writer *w)
{
	container_begin(w, false);
}

void json_object_end(struct json_writer *w)
{
	container_end(w, false);
}

void json_array_begin(struct json_writer *w)
{
	container_begin(w, true);
}

void json_array_end(struct json_writer *w)
{
	container_end(w, true);
}

/*
 * Length of the valid UTF-8 sequence at @s (at most @avail bytes), 0 if
 * the bytes there are not one: overlong forms, surrogates and code points
 * past U+10FFFF are not valid.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > avail)
		return 0;
	/* the second byte has a narrower range after some lead bytes */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void write_escaped_byte(FILE *out, unsigned char c)
{
	switch (c) {
	case '"':	fputs("\\\"", out); return;
	case '\\':	fputs("\\\\", out); return;
	case '\b':	fputs("\\b", out); return;
	case '\f':	fputs("\\f", out); return;
	case '\n':	fputs("\\n", out); return;
	case '\r':	fputs("\\r", out); return;
	case '\t':	fputs("\\t", out); return;
	}
	fprintf(out, "\\u%04x", c);
}

static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7f;
}

static void write_string(FILE *out, const unsigned char *s, size_t len)
{
	size_t i = 0, run, seq;

	fputc('"', out);
	while (i < len) {
		/* copy plain ASCII in one go */
		run = 0;
		while (i + run < len && s[i + run] < 0x80 &&
		       !needs_escape(s[i + run]))
			run++;
		if (run) {
			fwrite(s + i, 1, run, out);
			i += run;
			continue;
		}
		if (s[i] < 0x80) {
			write_escaped_byte(out, s[i]);
			i++;
			continue;
		}
		seq = utf8_seq_len(s + i, len - i);
		if (seq) {
			fwrite(s + i, 1, seq, out);
			i += seq;
		} else {
			write_escaped_byte(out, s[i]);
			i++;
		}
	}
	fputc('"', out);
}

void json_key(struct json_writer *w, const char *key)
{
	int top = w->depth - 1;

	if (w->error)
		return;
	if (!w->depth || w->is_array[top] || w->have_key) {
		w->error = true;
		return;
	}
	if (w->nonempty[top])
		fputc(',', w->out);
	w->nonempty[top] = true;
	newline_indent(w, w->depth);
	write_string(w->out, (const unsigned char *)key, strlen(key));
	fputs(pretty(w) ? ": " : ":", w->out);
	w->have_key = true;
}

void json_string_len(struct json_writer *w, const char *s, size_t len)
{
	if (!value_prefix(w))
		return;
	write_string(w->out, (const unsigned char *)s, len);
	value_done(w);
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	json_string_len(w, s, strlen(s));
}

__attribute__((format(printf, 2, 0)))
static void json_vstringf(struct json_writer *w, const char *fmt, va_list ap)
{
	char small[256];
	char *buf = small;
	va_list ap2;
	int len;

	va_copy(ap2, ap);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	if (len < 0) {
		w->error = true;
		goto out;
	}
	if ((size_t)len >= sizeof(small)) {
		buf = malloc((size_t)len + 1);
		if (!buf) {
			w->error = true;
			goto out;
		}
		vsnprintf(buf, (size_t)len + 1, fmt, ap2);
	}
	json_string_len(w, buf, (size_t)len);
	if (buf != small)
		free(buf);
out:
	va_end(ap2);
}

void json_stringf(struct json_writer *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	json_vstringf(w, fmt, ap);
	va_end(ap);
}

void json_u64(struct json_writer *w, uint64_t v)
{
	if (!value_prefix(w))
		return;
	write_u64(w->out, v, false);
	value_done(w);
}

void json_s64(struct json_writer *w, int64_t v)
{
	if (!value_prefix(w))
		return;
	write_u64(w->out, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
	value_done(w);
}

void json_bool(struct json_writer *w, bool v)
{
	if (!value_prefix(w))
		return;
	fputs(v ? "true" : "false", w->out);
	value_done(w);
}

void json_null(struct json_writer *w)
{
	if (!value_prefix(w))
		return;
	fputs("null", w->out);
	value_done(w);
}

void json_kv_object_begin(struct json_writer *w, const char *key)
{
	json_key(w, key);
	json_object_begin(w);
}

void json_kv_array_begin(struct json_writer *w, const char *key)
{
	json_key(w, key);
	json_array_begin(w);
}

void json_kv_string(struct json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_string(w, s);
}

void json_kv_string_len(struct json_writer *w, const char *key,
			const char *s, size_t len)
{
	json_key(w, key);
	json_string_len(w, s, len);
}

void json_kv_stringf(struct json_writer *w, const char *key,
		     const char *fmt, ...)
{
	va_list ap;

	json_key(w, key);
	va_start(ap, fmt);
	json_vstringf(w, fmt, ap);
	va_end(ap);
}

void json_kv_u64(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_u64(w, v);
}

void json_kv_s64(struct json_writer *w, const char *key, int64_t v)
{
	json_key(w, key);
	json_s64(w, v);
}

void json_fixed(struct json_writer *w, int64_t scaled, unsigned int decimals)
{
	uint64_t mag = scaled < 0 ? -(uint64_t)scaled : (uint64_t)scaled, div = 1;
	unsigned int i;

	if (decimals > 9)
		decimals = 9;
	for (i = 0; i < decimals; i++)
		div *= 10;
	if (!value_prefix(w))
		return;
	if (decimals)
		fprintf(w->out, "%s%llu.%0*llu", scaled < 0 ? "-" : "",
			(unsigned long long)(mag / div), (int)decimals,
			(unsigned long long)(mag % div));
	else
		fprintf(w->out, "%s%llu", scaled < 0 ? "-" : "", (unsigned long long)mag);
	value_done(w);
}

void json_kv_fixed(struct json_writer *w, const char *key, int64_t scaled,
		   unsigned int decimals)
{
	json_key(w, key);
	json_fixed(w, scaled, decimals);
}

void json_kv_bool(struct json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}

void json_kv_null(struct json_writer *w, const char *key)
{
	json_key(w, key);
	json_null(w);
}

void json_hex(struct json_writer *w, const void *p, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;
	char buf[2 * 64 + 1];
	size_t i, n = len < 64 ? len : 64;

	for (i = 0; i < n; i++) {
		buf[2 * i] = digits[b[i] >> 4];
		buf[2 * i + 1] = digits[b[i] & 15];
	}
	buf[2 * n] = 0;
	json_string(w, buf);
}

void json_kv_hex(struct json_writer *w, const char *key, const void *p,
		 size_t len)
{
	json_key(w, key);
	json_hex(w, p, len);
}
