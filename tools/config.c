// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen config: module-wide settings.
 */
#include <string.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "ktgen.h"
#include "nl.h"
#include "print.h"

static int config_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(attr);

	if (type <= KTGEN_A_CONFIG_MAX &&
	    mnl_attr_validate(attr, MNL_TYPE_U64) >= 0)
		tb[type] = attr;
	return MNL_CB_OK;
}

static void print_size(const char *key, const char *fmt, const struct nlattr *a)
{
	uint64_t v = a ? mnl_attr_get_u64(a) : 0;
	char buf[32];

	print_u64(PRINT_JSON, key, NULL, v);
	print_string(PRINT_TEXT, NULL, fmt, format_size(v, buf, sizeof(buf)));
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_CONFIG_MAX + 1] = {};

	(void)data;
	mnl_attr_parse(nlh, GENL_HDRLEN, config_attr_cb, tb);
	print_open_object(NULL);
	print_size("buffer_budget", "buffer budget %s", tb[KTGEN_A_CONFIG_BUFFER_BUDGET]);
	print_size("buffer_used", ", in use %s\n", tb[KTGEN_A_CONFIG_BUFFER_USED]);
	print_close_object();
	return MNL_CB_OK;
}

static void config_usage(FILE *f)
{
	fputs("Usage: ktgen config show\n"
	      "       ktgen config set budget BYTES\n"
	      "budget: module-wide memory for the pages runs send from (each\n"
	      "        run's source ring, tx cached/nocache staging)\n"
	      "        (K/M/G suffixes; 1M to 64G; needs CAP_NET_ADMIN)\n", f);
}

static int config_show(struct nl_ctx *ctx)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_GET_CONFIG, 0);

	return nl_request(ctx, nlh, &ktg_config_attrs, config_cb, NULL);
}

static int config_set(struct nl_ctx *ctx, uint64_t budget)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_SET_CONFIG, 0);

	mnl_attr_put_u64(nlh, KTGEN_A_CONFIG_BUFFER_BUDGET, budget);
	return nl_request(ctx, nlh, &ktg_config_attrs, NULL, NULL);
}

int do_config(int argc, char **argv)
{
	uint64_t budget = 0;
	bool set = false;
	struct nl_ctx ctx;
	int err;

	if (argc == 0 || !strcmp(argv[0], "show")) {
		if (argc > 1) {
			usage_error("config show: unexpected '%s'", argv[1]);
			return EXIT_USAGE;
		}
	} else if (is_help(argv[0])) {
		config_usage(stdout);
		return EXIT_OK;
	} else if (!strcmp(argv[0], "set")) {
		for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
			if (strcmp(argv[0], "budget")) {
				usage_error("config set: unknown keyword '%s'", argv[0]);
				return EXIT_USAGE;
			}
			if (argc < 2 || parse_size(argv[1], &budget)) {
				usage_error("config set: budget needs a size in bytes (e.g. 256M)");
				return EXIT_USAGE;
			}
			set = true;
		}
		if (!set) {
			usage_error("config set: nothing to set");
			return EXIT_USAGE;
		}
	} else {
		usage_error("config: unknown command '%s'", argv[0]);
		return EXIT_USAGE;
	}

	if (nl_open(&ctx))
		return EXIT_FAIL;
	err = set ? config_set(&ctx, budget) : config_show(&ctx);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}
