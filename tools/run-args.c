// SPDX-License-Identifier: GPL-2.0
/*
 * A run's words: `ktgen run TEST ...` parsed into struct run_args, and,
 * for a job (ab, sweep, run ... repeat), checked before its first run for
 * what the kernel would refuse.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/ktgen.h>

#include "dev.h"
#include "ktgen.h"
#include "peer.h"
#include "pmu.h"
#include "run.h"

static int kw_to(struct run_args *a, const char *v)
{
	return parse_addr(v, &a->to);
}

static int kw_local(struct run_args *a, const char *v)
{
	return parse_addr(v, &a->local);
}

static int kw_port(struct run_args *a, const char *v)
{
	a->has_port = true;
	return parse_port(v, &a->port);
}

static int kw_dev(struct run_args *a, const char *v)
{
	a->ifindex = if_nametoindex(v);
	return a->ifindex ? 0 : -ENODEV;
}

static int kw_size(struct run_args *a, const char *v)
{
	a->has_size = true;
	return parse_size_u32(v, &a->size);
}

static int kw_flows(struct run_args *a, const char *v)
{
	a->has_flows = true;
	return parse_u32(v, &a->flows);
}

static int kw_cpus(struct run_args *a, const char *v)
{
	return parse_cpulist(v, a->cpus, sizeof(a->cpus), &a->cpus_len);
}

static int kw_time(struct run_args *a, const char *v)
{
	a->has_time = true;
	a->limits++;
	return parse_secs_ms(v, &a->time_ms);
}

static int kw_bytes(struct run_args *a, const char *v)
{
	a->has_bytes = true;
	a->limits++;
	return parse_size(v, &a->bytes);
}

static int kw_msgs(struct run_args *a, const char *v)
{
	a->has_msgs = true;
	a->limits++;
	return parse_u64(v, &a->msgs);
}

static int kw_tx(struct run_args *a, const char *v)
{
	a->tx_mode = lookup_name(v, tx_mode_names, ARRAY_SIZE(tx_mode_names));
	return a->tx_mode < 0 ? -EINVAL : 0;
}

static int kw_buffer(struct run_args *a, const char *v)
{
	a->has_buffer = true;
	return parse_size(v, &a->buffer);
}

static int kw_sndbuf(struct run_args *a, const char *v)
{
	a->has_sndbuf = true;
	return parse_size_u32(v, &a->sndbuf);
}

static int kw_req(struct run_args *a, const char *v)
{
	a->has_req = true;
	return parse_size_u32(v, &a->req);
}

static int kw_resp(struct run_args *a, const char *v)
{
	a->has_resp = true;
	return parse_size_u32(v, &a->resp);
}

/*
 * Request/response: transactions/s per flow. Streams: bits/s per flow
 * with an SI suffix (100M, 2.5G), or packets (send calls) per second
 * ("1000pps").
 */
static int kw_rate(struct run_args *a, const char *v)
{
	static const char sfx[] = "kMGT";
	double x, mul = 1;
	const char *s;
	char *end;

	if (a->test == KTGEN_TEST_TCP_RR || a->test == KTGEN_TEST_UDP_RR ||
	    a->test == KTGEN_TEST_TCP_CRR) {
		a->has_rate = true;
		return parse_u32(v, &a->rate);
	}
	x = strtod(v, &end);
	if (end == v || !(x > 0))
		return -EINVAL;
	if (!strcmp(end, "pps")) {
		if (x != (uint32_t)x || x > 100000000)
			return -EINVAL;
		a->pace_pps = (uint32_t)x;
		return 0;
	}
	if (*end && (s = strchr(sfx, *end)) != NULL) {
		for (; s >= sfx; s--)
			mul *= 1000;
		end++;
	}
	if (*end || x * mul < 1000 || x * mul > 1e19)
		return -EINVAL;
	a->pace_bps = (uint64_t)(x * mul);
	return 0;
}

static int kw_busy_poll(struct run_args *a, const char *v)
{
	a->has_busy_poll = true;
	return parse_usecs(v, &a->busy_poll_us);
}

static int kw_gso(struct run_args *a, const char *v)
{
	a->has_gso = true;
	return parse_u32(v, &a->gso);
}

static int kw_burst(struct run_args *a, const char *v)
{
	a->has_burst = true;
	return parse_size_u32(v, &a->burst);
}

/* 0x and hex digits (as sink add prints it), or decimal. */
static int kw_token(struct run_args *a, const char *v)
{
	bool hex = !strncmp(v, "0x", 2) || !strncmp(v, "0X", 2);
	char *end;

	if (!*v || *v == '-' || *v == '+' || (hex && !v[2]))
		return -EINVAL;
	errno = 0;
	a->token = strtoull(v, &end, hex ? 16 : 10);
	a->has_token = true;
	return errno || *end || !a->token ? -EINVAL : 0;
}

static int kw_rr_timeout(struct run_args *a, const char *v)
{
	a->has_rr_timeout = true;
	return parse_secs_ms(v, &a->rr_timeout_ms);
}

/* "50,90,99.9": percentiles, in parts per million for the kernel. */
static int kw_percentiles(struct run_args *a, const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL, *end;
	int err = 0;

	a->npct = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		double p = strtod(tok, &end);

		if (*end || end == tok || p < 0 || p > 100 || a->npct == ARRAY_SIZE(a->pct))
			err = -EINVAL;
		else
			a->pct[a->npct++] = (uint32_t)(p * 10000 + 0.5);
	}
	free(copy);
	return err || !a->npct ? -EINVAL : 0;
}

static int kw_events(struct run_args *a, const char *v)
{
	return pmu_parse_events(v, &a->events);
}

static int kw_interval(struct run_args *a, const char *v)
{
	a->has_interval = true;
	return parse_secs_ms(v, &a->interval_ms);
}

static int kw_warmup(struct run_args *a, const char *v)
{
	a->has_warmup = true;
	return parse_secs_ms(v, &a->warmup_ms);
}

static const struct run_kw {
	const char	*name;
	int		(*parse)(struct run_args *a, const char *v);
	const char	*what;
} run_kws[] = {
	{ "to",		kw_to,		"an IPv4 or IPv6 address" },
	{ "port",	kw_port,	"a port number up to 65535" },
	{ "local",	kw_local,	"an IPv4 or IPv6 address" },
	{ "dev",	kw_dev,		"the name of an existing network device" },
	{ "size",	kw_size,	"a size in bytes below 4G" },
	{ "flows",	kw_flows,	"a number below 2^32" },
	{ "cpus",	kw_cpus,	"a CPU list like 0-3,5 (CPUs below 1024)" },
	{ "time",	kw_time,	"seconds, like 10 or 0.5" },
	{ "bytes",	kw_bytes,	"a size in bytes" },
	{ "msgs",	kw_msgs,	"a number" },
	{ "tx",		kw_tx,		"stack, cached, nocache, zerocopy or user" },
	{ "buffer",	kw_buffer,	"a size in bytes" },
	{ "sndbuf",	kw_sndbuf,	"a size in bytes below 4G" },
	{ "interval",	kw_interval,	"seconds, like 1 or 0.5" },
	{ "warmup",	kw_warmup,	"seconds, like 2 or 0.5" },
	{ "req",	kw_req,		"a size in bytes" },
	{ "resp",	kw_resp,	"a size in bytes" },
	{ "rate",	kw_rate,	"transactions/s per flow (request/response), or bits/s "
					"like 100M or packets/s like 1000pps (streams)" },
	{ "burst",	kw_burst,	"bytes (rate in bits/s) or packets (rate in pps)" },
	{ "percentiles", kw_percentiles, "up to 16 percentiles like 50,90,99.9" },
	{ "timeout",	kw_rr_timeout,	"seconds, like 1 or 0.2" },
	{ "token",	kw_token,	"the sink's token (0x and 16 hex digits, or decimal)" },
	{ "busy-poll",	kw_busy_poll,	"microseconds, like 50, 200us or 10ms" },
	{ "gso",	kw_gso,		"datagrams per send call, 2 to 64" },
	{ "events",	kw_events,	"PMU events like cycles,instructions (cycles, "
					"instructions, cache-references, cache-misses, "
					"llc-load-misses, each once) or all" },
};

/* One "keyword [value]" of a run; returns the words used, or -1. */
static int run_arg(struct run_args *a, int argc, char **argv)
{
	const struct run_kw *kw = NULL;
	unsigned int i;

	if (!strcmp(argv[0], "probe-rx")) {
		a->probe_rx = true;
		return 1;
	}
	if (!strcmp(argv[0], "nodelay") || !strcmp(argv[0], "detach") ||
	    !strcmp(argv[0], "probe")) {
		*(argv[0][0] == 'n' ? &a->nodelay :
		  argv[0][0] == 'd' ? &a->detach : &a->probe) = true;
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(run_kws) && !kw; i++)
		if (!strcmp(argv[0], run_kws[i].name))
			kw = &run_kws[i];
	if (!kw) {
		usage_error("run: unknown keyword '%s'", argv[0]);
		return -1;
	}
	if (argc < 2) {
		usage_error("run: %s needs %s", kw->name, kw->what);
		return -1;
	}
	if (kw->parse(a, argv[1])) {
		usage_error("run: %s needs %s, not '%s'", kw->name, kw->what, argv[1]);
		return -1;
	}
	return 2;
}

static int run_check(const struct run_args *a)
{
	if (!a->to.family) {
		usage_error("run: where to? (to ADDR is required)");
		return -1;
	}
	if (!a->has_port) {
		usage_error("run: port PORT is required");
		return -1;
	}
	if (a->local.family && a->local.family != a->to.family) {
		usage_error("run: to is an %s address but local is an %s address",
			    a->to.family == AF_INET ? "IPv4" : "IPv6",
			    a->local.family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	if (a->limits > 1) {
		usage_error("run: give one limit: time, bytes or msgs");
		return -1;
	}
	return 0;
}

int run_parse(struct run_args *a, int test, int argc, char **argv)
{
	uint32_t hdr;
	int n;

	memset(a, 0, sizeof(*a));
	a->test = test;
	a->tx_mode = -1;
	a->peer.to_fd = a->peer.from_fd = -1;
	for (; argc > 0; argc -= n, argv += n) {
		if (!strcmp(argv[0], "knob")) {
			n = knob_parse_dev(&a->knobs, argc - 1, argv + 1);
			if (n++ < 0)
				return -1;
			continue;
		}
		if (!strcmp(argv[0], "peer")) {
			if (argc < 2) {
				usage_error("run: peer needs ssh://[user@]host[:port]");
				return -1;
			}
			if (a->has_peer) {
				usage_error("run: one peer");
				return -1;
			}
			if (peer_parse_url(&a->peer, argv[1]))
				return -1;
			a->has_peer = true;
			n = 2;
			continue;
		}
		n = peer_parse_arg(&a->peer, argc, argv);
		if (n == 0)
			n = run_arg(a, argc, argv);
		if (n < 0)
			return -1;
	}
	if (a->detach && a->knobs.n) {
		usage_error("run: knob: a detached run has nobody to put the knobs back");
		return -1;
	}
	if ((a->peer.nsink || a->peer.nknob) && !a->has_peer) {
		usage_error("run: peer-rx, peer-cpus, peer-rcvbuf and peer-knob are for a peer (peer ssh://HOST)");
		return -1;
	}
	if (a->detach && a->has_peer) {
		usage_error("run: peer: a detached run has nobody to collect the peer's result");
		return -1;
	}
	if (run_check(a))
		return -1;
	/* the kernel's defaults: 1 byte, udp_rr its 40-byte header */
	hdr = a->test == KTGEN_TEST_UDP_RR ? KTG_UDP_RR_HDR : 1;
	return a->has_peer ? peer_prepare(&a->peer, a->test, a->port, a->to.family == AF_INET6,
					  a->has_req ? a->req : hdr,
					  a->has_resp ? a->resp : hdr) : 0;
}

/*
 * What the kernel would refuse of a run's words (its policy's ranges and
 * the combinations kmod/nl-run.c checks), for a job (ab, sweep, run ...
 * repeat) to find before its first run, naming the keyword. A plain run
 * leaves this to the kernel, whose message names the attribute.
 */
/* What every test takes. */
static int run_limits_common(const struct run_args *a)
{
	if (!a->port) {
		usage_error("run: port needs a port from 1 to 65535");
		return -1;
	}
	if (a->has_flows && (a->flows < 1 || a->flows > 1024)) {
		usage_error("run: flows needs 1 to 1024 flows");
		return -1;
	}
	if (a->has_time && a->time_ms > 86400000) {
		usage_error("run: time needs at most 86400 seconds");
		return -1;
	}
	if (a->has_interval && (a->interval_ms < 100 || a->interval_ms > 3600000)) {
		usage_error("run: interval needs 0.1 to 3600 seconds");
		return -1;
	}
	if (a->has_warmup && a->warmup_ms > 3600000) {
		usage_error("run: warmup needs at most 3600 seconds");
		return -1;
	}
	if (a->detach) {
		usage_error("run: a job's runs are waited for, not detached");
		return -1;
	}
	if (a->has_burst && !a->pace_bps && !a->pace_pps) {
		usage_error("run: burst is for paced streams (rate)");
		return -1;
	}
	if (a->has_gso && a->test != KTGEN_TEST_UDP_STREAM) {
		usage_error("run: gso batches udp_stream datagrams only");
		return -1;
	}
	if (a->has_gso && a->tx_mode > 0) {
		usage_error("run: gso sends with tx stack only");
		return -1;
	}
	return 0;
}

/* A stream's: no request/response keyword, sizes a datagram can carry. */
static int run_limits_stream(const struct run_args *a)
{
	static const struct {
		size_t off;
		const char *kw;
	} rr_only[] = {
		{ offsetof(struct run_args, has_req), "req" },
		{ offsetof(struct run_args, has_resp), "resp" },
		{ offsetof(struct run_args, has_rr_timeout), "timeout" },
		{ offsetof(struct run_args, has_token), "token" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rr_only); i++)
		if (*(const bool *)((const char *)a + rr_only[i].off)) {
			usage_error("run: %s is for tcp_rr, udp_rr and tcp_crr", rr_only[i].kw);
			return -1;
		}
	if (a->npct) {
		usage_error("run: percentiles is for tcp_rr, udp_rr and tcp_crr");
		return -1;
	}
	if (a->has_size && (a->size < 1 || a->size > 1048576)) {
		usage_error("run: size needs 1 byte to 1M");
		return -1;
	}
	if (a->test == KTGEN_TEST_UDP_STREAM && a->has_size && a->size > 65507) {
		usage_error("run: size needs at most 65507 bytes for udp_stream");
		return -1;
	}
	if (a->has_gso && (a->gso < 2 || a->gso > 64 ||
			   (uint64_t)(a->has_size ? a->size : 1024) * a->gso > 65507)) {
		usage_error("run: gso needs 2 to 64 datagrams of at most 65507 bytes together");
		return -1;
	}
	return 0;
}

/* A request/response test's: req and resp, not size or bytes. */
static int run_limits_rr(const struct run_args *a)
{
	const char *test = test_names[a->test];

	if (a->has_size) {
		usage_error("run: size is for streams: %s takes req and resp", test);
		return -1;
	}
	if (a->has_bytes) {
		usage_error("run: bytes: a request/response run takes a time or msgs limit");
		return -1;
	}
	if (a->tx_mode > 0 && a->tx_mode != KTGEN_TX_MODE_USER) {
		usage_error("run: tx: a request/response run sends with tx stack or user");
		return -1;
	}
	if ((a->has_req && (a->req < 1 || a->req > 65507)) ||
	    (a->has_resp && (a->resp < 1 || a->resp > 65507))) {
		usage_error("run: %s needs 1 to 65507 bytes", a->has_req &&
			    (a->req < 1 || a->req > 65507) ? "req" : "resp");
		return -1;
	}
	if (a->test == KTGEN_TEST_UDP_RR && ((a->has_req && a->req < KTG_UDP_RR_HDR) ||
					     (a->has_resp && a->resp < KTG_UDP_RR_HDR))) {
		usage_error("run: %s needs at least %d bytes for udp_rr (its header)",
			    a->has_req && a->req < KTG_UDP_RR_HDR ? "req" : "resp", KTG_UDP_RR_HDR);
		return -1;
	}
	return 0;
}

static int run_limits_check(const struct run_args *a)
{
	bool rr = a->test == KTGEN_TEST_TCP_RR || a->test == KTGEN_TEST_UDP_RR ||
		  a->test == KTGEN_TEST_TCP_CRR;

	if (run_limits_common(a))
		return -1;
	return rr ? run_limits_rr(a) : run_limits_stream(a);
}

/*
 * A job's knobs, before its first run: each must be able to act on the
 * run's path. tx-nocache-copy changes only the stack's copy of user
 * memory (tx user); a device, feature or private flag that is not there,
 * or a fixed feature, would fail the first run of the variant after the
 * others had run.
 */
static int run_knobs_check(struct run_args *a)
{
	size_t i;

	for (i = 0; i < a->knobs.n; i++) {
		const struct knob *k = &a->knobs.k[i];

		if (!strcmp(k->name, "tx-nocache-copy") && a->tx_mode != KTGEN_TX_MODE_USER) {
			usage_error("run: knob %s feature tx-nocache-copy: no effect possible on tx %s (only tx user sends user memory)",
				    k->ifname, a->tx_mode > 0 ? tx_mode_names[a->tx_mode] : "stack");
			return -1;
		}
	}
	return knobs_check(&a->knobs);
}

int run_job_check(struct run_args *a)
{
	if (run_limits_check(a))
		return -1;
	return run_knobs_check(a);
}

/*
 * A job's run as it will be run (TEST and its words: the job's and a
 * variant's), parsed by run's parser and checked for what the kernel would
 * refuse, before the job's first run; @what names the variant in errors.
 */
int run_words_check(const char *what, int argc, char **argv)
{
	struct run_args a;
	int test, ret = -1;

	usage_context = what;
	test = argc ? lookup_name(argv[0], test_names, ARRAY_SIZE(test_names)) : -1;
	if (test < 0) {
		usage_error("run: unknown test '%s'", argc ? argv[0] : "");
	} else {
		ret = run_parse(&a, test, argc - 1, argv + 1);
		if (!ret)
			ret = run_job_check(&a);
		knobs_free(&a.knobs);
		peer_free(&a.peer);
	}
	usage_context = NULL;
	return ret;
}
