/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Printing of attributes that sinks and runs share (show.c).
 */
#ifndef KTGEN_SHOW_H
#define KTGEN_SHOW_H

#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

enum { TEXT_NEVER, TEXT_NONZERO, TEXT_ALWAYS };
void print_counter(const struct nlattr *a, const char *key, const char *fmt,
		   int text);
void print_rx_stats(const struct nlattr *nest);
void print_cpus(const struct nlattr *a, const char *fmt);
void print_addr(const struct nlattr *a, const char *key);
void print_endpoint(const struct nlattr *addr, const struct nlattr *port,
		    const char *fmt);
void print_enum(const struct nlattr *a, const char *key, const char *fmt,
		const char * const *names, size_t n);

/* Names of enum ktgen_splice, for runs and the info self-test. */
#define SPLICE_NAMES	3
extern const char * const splice_names[SPLICE_NAMES];

/* Print one sink or run message (a reply or a notification), as the
 * callbacks of their requests; exported for the unit tests.
 */
int sink_print_cb(const struct nlmsghdr *nlh, void *data);
int run_print_cb(const struct nlmsghdr *nlh, void *data);

#endif /* KTGEN_SHOW_H */
