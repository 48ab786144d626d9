// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for repeated runs and A/B verdicts. The tests' p-values follow
 * scipy 1.10.1 decision for decision, so that tests/unit/stats.py can hold
 * every number to scipy's within 1e-9.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* ---- distributions ---- */

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

static double poly(const double *c, int n, double x)
{
	double v = c[n];

	while (n--)
		v = v * x + c[n];
	return v;
}

/* Wichura, "Algorithm AS 241: The percentage points of the normal
 * distribution", Applied Statistics 37 (1988): PPND16, 1e-16 relative.
 */
double stats_norm_quantile(double p)
{
	static const double a[] = {
		3.3871328727963666080e0, 1.3314166789178437745e2,
		1.9715909503065514427e3, 1.3731693765509461125e4,
		4.5921953931549871457e4, 6.7265770927008700853e4,
		3.3430575583588128105e4, 2.5090809287301226727e3,
	}, b[] = {
		1.0, 4.2313330701600911252e1,
		6.8718700749205790830e2, 5.3941960214247511077e3,
		2.1213794301586595867e4, 3.9307895800092710610e4,
		2.8729085735721942674e4, 5.2264952788528545610e3,
	}, c[] = {
		1.42343711074968357734e0, 4.63033784615654529590e0,
		5.76949722146069140550e0, 3.64784832476320460504e0,
		1.27045825245236838258e0, 2.41780725177450611770e-1,
		2.27238449892691845833e-2, 7.74545014278341407640e-4,
	}, d[] = {
		1.0, 2.05319162663775882187e0,
		1.67638483018380384940e0, 6.89767334985100004550e-1,
		1.48103976427480074590e-1, 1.51986665636164571966e-2,
		5.47593808499534494600e-4, 1.05075007164441684324e-9,
	}, e[] = {
		6.65790464350110377720e0, 5.46378491116411436990e0,
		1.78482653991729133580e0, 2.96560571828504891230e-1,
		2.65321895265761230930e-2, 1.24266094738807843860e-3,
		2.71155556874348757815e-5, 2.01033439929228813265e-7,
	}, f[] = {
		1.0, 5.99832206555887937690e-1,
		1.36929880922735805310e-1, 1.48753612908506148525e-2,
		7.86869131145613259100e-4, 1.84631831751005468180e-5,
		1.42151175831644588870e-7, 2.04426310338993978564e-15,
	};
	double q = p - 0.5, r, v;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0 || p == 1)
		return p ? INFINITY : -INFINITY;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * poly(a, 7, r) / poly(b, 7, r);
	}
	r = sqrt(-log(q < 0 ? p : 1 - p));
	if (r <= 5)
		v = poly(c, 7, r - 1.6) / poly(d, 7, r - 1.6);
	else
		v = poly(e, 7, r - 5) / poly(f, 7, r - 5);
	return q < 0 ? -v : v;
}

#define CF_EPS		1e-16
#define CF_TINY		1e-300
#define CF_MAXIT	100000

static double cf_guard(double v)
{
	return fabs(v) < CF_TINY ? CF_TINY : v;
}

/* The continued fraction of I_x(a, b), evaluated by Lentz's method
 * (Numerical Recipes' betacf); converges fast for x < (a + 1) / (a + b + 2).
 */
static double betacf(double a, double b, double x)
{
	double c = 1, d, h, aa, del;
	int m;

	d = 1 / cf_guard(1 - (a + b) * x / (a + 1));
	h = d;
	for (m = 1; m <= CF_MAXIT; m++) {
		aa = m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m));
		d = 1 / cf_guard(1 + aa * d);
		c = cf_guard(1 + aa / c);
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m));
		d = 1 / cf_guard(1 + aa * d);
		c = cf_guard(1 + aa / c);
		del = d * c;
		h *= del;
		if (fabs(del - 1) < CF_EPS)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b), with y = 1 - x given
 * by the caller, who can compute it without cancellation.
 */
static double ibeta(double a, double b, double x, double y)
{
	double front;

	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, y) / b;
}

/* P(T < -|t|) = I_x(df/2, 1/2) / 2 at x = df / (df + t^2). */
static double t_tail(double t, double df)
{
	double x, y;

	if (fabs(t) > 1e100) {		/* t^2 would overflow */
		x = df / t / t;
		y = 1;
	} else {
		x = df / (df + t * t);
		y = t * t / (df + t * t);
	}
	return 0.5 * ibeta(df / 2, 0.5, x, y);
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t < 0 ? 0 : 1;
	if (df > 1e15)
		return stats_norm_cdf(t);
	tail = t_tail(t, df);
	return t < 0 ? tail : 1 - tail;
}

static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
		   (df + 1) / 2 * log1p(t / df * t));
}

/* Cornish-Fisher expansion of the t quantile around the normal one
 * (Abramowitz and Stegun 26.7.5): a start for Newton's method.
 */
static double t_guess(double q, double df)
{
	double z = stats_norm_quantile(q), z2 = z * z;
	double g1 = (z2 + 1) * z / 4;
	double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
	double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
	double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;

	return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
}

/* The lower quantile q < 0.5: Newton's method inside a bracket, bisecting
 * whenever a step leaves it (the cdf is convex below 0, so a step from the
 * left can overshoot).
 */
static double t_lower_quantile(double q, double df)
{
	double lo, hi = 0, t = t_guess(q, df), f, tn;
	int i;

	if (!(t < 0) || isinf(t))
		t = -1;
	lo = t;
	while (stats_t_cdf(lo, df) > q && !isinf(lo)) {
		hi = lo;
		lo *= 2;
	}
	for (i = 0; i < 2000; i++) {
		f = stats_t_cdf(t, df) - q;
		if (f == 0)
			break;
		if (f > 0)
			hi = t;
		else
			lo = t;
		tn = t - f / t_pdf(t, df);
		if (!(tn > lo && tn < hi))
			tn = lo / 2 + hi / 2;
		if (fabs(tn - t) <= 1e-15 * fabs(tn) || tn == lo || tn == hi) {
			t = tn;
			break;
		}
		t = tn;
	}
	return t;
}

double stats_t_quantile(double p, double df)
{
	double q = p < 0.5 ? p : 1 - p, t;

	if (isnan(p) || p < 0 || p > 1 || !(df > 0))
		return NAN;
	if (p == 0 || p == 1)
		return p ? INFINITY : -INFINITY;
	if (p == 0.5)
		return 0;
	if (df > 1e15)
		t = stats_norm_quantile(q);
	else if (df == 1)			/* Cauchy */
		t = -1 / tan(M_PI * q);
	else if (df == 2)
		t = (2 * q - 1) / sqrt(2 * q * (1 - q));
	else
		t = t_lower_quantile(q, df);
	return p < 0.5 ? t : -t;
}

/* ---- order statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* numpy's interpolation, exact at both ends. */
static double lerp(double a, double b, double t)
{
	double diff = b - a;

	return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double stats_percentile(const double *sorted, size_t n, double p)
{
	double h = p * (double)(n - 1), k = floor(h);
	size_t i = (size_t)k;

	if (i + 1 >= n)
		return sorted[n - 1];
	return lerp(sorted[i], sorted[i + 1], h - k);
}

/* The slack lets 0.9 (1 - 0.9 is 0.09999999999999998) count as 0.1. */
bool stats_percentile_ok(size_t n, double p)
{
	return (double)n * fmin(p, 1 - p) >= 1 - 1e-9;
}

static void swap_double(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Hoare's selection: v[k] becomes the k-th smallest, with nothing larger
 * before it and nothing smaller after it. O(n), where sorting the
 * bootstrap's 10000 means for two of them would be the cost of a
 * comparison.
 */
static void select_kth(double *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, i, j;
	double pivot;

	while (lo < hi) {
		pivot = v[k];
		i = lo;
		j = hi;
		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j)
				swap_double(&v[i++], &v[j--]);
		} while (i <= j);
		if (j < (ptrdiff_t)k)
			lo = i;
		if ((ptrdiff_t)k < i)
			hi = j;
	}
}

/* stats_percentile() of unsorted values, which it reorders. */
static double percentile_unsorted(double *v, size_t n, double p)
{
	double h = p * (double)(n - 1), k = floor(h), next;
	size_t i = (size_t)k, j;

	select_kth(v, n, i);
	if (i + 1 >= n)
		return v[i];
	next = v[i + 1];
	for (j = i + 2; j < n; j++)
		next = fmin(next, v[j]);
	return lerp(v[i], next, h - k);
}

/* ---- summaries ---- */

static double mean_of(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* Sample standard deviation (n - 1) around @mean; NAN for one value. */
static double sd_of(const double *x, size_t n, double mean)
{
	double ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

static bool all_finite(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

int stats_summarize(const double *x, size_t n, double level,
		    struct stats_summary *s)
{
	double *v, half;

	if (!n || !(level > 0 && level < 1) || !all_finite(x, n))
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->p10 = stats_percentile(v, n, 0.1);
	s->median = stats_percentile(v, n, 0.5);
	s->p90 = stats_percentile(v, n, 0.9);
	s->p10_ok = stats_percentile_ok(n, 0.1);
	s->p90_ok = stats_percentile_ok(n, 0.9);
	s->mean = mean_of(x, n);
	s->stddev = sd_of(x, n, s->mean);
	s->cv = s->stddev / s->mean;
	half = n > 1 ? stats_t_quantile((1 + level) / 2, n - 1) * s->stddev / sqrt(n) : NAN;
	s->ci_lo = s->mean - half;
	s->ci_hi = s->mean + half;
	free(v);
	return 0;
}

/* ---- the bootstrap's generator: xoshiro256** seeded by splitmix64 ---- */

struct rng {
	uint64_t	s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, v = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return v;
}

/* Uniform in [0, n), unbiased (Lemire's multiply and reject). */
static size_t rng_below(struct rng *r, size_t n)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t low = (uint64_t)m, floor_;

	if (low < n) {
		floor_ = -(uint64_t)n % n;
		while (low < floor_) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (size_t)(m >> 64);
#else
	uint64_t floor_ = -(uint64_t)n % n, x;

	do
		x = rng_next(r);
	while (x < floor_);
	return x % n;
#endif
}

/* Block @block of a job seeded by @seed: @order, a permutation of 0..@n-1
 * drawn uniformly (Fisher-Yates), the same for the same seed and block.
 */
void stats_order(uint64_t seed, uint64_t block, size_t *order, size_t n)
{
	struct rng r;
	size_t i, k, t;

	rng_seed(&r, seed ^ splitmix64(&block));
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		k = rng_below(&r, i);
		t = order[i - 1];
		order[i - 1] = order[k];
		order[k] = t;
	}
}

/* The mean of @n values drawn with replacement from @x. */
static double resample_mean(struct rng *r, const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[rng_below(r, n)];
	return sum / (double)n;
}

/* The percentile interval of STATS_BOOTSTRAP log effects @boot (which it
 * reorders), as ratios.
 */
static void boot_interval(double *boot, double alpha, double *lo, double *hi)
{
	*lo = exp(percentile_unsorted(boot, STATS_BOOTSTRAP, alpha / 2));
	*hi = exp(percentile_unsorted(boot, STATS_BOOTSTRAP, 1 - alpha / 2));
}

/* The smallest log effect the two-sided t-test at @alpha finds with
 * probability STATS_POWER, given its standard error, as a relative effect.
 */
static double min_effect(double se, double df, double alpha)
{
	if (se == 0)
		return 0;
	return expm1((stats_t_quantile(1 - alpha / 2, df) +
		      stats_t_quantile(STATS_POWER, df)) * se);
}

/* t = @mean / @se with @df, two-sided; no spread is decided by the mean. */
static void t_test(double mean, double se, double df, double *t, double *p)
{
	if (se == 0) {
		*t = mean == 0 ? 0 : copysign(INFINITY, mean);
		*p = mean == 0 ? 1 : 0;
		return;
	}
	*t = mean / se;
	*p = 2 * stats_t_cdf(-fabs(*t), df);
}

/* ---- ranks ---- */

struct rank_item {
	double	key;
	int	tag;		/* which side or sample */
	double	rank;
};

static int cmp_rank_item(const void *a, const void *b)
{
	return cmp_double(&((const struct rank_item *)a)->key,
			  &((const struct rank_item *)b)->key);
}

/* Sorts @v by key and ranks it from 1, ties sharing the mean of their
 * ranks; returns the sum of t^3 - t over the groups of t ties.
 */
static double rank_items(struct rank_item *v, size_t n)
{
	double ties = 0, t;
	size_t i, j, k;

	qsort(v, n, sizeof(*v), cmp_rank_item);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].key == v[i].key; j++)
			;
		for (k = i; k < j; k++)
			v[k].rank = (double)(i + 1 + j) / 2;
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	return ties;
}

/* ---- Wilcoxon's signed-rank test ---- */

#define WILCOXON_EXACT_MAX	50

/* scipy's exact two-sided p-value of R+ among @n ranks: the distribution
 * of R+ built as scipy's _get_wilcoxon_distr builds it, R+ truncated to
 * an integer (with ties it is not one; scipy 1.10 truncates too). At the
 * centre both tails hold half or more: 1, as scipy has it.
 */
static double wilcoxon_exact(size_t n, double r_plus)
{
	double c[WILCOXON_EXACT_MAX * (WILCOXON_EXACT_MAX + 1) / 2 + 1];
	size_t total = n * (n + 1) / 2, len = 1, k, j, rp = (size_t)r_plus;
	double below = 0, above = 0;

	c[0] = 1;
	for (k = 1; k <= n; k++) {
		for (j = len + k; j-- > 0;)
			c[j] = 0.5 * (j < len ? c[j] : 0) +
			       0.5 * (j >= k && j - k < len ? c[j - k] : 0);
		len += k;
	}
	for (j = 0; j <= total; j++) {
		if (j <= rp)
			below += c[j];
		if (j >= rp)
			above += c[j];
	}
	return fmin(1, 2 * fmin(below, above));
}

/* On the log ratios @d; what the normal approximation leaves out (the
 * zeros) is left out of the ranks too.
 */
static int wilcoxon(const double *d, size_t n, struct stats_paired *r)
{
	double r_plus = 0, r_minus = 0, ties, mn, se;
	struct rank_item *v;
	size_t i, m = 0, zeros = 0;

	for (i = 0; i < n; i++)
		zeros += d[i] == 0;
	r->w_exact = n <= WILCOXON_EXACT_MAX && !zeros;
	r->z = NAN;
	if (zeros == n) {
		r->w = 0;
		r->p_w = 1;
		return 0;
	}
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (d[i] != 0)
			v[m++] = (struct rank_item){ .key = fabs(d[i]), .tag = d[i] > 0 };
	ties = rank_items(v, m);
	for (i = 0; i < m; i++)
		*(v[i].tag ? &r_plus : &r_minus) += v[i].rank;
	free(v);

	r->w = fmin(r_plus, r_minus);
	if (r->w_exact) {
		r->p_w = wilcoxon_exact(m, r_plus);
		return 0;
	}
	mn = m * (m + 1.0) / 4;
	se = sqrt((m * (m + 1.0) * (2.0 * m + 1) - ties / 2) / 24);
	r->z = (r->w - mn) / se;
	r->p_w = erfc(fabs(r->z) / M_SQRT2);
	return 0;
}

/* ---- paired ---- */

static bool all_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(x[i] > 0 && isfinite(x[i])))
			return false;
	return true;
}

static int paired_boot(const double *d, size_t n, double alpha, uint64_t seed,
		       struct stats_paired *r)
{
	struct rng rng;
	double *boot;
	size_t i;

	boot = malloc(STATS_BOOTSTRAP * sizeof(*boot));
	if (!boot)
		return -ENOMEM;
	rng_seed(&rng, seed);
	for (i = 0; i < STATS_BOOTSTRAP; i++)
		boot[i] = resample_mean(&rng, d, n);
	boot_interval(boot, alpha, &r->ci_lo, &r->ci_hi);
	free(boot);
	return 0;
}

int stats_paired(const double *a, const double *b, size_t n, double alpha,
		 uint64_t seed, struct stats_paired *r)
{
	double *d, se;
	size_t i;
	int err;

	if (n < 2 || !(alpha > 0 && alpha < 1) || !all_positive(a, n) ||
	    !all_positive(b, n))
		return -EINVAL;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	/* log(b / a) rather than log b - log a: no cancellation near 0 */
	for (i = 0; i < n; i++)
		d[i] = log(b[i] / a[i]);

	memset(r, 0, sizeof(*r));
	r->n = n;
	r->mean_log = mean_of(d, n);
	r->sd_log = sd_of(d, n, r->mean_log);
	r->ratio = exp(r->mean_log);
	r->df = n - 1;
	se = r->sd_log / sqrt(n);
	t_test(r->mean_log, se, r->df, &r->t, &r->p_t);
	r->mde = min_effect(se, r->df, alpha);
	err = wilcoxon(d, n, r);
	if (!err)
		err = paired_boot(d, n, alpha, seed, r);
	free(d);
	return err;
}

/* ---- Mann-Whitney U ---- */

#define MWU_EXACT_MAX_PAIRS	10000

/*
 * P(U <= k) for samples of m and n values without ties. The number of
 * arrangements with U = j follows f(m, n, j) = f(m-1, n, j-n) + f(m, n-1, j)
 * (the largest value is from the first sample or not), as scipy's _MWU
 * computes it: here n grows in the outer loop, over a row per m' <= m,
 * and j only up to k.
 */
static int mwu_cdf(size_t m, size_t n, size_t k, double *p)
{
	double *f, total = 1, sum = 0;
	size_t i, mm, nn, j;

	if (m > n)
		return mwu_cdf(n, m, k, p);
	f = calloc((m + 1) * (k + 1), sizeof(*f));
	if (!f)
		return -ENOMEM;
	for (mm = 0; mm <= m; mm++)
		f[mm * (k + 1)] = 1;
	for (nn = 1; nn <= n; nn++)
		for (mm = 1; mm <= m; mm++)
			for (j = nn; j <= k; j++)
				f[mm * (k + 1) + j] += f[(mm - 1) * (k + 1) + j - nn];
	for (j = 0; j <= k; j++)
		sum += f[m * (k + 1) + j];
	for (i = 1; i <= m; i++)
		total = total * (double)(n + i) / (double)i;
	free(f);
	*p = sum / total;
	return 0;
}

/* U of b against a, from the ranks of both on their raw values (the logs
 * of distinct values can coincide).
 */
static int mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			struct stats_unpaired *r)
{
	double ties, rank_b = 0, u_max, mu, s, nall = (double)(na + nb);
	struct rank_item *v;
	size_t i;
	int err;

	v = malloc((na + nb) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		v[i] = (struct rank_item){ .key = a[i], .tag = 0 };
	for (i = 0; i < nb; i++)
		v[na + i] = (struct rank_item){ .key = b[i], .tag = 1 };
	ties = rank_items(v, na + nb);
	for (i = 0; i < na + nb; i++)
		if (v[i].tag)
			rank_b += v[i].rank;
	free(v);

	r->u = rank_b - nb * (nb + 1.0) / 2;
	u_max = fmax(r->u, (double)na * nb - r->u);
	r->u_exact = (na <= 8 || nb <= 8) && ties == 0 && na * nb <= MWU_EXACT_MAX_PAIRS;
	if (r->u_exact) {
		err = mwu_cdf(na, nb, na * nb - (size_t)u_max, &r->p_u);
		r->p_u = fmin(1, 2 * r->p_u);
		return err;
	}
	mu = na * nb / 2.0;
	s = sqrt(na * nb / 12.0 * ((nall + 1) - ties / (nall * (nall - 1))));
	r->p_u = s > 0 ? fmin(1, erfc((u_max - mu - 0.5) / s / M_SQRT2)) : 1;
	return 0;
}

/* ---- unpaired ---- */

static double *logs_of(const double *x, size_t n)
{
	double *l = malloc(n * sizeof(*l));
	size_t i;

	if (l)
		for (i = 0; i < n; i++)
			l[i] = log(x[i]);
	return l;
}

static int unpaired_boot(const double *la, size_t na, const double *lb, size_t nb,
			 double alpha, uint64_t seed, struct stats_unpaired *r)
{
	struct rng rng;
	double *boot;
	size_t i;

	boot = malloc(STATS_BOOTSTRAP * sizeof(*boot));
	if (!boot)
		return -ENOMEM;
	rng_seed(&rng, seed);
	for (i = 0; i < STATS_BOOTSTRAP; i++) {
		boot[i] = resample_mean(&rng, lb, nb);
		boot[i] -= resample_mean(&rng, la, na);
	}
	boot_interval(boot, alpha, &r->ci_lo, &r->ci_hi);
	free(boot);
	return 0;
}

/* Welch's t-test of mean log b - mean log a, with the Welch-Satterthwaite
 * degrees of freedom; and the effect it can detect.
 */
static void welch(struct stats_unpaired *r, double alpha)
{
	double va = r->sd_log_a * r->sd_log_a / r->na;
	double vb = r->sd_log_b * r->sd_log_b / r->nb;
	double se = sqrt(va + vb);

	if (se > 0)
		r->df = (va + vb) * (va + vb) /
			(va * va / (r->na - 1) + vb * vb / (r->nb - 1));
	else
		r->df = r->na + r->nb - 2;
	t_test(r->mean_log_b - r->mean_log_a, se, r->df, &r->t, &r->p_t);
	r->mde = min_effect(se, r->df, alpha);
}

int stats_unpaired(const double *a, size_t na, const double *b, size_t nb,
		   double alpha, uint64_t seed, struct stats_unpaired *r)
{
	double *la, *lb;
	int err = -ENOMEM;

	if (na < 2 || nb < 2 || !(alpha > 0 && alpha < 1) ||
	    !all_positive(a, na) || !all_positive(b, nb))
		return -EINVAL;
	la = logs_of(a, na);
	lb = logs_of(b, nb);
	if (!la || !lb)
		goto out_free;

	memset(r, 0, sizeof(*r));
	r->na = na;
	r->nb = nb;
	r->mean_log_a = mean_of(la, na);
	r->mean_log_b = mean_of(lb, nb);
	r->sd_log_a = sd_of(la, na, r->mean_log_a);
	r->sd_log_b = sd_of(lb, nb, r->mean_log_b);
	r->ratio = exp(r->mean_log_b - r->mean_log_a);
	welch(r, alpha);
	err = mann_whitney(a, na, b, nb, r);
	if (!err)
		err = unpaired_boot(la, na, lb, nb, alpha, seed, r);
out_free:
	free(la);
	free(lb);
	return err;
}

/* ---- multiple comparisons ---- */

struct holm_item {
	double	p;
	size_t	i;
};

/* By p, then by position: equal p-values keep their order. */
static int cmp_holm_item(const void *a, const void *b)
{
	const struct holm_item *x = a, *y = b;
	int c = cmp_double(&x->p, &y->p);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The k-th smallest of m p-values (from 0) is multiplied by m - k; then
 * each keeps the largest adjusted value up to it, so that the order of the
 * p-values survives.
 */
int stats_holm(const double *p, size_t m, double *adj)
{
	struct holm_item *v;
	double run = 0;
	size_t k;

	if (!m)
		return 0;
	v = malloc(m * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < m; k++)
		v[k] = (struct holm_item){ .p = p[k], .i = k };
	qsort(v, m, sizeof(*v), cmp_holm_item);
	for (k = 0; k < m; k++) {
		run = fmax(run, fmin(1, (double)(m - k) * v[k].p));
		adj[v[k].i] = run;
	}
	free(v);
	return 0;
}
