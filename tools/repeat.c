// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen run TEST ... repeat N [confidence LEVEL,WIDTH]: one variant, N
 * runs (or until the confidence interval is as narrow as asked), every
 * metric summarized.
 */
#include <stdlib.h>
#include <string.h>

#include "ktgen.h"
#include "print.h"
#include "stats.h"
#include "job.h"

/*
 * ktgen run TEST ... repeat N [confidence LEVEL,WIDTH]: N runs, each
 * metric summarized. confidence stops early, once the LEVEL interval of
 * the primary metric's mean is narrower than WIDTH (relative): an
 * estimation rule, as netperf's -I. A sample stopped by looking at it
 * gives p-values that are not valid: verdicts take a fixed N.
 */
int run_repeat(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = ab_on_signal }, old_int, old_term;
	double level = 0, width = 0;
	struct variant v = { .label = "" };
	struct columns cols = { };
	bool csv = false;
	struct judge j = { .alpha = 0.05, .show_all = true };
	char **base = calloc(argc + 2, sizeof(char *));
	int nbase = 0, i, ret = EXIT_OK;
	bool stopped = false;
	struct timespec t0;
	time_t started = time(NULL);
	long n = 0, k, failed = 0;

	if (!base)
		return EXIT_INFRA;
	base[nbase++] = "run";
	for (i = 0; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "repeat") && i + 1 < argc) {
			n = strtol(argv[++i], &end, 10);
			if (*end || n < 2 || n > 10000) {
				usage_error("run: repeat: 2 to 10000 runs, not '%s'", argv[i]);
				free(base);
				return EXIT_USAGE;
			}
		} else if ((k = csv_arg(&csv, &cols, argc - i, argv + i))) {
			if (k < 0) {
				free(base);
				return EXIT_USAGE;
			}
			i += k - 1;
		} else if (!strcmp(argv[i], "keep-going")) {
			j.keep_going = true;
		} else if (!strcmp(argv[i], "show") && i + 1 < argc) {
			if (parse_show(&j, argv[++i])) {
				free(base);
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "confidence") && i + 1 < argc) {
			if (sscanf(argv[++i], "%lf,%lf", &level, &width) != 2 || level <= 0.5 ||
			    level >= 1 || width <= 0 || width >= 1) {
				usage_error("run: confidence: LEVEL,WIDTH like 0.99,0.05, not '%s'",
					    argv[i]);
				free(base);
				return EXIT_USAGE;
			}
		} else {
			base[nbase++] = argv[i];
		}
	}
	if (!n || csv_start(csv, "run")) {
		if (!n)
			usage_error("run: repeat: how many runs?");
		free(base);
		return EXIT_USAGE;
	}
	if (csv)
		csv_header("run", &cols);
	j.m[0] = metric_find(metric_default(test_of(base, nbase)));
	j.nm = 1;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < n && !ab_signal; k++) {
		struct stats_summary s;
		size_t mi = j.m[0] - metrics;
		char val[64], left[48];

		if (sample_retry(base, nbase, &v, &j)) {
			if (ab_signal || !j.keep_going) {
				ret = EXIT_INFRA;
				break;
			}
			failed++;
			fprintf(stderr, "ktgen: run %ld/%ld failed twice: left out\n", k + 1, n);
			continue;
		}
		fprintf(stderr, "ktgen: run %ld/%ld: %s %s%s\n", k + 1, n, j.m[0]->name,
			last_value(val, sizeof(val), &v, j.m[0]),
			k + 1 < n ? time_left(left, sizeof(left), &t0, k + 1, n) : "");
		if (csv) {
			printf("%ld", k + 1);
			csv_values(v.x, v.n - 1, &cols);
		}
		if (level && v.n >= 3 && !stats_summarize(v.x[mi], v.n, level, &s) &&
		    (s.ci_hi - s.ci_lo) / s.mean <= width) {
			stopped = true;
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	/* What was left out leaves too little to summarize. */
	if (failed && v.n < 2)
		ret = EXIT_INFRA;

	print_open_object(NULL);
	print_provenance("run", argc, argv, started);
	print_string(PRINT_ANY, "test", "repeat: %s,", test_of(base, nbase));
	print_u64(PRINT_ANY, "runs", " %llu runs", v.n);
	print_u64(PRINT_JSON, "repeat", NULL, n);
	if (j.keep_going)
		print_u64(PRINT_ANY, "failed_runs", " (%llu failed, left out)", failed);
	print_string(PRINT_JSON, "metric", NULL, j.m[0]->name);
	print_u64(PRINT_JSON, "sessions", NULL, 1);
	print_text("\n");
	if (level) {
		print_double(PRINT_JSON, "confidence_level", NULL, level);
		print_double(PRINT_JSON, "confidence_width", NULL, width);
		print_bool(PRINT_JSON, "confidence_reached", NULL, stopped);
		print_text("confidence %.3g,%.3g %s after %zu runs: an estimate; p-values of a\n"
			   "sample stopped this way are not valid, use a fixed repeat N for verdicts\n",
			   level, width, stopped ? "reached" : "not reached", v.n);
	}
	print_warnings(&v);
	print_job(&v.job);
	if (v.n)
		print_metrics(&v, &j);
	print_close_object();
	variant_free(&v);
	free(base);
	return ret;
}
