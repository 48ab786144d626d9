// SPDX-License-Identifier: GPL-2.0
/*
 * A run's results, from a run-get reply or a run-done notification: its
 * settings, state, tx, rx, latency, window, CPU, flows and intervals, in
 * text and JSON through the one print path (print.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/ktgen.h>

#include "counters.h"
#include "dev.h"
#include "env.h"
#include "ktgen.h"
#include "nl.h"
#include "peer.h"
#include "pmu.h"
#include "print.h"
#include "run.h"
#include "show.h"

const char * const test_names[] = {
	[KTGEN_TEST_TCP_STREAM]	= "tcp_stream",
	[KTGEN_TEST_UDP_STREAM]	= "udp_stream",
	[KTGEN_TEST_TCP_RR]	= "tcp_rr",
	[KTGEN_TEST_UDP_RR]	= "udp_rr",
	[KTGEN_TEST_TCP_CRR]	= "tcp_crr",
};

const char * const tx_mode_names[] = {
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

const enum mnl_attr_data_type run_types[KTGEN_A_RUN_MAX + 1] = {
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
	[KTGEN_A_RUN_PROBE_RX]		= MNL_TYPE_FLAG,
	[KTGEN_A_RUN_RX_PATH]		= MNL_TYPE_NESTED,
	[KTGEN_A_RUN_EVENTS]		= MNL_TYPE_U32,
};

static const enum mnl_attr_data_type rx_path_types[KTGEN_A_RX_PATH_MAX + 1] = {
	[KTGEN_A_RX_PATH_AVAILABLE]	= MNL_TYPE_U32,
	[KTGEN_A_RX_PATH_BUILD_SKB]	= MNL_TYPE_U64,
	[KTGEN_A_RX_PATH_ALLOC_SKB]	= MNL_TYPE_U64,
	[KTGEN_A_RX_PATH_GET_FRAGS]	= MNL_TYPE_U64,
	[KTGEN_A_RX_PATH_ADD_FRAG]	= MNL_TYPE_U64,
	[KTGEN_A_RX_PATH_GRO_MERGED]	= MNL_TYPE_U64,
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
	/* event: repeated, walked by pmu.c */
	[KTGEN_A_CPU_STATS_EVENTS_WITHHELD]	= MNL_TYPE_FLAG,
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
unsigned int latency_percentiles(const struct nlattr *nest, uint32_t *ppm,
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

uint32_t get_u32(const struct nlattr *a, uint32_t def)
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
	print_bool(PRINT_JSON, "probe_rx", NULL, !!tb[KTGEN_A_RUN_PROBE_RX]);
	pmu_print_asked(tb[KTGEN_A_RUN_EVENTS]);
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
const char *run_error_msg(const struct nlattr **tb, char *buf, size_t len)
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
	if (!pmu_has_events(tb[KTGEN_A_RUN_CPU_RUN])) {
		/* counted, and not given to this reader */
		if (pmu_withheld(tb[KTGEN_A_RUN_CPU_RUN])) {
			print_open_object("pmu");
			print_bool(PRINT_JSON, "withheld", NULL, true);
			print_text("  pmu withheld: reading events needs CAP_PERFMON or CAP_SYS_ADMIN\n");
			print_close_object();
		}
		return;
	}
	/* the events, charged with the same work as their group's CPU time */
	print_open_object("pmu");
	pmu_print_group(tb[KTGEN_A_RUN_CPU_RUN], "run", tx_bytes, tx_msgs);
	if (pmu_has_events(tb[KTGEN_A_RUN_CPU_OTHER]))	/* none without CPUs */
		pmu_print_group(tb[KTGEN_A_RUN_CPU_OTHER], "other",
				rx ? rx_bytes : tx_bytes, rx ? rx_msgs : tx_msgs);
	print_close_object();
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

/*
 * "  rx path: build_skb 99.8 %, alloc+copy 0.2 %, frags 0.0 % of 2004 skbs;
 *   frags added 0, GRO merged 0": how receiving drivers built their skbs
 * over the window (probe-rx), the three ways an skb is built as shares of
 * those counted, where all three could be probed. A counter this kernel
 * could not probe is "not available", never 0.
 */
static void print_run_rx_path(const struct nlattr *nest)
{
	static const struct {
		uint16_t	attr;
		const char	*key;	/* JSON, and the text's word */
		const char	*text;
		const char	*pct;	/* a share of the skbs built */
	} c[] = {
		{ KTGEN_A_RX_PATH_BUILD_SKB,	"build_skb",	"build_skb",	"build_pct" },
		{ KTGEN_A_RX_PATH_ALLOC_SKB,	"alloc_skb",	"alloc+copy",	"alloc_pct" },
		{ KTGEN_A_RX_PATH_GET_FRAGS,	"get_frags",	"frags",	"frags_pct" },
		{ KTGEN_A_RX_PATH_ADD_FRAG,	"add_frag",	"frags added",	NULL },
		{ KTGEN_A_RX_PATH_GRO_MERGED,	"gro_merged",	"GRO merged",	NULL },
	};
	const struct nlattr *st[KTGEN_A_RX_PATH_MAX + 1];
	uint64_t skbs = 0, n[ARRAY_SIZE(c)];
	bool shares = true;
	size_t i;

	nl_parse_nested(nest, rx_path_types, KTGEN_A_RX_PATH_MAX, st);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		n[i] = st[c[i].attr] ? mnl_attr_get_u64(st[c[i].attr]) : 0;
		if (c[i].pct) {
			shares &= !!st[c[i].attr];
			skbs += n[i];
		}
	}
	print_open_object("rx_path");
	print_open_array("available");
	for (i = 0; i < ARRAY_SIZE(c); i++)
		if (st[c[i].attr])
			print_string(PRINT_JSON, NULL, NULL, c[i].key);
	print_close_array();
	print_text("  rx path:");
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		print_text("%s%s", i == 0 ? " " : i == 3 ? "; " : ", ", c[i].text);
		if (!st[c[i].attr]) {
			print_text(" not available");
			continue;
		}
		print_u64(PRINT_JSON, c[i].key, NULL, n[i]);
		if (c[i].pct && shares && skbs)
			print_double(PRINT_ANY, c[i].pct, " %.1f %%", 100.0 * n[i] / skbs);
		else
			print_u64(PRINT_TEXT, NULL, " %llu", n[i]);
		if (i == 2 && shares)
			print_u64(PRINT_ANY, "skbs", " of %llu skbs", skbs);
	}
	print_text("\n");
	print_close_object();
}

/* The interval from @prev (NULL: the start) to @iv, as its own figures. */
void print_interval(const struct run_interval *prev, const struct run_interval *iv)
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
void print_run(const struct nlattr **tb, const struct run_wait *w)
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
	if (tb[KTGEN_A_RUN_RX_PATH])
		print_run_rx_path(tb[KTGEN_A_RUN_RX_PATH]);
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

void parse_run(const struct nlmsghdr *nlh, const struct nlattr **tb)
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
