/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics for repeated runs and A/B verdicts (ktgen run ... repeat N,
 * ktgen ab, ktgen diff): distributions, summaries, paired and unpaired
 * comparisons. Pure functions: no I/O, no global state; libm only.
 *
 * Comparisons work on logarithms of the values, so that an effect is a
 * ratio (b/a) whichever way the metric is better, and the tests' p-values
 * are those of scipy 1.10.1 (the references of tests/unit/stats.py).
 */
#ifndef KTGEN_STATS_H
#define KTGEN_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bootstrap resamples of stats_paired() and stats_unpaired(). */
#define STATS_BOOTSTRAP		10000
/* The power the minimum detectable effects are computed for. */
#define STATS_POWER		0.8

/* Standard normal distribution function, and its inverse (Wichura's
 * AS241, about 1e-16 relative): -INFINITY at 0, INFINITY at 1, NAN
 * outside [0, 1].
 */
double stats_norm_cdf(double x);
double stats_norm_quantile(double p);

/* Student's t distribution function with @df > 0 degrees of freedom (not
 * necessarily integral, as Welch's are), through the regularized
 * incomplete beta function; and its inverse. Both about 1e-12 relative,
 * tails included; NAN for a bad @df or @p.
 */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

/* The @p quantile (0 <= p <= 1) of @n >= 1 ascending values, interpolated
 * linearly between order statistics (Hyndman-Fan type 7, numpy's default).
 */
double stats_percentile(const double *sorted, size_t n, double p);

/* Whether @n values support the @p quantile: only when at least one value
 * is expected beyond it on either side, n * min(p, 1 - p) >= 1. So P10
 * and P90 need 10 values, P1 and P99 100; the median needs 2. Below that
 * the quantile is the sample's extreme (or an interpolation towards it),
 * not an estimate of the distribution's quantile.
 */
bool stats_percentile_ok(size_t n, double p);

struct stats_summary {
	size_t	n;
	double	min, p10, median, mean, p90, max;
	double	stddev;		/* sample standard deviation (n - 1) */
	double	cv;		/* stddev / mean */
	double	ci_lo, ci_hi;	/* Student t confidence interval of the mean */
	bool	p10_ok, p90_ok;	/* stats_percentile_ok(n, 0.1), (n, 0.9) */
};

/* Summary of @n finite values with a @level (e.g. 0.95) confidence
 * interval of the mean. stddev, cv and the interval are NAN for n == 1.
 * -EINVAL for n == 0, a non-finite value or a level outside (0, 1);
 * -ENOMEM.
 */
int stats_summarize(const double *x, size_t n, double level,
		    struct stats_summary *s);

/*
 * Paired comparison: a[i] and b[i] measured as a pair (A B, B A, ...),
 * on the log ratios d[i] = log(b[i] / a[i]).
 *
 * Wilcoxon's signed-rank test is scipy.stats.wilcoxon(d) with its
 * defaults (zero_method "wilcox", no continuity correction, two-sided,
 * method "auto"): the exact null distribution for n <= 50 without zero
 * differences, even with ties (whose averaged rank sum is truncated to
 * an integer, as scipy 1.10 does); otherwise the normal approximation
 * over the non-zero differences, with the tie correction of the
 * variance. With every difference zero (scipy raises) w is 0 and p_w 1.
 */
struct stats_paired {
	size_t	n;
	double	ratio;		/* geometric mean of b / a: exp(mean_log) */
	double	mean_log, sd_log;	/* of d; sd_log with n - 1 */
	double	t, df, p_t;	/* paired t-test on d, two-sided */
	double	w;		/* min(R+, R-) */
	double	z;		/* normal approximation's z; NAN when exact */
	double	p_w;		/* two-sided */
	bool	w_exact;
	double	ci_lo, ci_hi;	/* bootstrap percentile interval of ratio */
	double	mde;		/* minimum detectable effect, relative */
};

/*
 * The paired comparison of @n >= 2 pairs of positive values at
 * significance @alpha (0 < alpha < 1). The interval covers 1 - alpha,
 * from STATS_BOOTSTRAP resamples of the pairs drawn by a generator seeded
 * with @seed (the same seed, the same interval).
 *
 * mde is the smallest effect the t-test finds with probability
 * STATS_POWER at this n and sd_log: in log space
 * (t(1 - alpha/2, n-1) + t(0.8, n-1)) * sd_log / sqrt(n), reported as
 * exp(that) - 1 (0.05 is 5 %); 0 when sd_log is 0. The formula is the
 * usual approximation of the noncentral t: at n = 2 and 3 the power it
 * gives is 0.73 and 0.77, from n = 5 on within 0.01 of 0.8.
 *
 * A t-test without spread (sd_log 0) has t 0 and p_t 1 for a zero mean,
 * t +-INFINITY and p_t 0 otherwise. -EINVAL for n < 2, a value that is
 * not positive and finite, or a bad alpha; -ENOMEM.
 */
int stats_paired(const double *a, const double *b, size_t n, double alpha,
		 uint64_t seed, struct stats_paired *r);

/*
 * Unpaired comparison of a new sample @b against a baseline @a (e.g.
 * several sessions' samples), on the logs of the values:
 *
 * ratio is that of the geometric means, exp(mean log b - mean log a), the
 * quantity Welch's t-test on the logs is about (and what a ratio of
 * paired samples would be). Mann-Whitney's U is scipy's
 * mannwhitneyu(b, a) with its defaults (continuity correction, two-sided,
 * method "auto": exact unless both samples have more than 8 values or
 * there are ties, normal approximation with tie correction otherwise);
 * the exact distribution is computed only while na * nb <= 10000, beyond
 * which the approximation serves (where scipy would take minutes).
 */
struct stats_unpaired {
	size_t	na, nb;
	double	ratio;		/* geometric mean of b over that of a */
	double	mean_log_a, sd_log_a, mean_log_b, sd_log_b;
	double	t, df, p_t;	/* Welch's t-test on the logs, two-sided */
	double	u;		/* U of b: pairs with b > a, ties half */
	double	p_u;		/* two-sided */
	bool	u_exact;
	double	ci_lo, ci_hi;	/* bootstrap percentile interval of ratio */
	double	mde;		/* as stats_paired's, from Welch's SE and df */
};

/* Both samples need 2 values or more, positive and finite; the rest as
 * stats_paired(), the bootstrap resampling each sample on its own.
 */
int stats_unpaired(const double *a, size_t na, const double *b, size_t nb,
		   double alpha, uint64_t seed, struct stats_unpaired *r);

/* Holm-Bonferroni adjusted p-values of @m tests: @adj[i] belongs to @p[i];
 * non-decreasing in p, at most 1. -ENOMEM.
 */
int stats_holm(const double *p, size_t m, double *adj);

/* The order of block @block's runs in a job seeded by @seed: a uniformly
 * drawn permutation of 0..@n-1 into @order, reproducible from the seed.
 * Randomized, a job's pairs cannot line up with a pattern in the machine's
 * own noise, as a fixed A B, B A alternation can.
 */
void stats_order(uint64_t seed, uint64_t block, size_t *order, size_t n);

#endif /* KTGEN_STATS_H */
