// SPDX-License-Identifier: GPL-2.0
/*
 * Repeated runs and their verdicts.
 *
 *   ktgen ab repeat N a VARIANT b VARIANT [metric M] [gate M,...] [alpha A]
 *            [threshold PCT] [bisect] -- run TEST ...
 *   ktgen run TEST ... repeat N [confidence LEVEL,WIDTH]
 *   ktgen diff BASE.json NEW.json [metric M] [gate M,...] [alpha A]
 *              [threshold PCT] [variant a|b] [save] [force]
 *
 * Each sample is a whole `ktgen -j run` of this binary, so a variant's
 * knobs are applied and put back by the run itself, and a sample is the
 * run document a single run prints. ab interleaves its variants in pairs
 * (A B, B A, A B, ...) so that drift cancels, and judges the pairs' log
 * ratios; diff judges a new sample against a baseline that keeps several
 * sessions' samples, so that the variance between boots is in the test.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "json.h"
#include "ktgen.h"
#include "print.h"
#include "stats.h"

/*
 * A figure of a run document: the window's when the run had a warm-up,
 * else the run's; a peer's when the sink was on another host. A built-in
 * name has its paths ('/'-separated keys, the first present wins) and
 * direction; a rate divides by a duration (@per, scaled by @per_scale).
 * Any other value of the document is a metric too, named by its path
 * (json_path's syntax) and a direction, "PATH:higher" or "PATH:lower";
 * any percentile the run asked for is "pN" (latency.percentiles_ns).
 */
struct metric {
	const char	*name;
	const char	*paths[3];
	bool		higher_better;
	const char	*unit;		/* text: value / scale unit */
	double		scale;
	const char	*per[3];	/* a rate: divided by this, times per_scale */
	double		per_scale;
	const char	*jpath;		/* PATH:higher|lower: json_path() */
};

#define MAX_METRICS	48
#define MAX_GATES	8
#define METRIC_NAME	128

static struct metric metrics[MAX_METRICS] = {
	{ "tx_bps",	{ "window/tx_bps", "tx_bps" },	true,	"Mbit/s", 1e6 },
	{ "rx_bps",	{ "window/rx_bps", "rx_bps", "peer/window/rx_bps" }, true, "Mbit/s", 1e6 },
	{ "tx_pps",	{ "window/tx_msgs", "tx/msgs" }, true,	"kpps", 1e3,
			{ "window/duration_ns", "duration_ns" }, 1e9 },
	{ "rx_pps",	{ "window/rx_msgs", "rx/msgs" }, true,	"kpps", 1e3,
			{ "window/duration_ns", "duration_ns" }, 1e9 },
	{ "tps",	{ "latency/tps" },		true,	"/s", 1 },
	{ "p50",	{ "latency/percentiles_ns/p50" }, false, "us", 1e3 },
	{ "p90",	{ "latency/percentiles_ns/p90" }, false, "us", 1e3 },
	{ "p99",	{ "latency/percentiles_ns/p99" }, false, "us", 1e3 },
	{ "p99.9",	{ "latency/percentiles_ns/p99.9" }, false, "us", 1e3 },
	{ "mean_ns",	{ "latency/mean_ns" },		false,	"us", 1e3 },
	{ "run_us_per_kb", { "cpu/run/us_per_kb" },	false,	"us/KB", 1 },
	{ "other_us_per_kb", { "cpu/other/us_per_kb" }, false,	"us/KB", 1 },
	{ "peer_us_per_kb", { "peer/cpu/us_per_kb" },	false,	"us/KB", 1 },
	{ "run_cycles_per_byte", { "cpu/run/cycles_per_byte" }, false, "cycles/B", 1 },
	{ "other_cycles_per_byte", { "cpu/other/cycles_per_byte" }, false, "cycles/B", 1 },
	{ "retrans",	{ "tx/retrans" },		false,	"", 1 },
	{ "lost",	{ "rx/lost" },			false,	"", 1 },
	{ "verify_errors", { "rx/verify_errors" },	false,	"", 1 },
	{ "timeouts",	{ "latency/timeouts" },		false,	"", 1 },
};

/* The built-in ones; then those a command line named, in the order named. */
#define NBUILTIN	19
static size_t nmetrics = NBUILTIN;
static char metric_names[MAX_METRICS][METRIC_NAME];
static char metric_paths[MAX_METRICS][METRIC_NAME];

#define NMETRICS	nmetrics

/* "pN" for 0 < N < 100 (a percentile a run may ask for): true. */
static bool percentile_name(const char *name)
{
	char *end;
	double v;

	if (name[0] != 'p' || !isdigit((unsigned char)name[1]))
		return false;
	v = strtod(name + 1, &end);
	return !*end && v > 0 && v < 100 && strspn(name + 1, "0123456789.") == strlen(name + 1);
}

/* The metric of that name: a built-in one, one named before, or a new
 * percentile or PATH:higher|lower one. NULL for anything else.
 */
static const struct metric *metric_find(const char *name)
{
	const char *colon = strrchr(name, ':');
	struct metric *m;
	size_t i;

	for (i = 0; i < nmetrics; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	if (nmetrics == MAX_METRICS || strlen(name) >= METRIC_NAME)
		return NULL;
	m = &metrics[nmetrics];
	memset(m, 0, sizeof(*m));
	snprintf(metric_names[nmetrics], METRIC_NAME, "%s", name);
	m->name = metric_names[nmetrics];
	if (percentile_name(name)) {
		snprintf(metric_paths[nmetrics], METRIC_NAME, "latency/percentiles_ns/%s", name);
		m->paths[0] = metric_paths[nmetrics];
		m->unit = "us";
		m->scale = 1e3;
	} else if (colon && colon > name &&
		   (!strcmp(colon, ":higher") || !strcmp(colon, ":lower"))) {
		snprintf(metric_paths[nmetrics], METRIC_NAME, "%.*s", (int)(colon - name), name);
		m->jpath = metric_paths[nmetrics];
		m->higher_better = !strcmp(colon, ":higher");
		m->unit = "";
		m->scale = 1;
	} else {
		return NULL;
	}
	nmetrics++;
	return m;
}

/* The number at a '/'-separated path; NAN when there is none. */
static double doc_number(const struct json *doc, const char *p)
{
	char path[METRIC_NAME], *seg, *save = NULL;
	const struct json *n = doc;
	double v;

	snprintf(path, sizeof(path), "%s", p);
	for (seg = strtok_r(path, "/", &save); seg && n; seg = strtok_r(NULL, "/", &save))
		n = json_get(n, seg);
	return n && !json_number(n, &v) ? v : NAN;
}

/* The value of @m in a run document; NAN when it has none. */
static double metric_value(const struct metric *m, const struct json *doc)
{
	size_t i;
	double v;

	if (m->jpath)
		return json_number(json_path(doc, m->jpath), &v) ? NAN : v;
	for (i = 0; i < ARRAY_SIZE(m->paths) && m->paths[i]; i++) {
		v = doc_number(doc, m->paths[i]);
		if (isnan(v))
			continue;
		if (m->per[i]) {
			double d = doc_number(doc, m->per[i]);

			v = d > 0 ? v / d * m->per_scale : NAN;
		}
		return v;
	}
	return NAN;
}

int ab_metric_value(const char *name, const struct json *doc, double *v)
{
	const struct metric *m = metric_find(name);

	if (!m)
		return -ENOENT;
	*v = metric_value(m, doc);
	return isnan(*v) ? -ENODATA : 0;
}

/* The default: receiver throughput for UDP streams (what arrives),
 * sender throughput for TCP streams, the 99th percentile for RR.
 */
static const char *metric_default(const char *test)
{
	if (!strcmp(test, "udp_stream"))
		return "rx_bps";
	if (!strcmp(test, "tcp_stream"))
		return "tx_bps";
	return "p99";
}

/* --- the judgement ------------------------------------------------------ */

struct judge {
	double		alpha;
	double		threshold;	/* relative, 0.05 = 5 % */
	const struct metric *m[MAX_GATES + 1];	/* [0] primary */
	size_t		nm;
	const struct metric *show[MAX_GATES];	/* summarized, not judged */
	size_t		nshow;
	bool		show_all;	/* repeat: every metric the runs had */
	bool		keep_going;	/* jobs: a run that failed twice is left out */
	bool		bisect;
};

enum verdict {
	V_SAME,			/* no difference, and one would have been seen */
	V_SMALL,		/* a real difference below the threshold */
	V_IMPROVED,
	V_REGRESSED,
	V_INCONCLUSIVE,		/* nothing seen, but the test could not see it */
};

static const char * const verdict_names[] = {
	[V_SAME]	= "no change",
	[V_SMALL]	= "change below threshold",
	[V_IMPROVED]	= "improvement",
	[V_REGRESSED]	= "regression",
	[V_INCONCLUSIVE] = "inconclusive",
};

/* @ratio of B to A (new to base), its Holm-adjusted @p and the test's
 * minimum detectable effect: the verdict.
 */
static enum verdict judge_one(const struct judge *j, const struct metric *m,
			      double ratio, double p, double mde)
{
	double change = ratio - 1;	/* + is more */
	bool worse = m->higher_better ? change < 0 : change > 0;

	if (p < j->alpha) {
		if (fabs(change) < j->threshold)
			return V_SMALL;
		return worse ? V_REGRESSED : V_IMPROVED;
	}
	return mde > j->threshold ? V_INCONCLUSIVE : V_SAME;
}

/* Exit status of a job: a regression anywhere fails it; an inconclusive
 * metric, when nothing regressed, says so.
 */
static int judge_exit(const enum verdict *v, size_t n)
{
	bool inconclusive = false;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (v[i] == V_REGRESSED)
			break;
		inconclusive |= v[i] == V_INCONCLUSIVE;
	}
	ret = i < n ? EXIT_FAIL : inconclusive ? EXIT_INCONCLUSIVE : EXIT_OK;
	return ret;
}

int bisect_exit(int ret)
{
	/* git bisect run: 0 good, 1 bad, 125 cannot test, >= 128 abort. */
	switch (ret) {
	case EXIT_OK:
		return 0;
	case EXIT_FAIL:
		return 1;
	case EXIT_USAGE:
		return 128;
	default:
		return 125;
	}
}

/* "M,M,...": metrics appended to @m, @n of them there so far, at most
 * @max; messages name the keyword @what.
 */
static int parse_metric_list(const char *what, const char *list, const struct metric **m,
			     size_t *n, size_t max)
{
	char buf[512], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct metric *one = metric_find(tok);

		if (!one) {
			usage_error("%s: unknown metric '%s' (a name, pN or PATH:higher|lower)",
				    what, tok);
			return -1;
		}
		if (*n == max) {
			usage_error("%s: at most %zu metrics", what, max);
			return -1;
		}
		m[(*n)++] = one;
	}
	return 0;
}

/* "gate M,M": further metrics after the primary one, judged with it
 * (Holm-corrected).
 */
static int parse_gates(struct judge *j, const char *list)
{
	size_t n = j->nm - 1;
	int err = parse_metric_list("gate", list, j->m + 1, &n, MAX_GATES);

	j->nm = n + 1;
	return err;
}

/* The options a verdict takes, shared by ab and diff; words taken or 0. */
static int judge_arg(struct judge *j, int argc, char **argv, const char **metric,
		     const char **gates)
{
	double v;
	char *end;

	if (!strcmp(argv[0], "bisect")) {
		j->bisect = true;
		return 1;
	}
	if (argc < 2)
		return 0;
	if (!strcmp(argv[0], "metric")) {
		if (!metric_find(argv[1])) {
			usage_error("metric: a name (tx_bps, rx_bps, tx_pps, rx_pps, tps, pN, mean_ns, run_us_per_kb, other_us_per_kb, peer_us_per_kb, run_cycles_per_byte, other_cycles_per_byte, retrans, lost, verify_errors, timeouts) or PATH:higher|lower; not '%s'",
				    argv[1]);
			return -1;
		}
		*metric = argv[1];
		return 2;
	}
	if (!strcmp(argv[0], "gate")) {
		*gates = argv[1];
		return 2;
	}
	if (!strcmp(argv[0], "alpha") || !strcmp(argv[0], "threshold")) {
		errno = 0;
		v = strtod(argv[1], &end);
		if (errno || *end || end == argv[1] || v <= 0 ||
		    v >= (!strcmp(argv[0], "alpha") ? 0.5 : 100)) {
			usage_error("%s: %s, not '%s'", argv[0], !strcmp(argv[0], "alpha") ?
				    "a significance level like 0.05" : "a percentage like 5",
				    argv[1]);
			return -1;
		}
		if (!strcmp(argv[0], "alpha"))
			j->alpha = v;
		else
			j->threshold = v / 100;
		return 2;
	}
	return 0;
}

static int judge_finish(struct judge *j, const char *metric, const char *gates)
{
	j->m[0] = metric_find(metric);
	j->nm = 1;
	return gates ? parse_gates(j, gates) : 0;
}

static void print_value(const char *key, const char *fmt, const struct metric *m, double v)
{
	print_double(PRINT_JSON, key, NULL, v);
	print_text(fmt, v / m->scale);
}

static void print_summary(const struct metric *m, const double *x, size_t n)
{
	struct stats_summary s;

	if (stats_summarize(x, n, 0.95, &s))
		return;
	print_open_object("summary");
	print_u64(PRINT_JSON, "n", NULL, s.n);
	print_value("min", " min %.6g", m, s.min);
	if (s.p10_ok)
		print_value("p10", " P10 %.6g", m, s.p10);
	print_value("median", " median %.6g", m, s.median);
	print_value("mean", " mean %.6g", m, s.mean);
	if (s.p90_ok)
		print_value("p90", " P90 %.6g", m, s.p90);
	print_value("max", " max %.6g", m, s.max);
	print_value("stddev", " stddev %.3g", m, s.stddev);
	print_double(PRINT_JSON, "cv", NULL, s.cv);
	print_text(" (%.1f%%)", s.cv * 100);
	print_value("ci95_lo", " ci95 [%.6g", m, s.ci_lo);
	print_value("ci95_hi", ", %.6g]", m, s.ci_hi);
	print_text(" %s\n", m->unit);
	print_close_object();
}

static void print_samples(const double *x, size_t n)
{
	size_t i;

	print_open_array("samples");
	for (i = 0; i < n; i++)
		print_double(PRINT_JSON, NULL, NULL, x[i]);
	print_close_array();
}

/* --- CSV: a row per run ------------------------------------------------ */

/* The metrics of a CSV's columns; none chosen: all of them. */
struct columns {
	const struct metric	*m[MAX_METRICS];
	size_t			n;
};

static int parse_columns(struct columns *c, const char *list)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!metric_find(tok) || c->n == MAX_METRICS) {
			usage_error("columns: unknown metric '%s'", tok);
			return -1;
		}
		c->m[c->n++] = metric_find(tok);
	}
	return 0;
}

static void csv_header(const char *lead, const struct columns *c)
{
	size_t i;

	printf("%s", lead);
	for (i = 0; i < (c->n ? c->n : NMETRICS); i++)
		printf(",%s", c->n ? c->m[i]->name : metrics[i].name);
	printf("\n");
}

/* The values of sample @k, after the caller's leading fields; an empty
 * field for a metric the run did not have.
 */
static void csv_values(double * const *x, size_t k, const struct columns *c)
{
	size_t i;

	char buf[400];

	for (i = 0; i < (c->n ? c->n : NMETRICS); i++) {
		double v = x[c->n ? (size_t)(c->m[i] - metrics) : i][k];

		if (isfinite(v))
			printf(",%s", format_double(buf, sizeof(buf), v, true));
		else
			printf(",");
	}
	printf("\n");
	fflush(stdout);
}

/* csv and columns, taken by ab, repeat and sweep: words taken or 0. */
static int csv_arg(bool *csv, struct columns *c, int argc, char **argv)
{
	if (!strcmp(argv[0], "csv")) {
		*csv = true;
		return 1;
	}
	if (argc >= 2 && !strcmp(argv[0], "columns"))
		return parse_columns(c, argv[1]) ? -1 : 2;
	return 0;
}

/* The words ab and sweep share: a verdict's options, then csv's. */
/* "show M,...": metrics summarized besides the judged ones. */
static int parse_show(struct judge *j, const char *list)
{
	return parse_metric_list("show", list, j->show, &j->nshow, MAX_GATES);
}

static int job_arg(struct judge *j, bool *csv, struct columns *c, int argc, char **argv,
		   const char **metric, const char **gates)
{
	int n = judge_arg(j, argc, argv, metric, gates);

	if (!n && argc >= 2 && !strcmp(argv[0], "show"))
		return parse_show(j, argv[1]) ? -1 : 2;
	if (!n && !strcmp(argv[0], "keep-going")) {
		j->keep_going = true;
		return 1;
	}
	return n ? n : csv_arg(csv, c, argc, argv);
}

/* With csv the rows are stdout's; what text there is goes to stderr. */
static int csv_start(bool csv, const char *cmd)
{
	if (!csv)
		return 0;
	if (opts.json) {
		usage_error("%s: csv or -j, not both", cmd);
		return -1;
	}
	print_init(stderr, false, false);
	return 0;
}

/* --- samples: one `ktgen -j run` each --------------------------------- */

static volatile sig_atomic_t ab_signal;

static void ab_on_signal(int sig)
{
	ab_signal = sig;
}

/* Split a variant into words: whitespace separates, quotes group. */
static int split_words(const char *s, char ***words, int *n)
{
	char *buf = malloc(strlen(s) + 1), *o;
	bool any;

	if (!buf)
		return -1;
	*words = NULL;
	*n = 0;
	while (*s) {
		char q = 0;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		o = buf;
		any = false;
		for (; *s && (q || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
			if (!q && (*s == '\'' || *s == '"')) {
				q = *s;
				any = true;
			} else if (q && *s == q) {
				q = 0;
			} else {
				*o++ = *s;
			}
		}
		if (q) {
			while (*n > 0)
				free((*words)[--*n]);
			free(*words);
			*words = NULL;
			free(buf);
			return -1;
		}
		*o = 0;
		(void)any;
		*words = realloc(*words, (*n + 1) * sizeof(char *));
		(*words)[(*n)++] = strdup(buf);
	}
	free(buf);
	return 0;
}

/*
 * What a job measured, from its first run's document: the test and its
 * shape, which two documents must share for a comparison of them to mean
 * anything, and where it ran, whose differences a diff shows (often the
 * point: a new kernel, driver or firmware).
 */
#define JOB_DEVICES	16

struct job {
	bool		known;
	char		test[16], tx_mode[16];
	uint64_t	size, flows, req, resp, gso;	/* 0: none */
	char		kernel[128], cpu_model[128], module[64], cli[64];
	struct {
		char	name[32], driver[64], driver_version[64], firmware[96];
	} dev[JOB_DEVICES];
	size_t		ndev;
};

static const struct {
	const char	*key;
	size_t		off;
} job_shape[] = {
	{ "size",	offsetof(struct job, size) },
	{ "flows",	offsetof(struct job, flows) },
	{ "req_size",	offsetof(struct job, req) },
	{ "resp_size",	offsetof(struct job, resp) },
	{ "gso",	offsetof(struct job, gso) },
};

static void job_str(char *dst, size_t len, const struct json *j)
{
	const char *s = json_string(j);

	snprintf(dst, len, "%s", s ? s : "");
}

/* From a run document, or from a job record (the same keys, and its
 * environment's under "environment").
 */
static void job_read(struct job *jb, const struct json *doc)
{
	const struct json *env = json_get(doc, "environment"), *devs;
	size_t i;

	memset(jb, 0, sizeof(*jb));
	job_str(jb->test, sizeof(jb->test), json_get(doc, "test"));
	if (!jb->test[0])
		return;
	jb->known = true;
	job_str(jb->tx_mode, sizeof(jb->tx_mode), json_get(doc, "tx_mode"));
	for (i = 0; i < ARRAY_SIZE(job_shape); i++)
		json_u64(json_get(doc, job_shape[i].key),
			 (uint64_t *)((char *)jb + job_shape[i].off));
	job_str(jb->kernel, sizeof(jb->kernel), json_get(env, "kernel"));
	job_str(jb->cpu_model, sizeof(jb->cpu_model), json_get(env, "cpu_model"));
	job_str(jb->cli, sizeof(jb->cli), json_get(env, "ktgen_cli"));
	job_str(jb->module, sizeof(jb->module), json_path(env, "module.version"));
	devs = json_get(env, "devices");
	for (i = 0; devs && devs->type == JSON_OBJECT && i < devs->len &&
	     jb->ndev < JOB_DEVICES; i++) {
		const struct json *d = &devs->items[i];

		snprintf(jb->dev[jb->ndev].name, sizeof(jb->dev[0].name), "%s", d->key);
		job_str(jb->dev[jb->ndev].driver, sizeof(jb->dev[0].driver),
			json_get(d, "driver"));
		job_str(jb->dev[jb->ndev].driver_version, sizeof(jb->dev[0].driver_version),
			json_get(d, "driver_version"));
		job_str(jb->dev[jb->ndev].firmware, sizeof(jb->dev[0].firmware),
			json_get(d, "firmware"));
		jb->ndev++;
	}
}

/* "job": what it measured and where, for diff (JSON only). */
static void print_job(const struct job *jb)
{
	size_t i;

	if (!jb->known)
		return;
	print_open_object("job");
	print_string(PRINT_JSON, "test", NULL, jb->test);
	if (jb->tx_mode[0])
		print_string(PRINT_JSON, "tx_mode", NULL, jb->tx_mode);
	for (i = 0; i < ARRAY_SIZE(job_shape); i++) {
		uint64_t v = *(const uint64_t *)((const char *)jb + job_shape[i].off);

		if (v)
			print_u64(PRINT_JSON, job_shape[i].key, NULL, v);
	}
	print_open_object("environment");
	print_string(PRINT_JSON, "kernel", NULL, jb->kernel);
	print_string(PRINT_JSON, "cpu_model", NULL, jb->cpu_model);
	print_string(PRINT_JSON, "ktgen_cli", NULL, jb->cli);
	if (jb->module[0]) {
		print_open_object("module");
		print_string(PRINT_JSON, "version", NULL, jb->module);
		print_close_object();
	}
	print_open_object("devices");
	for (i = 0; i < jb->ndev; i++) {
		print_open_object(jb->dev[i].name);
		if (jb->dev[i].driver[0])
			print_string(PRINT_JSON, "driver", NULL, jb->dev[i].driver);
		if (jb->dev[i].driver_version[0])
			print_string(PRINT_JSON, "driver_version", NULL,
				     jb->dev[i].driver_version);
		if (jb->dev[i].firmware[0])
			print_string(PRINT_JSON, "firmware", NULL, jb->dev[i].firmware);
		print_close_object();
	}
	print_close_object();
	print_close_object();
	print_close_object();
}

struct variant {
	const char	*label;		/* as given */
	char		**words;	/* run keywords and knobs */
	int		nwords;
	char		*pre, *post;	/* shell commands around each run */
	double		*x[MAX_METRICS];	/* samples by metric */
	size_t		n;
	const char	*name;		/* in messages: "a", "b"; else label */
	char		**warnings;	/* its runs', each once */
	size_t		nwarnings;
	struct job	job;		/* its first run's */
};

static int variant_parse(struct variant *v, const char *label, const char *s)
{
	char **w;
	int n, i, k = 0;

	memset(v, 0, sizeof(*v));
	v->label = label;
	if (split_words(s, &w, &n)) {
		usage_error("variant '%s': an unclosed quote", s);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((!strcmp(w[i], "pre") || !strcmp(w[i], "post")) && i + 1 < n) {
			char **cmd = !strcmp(w[i], "pre") ? &v->pre : &v->post;

			free(*cmd);
			*cmd = w[i + 1];
			free(w[i++]);
			continue;
		}
		w[k++] = w[i];
	}
	v->words = w;
	v->nwords = k;
	return 0;
}

static void variant_free(struct variant *v)
{
	size_t i;
	int k;

	for (k = 0; k < v->nwords; k++)
		free(v->words[k]);
	free(v->words);
	free(v->pre);
	free(v->post);
	for (i = 0; i < NMETRICS; i++)
		free(v->x[i]);
	for (i = 0; i < v->nwarnings; i++)
		free(v->warnings[i]);
	free(v->warnings);
}

/* Kinds of warning a variant keeps: more is noise. */
#define VARIANT_WARNINGS	64

/* Two warnings of one kind: the same words, whatever their numbers. */
static bool warning_same(const char *a, const char *b)
{
	for (;;) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			a += strspn(a, "0123456789.");
			b += strspn(b, "0123456789.");
			continue;
		}
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * The warnings of a run of @v (its own and its environment's) of a kind
 * no run of @v had before: to stderr now, once, and kept for the job's
 * document, where a comparison that could not show a difference says why.
 */
static void variant_warnings(struct variant *v, const struct json *doc)
{
	static const char * const paths[] = { "warnings", "environment.preflight.warnings" };
	size_t p, i, k;

	for (p = 0; p < ARRAY_SIZE(paths); p++) {
		const struct json *list = json_path(doc, paths[p]);

		for (i = 0; list && list->type == JSON_ARRAY && i < list->len; i++) {
			const char *w = json_string(json_index(list, i));
			char **more;

			if (!w)
				continue;
			for (k = 0; k < v->nwarnings && !warning_same(v->warnings[k], w); k++)
				;
			if (k < v->nwarnings || v->nwarnings >= VARIANT_WARNINGS)
				continue;
			more = realloc(v->warnings, (v->nwarnings + 1) * sizeof(char *));
			if (!more)
				continue;
			v->warnings = more;
			more[v->nwarnings] = strdup(w);
			if (!more[v->nwarnings])
				continue;
			v->nwarnings++;
			if (v->name || *v->label)
				fprintf(stderr, "ktgen: variant %s: warning: %s\n",
					v->name ? v->name : v->label, w);
			else
				fprintf(stderr, "ktgen: warning: %s\n", w);
		}
	}
}

/* "warnings": what @v's runs warned of; text under the variant. */
static void print_warnings(const struct variant *v)
{
	size_t i;

	if (!v->nwarnings)
		return;
	print_open_array("warnings");
	for (i = 0; i < v->nwarnings; i++) {
		print_string(PRINT_JSON, NULL, NULL, v->warnings[i]);
		print_text("  warning: %s\n", v->warnings[i]);
	}
	print_close_array();
}

/* A pre or post command; its output goes to stderr, so that stdout
 * keeps only ktgen's document.
 */
static int shell(const char *what, const char *cmd)
{
	char *line;
	int st;

	if (asprintf(&line, "exec 1>&2; %s", cmd) < 0)
		return -1;
	st = system(line);
	free(line);

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "ktgen: %s command '%s' failed (status %d)\n", what, cmd,
			st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		return -1;
	}
	return 0;
}

/* `ktgen -j run BASE... VARIANT...` of this binary: its document. */
static struct json *run_once(char **base, int nbase, const struct variant *v)
{
	char **argv = calloc(nbase + v->nwords + 3, sizeof(char *));
	size_t len = 0, cap = 65536;
	char *out = malloc(cap), err[128];
	struct json *doc = NULL;
	int fds[2], st, i, k = 0;
	bool signalled = false;
	ssize_t r;
	pid_t pid;

	if (!argv || !out || pipe(fds))
		goto out;
	argv[k++] = "ktgen";
	argv[k++] = "-j";
	for (i = 0; i < nbase; i++)
		argv[k++] = base[i];
	for (i = 0; i < v->nwords; i++)
		argv[k++] = v->words[i];
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (r = read(fds[0], out + len, cap - len - 1)) != 0) {
		if (r < 0) {
			/* A signal to us is one to the run (Ctrl-C reaches the
			 * whole process group, kill(1) only us): it stops and
			 * puts its knobs back.
			 */
			if (errno == EINTR && ab_signal && !signalled) {
				kill(pid, ab_signal);
				signalled = true;
			}
			if (errno == EINTR)
				continue;
			break;
		}
		len += r;
		if (cap - len < 4096) {
			char *bigger = realloc(out, cap * 2);

			if (!bigger)
				break;
			out = bigger;
			cap *= 2;
		}
	}
	close(fds[0]);
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	out[len] = 0;
	if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "ktgen: run of variant %s failed (status %d)\n", v->label,
			pid < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		goto out;
	}
	doc = json_parse(out, len, err, sizeof(err));
	if (!doc)
		fprintf(stderr, "ktgen: run of variant %s: its document: %s\n", v->label, err);
out:
	free(argv);
	free(out);
	return doc;
}

/* The run @v's samples will be, checked by run's parser before the job's
 * first run: a usage error names the variant.
 */
static int variant_check(const char *name, char **base, int nbase, const struct variant *v)
{
	char **argv = calloc(nbase + v->nwords, sizeof(char *)), what[96];
	int i, k = 0, ret;

	if (!argv)
		return -1;
	for (i = 1; i < nbase; i++)	/* base[0] is "run" */
		argv[k++] = base[i];
	for (i = 0; i < v->nwords; i++)
		argv[k++] = v->words[i];
	snprintf(what, sizeof(what), "variant %s", name);
	ret = run_words_check(what, k, argv);
	free(argv);
	return ret;
}

/* One sample of @v into its arrays; -1 on an infrastructure failure. */
static int sample(char **base, int nbase, struct variant *v, const struct judge *j)
{
	const char *state;
	struct json *doc;
	size_t i;
	int err = 0;

	if (v->pre && shell("pre", v->pre))
		return -1;
	doc = run_once(base, nbase, v);
	if (v->post && shell("post", v->post))
		err = -1;
	if (!doc)
		return -1;
	/* A run stopped by a signal is no sample. */
	state = json_string(json_get(doc, "state"));
	if (ab_signal || !state || strcmp(state, "done")) {
		if (!ab_signal)
			fprintf(stderr, "ktgen: run of variant %s ended %s\n", v->label,
				state ? state : "without a state");
		json_free(doc);
		return -1;
	}
	variant_warnings(v, doc);
	if (!v->job.known)
		job_read(&v->job, doc);
	for (i = 0; i < NMETRICS; i++) {
		double *x = realloc(v->x[i], (v->n + 1) * sizeof(double));

		if (!x) {
			err = -1;
			break;
		}
		v->x[i] = x;
		x[v->n] = metric_value(&metrics[i], doc);
	}
	for (i = 0; !err && i < j->nm; i++) {
		double x = v->x[j->m[i] - metrics][v->n];

		if (!(x > 0) || !isfinite(x)) {
			fprintf(stderr, "ktgen: run of variant %s: no positive %s in its result\n",
				v->label, j->m[i]->name);
			err = -1;
		}
	}
	json_free(doc);
	if (!err)
		v->n++;
	return err;
}

/* What a job was asked, where and when it ran: its document's provenance
 * (JSON only; what it measured with and on is each variant's job record).
 */
static void print_provenance(const char *cmd, int argc, char **argv, time_t start)
{
	char host[256] = "", when[32];
	time_t end = time(NULL);
	struct tm tm;
	int i;

	print_open_array("command");
	print_string(PRINT_JSON, NULL, NULL, "ktgen");
	print_string(PRINT_JSON, NULL, NULL, cmd);
	for (i = 0; i < argc; i++)
		print_string(PRINT_JSON, NULL, NULL, argv[i]);
	print_close_array();
	if (!gethostname(host, sizeof(host) - 1))
		print_string(PRINT_JSON, "hostname", NULL, host);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&start, &tm));
	print_string(PRINT_JSON, "start_time", NULL, when);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&end, &tm));
	print_string(PRINT_JSON, "end_time", NULL, when);
}

/* A sample, once more when the run failed (a link that flapped, a peer's
 * ssh that dropped): -1 when it failed twice, or on a signal.
 */
static int sample_retry(char **base, int nbase, struct variant *v, const struct judge *j)
{
	if (!sample(base, nbase, v, j))
		return 0;
	if (ab_signal)
		return -1;
	fprintf(stderr, "ktgen: run of variant %s failed: once more\n",
		v->name ? v->name : *v->label ? v->label : "run");
	return sample(base, nbase, v, j);
}

/* "; 2m10s left": the rest at the pace of what is done. */
static const char *time_left(char *buf, size_t len, const struct timespec *t0, long done,
			     long total)
{
	struct timespec now;
	double left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (now.tv_sec - t0->tv_sec + (now.tv_nsec - t0->tv_nsec) / 1e9) / done *
	       (total - done);
	if (left >= 3600)
		snprintf(buf, len, "; %ldh%02ldm left", (long)left / 3600, (long)left % 3600 / 60);
	else
		snprintf(buf, len, "; %ldm%02lds left", (long)left / 60, (long)left % 60);
	return buf;
}

/* The primary metric of @v's last sample, as text. */
static const char *last_value(char *buf, size_t len, const struct variant *v,
			      const struct metric *m)
{
	double x = v->n ? v->x[m - metrics][v->n - 1] : NAN;

	snprintf(buf, len, "%.6g%s%s", x / m->scale, *m->unit ? " " : "", m->unit);
	return buf;
}

static const char *test_of(char **base, int nbase)
{
	return nbase >= 2 ? base[1] : "";
}

/* --- ab ------------------------------------------------------------------ */

/* "bisect" among the job's own words (before "--", after @from). */
static bool wants_bisect(int argc, char **argv, int from)
{
	int i;

	for (i = from; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "bisect"))
			return true;
	return false;
}

static void ab_usage(FILE *f)
{
	fputs("Usage: ktgen ab repeat N a VARIANT b VARIANT [metric M] [gate M,...]\n"
	      "                [show M,...] [alpha A] [threshold PCT] [bisect] [keep-going]\n"
	      "                [csv [columns M,...]]\n"
	      "                -- run TEST ...\n"
	      "A and B run interleaved in pairs (A B, B A, ...) N times each; each pair's\n"
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
	      "  other_cycles_per_byte, retrans, lost, verify_errors, timeouts, or any\n"
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

/* "metrics": every metric the runs had, with its samples; a summary of
 * the judged ones.
 */
static void print_metrics(const struct variant *v, const struct judge *j)
{
	size_t i;

	print_open_object("metrics");
	for (i = 0; i < NMETRICS; i++) {
		const struct metric *m = &metrics[i];
		bool judged = false;
		size_t k;

		for (k = 0; k < v->n && !isfinite(v->x[i][k]); k++)
			;
		if (k == v->n)
			continue;
		for (k = 0; k < j->nm; k++)
			judged |= j->m[k] == m;
		for (k = 0; k < j->nshow; k++)
			judged |= j->show[k] == m;
		judged |= j->show_all;
		print_open_object(m->name);
		print_bool(PRINT_JSON, "higher_is_better", NULL, m->higher_better);
		print_samples(v->x[i], v->n);
		if (judged) {
			print_text("  %s:", m->name);
			print_summary(m, v->x[i], v->n);
		}
		print_close_object();
	}
	print_close_object();
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

static int ab_main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = ab_on_signal }, old_int, old_term;
	struct variant va, vb;
	enum verdict v[MAX_GATES + 1];
	struct ab_args a;
	struct timespec t0;
	time_t started = time(NULL);
	int ret = EXIT_OK;
	long i, failed = 0;

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
		variant_free(&va);
		variant_free(&vb);
		return EXIT_USAGE;
	}
	/* Ctrl-C stops the run in progress (it puts its knobs back) and
	 * the job after it.
	 */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < a.n && ret == EXIT_OK && !ab_signal; i++) {
		struct variant *first = i % 2 ? &vb : &va, *second = i % 2 ? &va : &vb;
		int e1, e2 = -1;
		char ta[64], tb[64], left[48];

		fprintf(stderr, "ktgen: ab pair %ld/%ld: %s then %s\n", i + 1, a.n,
			i % 2 ? "b" : "a", i % 2 ? "a" : "b");
		e1 = sample_retry(a.base, a.nbase, first, &a.j);
		if (!e1 && !ab_signal)
			e2 = sample_retry(a.base, a.nbase, second, &a.j);
		if (e1 || e2) {
			if (ab_signal || !a.j.keep_going) {
				ret = EXIT_INFRA;
				continue;
			}
			/* keep-going: the pair is left out, half of it too */
			if (!e1)
				first->n--;
			failed++;
			fprintf(stderr, "ktgen: ab pair %ld/%ld failed twice: left out\n", i + 1, a.n);
			continue;
		}
		fprintf(stderr, "ktgen: ab pair %ld/%ld: a %s, b %s%s\n", i + 1, a.n,
			last_value(ta, sizeof(ta), &va, a.j.m[0]),
			last_value(tb, sizeof(tb), &vb, a.j.m[0]),
			i + 1 < a.n ? time_left(left, sizeof(left), &t0, i + 1, a.n) : "");
		if (a.csv) {
			printf("%ld,%s", i + 1, first == &va ? "a" : "b");
			csv_values(first->x, first->n - 1, &a.cols);
			printf("%ld,%s", i + 1, second == &va ? "a" : "b");
			csv_values(second->x, second->n - 1, &a.cols);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	/* Pairs only: a half pair is dropped. */
	va.n = vb.n = va.n < vb.n ? va.n : vb.n;

	print_open_object(NULL);
	print_provenance("ab", argc, argv, started);
	print_string(PRINT_ANY, "test", "ab: %s,", test_of(a.base, a.nbase));
	print_u64(PRINT_ANY, "pairs", " %llu pairs", va.n);
	print_u64(PRINT_JSON, "repeat", NULL, a.n);
	if (a.j.keep_going)
		print_u64(PRINT_ANY, "failed_pairs", " (%llu failed, left out)", failed);
	print_string(PRINT_ANY, "metric", " (A B, B A, ...), metric %s", a.j.m[0]->name);
	print_text(" (%s is better)", a.j.m[0]->higher_better ? "higher" : "lower");
	print_double(PRINT_ANY, "alpha", ", alpha %.3g", a.j.alpha);
	print_double(PRINT_ANY, "threshold_pct", ", threshold %.3g%%\n", a.j.threshold * 100);
	print_variant("a", &va, &a.j);
	print_variant("b", &vb, &a.j);
	if (va.n >= 2) {
		ab_judge(&a.j, &va, &vb, v);
		if (ret == EXIT_OK)
			ret = judge_exit(v, a.j.nm);
	} else {
		print_text("too few pairs for a verdict\n");
		ret = EXIT_INFRA;
	}
	print_u64(PRINT_ANY, "exit", "exit %llu\n", ret);
	print_close_object();
	variant_free(&va);
	variant_free(&vb);
	return ret;
}

/* --- run ... repeat N ---------------------------------------------------- */

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

/* --- diff ------------------------------------------------------------------ */

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

/* Whether @a and @b measured the same thing; what differs into @why. */
static bool job_same(const struct job *a, const struct job *b, char *why, size_t len)
{
	size_t i, off = 0;

	why[0] = 0;
#define JOB_DIFF(...) \
	(off += snprintf(why + off, off < len ? len - off : 0, "%s", off ? ", " : ""), \
	 off += snprintf(why + off, off < len ? len - off : 0, __VA_ARGS__))
	if (strcmp(a->test, b->test))
		JOB_DIFF("test %s vs %s", a->test, b->test);
	if (strcmp(a->tx_mode, b->tx_mode))
		JOB_DIFF("tx %s vs %s", a->tx_mode[0] ? a->tx_mode : "-",
			 b->tx_mode[0] ? b->tx_mode : "-");
	for (i = 0; i < ARRAY_SIZE(job_shape); i++) {
		uint64_t x = *(const uint64_t *)((const char *)a + job_shape[i].off);
		uint64_t y = *(const uint64_t *)((const char *)b + job_shape[i].off);

		if (x != y)
			JOB_DIFF("%s %llu vs %llu", job_shape[i].key, (unsigned long long)x,
				 (unsigned long long)y);
	}
#undef JOB_DIFF
	return !off;
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

/* BASE with NEW's samples added, as a baseline document. */
static int diff_save(const char *path, const struct json *base, const struct json *new,
		     const char *var)
{
	char tmp[4096];
	double sessions = 1, s2 = 1;
	struct job jb;
	FILE *f;
	size_t i;
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

static int diff_main(int argc, char **argv)
{
	const char *metric = NULL, *gates = NULL, *var = "b";
	struct stats_unpaired r[MAX_GATES + 1];
	double p[MAX_GATES + 1], adj[MAX_GATES + 1];
	enum verdict v[MAX_GATES + 1];
	struct json *base = NULL, *new = NULL;
	struct judge j = { .alpha = 0.05, .threshold = 0.05 };
	int i, n, ret = EXIT_INFRA;
	bool save = false, force = false;
	time_t started = time(NULL);
	struct job jb, jn;
	char why[256];
	size_t k;

	if (argc < 1 || is_help(argv[0])) {
		diff_usage(argc ? stdout : stderr);
		return argc ? EXIT_OK : EXIT_USAGE;
	}
	if (argc < 2) {
		usage_error("diff: BASE.json and NEW.json");
		return EXIT_USAGE;
	}
	for (i = 2; i < argc; i += n) {
		n = judge_arg(&j, argc - i, argv + i, &metric, &gates);
		if (n < 0)
			return EXIT_USAGE;
		if (n)
			continue;
		n = 1;
		if (!strcmp(argv[i], "save")) {
			save = true;
		} else if (!strcmp(argv[i], "force")) {
			force = true;
		} else if (!strcmp(argv[i], "variant") && i + 1 < argc &&
			   (!strcmp(argv[i + 1], "a") || !strcmp(argv[i + 1], "b"))) {
			var = argv[i + 1];
			n = 2;
		} else {
			usage_error("diff: unknown keyword '%s'", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (judge_finish(&j, metric ? metric : "tx_bps", gates))
		return EXIT_USAGE;
	base = read_doc(argv[0]);
	new = base ? read_doc(argv[1]) : NULL;
	if (!new)
		goto out;
	/* Samples of different tests compare nothing: a 64-byte UDP stream
	 * is no regression of a TCP one.
	 */
	doc_job(base, "a", &jb);
	doc_job(new, var, &jn);
	if (!jb.known || !jn.known) {
		if (!jb.known && !jn.known)
			fprintf(stderr, "ktgen: diff: neither document has a job record (an older "
				"ktgen's): whether both measured the same test is not checked\n");
		else
			fprintf(stderr, "ktgen: diff: %s has no job record (an older ktgen's): "
				"whether both measured the same test is not checked\n",
				jb.known ? argv[1] : argv[0]);
	} else if (!job_same(&jb, &jn, why, sizeof(why))) {
		if (!force) {
			usage_error("diff: %s and %s measured different things: %s "
				    "(force compares them anyway)", argv[0], argv[1], why);
			ret = EXIT_USAGE;
			goto out;
		}
		fprintf(stderr, "ktgen: diff: forced, though they measured different things: %s\n",
			why);
	}
	if (!metric) {
		const struct json *t = json_get(new, "metric");

		if (!t && json_get(new, var))
			t = json_get(json_get(new, var), "metric");
		if (t && json_string(t) && metric_find(json_string(t)))
			j.m[0] = metric_find(json_string(t));
	}
	for (k = 0; k < j.nm; k++) {
		double *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		int err;

		int ea = doc_samples(base, "a", j.m[k], &a, &na, argv[0]);
		int eb = ea == -EINVAL ? 0 : doc_samples(new, var, j.m[k], &b, &nb, argv[1]);

		err = ea || eb || stats_unpaired(a, na, b, nb, j.alpha / j.nm, 1, &r[k]);
		free(a);
		free(b);
		if (ea == -EINVAL || eb == -EINVAL)
			goto out;
		if (err) {
			fprintf(stderr, "ktgen: diff: %s: two samples of 2 or more positive values needed\n",
				j.m[k]->name);
			goto out;
		}
		p[k] = r[k].p_t;
	}
	if (stats_holm(p, j.nm, adj))
		goto out;
	print_open_object(NULL);
	print_provenance("diff", argc, argv, started);
	print_string(PRINT_ANY, "base", "diff: %s", argv[0]);
	print_string(PRINT_ANY, "new", " -> %s", argv[1]);
	print_double(PRINT_ANY, "alpha", ", alpha %.3g", j.alpha);
	print_double(PRINT_ANY, "threshold_pct", ", threshold %.3g%%\n", j.threshold * 100);
	if (jb.known && jn.known)
		print_env_diff(&jb, &jn);
	print_open_array("verdicts");
	for (k = 0; k < j.nm; k++) {
		v[k] = judge_one(&j, j.m[k], r[k].ratio, adj[k], r[k].mde);
		print_open_object(NULL);
		print_string(PRINT_ANY, "metric", "new/base %s:", j.m[k]->name);
		print_bool(PRINT_JSON, "primary", NULL, k == 0);
		print_u64(PRINT_ANY, "n_base", " n %llu", r[k].na);
		print_u64(PRINT_ANY, "n_new", "/%llu", r[k].nb);
		print_double(PRINT_ANY, "ratio", " ratio %.4f", r[k].ratio);
		print_double(PRINT_ANY, "change_pct", " (%+.2f%%)", (r[k].ratio - 1) * 100);
		print_double(PRINT_JSON, "ci_lo", NULL, r[k].ci_lo);
		print_double(PRINT_JSON, "ci_hi", NULL, r[k].ci_hi);
		print_text(" ci%.4g [%.4f, %.4f]", (1 - j.alpha / j.nm) * 100, r[k].ci_lo,
			   r[k].ci_hi);
		print_double(PRINT_ANY, "p_t", " welch p=%.3g", r[k].p_t);
		print_double(PRINT_ANY, "p_holm", " holm p=%.3g", adj[k]);
		print_double(PRINT_ANY, "p_mannwhitney", " mann-whitney p=%.3g", r[k].p_u);
		print_double(PRINT_ANY, "mde_pct", " MDE %.2f%%", r[k].mde * 100);
		print_string(PRINT_ANY, "verdict", ": %s\n", verdict_names[v[k]]);
		print_close_object();
	}
	print_close_array();
	ret = judge_exit(v, j.nm);
	print_u64(PRINT_ANY, "exit", "exit %llu\n", ret);
	print_close_object();
	if (save && ret != EXIT_FAIL && diff_save(argv[0], base, new, var))
		ret = EXIT_INFRA;
	base = new = (json_free(base), json_free(new), NULL);
	return ret;
out:
	json_free(base);
	json_free(new);
	return ret;
}

/* --- sweep ---------------------------------------------------------------- */

static void sweep_usage(FILE *f)
{
	fputs("Usage: ktgen sweep {sizes LIST | over KW[,KW...] LIST} [repeat N] [metric M]\n"
	      "                   [stat median|mean] [alpha A] [threshold PCT] [keep-going]\n"
	      "                   [csv [columns M,...]] [variant NAME VARIANT]... -- run TEST ...\n"
	      "Every point with every variant, repeat N times (default 1), the variants'\n"
	      "order reversed on every other repetition. sizes LIST: the run's size, e.g.\n"
	      "64,1K,64K; over KW,... LIST: any run keywords, a point's values joined by\n"
	      "':' and points by ',', e.g. over req,resp 1400:1,14000:14000 or over\n"
	      "flows 1,16 (a CPU list there: ranges, 0-3). A table of the metric by point\n"
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
		if (n < 0)
			return -1;
		if (n)
			continue;
		if (i + 1 >= argc) {
			usage_error("sweep: '%s' needs a value", argv[i]);
			return -1;
		}
		n = 2;
		if (!strcmp(argv[i], "sizes")) {
			if (sweep_sizes(a, argv[i + 1]))
				return -1;
		} else if (!strcmp(argv[i], "over") && i + 2 < argc) {
			if (sweep_over(a, argv[i + 1], argv[i + 2]))
				return -1;
			n = 3;
		} else if (!strcmp(argv[i], "stat") &&
			   (!strcmp(argv[i + 1], "median") || !strcmp(argv[i + 1], "mean"))) {
			a->mean = !strcmp(argv[i + 1], "mean");
		} else if (!strcmp(argv[i], "repeat")) {
			char *end;

			a->n = strtol(argv[i + 1], &end, 10);
			if (*end || a->n < 1 || a->n > 1000) {
				usage_error("sweep: repeat: 1 to 1000, not '%s'", argv[i + 1]);
				return -1;
			}
		} else if (!strcmp(argv[i], "variant") && i + 2 < argc &&
			   strcmp(argv[i + 2], "--")) {
			if (a->nvar == SWEEP_MAX) {
				usage_error("sweep: at most %d variants", SWEEP_MAX);
				return -1;
			}
			a->names[a->nvar] = argv[i + 1];
			a->words[a->nvar++] = argv[i + 2];
			n = 3;
		} else {
			usage_error("sweep: unknown keyword '%s'", argv[i]);
			return -1;
		}
	}
	if (i >= argc || i + 2 >= argc || strcmp(argv[i + 1], "run")) {
		usage_error("sweep: the run after '--': -- run TEST ...");
		return -1;
	}
	a->base = argv + i + 1;
	a->nbase = argc - i - 1;
	if (!a->npts) {
		usage_error("sweep: sizes LIST or over KW LIST is needed");
		return -1;
	}
	for (i = 0; i < a->nbase; i++) {
		size_t k;

		for (k = 0; k < a->nkws; k++) {
			if (!strcmp(a->base[i], a->kws[k])) {
				usage_error("sweep: %s comes from the sweep, not from the run", a->kws[k]);
				return -1;
			}
		}
	}
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


static void sweep_print(const struct sweep_args *a, struct variant *cells)
{
	const struct metric *m = a->j.m[0];
	size_t mi = m - metrics, si, vi, k, off = 0;
	char head[160];

	print_open_object(NULL);
	print_provenance("sweep", a->argc, a->argv, a->started);
	print_string(PRINT_ANY, "test", "sweep: %s,", test_of(a->base, a->nbase));
	print_string(PRINT_ANY, "metric", " metric %s", m->name);
	print_string(PRINT_JSON, "stat", NULL, a->mean ? "mean" : "median");
	print_u64(PRINT_ANY, "repeat", a->mean ? " (mean+-stddev of %llu," : " (median of %llu,",
		  a->n);
	if (a->j.keep_going)
		print_u64(PRINT_ANY, "failed_runs", " %llu failed and left out,", a->failed);
	print_text(" %s; ratio to %s, paired verdict)\n", m->unit, a->names[0]);
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
	print_open_array("cells");
	for (si = 0; si < a->npts; si++) {
		print_text("%12s", a->pts[si].label);
		for (vi = 0; vi < a->nvar; vi++) {
			struct variant *c = &cells[si * a->nvar + vi], *c0 = &cells[si * a->nvar];
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
				continue;
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
		print_text("\n");
	}
	print_close_array();
	print_close_object();
}

int do_sweep(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = ab_on_signal }, old_int, old_term;
	struct variant *cells;
	struct sweep_args a;
	int ret = EXIT_OK;
	size_t si, vi, k;
	long rep, done = 0, total;
	char val[64], left[48];
	struct timespec t0;

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
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	total = (long)(a.npts * a.nvar) * a.n;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (si = 0; si < a.npts && ret == EXIT_OK; si++) {
		for (rep = 0; rep < a.n && ret == EXIT_OK && !ab_signal; rep++) {
			for (k = 0; k < a.nvar && ret == EXIT_OK && !ab_signal; k++) {
				struct variant *c;

				vi = rep % 2 ? a.nvar - 1 - k : k;
				c = &cells[si * a.nvar + vi];
				if (sample_retry(a.base, a.nbase, c, &a.j)) {
					if (ab_signal || !a.j.keep_going) {
						ret = EXIT_INFRA;
						continue;
					}
					a.failed++;
					fprintf(stderr, "ktgen: sweep %s, %s, %ld/%ld failed twice: left out\n",
						a.pts[si].words, a.names[vi], rep + 1, a.n);
					continue;
				}
				done++;
				fprintf(stderr, "ktgen: sweep %s, %s, %ld/%ld: %s %s%s\n",
					a.pts[si].words, a.names[vi], rep + 1, a.n, a.j.m[0]->name,
					last_value(val, sizeof(val), c, a.j.m[0]),
					done < total ? time_left(left, sizeof(left), &t0, done, total) : "");
				if (a.csv) {
					printf("%s,%s,%ld", a.pts[si].label, c->label, rep + 1);
					csv_values(c->x, c->n - 1, &a.cols);
				}
			}
		}
		if (ab_signal)
			ret = EXIT_INFRA;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
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

int do_ab(int argc, char **argv)
{
	int ret = ab_main(argc, argv);

	return wants_bisect(argc, argv, 0) ? bisect_exit(ret) : ret;
}

int do_diff(int argc, char **argv)
{
	int ret = diff_main(argc, argv);

	return wants_bisect(argc, argv, 2) ? bisect_exit(ret) : ret;
}
