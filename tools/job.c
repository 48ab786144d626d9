// SPDX-License-Identifier: GPL-2.0
/*
 * What ab, repeat, sweep and diff share: CSV rows, variants (run keywords,
 * knobs, pre/post commands) and their samples, each a whole `ktgen -j run`
 * of this binary so that a variant's knobs are applied and put back by the
 * run itself; what a job measured and where; progress on stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>

#include "ktgen.h"
#include "print.h"
#include "job.h"

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

void csv_header(const char *lead, const struct columns *c)
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
void csv_values(double * const *x, size_t k, const struct columns *c)
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
int csv_arg(bool *csv, struct columns *c, int argc, char **argv)
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
int parse_show(struct judge *j, const char *list)
{
	return parse_metric_list("show", list, j->show, &j->nshow, MAX_GATES);
}

int job_arg(struct judge *j, bool *csv, struct columns *c, int argc, char **argv,
		   const char **metric, const char **gates)
{
	int n = judge_arg(j, argc, argv, metric, gates);

	if (!n && argc >= 2 && !strcmp(argv[0], "show"))
		return parse_show(j, argv[1]) ? -1 : 2;
	if (!n && !strcmp(argv[0], "keep-going")) {
		j->keep_going = true;
		return 1;
	}
	if (!n && argc >= 2 && !strcmp(argv[0], "seed")) {
		if (parse_u64(argv[1], &j->seed)) {
			usage_error("seed: a number from 0 to 2^64-1, not '%s'", argv[1]);
			return -1;
		}
		j->seeded = true;
		return 2;
	}
	return n ? n : csv_arg(csv, c, argc, argv);
}

/* The job's seed: the one given, else one drawn now (kept, so that the
 * document says how to run the same order again).
 */
uint64_t job_seed(struct judge *j)
{
	struct timespec ts;

	if (j->seeded)
		return j->seed;
	if (getrandom(&j->seed, sizeof(j->seed), 0) != sizeof(j->seed)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		j->seed = (uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid();
	}
	j->seeded = true;
	return j->seed;
}

/* With csv the rows are stdout's; what text there is goes to stderr. */
int csv_start(bool csv, const char *cmd)
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

volatile sig_atomic_t ab_signal;

static void ab_on_signal(int sig)
{
	ab_signal = sig;
}

void job_signals_catch(struct job_signals *s)
{
	struct sigaction sa = { .sa_handler = ab_on_signal };

	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
}

void job_signals_restore(const struct job_signals *s)
{
	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
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
void job_read(struct job *jb, const struct json *doc)
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

/* Whether @a and @b measured the same thing; what differs into @why. */
bool job_same(const struct job *a, const struct job *b, char *why, size_t len)
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

/* "job": what it measured and where, for diff (JSON only). */
void print_job(const struct job *jb)
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

int variant_parse(struct variant *v, const char *label, const char *s)
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

void variant_free(struct variant *v)
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
void print_warnings(const struct variant *v)
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
int shell(const char *what, const char *cmd)
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

/* The run @pid's stdout, from @fd until its end, into *@outp (grown from
 * @cap); its length. A signal to us is passed on to the run.
 */
static size_t run_read(pid_t pid, int fd, char **outp, size_t cap)
{
	bool signalled = false;
	char *out = *outp;
	size_t len = 0;
	ssize_t r;

	while ((r = read(fd, out + len, cap - len - 1)) != 0) {
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
	*outp = out;
	return len;
}

/* `ktgen -j run BASE... VARIANT...` of this binary: its document. */
static struct json *run_once(char **base, int nbase, const struct variant *v)
{
	char **argv = calloc(nbase + v->nwords + 3, sizeof(char *));
	size_t len = 0, cap = 65536;
	char *out = malloc(cap), err[128];
	struct json *doc = NULL;
	int fds[2], st, i, k = 0;
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
	if (pid > 0)
		len = run_read(pid, fds[0], &out, cap);
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
int variant_check(const char *name, char **base, int nbase, const struct variant *v)
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
int sample(char **base, int nbase, struct variant *v, const struct judge *j)
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
			char buf[128];
			const char *why = metric_why(j->m[i], doc, buf, sizeof(buf));

			fprintf(stderr, "ktgen: run of variant %s: no positive %s in its result%s%s\n",
				v->label, j->m[i]->name, why ? ": " : "", why ? why : "");
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
void print_provenance(const char *cmd, int argc, char **argv, time_t start)
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
int sample_retry(char **base, int nbase, struct variant *v, const struct judge *j)
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
const char *time_left(char *buf, size_t len, const struct timespec *t0, long done,
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
const char *last_value(char *buf, size_t len, const struct variant *v,
			      const struct metric *m)
{
	double x = v->n ? v->x[m - metrics][v->n - 1] : NAN;

	snprintf(buf, len, "%.6g%s%s", x / m->scale, *m->unit ? " " : "", m->unit);
	return buf;
}

const char *test_of(char **base, int nbase)
{
	return nbase >= 2 ? base[1] : "";
}

/* "metrics": every metric the runs had, with its samples; a summary of
 * the judged ones.
 */
void print_metrics(const struct variant *v, const struct judge *j)
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
