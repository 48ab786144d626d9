/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktgen: in-kernel TCP/UDP traffic generator and sink.
 * Objects shared between the files of the module.
 */
#ifndef _KTGEN_H
#define _KTGEN_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <net/net_namespace.h>
#include <linux/ktgen.h>

#ifndef KTGEN_VERSION
#define KTGEN_VERSION "unknown"
#endif

/* Per network namespace state: sinks and runs live in the namespace whose
 * sockets they use and go away with it.
 */
struct ktg_net {
	struct net		*net;
	struct mutex		lock;	/* protects the lists */
	struct list_head	sinks;
	struct list_head	runs;
};

struct ktg_net *ktg_pernet(const struct net *net);
int ktg_pernet_init(void);
void ktg_pernet_exit(void);

int ktg_netlink_init(void);
void ktg_netlink_exit(void);

/* Module-wide memory budget for source and sink buffers. */
#define KTG_MEM_BUDGET_DEFAULT	SZ_1G
#define KTG_MEM_BUDGET_MIN	SZ_1M
#define KTG_MEM_BUDGET_MAX	(64ULL * SZ_1G)
int ktg_mem_charge(u64 bytes);
void ktg_mem_uncharge(u64 bytes);
u64 ktg_mem_used(void);
u64 ktg_mem_budget(void);
int ktg_mem_set_budget(u64 bytes);

/* Copy and page-send primitives in effect on this kernel. */
enum ktgen_nocache_impl ktg_copy_nocache_impl(void);
enum ktgen_page_send ktg_page_send_method(void);

/* CPU accounting: cycle counters when the CPU has a PMU. */
int ktg_cpu_init(void);
bool ktg_cpu_have_pmu(void);

#endif /* _KTGEN_H */
