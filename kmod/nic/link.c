// SPDX-License-Identifier: GPL-2.0
/*
 * rtnetlink: the pair, made and deleted together, its link data (peer,
 * dma-cpu, irq-cpus, rx-style), and who may make one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/user_namespace.h>
#include <net/rtnetlink.h>

#include "nic.h"

static void ktg_nic_setup(struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	unsigned int q;

	ether_setup(dev);
	dev->netdev_ops = &ktg_nic_netdev_ops;
	dev->ethtool_ops = &ktg_nic_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->hw_features = NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_RXCSUM |
			   NETIF_F_HIGHDMA | NETIF_F_TSO | NETIF_F_TSO6;
	dev->features |= dev->hw_features;
	/* Made only where the initial user namespace rules (newlink), kept there. */
	ktg_netdev_set_netns_immutable(dev);
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = KTG_NIC_BUF_LEN - ETH_HLEN - VLAN_HLEN;

	nic->dev = dev;
	nic->dma_cpu = -1;
	nic->rx_ring = KTG_NIC_RX_RING;
	nic->tx_ring = KTG_NIC_TX_RING;
	u64_stats_init(&nic->dma.syncp);
	for (q = 0; q < ARRAY_SIZE(nic->rq); q++) {
		struct ktg_nic_rq *rq = &nic->rq[q];

		rq->nic = nic;
		init_waitqueue_head(&rq->refill_wait);
		INIT_CSD(&rq->csd, ktg_nic_irq, rq);
		/* Queue q interrupts CPU q modulo the CPUs online. */
		rq->irq_cpu = cpumask_local_spread(q, NUMA_NO_NODE);
		u64_stats_init(&rq->ctrs.syncp);
		u64_stats_init(&nic->sq[q].ctrs.syncp);
	}
}

static bool ktg_nic_cpu_ok(u32 cpu)
{
	return cpu < nr_cpu_ids && cpu_online(cpu);
}

/* dma-cpu and irq-cpus: CPUs online, a whole number of u32s. */
static int ktg_nic_validate_data(struct nlattr *data[], struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	const u32 *cpus;
	int i, n;

	if (!data)
		return 0;
	a = data[KTGEN_A_NIC_DMA_CPU];
	if (a && !ktg_nic_cpu_ok(nla_get_u32(a))) {
		NL_SET_ERR_MSG_ATTR(extack, a, "DMA engine CPU is not online");
		return -EINVAL;
	}
	a = data[KTGEN_A_NIC_IRQ_CPUS];
	if (!a)
		return 0;
	n = nla_len(a) / sizeof(u32);
	if (!n || nla_len(a) % sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(extack, a, "interrupt CPUs: one u32 per queue, 1 to 8");
		return -EINVAL;
	}
	cpus = nla_data(a);
	for (i = 0; i < n; i++) {
		if (!ktg_nic_cpu_ok(cpus[i])) {
			NL_SET_ERR_MSG_ATTR(extack, a, "interrupt CPU is not online");
			return -EINVAL;
		}
	}
	return 0;
}

/* Apply dma-cpu and irq-cpus; a running engine moves at once. */
static void ktg_nic_apply_data(struct ktg_nic *nic, struct nlattr *data[])
{
	const u32 *cpus;
	int q, n;

	if (!data)
		return;
	if (data[KTGEN_A_NIC_DMA_CPU]) {
		nic->dma_cpu = nla_get_u32(data[KTGEN_A_NIC_DMA_CPU]);
		if (nic->engine)
			set_cpus_allowed_ptr(nic->engine, cpumask_of(nic->dma_cpu));
	}
	if (data[KTGEN_A_NIC_IRQ_CPUS]) {
		cpus = nla_data(data[KTGEN_A_NIC_IRQ_CPUS]);
		n = nla_len(data[KTGEN_A_NIC_IRQ_CPUS]) / sizeof(u32);
		for (q = 0; q < ARRAY_SIZE(nic->rq); q++)
			WRITE_ONCE(nic->rq[q].irq_cpu, cpus[q % n]);
	}
}

/* A queue count the rings hold (rtnetlink's own bound is 4096). */
static bool ktg_nic_queues_bad(const struct nlattr *a)
{
	return a && (nla_get_u32(a) < 1 || nla_get_u32(a) > KTG_NIC_MAX_QUEUES);
}

#define KTG_NIC_QUEUES_MSG(attr)	\
	attr ": 1 to " __stringify(KTG_NIC_MAX_QUEUES) ", the rings a ktgen-nic device has"

/* IFLA_NUM_TX_QUEUES and IFLA_NUM_RX_QUEUES of the device or its peer. */
static int ktg_nic_validate_queues(struct nlattr *tb[], bool peer,
				   struct netlink_ext_ack *extack)
{
	const struct nlattr *tx = tb[IFLA_NUM_TX_QUEUES], *rx = tb[IFLA_NUM_RX_QUEUES];

	if (ktg_nic_queues_bad(tx) && peer)
		NL_SET_ERR_MSG_ATTR(extack, tx, KTG_NIC_QUEUES_MSG("peer's IFLA_NUM_TX_QUEUES"));
	else if (ktg_nic_queues_bad(tx))
		NL_SET_ERR_MSG_ATTR(extack, tx, KTG_NIC_QUEUES_MSG("IFLA_NUM_TX_QUEUES"));
	else if (ktg_nic_queues_bad(rx) && peer)
		NL_SET_ERR_MSG_ATTR(extack, rx, KTG_NIC_QUEUES_MSG("peer's IFLA_NUM_RX_QUEUES"));
	else if (ktg_nic_queues_bad(rx))
		NL_SET_ERR_MSG_ATTR(extack, rx, KTG_NIC_QUEUES_MSG("IFLA_NUM_RX_QUEUES"));
	else
		return 0;
	return -EINVAL;
}

/* The device's attributes (@peer false: link data too) or the peer's. */
static int ktg_nic_validate_link(struct nlattr *tb[], struct nlattr *data[], bool peer,
				 struct netlink_ext_ack *extack)
{
	int err;

	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN ||
		    !is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS], "not a unicast MAC address");
			return -EADDRNOTAVAIL;
		}
	}
	if (tb[IFLA_MTU] && nla_get_u32(tb[IFLA_MTU]) > KTG_NIC_BUF_LEN - ETH_HLEN - VLAN_HLEN) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_MTU], "MTU beyond one page per frame");
		return -EINVAL;
	}
	err = ktg_nic_validate_queues(tb, peer, extack);
	if (err)
		return err;
	return ktg_nic_validate_data(data, extack);
}

static int ktg_nic_validate(struct nlattr *tb[], struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	return ktg_nic_validate_link(tb, data, false, extack);
}

static int ktg_nic_changelink(struct net_device *dev, struct nlattr *tb[],
			      struct nlattr *data[], struct netlink_ext_ack *extack)
{
	int err = ktg_nic_validate_data(data, extack);

	if (err)
		return err;
	if (data && data[KTGEN_A_NIC_PEER]) {
		NL_SET_ERR_MSG_ATTR(extack, data[KTGEN_A_NIC_PEER],
				    "the peer is chosen at creation only");
		return -EOPNOTSUPP;
	}
	ktg_nic_apply_data(netdev_priv(dev), data);
	return 0;
}

/* One channel per CPU, as drivers default to, unless asked. Never more
 * queues than the rings: validate refused such counts, and this holds it
 * where the device is made, whatever made it.
 */
static int ktg_nic_init_queues(struct net_device *dev, struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	struct ktg_nic *nic = netdev_priv(dev);
	unsigned int n;

	if (dev->num_tx_queues > ARRAY_SIZE(nic->sq) ||
	    dev->num_rx_queues > ARRAY_SIZE(nic->rq)) {
		NL_SET_ERR_MSG(extack, "ktgen-nic: more queues than the device has rings");
		return -EINVAL;
	}
	n = min3(num_online_cpus(), dev->num_tx_queues, dev->num_rx_queues);
	netif_set_real_num_queues(dev, n, n);
	ktg_nic_apply_data(nic, data);
	return 0;
}

/*
 * A pair holds what belongs to the whole host, not to a network namespace:
 * a DMA-engine kthread per device, which dma-cpu pins to any CPU, page
 * pools of channels x ring pages, interrupts (IPIs) that irq-cpus sends to
 * any CPU. The core lets root of a user namespace get here (it checks
 * CAP_NET_ADMIN over the owner of the device's namespace only), so a pair
 * is made only by a caller with CAP_NET_ADMIN in the initial user
 * namespace, with both ends in network namespaces that namespace owns, and
 * it never moves out of them (netns-immutable, set in setup; a namespace
 * going away deletes it). Every later operation (changelink, ethtool, up,
 * mtu, del, a move) is then one the core checks against the owner of the
 * device's namespace, the initial user namespace: capable(CAP_NET_ADMIN)
 * by construction, in one place rather than repeated in each op, and
 * covering ops that cannot tell who asked (ndo_open starts the engine).
 */
/* The peer asked for: KTGEN_A_NIC_PEER, an ifinfomsg followed by the
 * peer's own attributes (as veth's); without it the device's attributes
 * and a name ktgn%d.
 */
struct ktg_nic_peer_req {
	struct nlattr		*peer_tb[IFLA_MAX + 1];
	struct nlattr		**tb;		/* peer_tb, or the device's */
	struct ifinfomsg	*ifm;		/* NULL: no peer attribute */
	char			ifname[IFNAMSIZ];
	unsigned char		name_assign_type;
};

static int ktg_nic_peer_parse(struct ktg_nic_peer_req *r, struct nlattr *tb[],
			      struct nlattr *data[], struct netlink_ext_ack *extack)
{
	int err;

	r->tb = tb;
	r->ifm = NULL;
	if (data && data[KTGEN_A_NIC_PEER]) {
		struct nlattr *nla_peer = data[KTGEN_A_NIC_PEER];

		r->ifm = nla_data(nla_peer);
		err = rtnl_nla_parse_ifinfomsg(r->peer_tb, nla_peer, extack);
		if (err < 0)
			return err;
		err = ktg_nic_validate_link(r->peer_tb, NULL, true, extack);
		if (err < 0)
			return err;
		r->tb = r->peer_tb;
	}
	if (r->ifm && r->tb[IFLA_IFNAME]) {
		nla_strscpy(r->ifname, r->tb[IFLA_IFNAME], IFNAMSIZ);
		r->name_assign_type = NET_NAME_USER;
	} else {
		snprintf(r->ifname, IFNAMSIZ, "ktgn%%d");
		r->name_assign_type = NET_NAME_ENUM;
	}
	return 0;
}

/* The peer made and registered, in the namespace @r names (or @src_net);
 * both ends must be in namespaces of the initial user namespace.
 */
static struct net_device *ktg_nic_peer_create(struct net *src_net, struct net_device *dev,
					      struct ktg_nic_peer_req *r,
					      struct nlattr *data[],
					      struct netlink_ext_ack *extack)
{
	struct net_device *peer;
	struct net *net;
	int err;

	net = rtnl_link_get_net(src_net, r->tb);
	if (IS_ERR(net)) {
		NL_SET_ERR_MSG(extack, "ktgen-nic: no such network namespace for the peer");
		return ERR_CAST(net);
	}
	if (dev_net(dev)->user_ns != &init_user_ns || net->user_ns != &init_user_ns) {
		put_net(net);
		NL_SET_ERR_MSG_ATTR(extack, dev_net(dev)->user_ns != &init_user_ns || !data ?
				    NULL : data[KTGEN_A_NIC_PEER],
				    "ktgen-nic: both ends in network namespaces of the initial user namespace only");
		return ERR_PTR(-EPERM);
	}
	peer = rtnl_create_link(net, r->ifname, r->name_assign_type, &ktg_nic_link_ops, r->tb,
				extack);
	if (IS_ERR(peer)) {
		put_net(net);
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot create the peer");
		return peer;
	}
	if (!r->ifm || !r->tb[IFLA_ADDRESS])
		eth_hw_addr_random(peer);
	if (r->ifm && dev->ifindex)
		peer->ifindex = r->ifm->ifi_index;
	err = ktg_nic_init_queues(peer, data, extack);
	if (err < 0) {
		put_net(net);
		free_netdev(peer);
		return ERR_PTR(err);
	}

	err = register_netdevice(peer);
	put_net(net);
	if (err < 0) {
		free_netdev(peer);
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot register the peer");
		return ERR_PTR(err);
	}
	netif_carrier_off(peer);
	err = ktg_rtnl_configure_link(peer, r->ifm);
	if (err < 0) {
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot configure the peer");
		unregister_netdevice(peer);
		return ERR_PTR(err);
	}
	return peer;
}

/*
 * A pair holds what belongs to the whole host, not to a network namespace:
 * a DMA-engine kthread per device, which dma-cpu pins to any CPU, page
 * pools of channels x ring pages, interrupts (IPIs) that irq-cpus sends to
 * any CPU. The core lets root of a user namespace get here (it checks
 * CAP_NET_ADMIN over the owner of the device's namespace only), so a pair
 * is made only by a caller with CAP_NET_ADMIN in the initial user
 * namespace, with both ends in network namespaces that namespace owns, and
 * it never moves out of them (netns-immutable, set in setup; a namespace
 * going away deletes it). Every later operation (changelink, ethtool, up,
 * mtu, del, a move) is then one the core checks against the owner of the
 * device's namespace, the initial user namespace: capable(CAP_NET_ADMIN)
 * by construction, in one place rather than repeated in each op, and
 * covering ops that cannot tell who asked (ndo_open starts the engine).
 */
static int ktg_nic_newlink(struct net *src_net, struct net_device *dev,
			   struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	struct ktg_nic_peer_req r;
	struct ktg_nic *nic, *pn;
	struct net_device *peer;
	int err;

	if (!capable(CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack,
			       "ktgen-nic needs CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}
	err = ktg_nic_peer_parse(&r, tb, data, extack);
	if (err)
		return err;
	peer = ktg_nic_peer_create(src_net, dev, &r, data, extack);
	if (IS_ERR(peer))
		return PTR_ERR(peer);

	if (!tb[IFLA_ADDRESS])
		eth_hw_addr_random(dev);
	if (tb[IFLA_IFNAME])
		nla_strscpy(dev->name, tb[IFLA_IFNAME], IFNAMSIZ);
	else
		snprintf(dev->name, IFNAMSIZ, "ktgn%%d");
	err = ktg_nic_init_queues(dev, data, extack);
	if (!err)
		err = register_netdevice(dev);
	if (err < 0) {
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot register the device");
		unregister_netdevice(peer);
		return err;
	}
	netif_carrier_off(dev);

	nic = netdev_priv(dev);
	pn = netdev_priv(peer);
	rcu_assign_pointer(nic->peer, peer);
	rcu_assign_pointer(pn->peer, dev);
	return 0;
}

static void ktg_nic_dellink(struct net_device *dev, struct list_head *head)
{
	struct ktg_nic *nic = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(nic->peer);

	/* Both go in one batch: both closed (engines stopped, rings freed)
	 * before either is uninitialised, freed after an RCU grace period.
	 * The peer pointers stay until then: closing one device parks the
	 * other's engine through them.
	 */
	unregister_netdevice_queue(dev, head);
	if (peer)
		unregister_netdevice_queue(peer, head);
}

static size_t ktg_nic_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(u32)) * 2 +
	       nla_total_size(sizeof(u32) * KTG_NIC_MAX_QUEUES);
}

static int ktg_nic_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u32 cpus[ARRAY_SIZE(nic->rq)];
	unsigned int q;

	for (q = 0; q < ARRAY_SIZE(cpus); q++)
		cpus[q] = READ_ONCE(nic->rq[q].irq_cpu);
	if (nla_put(skb, KTGEN_A_NIC_IRQ_CPUS, sizeof(u32) * ktg_nic_rxqs(nic), cpus))
		return -EMSGSIZE;

	if (nic->dma_cpu >= 0 && nla_put_u32(skb, KTGEN_A_NIC_DMA_CPU, nic->dma_cpu))
		return -EMSGSIZE;
	if (nla_put_u32(skb, KTGEN_A_NIC_RX_STYLE,
			ktg_nic_style(READ_ONCE(nic->priv_flags))))
		return -EMSGSIZE;
	return 0;
}

static struct net *ktg_nic_get_link_net(const struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(nic->peer);

	return peer ? dev_net(peer) : dev_net(dev);
}

static unsigned int ktg_nic_num_queues(void)
{
	return KTG_NIC_MAX_QUEUES;
}

KTG_RTNL_COMPAT_NEWLINK(ktg_nic_newlink)

struct rtnl_link_ops ktg_nic_link_ops = {
	.kind			= KTG_NIC_KIND,
	.priv_size		= sizeof(struct ktg_nic),
	.setup			= ktg_nic_setup,
	.validate		= ktg_nic_validate,
	.newlink		= KTG_RTNL_NEWLINK_OP(ktg_nic_newlink),
	.changelink		= ktg_nic_changelink,
	.dellink		= ktg_nic_dellink,
	.policy			= ktg_nic_policy,
	.maxtype		= KTGEN_A_NIC_MAX,
	.get_size		= ktg_nic_get_size,
	.fill_info		= ktg_nic_fill_info,
	.get_link_net		= ktg_nic_get_link_net,
	.get_num_tx_queues	= ktg_nic_num_queues,
	.get_num_rx_queues	= ktg_nic_num_queues,
};
