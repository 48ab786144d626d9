// SPDX-License-Identifier: GPL-2.0
/*
 * Text and JSON output from the same calls.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* @val (finite) in the fewest significant digits that read back as exactly
 * @val: without an exponent from 1e-6 to below 1e21 (JSON: 0.3489,
 * 9220271234.5, 100, 1e-07), or always (@positional, CSV: 0.0000001).
 * @len of 400 holds any double positionally.
 */
char *format_double(char *buf, size_t len, double val, bool positional)
{
	char sci[40], digits[24], *c;
	int prec, exp, n = 0, point, i;
	size_t o = 0;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, val);
		if (strtod(buf, NULL) == val)
			break;
	}
	snprintf(buf, len, "%.*g", prec, val);
	if (!strchr(buf, 'e') ||
	    (!positional && (fabs(val) < 1e-6 || fabs(val) >= 1e21)))
		return buf;

	/* d.ddde±x: the digits, then where the point goes among them */
	snprintf(sci, sizeof(sci), "%.*e", prec - 1, val);
	for (c = sci + (sci[0] == '-'); *c && *c != 'e'; c++)
		if (*c != '.')
			digits[n++] = *c;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	exp = atoi(c + 1);
	point = exp + 1;

#define PUT(ch) do { if (o + 1 < len) buf[o++] = (ch); } while (0)
	if (sci[0] == '-')
		PUT('-');
	if (point <= 0) {
		PUT('0');
		PUT('.');
		for (i = point; i < 0; i++)
			PUT('0');
	}
	for (i = 0; i < n || i < point; i++) {
		if (i == point && point > 0)
			PUT('.');
		PUT(i < n ? digits[i] : '0');
	}
#undef PUT
	if (len)
		buf[o < len ? o : len - 1] = '\0';
	return buf;
}

/* JSON has no NaN or infinity: those print as null. */
void print_double(enum output_type t, const char *key, const char *fmt,
		  double val)
{
	char buf[400];

	if (p.json) {
		if (!(t & PRINT_JSON))
			return;
		json_member(key);
		if (isfinite(val))
			fputs(format_double(buf, sizeof(buf), val, false), p.out);
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
