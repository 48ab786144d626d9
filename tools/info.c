// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen info: the module's version and the primitives in effect.
 */
#include <string.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "env.h"
#include "ktgen.h"
#include "nl.h"
#include "print.h"
#include "show.h"

static const char * const nocache_impl_names[] = {
	[KTGEN_NOCACHE_IMPL_MEMCPY]	= "memcpy",
	[KTGEN_NOCACHE_IMPL_MOVNTI]	= "movnti",
};

static const char * const page_send_names[] = {
	[KTGEN_PAGE_SEND_SENDPAGE]	= "sendpage",
	[KTGEN_PAGE_SEND_SPLICE_PAGES]	= "splice-pages",
};

#define ENUM_NAME(tbl, v) \
	((v) < ARRAY_SIZE(tbl) && (tbl)[v] ? (tbl)[v] : "unknown")

static int info_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(attr);

	if (type <= KTGEN_A_INFO_MAX)
		tb[type] = attr;
	return MNL_CB_OK;
}

static const char *attr_str(const struct nlattr *a)
{
	return a && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0 ?
		mnl_attr_get_str(a) : NULL;
}

static uint32_t attr_u32(const struct nlattr *a, uint32_t def)
{
	return a && mnl_attr_validate(a, MNL_TYPE_U32) >= 0 ? mnl_attr_get_u32(a) : def;
}

static int info_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_INFO_MAX + 1] = {};
	uint32_t nocache, send, tsc_khz;
	bool pmu, probe;

	(void)data;
	mnl_attr_parse(nlh, GENL_HDRLEN, info_attr_cb, tb);
	nocache = attr_u32(tb[KTGEN_A_INFO_NOCACHE_IMPL], UINT32_MAX);
	send = attr_u32(tb[KTGEN_A_INFO_PAGE_SEND], UINT32_MAX);
	pmu = tb[KTGEN_A_INFO_PMU] && mnl_attr_get_u8(tb[KTGEN_A_INFO_PMU]);
	tsc_khz = attr_u32(tb[KTGEN_A_INFO_TSC_KHZ], 0);
	probe = tb[KTGEN_A_INFO_COPY_PROBE] && mnl_attr_validate(tb[KTGEN_A_INFO_COPY_PROBE],
								 MNL_TYPE_U8) >= 0 &&
		mnl_attr_get_u8(tb[KTGEN_A_INFO_COPY_PROBE]);

	print_open_object(NULL);
	print_string(PRINT_ANY, "version", "ktgen module %s",
		     attr_str(tb[KTGEN_A_INFO_VERSION]));
	print_string(PRINT_JSON, "cli_version", NULL, KTGEN_VERSION);
	print_u64(PRINT_ANY, "abi_version", " (abi %llu)",
		  attr_u32(tb[KTGEN_A_INFO_ABI_VERSION], 0));
	print_string(PRINT_ANY, "kernel", " on kernel %s\n",
		     attr_str(tb[KTGEN_A_INFO_KERNEL]));
	print_string(PRINT_ANY, "nocache_impl", "  nocache copy: %s\n",
		     ENUM_NAME(nocache_impl_names, nocache));
	print_string(PRINT_ANY, "page_send", "  page send:    %s\n",
		     ENUM_NAME(page_send_names, send));
	print_bool(PRINT_JSON, "pmu", NULL, pmu);
	print_u64(PRINT_JSON, "tsc_khz", NULL, tsc_khz);
	print_bool(PRINT_JSON, "copy_probe", NULL, probe);
	print_string(PRINT_TEXT, NULL, "  cpu cost:     %s\n",
		     pmu ? "pmu cycles" : tsc_khz ? "busy time (no PMU: cycles estimated)" :
		     "busy time (no PMU, no TSC rate: no cycles)");
	print_string(PRINT_TEXT, NULL, "  copy probe:   %s\n",
		     probe ? "available" : "unavailable (no kprobes)");
	print_enum(tb[KTGEN_A_INFO_SPLICE_SELFTEST], "splice_selftest",
		   "  splice test:  tcp %s", splice_names, SPLICE_NAMES);
	print_enum(tb[KTGEN_A_INFO_SPLICE_SELFTEST_UDP], "splice_selftest_udp",
		   ", udp %s", splice_names, SPLICE_NAMES);
	print_enum(tb[KTGEN_A_INFO_SPLICE_SELFTEST_UDP6], "splice_selftest_udp6",
		   ", udp6 %s", splice_names, SPLICE_NAMES);
	print_string(PRINT_TEXT, NULL, "%s", " (loopback, at load)\n");
	print_close_object();

	if (attr_u32(tb[KTGEN_A_INFO_ABI_VERSION], 0) != KTGEN_ABI_VERSION)
		fprintf(stderr, "ktgen: warning: module ABI %u, this CLI speaks %u\n",
			attr_u32(tb[KTGEN_A_INFO_ABI_VERSION], 0), KTGEN_ABI_VERSION);
	return MNL_CB_OK;
}

static const char *splice_name(const struct nlattr *a)
{
	uint32_t v = attr_u32(a, UINT32_MAX);

	return v < SPLICE_NAMES ? splice_names[v] : "unknown";
}

static int info_get_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_INFO_MAX + 1] = {};
	struct module_info *mi = data;
	uint32_t nocache, send;

	mnl_attr_parse(nlh, GENL_HDRLEN, info_attr_cb, tb);
	nocache = attr_u32(tb[KTGEN_A_INFO_NOCACHE_IMPL], UINT32_MAX);
	send = attr_u32(tb[KTGEN_A_INFO_PAGE_SEND], UINT32_MAX);
	snprintf(mi->version, sizeof(mi->version), "%s",
		 attr_str(tb[KTGEN_A_INFO_VERSION]) ?: "unknown");
	mi->abi_version = attr_u32(tb[KTGEN_A_INFO_ABI_VERSION], 0);
	mi->nocache_impl = ENUM_NAME(nocache_impl_names, nocache);
	mi->page_send = ENUM_NAME(page_send_names, send);
	mi->pmu = tb[KTGEN_A_INFO_PMU] && mnl_attr_get_u8(tb[KTGEN_A_INFO_PMU]);
	mi->splice_tcp = splice_name(tb[KTGEN_A_INFO_SPLICE_SELFTEST]);
	mi->splice_udp = splice_name(tb[KTGEN_A_INFO_SPLICE_SELFTEST_UDP]);
	mi->splice_udp6 = splice_name(tb[KTGEN_A_INFO_SPLICE_SELFTEST_UDP6]);
	mi->valid = true;
	return MNL_CB_OK;
}

/* The module's info for a result's environment. */
int info_get(struct nl_ctx *ctx, struct module_info *mi)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_GET_INFO, 0);

	return nl_request(ctx, nlh, &ktg_info_attrs, info_get_cb, mi);
}

static void info_usage(FILE *f)
{
	fputs("Usage: ktgen info\n"
	      "Show the module's version, ABI and the copy and page-send\n"
	      "primitives in effect on this kernel.\n", f);
}

int do_info(int argc, char **argv)
{
	struct nl_ctx ctx;
	struct nlmsghdr *nlh;
	int err;

	if (argc > 0 && is_help(argv[0])) {
		info_usage(stdout);
		return EXIT_OK;
	}
	if (argc > 0) {
		usage_error("info: unexpected '%s'", argv[0]);
		return EXIT_USAGE;
	}
	if (nl_open(&ctx))
		return EXIT_FAIL;
	nlh = nl_msg_start(&ctx, KTGEN_CMD_GET_INFO, 0);
	err = nl_request(&ctx, nlh, &ktg_info_attrs, info_cb, NULL);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}
