/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs of repeated runs (ab, repeat, sweep, diff): what they share.
 * verdict.c: metrics (a figure of a run document) and the judgement of two
 * sets of samples; job.c: CSV rows, variants and their samples (one
 * `ktgen -j run` each), what a job measured and where.
 */
#ifndef KTGEN_JOB_H
#define KTGEN_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "json.h"

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

struct judge {
	double		alpha;
	double		threshold;	/* relative, 0.05 = 5 % */
	const struct metric *m[MAX_GATES + 1];	/* [0] primary */
	size_t		nm;
	const struct metric *show[MAX_GATES];	/* summarized, not judged */
	size_t		nshow;
	bool		show_all;	/* repeat: every metric the runs had */
	bool		keep_going;	/* jobs: a run that failed twice is left out */
	bool		seeded;		/* jobs: seed given (or drawn) */
	uint64_t	seed;		/* jobs: the runs' random order */
	bool		bisect;
};

enum verdict {
	V_SAME,			/* no difference, and one would have been seen */
	V_SMALL,		/* a real difference below the threshold */
	V_IMPROVED,
	V_REGRESSED,
	V_INCONCLUSIVE,		/* nothing seen, but the test could not see it */
};

/* The metrics of a CSV's columns; none chosen: all of them. */
struct columns {
	const struct metric	*m[MAX_METRICS];
	size_t			n;
};

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

#define NMETRICS	nmetrics

extern struct metric metrics[MAX_METRICS];
extern size_t nmetrics;
extern const char * const verdict_names[];
extern volatile sig_atomic_t ab_signal;

/* verdict.c */
const struct metric *metric_find(const char *name);
double metric_value(const struct metric *m, const struct json *doc);
const char *metric_why(const struct metric *m, const struct json *doc, char *buf, size_t len);
const char *rx_path_same(const struct variant *a, const struct variant *b, char *buf,
			 size_t len);
const char *metric_default(const char *test);
enum verdict judge_one(const struct judge *j, const struct metric *m,
			      double ratio, double p, double mde);
int judge_exit(const enum verdict *v, size_t n);
int parse_metric_list(const char *what, const char *list, const struct metric **m,
			     size_t *n, size_t max);
int judge_arg(struct judge *j, int argc, char **argv, const char **metric,
		     const char **gates);
int judge_finish(struct judge *j, const char *metric, const char *gates);
void print_summary(const struct metric *m, const double *x, size_t n);
void print_samples(const double *x, size_t n);
bool wants_bisect(int argc, char **argv, int from);

/* job.c */
void csv_header(const char *lead, const struct columns *c);
void csv_values(double * const *x, size_t k, const struct columns *c);
int csv_arg(bool *csv, struct columns *c, int argc, char **argv);
int parse_show(struct judge *j, const char *list);
int job_arg(struct judge *j, bool *csv, struct columns *c, int argc, char **argv,
		   const char **metric, const char **gates);
uint64_t job_seed(struct judge *j);
int csv_start(bool csv, const char *cmd);
/* A job's SIGINT and SIGTERM: they stop the run in progress (its knobs
 * put back) and the job after it (ab_signal); the old handlers back after.
 */
struct job_signals {
	struct sigaction	old_int, old_term;
};

void job_signals_catch(struct job_signals *s);
void job_signals_restore(const struct job_signals *s);
void job_read(struct job *jb, const struct json *doc);
bool job_same(const struct job *a, const struct job *b, char *why, size_t len);
void print_job(const struct job *jb);
int variant_parse(struct variant *v, const char *label, const char *s);
void variant_free(struct variant *v);
void print_warnings(const struct variant *v);
int shell(const char *what, const char *cmd);
int variant_check(const char *name, char **base, int nbase, const struct variant *v);
int sample(char **base, int nbase, struct variant *v, const struct judge *j);
void print_provenance(const char *cmd, int argc, char **argv, time_t start);
int sample_retry(char **base, int nbase, struct variant *v, const struct judge *j);
const char *time_left(char *buf, size_t len, const struct timespec *t0, long done,
			     long total);
const char *last_value(char *buf, size_t len, const struct variant *v,
			      const struct metric *m);
const char *test_of(char **base, int nbase);
void print_metrics(const struct variant *v, const struct judge *j);

#endif
