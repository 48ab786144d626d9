/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	include/uapi/linux/ktgen.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_KTGEN_H
#define _UAPI_LINUX_KTGEN_H

#define KTGEN_FAMILY_NAME	"ktgen"
#define KTGEN_FAMILY_VERSION	1

#define KTGEN_ABI_VERSION	1

/**
 * enum ktgen_nocache_impl - Implementation of the module's non-temporal copy
 *   on this kernel.
 * @KTGEN_NOCACHE_IMPL_MEMCPY: Plain memcpy; this architecture has no
 *   flushcache copy.
 * @KTGEN_NOCACHE_IMPL_MOVNTI: x86 non-temporal stores (memcpy_flushcache) with
 *   a store fence.
 */
enum ktgen_nocache_impl {
	KTGEN_NOCACHE_IMPL_MEMCPY,
	KTGEN_NOCACHE_IMPL_MOVNTI,
};

/**
 * enum ktgen_page_send - How pages are handed to the stack without a copy on
 *   this kernel.
 * @KTGEN_PAGE_SEND_SENDPAGE: kernel_sendpage() (kernels before 6.5).
 * @KTGEN_PAGE_SEND_SPLICE_PAGES: sock_sendmsg() with MSG_SPLICE_PAGES and a
 *   bvec iterator.
 */
enum ktgen_page_send {
	KTGEN_PAGE_SEND_SENDPAGE,
	KTGEN_PAGE_SEND_SPLICE_PAGES,
};

enum ktgen_proto {
	KTGEN_PROTO_TCP,
	KTGEN_PROTO_UDP,
};

/**
 * enum ktgen_test - tcp-stream and udp-stream send one way; tcp-rr and udp-rr
 *   exchange transactions: a request of req-size bytes, answered by the sink
 *   with resp-size bytes, one outstanding per flow; tcp-crr opens a connection
 *   for each transaction and closes it after the response.
 */
enum ktgen_test {
	KTGEN_TEST_TCP_STREAM,
	KTGEN_TEST_UDP_STREAM,
	KTGEN_TEST_TCP_RR,
	KTGEN_TEST_UDP_RR,
	KTGEN_TEST_TCP_CRR,
};

/**
 * enum ktgen_tx_mode - Where the sender's payload comes from and who copies
 *   it.
 * @KTGEN_TX_MODE_STACK: kernel_sendmsg() of a kvec; the stack makes its own
 *   cached copy.
 * @KTGEN_TX_MODE_CACHED: The module memcpy()s into pages it owns, which are
 *   sent without another copy.
 * @KTGEN_TX_MODE_NOCACHE: As cached, with a non-temporal copy (see
 *   nocache-impl).
 * @KTGEN_TX_MODE_ZEROCOPY: Pages are sent with no copy at all.
 * @KTGEN_TX_MODE_USER: The sending kthreads adopt the requester's address
 *   space (as vhost workers do) and send from its memory (user-buf), so the
 *   stack makes its own user copy, non-temporal where the route has
 *   tx-nocache-copy.
 */
enum ktgen_tx_mode {
	KTGEN_TX_MODE_STACK,
	KTGEN_TX_MODE_CACHED,
	KTGEN_TX_MODE_NOCACHE,
	KTGEN_TX_MODE_ZEROCOPY,
	KTGEN_TX_MODE_USER,
};

/**
 * enum ktgen_rx_mode - What the sink does with received payload.
 * @KTGEN_RX_MODE_COPY: memcpy into a buffer, from the socket's read loop.
 * @KTGEN_RX_MODE_NOCACHE: Non-temporal copy into a buffer.
 * @KTGEN_RX_MODE_TOUCH: Read every byte, copy nothing.
 * @KTGEN_RX_MODE_DISCARD: Count only (ktgen headers are still parsed).
 * @KTGEN_RX_MODE_VERIFY: Check every byte against the sender's pattern.
 * @KTGEN_RX_MODE_RECVMSG: kernel_recvmsg() into a kvec, the socket API's own
 *   copy.
 * @KTGEN_RX_MODE_USER: recvmsg() into the requester's memory (user-buf) by
 *   workers that adopt its address space, so the stack's copy_to_user runs.
 */
enum ktgen_rx_mode {
	KTGEN_RX_MODE_COPY,
	KTGEN_RX_MODE_NOCACHE,
	KTGEN_RX_MODE_TOUCH,
	KTGEN_RX_MODE_DISCARD,
	KTGEN_RX_MODE_VERIFY,
	KTGEN_RX_MODE_RECVMSG,
	KTGEN_RX_MODE_USER,
};

enum ktgen_run_state {
	KTGEN_RUN_STATE_RUNNING,
	KTGEN_RUN_STATE_STOPPING,
	KTGEN_RUN_STATE_DONE,
	KTGEN_RUN_STATE_STOPPED,
	KTGEN_RUN_STATE_FAILED,
};

/**
 * enum ktgen_splice - What the stack did with pages handed to it without a
 *   copy.
 * @KTGEN_SPLICE_NONE: This run hands no pages to the stack.
 * @KTGEN_SPLICE_SPLICED: The stack held the sender's pages (checked from the
 *   stack's side).
 * @KTGEN_SPLICE_COPIED: The stack copied the payload instead of keeping the
 *   pages.
 */
enum ktgen_splice {
	KTGEN_SPLICE_NONE,
	KTGEN_SPLICE_SPLICED,
	KTGEN_SPLICE_COPIED,
};

/**
 * enum ktgen_cpu_method - How a run's CPU cost was measured.
 * @KTGEN_CPU_METHOD_BUSY_TIME: Busy time from the kernel's per-CPU accounting
 *   (user, nice, system, irq, softirq; idle and steal excluded); cycles
 *   estimated from it and the TSC rate.
 * @KTGEN_CPU_METHOD_PMU_CYCLES: Unhalted cycles from a hardware counter per
 *   CPU.
 * @KTGEN_CPU_METHOD_SW_EVENT: The counter path with a software event
 *   (cpu-clock, ns) standing in for cycles, for testing where there is no PMU.
 */
enum ktgen_cpu_method {
	KTGEN_CPU_METHOD_BUSY_TIME,
	KTGEN_CPU_METHOD_PMU_CYCLES,
	KTGEN_CPU_METHOD_SW_EVENT,
};

/**
 * enum ktgen_rx_path_counter - The counters of a run's rx-path, as bits of its
 *   available attribute.
 */
enum ktgen_rx_path_counter {
	KTGEN_RX_PATH_COUNTER_BUILD_SKB = 1,
	KTGEN_RX_PATH_COUNTER_ALLOC_SKB = 2,
	KTGEN_RX_PATH_COUNTER_GET_FRAGS = 4,
	KTGEN_RX_PATH_COUNTER_ADD_FRAG = 8,
	KTGEN_RX_PATH_COUNTER_GRO_MERGED = 16,
};

/**
 * enum ktgen_cpu_event - PMU events a run may count on every online CPU over
 *   its measured window (run events), as bits.
 * @KTGEN_CPU_EVENT_CYCLES: Unhalted cycles (PERF_COUNT_HW_CPU_CYCLES); with
 *   cpu_event=sw cpu-clock (ns) stands in.
 * @KTGEN_CPU_EVENT_INSTRUCTIONS: Instructions retired
 *   (PERF_COUNT_HW_INSTRUCTIONS); with cpu_event=sw task-clock (ns) stands in.
 * @KTGEN_CPU_EVENT_CACHE_REFERENCES: Last-level cache accesses as the PMU
 *   driver defines them (PERF_COUNT_HW_CACHE_REFERENCES); with cpu_event=sw
 *   context-switches stand in.
 * @KTGEN_CPU_EVENT_CACHE_MISSES: Last-level cache misses as the PMU driver
 *   defines them (PERF_COUNT_HW_CACHE_MISSES); with cpu_event=sw
 *   cpu-migrations stand in.
 * @KTGEN_CPU_EVENT_LLC_LOAD_MISSES: Loads that missed the last-level cache
 *   (PERF_TYPE_HW_CACHE LL, read, miss), which is L2 on CPUs whose last level
 *   is L2; with cpu_event=sw page-faults stand in.
 */
enum ktgen_cpu_event {
	KTGEN_CPU_EVENT_CYCLES = 1,
	KTGEN_CPU_EVENT_INSTRUCTIONS = 2,
	KTGEN_CPU_EVENT_CACHE_REFERENCES = 4,
	KTGEN_CPU_EVENT_CACHE_MISSES = 8,
	KTGEN_CPU_EVENT_LLC_LOAD_MISSES = 16,
};

enum {
	KTGEN_A_INFO_VERSION = 1,
	KTGEN_A_INFO_ABI_VERSION,
	KTGEN_A_INFO_KERNEL,
	KTGEN_A_INFO_NOCACHE_IMPL,
	KTGEN_A_INFO_PAGE_SEND,
	KTGEN_A_INFO_PMU,
	KTGEN_A_INFO_SPLICE_SELFTEST,
	KTGEN_A_INFO_SPLICE_SELFTEST_UDP,
	KTGEN_A_INFO_SPLICE_SELFTEST_UDP6,
	KTGEN_A_INFO_COPY_PROBE,
	KTGEN_A_INFO_TSC_KHZ,

	__KTGEN_A_INFO_MAX,
	KTGEN_A_INFO_MAX = (__KTGEN_A_INFO_MAX - 1)
};

enum {
	KTGEN_A_CONFIG_BUFFER_BUDGET = 1,
	KTGEN_A_CONFIG_BUFFER_USED,
	KTGEN_A_CONFIG_MAX_RUNS,
	KTGEN_A_CONFIG_MAX_SINKS,

	__KTGEN_A_CONFIG_MAX,
	KTGEN_A_CONFIG_MAX = (__KTGEN_A_CONFIG_MAX - 1)
};

enum {
	KTGEN_A_RX_STATS_BYTES = 1,
	KTGEN_A_RX_STATS_MSGS,
	KTGEN_A_RX_STATS_CONNS,
	KTGEN_A_RX_STATS_VERIFY_ERRORS,
	KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET,
	KTGEN_A_RX_STATS_LOST,
	KTGEN_A_RX_STATS_LATE,
	KTGEN_A_RX_STATS_DUP,
	KTGEN_A_RX_STATS_BAD_HEADERS,
	KTGEN_A_RX_STATS_RESPONSES,
	KTGEN_A_RX_STATS_READS,
	KTGEN_A_RX_STATS_REFUSED,
	KTGEN_A_RX_STATS_CSUM_ERRORS,

	__KTGEN_A_RX_STATS_MAX,
	KTGEN_A_RX_STATS_MAX = (__KTGEN_A_RX_STATS_MAX - 1)
};

enum {
	KTGEN_A_TX_STATS_BYTES = 1,
	KTGEN_A_TX_STATS_MSGS,
	KTGEN_A_TX_STATS_ACKED,
	KTGEN_A_TX_STATS_SEND_ERRORS,
	KTGEN_A_TX_STATS_RETRANS,
	KTGEN_A_TX_STATS_SRTT_US,
	KTGEN_A_TX_STATS_CWND,
	KTGEN_A_TX_STATS_NOCACHE_COPY_FLOWS,
	KTGEN_A_TX_STATS_NOCACHE_COPIES,

	__KTGEN_A_TX_STATS_MAX,
	KTGEN_A_TX_STATS_MAX = (__KTGEN_A_TX_STATS_MAX - 1)
};

enum {
	KTGEN_A_CPU_STATS_METHOD = 1,
	KTGEN_A_CPU_STATS_CPUS,
	KTGEN_A_CPU_STATS_BUSY_NS,
	KTGEN_A_CPU_STATS_CYCLES,
	KTGEN_A_CPU_STATS_ESTIMATED,
	KTGEN_A_CPU_STATS_EVENT,
	KTGEN_A_CPU_STATS_EVENTS_WITHHELD,

	__KTGEN_A_CPU_STATS_MAX,
	KTGEN_A_CPU_STATS_MAX = (__KTGEN_A_CPU_STATS_MAX - 1)
};

enum {
	KTGEN_A_CPU_EVENT_STATS_EVENT = 1,
	KTGEN_A_CPU_EVENT_STATS_COUNT,
	KTGEN_A_CPU_EVENT_STATS_ENABLED_NS,
	KTGEN_A_CPU_EVENT_STATS_RUNNING_NS,
	KTGEN_A_CPU_EVENT_STATS_SCALED,
	KTGEN_A_CPU_EVENT_STATS_ERROR,
	KTGEN_A_CPU_EVENT_STATS_STAND_IN,

	__KTGEN_A_CPU_EVENT_STATS_MAX,
	KTGEN_A_CPU_EVENT_STATS_MAX = (__KTGEN_A_CPU_EVENT_STATS_MAX - 1)
};

enum {
	KTGEN_A_WINDOW_START_NS = 1,
	KTGEN_A_WINDOW_DURATION_NS,
	KTGEN_A_WINDOW_TX_BYTES,
	KTGEN_A_WINDOW_TX_MSGS,
	KTGEN_A_WINDOW_RX_BYTES,
	KTGEN_A_WINDOW_RX_MSGS,

	__KTGEN_A_WINDOW_MAX,
	KTGEN_A_WINDOW_MAX = (__KTGEN_A_WINDOW_MAX - 1)
};

enum {
	KTGEN_A_RX_PATH_AVAILABLE = 1,
	KTGEN_A_RX_PATH_BUILD_SKB,
	KTGEN_A_RX_PATH_ALLOC_SKB,
	KTGEN_A_RX_PATH_GET_FRAGS,
	KTGEN_A_RX_PATH_ADD_FRAG,
	KTGEN_A_RX_PATH_GRO_MERGED,

	__KTGEN_A_RX_PATH_MAX,
	KTGEN_A_RX_PATH_MAX = (__KTGEN_A_RX_PATH_MAX - 1)
};

enum {
	KTGEN_A_PERCENTILE_PPM = 1,
	KTGEN_A_PERCENTILE_NS,

	__KTGEN_A_PERCENTILE_MAX,
	KTGEN_A_PERCENTILE_MAX = (__KTGEN_A_PERCENTILE_MAX - 1)
};

enum {
	KTGEN_A_LATENCY_TRANSACTIONS = 1,
	KTGEN_A_LATENCY_TIMEOUTS,
	KTGEN_A_LATENCY_LATE,
	KTGEN_A_LATENCY_MIN_NS,
	KTGEN_A_LATENCY_MAX_NS,
	KTGEN_A_LATENCY_MEAN_NS,
	KTGEN_A_LATENCY_STDDEV_NS,
	KTGEN_A_LATENCY_PERCENTILE,

	__KTGEN_A_LATENCY_MAX,
	KTGEN_A_LATENCY_MAX = (__KTGEN_A_LATENCY_MAX - 1)
};

enum {
	KTGEN_A_SINK_ID = 1,
	KTGEN_A_SINK_PROTO,
	KTGEN_A_SINK_LOCAL_ADDR,
	KTGEN_A_SINK_PORT,
	KTGEN_A_SINK_RX_MODE,
	KTGEN_A_SINK_CPUS,
	KTGEN_A_SINK_RCVBUF,
	KTGEN_A_SINK_ALL,
	KTGEN_A_SINK_IPV6,
	KTGEN_A_SINK_RX,
	KTGEN_A_SINK_USER_BUF,
	KTGEN_A_SINK_USER_LEN,
	KTGEN_A_SINK_BUSY_POLL,
	KTGEN_A_SINK_GRO,
	KTGEN_A_SINK_RR,
	KTGEN_A_SINK_RESP_MAX,
	KTGEN_A_SINK_TOKEN,
	KTGEN_A_SINK_MAX_CONNS,
	KTGEN_A_SINK_IDLE_MS,
	KTGEN_A_SINK_DETACH,
	KTGEN_A_SINK_IPV4,

	__KTGEN_A_SINK_MAX,
	KTGEN_A_SINK_MAX = (__KTGEN_A_SINK_MAX - 1)
};

enum {
	KTGEN_A_RUN_ID = 1,
	KTGEN_A_RUN_TEST,
	KTGEN_A_RUN_REMOTE_ADDR,
	KTGEN_A_RUN_REMOTE_PORT,
	KTGEN_A_RUN_LOCAL_ADDR,
	KTGEN_A_RUN_IFINDEX,
	KTGEN_A_RUN_SIZE,
	KTGEN_A_RUN_FLOWS,
	KTGEN_A_RUN_CPUS,
	KTGEN_A_RUN_TIME_MS,
	KTGEN_A_RUN_BYTES,
	KTGEN_A_RUN_MSGS,
	KTGEN_A_RUN_TX_MODE,
	KTGEN_A_RUN_BUFFER,
	KTGEN_A_RUN_SNDBUF,
	KTGEN_A_RUN_NODELAY,
	KTGEN_A_RUN_DETACH,
	KTGEN_A_RUN_ALL,
	KTGEN_A_RUN_STATE,
	KTGEN_A_RUN_ERROR,
	KTGEN_A_RUN_ERROR_FLOW,
	KTGEN_A_RUN_DURATION_NS,
	KTGEN_A_RUN_SPLICE,
	KTGEN_A_RUN_TX,
	KTGEN_A_RUN_RX,
	KTGEN_A_RUN_CPU_RUN,
	KTGEN_A_RUN_CPU_OTHER,
	KTGEN_A_RUN_INTERVAL_MS,
	KTGEN_A_RUN_INTERVAL,
	KTGEN_A_RUN_WARMUP_MS,
	KTGEN_A_RUN_WINDOW,
	KTGEN_A_RUN_USER_BUF,
	KTGEN_A_RUN_PROBE_COPIES,
	KTGEN_A_RUN_REQ_SIZE,
	KTGEN_A_RUN_RESP_SIZE,
	KTGEN_A_RUN_RATE,
	KTGEN_A_RUN_PERCENTILES,
	KTGEN_A_RUN_RR_TIMEOUT_MS,
	KTGEN_A_RUN_LATENCY,
	KTGEN_A_RUN_PACE_BPS,
	KTGEN_A_RUN_PACE_PPS,
	KTGEN_A_RUN_BURST,
	KTGEN_A_RUN_BUSY_POLL,
	KTGEN_A_RUN_GSO,
	KTGEN_A_RUN_TOKEN,
	KTGEN_A_RUN_PROBE_RX,
	KTGEN_A_RUN_RX_PATH,
	KTGEN_A_RUN_EVENTS,

	__KTGEN_A_RUN_MAX,
	KTGEN_A_RUN_MAX = (__KTGEN_A_RUN_MAX - 1)
};

enum {
	KTGEN_A_FLOW_RUN_ID = 1,
	KTGEN_A_FLOW_ID,
	KTGEN_A_FLOW_BYTES,
	KTGEN_A_FLOW_MSGS,
	KTGEN_A_FLOW_ACKED,
	KTGEN_A_FLOW_RETRANS,
	KTGEN_A_FLOW_SRTT_US,
	KTGEN_A_FLOW_CWND,
	KTGEN_A_FLOW_TIMEOUTS,

	__KTGEN_A_FLOW_MAX,
	KTGEN_A_FLOW_MAX = (__KTGEN_A_FLOW_MAX - 1)
};

enum {
	KTGEN_CMD_GET_INFO = 1,
	KTGEN_CMD_GET_CONFIG,
	KTGEN_CMD_SET_CONFIG,
	KTGEN_CMD_SINK_NEW,
	KTGEN_CMD_SINK_GET,
	KTGEN_CMD_SINK_DEL,
	KTGEN_CMD_RUN_NEW,
	KTGEN_CMD_RUN_GET,
	KTGEN_CMD_RUN_STOP,
	KTGEN_CMD_RUN_DEL,
	KTGEN_CMD_RUN_DONE,
	KTGEN_CMD_RUN_INTERVAL,
	KTGEN_CMD_FLOW_GET,

	__KTGEN_CMD_MAX,
	KTGEN_CMD_MAX = (__KTGEN_CMD_MAX - 1)
};

#define KTGEN_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_KTGEN_H */
