// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen sweep: a job over any run keyword or set of them (size, flows,
 * req,resp, cpus, knobs), crossed with variants, with a table per
 * point and a verdict per point when there are two variants.
 */
#include <stdlib.h>
#include <string.h>

#include "ktgen.h"
#include "print.h"
#include "stats.h"
#include "job.h"

static void sweep_usage(FILE *f)
{
	fputs("Usage: ktgen sweep {sizes LIST | over KW[,KW...] LIST} [repeat N] [metric M]\n"
	      "                   [stat median|mean] [alpha A] [threshold PCT] [seed S]\n"
	      "                   [keep-going] [csv [columns M,...]] [variant NAME VARIANT]...\n"
	      "                   -- run TEST ...\n"
	      "Every point with every variant, repeat N times (default 1), the variants\n"
	      "in an order drawn at random each time (seed S: an earlier job's orders,\n"
	      "from its document). sizes LIST: the run's size, e.g. 64,1K,64K; over\n"
	      "KW,... LIST: any run keywords, a point's values joined by ':' and points\n"
	      "by ',', e.g. over req,resp 1400:1,14000:14000 or over flows 1,16 (a CPU\n"
	      "list there: ranges, 0-3). A table of the metric by point\n"
	      "and variant (stat: medians, the default, or mean+-stddev), with each\n"
	      "variant's ratio to the first and its paired verdict (from repeat 2); -j:\n"
	      "one document with every run's figures. csv: a row per run instead (point,\n"
	      "variant, repetition, then the metrics of columns, default all).\n"
	      "VARIANT as ktgen ab takes it; without any, the run as given. The cells'\n"
	      "verdicts are each its own test, uncorrected: a table, not a gate (its\n"
	      "exit status is 0, or 4 when a run failed).\n", f);
}

#define SWEEP_MAX	32
#define SWEEP_KWS	4

/* A point of the sweep: the run words it adds, and its label. */
struct sweep_point {
	char		words[256];
	char		label[96];
	uint32_t	size;		/* sizes: the size; else 0 */
};

struct sweep_args {
	struct sweep_point pts[SWEEP_MAX];
	size_t		npts;
	const char	*kws[SWEEP_KWS];	/* over: the keywords */
	size_t		nkws;
	char		kwbuf[128];
	bool		mean;		/* stat mean */
	long		n;
	long		failed;		/* keep-going: runs left out */
	int		argc;		/* as given, for the document */
	char		**argv;
	time_t		started;
	const char	*names[SWEEP_MAX], *words[SWEEP_MAX];
	size_t		nvar;
	bool		csv;
	struct columns	cols;
	struct judge	j;
	char		**base;
	int		nbase;
};

static int sweep_sizes(struct sweep_args *a, const char *list)
{
	char buf[256], *tok, *save = NULL;

	if (a->npts) {
		usage_error("sweep: one of sizes and over");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct sweep_point *p = &a->pts[a->npts];

		if (a->npts == SWEEP_MAX || parse_size_u32(tok, &p->size) || !p->size) {
			usage_error("sweep: sizes: up to %d sizes like 64,1K,64K, not '%s'", SWEEP_MAX,
				    tok);
			return -1;
		}
		snprintf(p->words, sizeof(p->words), "size %u", p->size);
		snprintf(p->label, sizeof(p->label), "%u", p->size);
		a->npts++;
	}
	a->kws[0] = "size";
	a->nkws = 1;
	return 0;
}

/* over KW[,KW...] LIST: each point's values, ':' between keywords. The
 * words are checked by run's parser with each variant before any run.
 */
static int sweep_over(struct sweep_args *a, const char *kws, const char *list)
{
	char buf[512], *pt, *save = NULL, *kw, *ksave = NULL;
	size_t i;

	if (a->npts) {
		usage_error("sweep: one of sizes and over");
		return -1;
	}
	snprintf(a->kwbuf, sizeof(a->kwbuf), "%s", kws);
	for (kw = strtok_r(a->kwbuf, ",", &ksave); kw; kw = strtok_r(NULL, ",", &ksave)) {
		if (a->nkws == SWEEP_KWS || !*kw || strchr(kw, ' ') || !strcmp(kw, "to") ||
		    !strcmp(kw, "port")) {
			usage_error("sweep: over: up to %d run keywords (not to or port), not '%s'",
				    SWEEP_KWS, kws);
			return -1;
		}
		a->kws[a->nkws++] = kw;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (pt = strtok_r(buf, ",", &save); pt; pt = strtok_r(NULL, ",", &save)) {
		struct sweep_point *p = &a->pts[a->npts];
		char *val, *vsave = NULL, vbuf[256];
		size_t off = 0, loff = 0;

		if (a->npts == SWEEP_MAX) {
			usage_error("sweep: over: at most %d points", SWEEP_MAX);
			return -1;
		}
		snprintf(vbuf, sizeof(vbuf), "%s", pt);
		for (i = 0, val = strtok_r(vbuf, ":", &vsave); val;
		     i++, val = strtok_r(NULL, ":", &vsave)) {
			if (i == a->nkws)
				break;
			off += snprintf(p->words + off, off < sizeof(p->words) ?
					sizeof(p->words) - off : 0, "%s%s %s", i ? " " : "",
					a->kws[i], val);
			loff += snprintf(p->label + loff, loff < sizeof(p->label) ?
					 sizeof(p->label) - loff : 0, "%s%s", i ? "/" : "", val);
		}
		if (i != a->nkws || val || off >= sizeof(p->words) || loff >= sizeof(p->label)) {
			usage_error("sweep: over: a value for each of %s in each point, joined by ':', not '%s'",
				    kws, pt);
			return -1;
		}
		a->npts++;
	}
	return 0;
}

/* One of the sweep's own keywords at @argv, with its values: the words
 * taken, or -1 after a usage message.
 */
static int sweep_keyword(struct sweep_args *a, int argc, char **argv)
{
	char *end;

	if (argc < 2) {
		usage_error("sweep: '%s' needs a value", argv[0]);
		return -1;
	}
	if (!strcmp(argv[0], "sizes"))
		return sweep_sizes(a, argv[1]) ? -1 : 2;
	if (!strcmp(argv[0], "over") && argc > 2)
		return sweep_over(a, argv[1], argv[2]) ? -1 : 3;
	if (!strcmp(argv[0], "stat") && (!strcmp(argv[1], "median") || !strcmp(argv[1], "mean"))) {
		a->mean = !strcmp(argv[1], "mean");
		return 2;
	}
	if (!strcmp(argv[0], "repeat")) {
		a->n = strtol(argv[1], &end, 10);
		if (*end || a->n < 1 || a->n > 1000) {
			usage_error("sweep: repeat: 1 to 1000, not '%s'", argv[1]);
			return -1;
		}
		return 2;
	}
	if (!strcmp(argv[0], "variant") && argc > 2 && strcmp(argv[2], "--")) {
		if (a->nvar == SWEEP_MAX) {
			usage_error("sweep: at most %d variants", SWEEP_MAX);
			return -1;
		}
		a->names[a->nvar] = argv[1];
		a->words[a->nvar++] = argv[2];
		return 3;
	}
	usage_error("sweep: unknown keyword '%s'", argv[0]);
	return -1;
}

/* "-- run TEST ..." at @argv: the run each cell varies, which must leave
 * the swept keywords to the sweep.
 */
static int sweep_base(struct sweep_args *a, int argc, char **argv)
{
	int i;
	size_t k;

	if (argc < 3 || strcmp(argv[1], "run")) {
		usage_error("sweep: the run after '--': -- run TEST ...");
		return -1;
	}
	a->base = argv + 1;
	a->nbase = argc - 1;
	if (!a->npts) {
		usage_error("sweep: sizes LIST or over KW LIST is needed");
		return -1;
	}
	for (i = 0; i < a->nbase; i++) {
		for (k = 0; k < a->nkws; k++) {
			if (!strcmp(a->base[i], a->kws[k])) {
				usage_error("sweep: %s comes from the sweep, not from the run", a->kws[k]);
				return -1;
			}
		}
	}
	return 0;
}

static int sweep_parse(struct sweep_args *a, int argc, char **argv)
{
	const char *metric = NULL, *gates = NULL;
	int i, n;

	memset(a, 0, sizeof(*a));
	a->n = 1;
	a->j.alpha = 0.05;
	a->j.threshold = 0.05;
	for (i = 0; i < argc && strcmp(argv[i], "--"); i += n) {
		n = job_arg(&a->j, &a->csv, &a->cols, argc - i, argv + i, &metric, &gates);
		if (!n)
			n = sweep_keyword(a, argc - i, argv + i);
		if (n < 0)
			return -1;
	}
	if (sweep_base(a, argc - i, argv + i))
		return -1;
	/* A table, not a gate: its verdicts are each cell's own. */
	if (gates || a->j.bisect) {
		usage_error("sweep: no %s: a sweep is a table, not a gate (ktgen ab is one)",
			    gates ? "gate" : "bisect");
		return -1;
	}
	if (!a->nvar) {
		a->names[0] = "run";
		a->words[a->nvar++] = "";
	}
	return judge_finish(&a->j, metric ? metric : metric_default(test_of(a->base, a->nbase)),
			    gates);
}

/* A cell's variant: the variant's words and the point's. */
static int sweep_cell(struct variant *c, const char *name, const char *words,
		      const struct sweep_point *p)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s %s", words, p->words);
	return variant_parse(c, name, buf);
}

/* The table's head: what was swept, how, and the variants' columns. */
static void sweep_print_head(const struct sweep_args *a, const struct metric *m)
{
	char head[160];
	size_t k, vi, off = 0;

	print_provenance("sweep", a->argc, a->argv, a->started);
	print_string(PRINT_ANY, "test", "sweep: %s,", test_of(a->base, a->nbase));
	print_string(PRINT_ANY, "metric", " metric %s", m->name);
	print_string(PRINT_JSON, "stat", NULL, a->mean ? "mean" : "median");
	print_u64(PRINT_ANY, "repeat", a->mean ? " (mean+-stddev of %llu," : " (median of %llu,",
		  a->n);
	if (a->j.keep_going)
		print_u64(PRINT_ANY, "failed_runs", " %llu failed and left out,", a->failed);
	print_text(" %s; ratio to %s, paired verdict;", m->unit, a->names[0]);
	print_u64(PRINT_ANY, "seed", " random order, seed %llu)\n", a->j.seed);
	print_open_array("over");
	for (k = 0; k < a->nkws; k++) {
		print_string(PRINT_JSON, NULL, NULL, a->kws[k]);
		off += snprintf(head + off, off < sizeof(head) ? sizeof(head) - off : 0, "%s%s",
				k ? "/" : "", a->kws[k]);
	}
	print_close_array();
	print_open_array("variants");
	for (vi = 0; vi < a->nvar; vi++) {
		print_open_object(NULL);
		print_string(PRINT_JSON, "name", NULL, a->names[vi]);
		print_string(PRINT_JSON, "args", NULL, a->words[vi]);
		print_close_object();
	}
	print_close_array();
	print_text("%12s", head);
	for (vi = 0; vi < a->nvar; vi++)
		print_text(" %*s", a->mean ? 22 : 14, a->names[vi]);
	print_text("\n");
}

/* Cell @c of point @si: its statistic and, beside the first variant's
 * cell @c0, the paired ratio and verdict.
 */
static void sweep_print_cell(const struct sweep_args *a, size_t si, size_t vi,
			     const struct variant *c, const struct variant *c0)
{
	const struct metric *m = a->j.m[0];
	size_t mi = m - metrics;
	struct stats_summary s;
	struct stats_paired r;

	print_open_object(NULL);
	if (a->pts[si].size)
		print_u64(PRINT_JSON, "size", NULL, a->pts[si].size);
	print_string(PRINT_JSON, "point", NULL, a->pts[si].label);
	print_string(PRINT_JSON, "words", NULL, a->pts[si].words);
	print_string(PRINT_JSON, "variant", NULL, a->names[vi]);
	if (print_is_json()) {
		print_warnings(c);
		print_metrics(c, &a->j);
	}
	if (!c->n || stats_summarize(c->x[mi], c->n, 0.95, &s)) {
		print_text(" %*s", a->mean ? 22 : 14, "-");
		print_close_object();
		return;
	}
	if (a->mean && c->n > 1)
		print_text(" %12.6g+-%-8.3g", s.mean / m->scale, s.stddev / m->scale);
	else if (a->mean)
		print_text(" %12.6g%10s", s.mean / m->scale, "");
	else
		print_text(" %14.6g", s.median / m->scale);
	if (vi && c->n >= 2 && c->n == c0->n &&
	    !stats_paired(c0->x[mi], c->x[mi], c->n, a->j.alpha, 1, &r)) {
		enum verdict v = judge_one(&a->j, m, r.ratio, r.p_t, r.mde);

		print_double(PRINT_JSON, "ratio", NULL, r.ratio);
		print_double(PRINT_JSON, "ci_lo", NULL, r.ci_lo);
		print_double(PRINT_JSON, "ci_hi", NULL, r.ci_hi);
		print_double(PRINT_JSON, "p_t", NULL, r.p_t);
		print_double(PRINT_JSON, "mde_pct", NULL, r.mde * 100);
		print_string(PRINT_JSON, "verdict", NULL, verdict_names[v]);
		print_text(" (%.3f %s)", r.ratio, v == V_REGRESSED ? "worse" :
			   v == V_IMPROVED ? "better" : v == V_INCONCLUSIVE ? "?" : "=");
	}
	print_close_object();
}

static void sweep_print(const struct sweep_args *a, struct variant *cells)
{
	size_t si, vi;

	print_open_object(NULL);
	sweep_print_head(a, a->j.m[0]);
	print_open_array("cells");
	for (si = 0; si < a->npts; si++) {
		print_text("%12s", a->pts[si].label);
		for (vi = 0; vi < a->nvar; vi++)
			sweep_print_cell(a, si, vi, &cells[si * a->nvar + vi], &cells[si * a->nvar]);
		print_text("\n");
	}
	print_close_array();
	print_close_object();
}

/* Point @si's samples, the variants in turn, in an order drawn from the
 * job's seed for each repetition; 0, or EXIT_INFRA on a run that failed
 * (twice) without keep-going or on a signal.
 */
static int sweep_point(struct sweep_args *a, struct variant *cells, size_t si,
		       long *done, long total, const struct timespec *t0)
{
	size_t k, vi, order[SWEEP_MAX];
	char val[64], left[48];
	long rep;

	for (rep = 0; rep < a->n && !ab_signal; rep++) {
		stats_order(job_seed(&a->j), si * a->n + rep, order, a->nvar);
		for (k = 0; k < a->nvar && !ab_signal; k++) {
			struct variant *c;

			vi = order[k];
			c = &cells[si * a->nvar + vi];
			if (sample_retry(a->base, a->nbase, c, &a->j)) {
				if (ab_signal || !a->j.keep_going)
					return EXIT_INFRA;
				a->failed++;
				fprintf(stderr, "ktgen: sweep %s, %s, %ld/%ld failed twice: left out\n",
					a->pts[si].words, a->names[vi], rep + 1, a->n);
				continue;
			}
			(*done)++;
			fprintf(stderr, "ktgen: sweep %s, %s, %ld/%ld: %s %s%s\n",
				a->pts[si].words, a->names[vi], rep + 1, a->n, a->j.m[0]->name,
				last_value(val, sizeof(val), c, a->j.m[0]),
				*done < total ? time_left(left, sizeof(left), t0, *done, total) : "");
			if (a->csv) {
				printf("%s,%s,%ld", a->pts[si].label, c->label, rep + 1);
				csv_values(c->x, c->n - 1, &a->cols);
			}
		}
	}
	return ab_signal ? EXIT_INFRA : EXIT_OK;
}

/* Every cell's samples, under the job's signal handling. */
static int sweep_run(struct sweep_args *a, struct variant *cells)
{
	struct job_signals sig;
	long done = 0, total = (long)(a->npts * a->nvar) * a->n;
	int ret = EXIT_OK;
	struct timespec t0;
	size_t si;

	job_signals_catch(&sig);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (si = 0; si < a->npts && ret == EXIT_OK; si++)
		ret = sweep_point(a, cells, si, &done, total, &t0);
	job_signals_restore(&sig);
	return ret;
}

int do_sweep(int argc, char **argv)
{
	struct variant *cells;
	struct sweep_args a;
	int ret = EXIT_OK;
	size_t k;

	if (argc < 1 || is_help(argv[0])) {
		sweep_usage(argc ? stdout : stderr);
		return argc ? EXIT_OK : EXIT_USAGE;
	}
	if (sweep_parse(&a, argc, argv) || csv_start(a.csv, "sweep"))
		return EXIT_USAGE;
	a.argc = argc;
	a.argv = argv;
	a.started = time(NULL);
	cells = calloc(a.npts * a.nvar, sizeof(*cells));
	if (!cells)
		return EXIT_INFRA;
	for (k = 0; k < a.npts * a.nvar; k++) {
		if (sweep_cell(&cells[k], a.names[k % a.nvar], a.words[k % a.nvar],
			       &a.pts[k / a.nvar]) ||
		    variant_check(a.names[k % a.nvar], a.base, a.nbase, &cells[k])) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (a.csv)
		csv_header(a.pts[0].size ? "size,variant,rep" : "point,variant,rep", &a.cols);
	job_seed(&a.j);
	ret = sweep_run(&a, cells);
	/* A table, not a gate: a run left out still says a run failed. */
	if (a.failed)
		ret = EXIT_INFRA;
	if (!a.csv)
		sweep_print(&a, cells);
out:
	for (k = 0; k < a.npts * a.nvar; k++)
		variant_free(&cells[k]);
	free(cells);
	return ret;
}
