// SPDX-License-Identifier: GPL-2.0
/*
 * Text and JSON output from the same calls.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "print.h"

#define MAX_DEPTH	16

static struct {
	FILE	*out;
	bool	json;
	bool	pretty;
	int	depth;
	bool	first[MAX_DEPTH];	/* no member printed yet at this depth */
} p;

void print_init(FILE *out, bool json, bool pretty)
{
	memset(&p, 0, sizeof(p));
	p.out = out;
	p.json = json;
	p.pretty = pretty;
	p.first[0] = true;
}

bool print_is_json(void)
{
	return p.json;
}

int print_finish(void)
{
	if (p.json && p.depth == 0 && !p.first[0])
		fputc('\n', p.out);
	return fflush(p.out) ? -1 : 0;
}

static void json_indent(void)
{
	int i;

	if (!p.pretty)
		return;
	fputc('\n', p.out);
	for (i = 0; i < p.depth; i++)
		fputs("  ", p.out);
}

static void json_string(const char *s);

/* Separator and key before a member; keys are escaped like values (device
 * statistics names come from drivers).
 */
static void json_member(const char *key)
{
	if (!p.first[p.depth])
		fputc(',', p.out);
	p.first[p.depth] = false;
	if (p.depth)
		json_indent();
	if (key) {
		json_string(key);
		fputc(':', p.out);
		if (p.pretty)
			fputc(' ', p.out);
	}
}

static void json_push(char c)
{
	fputc(c, p.out);
	if (p.depth + 1 < MAX_DEPTH)
		p.depth++;
	p.first[p.depth] = true;
}

static void json_pop(char c)
{
	bool empty = p.first[p.depth];

	if (p.depth)
		p.depth--;
	if (!empty)
		json_indent();
	fputc(c, p.out);
}

void print_open_object(const char *key)
{
	if (!p.json)
		return;
	json_member(key);
	json_push('{');
}

void print_close_object(void)
{
	if (p.json)
		json_pop('}');
}

void print_open_array(const char *key)
{
	if (!p.json)
		return;
	json_member(key);
	json_push('[');
}

void print_close_array(void)
{
	if (p.json)
		json_pop(']');
}

static void json_string(const char *s)
{
	const unsigned char *c;

	fputc('"', p.out);
	for (c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			fputs("\\\"", p.out);
			break;
		case '\\':
			fputs("\\\\", p.out);
			break;
		case '\n':
			fputs("\\n", p.out);
			break;
		case '\t':
			fputs("\\t", p.out);
			break;
		default:
			if (*c < 0x20)
				fprintf(p.out, "\\u%04x", *c);
			else
				fputc(*c, p.out);
		}
	}
	fputc('"', p.out);
}

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *val)
{
	if (p.json) {
		if (!(t & PRINT_JSON))
			return;
		json_member(key);
		if (val)
			json_string(val);
		else
			fputs("null", p.out);
	} else if (t & PRINT_TEXT) {
		fprintf(p.out, fmt, val ? val : "-");
	}
}

void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t val)
{
	if (p.json) {
		if (!(t & PRINT_JSON))
			return;
		json_member(key);
		fprintf(p.out, "%llu", (unsigned long long)val);
	} else if (t & PRINT_TEXT) {
		fprintf(p.out, fmt, (unsigned long long)val);
	}
}

/* JSON has no NaN or infinity: those print as null. */
void print_double(enum output_type t, const char *key, const char *fmt,
		  double val)
{
	if (p.json) {
		if (!(t & PRINT_JSON))
			return;
		json_member(key);
		if (isfinite(val))
			fprintf(p.out, "%.6g", val);
		else
			fputs("null", p.out);
	} else if (t & PRINT_TEXT) {
		fprintf(p.out, fmt, val);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt,
		bool val)
{
	if (p.json) {
		if (!(t & PRINT_JSON))
			return;
		json_member(key);
		fputs(val ? "true" : "false", p.out);
	} else if (t & PRINT_TEXT) {
		fprintf(p.out, fmt, val ? "yes" : "no");
	}
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (p.json)
		return;
	va_start(ap, fmt);
	vfprintf(p.out, fmt, ap);
	va_end(ap);
}
