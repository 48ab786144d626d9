// SPDX-License-Identifier: GPL-2.0
/*
 * The attribute policies of the ktgen family. include/uapi/linux/ktgen.yaml
 * says the same: the uapi tier (scripts/check-policy.sh) builds this file
 * against the policies the spec generates and fails where they differ.
 */
#include <linux/limits.h>
#include <linux/time64.h>

#include "policy.h"

#ifdef __KERNEL__
#include "compat.h"
#else
/* The host's policy check: its kernel (tests/unit/kinclude) has them. */
#define KTG_POLICY_PORT		NLA_POLICY_MIN(NLA_BE16, 1)
#endif

/* Bounds NLA_POLICY_RANGE() cannot hold (s16), by reference; not const:
 * 6.1 and older point at them without.
 */
static struct netlink_range_validation ktg_budget_range = {
	.min	= KTG_MEM_BUDGET_MIN,
	.max	= KTG_MEM_BUDGET_MAX,
};

static struct netlink_range_validation ktg_buffer_range = {
	.min	= SZ_4K,
	.max	= SZ_1G,
};

static struct netlink_range_validation ktg_sockbuf_range = {
	.min	= SZ_4K,
	.max	= SZ_256M,
};

static struct netlink_range_validation ktg_size_range = {
	.min	= 1,
	.max	= SZ_1M,
};

static struct netlink_range_validation ktg_time_range = {
	.max	= 86400000,
};

static struct netlink_range_validation ktg_interval_range = {
	.min	= 100,
	.max	= 3600000,
};

static struct netlink_range_validation ktg_warmup_range = {
	.max	= 3600000,
};

static struct netlink_range_validation ktg_rr_size_range = {
	.min	= 1,
	.max	= KTG_MAX_UDP_SIZE,
};

static struct netlink_range_validation ktg_rr_timeout_range = {
	.min	= 1,
	.max	= 60000,
};

static struct netlink_range_validation ktg_pace_bps_range = {
	.min	= 1000,
	.max	= U64_MAX,
};

static struct netlink_range_validation ktg_pace_pps_range = {
	.min	= 1,
	.max	= 100000000,
};

static struct netlink_range_validation ktg_rate_range = {
	.min	= 1,
	.max	= 10000000,
};

static struct netlink_range_validation ktg_busy_poll_range = {
	.max	= 10 * USEC_PER_SEC,
};

static struct netlink_range_validation ktg_resp_max_range = {
	.max	= KTG_RESP_MAX,
};

static struct netlink_range_validation ktg_max_conns_range = {
	.min	= 1,
	.max	= KTG_MAX_CONNS,
};

static struct netlink_range_validation ktg_idle_range = {
	.min	= 10,
	.max	= 3600 * MSEC_PER_SEC,
};

static struct netlink_range_validation ktg_user_len_range = {
	.min	= SZ_64K,
	.max	= SZ_1G,
};

/* Commands that take no attributes refuse every one: attribute 1 by its
 * policy, the others as beyond maxattr. (6.1's core gives ops without a
 * policy the same; older kernels would parse nothing and accept them.)
 */
const struct nla_policy ktg_none_policy[2] = {
	[1]				= { .type = NLA_REJECT },
};

static struct netlink_range_validation ktg_max_objects_range = {
	.min	= 1,
	.max	= KTG_MAX_OBJECTS,
};

const struct nla_policy ktg_config_policy[KTGEN_A_CONFIG_MAX + 1] = {
	[KTGEN_A_CONFIG_BUFFER_BUDGET]	= NLA_POLICY_FULL_RANGE(NLA_U64, &ktg_budget_range),
	[KTGEN_A_CONFIG_BUFFER_USED]	= { .type = NLA_REJECT },
	[KTGEN_A_CONFIG_MAX_RUNS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_max_objects_range),
	[KTGEN_A_CONFIG_MAX_SINKS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_max_objects_range),
};

const struct nla_policy ktg_sink_policy[KTGEN_A_SINK_MAX + 1] = {
	[KTGEN_A_SINK_ID]		= { .type = NLA_U32 },
	[KTGEN_A_SINK_PROTO]		= NLA_POLICY_MAX(NLA_U32, KTGEN_PROTO_UDP),
	[KTGEN_A_SINK_LOCAL_ADDR]	= NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[KTGEN_A_SINK_PORT]		= KTG_POLICY_PORT,
	[KTGEN_A_SINK_RX_MODE]		= NLA_POLICY_MAX(NLA_U32, KTGEN_RX_MODE_USER),
	[KTGEN_A_SINK_CPUS]		= { .type = NLA_BINARY, .len = KTG_CPUS_MAX / 8 },
	[KTGEN_A_SINK_RCVBUF]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_sockbuf_range),
	[KTGEN_A_SINK_ALL]		= { .type = NLA_FLAG },
	[KTGEN_A_SINK_IPV6]		= { .type = NLA_FLAG },
	[KTGEN_A_SINK_USER_BUF]		= { .type = NLA_U64 },
	[KTGEN_A_SINK_USER_LEN]		= NLA_POLICY_FULL_RANGE(NLA_U64, &ktg_user_len_range),
	[KTGEN_A_SINK_BUSY_POLL]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_busy_poll_range),
	[KTGEN_A_SINK_GRO]		= { .type = NLA_FLAG },
	[KTGEN_A_SINK_RR]		= { .type = NLA_FLAG },
	[KTGEN_A_SINK_RESP_MAX]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_resp_max_range),
	[KTGEN_A_SINK_TOKEN]		= { .type = NLA_REJECT },
	[KTGEN_A_SINK_MAX_CONNS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_max_conns_range),
	[KTGEN_A_SINK_IDLE_MS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_idle_range),
	[KTGEN_A_SINK_DETACH]		= { .type = NLA_FLAG },
	[KTGEN_A_SINK_IPV4]		= { .type = NLA_FLAG },
};

const struct nla_policy ktg_flow_policy[KTGEN_A_FLOW_MAX + 1] = {
	[KTGEN_A_FLOW_RUN_ID]		= { .type = NLA_U32 },
};

const struct nla_policy ktg_run_policy[KTGEN_A_RUN_MAX + 1] = {
	[KTGEN_A_RUN_ID]		= { .type = NLA_U32 },
	[KTGEN_A_RUN_TEST]		= NLA_POLICY_MAX(NLA_U32, KTGEN_TEST_TCP_CRR),
	[KTGEN_A_RUN_REMOTE_ADDR]	= NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[KTGEN_A_RUN_REMOTE_PORT]	= KTG_POLICY_PORT,
	[KTGEN_A_RUN_LOCAL_ADDR]	= NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[KTGEN_A_RUN_IFINDEX]		= { .type = NLA_U32 },
	[KTGEN_A_RUN_SIZE]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_size_range),
	[KTGEN_A_RUN_FLOWS]		= NLA_POLICY_RANGE(NLA_U32, 1, KTG_MAX_FLOWS),
	[KTGEN_A_RUN_CPUS]		= { .type = NLA_BINARY, .len = KTG_CPUS_MAX / 8 },
	[KTGEN_A_RUN_TIME_MS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_time_range),
	[KTGEN_A_RUN_BYTES]		= { .type = NLA_U64 },
	[KTGEN_A_RUN_MSGS]		= { .type = NLA_U64 },
	[KTGEN_A_RUN_TX_MODE]		= NLA_POLICY_MAX(NLA_U32, KTGEN_TX_MODE_USER),
	[KTGEN_A_RUN_BUFFER]		= NLA_POLICY_FULL_RANGE(NLA_U64, &ktg_buffer_range),
	[KTGEN_A_RUN_SNDBUF]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_sockbuf_range),
	[KTGEN_A_RUN_NODELAY]		= { .type = NLA_FLAG },
	[KTGEN_A_RUN_DETACH]		= { .type = NLA_FLAG },
	[KTGEN_A_RUN_ALL]		= { .type = NLA_FLAG },
	[KTGEN_A_RUN_INTERVAL_MS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_interval_range),
	[KTGEN_A_RUN_WARMUP_MS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_warmup_range),
	[KTGEN_A_RUN_USER_BUF]		= { .type = NLA_U64 },
	[KTGEN_A_RUN_PROBE_COPIES]	= { .type = NLA_FLAG },
	[KTGEN_A_RUN_REQ_SIZE]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_rr_size_range),
	[KTGEN_A_RUN_RESP_SIZE]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_rr_size_range),
	[KTGEN_A_RUN_RATE]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_rate_range),
	[KTGEN_A_RUN_PERCENTILES]	= { .type = NLA_BINARY,
					    .len = KTG_MAX_PERCENTILES * sizeof(u32) },
	[KTGEN_A_RUN_RR_TIMEOUT_MS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_rr_timeout_range),
	[KTGEN_A_RUN_PACE_BPS]		= NLA_POLICY_FULL_RANGE(NLA_U64, &ktg_pace_bps_range),
	[KTGEN_A_RUN_PACE_PPS]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_pace_pps_range),
	[KTGEN_A_RUN_BURST]		= NLA_POLICY_MIN(NLA_U32, 1),
	[KTGEN_A_RUN_BUSY_POLL]		= NLA_POLICY_FULL_RANGE(NLA_U32, &ktg_busy_poll_range),
	[KTGEN_A_RUN_GSO]		= NLA_POLICY_RANGE(NLA_U32, 2, KTG_MAX_GSO),
	[KTGEN_A_RUN_TOKEN]		= { .type = NLA_U64 },
	[KTGEN_A_RUN_PROBE_RX]		= { .type = NLA_FLAG },
	[KTGEN_A_RUN_EVENTS]		= NLA_POLICY_MASK(NLA_U32, KTG_CPU_EVENT_MASK),
};
