/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack and device counters read around a run (counters.c).
 */
#ifndef KTGEN_COUNTERS_H
#define KTGEN_COUNTERS_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

enum ctr_group {
	CTR_SNMP,	/* /proc/net/snmp: "Tcp.RetransSegs" */
	CTR_NETSTAT,	/* /proc/net/netstat: "TcpExt.TCPLossProbes" */
	CTR_SNMP6,	/* /proc/net/snmp6: "Udp6InDatagrams" */
	CTR_SOFTNET,	/* /proc/net/softnet_stat, all CPUs */
	CTR_DEV,	/* /sys/class/net/DEV/statistics */
	CTR_ETHTOOL,	/* ethtool -S DEV */
	CTR_QDISC,	/* tc -s qdisc show dev DEV, its root qdiscs */
	CTR_PAGE_POOL,	/* netdev netlink page-pool-stats-get, DEV's pools summed */
};

#define CTR_NAME_LEN	64

struct ctr {
	enum ctr_group	group;
	char		dev[16];	/* IFNAMSIZ */
	char		name[CTR_NAME_LEN];
	uint64_t	val;
};

struct ctr_set {
	struct ctr	*v;
	size_t		n, cap;
};

void counters_read(struct ctr_set *s);
void ctr_add(struct ctr_set *s, enum ctr_group g, const char *dev,
	     const char *name, uint64_t val);
void counters_delta(struct ctr_set *after, const struct ctr_set *before);
void counters_print(const struct ctr_set *delta);
void counters_free(struct ctr_set *s);
long long ethtool_resets(const char *dev);

/* A device's qdisc counters from an RTM_GETQDISC dump (one callback a
 * message): what the device's root qdiscs hold, egress and ingress.
 */
struct qdisc_sums {
	struct qdisc_sum {
		int		ifindex;
		uint64_t	drops, requeues, overlimits;
	}		*v;
	size_t		n;
};

struct nlmsghdr;
int ctr_qdisc_cb(const struct nlmsghdr *nlh, void *sums);
const struct qdisc_sum *ctr_qdisc_find(const struct qdisc_sums *d, int ifindex);

#endif /* KTGEN_COUNTERS_H */
