// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen run: start a test against a sink, wait for its result, and show,
 * stop or forget runs.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/ktgen.h>

#include "counters.h"
#include "dev.h"
#include "env.h"
#include "ktgen.h"
#include "nl.h"
#include "peer.h"
#include "print.h"
#include "show.h"

static const char * const test_names[] = {
	[KTGEN_TEST_TCP_STREAM]	= "tcp_stream",
	[KTGEN_TEST_UDP_STREAM]	= "udp_stream",
	[KTGEN_TEST_TCP_RR]	= "tcp_rr",
	[KTGEN_TEST_UDP_RR]	= "udp_rr",
	[KTGEN_TEST_TCP_CRR]	= "tcp_crr",
};

static const char * const tx_mode_names[] = {
	[KTGEN_TX_MODE_STACK]		= "stack",
	[KTGEN_TX_MODE_CACHED]		= "cached",
	[KTGEN_TX_MODE_NOCACHE]		= "nocache",
	[KTGEN_TX_MODE_ZEROCOPY]	= "zerocopy",
	[KTGEN_TX_MODE_USER]		= "user",
};

static const char * const state_names[] = {
	[KTGEN_RUN_STATE_RUNNING]	= "running",
	[KTGEN_RUN_STATE_STOPPING]	= "stopping",
	[KTGEN_RUN_STATE_DONE]		= "done",
	[KTGEN_RUN_STATE_STOPPED]	= "stopped",
	[KTGEN_RUN_STATE_FAILED]	= "failed",
};

/* How the text puts the duration after the state. */
static const char * const state_duration[] = {
	[KTGEN_RUN_STATE_RUNNING]	= "for",
	[KTGEN_RUN_STATE_STOPPING]	= "for",
	[KTGEN_RUN_STATE_DONE]		= "in",
	[KTGEN_RUN_STATE_STOPPED]	= "after",
	[KTGEN_RUN_STATE_FAILED]	= "after",
};

static const enum mnl_attr_data_type run_types[KTGEN_A_RUN_MAX + 1] = {
	[KTGEN_A_RUN_ID]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_TEST]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_REMOTE_ADDR]	= MNL_TYPE_BINARY,
	[KTGEN_A_RUN_REMOTE_PORT]	= MNL_TYPE_U16,
	[KTGEN_A_RUN_LOCAL_ADDR]	= MNL_TYPE_BINARY,
	[KTGEN_A_RUN_IFINDEX]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_SIZE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_FLOWS]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_CPUS]		= MNL_TYPE_BINARY,
	[KTGEN_A_RUN_TIME_MS]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_BYTES]		= MNL_TYPE_U64,
	[KTGEN_A_RUN_MSGS]		= MNL_TYPE_U64,
	[KTGEN_A_RUN_TX_MODE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_BUFFER]		= MNL_TYPE_U64,
	[KTGEN_A_RUN_SNDBUF]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_NODELAY]		= MNL_TYPE_FLAG,
	[KTGEN_A_RUN_DETACH]		= MNL_TYPE_FLAG,
	[KTGEN_A_RUN_STATE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_ERROR]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_ERROR_FLOW]	= MNL_TYPE_U32,
	[KTGEN_A_RUN_DURATION_NS]	= MNL_TYPE_U64,
	[KTGEN_A_RUN_SPLICE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_TX]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_RX]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_CPU_RUN]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_CPU_OTHER]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_INTERVAL_MS]	= MNL_TYPE_U32,
	[KTGEN_A_RUN_INTERVAL]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_WARMUP_MS]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_WINDOW]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_USER_BUF]		= MNL_TYPE_U64,
	[KTGEN_A_RUN_PROBE_COPIES]	= MNL_TYPE_FLAG,
	[KTGEN_A_RUN_REQ_SIZE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_RESP_SIZE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_RATE]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_PERCENTILES]	= MNL_TYPE_BINARY,
	[KTGEN_A_RUN_RR_TIMEOUT_MS]	= MNL_TYPE_U32,
	[KTGEN_A_RUN_LATENCY]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_PACE_BPS]		= MNL_TYPE_U64,
	[KTGEN_A_RUN_PACE_PPS]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_BURST]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_BUSY_POLL]		= MNL_TYPE_U32,
	[KTGEN_A_RUN_GSO]		= MNL_TYPE_U32,
};

static const enum mnl_attr_data_type latency_types[KTGEN_A_LATENCY_MAX + 1] = {
	[KTGEN_A_LATENCY_TRANSACTIONS]	= MNL_TYPE_U64,
	[KTGEN_A_LATENCY_TIMEOUTS]	= MNL_TYPE_U64,
	[KTGEN_A_LATENCY_LATE]		= MNL_TYPE_U64,
	[KTGEN_A_LATENCY_MIN_NS]	= MNL_TYPE_U64,
	[KTGEN_A_LATENCY_MAX_NS]	= MNL_TYPE_U64,
	[KTGEN_A_LATENCY_MEAN_NS]	= MNL_TYPE_U64,
	[KTGEN_A_LATENCY_STDDEV_NS]	= MNL_TYPE_U64,
	/* percentile: repeated, walked by hand */
};

static const enum mnl_attr_data_type window_types[KTGEN_A_WINDOW_MAX + 1] = {
	[KTGEN_A_WINDOW_START_NS]	= MNL_TYPE_U64,
	[KTGEN_A_WINDOW_DURATION_NS]	= MNL_TYPE_U64,
	[KTGEN_A_WINDOW_TX_BYTES]	= MNL_TYPE_U64,
	[KTGEN_A_WINDOW_TX_MSGS]	= MNL_TYPE_U64,
	[KTGEN_A_WINDOW_RX_BYTES]	= MNL_TYPE_U64,
	[KTGEN_A_WINDOW_RX_MSGS]	= MNL_TYPE_U64,
};

static const enum mnl_attr_data_type cpu_stats_types[KTGEN_A_CPU_STATS_MAX + 1] = {
	[KTGEN_A_CPU_STATS_METHOD]	= MNL_TYPE_U32,
	[KTGEN_A_CPU_STATS_CPUS]	= MNL_TYPE_U32,
	[KTGEN_A_CPU_STATS_BUSY_NS]	= MNL_TYPE_U64,
	[KTGEN_A_CPU_STATS_CYCLES]	= MNL_TYPE_U64,
	[KTGEN_A_CPU_STATS_ESTIMATED]	= MNL_TYPE_FLAG,
};

static const char * const cpu_method_names[] = {
	[KTGEN_CPU_METHOD_BUSY_TIME]	= "busy-time",
	[KTGEN_CPU_METHOD_PMU_CYCLES]	= "pmu-cycles",
	[KTGEN_CPU_METHOD_SW_EVENT]	= "sw-event",
};

static const enum mnl_attr_data_type tx_stats_types[KTGEN_A_TX_STATS_MAX + 1] = {
	[KTGEN_A_TX_STATS_BYTES]	= MNL_TYPE_U64,
	[KTGEN_A_TX_STATS_MSGS]		= MNL_TYPE_U64,
	[KTGEN_A_TX_STATS_ACKED]	= MNL_TYPE_U64,
	[KTGEN_A_TX_STATS_SEND_ERRORS]	= MNL_TYPE_U64,
	[KTGEN_A_TX_STATS_RETRANS]	= MNL_TYPE_U64,
	[KTGEN_A_TX_STATS_SRTT_US]	= MNL_TYPE_U32,
	[KTGEN_A_TX_STATS_CWND]		= MNL_TYPE_U32,
	[KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS] = MNL_TYPE_U32,
	[KTGEN_A_TX_STATS_NOCACHE_COPIES] = MNL_TYPE_U64,
};

/* "p99.9" for 999000 ppm: a JSON key and a text label. */
static void ppm_label(uint32_t ppm, char *buf, size_t len)
{
	snprintf(buf, len, "p%g", ppm / 10000.0);
}

/* The percentiles of a latency nest, in its order; how many (at most @n). */
static unsigned int latency_percentiles(const struct nlattr *nest, uint32_t *ppm,
					uint64_t *ns, unsigned int n)
{
	const struct nlattr *a, *p;
	unsigned int got = 0;

	if (!nest)
		return 0;
	mnl_attr_for_each_nested(a, nest) {
		const struct nlattr *pt[KTGEN_A_PERCENTILE_MAX + 1] = { NULL };

		if (mnl_attr_get_type(a) != KTGEN_A_LATENCY_PERCENTILE || got == n)
			continue;
		mnl_attr_for_each_nested(p, a)
			if (mnl_attr_get_type(p) <= KTGEN_A_PERCENTILE_MAX)
				pt[mnl_attr_get_type(p)] = p;
		if (!pt[KTGEN_A_PERCENTILE_PPM] || !pt[KTGEN_A_PERCENTILE_NS] ||
		    mnl_attr_validate(pt[KTGEN_A_PERCENTILE_PPM], MNL_TYPE_U32) ||
		    mnl_attr_validate(pt[KTGEN_A_PERCENTILE_NS], MNL_TYPE_U64))
			continue;
		ppm[got] = mnl_attr_get_u32(pt[KTGEN_A_PERCENTILE_PPM]);
		ns[got] = mnl_attr_get_u64(pt[KTGEN_A_PERCENTILE_NS]);
		got++;
	}
	return got;
}

/* A run-interval notification: cumulative counts at the interval's end. */
struct run_interval {
	uint32_t	index;
	uint64_t	end_ns;
	uint64_t	tx_bytes;
	uint64_t	rx_bytes;
	bool		has_rx;
	uint64_t	tx_msgs;	/* transactions, for tcp_rr and udp_rr */
	bool		rr;
	unsigned int	npct;		/* the interval's own latency percentiles */
	uint32_t	ppm[16];
	uint64_t	pct_ns[16];
};

/* Waiting for a run's end. */
/* One flow's counters (a flow-get message); absent figures are 0. */
struct flow_stat {
	uint64_t	bytes;
	uint64_t	msgs;
	const char	*key[5];
	uint64_t	val[5];
	unsigned int	n;
};

struct run_wait {
	uint32_t		id;
	bool			done;
	bool			stopping;	/* RUN_STOP sent on a signal */
	uint32_t		state;
	struct run_interval	*iv;		/* received so far */
	size_t			niv;
	struct env		env;
	struct ctr_set		before;		/* counters at the start */
	struct ctr_set		delta;		/* and their change at the end */
	bool			rr;		/* tcp_rr, udp_rr: intervals in trans/s */
	struct nlmsghdr		*final;		/* the result, printed after the wait */
	struct flow_stat	*flows;		/* each flow's, read at the end */
	size_t			nflows;
	const struct knob_list	*knobs;		/* applied for the run */
	const struct peer	*peer;		/* the receiving end elsewhere */
};

/*
 * A run's own warnings (the environment's are its own): text prints each
 * where it arises, JSON lists them as "warnings", which jobs (ab, sweep,
 * repeat) pass on. Reset for each run printed.
 */
#define RUN_WARNINGS	4
static struct {
	char		s[RUN_WARNINGS][192];
	unsigned int	n;
} run_warnings;

static const char *run_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *run_warning(const char *fmt, ...)
{
	static char spare[192];
	char *s = run_warnings.n < RUN_WARNINGS ? run_warnings.s[run_warnings.n++] : spare;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(spare), fmt, ap);
	va_end(ap);
	return s;
}

static uint32_t get_u32(const struct nlattr *a, uint32_t def)
{
	return a ? mnl_attr_get_u32(a) : def;
}

static void print_opt_u32(const struct nlattr *a, const char *key, const char *fmt)
{
	if (a)
		print_u64(fmt ? PRINT_ANY : PRINT_JSON, key, fmt, mnl_attr_get_u32(a));
}

static void print_opt_u64(const struct nlattr *a, const char *key)
{
	if (a)
		print_u64(PRINT_JSON, key, NULL, mnl_attr_get_u64(a));
}

/* "run 1 tcp_stream to 10.0.0.2:5001 tx stack size 65536 flows 4" and,
 * in JSON only, the rest of the run's settings.
 */
static void print_run_config(const struct nlattr **tb)
{
	print_u64(PRINT_ANY, "id", "run %llu", get_u32(tb[KTGEN_A_RUN_ID], 0));
	print_enum(tb[KTGEN_A_RUN_TEST], "test", " %s", test_names, ARRAY_SIZE(test_names));
	print_endpoint(tb[KTGEN_A_RUN_REMOTE_ADDR], tb[KTGEN_A_RUN_REMOTE_PORT], " to %s");
	print_addr(tb[KTGEN_A_RUN_REMOTE_ADDR], "remote_addr");
	if (tb[KTGEN_A_RUN_REMOTE_PORT])
		print_u64(PRINT_JSON, "remote_port", NULL,
			  ntohs(mnl_attr_get_u16(tb[KTGEN_A_RUN_REMOTE_PORT])));
	print_addr(tb[KTGEN_A_RUN_LOCAL_ADDR], "local_addr");
	print_opt_u32(tb[KTGEN_A_RUN_IFINDEX], "ifindex", NULL);
	print_enum(tb[KTGEN_A_RUN_TX_MODE], "tx_mode", " tx %s", tx_mode_names,
		   ARRAY_SIZE(tx_mode_names));
	print_opt_u32(tb[KTGEN_A_RUN_SIZE], "size", " size %llu");
	print_opt_u32(tb[KTGEN_A_RUN_GSO], "gso", " gso %llu");
	print_opt_u32(tb[KTGEN_A_RUN_FLOWS], "flows", " flows %llu");
	print_cpus(tb[KTGEN_A_RUN_CPUS], " cpus %s");
	print_opt_u32(tb[KTGEN_A_RUN_TIME_MS], "time_ms", NULL);
	print_opt_u64(tb[KTGEN_A_RUN_BYTES], "limit_bytes");
	print_opt_u64(tb[KTGEN_A_RUN_MSGS], "limit_msgs");
	print_opt_u64(tb[KTGEN_A_RUN_BUFFER], "buffer");
	print_opt_u32(tb[KTGEN_A_RUN_SNDBUF], "sndbuf", NULL);
	print_bool(PRINT_JSON, "nodelay", NULL, !!tb[KTGEN_A_RUN_NODELAY]);
	print_bool(PRINT_JSON, "detach", NULL, !!tb[KTGEN_A_RUN_DETACH]);
	print_bool(PRINT_JSON, "probe_copies", NULL, !!tb[KTGEN_A_RUN_PROBE_COPIES]);
	print_opt_u32(tb[KTGEN_A_RUN_INTERVAL_MS], "interval_ms", NULL);
	print_opt_u32(tb[KTGEN_A_RUN_WARMUP_MS], "warmup_ms", NULL);
	print_opt_u32(tb[KTGEN_A_RUN_REQ_SIZE], "req_size", " req %llu");
	print_opt_u32(tb[KTGEN_A_RUN_RESP_SIZE], "resp_size", " resp %llu");
	print_opt_u32(tb[KTGEN_A_RUN_RATE], "rate", " rate %llu/s");
	print_opt_u32(tb[KTGEN_A_RUN_RR_TIMEOUT_MS], "rr_timeout_ms", NULL);
	if (tb[KTGEN_A_RUN_PACE_BPS]) {
		print_u64(PRINT_JSON, "pace_bps", NULL, mnl_attr_get_u64(tb[KTGEN_A_RUN_PACE_BPS]));
		print_text(" paced %.3f Mbit/s", mnl_attr_get_u64(tb[KTGEN_A_RUN_PACE_BPS]) / 1e6);
	}
	print_opt_u32(tb[KTGEN_A_RUN_PACE_PPS], "pace_pps", " paced %llu pps");
	print_opt_u32(tb[KTGEN_A_RUN_BURST], "burst", " burst %llu");
	print_opt_u32(tb[KTGEN_A_RUN_BUSY_POLL], "busy_poll_us", " busy-poll %lluus");
}

/* Errnos that say the flow never reached its peer: no route, refused. TCP
 * gives them only while it connects; UDP learns of a refusal by sending.
 */
static bool connect_errno(uint32_t err)
{
	switch (err) {
	case ECONNREFUSED:
	case ENETUNREACH:
	case EHOSTUNREACH:
	case ENETDOWN:
	case EHOSTDOWN:
	case EADDRNOTAVAIL:
		return true;
	}
	return false;
}

/*
 * Why a run failed: "flow 2: connect to 10.0.0.2:5001: Connection refused",
 * "flow 0: 10.0.0.2:5001: Connection reset by peer"; just the error from a
 * module that names no flow. NULL when the run has no error.
 */
static const char *run_error_msg(const struct nlattr **tb, char *buf, size_t len)
{
	const struct nlattr *addr = tb[KTGEN_A_RUN_REMOTE_ADDR];
	uint16_t port = tb[KTGEN_A_RUN_REMOTE_PORT] ?
			ntohs(mnl_attr_get_u16(tb[KTGEN_A_RUN_REMOTE_PORT])) : 0;
	char ep[INET6_ADDRSTRLEN + 16];
	uint32_t err;

	if (!tb[KTGEN_A_RUN_ERROR])
		return NULL;
	err = mnl_attr_get_u32(tb[KTGEN_A_RUN_ERROR]);
	if (!tb[KTGEN_A_RUN_ERROR_FLOW] || !addr) {
		snprintf(buf, len, "%s", strerror(err));
		return buf;
	}
	format_endpoint(mnl_attr_get_payload(addr), mnl_attr_get_payload_len(addr), port,
			ep, sizeof(ep));
	snprintf(buf, len, "flow %u: %s%s: %s", mnl_attr_get_u32(tb[KTGEN_A_RUN_ERROR_FLOW]),
		 connect_errno(err) ? "connect to " : "", ep, strerror(err));
	return buf;
}

/* ": done in 10.00 s",
 * ": failed after 0.01 s: flow 2: connect to 10.0.0.2:5001: Connection refused"
 */
static void print_run_state(const struct nlattr **tb, uint64_t ns)
{
	uint32_t state = get_u32(tb[KTGEN_A_RUN_STATE], UINT32_MAX);
	uint32_t err = get_u32(tb[KTGEN_A_RUN_ERROR], 0);
	char msg[256];

	print_enum(tb[KTGEN_A_RUN_STATE], "state", ": %s", state_names,
		   ARRAY_SIZE(state_names));
	print_opt_u64(tb[KTGEN_A_RUN_DURATION_NS], "duration_ns");
	if (tb[KTGEN_A_RUN_DURATION_NS] && state < ARRAY_SIZE(state_duration))
		print_text(" %s %.2f s", state_duration[state], ns / 1e9);
	if (tb[KTGEN_A_RUN_ERROR]) {
		print_string(PRINT_JSON, "error", NULL, strerror(err));
		print_text(": %s", run_error_msg(tb, msg, sizeof(msg)));
		print_u64(PRINT_JSON, "errno", NULL, err);
	}
	print_opt_u32(tb[KTGEN_A_RUN_ERROR_FLOW], "error_flow", NULL);
	print_enum(tb[KTGEN_A_RUN_SPLICE], "splice", NULL, splice_names,
		   SPLICE_NAMES);
	print_text("\n");
}

/*
 * "  tx-nocache-copy on for 2 of 4 flows: ...": whether the device knob
 * can change this run's copy. Only user memory reaches the stack's
 * non-temporal copy (TCP); every other path sends kernel memory, which the
 * stack always copies with plain stores, or pages it does not copy.
 */
static void print_run_nocache(const struct nlattr **tb, const struct nlattr *flows)
{
	uint32_t n = get_u32(flows, 0);
	uint32_t mode = get_u32(tb[KTGEN_A_RUN_TX_MODE], 0);

	if (!n)
		return;
	if (mode == KTGEN_TX_MODE_USER) {
		print_text("  tx-nocache-copy on for %u of %u flows: the stack copied the payload with non-temporal stores\n",
			   n, get_u32(tb[KTGEN_A_RUN_FLOWS], 1));
		return;
	}
	print_text("  %s\n", run_warning("tx-nocache-copy on for %u of %u flows: no effect possible on tx %s (only tx user sends user memory)",
					 n, get_u32(tb[KTGEN_A_RUN_FLOWS], 1),
					 mode < ARRAY_SIZE(tx_mode_names) ? tx_mode_names[mode] : "?"));
}

/* "  tx 12.34 Gbit/s  15425000000 bytes  235000 msgs  acked 15425000000" */
static void print_run_tx(const struct nlattr **tb, uint64_t ns)
{
	const struct nlattr *st[KTGEN_A_TX_STATS_MAX + 1];
	uint32_t splice = get_u32(tb[KTGEN_A_RUN_SPLICE], KTGEN_SPLICE_NONE);
	uint64_t bps;

	nl_parse_nested(tb[KTGEN_A_RUN_TX], tx_stats_types, KTGEN_A_TX_STATS_MAX, st);
	bps = rate_bps(nl_nested_u64(tb[KTGEN_A_RUN_TX], KTGEN_A_TX_STATS_BYTES), ns);
	print_text("  tx %.2f Gbit/s", bps / 1e9);
	print_open_object("tx");
	print_counter(st[KTGEN_A_TX_STATS_BYTES], "bytes", "  %llu bytes", TEXT_ALWAYS);
	print_counter(st[KTGEN_A_TX_STATS_MSGS], "msgs", "  %llu msgs", TEXT_ALWAYS);
	print_counter(st[KTGEN_A_TX_STATS_ACKED], "acked", "  acked %llu", TEXT_ALWAYS);
	print_counter(st[KTGEN_A_TX_STATS_SEND_ERRORS], "send_errors",
		      "  send errors %llu", TEXT_NONZERO);
	print_counter(st[KTGEN_A_TX_STATS_RETRANS], "retrans", "  retrans %llu", TEXT_ALWAYS);
	print_opt_u32(st[KTGEN_A_TX_STATS_SRTT_US], "srtt_us", "  srtt %llu us");
	print_opt_u32(st[KTGEN_A_TX_STATS_CWND], "cwnd", "  cwnd %llu");
	print_opt_u32(st[KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS], "nocache_copy_flows", NULL);
	print_opt_u64(st[KTGEN_A_TX_STATS_NOCACHE_COPIES], "nocache_copies");
	if (st[KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS])
		print_bool(PRINT_JSON, "nocache_copy_effect", NULL,
			   get_u32(tb[KTGEN_A_RUN_TX_MODE], 0) == KTGEN_TX_MODE_USER);
	print_close_object();
	print_u64(PRINT_JSON, "tx_bps", NULL, bps);
	if (splice != KTGEN_SPLICE_NONE && splice < SPLICE_NAMES)
		print_text("  pages %s", splice_names[splice]);
	print_text("\n");
	print_run_nocache(tb, st[KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS]);
	if (st[KTGEN_A_TX_STATS_NOCACHE_COPIES])
		print_text("  probe: the kernel's nocache user copy ran %llu times\n",
			   (unsigned long long)mnl_attr_get_u64(st[KTGEN_A_TX_STATS_NOCACHE_COPIES]));
}

/* "  rx 12.34 Gbit/s  15425000000 bytes  ...": what local sinks received. */
static void print_run_rx(const struct nlattr **tb, uint64_t ns)
{
	uint64_t bps;

	bps = rate_bps(nl_nested_u64(tb[KTGEN_A_RUN_RX], KTGEN_A_RX_STATS_BYTES), ns);
	print_text("  rx %.2f Gbit/s", bps / 1e9);
	print_rx_stats(tb[KTGEN_A_RUN_RX]);
	print_u64(PRINT_JSON, "rx_bps", NULL, bps);
	print_text("\n");
}

/* " run 1 cpu 97.1% 3.21 cycles/B 0.850 us/KB": one group of CPUs, with
 * the bytes and messages its side moved.
 */
static void print_cpu_group(const struct nlattr *nest, const char *key, uint64_t ns,
			    uint64_t bytes, uint64_t msgs)
{
	const struct nlattr *st[KTGEN_A_CPU_STATS_MAX + 1];
	uint64_t busy, cycles;
	uint32_t cpus;
	struct cpu_cost c;

	nl_parse_nested(nest, cpu_stats_types, KTGEN_A_CPU_STATS_MAX, st);
	cpus = get_u32(st[KTGEN_A_CPU_STATS_CPUS], 0);
	busy = st[KTGEN_A_CPU_STATS_BUSY_NS] ? mnl_attr_get_u64(st[KTGEN_A_CPU_STATS_BUSY_NS]) : 0;
	cycles = st[KTGEN_A_CPU_STATS_CYCLES] ? mnl_attr_get_u64(st[KTGEN_A_CPU_STATS_CYCLES]) : 0;
	cpu_cost(busy, cycles, cpus, ns, bytes, msgs, &c);

	print_open_object(key);
	print_text(" %s", key);
	print_u64(PRINT_ANY, "cpus", " %llu", cpus);
	print_text(cpus == 1 ? " cpu" : " cpus");
	print_u64(PRINT_JSON, "busy_ns", NULL, busy);
	print_double(PRINT_ANY, "util_pct", " %.1f%%", c.util_pct);
	if (st[KTGEN_A_CPU_STATS_CYCLES]) {
		print_u64(PRINT_JSON, "cycles", NULL, cycles);
		print_double(PRINT_ANY, "cycles_per_byte", " %.2f cycles/B", c.cycles_per_byte);
		print_double(PRINT_JSON, "cycles_per_msg", NULL, c.cycles_per_msg);
	}
	print_double(PRINT_ANY, "us_per_kb", " %.3f us/KB", c.us_per_kb);
	print_close_object();
}

/*
 * "  cpu run 1 cpu 97.1% 3.21 cycles/B 0.850 us/KB  other 1 cpu ...
 * (busy time, cycles estimated)". The run's CPUs are charged with what it
 * sent; the others (receive softirq, sinks on this host) with what local
 * sinks received, or what was sent when nothing was received here.
 */
static void print_run_cpu(const struct nlattr **tb, uint64_t ns)
{
	const struct nlattr *st[KTGEN_A_CPU_STATS_MAX + 1];
	const struct nlattr *tx = tb[KTGEN_A_RUN_TX], *rx = tb[KTGEN_A_RUN_RX];
	const struct nlattr *win = tb[KTGEN_A_RUN_WINDOW];
	uint64_t tx_bytes = nl_nested_u64(tx, KTGEN_A_TX_STATS_BYTES);
	uint64_t tx_msgs = nl_nested_u64(tx, KTGEN_A_TX_STATS_MSGS);
	uint64_t rx_bytes = nl_nested_u64(rx, KTGEN_A_RX_STATS_BYTES);
	uint64_t rx_msgs = nl_nested_u64(rx, KTGEN_A_RX_STATS_MSGS);
	uint32_t method;
	bool est;

	/* After a warmup, the CPU time is the window's: so is the work. */
	if (win) {
		ns = nl_nested_u64(win, KTGEN_A_WINDOW_DURATION_NS);
		tx_bytes = nl_nested_u64(win, KTGEN_A_WINDOW_TX_BYTES);
		tx_msgs = nl_nested_u64(win, KTGEN_A_WINDOW_TX_MSGS);
		rx_bytes = nl_nested_u64(win, KTGEN_A_WINDOW_RX_BYTES);
		rx_msgs = nl_nested_u64(win, KTGEN_A_WINDOW_RX_MSGS);
	}

	nl_parse_nested(tb[KTGEN_A_RUN_CPU_RUN], cpu_stats_types, KTGEN_A_CPU_STATS_MAX, st);
	method = get_u32(st[KTGEN_A_CPU_STATS_METHOD], UINT32_MAX);
	est = !!st[KTGEN_A_CPU_STATS_ESTIMATED];

	print_text("  cpu");
	print_open_object("cpu");
	print_enum(st[KTGEN_A_CPU_STATS_METHOD], "method", NULL, cpu_method_names,
		   ARRAY_SIZE(cpu_method_names));
	print_bool(PRINT_JSON, "estimated", NULL, est);
	print_cpu_group(tb[KTGEN_A_RUN_CPU_RUN], "run", ns, tx_bytes, tx_msgs);
	if (tb[KTGEN_A_RUN_CPU_OTHER]) {
		print_text(" ");
		print_cpu_group(tb[KTGEN_A_RUN_CPU_OTHER], "other", ns,
				rx ? rx_bytes : tx_bytes, rx ? rx_msgs : tx_msgs);
	}
	print_close_object();
	if (method == KTGEN_CPU_METHOD_BUSY_TIME)
		print_text(est ? "  (busy time, cycles estimated)" : "  (busy time)");
	else if (method == KTGEN_CPU_METHOD_SW_EVENT)
		print_text("  (software event standing in: cycles are ns)");
	print_text("\n");
}

/* "  window 2.00 s after a 1.00 s warmup: tx 1.23 Gbit/s  rx 1.22 Gbit/s" */
static void print_run_window(const struct nlattr *win)
{
	const struct nlattr *st[KTGEN_A_WINDOW_MAX + 1];
	uint64_t ns, start, tx, rx;

	nl_parse_nested(win, window_types, KTGEN_A_WINDOW_MAX, st);
	start = nl_nested_u64(win, KTGEN_A_WINDOW_START_NS);
	ns = nl_nested_u64(win, KTGEN_A_WINDOW_DURATION_NS);
	tx = nl_nested_u64(win, KTGEN_A_WINDOW_TX_BYTES);
	rx = nl_nested_u64(win, KTGEN_A_WINDOW_RX_BYTES);
	print_open_object("window");
	print_u64(PRINT_JSON, "start_ns", NULL, start);
	print_u64(PRINT_JSON, "duration_ns", NULL, ns);
	print_text("  window %.2f s after a %.2f s warmup:", ns / 1e9, start / 1e9);
	print_counter(st[KTGEN_A_WINDOW_TX_BYTES], "tx_bytes", NULL, TEXT_NEVER);
	print_counter(st[KTGEN_A_WINDOW_TX_MSGS], "tx_msgs", NULL, TEXT_NEVER);
	print_u64(PRINT_JSON, "tx_bps", NULL, rate_bps(tx, ns));
	print_text("  tx %.2f Gbit/s", rate_bps(tx, ns) / 1e9);
	if (st[KTGEN_A_WINDOW_RX_BYTES]) {
		print_counter(st[KTGEN_A_WINDOW_RX_BYTES], "rx_bytes", NULL, TEXT_NEVER);
		print_counter(st[KTGEN_A_WINDOW_RX_MSGS], "rx_msgs", NULL, TEXT_NEVER);
		print_u64(PRINT_JSON, "rx_bps", NULL, rate_bps(rx, ns));
		print_text("  rx %.2f Gbit/s", rate_bps(rx, ns) / 1e9);
	}
	print_text("\n");
	print_close_object();
}

/* The interval from @prev (NULL: the start) to @iv, as its own figures. */
static void print_interval(const struct run_interval *prev, const struct run_interval *iv)
{
	uint64_t start = prev ? prev->end_ns : 0, ns = iv->end_ns - start;
	uint64_t tx = iv->tx_bytes - (prev ? prev->tx_bytes : 0);
	uint64_t rx = iv->rx_bytes - (prev ? prev->rx_bytes : 0);
	uint64_t msgs = iv->tx_msgs - (prev ? prev->tx_msgs : 0);

	print_open_object(NULL);
	print_u64(PRINT_ANY, "interval", "  interval %llu", iv->index);
	print_u64(PRINT_JSON, "start_ns", NULL, start);
	print_u64(PRINT_JSON, "end_ns", NULL, iv->end_ns);
	print_text("  %.2f-%.2f s", start / 1e9, iv->end_ns / 1e9);
	print_u64(PRINT_JSON, "tx_bytes", NULL, tx);
	print_u64(PRINT_JSON, "tx_bps", NULL, rate_bps(tx, ns));
	print_text("  tx %.2f Gbit/s", rate_bps(tx, ns) / 1e9);
	if (iv->has_rx) {
		print_u64(PRINT_JSON, "rx_bytes", NULL, rx);
		print_u64(PRINT_JSON, "rx_bps", NULL, rate_bps(rx, ns));
		print_text("  rx %.2f Gbit/s", rate_bps(rx, ns) / 1e9);
	}
	if (iv->rr) {
		unsigned int i;
		char key[32];

		print_u64(PRINT_JSON, "transactions", NULL, msgs);
		print_double(PRINT_ANY, "tps", "  %.0f trans/s", ns ? msgs * 1e9 / ns : 0);
		if (iv->npct) {
			print_open_object("percentiles_ns");
			for (i = 0; i < iv->npct; i++) {
				ppm_label(iv->ppm[i], key, sizeof(key));
				print_u64(PRINT_JSON, key, NULL, iv->pct_ns[i]);
				print_text(" %s %.1f", key, iv->pct_ns[i] / 1e3);
			}
			print_close_object();
			print_text(" us");
		}
	}
	print_text("\n");
	print_close_object();
}


/*
 * "  latency 8123 trans/s  min 52.1 us  mean 61.0 us  stddev 9.8 us
 *   p50 58.9  p90 70.2  p99 101.5  p99.9 180.3  max 402.0 us": the
 * transactions of a request/response run, all flows merged.
 */
static void print_run_latency(const struct nlattr **tb, uint64_t ns)
{
	const struct nlattr *lt[KTGEN_A_LATENCY_MAX + 1];
	const struct nlattr *nest = tb[KTGEN_A_RUN_LATENCY];
	uint64_t n, pns[16];
	uint32_t ppm[16];
	double offered;
	char key[32];

	/* open loop: rate is per flow */
	offered = (double)get_u32(tb[KTGEN_A_RUN_RATE], 0) * get_u32(tb[KTGEN_A_RUN_FLOWS], 1);
	nl_parse_nested(nest, latency_types, KTGEN_A_LATENCY_MAX, lt);
	n = lt[KTGEN_A_LATENCY_TRANSACTIONS] ?
	    mnl_attr_get_u64(lt[KTGEN_A_LATENCY_TRANSACTIONS]) : 0;
	print_open_object("latency");
	print_u64(PRINT_JSON, "transactions", NULL, n);
	print_double(PRINT_ANY, "tps", "  latency %.0f trans/s", ns ? n * 1e9 / ns : 0);
	print_counter(lt[KTGEN_A_LATENCY_TIMEOUTS], "timeouts", "  timeouts %llu", TEXT_NONZERO);
	print_counter(lt[KTGEN_A_LATENCY_LATE], "late", "  late %llu", TEXT_NONZERO);
	print_counter(lt[KTGEN_A_LATENCY_MIN_NS], "min_ns", NULL, TEXT_NEVER);
	print_counter(lt[KTGEN_A_LATENCY_MEAN_NS], "mean_ns", NULL, TEXT_NEVER);
	print_counter(lt[KTGEN_A_LATENCY_STDDEV_NS], "stddev_ns", NULL, TEXT_NEVER);
	print_counter(lt[KTGEN_A_LATENCY_MAX_NS], "max_ns", NULL, TEXT_NEVER);
	if (n) {
		print_text("  min %.1f us  mean %.1f us  stddev %.1f us\n   ",
			   nl_nested_u64(nest, KTGEN_A_LATENCY_MIN_NS) / 1e3,
			   nl_nested_u64(nest, KTGEN_A_LATENCY_MEAN_NS) / 1e3,
			   nl_nested_u64(nest, KTGEN_A_LATENCY_STDDEV_NS) / 1e3);
		unsigned int i, np = latency_percentiles(nest, ppm, pns, ARRAY_SIZE(ppm));

		print_open_object("percentiles_ns");
		for (i = 0; i < np; i++) {
			ppm_label(ppm[i], key, sizeof(key));
			print_u64(PRINT_JSON, key, NULL, pns[i]);
			print_text(" %s %.1f", key, pns[i] / 1e3);
		}
		print_close_object();
		print_text("  max %.1f us", nl_nested_u64(nest, KTGEN_A_LATENCY_MAX_NS) / 1e3);
	}
	if (tb[KTGEN_A_RUN_RATE])
		print_double(PRINT_JSON, "offered_tps", NULL, offered);
	print_close_object();
	print_text("%s\n", tb[KTGEN_A_RUN_RATE] ? "  (open loop: from each request's slot)" : "");
	/* Short of the offered load, the latencies include the generator's own queue. */
	if (tb[KTGEN_A_RUN_RATE] && ns && n * 1e9 / ns < 0.9 * offered)
		print_text("  warning: %s\n",
			   run_warning("open loop kept %.0f of the %.0f trans/s offered: the generator fell behind",
				       n * 1e9 / ns, offered));
}

/* Each flow in JSON; in text, how evenly the flows shared the bytes. */
static void print_flows(const struct run_wait *w)
{
	double sum = 0, sq = 0, min = 0, max = 0;
	size_t i;
	unsigned int k;

	for (i = 0; i < w->nflows; i++) {
		double b = w->flows[i].bytes;

		sum += b;
		sq += b * b;
		min = i && min < b ? min : b;
		max = max > b ? max : b;
	}
	if (print_is_json()) {
		print_open_array("per_flow");
		for (i = 0; i < w->nflows; i++) {
			const struct flow_stat *f = &w->flows[i];

			print_open_object(NULL);
			print_u64(PRINT_JSON, "id", NULL, i);
			print_u64(PRINT_JSON, "bytes", NULL, f->bytes);
			print_u64(PRINT_JSON, "msgs", NULL, f->msgs);
			for (k = 0; k < f->n; k++)
				print_u64(PRINT_JSON, f->key[k], NULL, f->val[k]);
			print_close_object();
		}
		print_close_array();
		/* Jain's index: 1 when every flow sent the same, 1/n when one did. */
		print_double(PRINT_JSON, "fairness", NULL, sq ? sum * sum / (w->nflows * sq) : 0);
		return;
	}
	if (w->nflows > 1)
		print_text("  flows: %zu, bytes min %.0f max %.0f, fairness (Jain) %.3f\n",
			   w->nflows, min, max, sq ? sum * sum / (w->nflows * sq) : 0);
}

/* One run, from a run-get reply or a run-done notification. */
static void print_run(const struct nlattr **tb, const struct run_wait *w)
{
	uint64_t ns = tb[KTGEN_A_RUN_DURATION_NS] ?
		      mnl_attr_get_u64(tb[KTGEN_A_RUN_DURATION_NS]) : 0;

	run_warnings.n = 0;
	print_open_object(NULL);
	if (w)
		print_u64(PRINT_JSON, "schema_version", NULL, KTG_RUN_SCHEMA_VERSION);
	print_run_config(tb);
	print_run_state(tb, ns);
	if (tb[KTGEN_A_RUN_TX])
		print_run_tx(tb, ns);
	if (tb[KTGEN_A_RUN_RX])
		print_run_rx(tb, ns);
	if (tb[KTGEN_A_RUN_LATENCY])
		print_run_latency(tb, ns);
	if (tb[KTGEN_A_RUN_WINDOW])
		print_run_window(tb[KTGEN_A_RUN_WINDOW]);
	if (tb[KTGEN_A_RUN_CPU_RUN])
		print_run_cpu(tb, ns);
	if (w && w->nflows)
		print_flows(w);
	if (w && w->knobs)
		knobs_print(w->knobs, "knobs");
	if (w && w->peer)
		peer_print(w->peer);
	if (w && w->delta.n)
		counters_print(&w->delta);
	if (w && print_is_json())
		env_print(&w->env);
	else if (w)
		env_print_warnings(&w->env);
	if (run_warnings.n) {
		unsigned int i;

		print_open_array("warnings");
		for (i = 0; i < run_warnings.n; i++)
			print_string(PRINT_JSON, NULL, NULL, run_warnings.s[i]);
		print_close_array();
	}
	/* Text showed the intervals as they came. */
	if (w && w->niv && print_is_json()) {
		size_t i;

		print_open_array("intervals");
		for (i = 0; i < w->niv; i++)
			print_interval(i ? &w->iv[i - 1] : NULL, &w->iv[i]);
		print_close_array();
	}
	print_close_object();
}

static void parse_run(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	static const unsigned int addrs[] = {
		KTGEN_A_RUN_REMOTE_ADDR, KTGEN_A_RUN_LOCAL_ADDR,
	};
	unsigned int i, len;

	nl_parse(nlh, run_types, KTGEN_A_RUN_MAX, tb);
	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		if (!tb[addrs[i]])
			continue;
		len = mnl_attr_get_payload_len(tb[addrs[i]]);
		if (len != 4 && len != 16)
			tb[addrs[i]] = NULL;
	}
}

int run_print_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];

	(void)data;
	parse_run(nlh, tb);
	print_run(tb, NULL);
	return MNL_CB_OK;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* The run's result, once it ended: from the run-done notification, or
 * (@ntf false) from a run-get reply after notifications were lost.
 */
static int run_wait_msg(const struct nlmsghdr *nlh, struct run_wait *w, bool ntf)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	uint32_t state;

	parse_run(nlh, tb);
	if (get_u32(tb[KTGEN_A_RUN_ID], 0) != w->id)
		return MNL_CB_OK;
	state = get_u32(tb[KTGEN_A_RUN_STATE], UINT32_MAX);
	if (!ntf && (state == KTGEN_RUN_STATE_RUNNING ||
		     state == KTGEN_RUN_STATE_STOPPING))
		return MNL_CB_OK;
	counters_read(&w->delta);
	counters_delta(&w->delta, &w->before);
	/* Printed once the flows are read: not from inside this callback,
	 * which may be a reply on the request socket.
	 */
	w->final = malloc(nlh->nlmsg_len);
	if (!w->final)
		return MNL_CB_ERROR;
	memcpy(w->final, nlh, nlh->nlmsg_len);
	w->state = state;
	w->done = true;
	return MNL_CB_STOP;
}

/* A run-interval notification: kept for JSON, shown at once in text. */
static int run_interval_msg(const struct nlmsghdr *nlh, struct run_wait *w)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	struct run_interval *iv;

	parse_run(nlh, tb);
	if (get_u32(tb[KTGEN_A_RUN_ID], 0) != w->id || !tb[KTGEN_A_RUN_DURATION_NS])
		return MNL_CB_OK;
	iv = realloc(w->iv, (w->niv + 1) * sizeof(*iv));
	if (!iv)
		return MNL_CB_OK;	/* a progress line less */
	w->iv = iv;
	iv += w->niv;
	iv->index = get_u32(tb[KTGEN_A_RUN_INTERVAL], (uint32_t)w->niv + 1);
	iv->end_ns = mnl_attr_get_u64(tb[KTGEN_A_RUN_DURATION_NS]);
	iv->tx_bytes = nl_nested_u64(tb[KTGEN_A_RUN_TX], KTGEN_A_TX_STATS_BYTES);
	iv->tx_msgs = nl_nested_u64(tb[KTGEN_A_RUN_TX], KTGEN_A_TX_STATS_MSGS);
	iv->rr = w->rr;
	iv->npct = latency_percentiles(tb[KTGEN_A_RUN_LATENCY], iv->ppm, iv->pct_ns,
				       ARRAY_SIZE(iv->ppm));
	iv->has_rx = tb[KTGEN_A_RUN_RX];
	iv->rx_bytes = nl_nested_u64(tb[KTGEN_A_RUN_RX], KTGEN_A_RX_STATS_BYTES);
	/* Out of order or repeated: not an interval of this sequence. */
	if (w->niv && (iv->end_ns <= iv[-1].end_ns || iv->tx_bytes < iv[-1].tx_bytes ||
		       iv->rx_bytes < iv[-1].rx_bytes))
		return MNL_CB_OK;
	if (!print_is_json()) {
		print_interval(w->niv ? &iv[-1] : NULL, iv);
		fflush(stdout);
	}
	w->niv++;
	return MNL_CB_OK;
}

static int run_done_cb(const struct nlmsghdr *nlh, void *data)
{
	switch (nl_genl_cmd(nlh)) {
	case KTGEN_CMD_RUN_DONE:
		return run_wait_msg(nlh, data, true);
	case KTGEN_CMD_RUN_INTERVAL:
		return run_interval_msg(nlh, data);
	}
	return MNL_CB_OK;
}

static int run_get_wait_cb(const struct nlmsghdr *nlh, void *data)
{
	return run_wait_msg(nlh, data, false);
}

static int run_request(struct nl_ctx *ctx, uint8_t cmd, bool all, uint32_t id,
		       mnl_cb_t cb, void *data)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, cmd, 0);

	if (all)
		mnl_attr_put(nlh, KTGEN_A_RUN_ALL, 0, NULL);
	else
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, id);
	return nl_request(ctx, nlh, &ktg_run_attrs, cb, data);
}

/* The first SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the run and waits
 * for its partial result; the second gives up waiting.
 */
static int run_interrupted(struct nl_ctx *ctx, struct run_wait *w)
{
	got_signal = 0;
	if (w->stopping) {
		fprintf(stderr, "ktgen: not waiting for run %u to stop\n", w->id);
		return -EINTR;
	}
	w->stopping = true;
	fprintf(stderr, "ktgen: stopping run %u\n", w->id);
	if (!run_request(ctx, KTGEN_CMD_RUN_STOP, false, w->id, NULL, NULL))
		return 0;
	/* Refused (already ended?): see where it is. */
	return run_request(ctx, KTGEN_CMD_RUN_GET, false, w->id, run_get_wait_cb, w);
}

static int run_wait(struct nl_ctx *ctx, struct run_wait *w, const sigset_t *waitmask)
{
	int err;

	while (!w->done) {
		err = nl_recv_events(ctx, waitmask, run_done_cb, w);
		if (err == -EINTR)
			err = got_signal ? run_interrupted(ctx, w) : 0;
		else if (err == -ENOBUFS)	/* notifications lost: ask */
			err = run_request(ctx, KTGEN_CMD_RUN_GET, false, w->id,
					  run_get_wait_cb, w);
		else if (err)
			fprintf(stderr, "ktgen: waiting for run %u: %s\n", w->id,
				strerror(-err));
		if (err)
			return err;
	}
	return 0;
}

struct run_args {
	int		test;
	struct ktg_addr	to;
	struct ktg_addr	local;
	bool		has_port;
	uint16_t	port;
	uint32_t	ifindex;
	bool		has_size;
	uint32_t	size;
	bool		has_flows;
	uint32_t	flows;
	uint8_t		cpus[KTG_CPUMASK_BYTES];
	size_t		cpus_len;
	int		limits;		/* how many of time, bytes, msgs */
	bool		has_time;
	uint32_t	time_ms;
	bool		has_bytes;
	uint64_t	bytes;
	bool		has_msgs;
	uint64_t	msgs;
	int		tx_mode;	/* -1: the kernel's default */
	bool		has_buffer;
	uint64_t	buffer;
	bool		has_sndbuf;
	uint32_t	sndbuf;
	bool		nodelay;
	bool		detach;
	bool		probe;
	bool		has_req;
	uint32_t	req;
	bool		has_resp;
	uint32_t	resp;
	bool		has_rate;
	uint32_t	rate;
	uint64_t	pace_bps;
	uint32_t	pace_pps;
	bool		has_burst;
	uint32_t	burst;
	bool		has_busy_poll;
	uint32_t	busy_poll_us;
	bool		has_gso;
	uint32_t	gso;
	size_t		npct;
	uint32_t	pct[16];		/* ppm */
	bool		has_rr_timeout;
	uint32_t	rr_timeout_ms;
	bool		has_token;
	uint64_t	token;			/* the sink's, for responses above req */
	bool		has_interval;
	uint32_t	interval_ms;
	bool		has_warmup;
	uint32_t	warmup_ms;
	struct knob_list knobs;		/* device settings for the run */
	bool		has_peer;
	struct peer	peer;		/* the sink's host, when not this one */
};

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
};

/* One "keyword [value]" of a run; returns the words used, or -1. */
static int run_arg(struct run_args *a, int argc, char **argv)
{
	const struct run_kw *kw = NULL;
	unsigned int i;

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

static int run_parse(struct run_args *a, int test, int argc, char **argv)
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
 * the combinations kmod/netlink.c checks), for a job (ab, sweep, run ...
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

static int run_job_check(struct run_args *a)
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

static void run_put(struct nlmsghdr *nlh, const struct run_args *a)
{
	mnl_attr_put_u32(nlh, KTGEN_A_RUN_TEST, a->test);
	mnl_attr_put(nlh, KTGEN_A_RUN_REMOTE_ADDR, a->to.len, a->to.bytes);
	mnl_attr_put_u16(nlh, KTGEN_A_RUN_REMOTE_PORT, htons(a->port));
	if (a->local.family)
		mnl_attr_put(nlh, KTGEN_A_RUN_LOCAL_ADDR, a->local.len, a->local.bytes);
	if (a->ifindex)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_IFINDEX, a->ifindex);
	if (a->has_size)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_SIZE, a->size);
	if (a->has_flows)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_FLOWS, a->flows);
	if (a->cpus_len)
		mnl_attr_put(nlh, KTGEN_A_RUN_CPUS, a->cpus_len, a->cpus);
	if (a->has_time)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_TIME_MS, a->time_ms);
	if (a->has_bytes)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_BYTES, a->bytes);
	if (a->has_msgs)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_MSGS, a->msgs);
	if (a->tx_mode >= 0)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_TX_MODE, a->tx_mode);
	if (a->has_buffer)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_BUFFER, a->buffer);
	if (a->has_sndbuf)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_SNDBUF, a->sndbuf);
	if (a->nodelay)
		mnl_attr_put(nlh, KTGEN_A_RUN_NODELAY, 0, NULL);
	if (a->detach)
		mnl_attr_put(nlh, KTGEN_A_RUN_DETACH, 0, NULL);
	if (a->probe)
		mnl_attr_put(nlh, KTGEN_A_RUN_PROBE_COPIES, 0, NULL);
	if (a->has_interval)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_INTERVAL_MS, a->interval_ms);
	if (a->has_warmup)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_WARMUP_MS, a->warmup_ms);
	if (a->has_req)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_REQ_SIZE, a->req);
	if (a->has_resp)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_RESP_SIZE, a->resp);
	if (a->has_token)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_TOKEN, a->token);
	if (a->has_rate)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_RATE, a->rate);
	if (a->pace_bps)
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_PACE_BPS, a->pace_bps);
	if (a->pace_pps)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_PACE_PPS, a->pace_pps);
	if (a->has_burst)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_BURST, a->burst);
	if (a->has_busy_poll)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_BUSY_POLL, a->busy_poll_us);
	if (a->has_gso)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_GSO, a->gso);
	if (a->npct)
		mnl_attr_put(nlh, KTGEN_A_RUN_PERCENTILES, a->npct * sizeof(a->pct[0]), a->pct);
	if (a->has_rr_timeout)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_RR_TIMEOUT_MS, a->rr_timeout_ms);
}

static int run_id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	uint32_t *id = data;

	nl_parse(nlh, run_types, KTGEN_A_RUN_MAX, tb);
	if (!tb[KTGEN_A_RUN_ID]) {
		fprintf(stderr, "ktgen: the kernel's reply has no run id\n");
		return MNL_CB_ERROR;
	}
	*id = mnl_attr_get_u32(tb[KTGEN_A_RUN_ID]);
	return MNL_CB_OK;
}

/*
 * tx user: the source is this process's memory, buffer bytes (the module's
 * default when not given) that the module fills with the payload. It stays
 * mapped for the process's life; a detached run holds the address space
 * after the process is gone.
 */
static int run_start(struct nl_ctx *ctx, const struct run_args *a, uint32_t *id)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_RUN_NEW, 0);
	void *mem;

	run_put(nlh, a);
	if (a->tx_mode == KTGEN_TX_MODE_USER) {
		mem = user_mem_map(a->has_buffer ? a->buffer : KTG_DEFAULT_USER_MEM);
		if (!mem)
			return -1;
		mnl_attr_put_u64(nlh, KTGEN_A_RUN_USER_BUF, (uintptr_t)mem);
	}
	return nl_request(ctx, nlh, &ktg_run_attrs, run_id_cb, id);
}

static int run_detached(struct nl_ctx *ctx, const struct run_args *a)
{
	uint32_t id;

	if (run_start(ctx, a, &id))
		return EXIT_FAIL;
	print_open_object(NULL);
	print_u64(PRINT_ANY, "id", "run %llu\n", id);
	print_close_object();
	return EXIT_OK;
}

/* Start the run and wait for its end; SIGINT and SIGTERM stop it. The
 * events group is joined first, so the run-done notification cannot be
 * missed, and the signals are blocked but while waiting, so none is lost.
 */
static const enum mnl_attr_data_type flow_types[KTGEN_A_FLOW_MAX + 1] = {
	[KTGEN_A_FLOW_RUN_ID]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_ID]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_BYTES]	= MNL_TYPE_U64,
	[KTGEN_A_FLOW_MSGS]	= MNL_TYPE_U64,
	[KTGEN_A_FLOW_ACKED]	= MNL_TYPE_U64,
	[KTGEN_A_FLOW_RETRANS]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_SRTT_US]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_CWND]	= MNL_TYPE_U32,
	[KTGEN_A_FLOW_TIMEOUTS]	= MNL_TYPE_U64,
};

static int flow_cb(const struct nlmsghdr *nlh, void *data)
{
	static const struct {
		unsigned int	type;
		const char	*key;
	} opt[] = {
		{ KTGEN_A_FLOW_ACKED,		"acked" },
		{ KTGEN_A_FLOW_RETRANS,		"retrans" },
		{ KTGEN_A_FLOW_SRTT_US,		"srtt_us" },
		{ KTGEN_A_FLOW_CWND,		"cwnd" },
		{ KTGEN_A_FLOW_TIMEOUTS,	"timeouts" },
	};
	const struct nlattr *tb[KTGEN_A_FLOW_MAX + 1];
	struct run_wait *w = data;
	struct flow_stat *f;
	uint32_t id;
	size_t i;

	nl_parse(nlh, flow_types, KTGEN_A_FLOW_MAX, tb);
	if (!tb[KTGEN_A_FLOW_ID] || !tb[KTGEN_A_FLOW_BYTES] || !tb[KTGEN_A_FLOW_MSGS])
		return MNL_CB_OK;
	/* One message per flow, in order of id. */
	id = mnl_attr_get_u32(tb[KTGEN_A_FLOW_ID]);
	if (id != w->nflows)
		return MNL_CB_OK;
	f = realloc(w->flows, (w->nflows + 1) * sizeof(*f));
	if (!f)
		return MNL_CB_ERROR;
	w->flows = f;
	f = &w->flows[w->nflows++];
	memset(f, 0, sizeof(*f));
	f->bytes = mnl_attr_get_u64(tb[KTGEN_A_FLOW_BYTES]);
	f->msgs = mnl_attr_get_u64(tb[KTGEN_A_FLOW_MSGS]);
	for (i = 0; i < ARRAY_SIZE(opt); i++) {
		const struct nlattr *a = tb[opt[i].type];

		if (!a)
			continue;
		f->key[f->n] = opt[i].key;
		f->val[f->n++] = flow_types[opt[i].type] == MNL_TYPE_U64 ?
				 mnl_attr_get_u64(a) : mnl_attr_get_u32(a);
	}
	return MNL_CB_OK;
}

/* The run's flows into @w; a module without flow-get leaves none. */
static void flows_get(struct nl_ctx *ctx, struct run_wait *w)
{
	struct nlmsghdr *nlh = nl_msg_start(ctx, KTGEN_CMD_FLOW_GET, NLM_F_DUMP);

	mnl_attr_put_u32(nlh, KTGEN_A_FLOW_RUN_ID, w->id);
	if (nl_request(ctx, nlh, &ktg_flow_attrs, flow_cb, w))
		w->nflows = 0;
}

/*
 * Whatever ends this process but SIGKILL ends the run first, which puts its
 * knobs back: a closed terminal (SIGHUP), SIGQUIT, and a reader of its
 * output gone (SIGPIPE, ignored: writes fail instead). The stop signals are
 * blocked but while waiting (@waitmask); @oldmask is the mask before.
 */
static void run_signals(sigset_t *oldmask, sigset_t *waitmask)
{
	static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&block, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &block, oldmask);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	*waitmask = *oldmask;
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigdelset(waitmask, stop_signals[i]);
}

/* The ended run @w waited for: its flows, the peer's counts against what
 * was sent, the result printed; the peer's verdict, updated.
 */
static void run_report(struct nl_ctx *ctx, struct run_args *a, struct run_wait *w,
		       int *peer_err)
{
	const struct nlattr *tb[KTGEN_A_RUN_MAX + 1];
	char msg[256];

	flows_get(ctx, w);
	parse_run(w->final, tb);
	if (a->has_peer && !*peer_err)
		*peer_err = peer_check_counts(&a->peer,
					      nl_nested_u64(tb[KTGEN_A_RUN_TX],
							    KTGEN_A_TX_STATS_BYTES));
	print_run(tb, w);
	/* JSON: the document is all stdout says; the reason goes here. */
	if (print_is_json() && run_error_msg(tb, msg, sizeof(msg)))
		fprintf(stderr, "ktgen: run %u failed: %s\n", w->id, msg);
}

/* Before the run: its knobs on, the peer's sink ready (and its token
 * taken, for rr), a warm-up where a device reset. 0, or the exit status to
 * end with, the knobs put back.
 */
static int run_prepare(struct run_args *a, struct run_wait *w, const sigset_t *waitmask)
{
	int peer_err;

	w->rr = a->test == KTGEN_TEST_TCP_RR || a->test == KTGEN_TEST_UDP_RR ||
		a->test == KTGEN_TEST_TCP_CRR;
	/* Knobs go on before the flows exist (tx-nocache-copy reaches only
	 * new sockets) and come off whatever ends the run, a signal too.
	 */
	if (knobs_apply(&a->knobs))
		return EXIT_FAIL;
	w->knobs = &a->knobs;
	/* The sink there is ready before the flows connect. */
	if (a->has_peer) {
		peer_err = peer_start(&a->peer, waitmask);
		if (peer_err) {
			knobs_restore(&a->knobs);
			return peer_err == PEER_UNTRUSTED ? EXIT_INFRA : EXIT_FAIL;
		}
		w->peer = &a->peer;
		/* its rr sink answers above the request's size to its token */
		if (w->rr && a->peer.token && !a->has_token) {
			a->has_token = true;
			a->token = a->peer.token;
		}
	}
	if ((a->knobs.resets || a->peer.resets) && !a->has_warmup) {
		/* A reset device settles before the window opens. */
		a->has_warmup = true;
		a->warmup_ms = 1000;
	}
	return 0;
}

static int run_attached(struct nl_ctx *ctx, struct run_args *a)
{
	sigset_t waitmask, oldmask;
	struct run_wait w = { };
	int err, restore_err, peer_err = 0;

	if (nl_join_events(ctx))
		return EXIT_FAIL;
	run_signals(&oldmask, &waitmask);
	err = run_prepare(a, &w, &waitmask);
	if (err) {
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		return err;
	}
	env_collect(&w.env, a->cpus, a->cpus_len);
	if (a->test == KTGEN_TEST_TCP_STREAM && a->has_flows)
		env_check_flows(&w.env, a->flows, ENV_SSAI_PATH);
	info_get(ctx, &w.env.module);
	counters_read(&w.before);
	err = run_start(ctx, a, &w.id);
	if (!err && a->has_peer)
		peer_window(&a->peer, a->has_warmup ? a->warmup_ms : 0);
	if (!err)
		err = run_wait(ctx, &w, &waitmask);
	if (a->has_peer)
		peer_err = peer_finish(&a->peer);
	restore_err = knobs_restore(&a->knobs);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (!err && w.final)
		run_report(ctx, a, &w, &peer_err);
	free(w.final);
	free(w.flows);
	free(w.iv);
	env_free(&w.env);
	counters_free(&w.before);
	counters_free(&w.delta);
	/* What came back from the peer is not to be believed: no verdict */
	if (!err && !restore_err && peer_err == PEER_UNTRUSTED)
		return EXIT_INFRA;
	if (err || restore_err || peer_err)
		return EXIT_FAIL;
	return w.state == KTGEN_RUN_STATE_DONE || w.state == KTGEN_RUN_STATE_STOPPED ?
	       EXIT_OK : EXIT_FAIL;
}

static int run_show(struct nl_ctx *ctx, bool one, uint32_t id)
{
	struct nlmsghdr *nlh;
	int err;

	nlh = nl_msg_start(ctx, KTGEN_CMD_RUN_GET, one ? 0 : NLM_F_DUMP);
	if (one)
		mnl_attr_put_u32(nlh, KTGEN_A_RUN_ID, id);
	else
		print_open_array(NULL);
	err = nl_request(ctx, nlh, &ktg_run_attrs, run_print_cb, NULL);
	if (!one)
		print_close_array();
	return err;
}

/* run help's second half: what each keyword does. */
static void run_usage_keywords(FILE *f)
{
	fputs("time: seconds, fractions allowed (default 10 s without a limit)\n"
	      "interval: a progress line (JSON: an intervals array) this often\n"
	      "warmup: send this long before the measured window (rates, CPU) opens;\n"
	      "        a time limit counts from the window's start\n"
	      "cpus: CPUs for the sending workers, e.g. 0-3,8\n"
	      "tx user: the workers send from this process's memory (buffer bytes),\n"
	      "         so the stack makes its own user copy (tx-nocache-copy applies)\n"
	      "probe: count the kernel's nocache user copies by a kprobe (a trap each:\n"
	      "       shows the path taken, not clean numbers)\n"
	      "tcp_rr, udp_rr, tcp_crr: transactions of req bytes answered with resp bytes\n"
	      "       (default 1/1, udp_rr 40/40), one outstanding per flow; tcp_crr\n"
	      "       connects for each; rate TPS per flow makes it open loop, latency\n"
	      "       counted from each request's slot; percentiles default\n"
	      "       50,90,95,99,99.9; timeout: udp_rr gives up a transaction\n"
	      "token: the sink's (sink add prints it), for a response larger than\n"
	      "       its request: the sink answers one only to its token, up to its\n"
	      "       resp-max (a run with peer takes the peer's)\n"
	      "rate (streams): pace each flow at bits/s (100M, 2.5G) or send calls/s\n"
	      "       (1000pps), in bursts of burst bytes or calls (default one call)\n"
	      "busy-poll: a worker whose flows all wait spins this long (50, 200us,\n"
	      "       10ms) after the last thing it did before it sleeps: a CPU spent\n"
	      "       for the wake-up latency (give the sink the same)\n"
	      "gso N (udp_stream, tx stack): N datagrams per send call as one UDP GSO\n"
	      "       skb, segmented by the core before a device without UDP\n"
	      "       segmentation offload, or by the receiver (veth, lo); with\n"
	      "       rate Npps, N datagrams count N\n"
	      "repeat N [confidence LEVEL,WIDTH] [show M,...] [keep-going]\n"
	      "       [csv [columns M,...]]: N runs, each metric summarized (min, P10,\n"
	      "       median, mean, P90, max, stddev, CI), and those show names (ktgen\n"
	      "       ab help: any value); a failed run is tried once more, then ends\n"
	      "       the job, or with keep-going is left out;\n"
	      "       confidence stops once the LEVEL interval of the mean is narrower\n"
	      "       than WIDTH (an estimate: verdicts need a fixed N, see ktgen ab and\n"
	      "       ktgen diff); csv: a row per run (the metrics of columns)\n"
	      "knob: a device setting (ktgen dev help) applied before the flows start\n"
	      "       and put back when the run ends, on Ctrl-C or SIGTERM too; in the\n"
	      "       result. Receiver knobs name the sink's device (kn1@ns-b).\n"
	      "peer: the sink on another host, over ssh ($KTGEN_SSH, default\n"
	      "       'ssh -o BatchMode=yes'; there $KTGEN_PEER_CMD, default 'ktgen'):\n"
	      "       added for the run with peer-rx, peer-cpus, peer-rcvbuf, its knobs\n"
	      "       (peer-knob) applied there; its receive rate, CPU, service demand\n"
	      "       and counters in the result; removed and put back when the run\n"
	      "       ends, on Ctrl-C or when this process dies too.\n", f);
}

static void run_usage(FILE *f)
{
	fputs("Usage: ktgen run tcp_stream|udp_stream|tcp_rr|udp_rr|tcp_crr to ADDR port PORT\n"
	      "                 [local ADDR]\n"
	      "                 [dev IFNAME] [size BYTES] [flows N] [cpus LIST]\n"
	      "                 [time SECS | bytes N | msgs N]\n"
	      "                 [tx stack|cached|nocache|zerocopy|user]\n"
	      "                 [buffer BYTES] [sndbuf BYTES] [nodelay] [detach]\n"
	      "                 [interval SECS] [warmup SECS] [probe]\n"
	      "                 [req BYTES] [resp BYTES] [rate TPS] [percentiles LIST]\n"
	      "                 [timeout SECS] [token TOKEN]\n"
	      "                 [rate BITS/s|Npps [burst N]] [busy-poll USECS]\n"
	      "                 [gso N]\n"
	      "                 [knob IFNAME[@NETNS] KNOB]... [repeat N [confidence L,W]]\n"
	      "                 [peer ssh://[USER@]HOST[:PORT] [peer-rx MODE] [peer-cpus LIST]\n"
	      "                  [peer-rcvbuf BYTES] [peer-knob IFNAME[@NETNS] KNOB]...]\n"
	      "       ktgen run show [ID]\n"
	      "       ktgen run stop ID|all\n"
	      "       ktgen run del ID|all\n"
	      "A run waits for its result and prints it (exit 1 when it failed);\n"
	      "Ctrl-C stops it early and prints the partial result. detach prints\n"
	      "the run's id and leaves it running ('ktgen run show ID').\n", f);
	run_usage_keywords(f);
}

/* The command line of show, stop or del, checked before any netlink. */
static int run_cmd_parse(const char *cmd, int argc, char **argv, bool *all,
			 uint32_t *id)
{
	char name[16];

	snprintf(name, sizeof(name), "run %s", cmd);
	*all = false;
	if (!strcmp(cmd, "show") && argc == 0)
		return 0;
	return parse_id_arg(name, argc, argv, strcmp(cmd, "show"), all, id);
}

static int run_cmd(const char *cmd, int argc, char **argv)
{
	struct nl_ctx ctx;
	bool all = false;
	uint32_t id = 0;
	int err;

	if (run_cmd_parse(cmd, argc, argv, &all, &id))
		return EXIT_USAGE;
	if (nl_open(&ctx))
		return EXIT_FAIL;
	if (!strcmp(cmd, "show"))
		err = run_show(&ctx, argc > 0, id);
	else
		err = run_request(&ctx, !strcmp(cmd, "stop") ? KTGEN_CMD_RUN_STOP :
				  KTGEN_CMD_RUN_DEL, all, id, NULL, NULL);
	nl_close(&ctx);
	return err ? EXIT_FAIL : EXIT_OK;
}

/* run TEST ... repeat N ...: the words of one run checked first (a bad
 * word fails at once, before any run), then the job.
 */
static int run_repeat_checked(int test, int argc, char **argv)
{
	char **one = calloc(argc, sizeof(char *));
	struct run_args a;
	int n = 0, k, ret;

	if (!one)
		return EXIT_FAIL;
	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "repeat") || !strcmp(argv[k], "confidence") ||
		    !strcmp(argv[k], "columns") || !strcmp(argv[k], "show"))
			k++;
		else if (strcmp(argv[k], "csv") && strcmp(argv[k], "keep-going"))
			one[n++] = argv[k];
	}
	ret = run_parse(&a, test, n, one);
	if (!ret && a.detach) {
		usage_error("run: repeat: runs are waited for, not detached");
		ret = -1;
	}
	if (!ret)
		ret = run_job_check(&a);
	knobs_free(&a.knobs);
	peer_free(&a.peer);
	free(one);
	if (ret)
		return EXIT_USAGE;
	return run_repeat(argc, argv);
}

int do_run(int argc, char **argv)
{
	struct run_args a;
	struct nl_ctx ctx;
	int test, ret;

	if (argc < 1) {
		usage_error("run: which test? (tcp_stream, udp_stream, tcp_rr, udp_rr or tcp_crr)");
		return EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		run_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[0], "show") || !strcmp(argv[0], "stop") ||
	    !strcmp(argv[0], "del"))
		return run_cmd(argv[0], argc - 1, argv + 1);
	test = lookup_name(argv[0], test_names, ARRAY_SIZE(test_names));
	if (test < 0) {
		usage_error("run: unknown test or command '%s'", argv[0]);
		return EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "repeat"))
			return run_repeat_checked(test, argc, argv);
	if (run_parse(&a, test, argc - 1, argv + 1)) {
		knobs_free(&a.knobs);
		return EXIT_USAGE;
	}

	if (nl_open(&ctx)) {
		knobs_free(&a.knobs);
		return EXIT_FAIL;
	}
	ret = a.detach ? run_detached(&ctx, &a) : run_attached(&ctx, &a);
	nl_close(&ctx);
	knobs_free(&a.knobs);
	peer_free(&a.peer);
	return ret;
}
