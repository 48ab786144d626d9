// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen diff BASE.json NEW.json [metric M] [gate M,...] [alpha A]
 *            [threshold PCT] [variant a|b] [save] [force]
 *
 * Judges a new sample against a baseline that keeps several sessions'
 * samples, so that the variance between boots is in the test; refuses
 * documents of different jobs and shows their environments side by side.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ktgen.h"
#include "print.h"
#include "stats.h"
#include "job.h"

static void diff_usage(FILE *f)
{
	fputs("Usage: ktgen diff BASE.json NEW.json [metric M] [gate M,...] [alpha A]\n"
	      "                  [threshold PCT] [variant a|b] [bisect] [save] [force]\n"
	      "Judges NEW's samples against BASE's (documents of run ... repeat, ab or a\n"
	      "saved baseline): Welch's t-test on the logs, Mann-Whitney U, a bootstrap\n"
	      "interval of the ratio of geometric means. variant picks an ab document's\n"
	      "side (default b). save: when nothing regressed, NEW's samples join BASE\n"
	      "as another session, so a baseline carries the variance between boots.\n"
	      "Documents of different tests (test, tx mode, size, flows, request and\n"
	      "response sizes, gso) are refused unless force; where they ran (kernel,\n"
	      "CPU, ktgen, each device's driver and firmware) is shown where it differs.\n"
	      "Exit codes as ab's.\n", f);
}

/* A figure no run reports: a sample of it is a damaged or forged file. */
#define SAMPLE_MAX	1e18
/* Samples per metric a document may hold: 10000 runs of 100 sessions. */
#define SAMPLES_MAX	1000000

/* The samples of metric @m in a document: its "metrics", or those of
 * variant @var of an ab document. -1 when it has none; -EINVAL, said on
 * stderr naming @path, when one is not a positive finite figure.
 */
static int doc_samples(const struct json *doc, const char *var, const struct metric *m,
		       double **x, size_t *n, const char *path)
{
	const struct json *ms = json_get(doc, "metrics"), *arr;
	size_t i;

	*x = NULL;
	if (!ms && json_get(doc, var))
		ms = json_get(json_get(doc, var), "metrics");
	arr = ms ? json_get(json_get(ms, m->name), "samples") : NULL;
	if (!arr || arr->type != JSON_ARRAY || !arr->len)
		return -1;
	if (arr->len > SAMPLES_MAX) {
		if (path)
			fprintf(stderr, "ktgen: diff: %s: %s: %zu samples, more than %d\n", path,
				m->name, arr->len, SAMPLES_MAX);
		return -EINVAL;
	}
	*n = arr->len;
	*x = calloc(*n, sizeof(double));
	if (!*x)
		return -1;
	for (i = 0; i < *n; i++) {
		const struct json *e = json_index(arr, i);
		double v = 0;

		if (json_number(e, &v) || !isfinite(v) || v <= 0 || v > SAMPLE_MAX) {
			if (path && e->type == JSON_NUMBER)
				fprintf(stderr, "ktgen: diff: %s: %s sample %zu is %g: a sample is a "
					"positive figure up to %g\n", path, m->name, i + 1, v,
					SAMPLE_MAX);
			else if (path)
				fprintf(stderr, "ktgen: diff: %s: %s sample %zu is a %s, not a number\n",
					path, m->name, i + 1, json_type_name(e->type));
			free(*x);
			*x = NULL;
			return -EINVAL;
		}
		(*x)[i] = v;
	}
	return 0;
}

/* What a document may weigh: a baseline of a million samples is 20 MiB. */
#define DOC_MAX		(64 << 20)

static struct json *read_doc(const char *path)
{
	char err[160], *text = NULL;
	size_t len = 0;
	struct json *doc;
	struct stat st;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "ktgen: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > DOC_MAX) {
		fprintf(stderr, "ktgen: %s: %s\n", path, !S_ISREG(st.st_mode) ?
			"not a regular file" : "larger than 64 MiB: not a ktgen document");
		fclose(f);
		return NULL;
	}
	if (getdelim(&text, &len, '\0', f) < 0) {
		fprintf(stderr, "ktgen: %s: empty\n", path);
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	doc = json_parse(text, strlen(text), err, sizeof(err));
	if (!doc)
		fprintf(stderr, "ktgen: %s: %s\n", path, err);
	free(text);
	return doc;
}

/* The job record of a document: its own, or variant @var's of an ab one. */
static void doc_job(const struct json *doc, const char *var, struct job *jb)
{
	const struct json *j = json_get(doc, "job");

	if (!j)
		j = json_get(json_get(doc, var), "job");
	job_read(jb, j);
}

/* One line of the environments side by side, when they differ; the
 * first one under a heading.
 */
static void env_diff_line(const char *what, const char *a, const char *b, bool *any)
{
	if (!strcmp(a, b))
		return;
	if (!*any)
		print_text("  where they ran, where it differs: base, new\n");
	*any = true;
	print_open_object(NULL);
	print_string(PRINT_ANY, "what", "  %-28s", what);
	print_string(PRINT_ANY, "base", " %-32s", a[0] ? a : "-");
	print_string(PRINT_ANY, "new", " %s\n", b[0] ? b : "-");
	print_close_object();
}

/* "environment_diff": where BASE and NEW ran, what differs. */
static void print_env_diff(const struct job *a, const struct job *b)
{
	bool any = false;
	size_t i, k;
	char what[64];

	print_open_array("environment_diff");
	env_diff_line("kernel", a->kernel, b->kernel, &any);
	env_diff_line("cpu", a->cpu_model, b->cpu_model, &any);
	env_diff_line("ktgen module", a->module, b->module, &any);
	env_diff_line("ktgen cli", a->cli, b->cli, &any);
	for (i = 0; i < a->ndev; i++) {
		for (k = 0; k < b->ndev && strcmp(a->dev[i].name, b->dev[k].name); k++)
			;
		if (k == b->ndev)
			continue;
		snprintf(what, sizeof(what), "%s driver", a->dev[i].name);
		env_diff_line(what, a->dev[i].driver, b->dev[k].driver, &any);
		snprintf(what, sizeof(what), "%s driver version", a->dev[i].name);
		env_diff_line(what, a->dev[i].driver_version, b->dev[k].driver_version, &any);
		snprintf(what, sizeof(what), "%s firmware", a->dev[i].name);
		env_diff_line(what, a->dev[i].firmware, b->dev[k].firmware, &any);
	}
	print_close_array();
}

/* Each metric's samples, BASE's then NEW's (variant @var). */
static void diff_save_metrics(const struct json *base, const struct json *new,
			      const char *var)
{
	size_t i;

	print_open_object("metrics");
	for (i = 0; i < NMETRICS; i++) {
		double *a = NULL, *b = NULL;
		size_t na = 0, nb = 0, k;

		if (doc_samples(base, "a", &metrics[i], &a, &na, NULL) ||
		    doc_samples(new, var, &metrics[i], &b, &nb, NULL)) {
			free(a);
			free(b);
			continue;
		}
		print_open_object(metrics[i].name);
		print_bool(PRINT_JSON, "higher_is_better", NULL, metrics[i].higher_better);
		print_open_array("samples");
		for (k = 0; k < na + nb; k++)
			print_double(PRINT_JSON, NULL, NULL, k < na ? a[k] : b[k - na]);
		print_close_array();
		print_close_object();
		free(a);
		free(b);
	}
	print_close_object();
}

/* BASE with NEW's samples added, as a baseline document. */
static int diff_save(const char *path, const struct json *base, const struct json *new,
		     const char *var)
{
	char tmp[4096];
	double sessions = 1, s2 = 1;
	struct job jb;
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "ktgen: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	json_number(json_get(base, "sessions"), &sessions);
	json_number(json_get(new, "sessions"), &s2);
	print_finish();
	print_init(f, true, true);
	print_open_object(NULL);
	print_string(PRINT_JSON, "baseline", NULL, "ktgen");
	print_u64(PRINT_JSON, "sessions", NULL, (uint64_t)(sessions + s2));
	doc_job(base, "a", &jb);
	if (!jb.known)
		doc_job(new, var, &jb);
	print_job(&jb);
	diff_save_metrics(base, new, var);
	print_close_object();
	err = print_finish();
	err |= fclose(f);
	/* Back to stdout, whose document is complete. */
	print_init(stdout, opts.json, opts.pretty);
	if (err || rename(tmp, path)) {
		fprintf(stderr, "ktgen: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	fprintf(stderr, "ktgen: %s: now %llu sessions\n", path,
		(unsigned long long)(sessions + s2));
	return 0;
}

struct diff_args {
	const char	*metric, *gates, *var;
	struct judge	j;
	bool		save, force;
};

static int diff_parse(struct diff_args *d, int argc, char **argv)
{
	int i, n;

	for (i = 2; i < argc; i += n) {
		n = judge_arg(&d->j, argc - i, argv + i, &d->metric, &d->gates);
		if (n < 0)
			return -1;
		if (n)
			continue;
		n = 1;
		if (!strcmp(argv[i], "save")) {
			d->save = true;
		} else if (!strcmp(argv[i], "force")) {
			d->force = true;
		} else if (!strcmp(argv[i], "variant") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "a") || !strcmp(argv[i + 1], "b"))) {
			d->var = argv[i + 1];
			n = 2;
		} else {
			usage_error("diff: unknown keyword '%s'", argv[i]);
			return -1;
		}
	}
	return judge_finish(&d->j, d->metric ? d->metric : "tx_bps", d->gates);
}

/* Samples of different tests compare nothing: a 64-byte UDP stream is no
 * regression of a TCP one. 0, or the exit code.
 */
static int diff_jobs(const struct diff_args *d, struct job *jb, struct job *jn,
		     const struct json *base, const struct json *new, char **argv)
{
	char why[256];

	doc_job(base, "a", jb);
	doc_job(new, d->var, jn);
	if (!jb->known || !jn->known) {
		if (!jb->known && !jn->known)
			fprintf(stderr, "ktgen: diff: neither document has a job record (an older "
				"ktgen's): whether both measured the same test is not checked\n");
		else
			fprintf(stderr, "ktgen: diff: %s has no job record (an older ktgen's): "
				"whether both measured the same test is not checked\n",
				jb->known ? argv[1] : argv[0]);
	} else if (!job_same(jb, jn, why, sizeof(why))) {
		if (!d->force) {
			usage_error("diff: %s and %s measured different things: %s "
				    "(force compares them anyway)", argv[0], argv[1], why);
			return EXIT_USAGE;
		}
		fprintf(stderr, "ktgen: diff: forced, though they measured different things: %s\n",
			why);
	}
	return 0;
}

/* Each metric's test of base against new, and the Holm-adjusted p values. */
static int diff_tests(struct diff_args *d, const struct json *base, const struct json *new,
		      char **argv, struct stats_unpaired *r, double *adj)
{
	struct judge *j = &d->j;
	double p[MAX_GATES + 1];
	size_t k;

	if (!d->metric) {
		const struct json *t = json_get(new, "metric");

		if (!t && json_get(new, d->var))
			t = json_get(json_get(new, d->var), "metric");
		if (t && json_string(t) && metric_find(json_string(t)))
			j->m[0] = metric_find(json_string(t));
	}
	for (k = 0; k < j->nm; k++) {
		double *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		int ea, eb, err;

		ea = doc_samples(base, "a", j->m[k], &a, &na, argv[0]);
		eb = ea == -EINVAL ? 0 : doc_samples(new, d->var, j->m[k], &b, &nb, argv[1]);
		err = ea || eb || stats_unpaired(a, na, b, nb, j->alpha / j->nm, 1, &r[k]);
		free(a);
		free(b);
		if (ea == -EINVAL || eb == -EINVAL)
			return -1;
		if (err) {
			fprintf(stderr, "ktgen: diff: %s: two samples of 2 or more positive values needed\n",
				j->m[k]->name);
			return -1;
		}
		p[k] = r[k].p_t;
	}
	return stats_holm(p, j->nm, adj);
}

static enum verdict diff_print_one(const struct judge *j, size_t k,
				   const struct stats_unpaired *r, double adj)
{
	enum verdict v = judge_one(j, j->m[k], r->ratio, adj, r->mde);

	print_open_object(NULL);
	print_string(PRINT_ANY, "metric", "new/base %s:", j->m[k]->name);
	print_bool(PRINT_JSON, "primary", NULL, k == 0);
	print_u64(PRINT_ANY, "n_base", " n %llu", r->na);
	print_u64(PRINT_ANY, "n_new", "/%llu", r->nb);
	print_double(PRINT_ANY, "ratio", " ratio %.4f", r->ratio);
	print_double(PRINT_ANY, "change_pct", " (%+.2f%%)", (r->ratio - 1) * 100);
	print_double(PRINT_JSON, "ci_lo", NULL, r->ci_lo);
	print_double(PRINT_JSON, "ci_hi", NULL, r->ci_hi);
	print_text(" ci%.4g [%.4f, %.4f]", (1 - j->alpha / j->nm) * 100, r->ci_lo, r->ci_hi);
	print_double(PRINT_ANY, "p_t", " welch p=%.3g", r->p_t);
	print_double(PRINT_ANY, "p_holm", " holm p=%.3g", adj);
	print_double(PRINT_ANY, "p_mannwhitney", " mann-whitney p=%.3g", r->p_u);
	print_double(PRINT_ANY, "mde_pct", " MDE %.2f%%", r->mde * 100);
	print_string(PRINT_ANY, "verdict", ": %s\n", verdict_names[v]);
	print_close_object();
	return v;
}

/* The document: what was compared, where it differed, each verdict. */
static int diff_print(const struct diff_args *d, int argc, char **argv, time_t started,
		      const struct job *jb, const struct job *jn,
		      const struct stats_unpaired *r, const double *adj)
{
	enum verdict v[MAX_GATES + 1];
	size_t k;
	int ret;

	print_open_object(NULL);
	print_provenance("diff", argc, argv, started);
	print_string(PRINT_ANY, "base", "diff: %s", argv[0]);
	print_string(PRINT_ANY, "new", " -> %s", argv[1]);
	print_double(PRINT_ANY, "alpha", ", alpha %.3g", d->j.alpha);
	print_double(PRINT_ANY, "threshold_pct", ", threshold %.3g%%\n", d->j.threshold * 100);
	if (jb->known && jn->known)
		print_env_diff(jb, jn);
	print_open_array("verdicts");
	for (k = 0; k < d->j.nm; k++)
		v[k] = diff_print_one(&d->j, k, &r[k], adj[k]);
	print_close_array();
	ret = judge_exit(v, d->j.nm);
	print_u64(PRINT_ANY, "exit", "exit %llu\n", ret);
	print_close_object();
	return ret;
}

static int diff_main(int argc, char **argv)
{
	struct diff_args d = { .var = "b", .j = { .alpha = 0.05, .threshold = 0.05 } };
	struct stats_unpaired r[MAX_GATES + 1];
	struct json *base = NULL, *new = NULL;
	time_t started = time(NULL);
	double adj[MAX_GATES + 1];
	int ret = EXIT_INFRA;
	struct job jb, jn;

	if (argc < 1 || is_help(argv[0])) {
		diff_usage(argc ? stdout : stderr);
		return argc ? EXIT_OK : EXIT_USAGE;
	}
	if (argc < 2) {
		usage_error("diff: BASE.json and NEW.json");
		return EXIT_USAGE;
	}
	if (diff_parse(&d, argc, argv))
		return EXIT_USAGE;
	base = read_doc(argv[0]);
	new = base ? read_doc(argv[1]) : NULL;
	if (!new)
		goto out;
	ret = diff_jobs(&d, &jb, &jn, base, new, argv);
	if (ret)
		goto out;
	ret = EXIT_INFRA;
	if (diff_tests(&d, base, new, argv, r, adj))
		goto out;
	ret = diff_print(&d, argc, argv, started, &jb, &jn, r, adj);
	if (d.save && ret != EXIT_FAIL && diff_save(argv[0], base, new, d.var))
		ret = EXIT_INFRA;
out:
	json_free(base);
	json_free(new);
	return ret;
}

int do_diff(int argc, char **argv)
{
	int ret = diff_main(argc, argv);

	return wants_bisect(argc, argv, 2) ? bisect_exit(ret) : ret;
}
