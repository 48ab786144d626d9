// SPDX-License-Identifier: GPL-2.0
/*
 * statsref: tools/stats.c on cases from stdin, for tests/unit/stats.py to
 * hold against scipy. One case a line, one answer a line:
 *
 *   ncdf X | nppf P | tcdf T DF | tppf P DF
 *   summary LEVEL X...
 *   paired ALPHA SEED A... ; B...
 *   unpaired ALPHA SEED A... ; B...
 *   holm P...
 *   order SEED BLOCK N
 *
 * Answers are "key=value ..." with every double in %.17g, or "error=ERRNO"
 * (negative) when the function refuses the case; "bad" for a line that
 * does not parse.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

struct nums {
	double	*v;
	size_t	n, cap;
};

static int push(struct nums *x, double v)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		double *p = realloc(x->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		x->v = p;
		x->cap = cap;
	}
	x->v[x->n++] = v;
	return 0;
}

/* Numbers up to the end of the line or a ";" (then *@semi is set). */
static int read_nums(char **save, struct nums *x, bool *semi)
{
	char *tok, *end;

	x->n = 0;
	if (semi)
		*semi = false;
	while ((tok = strtok_r(NULL, " \t\n", save))) {
		if (semi && !strcmp(tok, ";")) {
			*semi = true;
			return 0;
		}
		if (push(x, strtod(tok, &end)) || *end)
			return -EINVAL;
	}
	return 0;
}

static void put(const char *key, double v)
{
	printf(" %s=%.17g", key, v);
}

static void do_summary(struct nums *x)
{
	struct stats_summary s;
	int err;

	err = stats_summarize(x->v + 1, x->n - 1, x->v[0], &s);
	if (err) {
		printf("error=%d\n", err);
		return;
	}
	printf("n=%zu", s.n);
	put("min", s.min);
	put("p10", s.p10);
	put("median", s.median);
	put("mean", s.mean);
	put("p90", s.p90);
	put("max", s.max);
	put("stddev", s.stddev);
	put("cv", s.cv);
	put("ci_lo", s.ci_lo);
	put("ci_hi", s.ci_hi);
	printf(" p10_ok=%d p90_ok=%d\n", s.p10_ok, s.p90_ok);
}

static void print_paired(const struct stats_paired *r)
{
	printf("n=%zu", r->n);
	put("ratio", r->ratio);
	put("mean_log", r->mean_log);
	put("sd_log", r->sd_log);
	put("t", r->t);
	put("df", r->df);
	put("p_t", r->p_t);
	put("w", r->w);
	put("z", r->z);
	put("p_w", r->p_w);
	printf(" w_exact=%d", r->w_exact);
	put("ci_lo", r->ci_lo);
	put("ci_hi", r->ci_hi);
	put("mde", r->mde);
	putchar('\n');
}

static void print_unpaired(const struct stats_unpaired *r)
{
	printf("na=%zu nb=%zu", r->na, r->nb);
	put("ratio", r->ratio);
	put("mean_log_a", r->mean_log_a);
	put("sd_log_a", r->sd_log_a);
	put("mean_log_b", r->mean_log_b);
	put("sd_log_b", r->sd_log_b);
	put("t", r->t);
	put("df", r->df);
	put("p_t", r->p_t);
	put("u", r->u);
	put("p_u", r->p_u);
	printf(" u_exact=%d", r->u_exact);
	put("ci_lo", r->ci_lo);
	put("ci_hi", r->ci_hi);
	put("mde", r->mde);
	putchar('\n');
}

/* "ALPHA SEED A... ; B..." */
static int do_compare(bool paired, char **save, struct nums *a, struct nums *b)
{
	struct stats_unpaired u;
	struct stats_paired p;
	double alpha, seed;
	bool semi;
	int err;

	if (read_nums(save, a, &semi) || !semi || a->n < 2 || read_nums(save, b, NULL))
		return -EINVAL;
	alpha = a->v[0];
	seed = a->v[1];
	if (paired) {
		err = a->n - 2 == b->n ? stats_paired(a->v + 2, b->v, b->n, alpha,
						       (uint64_t)seed, &p) : -EINVAL;
		if (!err)
			print_paired(&p);
	} else {
		err = stats_unpaired(a->v + 2, a->n - 2, b->v, b->n, alpha,
				     (uint64_t)seed, &u);
		if (!err)
			print_unpaired(&u);
	}
	if (err)
		printf("error=%d\n", err);
	return 0;
}

static void do_holm(struct nums *x)
{
	double *adj = calloc(x->n + 1, sizeof(*adj));
	size_t i;

	if (!adj || stats_holm(x->v, x->n, adj)) {
		printf("error=%d\n", -ENOMEM);
	} else {
		for (i = 0; i < x->n; i++)
			printf("%s%.17g", i ? " " : "", adj[i]);
		putchar('\n');
	}
	free(adj);
}

/* "order SEED BLOCK N": stats_order's permutation, space-separated. The
 * seed in full 64 bits, so not through the doubles.
 */
static int do_order(char **save)
{
	char *seed = strtok_r(NULL, " \t\n", save), *block = strtok_r(NULL, " \t\n", save);
	char *n = strtok_r(NULL, " \t\n", save), *end;
	size_t order[64], i, len;

	if (!seed || !block || !n)
		return -EINVAL;
	len = strtoul(n, &end, 10);
	if (*end || !len || len > 64)
		return -EINVAL;
	stats_order(strtoull(seed, NULL, 0), strtoull(block, NULL, 0), order, len);
	for (i = 0; i < len; i++)
		printf("%s%zu", i ? " " : "", order[i]);
	putchar('\n');
	return 0;
}

/* The one-number functions: "ncdf X" and the like. */
static int do_scalar(const char *cmd, struct nums *x)
{
	if (!strcmp(cmd, "ncdf") && x->n == 1)
		printf("%.17g\n", stats_norm_cdf(x->v[0]));
	else if (!strcmp(cmd, "nppf") && x->n == 1)
		printf("%.17g\n", stats_norm_quantile(x->v[0]));
	else if (!strcmp(cmd, "tcdf") && x->n == 2)
		printf("%.17g\n", stats_t_cdf(x->v[0], x->v[1]));
	else if (!strcmp(cmd, "tppf") && x->n == 2)
		printf("%.17g\n", stats_t_quantile(x->v[0], x->v[1]));
	else
		return -EINVAL;
	return 0;
}

static int do_line(char *line, struct nums *a, struct nums *b)
{
	char *save, *cmd = strtok_r(line, " \t\n", &save);

	if (!cmd)
		return -EINVAL;
	if (!strcmp(cmd, "paired") || !strcmp(cmd, "unpaired"))
		return do_compare(!strcmp(cmd, "paired"), &save, a, b);
	if (!strcmp(cmd, "order"))
		return do_order(&save);
	if (read_nums(&save, a, NULL))
		return -EINVAL;
	if (!strcmp(cmd, "summary") && a->n >= 1)
		do_summary(a);
	else if (!strcmp(cmd, "holm"))
		do_holm(a);
	else
		return do_scalar(cmd, a);
	return 0;
}

int main(void)
{
	struct nums a = { 0 }, b = { 0 };
	size_t cap = 0;
	char *line = NULL;

	while (getline(&line, &cap, stdin) > 0) {
		if (do_line(line, &a, &b))
			puts("bad");
	}
	free(line);
	free(a.v);
	free(b.v);
	return fflush(stdout) ? 1 : 0;
}
