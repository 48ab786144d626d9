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

static const enum mnl_attr_data_type config_types[KTGEN_A_CONFIG_MAX + 1] = {
	[KTGEN_A_CONFIG_BUFFER_BUDGET]	= MNL_TYPE_U64,
	[KTGEN_A_CONFIG_BUFFER_USED]	= MNL_TYPE_U64,
	[KTGEN_A_CONFIG_MAX_RUNS]	= MNL_TYPE_U32,
	[KTGEN_A_CONFIG_MAX_SINKS]	= MNL_TYPE_U32,
};

static void print_size(const char *key, const char *fmt, const struct nlattr *a)
{
	uint64_t v = a ? mnl_attr_get_u64(a) : 0;
	char buf[32];

	print_u64(PRINT_JSON, key, NULL, v);
	print_string(PRINT_TEXT, NULL, fmt, format_size(v, buf, sizeof(buf)));
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_CONFIG_MAX + 1];

	(void)data;
	nl_parse(nlh, config_types, KTGEN_A_CONFIG_MAX, tb);
	print_open_object(NULL);
	print_size("buffer_budget", "buffer budget %s", tb[KTGEN_A_CONFIG_BUFFER_BUDGET]);
	print_size("buffer_used", ", in use %s\n", tb[KTGEN_A_CONFIG_BUFFER_USED]);
	/* a module before the limits has none to show */
	if (tb[KTGEN_A_CONFIG_MAX_RUNS] && tb[KTGEN_A_CONFIG_MAX_SINKS]) {
		print_u64(PRINT_ANY, "max_runs", "max runs %llu",
			  mnl_attr_get_u32(tb[KTGEN_A_CONFIG_MAX_RUNS]));
		print_u64(PRINT_ANY, "max_sinks", ", max sinks %llu per namespace\n",
			  mnl_attr_get_u32(tb[KTGEN_A_CONFIG_MAX_SINKS]));
	}
	print_close_object();
	return MNL_CB_OK;
}

static void config_usage(FILE *f)
{
	fputs("Usage: ktgen config show\n"
	      "       ktgen config set [budget BYTES] [max-runs N] [max-sinks N]\n"
	      "budget:    module-wide memory for what runs and sinks make the\n"
	      "           kernel hold: page rings, latency histograms, receive\n"
	      "           buffers, connection and flow state (socket buffers\n"
	      "           aside; K/M/G suffixes; 1M to 64G)\n"
	      "max-runs:  runs one network namespace may hold, running or\n"
	      "           finished (1 to 65536, default 4096)\n"
	      "max-sinks: sinks one network namespace may hold (1 to 65536,\n"
	      "           default 4096)\n"
	      "set needs CAP_NET_ADMIN.\n", f);
}

static int config_show(struct nl_ctx *ctx)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_GET_CONFIG, 0);

	return nl_request(ctx, nlh, &ktg_config_attrs, config_cb, NULL);
}

struct config_set {
	bool		has_budget;
	uint64_t	budget;
	bool		has_runs;
	uint32_t	max_runs;
	bool		has_sinks;
	uint32_t	max_sinks;
};

static int config_set(struct nl_ctx *ctx, const struct config_set *c)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_SET_CONFIG, 0);

	if (c->has_budget)
		mnl_attr_put_u64(nlh, KTGEN_A_CONFIG_BUFFER_BUDGET, c->budget);
	if (c->has_runs)
		mnl_attr_put_u32(nlh, KTGEN_A_CONFIG_MAX_RUNS, c->max_runs);
	if (c->has_sinks)
		mnl_attr_put_u32(nlh, KTGEN_A_CONFIG_MAX_SINKS, c->max_sinks);
	return nl_request(ctx, nlh, &ktg_config_attrs, NULL, NULL);
}

/* The keywords of config set, each once. */
static int config_parse_set(int argc, char **argv, struct config_set *c)
{
	for (; argc > 0; argc -= 2, argv += 2) {
		const char *kw = argv[0], *v = argc > 1 ? argv[1] : NULL;

		if (!strcmp(kw, "budget")) {
			if (!v || parse_size(v, &c->budget)) {
				usage_error("config set: budget needs a size in bytes (e.g. 256M)");
				return -1;
			}
			c->has_budget = true;
		} else if (!strcmp(kw, "max-runs") || !strcmp(kw, "max-sinks")) {
			bool runs = kw[4] == 'r';
			uint32_t n;

			if (!v || parse_u32(v, &n) || n < 1 || n > 65536) {
				usage_error("config set: %s needs a count from 1 to 65536", kw);
				return -1;
			}
			*(runs ? &c->max_runs : &c->max_sinks) = n;
			*(runs ? &c->has_runs : &c->has_sinks) = true;
		} else {
			usage_error("config set: unknown keyword '%s'", kw);
			return -1;
		}
	}
	if (!c->has_budget && !c->has_runs && !c->has_sinks) {
		usage_error("config set: nothing to set");
		return -1;
	}
	return 0;
}

int do_config(int argc, char **argv)
{
	struct config_set c = { };
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
		if (config_parse_set(argc - 1, argv + 1, &c))
			return EXIT_USAGE;
		set = true;
	} else {
		usage_error("config: unknown command '%s'", argv[0]);
		return EXIT_USAGE;
	}

	if (nl_open(&ctx))
		return EXIT_FAIL;
	err = set ? config_set(&ctx, &c) : config_show(&ctx);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}
