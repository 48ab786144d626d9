// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics and verdicts: a metric is a figure of a run document (a
 * built-in name, a percentile the run asked for, or any value by its path
 * and direction); two sets of samples of it are judged the same, changed
 * below the threshold, improved, regressed or inconclusive (what the test
 * could not have seen), with the exit code a CI job gates on.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ktgen.h"
#include "pmu.h"
#include "print.h"
#include "stats.h"
#include "job.h"

struct metric metrics[MAX_METRICS] = {
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
	/* probe-rx: what a receive knob did, to show rather than to judge */
	{ "rx_build_pct", { "rx_path/build_pct" },	true,	"%", 1 },
	{ "rx_alloc_pct", { "rx_path/alloc_pct" },	true,	"%", 1 },
	{ "rx_frags_pct", { "rx_path/frags_pct" },	true,	"%", 1 },
	{ "rx_gro_merged", { "rx_path/gro_merged" },	true,	"", 1 },
};

/* The built-in ones; then those a command line named, in the order named. */
#define NBUILTIN	23
size_t nmetrics = NBUILTIN;
static char metric_names[MAX_METRICS][METRIC_NAME];
static char metric_paths[MAX_METRICS][METRIC_NAME];

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
 * percentile, PMU event (run_EVENT_per_kb, other_EVENT_per_msg: run
 * events) or PATH:higher|lower one. NULL for anything else.
 */
const struct metric *metric_find(const char *name)
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
	} else if (pmu_metric_path(name, metric_paths[nmetrics], METRIC_NAME)) {
		m->paths[0] = metric_paths[nmetrics];
		m->unit = strstr(name, "_per_kb") ? "/KB" : "/msg";
		m->scale = 1;
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
double metric_value(const struct metric *m, const struct json *doc)
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

/* Why @m has no value in a run document, where the document says: a PMU
 * event absent on the host ("instructions absent (ENOENT)") or not asked
 * for. NULL when it does not say.
 */
const char *metric_why(const struct metric *m, const struct json *doc, char *buf, size_t len)
{
	char path[METRIC_NAME], *end, *save = NULL;
	const struct json *ev;
	const char *err;

	if (!m->paths[0] || strncmp(m->paths[0], "pmu/", 4))
		return NULL;
	if (!json_get(doc, "pmu"))
		return "the run counted no PMU events (run ... events LIST)";
	snprintf(path, sizeof(path), "%s", m->paths[0]);
	end = strrchr(path, '/');
	if (end)
		*end = '\0';
	ev = doc;
	for (end = strtok_r(path, "/", &save); end && ev; end = strtok_r(NULL, "/", &save))
		ev = json_get(ev, end);
	err = ev ? json_string(json_get(ev, "error")) : NULL;
	if (!err)
		return NULL;
	snprintf(buf, len, "the event is absent: %s", err);
	return buf;
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
const char *metric_default(const char *test)
{
	if (!strcmp(test, "udp_stream"))
		return "rx_bps";
	if (!strcmp(test, "tcp_stream"))
		return "tx_bps";
	return "p99";
}

/* The smallest of @n samples; NAN when one is missing. */
static double samples_min(const double *x, size_t n)
{
	double min = INFINITY;
	size_t i;

	for (i = 0; i < n; i++)
		min = isnan(x[i]) || isnan(min) ? NAN : fmin(min, x[i]);
	return n ? min : NAN;
}

/*
 * probe-rx in every run of both variants: when both built at least 99 %
 * of their skbs the same way in every run, what was compared did not
 * change the receive path, whatever the verdict: a warning into @buf, as
 * a run's tx-nocache-copy one. NULL otherwise.
 */
const char *rx_path_same(const struct variant *a, const struct variant *b, char *buf,
			 size_t len)
{
	static const struct {
		const char	*metric;
		const char	*way;
	} w[] = {
		{ "rx_build_pct", "build_skb" },
		{ "rx_alloc_pct", "alloc+copy (netdev/napi_alloc_skb)" },
		{ "rx_frags_pct", "page frags (napi_get_frags)" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		size_t mi = metric_find(w[i].metric) - metrics;
		double ma = samples_min(a->x[mi], a->n), mb = samples_min(b->x[mi], b->n);

		if (ma >= 99 && mb >= 99) {
			snprintf(buf, len, "rx path unchanged: both variants built at least 99 %% of their skbs with %s in every run (a %.1f %%, b %.1f %%)",
				 w[i].way, ma, mb);
			return buf;
		}
	}
	return NULL;
}

/* --- the judgement ------------------------------------------------------ */

const char * const verdict_names[] = {
	[V_SAME]	= "no change",
	[V_SMALL]	= "change below threshold",
	[V_IMPROVED]	= "improvement",
	[V_REGRESSED]	= "regression",
	[V_INCONCLUSIVE] = "inconclusive",
};

/* @ratio of B to A (new to base), its Holm-adjusted @p and the test's
 * minimum detectable effect: the verdict.
 */
enum verdict judge_one(const struct judge *j, const struct metric *m,
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
int judge_exit(const enum verdict *v, size_t n)
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
int parse_metric_list(const char *what, const char *list, const struct metric **m,
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
int judge_arg(struct judge *j, int argc, char **argv, const char **metric,
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
			usage_error("metric: a name (tx_bps, rx_bps, tx_pps, rx_pps, tps, pN, mean_ns, run_us_per_kb, other_us_per_kb, peer_us_per_kb, run_cycles_per_byte, other_cycles_per_byte, retrans, lost, verify_errors, timeouts, rx_build_pct, rx_alloc_pct, rx_frags_pct, rx_gro_merged, run_EVENT_per_kb, run_EVENT_per_msg, other_EVENT_per_kb, other_EVENT_per_msg) or PATH:higher|lower; not '%s'",
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

int judge_finish(struct judge *j, const char *metric, const char *gates)
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

void print_summary(const struct metric *m, const double *x, size_t n)
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

void print_samples(const double *x, size_t n)
{
	size_t i;

	print_open_array("samples");
	for (i = 0; i < n; i++)
		print_double(PRINT_JSON, NULL, NULL, x[i]);
	print_close_array();
}

/* "bisect" among the job's own words (before "--", after @from). */
bool wants_bisect(int argc, char **argv, int from)
{
	int i;

	for (i = from; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "bisect"))
			return true;
	return false;
}
