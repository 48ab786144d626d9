// SPDX-License-Identifier: GPL-2.0
/*
 * nlraw: send one hand-made ktgen request, the way no well-behaved client
 * would, and print the kernel's answer through the CLI's own error path.
 *
 *   nlraw COMMAND [TYPE:KIND:VALUE]...
 *
 * COMMAND is get-info, get-config, set-config, sink-new, run-new, flow-get
 * (a dump) or a number; KIND is u8, u16,
 * u32, u64, str or hex (raw bytes). Exit 0 when the kernel accepted the
 * request, 1 when it refused (the reason is on stderr), 2 on usage errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	{ "run-new",	KTGEN_CMD_RUN_NEW,	&ktg_run_attrs },
	{ "flow-get",	KTGEN_CMD_FLOW_GET,	&ktg_flow_attrs,	NLM_F_DUMP },
};

int main(int argc, char **argv)
{
	const struct attr_set *set = NULL;
	struct nlmsghdr *nlh;
	struct nl_ctx ctx;
	uint64_t cmd = 0;
	uint16_t flags = 0;
	unsigned int i;
	int err;

	if (argc < 2) {
		fputs("usage: nlraw COMMAND [TYPE:KIND:VALUE]...\n", stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			cmd = cmds[i].cmd;
			set = cmds[i].set;
			flags = cmds[i].flags;
		}
	if (!set && (parse_u64(argv[1], &cmd) || cmd > 255)) {
		fprintf(stderr, "nlraw: bad command %s\n", argv[1]);
		return EXIT_USAGE;
	}
	if (nl_open(&ctx))
		return EXIT_FAIL;
	nlh = nl_msg_start(&ctx, cmd, flags);
	for (i = 2; i < (unsigned int)argc; i++) {
		if (attrspec_put(nlh, argv[i])) {
			fprintf(stderr, "nlraw: bad attribute %s\n", argv[i]);
			nl_close(&ctx);
			return EXIT_USAGE;
		}
	}
	err = nl_request(&ctx, nlh, set, NULL, NULL);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}
