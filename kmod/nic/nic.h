/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A virtual NIC pair (rtnetlink link kind "ktgen-nic") that receives the
 * way hardware drivers do, so their copy-path choices can be compared in a
 * VM: build_skb around a page-pool buffer, legacy-rx copy, or page frags
 * through GRO.
 *
 * Each device has transmit rings (one per channel) and receive rings of
 * page-pool pages. ndo_start_xmit() only queues the skb and rings a
 * doorbell. A per-device "DMA engine" kthread plays the hardware: it
 * segments TSO frames, picks the peer's receive queue by a flow hash (RSS),
 * copies each frame into a buffer the peer's NAPI posted (cached, or
 * non-temporal with priv-flag dma-nocache), computes the checksum the
 * sender offloaded, and raises the receive queue's "interrupt": an IPI to
 * the queue's CPU that schedules its NAPI. The engine's time is its own
 * (ethtool -S dma_busy_ns; bind it with dma-cpu to keep it off the CPUs
 * under test): real DMA costs the host CPU nothing.
 *
 * The NAPI poll builds skbs in the style chosen by priv-flags legacy-rx
 * and rx-frags, copies packets up to the rx-copybreak tunable whole, and
 * refills the ring. Each ring's page pool is listed under its device in
 * netdev netlink (6.8), with its statistics where the kernel keeps them
 * (CONFIG_PAGE_POOL_STATS). With no buffer posted the engine waits (a lossless
 * link, as with pause frames) and counts dma_pause.
 *
 * Ring ownership: a receive ring is written by the peer's engine and
 * consumed by this device's NAPI; its rings exist while the device is up.
 * Taking them down parks the peer's engine first, so it never touches a
 * ring that is going away; it drops frames (dma_drops) while the peer is
 * down, as a cable to a port that is down.
 */
#ifndef _KTG_NIC_H
#define _KTG_NIC_H

#include <linux/netdevice.h>
#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/u64_stats_sync.h>
#include <linux/wait.h>

#include "compat.h"
#include "policy.h"

#ifndef KTGEN_VERSION
#define KTGEN_VERSION "unknown"
#endif
#define KTG_NIC_KIND		KTGEN_NIC_KIND
#define KTG_NIC_RX_RING		512
#define KTG_NIC_TX_RING		256
#define KTG_NIC_RING_MIN	64
#define KTG_NIC_RING_MAX	4096

/* One frame per order-0 page, after the headroom build_skb needs and
 * before the shared info it puts at the end.
 */
#define KTG_NIC_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define KTG_NIC_BUF_LEN		(PAGE_SIZE - KTG_NIC_HEADROOM - \
				 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))

/* legacy-rx copies frames up to this size whole (ixgbe's IXGBE_RX_HDR_SIZE). */
#define KTG_NIC_HDR_SIZE	256

/* Frames the engine moves from one transmit ring before the next. */
#define KTG_NIC_BATCH		64

/* Interrupt moderation: rx-usecs up to 10 ms, rx-frames up to a ring. */
#define KTG_NIC_MAX_USECS	10000

/* The rings' bound: every per-queue array (struct ktg_nic's rq[] and sq[],
 * a reset's new rings) holds KTG_NIC_MAX_QUEUES entries (policy.h), and a
 * device never has more queues either way: link.c refuses more at
 * creation (rtnetlink takes up to 4096 from the request); ktg_nic_rxqs()
 * and ktg_nic_txqs() bound what it uses where it indexes them.
 */

enum {
	KTG_NIC_PF_LEGACY_RX,
	KTG_NIC_PF_RX_FRAGS,
	KTG_NIC_PF_DMA_NOCACHE,
	KTG_NIC_PF_FLAG_RESET,
	KTG_NIC_PF_QUIET_RESET,
	KTG_NIC_PF_COUNT,
};

/* Counters of a receive queue, written by its NAPI only. */
enum {
	KTG_RQ_PACKETS,
	KTG_RQ_BYTES,
	KTG_RQ_BUILT,		/* skb built around the buffer */
	KTG_RQ_COPIED,		/* frame copied whole into a new skb */
	KTG_RQ_SPLIT,		/* headers copied, the rest a page fragment */
	KTG_RQ_FRAGS,		/* whole frame a page fragment (rx-frags) */
	KTG_RQ_COPIED_BYTES,	/* by the host CPU: whole copies and headers */
	KTG_RQ_PAGE_REUSE,	/* buffers back to the pool right after a copy */
	KTG_RQ_ALLOC_FAIL,
	KTG_RQ_DROPS,
	KTG_RQ_COUNT,
};

/* Counters of a transmit queue, written by ndo_start_xmit under its lock. */
enum {
	KTG_SQ_PACKETS,
	KTG_SQ_BYTES,
	KTG_SQ_STOPS,
	KTG_SQ_COUNT,
};

/* Counters of the DMA engine, written by its kthread only. */
enum {
	KTG_DMA_FRAMES,		/* placed into the peer's receive rings */
	KTG_DMA_BYTES,
	KTG_DMA_SEGMENTS,	/* frames cut from TSO skbs */
	KTG_DMA_NOCACHE,	/* frames copied with non-temporal stores */
	KTG_DMA_CSUMS,		/* checksums computed for the sender */
	KTG_DMA_BUSY_NS,
	KTG_DMA_PAUSE,		/* waits for the peer to post buffers */
	KTG_DMA_DROPS,		/* peer down, frame too long, no memory */
	KTG_DMA_IRQS,		/* interrupts raised for frames placed */
	KTG_DMA_COUNT,
};

/* A set of counters with one writer each (the enums above index them). */
struct ktg_ctrs {
	struct u64_stats_sync	syncp;
	u64_stats_t		v[KTG_RQ_COUNT];
};

static_assert((int)KTG_SQ_COUNT <= (int)KTG_RQ_COUNT &&
	      (int)KTG_DMA_COUNT <= (int)KTG_RQ_COUNT);

struct ktg_nic_rx_desc {
	struct page	*page;
	u32		len;
	u32		hash;
	u32		done;	/* written by the engine, release */
};

struct ktg_nic;

/* A receive ring's memory: what ktg_nic_rxr_alloc() builds before it goes
 * in, and what comes out to be freed.
 */
struct ktg_nic_rxr {
	struct page_pool	*pool;
	struct ktg_nic_rx_desc	*desc;
	u32			mask;		/* ring size - 1 */
};

struct ktg_nic_rq {
	struct napi_struct	napi;
	struct ktg_nic		*nic;
	struct ktg_nic_rxr	ring;
	u32			next_to_use;	/* NAPI posts, release */
	u32			next_to_clean;	/* NAPI only */
	u32			next_to_fill;	/* the peer's engine only */
	wait_queue_head_t	refill_wait;	/* the engine, for buffers */
	/* The interrupt: an IPI to irq_cpu that schedules the NAPI. */
	call_single_data_t	csd;
	unsigned long		irq_pending;
	int			irq_cpu;
	/* Moderation: frames since the last interrupt and when the first
	 * of them came; the peer's engine only.
	 */
	u32			mod_frames;
	u64			mod_first_ns;
	struct ktg_ctrs		ctrs;
};

struct ktg_nic_sq {
	struct ptr_ring		ring;
	struct ktg_ctrs		ctrs;
};

struct ktg_nic {
	struct net_device __rcu	*peer;
	struct net_device	*dev;
	struct task_struct	*engine;	/* rtnl */
	bool			engine_idle;
	/* The receive rings exist; changed with the peer's engine parked. */
	bool			rx_ready;
	bool			up;		/* rings and engine exist (rtnl) */
	int			dma_cpu;	/* -1: unbound */
	u32			priv_flags;
	u64			resets;		/* rings rebuilt while up (rtnl) */
	atomic64_t		tx_stale;	/* xmit: skbs for a queue gone (tx_dropped) */
	u32			copybreak;
	u32			rx_ring;
	u32			tx_ring;
	/* Interrupt moderation of this device's receive queues (ethtool -C):
	 * a queue's interrupt waits for rx_frames frames or rx_usecs after
	 * the first, whichever comes first; rx_usecs 0 raises it at once.
	 */
	u32			rx_usecs;
	u32			rx_frames;
	u64			rx_dma_pending;	/* engine: peer queues to interrupt */
	u64			irq_due_ns;	/* engine: a held interrupt's time, 0: none */
	struct ktg_nic_rq	rq[KTG_NIC_MAX_QUEUES];
	struct ktg_nic_sq	sq[KTG_NIC_MAX_QUEUES];
	struct ktg_ctrs		dma;
};

/* The interrupts the engine holds for moderation: a bit a peer's queue. */
static_assert(sizeof_field(struct ktg_nic, rx_dma_pending) * BITS_PER_BYTE >=
	      ARRAY_SIZE(((struct ktg_nic *)NULL)->rq));

/* The receive and transmit queues in use, bounded by the arrays they
 * index: a device count is never an index unchecked.
 */
static inline unsigned int ktg_nic_rxqs(const struct ktg_nic *nic)
{
	return min_t(unsigned int, nic->dev->real_num_rx_queues, ARRAY_SIZE(nic->rq));
}

static inline unsigned int ktg_nic_txqs(const struct ktg_nic *nic)
{
	return min_t(unsigned int, nic->dev->real_num_tx_queues, ARRAY_SIZE(nic->sq));
}

static inline void ktg_ctr_add(struct ktg_ctrs *c, unsigned int i, u64 n)
{
	u64_stats_update_begin(&c->syncp);
	u64_stats_add(&c->v[i], n);
	u64_stats_update_end(&c->syncp);
}

static inline void ktg_ctrs_read(const struct ktg_ctrs *c, unsigned int n, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&c->syncp);
		for (i = 0; i < n; i++)
			out[i] = u64_stats_read(&c->v[i]);
	} while (u64_stats_fetch_retry(&c->syncp, start));
}

static inline enum ktgen_nic_rx_style ktg_nic_style(u32 flags)
{
	if (flags & BIT(KTG_NIC_PF_LEGACY_RX))
		return KTGEN_NIC_RX_STYLE_LEGACY;
	if (flags & BIT(KTG_NIC_PF_RX_FRAGS))
		return KTGEN_NIC_RX_STYLE_FRAGS;
	return KTGEN_NIC_RX_STYLE_BUILD;
}

/* A descriptor the engine completed. */
static inline bool ktg_nic_desc_done(struct ktg_nic_rx_desc *d)
{
	/* Pairs with the engine's release: the frame and length are seen. */
	return smp_load_acquire(&d->done);
}

/* A buffer posted and not yet filled (the engine's view). */
static inline bool ktg_nic_rq_posted(struct ktg_nic_rq *rq)
{
	/* Pairs with the NAPI's release: the posted pages are seen. */
	return rq->next_to_fill != smp_load_acquire(&rq->next_to_use);
}

/* main.c: the ring pages' budget. */
int ktg_nic_charge(u64 bytes);
void ktg_nic_uncharge(u64 bytes);

/* rx.c: receive rings, their NAPI and its interrupt. */
int ktg_nic_rxr_alloc(struct ktg_nic *nic, u32 size, struct ktg_nic_rxr *r);
void ktg_nic_rxr_free(struct ktg_nic_rxr *r);
void ktg_nic_rq_swap(struct ktg_nic_rq *rq, struct ktg_nic_rxr *r);
int ktg_nic_poll(struct napi_struct *napi, int budget);
void ktg_nic_irq(void *arg);
void ktg_nic_raise(struct ktg_nic_rq *rq);

/* engine.c: the DMA engine's kthread. */
int ktg_nic_engine(void *arg);

/* netdev.c: the device's operations; rings and engine rebuilt. */
extern const struct net_device_ops ktg_nic_netdev_ops;
int ktg_nic_reconfigure(struct ktg_nic *nic, u32 channels, u32 rx_ring,
			u32 tx_ring, struct netlink_ext_ack *extack);

/* ethtool.c */
extern const struct ethtool_ops ktg_nic_ethtool_ops;

/* link.c: the pair's rtnetlink link kind. */
extern struct rtnl_link_ops ktg_nic_link_ops;

#endif
