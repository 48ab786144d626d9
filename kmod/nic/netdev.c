// SPDX-License-Identifier: GPL-2.0
/*
 * The device: transmit (queue the skb, ring the doorbell), bringing its
 * rings and DMA engine up and down, resets that rebuild them, statistics.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>

#include "nic.h"

/* Stop @txq when its ring is full; false when it has room after all. */
static bool ktg_nic_maybe_stop(struct ktg_nic_sq *sq, struct netdev_queue *txq)
{
	if (!__ptr_ring_full(&sq->ring))
		return false;
	netif_tx_stop_queue(txq);
	ktg_ctr_add(&sq->ctrs, KTG_SQ_STOPS, 1);
	/* Pairs with the engine's barrier before it wakes the queue. */
	smp_mb();
	if (__ptr_ring_full(&sq->ring))
		return true;
	netif_tx_start_queue(txq);
	return false;
}

/* Wake the engine if it sleeps (the device's doorbell). */
static void ktg_nic_doorbell(struct ktg_nic *nic)
{
	struct task_struct *engine = READ_ONCE(nic->engine);

	/* The skb queued, then the engine's idle flag: pairs with its
	 * barrier between setting the flag and looking at the rings.
	 */
	smp_mb();
	if (engine && READ_ONCE(nic->engine_idle))
		wake_up_process(engine);
}

/* The core picks a queue below real_num_tx_queues, which never exceeds
 * sq[] (link.c); but a sender that picked it before the channels shrank
 * (pktgen's clone_skb, AF_PACKET's qdisc bypass) may hand over an skb for
 * a queue that has no ring any more: it is dropped. real_num_tx_queues
 * changes only with every transmit lock held (netif_tx_disable()).
 */
static netdev_tx_t ktg_nic_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u16 q = skb_get_queue_mapping(skb);
	struct netdev_queue *txq;
	struct ktg_nic_sq *sq;
	unsigned int len = skb->len;

	if (unlikely(q >= ktg_nic_txqs(nic))) {
		atomic64_inc(&nic->tx_stale);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	txq = netdev_get_tx_queue(dev, q);
	sq = &nic->sq[q];
	/* The only producer (the queue's lock is held): a ring found full
	 * here was stopped too late; the stack requeues the skb.
	 */
	if (unlikely(ktg_nic_maybe_stop(sq, txq))) {
		ktg_nic_doorbell(nic);
		return NETDEV_TX_BUSY;
	}
	skb_tx_timestamp(skb);
	/* Accounted to BQL before the engine can complete it. */
	netdev_tx_sent_queue(txq, len);
	__ptr_ring_produce(&sq->ring, skb);
	u64_stats_update_begin(&sq->ctrs.syncp);
	u64_stats_inc(&sq->ctrs.v[KTG_SQ_PACKETS]);
	u64_stats_add(&sq->ctrs.v[KTG_SQ_BYTES], len);
	u64_stats_update_end(&sq->ctrs.syncp);

	ktg_nic_maybe_stop(sq, txq);
	/* The doorbell, once per batch the stack hands over. */
	if (!netdev_xmit_more() || netif_xmit_stopped(txq))
		ktg_nic_doorbell(nic);
	return NETDEV_TX_OK;
}

/* The peer's engine, parked while this device's receive rings change. */
static struct task_struct *ktg_nic_peer_engine(struct ktg_nic *nic)
{
	struct net_device *peer = rtnl_dereference(nic->peer);

	return peer ? ((struct ktg_nic *)netdev_priv(peer))->engine : NULL;
}

/* A device's rings, set up whole before they replace those in use (as
 * ixgbe's set_ringparam: a failure leaves the old ones running), and the
 * old ones out after the exchange, to be freed.
 */
struct ktg_nic_rings {
	u32			channels;	/* tx[] set up */
	u32			rx_ring;
	u32			tx_ring;
	struct ktg_nic_rxr	rx[KTG_NIC_MAX_QUEUES];
	struct ptr_ring		tx[KTG_NIC_MAX_QUEUES];
};

/* They are exchanged with the device's queue by queue. */
static_assert(ARRAY_SIZE(((struct ktg_nic_rings *)NULL)->rx) ==
	      ARRAY_SIZE(((struct ktg_nic *)NULL)->rq));
static_assert(ARRAY_SIZE(((struct ktg_nic_rings *)NULL)->tx) ==
	      ARRAY_SIZE(((struct ktg_nic *)NULL)->sq));

static void ktg_nic_rings_free(struct ktg_nic_rings *r)
{
	unsigned int q;

	for (q = 0; q < ARRAY_SIZE(r->rx); q++)
		ktg_nic_rxr_free(&r->rx[q]);
	for (q = 0; q < r->channels; q++)
		ptr_ring_cleanup(&r->tx[q], (void (*)(void *))kfree_skb);
	kfree(r);
}

static struct ktg_nic_rings *ktg_nic_rings_alloc(struct ktg_nic *nic, u32 channels,
						 u32 rx_ring, u32 tx_ring)
{
	struct ktg_nic_rings *r;
	int err = 0;

	if (channels > ARRAY_SIZE(r->tx))
		return ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->rx_ring = rx_ring;
	r->tx_ring = tx_ring;
	for (; r->channels < channels; r->channels++) {
		err = ktg_nic_rxr_alloc(nic, rx_ring, &r->rx[r->channels]);
		if (err)
			break;
		err = ptr_ring_init(&r->tx[r->channels], tx_ring, GFP_KERNEL);
		if (err)
			break;
	}
	if (err) {
		ktg_nic_rings_free(r);
		return ERR_PTR(err);
	}
	return r;
}

/* The rings in @r go in, the device's (@had queues of them) come out into
 * @r: the engines parked, the NAPIs off, nothing in the transmit path. The
 * transmit rings are exchanged whole, both unused, their locks free.
 * Queues beyond @r's keep no ring.
 */
static void ktg_nic_rings_swap(struct ktg_nic *nic, struct ktg_nic_rings *r, u32 had)
{
	unsigned int q;

	for (q = 0; q < max(had, r->channels); q++) {
		ktg_nic_rq_swap(&nic->rq[q], &r->rx[q]);
		swap(nic->sq[q].ring, r->tx[q]);
	}
	r->channels = had;
	swap(nic->rx_ring, r->rx_ring);
	swap(nic->tx_ring, r->tx_ring);
}

/* Each receive queue's NAPI on, for the device's queues. */
static void ktg_nic_napi_on(struct ktg_nic *nic)
{
	unsigned int q;

	for (q = 0; q < ktg_nic_rxqs(nic); q++) {
		ktg_netif_napi_add(nic->dev, &nic->rq[q].napi, ktg_nic_poll);
		napi_enable(&nic->rq[q].napi);
	}
}

static void ktg_nic_napi_off(struct ktg_nic *nic)
{
	unsigned int q;

	for (q = 0; q < ktg_nic_rxqs(nic); q++) {
		struct ktg_nic_rq *rq = &nic->rq[q];

		/* An interrupt in flight schedules the NAPI: let it land. */
		while (test_bit(0, &rq->irq_pending))
			cpu_relax();
		napi_disable(&rq->napi);
		netif_napi_del(&rq->napi);
	}
}

static void ktg_nic_carrier(struct ktg_nic *nic, bool on)
{
	struct net_device *peer = rtnl_dereference(nic->peer);

	if (on && !(peer && ((struct ktg_nic *)netdev_priv(peer))->up))
		return;
	if (on) {
		netif_carrier_on(nic->dev);
		netif_carrier_on(peer);
	} else {
		netif_carrier_off(nic->dev);
		if (peer)
			netif_carrier_off(peer);
	}
}

/* Rings and engine gone, the carrier with them. */
static void ktg_nic_down(struct ktg_nic *nic)
{
	struct task_struct *pe = ktg_nic_peer_engine(nic);
	struct net_device *dev = nic->dev;
	struct ktg_nic_rxr r = {};
	unsigned int q;

	if (!nic->up)
		return;
	nic->up = false;
	ktg_nic_carrier(nic, false);
	/* The engine first: it wakes queues it drains, which would undo
	 * netif_tx_disable() and let skbs into rings about to be freed.
	 */
	kthread_stop(nic->engine);
	netif_tx_disable(dev);
	/* No transmit runs now: none can ring the stopped engine's bell. */
	put_task_struct(nic->engine);
	WRITE_ONCE(nic->engine, NULL);

	if (pe)
		kthread_park(pe);
	nic->rx_ready = false;
	if (pe)
		kthread_unpark(pe);

	for (q = 0; q < ktg_nic_txqs(nic); q++) {
		ptr_ring_cleanup(&nic->sq[q].ring, (void (*)(void *))kfree_skb);
		/* no pointer to the freed queue left behind (the locks stay
		 * initialized: the ring may be swapped out and cleaned again)
		 */
		nic->sq[q].ring.queue = NULL;
		nic->sq[q].ring.size = 0;
		netdev_tx_reset_queue(netdev_get_tx_queue(dev, q));
	}
	ktg_nic_napi_off(nic);
	for (q = 0; q < ktg_nic_rxqs(nic); q++) {
		ktg_nic_rq_swap(&nic->rq[q], &r);
		ktg_nic_rxr_free(&r);
	}
}

static int ktg_nic_up(struct ktg_nic *nic)
{
	struct net_device *dev = nic->dev;
	struct ktg_nic_rings *r;
	struct task_struct *engine;

	r = ktg_nic_rings_alloc(nic, ktg_nic_rxqs(nic), nic->rx_ring, nic->tx_ring);
	if (IS_ERR(r))
		return PTR_ERR(r);
	engine = kthread_create(ktg_nic_engine, nic, "ktgen-nic/%s", dev->name);
	if (IS_ERR(engine)) {
		ktg_nic_rings_free(r);
		return PTR_ERR(engine);
	}
	ktg_nic_rings_swap(nic, r, 0);
	ktg_nic_rings_free(r);
	ktg_nic_napi_on(nic);

	/* Held until no transmit can ring its doorbell (ktg_nic_down). */
	get_task_struct(engine);
	nic->engine = engine;
	if (nic->dma_cpu >= 0)
		kthread_bind(engine, nic->dma_cpu);
	wake_up_process(engine);

	/* The peer's engine may write our rings from now on. */
	smp_store_release(&nic->rx_ready, true);
	nic->up = true;
	netif_tx_start_all_queues(dev);
	ktg_nic_carrier(nic, true);
	return 0;
}

static int ktg_nic_open(struct net_device *dev)
{
	int err = ktg_nic_up(netdev_priv(dev));

	if (err == -ENOSPC)
		netdev_warn(dev, "its rings' pages exceed ktgen_nic's page budget (parameter budget)\n");
	return err;
}

static int ktg_nic_stop(struct net_device *dev)
{
	ktg_nic_down(netdev_priv(dev));
	return 0;
}

/* A device that is down takes the new sizes for its next open. */
static int ktg_nic_reconfigure_down(struct ktg_nic *nic, u32 channels, u32 rx_ring,
				    u32 tx_ring, struct netlink_ext_ack *extack)
{
	int err;

	err = netif_set_real_num_queues(nic->dev, channels, channels);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot change the number of queues");
		return err;
	}
	nic->rx_ring = rx_ring;
	nic->tx_ring = tx_ring;
	return 0;
}

/*
 * Apply ring or channel settings. The new rings are set up first, while
 * the old ones carry traffic: a failure there changes nothing (the old
 * rings' pages and the new ones' count against the budget together, as
 * a driver holds both until it swaps them). Then a running device resets
 * (its carrier drops and returns as a real NIC's does, kept with
 * quiet-reset; ethtool -S resets counts each): the engines parked, the
 * NAPIs off, the queue count changed, the rings exchanged and the old
 * ones freed. Nothing in the reset allocates but the queue count's sysfs
 * entries, and when they fail the old rings go back in.
 */
int ktg_nic_reconfigure(struct ktg_nic *nic, u32 channels, u32 rx_ring,
			u32 tx_ring, struct netlink_ext_ack *extack)
{
	struct task_struct *pe = ktg_nic_peer_engine(nic);
	struct net_device *dev = nic->dev;
	u32 had = ktg_nic_rxqs(nic);
	struct ktg_nic_rings *r;
	unsigned int q;
	int err;

	if (!channels || channels > ARRAY_SIZE(nic->rq)) {
		NL_SET_ERR_MSG_MOD(extack, "channels: 1 to the rings a device has");
		return -EINVAL;
	}
	if (!nic->up)
		return ktg_nic_reconfigure_down(nic, channels, rx_ring, tx_ring, extack);
	r = ktg_nic_rings_alloc(nic, channels, rx_ring, tx_ring);
	if (IS_ERR(r) && PTR_ERR(r) == -ENOSPC)
		NL_SET_ERR_MSG_MOD(extack, "new and old rings exceed page budget: nothing changed");
	else if (IS_ERR(r))
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate the new rings: nothing changed");
	if (IS_ERR(r))
		return PTR_ERR(r);

	nic->resets++;
	if (!(READ_ONCE(nic->priv_flags) & BIT(KTG_NIC_PF_QUIET_RESET)))
		ktg_nic_carrier(nic, false);
	/* The engine first (ktg_nic_down() says why), then the peer's. */
	kthread_park(nic->engine);
	netif_tx_disable(dev);
	if (pe)
		kthread_park(pe);
	ktg_nic_napi_off(nic);

	err = netif_set_real_num_queues(dev, channels, channels);
	if (err) {
		/* The old rings stay, with what they hold for the engine. */
		NL_SET_ERR_MSG_MOD(extack, "cannot change the number of queues: nothing changed");
	} else {
		/* What the old transmit rings hold is freed unsent. */
		for (q = 0; q < had; q++)
			netdev_tx_reset_queue(netdev_get_tx_queue(dev, q));
		ktg_nic_rings_swap(nic, r, had);
	}

	ktg_nic_napi_on(nic);
	if (pe)
		kthread_unpark(pe);
	kthread_unpark(nic->engine);
	/* What the qdisc held over the reset goes now. */
	netif_tx_wake_all_queues(dev);
	ktg_nic_carrier(nic, true);
	ktg_nic_rings_free(r);
	return err;
}

static void ktg_nic_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u64 rq[KTG_RQ_COUNT], sq[KTG_SQ_COUNT], dma[KTG_DMA_COUNT];
	unsigned int q;

	for (q = 0; q < dev->num_rx_queues && q < ARRAY_SIZE(nic->rq); q++) {
		ktg_ctrs_read(&nic->rq[q].ctrs, KTG_RQ_COUNT, rq);
		s->rx_packets += rq[KTG_RQ_PACKETS] - rq[KTG_RQ_DROPS];
		s->rx_bytes += rq[KTG_RQ_BYTES];
		s->rx_dropped += rq[KTG_RQ_DROPS];
	}
	for (q = 0; q < dev->num_tx_queues && q < ARRAY_SIZE(nic->sq); q++) {
		ktg_ctrs_read(&nic->sq[q].ctrs, KTG_SQ_COUNT, sq);
		s->tx_packets += sq[KTG_SQ_PACKETS];
		s->tx_bytes += sq[KTG_SQ_BYTES];
	}
	ktg_ctrs_read(&nic->dma, KTG_DMA_COUNT, dma);
	s->tx_dropped = dma[KTG_DMA_DROPS] + atomic64_read(&nic->tx_stale);
}

static int ktg_nic_get_iflink(const struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	struct net_device *peer;
	int iflink;

	rcu_read_lock();
	peer = rcu_dereference(nic->peer);
	iflink = peer ? READ_ONCE(peer->ifindex) : 0;
	rcu_read_unlock();
	return iflink;
}

static void ktg_nic_uninit(struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(nic->peer);

	/* Called after close, for each of the pair: unlink both ways. */
	if (peer) {
		RCU_INIT_POINTER(((struct ktg_nic *)netdev_priv(peer))->peer, NULL);
		RCU_INIT_POINTER(nic->peer, NULL);
	}
}

const struct net_device_ops ktg_nic_netdev_ops = {
	.ndo_uninit		= ktg_nic_uninit,
	.ndo_open		= ktg_nic_open,
	.ndo_stop		= ktg_nic_stop,
	.ndo_start_xmit		= ktg_nic_xmit,
	.ndo_get_stats64	= ktg_nic_get_stats64,
	.ndo_get_iflink		= ktg_nic_get_iflink,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};
