// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen: configure the ktgen kernel module and collect its results.
 *
 *   ktgen [-j] [-p] [-V] OBJECT COMMAND [keyword value]...
 */
#include <getopt.h>
#include <string.h>

#include "ktgen.h"
#include "print.h"

struct opts opts;

static int do_help(int argc, char **argv);

static const struct object {
	const char	*name;
	int		(*fn)(int argc, char **argv);
	const char	*help;
} objects[] = {
	{ "info",	do_info,	"module version and primitives in effect" },
	{ "config",	do_config,	"module-wide settings (show | set)" },
	{ "sink",	do_sink,	"receivers on a port (add | show | del)" },
	{ "run",	do_run,		"tests against a sink (TEST | show | stop | del)" },
	{ "nic",	do_nic,		"virtual NIC pairs (add | show | del)" },
	{ "dev",	do_dev,		"a device's copy-path settings (show | set)" },
	{ "ab",		do_ab,		"A/B comparison of two variants, with a verdict" },
	{ "diff",	do_diff,	"verdict of new samples against a baseline" },
	{ "sweep",	do_sweep,	"message sizes x variants, one table" },
	{ "peer",	do_peer,	"the far end of run ... peer ssh://HOST (serve)" },
	{ "help",	do_help,	"this text" },
};

static void usage(FILE *f)
{
	unsigned int i;

	fputs("Usage: ktgen [-j] [-p] [-V] OBJECT COMMAND [keyword value]...\n"
	      "  -j, --json     one JSON document on stdout\n"
	      "  -p, --pretty   indent the JSON\n"
	      "  -V, --version  print the CLI version\n"
	      "Objects:\n", f);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		fprintf(f, "  %-8s %s\n", objects[i].name, objects[i].help);
	fputs("'ktgen OBJECT help' shows an object's commands.\n"
	      "Exit status: 0 ok, 1 refused or failed (the kernel's reason is\n"
	      "printed) or a regression, 2 bad command line, 3 inconclusive (ab,\n"
	      "diff: no effect seen, and none of the threshold's size could have\n"
	      "been), 4 infrastructure error (ab, diff: a run or a file failed).\n", f);
}

static int do_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "version",	no_argument, NULL, 'V' },
		{ "help",	no_argument, NULL, 'h' },
		{ }
	};
	unsigned int i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jpVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = true;
			break;
		case 'p':
			opts.pretty = true;
			break;
		case 'V':
			printf("ktgen %s\n", KTGEN_VERSION);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}

	for (i = 0; i < ARRAY_SIZE(objects); i++) {
		if (strcmp(argv[0], objects[i].name))
			continue;
		print_init(stdout, opts.json, opts.pretty);
		ret = objects[i].fn(argc - 1, argv + 1);
		if (print_finish() && ret == EXIT_OK)
			ret = EXIT_FAIL;
		return ret;
	}
	usage_error("unknown object '%s'", argv[0]);
	return EXIT_USAGE;
}
