// SPDX-License-Identifier: GPL-2.0
/*
 * A strict recursive-descent JSON reader into a tree of struct json.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct parser {
	const char	*p, *end;
	const char	*line_start;
	unsigned int	line;
	int		depth;
	char		*err;
	size_t		errlen;
};

static unsigned int col_of(const struct parser *ps, const char *at)
{
	return (unsigned int)(at - ps->line_start) + 1;
}

/* The error at @at (on the current line); -EINVAL for the caller to pass
 * up.
 */
static int __attribute__((format(printf, 3, 4)))
fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->err, ps->errlen, "%u:%u: ", ps->line, col_of(ps, at));
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int fail_nomem(struct parser *ps)
{
	return fail(ps, ps->p, "out of memory");
}

/* What is at @at, for messages: 'x', a byte's value, or the end. */
static const char *what_at(const struct parser *ps, const char *at, char *buf, size_t len)
{
	unsigned char c;

	if (at >= ps->end)
		return "the end of the input";
	c = *at;
	if (c >= 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static int fail_expected(struct parser *ps, const char *expected)
{
	char buf[16];

	return fail(ps, ps->p, "expected %s, found %s", expected,
		    what_at(ps, ps->p, buf, sizeof(buf)));
}

static void skip_ws(struct parser *ps)
{
	for (; ps->p < ps->end; ps->p++) {
		if (*ps->p == '\n') {
			ps->line++;
			ps->line_start = ps->p + 1;
		} else if (*ps->p != ' ' && *ps->p != '\t' && *ps->p != '\r') {
			break;
		}
	}
}

static int parse_value(struct parser *ps, struct json *j);

/* ---- strings ---- */

static int hex4(const char *s, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		unsigned int c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -EINVAL;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t put_utf8(char *out, unsigned int cp)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | cp >> 6;
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | cp >> 12;
		out[1] = 0x80 | (cp >> 6 & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | cp >> 18;
	out[1] = 0x80 | (cp >> 12 & 0x3f);
	out[2] = 0x80 | (cp >> 6 & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* \uXXXX at @s (after the backslash), a surrogate pair taking two; the
 * code point in @cp, the escape's length in @used.
 */
static int unicode_escape(struct parser *ps, const char *s, unsigned int *cp, size_t *used)
{
	unsigned int lo;

	if (ps->end - s < 5 || hex4(s + 1, cp))
		return fail(ps, s - 1, "invalid \\u escape: 4 hex digits wanted");
	*used = 5;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(ps, s - 1, "unpaired low surrogate \\u%04x", *cp);
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (ps->end - s < 11 || s[5] != '\\' || s[6] != 'u' || hex4(s + 7, &lo) ||
	    lo < 0xdc00 || lo > 0xdfff)
		return fail(ps, s - 1, "high surrogate \\u%04x without a low one", *cp);
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	*used = 11;
	return 0;
}

/* A valid UTF-8 sequence's length at @s (shortest form, no surrogates,
 * at most U+10FFFF), or 0.
 */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;			/* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;			/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;			/* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;			/* above U+10FFFF */
	if (end - s < (ptrdiff_t)n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static int decode_escape(struct parser *ps, const char *s, char *out, size_t *used, size_t *made)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *c = s < ps->end && *s ? strchr(from, *s) : NULL;
	unsigned int cp = 0;
	int err;

	if (c) {
		*out = to[c - from];
		*used = 1;
		*made = 1;
		return 0;
	}
	if (s < ps->end && *s == 'u') {
		err = unicode_escape(ps, s, &cp, used);
		if (!err)
			*made = put_utf8(out, cp);
		return err;
	}
	if (s >= ps->end)
		return fail(ps, s - 1, "unterminated string");
	return fail(ps, s - 1, "invalid escape '\\%c'", *s >= 0x20 && *s < 0x7f ? *s : '?');
}

/* Scans to the closing quote (the decoded string is never longer), then
 * decodes and checks what it passed.
 */
static int parse_string(struct parser *ps, char **str, size_t *len)
{
	const char *open = ps->p, *s = ps->p + 1, *close = s;
	size_t n = 0, used = 0, made = 0;
	char *out;
	int err;

	while (close < ps->end && *close != '"')
		close += *close == '\\' && close + 1 < ps->end ? 2 : 1;
	if (close >= ps->end)
		return fail(ps, open, "unterminated string");
	out = malloc(close - s + 1);
	if (!out)
		return fail_nomem(ps);
	while (s < close) {
		unsigned char c = *s;

		if (c == '\\') {
			err = decode_escape(ps, s + 1, out + n, &used, &made);
			if (err)
				goto err_free;
			s += 1 + used;
			n += made;
			continue;
		}
		if (c < 0x20) {
			err = fail(ps, s, "control character 0x%02x in a string", c);
			goto err_free;
		}
		used = c < 0x80 ? 1 : utf8_len((const unsigned char *)s,
					       (const unsigned char *)close);
		if (!used) {
			err = fail(ps, s, "invalid UTF-8 in a string");
			goto err_free;
		}
		memcpy(out + n, s, used);
		s += used;
		n += used;
	}
	out[n] = '\0';
	*str = out;
	*len = n;
	ps->p = close + 1;
	return 0;

err_free:
	free(out);
	return err;
}

/* ---- numbers ---- */

static const char *digits(const char *s, const char *end)
{
	while (s < end && *s >= '0' && *s <= '9')
		s++;
	return s;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? up to @*num_end. */
static int number_syntax(struct parser *ps, const char **num_end, bool *integral)
{
	const char *s = ps->p, *e = ps->end, *d;

	if (*s == '-')
		s++;
	d = digits(s, e);
	if (d == s)
		return fail(ps, s, "invalid number: a digit wanted");
	if (*s == '0' && d - s > 1)
		return fail(ps, s, "invalid number: leading zero");
	s = d;
	*integral = true;
	if (s < e && *s == '.') {
		d = digits(++s, e);
		if (d == s)
			return fail(ps, s, "invalid number: a digit wanted after '.'");
		s = d;
		*integral = false;
	}
	if (s < e && (*s == 'e' || *s == 'E')) {
		if (++s < e && (*s == '+' || *s == '-'))
			s++;
		d = digits(s, e);
		if (d == s)
			return fail(ps, s, "invalid number: a digit wanted in the exponent");
		s = d;
		*integral = false;
	}
	*num_end = s;
	return 0;
}

/* strtod() and friends want a terminated string (the C locale's). */
static int parse_number(struct parser *ps, struct json *j)
{
	char small[64], *buf = small, *end;
	const char *num_end = NULL;
	bool integral = false;
	size_t n;
	int err;

	err = number_syntax(ps, &num_end, &integral);
	if (err)
		return err;
	n = num_end - ps->p;
	if (n >= sizeof(small))
		buf = malloc(n + 1);
	if (!buf)
		return fail_nomem(ps);
	memcpy(buf, ps->p, n);
	buf[n] = '\0';

	j->type = JSON_NUMBER;
	j->num = strtod(buf, &end);
	if (integral) {
		errno = 0;
		j->i = strtoll(buf, &end, 10);
		j->is_int = !errno;
		errno = 0;
		j->u = buf[0] == '-' ? 0 : strtoull(buf, &end, 10);
		j->is_uint = !errno && (buf[0] != '-' || !strcmp(buf, "-0"));
	}
	if (buf != small)
		free(buf);
	if (isinf(j->num))
		return fail(ps, ps->p, "number out of range");
	ps->p = num_end;
	return 0;
}

/* ---- containers ---- */

/* A new, empty member at the end of @j's items. */
static struct json *add_item(struct parser *ps, struct json *j, size_t *cap)
{
	struct json *items;

	if (j->len == *cap) {
		size_t n = *cap ? 2 * *cap : 8;

		items = realloc(j->items, n * sizeof(*items));
		if (!items) {
			fail_nomem(ps);
			return NULL;
		}
		j->items = items;
		*cap = n;
	}
	memset(&j->items[j->len], 0, sizeof(*j->items));
	return &j->items[j->len++];
}

static int enter(struct parser *ps)
{
	if (++ps->depth > JSON_MAX_DEPTH)
		return fail(ps, ps->p, "nesting deeper than %d", JSON_MAX_DEPTH);
	ps->p++;
	skip_ws(ps);
	return 0;
}

/* After a member: ',' and another, or @close and the end. */
static int next_member(struct parser *ps, char close, bool *more)
{
	char expected[] = "',' or 'x'";

	skip_ws(ps);
	*more = ps->p < ps->end && *ps->p == ',';
	if (*more || (ps->p < ps->end && *ps->p == close)) {
		ps->p++;
		skip_ws(ps);
		return 0;
	}
	expected[8] = close;
	return fail_expected(ps, expected);
}

static int parse_array(struct parser *ps, struct json *j)
{
	struct json *item;
	bool more = true;
	size_t cap = 0;
	int err;

	j->type = JSON_ARRAY;
	err = enter(ps);
	if (err)
		return err;
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		more = false;
	}
	while (more) {
		item = add_item(ps, j, &cap);
		if (!item)
			return -ENOMEM;
		err = parse_value(ps, item);
		if (!err)
			err = next_member(ps, ']', &more);
		if (err)
			return err;
	}
	ps->depth--;
	return 0;
}

static int parse_member(struct parser *ps, struct json *m)
{
	int err;

	if (ps->p >= ps->end || *ps->p != '"')
		return fail_expected(ps, "a string key");
	err = parse_string(ps, &m->key, &m->key_len);
	if (err)
		return err;
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return fail_expected(ps, "':' after the key");
	ps->p++;
	return parse_value(ps, m);
}

static int parse_object(struct parser *ps, struct json *j)
{
	struct json *m;
	bool more = true;
	size_t cap = 0;
	int err;

	j->type = JSON_OBJECT;
	err = enter(ps);
	if (err)
		return err;
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		more = false;
	}
	while (more) {
		m = add_item(ps, j, &cap);
		if (!m)
			return -ENOMEM;
		err = parse_member(ps, m);
		if (!err)
			err = next_member(ps, '}', &more);
		if (err)
			return err;
	}
	ps->depth--;
	return 0;
}

/* ---- values ---- */

static int parse_literal(struct parser *ps, struct json *j)
{
	static const struct {
		const char	*word;
		enum json_type	type;
		bool		value;
	} lits[] = {
		{ "true", JSON_BOOL, true },
		{ "false", JSON_BOOL, false },
		{ "null", JSON_NULL, false },
	};
	size_t i, n;

	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		n = strlen(lits[i].word);
		if ((size_t)(ps->end - ps->p) >= n && !memcmp(ps->p, lits[i].word, n)) {
			j->type = lits[i].type;
			j->boolean = lits[i].value;
			ps->p += n;
			return 0;
		}
	}
	return fail_expected(ps, "a value");
}

static int parse_value(struct parser *ps, struct json *j)
{
	skip_ws(ps);
	j->line = ps->line;
	j->col = col_of(ps, ps->p);
	if (ps->p >= ps->end)
		return fail_expected(ps, "a value");
	switch (*ps->p) {
	case '{':
		return parse_object(ps, j);
	case '[':
		return parse_array(ps, j);
	case '"':
		j->type = JSON_STRING;
		return parse_string(ps, &j->str, &j->len);
	case '-':
		return parse_number(ps, j);
	default:
		if (*ps->p >= '0' && *ps->p <= '9')
			return parse_number(ps, j);
		return parse_literal(ps, j);
	}
}

static void free_members(struct json *j)
{
	size_t i;

	if (j->type == JSON_ARRAY || j->type == JSON_OBJECT) {
		for (i = 0; i < j->len; i++)
			free_members(&j->items[i]);
		free(j->items);
	}
	free(j->str);
	free(j->key);
}

void json_free(struct json *j)
{
	if (!j)
		return;
	free_members(j);
	free(j);
}

static void parser_init(struct parser *ps, const char *text, size_t len,
			char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->p = text;
	ps->end = text + len;
	ps->line_start = text;
	ps->line = 1;
	ps->err = err;
	ps->errlen = errlen;
	if (errlen)
		err[0] = '\0';
}

struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser ps;
	struct json *j;

	parser_init(&ps, text, len, err, errlen);
	j = calloc(1, sizeof(*j));
	if (!j) {
		fail_nomem(&ps);
		return NULL;
	}
	if (!parse_value(&ps, j)) {
		skip_ws(&ps);
		if (ps.p == ps.end)
			return j;
		fail_expected(&ps, "the end after the document");
	}
	json_free(j);
	return NULL;
}

struct json *json_parse_seq(const char *text, size_t len, char *err, size_t errlen)
{
	struct json *j, *doc;
	struct parser ps;
	size_t cap = 0;

	parser_init(&ps, text, len, err, errlen);
	j = calloc(1, sizeof(*j));
	if (!j) {
		fail_nomem(&ps);
		return NULL;
	}
	j->type = JSON_ARRAY;
	j->line = 1;
	j->col = 1;
	for (skip_ws(&ps); ps.p < ps.end; skip_ws(&ps)) {
		doc = add_item(&ps, j, &cap);
		if (!doc || parse_value(&ps, doc)) {
			json_free(j);
			return NULL;
		}
	}
	return j;
}

/* The whole of @f in @*buf. */
static int read_all(FILE *f, char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap), *nb;

	while (b) {
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		nb = realloc(b, cap);
		if (!nb)
			free(b);
		b = nb;
	}
	if (!b)
		return -ENOMEM;
	if (ferror(f)) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = n;
	return 0;
}

struct json *json_load(const char *path, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct json *j = NULL;
	char msg[256], *buf;
	size_t len;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	ret = read_all(f, &buf, &len);
	if (f != stdin)
		fclose(f);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return NULL;
	}
	j = json_parse_seq(buf, len, msg, sizeof(msg));
	if (!j)
		snprintf(err, errlen, "%s:%s", path, msg);
	free(buf);
	return j;
}

/* ---- lookups ---- */

static const struct json *get_n(const struct json *j, const char *key, size_t n)
{
	size_t i;

	if (!j || j->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < j->len; i++)
		if (j->items[i].key_len == n && !memcmp(j->items[i].key, key, n))
			return &j->items[i];
	return NULL;
}

const struct json *json_get(const struct json *j, const char *key)
{
	return get_n(j, key, strlen(key));
}

const struct json *json_index(const struct json *j, size_t i)
{
	if (!j || j->type != JSON_ARRAY || i >= j->len)
		return NULL;
	return &j->items[i];
}

/* ["key"] at @s (after the bracket): the key unescaped into @key. */
static const char *quoted_key(const char *s, char *key, size_t size, size_t *n)
{
	for (*n = 0; *s && *s != '"'; s++) {
		if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
			s++;
		if (*n + 1 >= size)
			return NULL;
		key[(*n)++] = *s;
	}
	return *s == '"' && s[1] == ']' ? s + 2 : NULL;
}

/* [N] at @s (after the bracket). */
static const char *index_step(const char *s, const struct json **j)
{
	unsigned long long i;
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	i = strtoull(s, &end, 10);
	if (errno || *end != ']')
		return NULL;
	*j = json_index(*j, i);
	return end + 1;
}

const struct json *json_path(const struct json *j, const char *path)
{
	const char *s = path;
	char key[256];
	size_t n;

	while (j && *s) {
		if (*s == '[' && s[1] == '"') {
			s = quoted_key(s + 2, key, sizeof(key), &n);
			if (!s)
				return NULL;
			j = get_n(j, key, n);
		} else if (*s == '[') {
			s = index_step(s + 1, &j);
			if (!s)
				return NULL;
		} else {
			if (*s == '.' && s != path)
				s++;
			n = strcspn(s, ".[");
			if (!n)
				return NULL;
			j = get_n(j, s, n);
			s += n;
		}
	}
	return j;
}

int json_number(const struct json *j, double *v)
{
	if (!j || j->type != JSON_NUMBER)
		return -EINVAL;
	*v = j->num;
	return 0;
}

int json_u64(const struct json *j, uint64_t *v)
{
	if (!j || j->type != JSON_NUMBER || !j->is_uint)
		return -EINVAL;
	*v = j->u;
	return 0;
}

int json_bool(const struct json *j, bool *v)
{
	if (!j || j->type != JSON_BOOL)
		return -EINVAL;
	*v = j->boolean;
	return 0;
}

const char *json_string(const struct json *j)
{
	return j && j->type == JSON_STRING ? j->str : NULL;
}

const char *json_type_name(enum json_type t)
{
	static const char * const names[] = {
		[JSON_NULL]	= "null",
		[JSON_BOOL]	= "boolean",
		[JSON_NUMBER]	= "number",
		[JSON_STRING]	= "string",
		[JSON_ARRAY]	= "array",
		[JSON_OBJECT]	= "object",
	};

	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}
