// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA engine: a kthread per device that plays the hardware. It takes
 * frames from the device's transmit rings, cuts TSO skbs into frames,
 * copies each into a buffer the peer posted (cached or non-temporal),
 * computes the checksum the sender offloaded, and raises the peer's
 * receive interrupts, moderated as ethtool -C says.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <net/checksum.h>

#include "nocache.h"
#include "nic.h"

/* The engine's counters. Its kthread may be preempted, which a 32-bit
 * u64_stats writer must not be inside an update (a reader would spin on
 * it): the irqsave form, as drivers writing from process context use; on
 * 64-bit it costs nothing.
 */
static void ktg_nic_dma_add(struct ktg_nic *nic, unsigned int i, u64 n)
{
	unsigned long flags = u64_stats_update_begin_irqsave(&nic->dma.syncp);

	u64_stats_add(&nic->dma.v[i], n);
	u64_stats_update_end_irqrestore(&nic->dma.syncp, flags);
}

/* A buffer of @rq posted and not yet filled, waiting for the peer's NAPI
 * when there is none. False when the engine must stop or park: the frame
 * is dropped.
 */
static bool ktg_nic_dma_slot(struct ktg_nic *nic, struct ktg_nic_rq *rq)
{
	while (!ktg_nic_rq_posted(rq)) {
		ktg_nic_dma_add(nic, KTG_DMA_PAUSE, 1);
		local_bh_disable();
		ktg_nic_raise(rq);
		local_bh_enable();
		wait_event_interruptible_timeout(rq->refill_wait,
						 ktg_nic_rq_posted(rq) ||
						 kthread_should_park() ||
						 kthread_should_stop(), HZ / 10);
		if (kthread_should_park() || kthread_should_stop())
			return false;
	}
	return true;
}

static void ktg_nic_dma_copy(struct sk_buff *skb, void *to, bool nocache)
{
	struct skb_seq_state st;
	unsigned int off = 0, n;
	const u8 *p;

	if (!nocache) {
		skb_copy_bits(skb, 0, to, skb->len);
		return;
	}
	skb_prepare_seq_read(skb, 0, skb->len, &st);
	while ((n = skb_seq_read(off, &p, &st)) != 0) {
		ktg_copy_nocache(to + off, p, n);
		off += n;
	}
	ktg_copy_fence();
}

/* Place one frame into the peer's receive ring: false when it was dropped. */
static bool ktg_nic_dma_frame(struct ktg_nic *nic, struct ktg_nic *pn,
			      struct sk_buff *skb, u32 hash)
{
	struct ktg_nic_rq *rq;
	struct ktg_nic_rx_desc *d;
	u32 nq, len = skb->len;
	bool nocache;
	void *va;

	/* rx_ready changes only while this engine is parked; the peer's
	 * queue count changes while it is parked or while rx_ready is false
	 * (a reconfigure of a device that is down). Acquire pairs with the
	 * peer's release when it came up.
	 */
	if (!smp_load_acquire(&pn->rx_ready) || len > KTG_NIC_BUF_LEN)
		return false;
	nq = ktg_nic_rxqs(pn);
	rq = &pn->rq[reciprocal_scale(hash, nq)];
	if (!ktg_nic_dma_slot(nic, rq))
		return false;

	d = &rq->ring.desc[rq->next_to_fill & rq->ring.mask];
	va = page_address(d->page) + KTG_NIC_HEADROOM;
	nocache = READ_ONCE(pn->priv_flags) & BIT(KTG_NIC_PF_DMA_NOCACHE);
	ktg_nic_dma_copy(skb, va, nocache);
	if (nocache)
		ktg_nic_dma_add(nic, KTG_DMA_NOCACHE, 1);
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* The sender left the checksum to the hardware: sum from
		 * csum_start over the copy, into the field at csum_offset
		 * (which holds the pseudo-header sum), as a NIC does.
		 */
		int start = skb_checksum_start_offset(skb);
		__sum16 *field = va + start + skb->csum_offset;

		*field = csum_fold(csum_partial(va + start, len - start, 0)) ?: CSUM_MANGLED_0;
		ktg_nic_dma_add(nic, KTG_DMA_CSUMS, 1);
	}
	d->len = len;
	d->hash = hash;
	/* The frame, then done: the NAPI's acquire in ktg_nic_desc_done(). */
	smp_store_release(&d->done, 1);
	rq->next_to_fill++;
	nic->rx_dma_pending |= BIT_ULL(rq - pn->rq);
	if (!rq->mod_frames++)
		rq->mod_first_ns = ktime_get_ns();
	ktg_nic_dma_add(nic, KTG_DMA_FRAMES, 1);
	ktg_nic_dma_add(nic, KTG_DMA_BYTES, len);
	return true;
}

/* Raise the interrupts of the peer's queues that frames were placed in,
 * those that moderation still holds (rx-usecs, rx-frames) only when @all.
 */
static void ktg_nic_dma_irqs(struct ktg_nic *nic, struct ktg_nic *pn, bool all)
{
	u32 usecs = all ? 0 : READ_ONCE(pn->rx_usecs), frames = READ_ONCE(pn->rx_frames);
	u64 pending = nic->rx_dma_pending, now = usecs ? ktime_get_ns() : 0;
	unsigned int q;

	nic->irq_due_ns = 0;
	local_bh_disable();
	for (q = 0; q < ARRAY_SIZE(pn->rq) && pending; q++, pending >>= 1) {
		struct ktg_nic_rq *rq = &pn->rq[q];
		u64 due = rq->mod_first_ns + (u64)usecs * NSEC_PER_USEC;

		if (!(pending & 1))
			continue;
		if (usecs && (!frames || rq->mod_frames < frames) && now < due) {
			/* Held: the engine sleeps no longer than this. */
			if (!nic->irq_due_ns || due < nic->irq_due_ns)
				nic->irq_due_ns = due;
			continue;
		}
		rq->mod_frames = 0;
		nic->rx_dma_pending &= ~BIT_ULL(q);
		ktg_nic_raise(rq);
		ktg_nic_dma_add(nic, KTG_DMA_IRQS, 1);
	}
	local_bh_enable();
}

/* Before the engine parks or stops: every interrupt moderation holds is
 * raised. They name the peer's queues, whose rings outlive a park and a
 * stop (a reset or a close of this device): held, the frames placed
 * there would wait for the next frame to reach the queue. The peer's
 * NAPIs are still on: it parks this engine before it turns them off.
 */
static void ktg_nic_dma_flush(struct ktg_nic *nic)
{
	struct net_device *peer;

	if (nic->rx_dma_pending) {
		rcu_read_lock();
		peer = rcu_dereference(nic->peer);
		if (peer)
			ktg_nic_dma_irqs(nic, netdev_priv(peer), true);
		rcu_read_unlock();
	}
	nic->rx_dma_pending = 0;
	nic->irq_due_ns = 0;
}

/* Move one transmitted skb to the peer, cut into MTU frames if it is TSO. */
static void ktg_nic_dma_skb(struct ktg_nic *nic, struct ktg_nic *pn, struct sk_buff *skb)
{
	u32 hash = __skb_get_hash_symmetric(skb);
	struct sk_buff *segs, *seg, *next;
	u32 n = 0;

	if (!pn || !skb_is_gso(skb)) {
		if (!pn || !ktg_nic_dma_frame(nic, pn, skb, hash))
			ktg_nic_dma_add(nic, KTG_DMA_DROPS, 1);
		consume_skb(skb);
		return;
	}
	segs = skb_gso_segment(skb, NETIF_F_SG | NETIF_F_HW_CSUM);
	consume_skb(skb);
	if (IS_ERR_OR_NULL(segs)) {
		ktg_nic_dma_add(nic, KTG_DMA_DROPS, 1);
		return;
	}
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (!ktg_nic_dma_frame(nic, pn, seg, hash))
			ktg_nic_dma_add(nic, KTG_DMA_DROPS, 1);
		consume_skb(seg);
		n++;
	}
	ktg_nic_dma_add(nic, KTG_DMA_SEGMENTS, n);
}

static bool ktg_nic_tx_pending(struct ktg_nic *nic)
{
	unsigned int q;

	for (q = 0; q < ktg_nic_txqs(nic); q++)
		if (!ptr_ring_empty(&nic->sq[q].ring))
			return true;
	return false;
}

/* The peer for one pass, held: the pass sleeps (waiting for buffers), so
 * it cannot stay in an RCU read section, and the reference keeps the
 * peer's memory until it is done. NULL once the pair is unlinked
 * (ndo_uninit), before an RCU grace period and the peer's freeing. The
 * peer's rings are another matter: it parks this engine before it frees
 * them or changes its queue count, and they are used only while its
 * rx_ready says so.
 */
static struct net_device *ktg_nic_peer_get(struct ktg_nic *nic)
{
	struct net_device *peer;

	rcu_read_lock();
	peer = rcu_dereference(nic->peer);
	if (peer)
		dev_hold(peer);
	rcu_read_unlock();
	return peer;
}

/* One pass over the transmit rings: frames moved. */
static unsigned int ktg_nic_engine_pass(struct ktg_nic *nic)
{
	struct net_device *dev = nic->dev;
	struct net_device *peer = ktg_nic_peer_get(nic);
	struct ktg_nic *pn = peer ? netdev_priv(peer) : NULL;
	unsigned int q, i, total = 0;

	for (q = 0; q < ktg_nic_txqs(nic); q++) {
		struct netdev_queue *txq = netdev_get_tx_queue(dev, q);
		struct ktg_nic_sq *sq = &nic->sq[q];
		unsigned int bytes = 0;
		struct sk_buff *skb;

		/* Every skb taken is completed to BQL below, also when a
		 * park or stop cuts the batch short.
		 */
		for (i = 0; i < KTG_NIC_BATCH; ) {
			if (kthread_should_park() || kthread_should_stop())
				break;
			skb = ptr_ring_consume(&sq->ring);
			if (!skb)
				break;
			i++;
			bytes += skb->len;
			ktg_nic_dma_skb(nic, pn, skb);
		}
		if (!i)
			continue;
		total += i;
		netdev_tx_completed_queue(txq, i, bytes);
		/* Pairs with the barrier after ndo_start_xmit stopped the queue. */
		smp_mb();
		if (netif_tx_queue_stopped(txq))
			netif_tx_wake_queue(txq);
	}
	if (nic->rx_dma_pending && pn) {
		ktg_nic_dma_irqs(nic, pn, false);
	} else if (!pn) {
		nic->rx_dma_pending = 0;
		nic->irq_due_ns = 0;
	}
	if (peer)
		dev_put(peer);
	return total;
}

int ktg_nic_engine(void *arg)
{
	struct ktg_nic *nic = arg;
	u64 t0;

	while (!kthread_should_stop()) {
		if (kthread_should_park()) {
			ktg_nic_dma_flush(nic);
			kthread_parkme();
			continue;
		}
		t0 = ktime_get_ns();
		if (ktg_nic_engine_pass(nic)) {
			ktg_nic_dma_add(nic, KTG_DMA_BUSY_NS, ktime_get_ns() - t0);
			cond_resched();
			continue;
		}
		set_current_state(TASK_INTERRUPTIBLE);
		WRITE_ONCE(nic->engine_idle, true);
		/* Pairs with the doorbell's barrier after queueing an skb. */
		smp_mb();
		if (!ktg_nic_tx_pending(nic) && !kthread_should_stop() &&
		    !kthread_should_park()) {
			ktime_t due = ns_to_ktime(nic->irq_due_ns);

			/* A held interrupt wakes the engine when it is due. */
			if (nic->irq_due_ns)
				schedule_hrtimeout(&due, HRTIMER_MODE_ABS);
			else
				schedule();
		}
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(nic->engine_idle, false);
	}
	ktg_nic_dma_flush(nic);
	return 0;
}
