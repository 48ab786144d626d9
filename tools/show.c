// SPDX-License-Identifier: GPL-2.0
/*
 * Printing of what sinks and runs share: receive counters, CPU lists,
 * addresses, enums.
 */
#include <arpa/inet.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "print.h"
#include "show.h"

static const enum mnl_attr_data_type rx_stats_types[KTGEN_A_RX_STATS_MAX + 1] = {
	[KTGEN_A_RX_STATS_BYTES]		= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_MSGS]			= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_CONNS]		= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_VERIFY_ERRORS]	= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET]	= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_LOST]			= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_LATE]			= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_DUP]			= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_BAD_HEADERS]		= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_RESPONSES]		= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_READS]		= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_REFUSED]		= MNL_TYPE_U64,
	[KTGEN_A_RX_STATS_CSUM_ERRORS]		= MNL_TYPE_U64,
};

/* A u64 counter: JSON when present, text as @text says. */
void print_counter(const struct nlattr *a, const char *key,
			  const char *fmt, int text)
{
	uint64_t v;

	if (!a)
		return;
	v = mnl_attr_get_u64(a);
	print_u64(PRINT_JSON, key, NULL, v);
	if (text == TEXT_ALWAYS || (text == TEXT_NONZERO && v))
		print_u64(PRINT_TEXT, NULL, fmt, v);
}

/* The nested rx-stats of a sink or a run, in its "rx" JSON object; text
 * goes on the current line.
 */
void print_rx_stats(const struct nlattr *nest)
{
	const struct nlattr *tb[KTGEN_A_RX_STATS_MAX + 1];
	uint64_t errors;

	nl_parse_nested(nest, rx_stats_types, KTGEN_A_RX_STATS_MAX, tb);
	errors = tb[KTGEN_A_RX_STATS_VERIFY_ERRORS] ?
		 mnl_attr_get_u64(tb[KTGEN_A_RX_STATS_VERIFY_ERRORS]) : 0;

	print_open_object("rx");
	print_counter(tb[KTGEN_A_RX_STATS_BYTES], "bytes", "  %llu bytes", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_MSGS], "msgs", "  %llu msgs", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_CONNS], "conns", "  conns %llu", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_LOST], "lost", "  lost %llu", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_VERIFY_ERRORS], "verify_errors",
		      "  verify errors %llu", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET], "verify_first_offset",
		      " (first at offset %llu)",
		      errors ? TEXT_ALWAYS : TEXT_NEVER);
	print_counter(tb[KTGEN_A_RX_STATS_LATE], "late", "  late %llu", TEXT_NONZERO);
	print_counter(tb[KTGEN_A_RX_STATS_DUP], "dup", "  dup %llu", TEXT_NONZERO);
	print_counter(tb[KTGEN_A_RX_STATS_BAD_HEADERS], "bad_headers",
		      "  bad headers %llu", TEXT_NONZERO);
	print_counter(tb[KTGEN_A_RX_STATS_RESPONSES], "responses",
		      "  responses %llu", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_READS], "reads", "  reads %llu", TEXT_ALWAYS);
	print_counter(tb[KTGEN_A_RX_STATS_REFUSED], "refused", "  refused %llu", TEXT_NONZERO);
	print_counter(tb[KTGEN_A_RX_STATS_CSUM_ERRORS], "csum_errors",
		      "  csum errors %llu", TEXT_NONZERO);
	print_close_object();
}

/* A CPU bitmap attribute as "0-3,5" (JSON string). */
void print_cpus(const struct nlattr *a, const char *fmt)
{
	char buf[KTG_CPULIST_LEN];

	if (!a)
		return;
	format_cpulist(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a),
		       buf, sizeof(buf));
	print_string(PRINT_ANY, "cpus", fmt, buf);
}

/* An address attribute as a JSON string (text prints print_endpoint()). */
void print_addr(const struct nlattr *a, const char *key)
{
	char buf[INET6_ADDRSTRLEN];

	if (a)
		print_string(PRINT_JSON, key, NULL,
			     format_addr(mnl_attr_get_payload(a),
					 mnl_attr_get_payload_len(a), buf, sizeof(buf)));
}

/* "ADDR:PORT" in text, from a big-endian port attribute. */
void print_endpoint(const struct nlattr *addr, const struct nlattr *port,
		    const char *fmt)
{
	uint16_t p = port ? ntohs(mnl_attr_get_u16(port)) : 0;
	char buf[INET6_ADDRSTRLEN + 16];

	format_endpoint(addr ? mnl_attr_get_payload(addr) : NULL,
			addr ? mnl_attr_get_payload_len(addr) : 0, p, buf, sizeof(buf));
	print_string(PRINT_TEXT, NULL, fmt, buf);
}

/* A u32 enum attribute by name, "unknown" when the CLI has no name; JSON
 * only when @fmt is NULL.
 */
const char * const splice_names[SPLICE_NAMES] = {
	[KTGEN_SPLICE_NONE]	= "none",
	[KTGEN_SPLICE_SPLICED]	= "spliced",
	[KTGEN_SPLICE_COPIED]	= "copied",
};

void print_enum(const struct nlattr *a, const char *key, const char *fmt,
		const char * const *names, size_t n)
{
	uint32_t v;

	if (!a)
		return;
	v = mnl_attr_get_u32(a);
	print_string(fmt ? PRINT_ANY : PRINT_JSON, key, fmt,
		     v < n && names[v] ? names[v] : "unknown");
}
