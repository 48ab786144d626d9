// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness over what ktgen reads from elsewhere: the JSON reader
 * (a peer's documents, ab/repeat/sweep results) and `ktgen diff` on two
 * such documents (a baseline file is anyone's). An input is one document,
 * or two separated by a line "--": the JSON reader takes the whole input
 * as a sequence of documents, diff takes the two as BASE and NEW, with the
 * default metric and with a percentile. Any crash, sanitizer report, leak
 * or hang is a finding; every outcome ktgen reports (an error, a verdict)
 * is fine.
 *
 * Built and run for a bounded time by `make -C tools fuzz` (the unit
 * tier): clang -fsanitize=fuzzer,address,undefined.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "ktgen.h"
#include "print.h"

int do_diff(int argc, char **argv);

struct opts opts;	/* ktgen.c's, which is not linked: text output */
static char base_path[64], new_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/ktgen-fuzz.XXXXXX";

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	snprintf(base_path, sizeof(base_path), "%s/base.json", dir);
	snprintf(new_path, sizeof(new_path), "%s/new.json", dir);
	return 0;
}

static void put(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char sep[] = "\n--\n";
	char *argv_plain[] = { base_path, new_path, NULL };
	char *argv_pct[] = { base_path, new_path, "metric", "p99", "force", NULL };
	const uint8_t *cut = memmem(data, size, sep, sizeof(sep) - 1);
	struct json *doc;
	char err[160];

	doc = json_parse_seq((const char *)data, size, err, sizeof(err));
	json_free(doc);
	if (!cut)
		return 0;
	put(base_path, data, cut - data);
	put(new_path, cut + sizeof(sep) - 1, size - (cut - data) - (sizeof(sep) - 1));
	/* as ktgen's main() wraps a command: text, then JSON */
	print_init(stdout, false, false);
	do_diff(2, argv_plain);
	print_finish();
	print_init(stdout, true, false);
	do_diff(5, argv_pct);
	print_finish();
	return 0;
}
