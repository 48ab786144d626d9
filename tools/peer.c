// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen peer: the receiving end of a run on another host, over ssh.
 *
 * This side (run ... peer URL) spawns `$KTGEN_SSH [-p PORT] -- DEST
 * $KTGEN_PEER_CMD -j peer serve WORDS...` in a process group of its own,
 * so the terminal's Ctrl-C reaches only us: we stop the run, then end the
 * peer's stdin and read its result. The far side (peer serve) is below.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/ktgen.h>

#include "counters.h"
#include "dev.h"
#include "json.h"
#include "ktgen.h"
#include "nl.h"
#include "peer.h"
#include "print.h"
#include "show.h"
#include "sink.h"

#define PEER_TIMEOUT_MS	120000	/* ssh's handshake and the far end's work */
#define PEER_DOC_MAX	(16 << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int64_t now_ms(void)
{
	return now_ns() / 1000000;
}

/* How long the far end may take to be ready, and to answer once the run
 * ended: PEER_TIMEOUT_MS, or $KTGEN_PEER_TIMEOUT seconds (1..3600).
 */
static int64_t peer_timeout_ms(void)
{
	const char *env = getenv("KTGEN_PEER_TIMEOUT");
	char *end;
	long v;

	if (!env || !*env)
		return PEER_TIMEOUT_MS;
	v = strtol(env, &end, 10);
	if (*end || v < 1 || v > 3600)
		return PEER_TIMEOUT_MS;
	return v * 1000;
}

/* --- this side: the URL and the words for the far end ------------------ */

/* A user or host name ssh cannot take for an option or anything else. */
static bool name_ok(const char *s, size_t len, const char *extra)
{
	size_t i;

	if (!len || s[0] == '-')
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]) &&
		    !(extra && strchr(extra, s[i])))
			return false;
	return true;
}

int peer_parse_url(struct peer *p, const char *url)
{
	const char *rest = url + 6, *at, *host, *hend, *port = NULL;
	size_t ulen = 0;
	bool v6;

	p->url = url;
	if (strncmp(url, "ssh://", 6))
		goto bad;
	at = strchr(rest, '@');
	host = at ? at + 1 : rest;
	if (at)
		ulen = at - rest;
	v6 = *host == '[';
	if (v6) {
		hend = strchr(++host, ']');
		if (!hend || (hend[1] && hend[1] != ':'))
			goto bad;
		port = hend[1] ? hend + 2 : NULL;
	} else {
		hend = host + strcspn(host, ":");
		port = *hend ? hend + 1 : NULL;
	}
	if ((at && !name_ok(rest, ulen, NULL)) ||
	    !name_ok(host, hend - host, v6 ? ":%" : NULL) ||
	    ulen + (hend - host) + 2 > sizeof(p->dest))
		goto bad;
	snprintf(p->dest, sizeof(p->dest), "%.*s%s%.*s", (int)ulen, rest, at ? "@" : "",
		 (int)(hend - host), host);
	p->port[0] = 0;
	if (port) {
		uint16_t n;

		if (parse_port(port, &n) || !n) {
			usage_error("peer: the port of '%s' is not a number from 1 to 65535", url);
			return -1;
		}
		snprintf(p->port, sizeof(p->port), "%u", n);
	}
	return 0;
bad:
	usage_error("peer: ssh://[user@]host[:port] (an IPv6 host in brackets), not '%s'", url);
	return -1;
}

int peer_parse_arg(struct peer *p, int argc, char **argv)
{
	static const char * const sink_kws[][2] = {
		{ "peer-rx", "rx" }, { "peer-cpus", "cpus" }, { "peer-rcvbuf", "rcvbuf" },
	};
	struct knob_list l = { };
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(sink_kws); i++) {
		if (strcmp(argv[0], sink_kws[i][0]))
			continue;
		if (argc < 2) {
			usage_error("run: %s needs a value (as sink add's %s)",
				    argv[0], sink_kws[i][1]);
			return -1;
		}
		for (n = 0; n < p->nsink; n += 2) {
			if (!strcmp(p->sink_words[n], sink_kws[i][1])) {
				usage_error("run: %s given twice", argv[0]);
				return -1;
			}
		}
		p->sink_words[p->nsink++] = (char *)sink_kws[i][1];
		p->sink_words[p->nsink++] = argv[1];
		return 2;
	}
	if (strcmp(argv[0], "peer-knob"))
		return 0;
	/* Checked here, applied there. */
	n = knob_parse_dev(&l, argc - 1, argv + 1);
	knobs_free(&l);
	if (n < 0)
		return -1;
	if (p->nknob + n + 1 > PEER_MAX_WORDS) {
		usage_error("run: too many peer-knob words");
		return -1;
	}
	p->knob_words[p->nknob++] = "knob";
	for (i = 0; i < (size_t)n; i++)
		p->knob_words[p->nknob++] = argv[1 + i];
	return n + 1;
}

int peer_prepare(struct peer *p, int test, uint16_t port, bool ipv6, uint32_t req,
		 uint32_t resp)
{
	bool rr = test == KTGEN_TEST_TCP_RR || test == KTGEN_TEST_UDP_RR ||
		  test == KTGEN_TEST_TCP_CRR;
	struct sink_args sa;
	int i, first;

	p->argc = 0;
	p->argv[p->argc++] = "-j";
	p->argv[p->argc++] = "peer";
	p->argv[p->argc++] = "serve";
	first = p->argc;
	p->argv[p->argc++] = test == KTGEN_TEST_UDP_STREAM || test == KTGEN_TEST_UDP_RR ?
			     "udp" : "tcp";
	snprintf(p->portnum, sizeof(p->portnum), "%u", port);
	p->argv[p->argc++] = "port";
	p->argv[p->argc++] = p->portnum;
	if (ipv6)
		p->argv[p->argc++] = "ipv6";
	/* It answers this run's requests: responses above the request's
	 * size with the token it prints, which the run then carries.
	 */
	if (rr)
		p->argv[p->argc++] = "rr";
	if (rr && resp > req) {
		snprintf(p->resp_max, sizeof(p->resp_max), "%u", resp);
		p->argv[p->argc++] = "resp-max";
		p->argv[p->argc++] = p->resp_max;
	}
	for (i = 0; i < p->nsink; i++)
		p->argv[p->argc++] = p->sink_words[i];
	/* The far end takes them as sink add does: a bad word fails here. */
	if (sink_add_parse(&sa, p->argc - first, p->argv + first))
		return -1;
	if (sa.rx_mode == KTGEN_RX_MODE_USER) {
		/* It would work, but peer serve is the process whose memory it is. */
		usage_error("run: peer-rx user: not on a peer (peer serve would lend its own memory)");
		return -1;
	}
	for (i = 0; i < p->nknob; i++)
		p->argv[p->argc++] = p->knob_words[i];
	p->argv[p->argc] = NULL;
	return 0;
}

/* --- this side: ssh there, and back -------------------------------------- */

/* The far end's command line: every word in single quotes, a quote as '\''. */
static char *remote_command(const struct peer *p)
{
	const char *cmd = getenv("KTGEN_PEER_CMD");
	size_t size = 64, len = 0;
	char *buf;
	int i;

	/* A command prefix there ("sudo ktgen"), not quoted. */
	cmd = cmd && *cmd ? cmd : "ktgen";
	size += strlen(cmd);
	for (i = 0; i < p->argc; i++)
		size += 4 * strlen(p->argv[i]) + 3;
	buf = malloc(size);
	if (!buf)
		return NULL;
	len = snprintf(buf, size, "%s", cmd);
	for (i = 0; i < p->argc; i++) {
		const char *c;

		buf[len++] = ' ';
		buf[len++] = '\'';
		for (c = p->argv[i]; *c; c++) {
			if (*c == '\'') {
				memcpy(buf + len, "'\\''", 4);
				len += 4;
			} else {
				buf[len++] = *c;
			}
		}
		buf[len++] = '\'';
	}
	buf[len] = 0;
	return buf;
}

static void peer_spawn_child(const struct peer *p, const char *remote, int in, int out)
{
	const char *ssh = getenv("KTGEN_SSH");
	char *argv[12], *line;
	sigset_t none;
	int k = 0;

	/* Not the terminal's signals: we stop the run and end it ourselves. */
	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
		_exit(127);
	if (asprintf(&line, "exec %s \"$@\"", ssh && *ssh ? ssh : "ssh -o BatchMode=yes") < 0)
		_exit(127);
	argv[k++] = "sh";
	argv[k++] = "-c";
	argv[k++] = line;
	argv[k++] = "ktgen-ssh";
	if (p->port[0]) {
		argv[k++] = "-p";
		argv[k++] = (char *)p->port;
	}
	argv[k++] = "--";
	argv[k++] = (char *)p->dest;
	argv[k++] = (char *)remote;
	argv[k] = NULL;
	execv("/bin/sh", argv);
	_exit(127);
}

static int peer_reap(struct peer *p, bool kill_it)
{
	int st;

	if (p->pid <= 0)
		return -1;
	if (kill_it)
		kill(-p->pid, SIGTERM);
	while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* Up to @len bytes from @fd, waiting until @deadline (now_ms()); 0 at its
 * end, -1 with errno (ETIMEDOUT, EINTR for a signal outside @mask).
 */
static ssize_t read_until(int fd, char *buf, size_t len, int64_t deadline,
			  const sigset_t *mask)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts;
	int64_t left;
	int r;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000;
		r = ppoll(&pfd, 1, &ts, mask);
		if (r < 0 && (errno != EINTR || mask))
			return -1;
		if (r > 0)
			return read(fd, buf, len);
	}
}

/* The peer's side, started: ssh (or the command) with its pipes, in its
 * own process group; -1, said, when it could not be.
 */
static int peer_spawn(struct peer *p)
{
	int to[2] = { -1, -1 }, from[2] = { -1, -1 }, i;
	char *remote = remote_command(p);

	if (!remote || pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) {
		fprintf(stderr, "ktgen: peer %s: %s\n", p->url, strerror(errno ? errno : ENOMEM));
		goto fail;
	}
	p->pid = fork();
	if (p->pid == 0)
		peer_spawn_child(p, remote, to[0], from[1]);
	if (p->pid > 0)
		setpgid(p->pid, p->pid);	/* either of us may be first */
	if (p->pid < 0) {
		fprintf(stderr, "ktgen: peer %s: fork: %s\n", p->url, strerror(errno));
		goto fail;
	}
	close(to[0]);
	close(from[1]);
	p->to_fd = to[1];
	p->from_fd = from[0];
	free(remote);
	return 0;
fail:
	free(remote);
	for (i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	return -1;
}

/* The peer ended, or timed out, before its "ready" line (@failed: the
 * read failed, with errno @err): said, with what it said instead; reaped.
 */
static int peer_not_ready(struct peer *p, const char *line, size_t len, bool failed, int err)
{
	int ret;

	if (err == EINTR)
		fprintf(stderr, "ktgen: peer %s: interrupted before its sink was ready\n", p->url);
	else if (err == ETIMEDOUT)
		fprintf(stderr, "ktgen: peer %s: no sink ready after %lld s\n", p->url,
			(long long)peer_timeout_ms() / 1000);
	ret = peer_reap(p, failed);
	if (err != EINTR)
		fprintf(stderr, "ktgen: peer %s: ended (status %d%s) before its sink was ready%s\n",
			p->url, ret, ret == 255 ? ": ssh failed" : ret == 127 ? ": no ktgen there?" : "",
			len ? ", saying:" : "");
	if (len)
		fprintf(stderr, "  %s\n", line);
	close(p->to_fd);
	close(p->from_fd);
	p->to_fd = p->from_fd = -1;
	return err == ETIMEDOUT ? PEER_UNTRUSTED : PEER_FAILED;
}

int peer_start(struct peer *p, const sigset_t *sigmask)
{
	int64_t deadline = now_ms() + peer_timeout_ms();
	unsigned int id, resets;
	char line[128];
	size_t len = 0;
	ssize_t r = 0;
	int err;

	if (peer_spawn(p))
		return -1;
	/* "ready ID RESETS [TOKEN]", a byte at a time: what follows is its
	 * document.
	 */
	while (len < sizeof(line) - 1) {
		r = read_until(p->from_fd, line + len, 1, deadline, sigmask);
		if (r <= 0)
			break;
		if (line[len] == '\n')
			break;
		len++;
	}
	err = r < 0 ? errno : 0;
	line[len] = 0;
	p->token = 0;
	if (sscanf(line, "ready %u %u %" SCNx64, &id, &resets, &p->token) >= 2) {
		p->sink_id = id;
		p->resets = resets;
		return 0;
	}
	return peer_not_ready(p, line, len, r < 0, err);
}

void peer_window(struct peer *p, uint32_t warmup_ms)
{
	/* A peer already gone shows in peer_finish(). */
	if (p->to_fd >= 0)
		dprintf(p->to_fd, "start %u\n", warmup_ms);
}

/*
 * What a peer's document must be to be believed: its sink's id and
 * receive counts non-negative integers, its window's figures finite and
 * non-negative. NULL, or what is wrong.
 */
static const char *peer_doc_bad(const struct json *doc)
{
	const struct json *rx = json_path(doc, "sink.rx"), *w, *id = json_path(doc, "sink.id");
	size_t i;

	if (doc->type != JSON_OBJECT)
		return "not an object";
	if (!id || id->type != JSON_NUMBER || !id->is_uint)
		return "no sink id";
	if (!rx || rx->type != JSON_OBJECT || !json_get(rx, "bytes"))
		return "no sink.rx with its bytes";
	for (i = 0; i < rx->len; i++)
		if (rx->items[i].type != JSON_NUMBER || !rx->items[i].is_uint)
			return "a sink.rx figure that is no count";
	w = json_get(doc, "window");
	if (w && w->type != JSON_OBJECT)
		return "a window that is no object";
	for (i = 0; w && i < w->len; i++) {
		const struct json *v = &w->items[i];

		if (v->type == JSON_NUMBER && !v->is_uint && (!isfinite(v->num) || v->num < 0))
			return "a window figure negative or not finite";
	}
	return NULL;
}

/* The peer's whole result into *@bufp (grown, up to PEER_DOC_MAX, from
 * @cap) until its end or @deadline: the last read's return, errno set
 * when it is negative.
 */
static ssize_t peer_read_all(struct peer *p, char **bufp, size_t *lenp, size_t cap,
			     int64_t deadline)
{
	char *buf = *bufp;
	size_t len = 0;
	ssize_t r;

	while ((r = read_until(p->from_fd, buf + len, cap - len - 1, deadline, NULL)) > 0) {
		len += r;
		if (cap - len < 4096) {
			char *bigger = cap < PEER_DOC_MAX ? realloc(buf, cap * 2) : NULL;

			if (!bigger) {
				fprintf(stderr, "ktgen: peer %s: a result over %d MiB: not a ktgen document\n",
					p->url, PEER_DOC_MAX >> 20);
				r = -1;
				errno = EFBIG;
				break;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	*bufp = buf;
	*lenp = len;
	return r;
}

/* A result that parsed: believed (peer_doc_bad), and its sink saw only
 * the payload; PEER_UNTRUSTED (the document dropped) or PEER_FAILED.
 */
static int peer_doc_check(struct peer *p)
{
	const char *bad = peer_doc_bad(p->doc);
	const struct json *v;
	uint64_t errors;

	if (bad) {
		fprintf(stderr, "ktgen: peer %s: its result is not believed: %s\n", p->url, bad);
		json_free(p->doc);
		p->doc = NULL;
		return PEER_UNTRUSTED;
	}
	/* A sink that saw other bytes than the payload: the run failed. */
	v = json_path(p->doc, "sink.rx.verify_errors");
	if (v && !json_u64(v, &errors) && errors) {
		fprintf(stderr, "ktgen: peer %s: the sink found %llu errors in the payload\n",
			p->url, (unsigned long long)errors);
		return PEER_FAILED;
	}
	return 0;
}

int peer_finish(struct peer *p)
{
	int64_t timeout = peer_timeout_ms(), deadline = now_ms() + timeout;
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), err[128];
	ssize_t r;
	int st;

	if (p->pid <= 0 || !buf) {
		free(buf);
		return PEER_UNTRUSTED;
	}
	close(p->to_fd);
	p->to_fd = -1;
	r = peer_read_all(p, &buf, &len, cap, deadline);
	if (r < 0 && errno == ETIMEDOUT)
		fprintf(stderr, "ktgen: peer %s: no result after %lld s\n", p->url,
			(long long)timeout / 1000);
	else if (r < 0 && errno != EFBIG)
		fprintf(stderr, "ktgen: peer %s: reading its result: %s\n", p->url, strerror(errno));
	close(p->from_fd);
	p->from_fd = -1;
	st = peer_reap(p, r < 0);
	buf[len] = 0;
	p->doc = len && r >= 0 ? json_parse(buf, len, err, sizeof(err)) : NULL;
	free(buf);
	if (r < 0)
		return PEER_UNTRUSTED;
	if (st) {
		fprintf(stderr, "ktgen: peer %s: ended with status %d%s\n", p->url, st,
			p->doc ? " (its result follows)" : "");
		return PEER_FAILED;
	}
	if (!p->doc) {
		fprintf(stderr, "ktgen: peer %s: no result%s%s\n", p->url, len ? ": " : "",
			len ? err : "");
		return PEER_UNTRUSTED;
	}
	return peer_doc_check(p);
}

int peer_check_counts(struct peer *p, uint64_t sent)
{
	uint64_t got;

	if (!p->doc || json_u64(json_path(p->doc, "sink.rx.bytes"), &got) || got <= sent)
		return 0;
	fprintf(stderr, "ktgen: peer %s: its sink says it received %llu bytes, more than the run sent (%llu): not believed\n",
		p->url, (unsigned long long)got, (unsigned long long)sent);
	json_free(p->doc);	/* not printed as the peer's */
	p->doc = NULL;
	return PEER_UNTRUSTED;
}

/* A parsed document back through the print path (JSON only). */
static void print_tree(const char *key, const struct json *j)
{
	size_t i;

	switch (j->type) {
	case JSON_OBJECT:
	case JSON_ARRAY:
		if (j->type == JSON_OBJECT)
			print_open_object(key);
		else
			print_open_array(key);
		for (i = 0; i < j->len; i++)
			print_tree(j->type == JSON_OBJECT ? j->items[i].key : NULL, &j->items[i]);
		if (j->type == JSON_OBJECT)
			print_close_object();
		else
			print_close_array();
		break;
	case JSON_STRING:
		print_string(PRINT_JSON, key, NULL, j->str);
		break;
	case JSON_NUMBER:
		if (j->is_uint)
			print_u64(PRINT_JSON, key, NULL, j->u);
		else
			print_double(PRINT_JSON, key, NULL, j->num);
		break;
	case JSON_BOOL:
		print_bool(PRINT_JSON, key, NULL, j->boolean);
		break;
	case JSON_NULL:
		break;
	}
}

static double num_at(const struct json *doc, const char *path)
{
	double v;

	return json_number(json_path(doc, path), &v) ? 0 : v;
}

void peer_print(const struct peer *p)
{
	const struct json *rx;
	size_t i;

	if (!p->doc)
		return;
	print_open_object("peer");
	print_string(PRINT_JSON, "url", NULL, p->url);
	for (i = 0; i < p->doc->len && p->doc->type == JSON_OBJECT; i++)
		print_tree(p->doc->items[i].key, &p->doc->items[i]);
	print_close_object();
	if (print_is_json())
		return;

	print_text("  peer %s: sink %.0f", p->url, num_at(p->doc, "sink.id"));
	rx = json_path(p->doc, "sink.rx");
	for (i = 0; rx && rx->type == JSON_OBJECT && i < rx->len; i++)
		if (rx->items[i].is_uint)
			print_text("  %s %llu", rx->items[i].key,
				   (unsigned long long)rx->items[i].u);
	print_text("\n");
	if (json_get(p->doc, "window"))
		print_text("  peer window %.3f s: %.2f Mbit/s received, cpu %.0f x %.1f%% busy, "
			   "%.3f us/KB (%s)\n",
			   num_at(p->doc, "window.duration_ns") / 1e9,
			   num_at(p->doc, "window.rx_bps") / 1e6,
			   num_at(p->doc, "cpu.cpus"), num_at(p->doc, "cpu.util_pct"),
			   num_at(p->doc, "cpu.us_per_kb"),
			   json_string(json_path(p->doc, "cpu.method")) ?: "?");
}

void peer_free(struct peer *p)
{
	if (p->to_fd >= 0)
		close(p->to_fd);
	if (p->from_fd >= 0)
		close(p->from_fd);
	if (p->pid > 0)
		peer_reap(p, true);
	json_free(p->doc);
	p->doc = NULL;
	p->to_fd = p->from_fd = -1;
}

/* --- the far end: peer serve --------------------------------------------- */

struct peer_snap {
	uint64_t	ns;
	uint64_t	busy_ns;	/* all CPUs, from /proc/stat */
	uint32_t	cpus;
	uint64_t	rx_bytes, rx_msgs;
};

/* Busy time of all CPUs: the "cpu" line of /proc/stat but idle and iowait
 * (guest time is in user already).
 */
static int read_proc_stat(struct peer_snap *s)
{
	unsigned long long v[8] = { };
	long hz = sysconf(_SC_CLK_TCK);
	char line[512];
	FILE *f = fopen("/proc/stat", "re");
	int n = 0;

	s->cpus = 0;
	s->busy_ns = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu ", 4))
			n = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
				   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
		else if (!strncmp(line, "cpu", 3))
			s->cpus++;
	}
	fclose(f);
	if (n < 4 || hz <= 0)
		return -1;
	s->busy_ns = (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * (1000000000ull / hz);
	return 0;
}

struct sink_reply {
	struct nlmsghdr	*copy;
};

static int sink_copy_cb(const struct nlmsghdr *nlh, void *data)
{
	struct sink_reply *r = data;

	free(r->copy);
	r->copy = malloc(nlh->nlmsg_len);
	if (!r->copy)
		return MNL_CB_ERROR;
	memcpy(r->copy, nlh, nlh->nlmsg_len);
	return MNL_CB_OK;
}

static const struct nlattr *sink_rx_nest(const struct nlmsghdr *nlh)
{
	static const enum mnl_attr_data_type types[KTGEN_A_SINK_MAX + 1] = {
		[KTGEN_A_SINK_RX] = MNL_TYPE_NESTED,
	};
	const struct nlattr *tb[KTGEN_A_SINK_MAX + 1];

	nl_parse(nlh, types, KTGEN_A_SINK_MAX, tb);
	return tb[KTGEN_A_SINK_RX];
}

static int snap(struct nl_ctx *ctx, uint32_t id, struct peer_snap *s, struct sink_reply *r)
{
	const struct nlattr *rx;

	if (sink_get(ctx, id, sink_copy_cb, r) || !r->copy)
		return -1;
	s->ns = now_ns();
	read_proc_stat(s);
	rx = sink_rx_nest(r->copy);
	s->rx_bytes = nl_nested_u64(rx, KTGEN_A_RX_STATS_BYTES);
	s->rx_msgs = nl_nested_u64(rx, KTGEN_A_RX_STATS_MSGS);
	return 0;
}

static volatile sig_atomic_t serve_signal;

static void serve_on_signal(int sig)
{
	serve_signal = sig;
}

/* Lines from this side until the end of stdin: "start MS" opens the
 * window MS ms later. @w0 is taken then; false when it never opened.
 */
static bool serve_wait(struct nl_ctx *ctx, uint32_t id, struct peer_snap *w0,
		       struct sink_reply *r)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	int64_t open_at = -1;
	bool opened = false;
	char line[64];
	size_t len = 0;
	unsigned int ms;
	ssize_t n;
	int ret;

	while (!serve_signal) {
		int timeout = -1;

		if (open_at >= 0 && !opened) {
			int64_t left = open_at - now_ms();

			if (left <= 0) {
				opened = !snap(ctx, id, w0, r);
				open_at = -1;
				continue;
			}
			timeout = left > 1000000 ? 1000000 : (int)left;
		}
		ret = poll(&pfd, 1, timeout);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0)
			continue;
		n = read(STDIN_FILENO, line + len, 1);
		if (n <= 0)
			break;		/* the run ended, or its side went away */
		if (line[len] != '\n' && len < sizeof(line) - 2) {
			len++;
			continue;
		}
		line[len] = 0;
		len = 0;
		if (sscanf(line, "start %u", &ms) == 1 && open_at < 0 && !opened)
			open_at = now_ms() + ms;
	}
	return opened;
}

static void serve_usage(FILE *f)
{
	fputs("Usage: ktgen peer serve tcp|udp port PORT [ipv6] [rx MODE] [cpus LIST]\n"
	      "                        [rcvbuf BYTES] [rr [resp-max BYTES]]\n"
	      "                        [knob IFNAME[@NETNS] KNOB]...\n"
	      "The far end of 'ktgen run ... peer ssh://HOST', which runs it there\n"
	      "with -j over ssh: applies the knobs, adds the sink, prints 'ready ID\n"
	      "RESETS [TOKEN]' (an rr sink's token, which the run then carries);\n"
	      "'start MS' on stdin opens its window MS ms later, the end of\n"
	      "stdin closes it. Then it deletes the sink, puts the knobs back and\n"
	      "prints the sink, the window's receive rate and CPU (/proc/stat), its\n"
	      "knobs and counters.\n", f);
}

static void print_window(const struct peer_snap *w0, const struct peer_snap *w1)
{
	uint64_t ns = w1->ns - w0->ns, busy = w1->busy_ns - w0->busy_ns;
	uint64_t bytes = w1->rx_bytes - w0->rx_bytes, msgs = w1->rx_msgs - w0->rx_msgs;
	struct cpu_cost c;

	if (w1->busy_ns < w0->busy_ns)
		busy = 0;
	cpu_cost(busy, 0, w1->cpus, ns, bytes, msgs, &c);
	print_open_object("window");
	print_u64(PRINT_ANY, "duration_ns", "  window %llu ns", ns);
	print_u64(PRINT_ANY, "rx_bytes", "  rx %llu bytes", bytes);
	print_u64(PRINT_ANY, "rx_msgs", " %llu msgs", msgs);
	print_u64(PRINT_ANY, "rx_bps", " %llu bit/s\n", rate_bps(bytes, ns));
	print_close_object();
	print_open_object("cpu");
	print_string(PRINT_ANY, "method", "  cpu (%s)", "proc-stat");
	print_u64(PRINT_ANY, "cpus", " %llu cpus", w1->cpus);
	print_u64(PRINT_ANY, "busy_ns", " busy %llu ns", busy);
	print_double(PRINT_ANY, "util_pct", " %.1f%%", c.util_pct);
	print_double(PRINT_ANY, "us_per_kb", " %.3f us/KB\n", c.us_per_kb);
	print_close_object();
}

/* serve's words: the sink's (sink add's), then its knobs; -1 on a usage
 * error, nothing left to free.
 */
static int serve_parse(int argc, char **argv, struct sink_args *args, struct knob_list *knobs)
{
	int i, k, n;

	for (k = 0; k < argc && strcmp(argv[k], "knob"); k++)
		;
	if (sink_add_parse(args, k, argv))
		return -1;
	for (i = k; i < argc; i += n + 1) {
		if (strcmp(argv[i], "knob")) {
			usage_error("peer serve: unknown keyword '%s'", argv[i]);
			n = -1;
		} else {
			n = knob_parse_dev(knobs, argc - i - 1, argv + i + 1);
		}
		if (n < 0) {
			knobs_free(knobs);
			return -1;
		}
	}
	return 0;
}

/* What the peer's side saw, for the runner: one JSON object on stdout. */
static void serve_report(const struct sink_reply *r, bool opened, const struct peer_snap *w0,
			 const struct peer_snap *w1, const struct knob_list *knobs,
			 const struct ctr_set *delta)
{
	struct utsname uts;

	uname(&uts);
	print_open_object(NULL);
	print_string(PRINT_JSON, "host", NULL, uts.nodename);
	print_string(PRINT_JSON, "kernel", NULL, uts.release);
	if (r->copy)
		sink_print_cb(r->copy, "sink");
	if (opened && r->copy)
		print_window(w0, w1);
	knobs_print(knobs, "knobs");
	counters_print(delta);
	print_close_object();
}

/* Ctrl-C, a hangup or the ssh session's end stop the wait (the sink is
 * deleted and the knobs put back); a closed pipe is an error, not a death.
 */
static void serve_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = serve_on_signal };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int peer_serve(int argc, char **argv)
{
	struct sink_reply r = { };
	struct peer_snap w0, w1;
	struct ctr_set before = { }, after = { };
	struct knob_list knobs = { };
	struct sink_added added;
	struct sink_args args;
	struct nl_ctx ctx;
	int ret = EXIT_OK;
	char token[24] = "";
	bool opened;
	uint32_t id;

	if (serve_parse(argc, argv, &args, &knobs))
		return EXIT_USAGE;
	serve_signals();
	if (nl_open(&ctx)) {
		knobs_free(&knobs);
		return EXIT_FAIL;
	}
	if (knobs_apply(&knobs)) {
		ret = EXIT_FAIL;
		goto out;
	}
	if (sink_add(&ctx, &args, &added)) {
		knobs_restore(&knobs);
		ret = EXIT_FAIL;
		goto out;
	}
	id = added.id;
	if (added.token) {
		token[0] = ' ';
		sink_format_token(added.token, token + 1, sizeof(token) - 1);
	}
	counters_read(&before);
	printf("ready %u %u%s\n", id, knobs.resets, token);
	fflush(stdout);

	opened = serve_wait(&ctx, id, &w0, &r);
	if (snap(&ctx, id, &w1, &r))
		ret = EXIT_FAIL;
	counters_read(&after);
	counters_delta(&after, &before);
	if (sink_del(&ctx, false, id))
		ret = EXIT_FAIL;
	if (knobs_restore(&knobs))
		ret = EXIT_FAIL;

	serve_report(&r, opened, &w0, &w1, &knobs, &after);
out:
	free(r.copy);
	counters_free(&before);
	counters_free(&after);
	knobs_free(&knobs);
	nl_close(&ctx);
	return ret;
}

int do_peer(int argc, char **argv)
{
	if (argc < 1 || is_help(argv[0])) {
		serve_usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? EXIT_USAGE : EXIT_OK;
	}
	if (strcmp(argv[0], "serve")) {
		usage_error("peer: unknown command '%s' (peer serve is what run ... peer runs)",
			    argv[0]);
		return EXIT_USAGE;
	}
	return peer_serve(argc - 1, argv + 1);
}
