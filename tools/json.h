/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict JSON reader (RFC 8259) for what `ktgen -j` printed: the
 * whole text into a tree, then lookups by key, index or path.
 *
 * Strict: no comments, trailing commas, single quotes, NaN or leading
 * zeros; strings must be valid UTF-8 without raw control characters;
 * numbers must fit a double. Duplicate keys are kept (drivers can repeat
 * an ethtool statistic's name): json_get() finds the first.
 */
#ifndef KTGEN_JSON_H
#define KTGEN_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deeper nesting is refused; ktgen's documents are 5 deep. */
#define JSON_MAX_DEPTH	64

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json {
	enum json_type	type;
	bool		boolean;	/* JSON_BOOL */
	double		num;		/* JSON_NUMBER */
	bool		is_int;		/* written as an integer that fits i */
	bool		is_uint;	/* written as an integer that fits u */
	int64_t		i;
	uint64_t	u;
	char		*str;		/* JSON_STRING: UTF-8, NUL-terminated */
	size_t		len;		/* string: bytes (\u0000 counts); else members */
	struct json	*items;		/* JSON_ARRAY, JSON_OBJECT: len members */
	char		*key;		/* a member of an object: its name */
	size_t		key_len;
	unsigned int	line, col;	/* where the value starts, from 1:1 */
};

/*
 * The one document in @text (@len bytes, NUL not needed), whitespace
 * around it allowed; NULL on an error, described in @err (at most @errlen
 * bytes) as "LINE:COL: what", the column in bytes from 1.
 */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen);

/* Documents one after another (ktgen -j prints one per run), as the items
 * of an array; no document at all is an empty array.
 */
struct json *json_parse_seq(const char *text, size_t len, char *err, size_t errlen);

/* A file ("-" for stdin) by json_parse_seq(); errors as "PATH: ...". */
struct json *json_load(const char *path, char *err, size_t errlen);

void json_free(struct json *j);

/* The value of @key in an object, the @i-th item of an array (from 0), or
 * the value at @path from @j: keys and indexes as in `a.b[2].c`, a key
 * with dots or brackets quoted as in `counters.snmp["Tcp.RetransSegs"]`
 * (\" and \\ within). Each NULL when there is none (or @j is NULL, or
 * not of the right type), so lookups chain.
 */
const struct json *json_get(const struct json *j, const char *key);
const struct json *json_index(const struct json *j, size_t i);
const struct json *json_path(const struct json *j, const char *path);

/* The value of a number (any), a non-negative integer, a boolean: 0, or
 * -EINVAL when @j is NULL or another type (or the number is not written
 * as an integer within uint64_t).
 */
int json_number(const struct json *j, double *v);
int json_u64(const struct json *j, uint64_t *v);
int json_bool(const struct json *j, bool *v);

/* A string's value, or NULL for anything else. */
const char *json_string(const struct json *j);

/* "null", "boolean", "number", "string", "array", "object": for messages. */
const char *json_type_name(enum json_type t);

#endif /* KTGEN_JSON_H */
