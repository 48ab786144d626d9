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

struct repeat_args {
	char		**base;		/* "run" and the run's own words */
	int		nbase;
	long		n;		/* runs asked */
	double		level, width;	/* confidence: stop when narrow enough */
	bool		csv;
	struct columns	cols;
	struct judge	j;
};

/* The repeat's own words out of the run's; 0, or -1 (said). */
static int repeat_parse(struct repeat_args *r, int argc, char **argv)
{
	long k;
	int i;

	r->base[r->nbase++] = "run";
	for (i = 0; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "repeat") && i + 1 < argc) {
			r->n = strtol(argv[++i], &end, 10);
			if (*end || r->n < 2 || r->n > 10000) {
				usage_error("run: repeat: 2 to 10000 runs, not '%s'", argv[i]);
				return -1;
			}
		} else if ((k = csv_arg(&r->csv, &r->cols, argc - i, argv + i))) {
			if (k < 0)
				return -1;
			i += k - 1;
		} else if (!strcmp(argv[i], "keep-going")) {
			r->j.keep_going = true;
		} else if (!strcmp(argv[i], "show") && i + 1 < argc) {
			if (parse_show(&r->j, argv[++i]))
				return -1;
		} else if (!strcmp(argv[i], "confidence") && i + 1 < argc) {
			if (sscanf(argv[++i], "%lf,%lf", &r->level, &r->width) != 2 ||
			    r->level <= 0.5 || r->level >= 1 || r->width <= 0 || r->width >= 1) {
				usage_error("run: confidence: LEVEL,WIDTH like 0.99,0.05, not '%s'",
					    argv[i]);
				return -1;
			}
		} else {
			r->base[r->nbase++] = argv[i];
		}
	}
	if (!r->n) {
		usage_error("run: repeat: how many runs?");
		return -1;
	}
	return csv_start(r->csv, "run");
}

/* The runs, until N, a signal, or the confidence asked (*stopped); the
 * runs left out in *failed. EXIT_OK or EXIT_INFRA.
 */
static int repeat_runs(struct repeat_args *r, struct variant *v, bool *stopped, long *failed)
{
	struct job_signals sig;
	size_t mi = r->j.m[0] - metrics;
	int ret = EXIT_OK;
	struct timespec t0;
	long k;

	job_signals_catch(&sig);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < r->n && !ab_signal; k++) {
		struct stats_summary s;
		char val[64], left[48];

		if (sample_retry(r->base, r->nbase, v, &r->j)) {
			if (ab_signal || !r->j.keep_going) {
				ret = EXIT_INFRA;
				break;
			}
			(*failed)++;
			fprintf(stderr, "ktgen: run %ld/%ld failed twice: left out\n", k + 1, r->n);
			continue;
		}
		fprintf(stderr, "ktgen: run %ld/%ld: %s %s%s\n", k + 1, r->n, r->j.m[0]->name,
			last_value(val, sizeof(val), v, r->j.m[0]),
			k + 1 < r->n ? time_left(left, sizeof(left), &t0, k + 1, r->n) : "");
		if (r->csv) {
			printf("%ld", k + 1);
			csv_values(v->x, v->n - 1, &r->cols);
		}
		if (r->level && v->n >= 3 && !stats_summarize(v->x[mi], v->n, r->level, &s) &&
		    (s.ci_hi - s.ci_lo) / s.mean <= r->width) {
			*stopped = true;
			break;
		}
	}
	job_signals_restore(&sig);
	return ret;
}

static void repeat_print(const struct repeat_args *r, const struct variant *v, int argc,
			 char **argv, time_t started, bool stopped, long failed)
{
	print_open_object(NULL);
	print_provenance("run", argc, argv, started);
	print_string(PRINT_ANY, "test", "repeat: %s,", test_of(r->base, r->nbase));
	print_u64(PRINT_ANY, "runs", " %llu runs", v->n);
	print_u64(PRINT_JSON, "repeat", NULL, r->n);
	if (r->j.keep_going)
		print_u64(PRINT_ANY, "failed_runs", " (%llu failed, left out)", failed);
	print_string(PRINT_JSON, "metric", NULL, r->j.m[0]->name);
	print_u64(PRINT_JSON, "sessions", NULL, 1);
	print_text("\n");
	if (r->level) {
		print_double(PRINT_JSON, "confidence_level", NULL, r->level);
		print_double(PRINT_JSON, "confidence_width", NULL, r->width);
		print_bool(PRINT_JSON, "confidence_reached", NULL, stopped);
		print_text("confidence %.3g,%.3g %s after %zu runs: an estimate; p-values of a\n"
			   "sample stopped this way are not valid, use a fixed repeat N for verdicts\n",
			   r->level, r->width, stopped ? "reached" : "not reached", v->n);
	}
	print_warnings(v);
	print_job(&v->job);
	if (v->n)
		print_metrics(v, &r->j);
	print_close_object();
}

/*
 * ktgen run TEST ... repeat N [confidence LEVEL,WIDTH]: N runs, each
 * metric summarized. confidence stops early, once the LEVEL interval of
 * the primary metric's mean is narrower than WIDTH (relative): an
 * estimation rule, as netperf's -I. A sample stopped by looking at it
 * gives p-values that are not valid: verdicts take a fixed N.
 */
int run_repeat(int argc, char **argv)
{
	struct repeat_args r = { .j = { .alpha = 0.05, .show_all = true } };
	struct variant v = { .label = "" };
	time_t started = time(NULL);
	bool stopped = false;
	long failed = 0;
	int ret;

	r.base = calloc(argc + 2, sizeof(char *));
	if (!r.base)
		return EXIT_INFRA;
	if (repeat_parse(&r, argc, argv)) {
		free(r.base);
		return EXIT_USAGE;
	}
	if (r.csv)
		csv_header("run", &r.cols);
	r.j.m[0] = metric_find(metric_default(test_of(r.base, r.nbase)));
	r.j.nm = 1;
	ret = repeat_runs(&r, &v, &stopped, &failed);
	/* What was left out leaves too little to summarize. */
	if (failed && v.n < 2)
		ret = EXIT_INFRA;
	repeat_print(&r, &v, argc, argv, started, stopped, failed);
	variant_free(&v);
	free(r.base);
	return ret;
}
