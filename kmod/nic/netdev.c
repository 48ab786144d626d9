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

static netdev_tx_t ktg_nic_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u16 q = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, q);
	struct ktg_nic_sq *sq = &nic->sq[q];
	unsigned int len = skb->len;

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

/* Rings and engine gone; the carrier with them unless @keep_carrier (a
 * reset that keeps it, as mlx5 reopening its channels).
 */
static void ktg_nic_down(struct ktg_nic *nic, bool keep_carrier)
{
	struct net_device *dev = nic->dev, *peer = rtnl_dereference(nic->peer);
	struct task_struct *pe = ktg_nic_peer_engine(nic);
	unsigned int q;

	if (!nic->up)
		return;
	nic->up = false;
	if (!keep_carrier) {
		netif_carrier_off(dev);
		if (peer)
			netif_carrier_off(peer);
	}
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

	for (q = 0; q < dev->real_num_tx_queues; q++) {
		ptr_ring_cleanup(&nic->sq[q].ring, (void (*)(void *))kfree_skb);
		netdev_tx_reset_queue(netdev_get_tx_queue(dev, q));
	}
	for (q = 0; q < dev->real_num_rx_queues; q++) {
		struct ktg_nic_rq *rq = &nic->rq[q];

		/* An interrupt in flight schedules the NAPI: let it land. */
		while (test_bit(0, &rq->irq_pending))
			cpu_relax();
		napi_disable(&rq->napi);
		netif_napi_del(&rq->napi);
		ktg_nic_rq_free(rq);
	}
}

static int ktg_nic_up(struct ktg_nic *nic)
{
	struct net_device *dev = nic->dev, *peer;
	unsigned int q, rxq = 0, txq = 0;
	int err;

	for (; rxq < dev->real_num_rx_queues; rxq++) {
		struct ktg_nic_rq *rq = &nic->rq[rxq];

		ktg_netif_napi_add(dev, &rq->napi, ktg_nic_poll);
		err = ktg_nic_rq_alloc(nic, rq);
		if (err) {
			netif_napi_del(&rq->napi);
			goto err;
		}
		napi_enable(&rq->napi);
	}
	for (; txq < dev->real_num_tx_queues; txq++) {
		err = ptr_ring_init(&nic->sq[txq].ring, nic->tx_ring, GFP_KERNEL);
		if (err)
			goto err;
	}
	nic->engine = kthread_create(ktg_nic_engine, nic, "ktgen-nic/%s", dev->name);
	if (IS_ERR(nic->engine)) {
		err = PTR_ERR(nic->engine);
		nic->engine = NULL;
		goto err;
	}
	/* Held until no transmit can ring its doorbell (ktg_nic_down). */
	get_task_struct(nic->engine);
	if (nic->dma_cpu >= 0)
		kthread_bind(nic->engine, nic->dma_cpu);
	wake_up_process(nic->engine);

	/* The peer's engine may write our rings from now on. */
	smp_store_release(&nic->rx_ready, true);
	nic->up = true;
	netif_tx_start_all_queues(dev);
	peer = rtnl_dereference(nic->peer);
	if (peer && ((struct ktg_nic *)netdev_priv(peer))->up) {
		netif_carrier_on(dev);
		netif_carrier_on(peer);
	}
	return 0;

err:
	for (q = 0; q < txq; q++)
		ptr_ring_cleanup(&nic->sq[q].ring, NULL);
	for (q = 0; q < rxq; q++) {
		napi_disable(&nic->rq[q].napi);
		netif_napi_del(&nic->rq[q].napi);
		ktg_nic_rq_free(&nic->rq[q]);
	}
	return err;
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
	ktg_nic_down(netdev_priv(dev), false);
	return 0;
}

/* Neither the new rings nor the old ones again: no carrier (a quiet reset
 * kept it), as a NIC whose reopen failed, until the device is set down and
 * up or changed again. The message says so, not that the old settings
 * came back.
 */
static void ktg_nic_reopen_failed(struct ktg_nic *nic, struct netlink_ext_ack *extack)
{
	struct net_device *peer = rtnl_dereference(nic->peer);

	netif_carrier_off(nic->dev);
	if (peer)
		netif_carrier_off(peer);
	NL_SET_ERR_MSG_MOD(extack,
			   "cannot set up the new rings, nor the old ones again: no carrier until the device is set down and up");
	netdev_err(nic->dev, "cannot restore its rings: down until set up again\n");
}

/* Apply ring or channel settings: a running device resets, so its carrier
 * drops and returns as a real NIC's does (kept with quiet-reset); each reset
 * counts in ethtool -S resets.
 */
int ktg_nic_reconfigure(struct ktg_nic *nic, u32 channels, u32 rx_ring,
			u32 tx_ring, struct netlink_ext_ack *extack)
{
	struct net_device *dev = nic->dev;
	u32 old_ch = dev->real_num_rx_queues;
	u32 old_rx = nic->rx_ring, old_tx = nic->tx_ring;
	bool running = netif_running(dev);
	int err;

	if (running) {
		nic->resets++;
		ktg_nic_down(nic, READ_ONCE(nic->priv_flags) & BIT(KTG_NIC_PF_QUIET_RESET));
	}
	err = netif_set_real_num_queues(dev, channels, channels);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot change the number of queues");
	} else {
		nic->rx_ring = rx_ring;
		nic->tx_ring = tx_ring;
	}
	if (!running)
		return err;
	if (!err) {
		err = ktg_nic_up(nic);
		if (!err) {
			/* What the qdisc held over the reset goes now. */
			netif_tx_wake_all_queues(dev);
			return 0;
		}
		if (err == -ENOSPC)
			NL_SET_ERR_MSG_MOD(extack,
					   "the new rings' pages exceed ktgen_nic's page budget (parameter budget): old settings restored");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot allocate the new rings: old settings restored");
	}
	nic->rx_ring = old_rx;
	nic->tx_ring = old_tx;
	if (netif_set_real_num_queues(dev, old_ch, old_ch) || ktg_nic_up(nic))
		ktg_nic_reopen_failed(nic, extack);
	return err;
}

static void ktg_nic_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u64 rq[KTG_RQ_COUNT], sq[KTG_SQ_COUNT], dma[KTG_DMA_COUNT];
	unsigned int q;

	for (q = 0; q < dev->num_rx_queues && q < KTG_NIC_MAX_QUEUES; q++) {
		ktg_ctrs_read(&nic->rq[q].ctrs, KTG_RQ_COUNT, rq);
		s->rx_packets += rq[KTG_RQ_PACKETS] - rq[KTG_RQ_DROPS];
		s->rx_bytes += rq[KTG_RQ_BYTES];
		s->rx_dropped += rq[KTG_RQ_DROPS];
	}
	for (q = 0; q < dev->num_tx_queues && q < KTG_NIC_MAX_QUEUES; q++) {
		ktg_ctrs_read(&nic->sq[q].ctrs, KTG_SQ_COUNT, sq);
		s->tx_packets += sq[KTG_SQ_PACKETS];
		s->tx_bytes += sq[KTG_SQ_BYTES];
	}
	ktg_ctrs_read(&nic->dma, KTG_DMA_COUNT, dma);
	s->tx_dropped = dma[KTG_DMA_DROPS];
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
