// SPDX-License-Identifier: GPL-2.0
/*
 * nlraw: send hand-made ktgen requests, the way no well-behaved client
 * would, and print the kernel's answer through the CLI's own error path.
 *
 *   nlraw COMMAND [TYPE:KIND:VALUE]... [-- COMMAND [TYPE:KIND:VALUE]...]...
 *
 * COMMAND is get-info, get-config, set-config, sink-new, sink-get (a
 * dump), sink-del, run-new, run-get (a dump), run-stop, run-del, flow-get
 * (a dump) or a number; KIND is u8, u16, u32, u64, str, flag or hex (raw
 * bytes). Each reply message prints one line on stdout: the names of its
 * attributes ("reply: id proto ..."), so a test can tell what the kernel
 * let the caller see. Requests separated by "--" go one after the other
 * on one socket (one process for many: each exec is slow in a TCG guest).
 * Exit 0 when the kernel accepted every request, 1 when it refused one (each
 * reason is on stderr), 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "attrspec.h"

struct opts opts;

static const struct {
	const char		*name;
	uint8_t			cmd;
	const struct attr_set	*set;
	uint16_t		flags;
} cmds[] = {
	{ "get-info",	KTGEN_CMD_GET_INFO,	&ktg_info_attrs },
	{ "get-config",	KTGEN_CMD_GET_CONFIG,	&ktg_config_attrs },
	{ "set-config",	KTGEN_CMD_SET_CONFIG,	&ktg_config_attrs },
	{ "sink-new",	KTGEN_CMD_SINK_NEW,	&ktg_sink_attrs },
	{ "sink-get",	KTGEN_CMD_SINK_GET,	&ktg_sink_attrs,	NLM_F_DUMP },
	{ "sink-del",	KTGEN_CMD_SINK_DEL,	&ktg_sink_attrs },
	{ "run-new",	KTGEN_CMD_RUN_NEW,	&ktg_run_attrs },
	{ "run-get",	KTGEN_CMD_RUN_GET,	&ktg_run_attrs,	NLM_F_DUMP },
	{ "run-stop",	KTGEN_CMD_RUN_STOP,	&ktg_run_attrs },
	{ "run-del",	KTGEN_CMD_RUN_DEL,	&ktg_run_attrs },
	{ "flow-get",	KTGEN_CMD_FLOW_GET,	&ktg_flow_attrs,	NLM_F_DUMP },
};

/* One line per reply: the names of its top-level attributes. */
static int print_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct attr_set *set = data;
	const struct nlattr *a;
	char buf[64];

	fputs("reply:", stdout);
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		printf(" %s", attr_name(set, mnl_attr_get_type(a), buf, sizeof(buf)));
	putchar('\n');
	return MNL_CB_OK;
}

/* Send the request of @argv[0] (a command) and @argv[1..n-1] (attributes):
 * 0 when the kernel accepted it, EXIT_FAIL or EXIT_USAGE.
 */
static int request(struct nl_ctx *ctx, char **argv, unsigned int n)
{
	const struct attr_set *set = NULL;
	struct nlmsghdr *nlh;
	uint64_t cmd = 0;
	uint16_t flags = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[0], cmds[i].name)) {
			cmd = cmds[i].cmd;
			set = cmds[i].set;
			flags = cmds[i].flags;
		}
	if (!set && (parse_u64(argv[0], &cmd) || cmd > 255)) {
		fprintf(stderr, "nlraw: bad command %s\n", argv[0]);
		return EXIT_USAGE;
	}
	nlh = nl_msg_start(ctx, cmd, flags);
	for (i = 1; i < n; i++) {
		if (attrspec_put(nlh, argv[i])) {
			fprintf(stderr, "nlraw: bad attribute %s\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	return nl_request(ctx, nlh, set, print_reply_cb, (void *)set) ? EXIT_FAIL : EXIT_OK;
}

int main(int argc, char **argv)
{
	int i, first, err, ret = EXIT_OK;
	struct nl_ctx ctx;

	if (argc < 2) {
		fputs("usage: nlraw COMMAND [TYPE:KIND:VALUE]... [-- COMMAND ...]...\n", stderr);
		return EXIT_USAGE;
	}
	if (nl_open(&ctx))
		return EXIT_FAIL;
	for (first = i = 1; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "--"))
			continue;
		if (i == first) {
			fputs("nlraw: an empty request\n", stderr);
			ret = EXIT_USAGE;
			break;
		}
		err = request(&ctx, argv + first, i - first);
		if (err == EXIT_USAGE) {
			ret = err;
			break;
		}
		if (err)
			ret = err;
		first = i + 1;
	}
	nl_close(&ctx);
	return ret;
}
