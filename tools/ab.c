// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen ab repeat N a VARIANT b VARIANT [metric M] [gate M,...] [alpha A]
 *          [threshold PCT] [seed S] [bisect] -- run TEST ...
 *
 * Runs its variants in pairs, each pair's order drawn from the job's seed:
 * drift within a pair cancels on average, and no pattern in the machine's
 * noise (a period of runs, a state that alternates) can line up with the
 * variants as it can with a fixed A B, B A order. Judges the pairs' log
 * ratios.
 */
#include <stdlib.h>
#include <string.h>

#include "ktgen.h"
#include "print.h"
#include "stats.h"
#include "job.h"

static void ab_usage(FILE *f)
{
	fputs("Usage: ktgen ab repeat N a VARIANT b VARIANT [metric M] [gate M,...]\n"
	      "                [show M,...] [alpha A] [threshold PCT] [seed S] [bisect]\n"
	      "                [keep-going] [csv [columns M,...]]\n"
	      "                -- run TEST ...\n"
	      "A and B run in N pairs, each pair's order drawn at random (seed S: the\n"
	      "orders of an earlier job, whose document has its seed); each pair's\n"
	      "log ratio B/A is tested (paired t-test, Wilcoxon signed-rank, a bootstrap\n"
	      "interval of the ratio). VARIANT: run keywords and knobs added to the run,\n"
	      "and 'pre CMD' / 'post CMD' shell commands around each of its runs, e.g.\n"
	      "  a \"tx stack\" b \"tx cached\"\n"
	      "  a \"knob kn1@ns priv-flag legacy-rx off\" b \"knob kn1@ns priv-flag legacy-rx on\"\n"
	      "metric: the primary one (default: rx_bps for udp_stream, tx_bps for\n"
	      "  tcp_stream, p99 for RR); gate: more metrics; with gates all are\n"
	      "  Holm-corrected, intervals and MDE at alpha/metrics; show: more\n"
	      "  metrics summarized, not judged. Metrics: tx_bps, rx_bps, tx_pps,\n"
	      "  rx_pps, tps, pN (any percentile the run asks for), mean_ns,\n"
	      "  run_us_per_kb, other_us_per_kb, peer_us_per_kb, run_cycles_per_byte,\n"
	      "  other_cycles_per_byte, retrans, lost, verify_errors, timeouts,\n"
	      "  rx_build_pct, rx_alloc_pct, rx_frags_pct, rx_gro_merged (probe-rx:\n"
	      "  how the receiver built its skbs; when both variants built >= 99 % of\n"
	      "  them one way in every run, a warning says the path did not change), or any\n"
	      "  value of the run's document as PATH:higher or PATH:lower (its JSON path\n"
	      "  and which way is better), e.g. 'counters.snmp[\"Tcp.RetransSegs\"]:lower'.\n"
	      "  A judged metric needs a positive value in every run.\n"
	      "alpha: significance (default 0.05); threshold: the smallest change in %\n"
	      "  that counts (default 5): a significant change beyond it in the worse\n"
	      "  direction is a regression; no significant change while the minimum\n"
	      "  detectable effect exceeds it is inconclusive.\n"
	      "csv: a row per run on stdout (pair, variant, the metrics of columns,\n"
	      "  default all), the text to stderr.\n"
	      "A failed run is tried once more; failing again it ends the job (exit 4),\n"
	      "or with keep-going its pair is left out. Each pair's values and the time\n"
	      "left go to stderr as it goes.\n"
	      "Exit: 0 no regression, 1 regression, 2 usage, 3 inconclusive,\n"
	      "4 infrastructure error; bisect: 0, 1, 125 (skip) for git bisect run.\n", f);
}

struct ab_args {
	bool		csv;
	struct columns	cols;
	long		n;
	const char	*va, *vb;
	struct judge	j;
	char		**base;
	int		nbase;
};

static int ab_parse(struct ab_args *a, int argc, char **argv)
{
	const char *metric = NULL, *gates = NULL;
	int i, n;

	memset(a, 0, sizeof(*a));
	a->j.alpha = 0.05;
	a->j.threshold = 0.05;
	for (i = 0; i < argc && strcmp(argv[i], "--"); i += n) {
		n = job_arg(&a->j, &a->csv, &a->cols, argc - i, argv + i, &metric, &gates);
		if (n < 0)
			return -1;
		if (n)
			continue;
		if (i + 1 >= argc) {
			usage_error("ab: '%s' needs a value", argv[i]);
			return -1;
		}
		n = 2;
		if (!strcmp(argv[i], "repeat")) {
			char *end;

			a->n = strtol(argv[i + 1], &end, 10);
			if (*end || a->n < 2 || a->n > 10000) {
				usage_error("ab: repeat: 2 to 10000 pairs, not '%s'", argv[i + 1]);
				return -1;
			}
		} else if (!strcmp(argv[i], "a")) {
			a->va = argv[i + 1];
		} else if (!strcmp(argv[i], "b")) {
			a->vb = argv[i + 1];
		} else {
			usage_error("ab: unknown keyword '%s'", argv[i]);
			return -1;
		}
	}
	if (i >= argc || i + 2 >= argc || strcmp(argv[i + 1], "run")) {
		usage_error("ab: the run to compare after '--': -- run TEST ...");
		return -1;
	}
	if (!a->n || !a->va || !a->vb) {
		usage_error("ab: repeat N, a VARIANT and b VARIANT are all needed");
		return -1;
	}
	a->base = argv + i + 1;
	a->nbase = argc - i - 1;
	return judge_finish(&a->j, metric ? metric : metric_default(test_of(a->base, a->nbase)),
			    gates);
}

static void print_variant(const char *key, const struct variant *v, const struct judge *j)
{
	print_open_object(key);
	print_string(PRINT_ANY, "variant", "%s:", key);
	print_string(PRINT_ANY, "args", " \"%s\"\n", v->label);
	if (v->pre)
		print_string(PRINT_JSON, "pre", NULL, v->pre);
	if (v->post)
		print_string(PRINT_JSON, "post", NULL, v->post);
	print_warnings(v);
	print_job(&v->job);
	print_metrics(v, j);
	print_close_object();
}

/* Judge the metrics of @j over @n pairs; their verdicts into @v. */
static void ab_judge(const struct judge *j, const struct variant *a, const struct variant *b,
		     enum verdict *v)
{
	struct stats_paired r[MAX_GATES + 1];
	double p[MAX_GATES + 1], adj[MAX_GATES + 1];
	size_t i;

	for (i = 0; i < j->nm; i++) {
		size_t mi = j->m[i] - metrics;

		/* sample() kept only positive values of judged metrics. With
		 * gates, Holm's strictest level: an MDE that says what the
		 * corrected test can see.
		 */
		if (stats_paired(a->x[mi], b->x[mi], a->n, j->alpha / j->nm, 1, &r[i])) {
			fprintf(stderr, "ktgen: ab: %s: no comparison\n", j->m[i]->name);
			exit(EXIT_INFRA);
		}
		p[i] = r[i].p_t;
	}
	if (stats_holm(p, j->nm, adj))
		exit(EXIT_INFRA);
	print_open_array("verdicts");
	for (i = 0; i < j->nm; i++) {
		const struct metric *m = j->m[i];

		v[i] = judge_one(j, m, r[i].ratio, adj[i], r[i].mde);
		print_open_object(NULL);
		print_string(PRINT_ANY, "metric", "b/a %s:", m->name);
		print_bool(PRINT_JSON, "primary", NULL, i == 0);
		print_u64(PRINT_JSON, "pairs", NULL, r[i].n);
		print_double(PRINT_ANY, "ratio", " ratio %.4f", r[i].ratio);
		print_double(PRINT_ANY, "change_pct", " (%+.2f%%)", (r[i].ratio - 1) * 100);
		print_double(PRINT_JSON, "ci_lo", NULL, r[i].ci_lo);
		print_double(PRINT_JSON, "ci_hi", NULL, r[i].ci_hi);
		print_text(" ci%.4g [%.4f, %.4f]", (1 - j->alpha / j->nm) * 100, r[i].ci_lo,
			   r[i].ci_hi);
		print_double(PRINT_ANY, "p_t", " paired-t p=%.3g", r[i].p_t);
		print_double(PRINT_ANY, "p_holm", " holm p=%.3g", adj[i]);
		print_double(PRINT_ANY, "p_wilcoxon", " wilcoxon p=%.3g", r[i].p_w);
		print_double(PRINT_ANY, "mde_pct", " MDE %.2f%%", r[i].mde * 100);
		print_string(PRINT_ANY, "verdict", ": %s\n", verdict_names[v[i]]);
		print_close_object();
	}
	print_close_array();
}

/* One pair, A and B in the order the job's seed draws for pair @i; 0, or
 * -1 when a run failed twice (the pair's first half taken back).
 */
static int ab_pair(struct ab_args *a, long i, struct variant *va, struct variant *vb,
		   const struct timespec *t0)
{
	char ta[64], tb[64], left[48];
	struct variant *first, *second;
	int e1, e2 = -1;
	size_t order[2];

	stats_order(job_seed(&a->j), i, order, 2);
	first = order[0] ? vb : va;
	second = order[0] ? va : vb;
	fprintf(stderr, "ktgen: ab pair %ld/%ld: %s then %s\n", i + 1, a->n,
		first->name, second->name);
	e1 = sample_retry(a->base, a->nbase, first, &a->j);
	if (!e1 && !ab_signal)
		e2 = sample_retry(a->base, a->nbase, second, &a->j);
	if (e1 || e2) {
		if (!e1)
			first->n--;
		return -1;
	}
	fprintf(stderr, "ktgen: ab pair %ld/%ld: a %s, b %s%s\n", i + 1, a->n,
		last_value(ta, sizeof(ta), va, a->j.m[0]),
		last_value(tb, sizeof(tb), vb, a->j.m[0]),
		i + 1 < a->n ? time_left(left, sizeof(left), t0, i + 1, a->n) : "");
	if (a->csv) {
		printf("%ld,%s", i + 1, first == va ? "a" : "b");
		csv_values(first->x, first->n - 1, &a->cols);
		printf("%ld,%s", i + 1, second == va ? "a" : "b");
		csv_values(second->x, second->n - 1, &a->cols);
	}
	return 0;
}

/* The pairs, until N or a signal (which stops the run in progress, its
 * knobs put back, and the job after it). EXIT_OK or EXIT_INFRA.
 */
static int ab_pairs(struct ab_args *a, struct variant *va, struct variant *vb, long *failed)
{
	struct job_signals sig;
	int ret = EXIT_OK;
	struct timespec t0;
	long i;

	job_signals_catch(&sig);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < a->n && ret == EXIT_OK && !ab_signal; i++) {
		if (!ab_pair(a, i, va, vb, &t0))
			continue;
		if (ab_signal || !a->j.keep_going) {
			ret = EXIT_INFRA;
			continue;
		}
		/* keep-going: the pair is left out */
		(*failed)++;
		fprintf(stderr, "ktgen: ab pair %ld/%ld failed twice: left out\n", i + 1, a->n);
	}
	job_signals_restore(&sig);
	/* Pairs only: a half pair is dropped. */
	va->n = vb->n = va->n < vb->n ? va->n : vb->n;
	return ret;
}

static int ab_print(const struct ab_args *a, struct variant *va, struct variant *vb,
		    int argc, char **argv, time_t started, long failed, int ret)
{
	enum verdict v[MAX_GATES + 1];
	char w[256];

	print_open_object(NULL);
	print_provenance("ab", argc, argv, started);
	print_string(PRINT_ANY, "test", "ab: %s,", test_of(a->base, a->nbase));
	print_u64(PRINT_ANY, "pairs", " %llu pairs", va->n);
	print_u64(PRINT_JSON, "repeat", NULL, a->n);
	print_u64(PRINT_ANY, "seed", " in random order (seed %llu", a->j.seed);
	if (a->j.keep_going)
		print_u64(PRINT_ANY, "failed_pairs", "; %llu failed, left out", failed);
	print_text(")");
	print_string(PRINT_ANY, "metric", ", metric %s", a->j.m[0]->name);
	print_text(" (%s is better)", a->j.m[0]->higher_better ? "higher" : "lower");
	print_double(PRINT_ANY, "alpha", ", alpha %.3g", a->j.alpha);
	print_double(PRINT_ANY, "threshold_pct", ", threshold %.3g%%\n", a->j.threshold * 100);
	print_variant("a", va, &a->j);
	print_variant("b", vb, &a->j);
	if (rx_path_same(va, vb, w, sizeof(w))) {
		print_open_array("warnings");
		print_string(PRINT_JSON, NULL, NULL, w);
		print_close_array();
		print_text("warning: %s\n", w);
	}
	if (va->n >= 2) {
		ab_judge(&a->j, va, vb, v);
		if (ret == EXIT_OK)
			ret = judge_exit(v, a->j.nm);
	} else {
		print_text("too few pairs for a verdict\n");
		ret = EXIT_INFRA;
	}
	print_u64(PRINT_ANY, "exit", "exit %llu\n", ret);
	print_close_object();
	return ret;
}

static int ab_main(int argc, char **argv)
{
	time_t started = time(NULL);
	struct variant va, vb;
	struct ab_args a;
	long failed = 0;
	int ret;

	if (argc < 1 || is_help(argv[0])) {
		ab_usage(argc ? stdout : stderr);
		return argc ? EXIT_OK : EXIT_USAGE;
	}
	if (ab_parse(&a, argc, argv) || csv_start(a.csv, "ab"))
		return EXIT_USAGE;
	if (a.csv)
		csv_header("pair,variant", &a.cols);
	if (variant_parse(&va, a.va, a.va))
		return EXIT_USAGE;
	if (variant_parse(&vb, a.vb, a.vb)) {
		variant_free(&va);
		return EXIT_USAGE;
	}
	va.name = "a";
	vb.name = "b";
	if (variant_check("a", a.base, a.nbase, &va) || variant_check("b", a.base, a.nbase, &vb)) {
		ret = EXIT_USAGE;
	} else {
		job_seed(&a.j);
		ret = ab_pairs(&a, &va, &vb, &failed);
		ret = ab_print(&a, &va, &vb, argc, argv, started, failed, ret);
	}
	variant_free(&va);
	variant_free(&vb);
	return ret;
}

int do_ab(int argc, char **argv)
{
	int ret = ab_main(argc, argv);

	return wants_bisect(argc, argv, 0) ? bisect_exit(ret) : ret;
}
