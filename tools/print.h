/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One print path for text and JSON, in the style of iproute2's json_print:
 * every value is printed once, with a JSON key and a text format.
 */
#ifndef KTGEN_PRINT_H
#define KTGEN_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum output_type {
	PRINT_TEXT	= 1,	/* text only */
	PRINT_JSON	= 2,	/* JSON only */
	PRINT_ANY	= 3,	/* both */
};

void print_init(FILE *out, bool json, bool pretty);
int print_finish(void);
bool print_is_json(void);

void print_open_object(const char *key);
void print_close_object(void);
void print_open_array(const char *key);
void print_close_array(void);

/* @key is the JSON name (NULL inside arrays), @fmt the text format. */
void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *val);
void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t val);
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool val);
void print_double(enum output_type t, const char *key, const char *fmt,
		  double val);
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *format_double(char *buf, size_t len, double val, bool positional);

#endif /* KTGEN_PRINT_H */
