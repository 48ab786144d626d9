// SPDX-License-Identifier: GPL-2.0
/*
 * The ktgen generic netlink family: its operations, its multicast group,
 * the owners of runs and sinks tracked by their sockets, and what the
 * messages of sinks and runs share. Each object's messages are in a file
 * of their own: nl-config.c (info and config), nl-sink.c, nl-run.c.
 * include/uapi/linux/ktgen.yaml is the contract; the policies (policy.c)
 * follow its checks.
 */
#include <linux/uaccess.h>
#include <net/genetlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "ktgen.h"
#include "netlink.h"
#include "policy.h"
#include "run.h"
#include "sink.h"
#include "stats.h"

/* --- encodings shared by sinks and runs --- */

/* @lost: the loss a same-host sender computed, or U64_MAX for the sink's. */
int ktg_rx_stats_fill(struct sk_buff *msg, int attr, struct ktg_rx_stats *rx, u64 lost)
{
	u64 first = atomic64_read(&rx->verify_first);
	struct nlattr *nest;

	nest = nla_nest_start(msg, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_BYTES, atomic64_read(&rx->bytes), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_MSGS, atomic64_read(&rx->msgs), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_CONNS, atomic64_read(&rx->conns), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_VERIFY_ERRORS,
			      atomic64_read(&rx->verify_errors), 0) ||
	    (first != U64_MAX &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_VERIFY_FIRST_OFFSET, first, 0)) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_LOST,
			      lost != U64_MAX ? lost : atomic64_read(&rx->lost), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_LATE, atomic64_read(&rx->late), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_DUP, atomic64_read(&rx->dup), 0) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_BAD_HEADERS,
			      atomic64_read(&rx->bad_headers), 0) ||
	    (atomic64_read(&rx->responses) &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_RESPONSES,
			       atomic64_read(&rx->responses), 0)) ||
	    (atomic64_read(&rx->reads) &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_READS,
			       atomic64_read(&rx->reads), 0)) ||
	    nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_REFUSED,
			      atomic64_read(&rx->refused), 0) ||
	    (atomic64_read(&rx->csum_errors) &&
	     nla_put_u64_64bit(msg, KTGEN_A_RX_STATS_CSUM_ERRORS,
			       atomic64_read(&rx->csum_errors), 0))) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

int ktg_addr_put(struct sk_buff *msg, int attr, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return nla_put(msg, attr, sizeof(struct in6_addr),
			       &((const struct sockaddr_in6 *)ss)->sin6_addr);
	return nla_put_in_addr(msg, attr, ((const struct sockaddr_in *)ss)->sin_addr.s_addr);
}

/* A CPU list (ktg_cpus_parse()'s encoding), as long as its last CPU
 * needs; one the encoding cannot name is never taken.
 */
int ktg_cpus_put(struct sk_buff *msg, int attr, const struct cpumask *mask)
{
	unsigned int cpu, last = cpumask_last(mask);
	struct nlattr *nla;
	u8 *bits;

	if (WARN_ON_ONCE(last >= KTG_CPUS_MAX))
		return -ERANGE;
	nla = nla_reserve(msg, attr, last / 8 + 1);
	if (!nla)
		return -EMSGSIZE;
	bits = nla_data(nla);
	memset(bits, 0, nla_len(nla));
	for_each_cpu(cpu, mask)
		bits[cpu / 8] |= BIT(cpu % 8);
	return 0;
}

/* A CPU bitmap, bit N of byte N/8 for CPU N; absent: @def. Every CPU named
 * must be online.
 */
int ktg_cpus_parse(const struct nlattr *attr, struct cpumask *mask,
		   const struct cpumask *def, struct netlink_ext_ack *extack)
{
	const u8 *bits;
	int i, len;

	if (!attr) {
		/* the lists a reply carries name CPUs below KTG_CPUS_MAX */
		if (cpumask_last(def) >= KTG_CPUS_MAX) {
			NL_SET_ERR_MSG(extack,
				       "the default CPU is 1024 or above, which a CPU list cannot name: give cpus");
			return -EINVAL;
		}
		cpumask_copy(mask, def);
		return 0;
	}
	cpumask_clear(mask);
	bits = nla_data(attr);
	len = nla_len(attr);
	for (i = 0; i < len * 8; i++) {
		if (!(bits[i / 8] & BIT(i % 8)))
			continue;
		if (i >= nr_cpu_ids || !cpu_online(i)) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "the CPU list names an offline CPU");
			return -EINVAL;
		}
		cpumask_set_cpu(i, mask);
	}
	if (cpumask_empty(mask)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the CPU list is empty");
		return -EINVAL;
	}
	return 0;
}

/* An IPv4 (4 bytes) or IPv6 (16 bytes) address with a port; absent: the
 * wildcard of @family.
 */
int ktg_addr_parse(const struct nlattr *attr, int family, __be16 port,
		   struct sockaddr_storage *ss, struct netlink_ext_ack *extack)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (attr) {
		if (nla_len(attr) == sizeof(struct in6_addr)) {
			family = AF_INET6;
		} else if (nla_len(attr) == sizeof(struct in_addr)) {
			family = AF_INET;
		} else {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "an address is 4 (IPv4) or 16 (IPv6) bytes");
			return -EINVAL;
		}
	}
	if (family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = port;
		if (attr)
			memcpy(&sin6->sin6_addr, nla_data(attr), sizeof(sin6->sin6_addr));
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		if (attr)
			sin->sin_addr.s_addr = nla_get_in_addr(attr);
	}
	return 0;
}

u32 ktg_nl_u32(struct genl_info *info, int attr, u32 def)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : def;
}

/* A port, which must not be 0: the policy says so where the kernel
 * validates big-endian ranges (compat.h: KTG_POLICY_PORT), this everywhere.
 */
int ktg_nl_port(struct genl_info *info, int attr, __be16 *port)
{
	*port = nla_get_be16(info->attrs[attr]);
	if (!*port) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr], "port 0: give a port");
		return -EINVAL;
	}
	return 0;
}

/*
 * The user memory of tx/rx user: given exactly with its mode, page aligned,
 * and @len bytes of the requester's address range (whether it is mapped
 * and writable shows when the module first writes it).
 */
int ktg_nl_user_mem(struct genl_info *info, int attr, bool user_mode, u64 len)
{
	struct nlattr *a = info->attrs[attr];
	u64 addr;

	if (!user_mode) {
		if (a) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "user memory is for user mode only");
			return -EINVAL;
		}
		return 0;
	}
	if (ktg_req_attr_missing(info, attr))
		return -EINVAL;
	addr = nla_get_u64(a);
	if (!PAGE_ALIGNED(addr) || !addr) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "user memory must be page aligned");
		return -EINVAL;
	}
	if (!access_ok(u64_to_user_ptr(addr), len)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "not a user address range");
		return -EFAULT;
	}
	return 0;
}

/* An id or the all flag, exactly one of them. */
int ktg_nl_id_or_all(struct genl_info *info, int id_attr, int all_attr)
{
	bool all = info->attrs[all_attr];

	if (all == !!info->attrs[id_attr]) {
		NL_SET_ERR_MSG(info->extack, "give an id or the all flag");
		return -EINVAL;
	}
	return 0;
}

/* --- the family --- */

/*
 * A notification that could not be built is lost: its listeners hear of
 * it (their next receive fails with ENOBUFS, as after an overrun, and they
 * ask for the state) instead of waiting for it for ever, as rtnetlink's
 * do (rtnl_set_sk_err). A clone that fails in the multicast overruns the
 * listener's socket by itself.
 */
void ktg_nl_notify_lost(struct net *net)
{
	genl_set_err(&ktg_nl_family, net, 0, KTG_NL_GRP_EVENTS, -ENOBUFS);
}

static const struct genl_ops ktg_nl_ops[] = {
	{
		.cmd	= KTGEN_CMD_GET_INFO,
		.doit	= ktg_nl_get_info_doit,
		.policy	= ktg_none_policy,
		.maxattr = 1,
	},
	{
		.cmd	= KTGEN_CMD_GET_CONFIG,
		.doit	= ktg_nl_get_config_doit,
		.policy	= ktg_none_policy,
		.maxattr = 1,
	},
	{
		.cmd	= KTGEN_CMD_SET_CONFIG,
		.doit	= ktg_nl_set_config_doit,
		.policy	= ktg_config_policy,
		.maxattr = KTGEN_A_CONFIG_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_SINK_NEW,
		.doit	= ktg_nl_sink_new_doit,
		.policy	= ktg_sink_policy,
		.maxattr = KTGEN_A_SINK_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_SINK_GET,
		.doit	= ktg_nl_sink_get_doit,
		.dumpit	= ktg_nl_sink_get_dumpit,
		.policy	= ktg_sink_policy,
		.maxattr = KTGEN_A_SINK_MAX,
	},
	{
		.cmd	= KTGEN_CMD_SINK_DEL,
		.doit	= ktg_nl_sink_del_doit,
		.policy	= ktg_sink_policy,
		.maxattr = KTGEN_A_SINK_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_RUN_NEW,
		.doit	= ktg_nl_run_new_doit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_RUN_GET,
		.doit	= ktg_nl_run_get_doit,
		.dumpit	= ktg_nl_run_get_dumpit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
	},
	{
		.cmd	= KTGEN_CMD_RUN_STOP,
		.doit	= ktg_nl_run_stop_doit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_RUN_DEL,
		.doit	= ktg_nl_run_del_doit,
		.policy	= ktg_run_policy,
		.maxattr = KTGEN_A_RUN_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= KTGEN_CMD_FLOW_GET,
		.dumpit	= ktg_nl_flow_get_dumpit,
		.policy	= ktg_flow_policy,
		.maxattr = KTGEN_A_FLOW_MAX,
	},
};

static const struct genl_multicast_group ktg_nl_mcgrps[] = {
	[KTG_NL_GRP_EVENTS] = { .name = KTGEN_MCGRP_EVENTS },
};

struct genl_family ktg_nl_family __ro_after_init = {
	.name		= KTGEN_FAMILY_NAME,
	.version	= KTGEN_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= ktg_nl_ops,
	.n_ops		= ARRAY_SIZE(ktg_nl_ops),
	.mcgrps		= ktg_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ktg_nl_mcgrps),
	KTG_GENL_RESV_START_OP(KTGEN_CMD_GET_INFO)
};

/* A generic netlink socket closed: runs it started stop and rx user sinks
 * it added go, unless detached. Process context; only flags, kicks and a
 * queued work: the runs' completions and the sinks' works do the rest.
 */
static int ktg_nl_release(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC || !n->portid)
		return NOTIFY_DONE;
	ktg_runs_owner_gone(ktg_pernet(n->net), n->portid);
	ktg_sinks_owner_gone(ktg_pernet(n->net), n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block ktg_nl_notifier = {
	.notifier_call = ktg_nl_release,
};

int __init ktg_netlink_init(void)
{
	int err;

	err = genl_register_family(&ktg_nl_family);
	if (err)
		return err;
	err = netlink_register_notifier(&ktg_nl_notifier);
	if (err)
		genl_unregister_family(&ktg_nl_family);
	return err;
}

void ktg_netlink_exit(void)
{
	genl_unregister_family(&ktg_nl_family);
	/* Right after: a late release must not reach freed module code. */
	netlink_unregister_notifier(&ktg_nl_notifier);
}
