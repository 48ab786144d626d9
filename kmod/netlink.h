/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family (netlink.c, nl-config.c, nl-sink.c, nl-run.c).
 * The rest of the module calls the first two sections only: the family's
 * registration and a run's events. What follows them is the family's own,
 * shared between its files.
 */
#ifndef _KTG_NETLINK_H
#define _KTG_NETLINK_H

#include <linux/types.h>

struct cpumask;
struct genl_family;
struct genl_info;
struct ktg_run;
struct ktg_rx_stats;
struct net;
struct netlink_callback;
struct netlink_ext_ack;
struct nlattr;
struct sk_buff;
struct sockaddr_storage;

/* netlink.c */
int ktg_netlink_init(void);
void ktg_netlink_exit(void);

/* nl-run.c: a run's events */
void ktg_nl_notify_run_done(struct ktg_run *run);
void ktg_nl_notify_run_interval(struct ktg_run *run);

/* --- inside the family --- */

extern struct genl_family ktg_nl_family;

/* The family's multicast groups, by their offset in ktg_nl_mcgrps[]. */
enum {
	KTG_NL_GRP_EVENTS,
};

/* netlink.c: the encodings and request checks of sinks and runs */
int ktg_rx_stats_fill(struct sk_buff *msg, int attr, struct ktg_rx_stats *rx, u64 lost);
int ktg_addr_put(struct sk_buff *msg, int attr, const struct sockaddr_storage *ss);
int ktg_cpus_put(struct sk_buff *msg, int attr, const struct cpumask *mask);
int ktg_cpus_parse(const struct nlattr *attr, struct cpumask *mask,
		   const struct cpumask *def, struct netlink_ext_ack *extack);
int ktg_addr_parse(const struct nlattr *attr, int family, __be16 port,
		   struct sockaddr_storage *ss, struct netlink_ext_ack *extack);
u32 ktg_nl_u32(struct genl_info *info, int attr, u32 def);
int ktg_nl_port(struct genl_info *info, int attr, __be16 *port);
int ktg_nl_user_mem(struct genl_info *info, int attr, bool user_mode, u64 len);
int ktg_nl_id_or_all(struct genl_info *info, int id_attr, int all_attr);

/* netlink.c: an event that could not be sent, said to its listeners */
void ktg_nl_notify_lost(struct net *net);

/* nl-config.c */
int ktg_nl_get_info_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_get_config_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_set_config_doit(struct sk_buff *skb, struct genl_info *info);

/* nl-sink.c */
int ktg_nl_sink_new_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_sink_get_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_sink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ktg_nl_sink_del_doit(struct sk_buff *skb, struct genl_info *info);

/* nl-run.c */
int ktg_nl_run_new_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_run_get_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_run_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ktg_nl_flow_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ktg_nl_run_stop_doit(struct sk_buff *skb, struct genl_info *info);
int ktg_nl_run_del_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _KTG_NETLINK_H */
