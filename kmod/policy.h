/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a request is checked against: the bounds of ktgen's attributes and
 * the policies that hold them (policy.c). Built in the host's policy check
 * too, so nothing here but the kernel's netlink types and the uapi.
 */
#ifndef _KTG_POLICY_H
#define _KTG_POLICY_H

#include <linux/sizes.h>
#include <net/netlink.h>
#include <linux/ktgen.h>

/* Module-wide memory budget (mem.c). */
#define KTG_MEM_BUDGET_MIN	SZ_1M
#define KTG_MEM_BUDGET_MAX	(64ULL * SZ_1G)

/* Runs and sinks a namespace may hold (module-wide settings). */
#define KTG_MAX_OBJECTS		65536

/* Sinks. */
#define KTG_RESP_MAX		SZ_16M
#define KTG_MAX_CONNS		65536

/* A CPU list attribute: bit N of byte N / 8 names CPU N, below this. */
#define KTG_CPUS_MAX		1024

/* Runs. */
#define KTG_MAX_FLOWS		1024
#define KTG_MAX_UDP_SIZE	65507
#define KTG_MAX_GSO		64	/* UDP_MAX_SEGMENTS before 6.9 */
#define KTG_MAX_PERCENTILES	16
/* PMU events (enum ktgen_cpu_event): every bit up to the last */
#define KTG_CPU_EVENT_MASK	((KTGEN_CPU_EVENT_LLC_LOAD_MISSES << 1) - 1)

extern const struct nla_policy ktg_none_policy[2];
extern const struct nla_policy ktg_config_policy[KTGEN_A_CONFIG_MAX + 1];
extern const struct nla_policy ktg_sink_policy[KTGEN_A_SINK_MAX + 1];
extern const struct nla_policy ktg_flow_policy[KTGEN_A_FLOW_MAX + 1];
extern const struct nla_policy ktg_run_policy[KTGEN_A_RUN_MAX + 1];

#endif
