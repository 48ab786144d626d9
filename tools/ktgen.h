/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktgen CLI: shared declarations.
 */
#ifndef KTGEN_CLI_H
#define KTGEN_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (documented in README.md and `ktgen help`). */
enum {
	EXIT_OK		= 0,	/* done, and what was checked holds */
	EXIT_FAIL	= 1,	/* the kernel refused, a test failed or regressed */
	EXIT_USAGE	= 2,	/* bad command line */
};

/* Global options. */
struct opts {
	bool	json;
	bool	pretty;
};
extern struct opts opts;

/* Objects: one file each, dispatched from ktgen.c. */
int do_info(int argc, char **argv);
int do_config(int argc, char **argv);

/* Command-line helpers (util.c). */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool is_help(const char *arg);
int parse_u64(const char *s, uint64_t *v);
int parse_size(const char *s, uint64_t *v);
const char *format_size(uint64_t v, char *buf, size_t len);

#endif /* KTGEN_CLI_H */
