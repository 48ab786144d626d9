// SPDX-License-Identifier: GPL-2.0
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
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/ptr_ring.h>
#include <linux/sched/task.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/u64_stats_sync.h>
#include <linux/user_namespace.h>
#include <net/checksum.h>
#include <net/rtnetlink.h>

#include "compat.h"
#include "nocache.h"
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

enum {
	KTG_NIC_PF_LEGACY_RX,
	KTG_NIC_PF_RX_FRAGS,
	KTG_NIC_PF_DMA_NOCACHE,
	KTG_NIC_PF_FLAG_RESET,
	KTG_NIC_PF_QUIET_RESET,
	KTG_NIC_PF_COUNT,
};

static const char ktg_nic_pf_names[KTG_NIC_PF_COUNT][ETH_GSTRING_LEN] = {
	[KTG_NIC_PF_LEGACY_RX]		= "legacy-rx",
	[KTG_NIC_PF_RX_FRAGS]		= "rx-frags",
	[KTG_NIC_PF_DMA_NOCACHE]	= "dma-nocache",
	[KTG_NIC_PF_FLAG_RESET]		= "flag-reset",
	[KTG_NIC_PF_QUIET_RESET]	= "quiet-reset",
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

static const char * const ktg_rq_names[KTG_RQ_COUNT] = {
	"packets", "bytes", "built", "copied", "split", "frags",
	"copied_bytes", "page_reuse", "alloc_fail", "drops",
};

/* Counters of a transmit queue, written by ndo_start_xmit under its lock. */
enum {
	KTG_SQ_PACKETS,
	KTG_SQ_BYTES,
	KTG_SQ_STOPS,
	KTG_SQ_COUNT,
};

static const char * const ktg_sq_names[KTG_SQ_COUNT] = {
	"packets", "bytes", "stops",
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

static const char * const ktg_dma_names[KTG_DMA_COUNT] = {
	"dma_frames", "dma_bytes", "dma_segments", "dma_nocache", "dma_csums", "dma_busy_ns",
	"dma_pause", "dma_drops", "dma_irqs",
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

struct ktg_nic_rq {
	struct napi_struct	napi;
	struct ktg_nic		*nic;
	struct page_pool	*pool;
	struct ktg_nic_rx_desc	*desc;
	u32			mask;		/* ring size - 1 */
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

static struct rtnl_link_ops ktg_nic_link_ops;

static inline void ktg_ctr_add(struct ktg_ctrs *c, unsigned int i, u64 n)
{
	u64_stats_update_begin(&c->syncp);
	u64_stats_add(&c->v[i], n);
	u64_stats_update_end(&c->syncp);
}

static void ktg_ctrs_read(const struct ktg_ctrs *c, unsigned int n, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&c->syncp);
		for (i = 0; i < n; i++)
			out[i] = u64_stats_read(&c->v[i]);
	} while (u64_stats_fetch_retry(&c->syncp, start));
}

static enum ktgen_nic_rx_style ktg_nic_style(u32 flags)
{
	if (flags & BIT(KTG_NIC_PF_LEGACY_RX))
		return KTGEN_NIC_RX_STYLE_LEGACY;
	if (flags & BIT(KTG_NIC_PF_RX_FRAGS))
		return KTGEN_NIC_RX_STYLE_FRAGS;
	return KTGEN_NIC_RX_STYLE_BUILD;
}

/* ---- the module's page budget ---- */

/*
 * The receive rings of every pair hold a page a descriptor while their
 * device is up: not reclaimable, so held against a budget as ktgen.ko's
 * runs and sinks are against its own. 1 GiB, or a quarter of the memory
 * of a smaller machine; root changes it at
 * /sys/module/ktgen_nic/parameters/budget (bytes, K/M/G; never below what
 * is held) and reads what is held at budget_used.
 */
#define KTG_NIC_BUDGET_MIN	SZ_1M
#define KTG_NIC_BUDGET_MAX	(64ULL * SZ_1G)

static DEFINE_MUTEX(ktg_nic_mem_lock);
static u64 ktg_nic_mem_limit;		/* 0 until set or defaulted at load */
static u64 ktg_nic_mem_held;

static int ktg_nic_charge(u64 bytes)
{
	int err = 0;

	mutex_lock(&ktg_nic_mem_lock);
	if (bytes > ktg_nic_mem_limit - ktg_nic_mem_held)
		err = -ENOSPC;
	else
		ktg_nic_mem_held += bytes;
	mutex_unlock(&ktg_nic_mem_lock);
	return err;
}

static void ktg_nic_uncharge(u64 bytes)
{
	mutex_lock(&ktg_nic_mem_lock);
	if (!WARN_ON_ONCE(bytes > ktg_nic_mem_held))
		ktg_nic_mem_held -= bytes;
	mutex_unlock(&ktg_nic_mem_lock);
}

static int ktg_nic_budget_set(const char *val, const struct kernel_param *kp)
{
	char *end;
	u64 v = memparse(val, &end);
	int err = 0;

	if (end == val || (*end && strcmp(end, "\n")) ||
	    v < KTG_NIC_BUDGET_MIN || v > KTG_NIC_BUDGET_MAX)
		return -EINVAL;
	mutex_lock(&ktg_nic_mem_lock);
	if (v < ktg_nic_mem_held)
		err = -EBUSY;
	else
		ktg_nic_mem_limit = v;
	mutex_unlock(&ktg_nic_mem_lock);
	return err;
}

static int ktg_nic_budget_get(char *buf, const struct kernel_param *kp)
{
	u64 v;

	mutex_lock(&ktg_nic_mem_lock);
	v = *(u64 *)kp->arg;
	mutex_unlock(&ktg_nic_mem_lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static int ktg_nic_read_only(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops ktg_nic_budget_ops = {
	.set	= ktg_nic_budget_set,
	.get	= ktg_nic_budget_get,
};

static const struct kernel_param_ops ktg_nic_held_ops = {
	.set	= ktg_nic_read_only,
	.get	= ktg_nic_budget_get,
};

module_param_cb(budget, &ktg_nic_budget_ops, &ktg_nic_mem_limit, 0644);
MODULE_PARM_DESC(budget, "Bytes the receive rings of all pairs may hold (K/M/G); default 1G or a quarter of memory");
module_param_cb(budget_used, &ktg_nic_held_ops, &ktg_nic_mem_held, 0444);
MODULE_PARM_DESC(budget_used, "Bytes the receive rings hold now");

/* The default budget, unless given at load. */
static void ktg_nic_budget_init(void)
{
	u64 quarter = round_down(((u64)totalram_pages() << PAGE_SHIFT) / 4, SZ_1M);

	if (!ktg_nic_mem_limit)
		ktg_nic_mem_limit = clamp_t(u64, quarter, KTG_NIC_BUDGET_MIN, SZ_1G);
}

/* ---- receive: NAPI ---- */

/* A descriptor the engine completed. */
static bool ktg_nic_desc_done(struct ktg_nic_rx_desc *d)
{
	/* Pairs with the engine's release: the frame and length are seen. */
	return smp_load_acquire(&d->done);
}

/* A buffer posted and not yet filled (the engine's view). */
static bool ktg_nic_rq_posted(struct ktg_nic_rq *rq)
{
	/* Pairs with the NAPI's release: the posted pages are seen. */
	return rq->next_to_fill != smp_load_acquire(&rq->next_to_use);
}

static void ktg_nic_refill(struct ktg_nic_rq *rq, gfp_t gfp)
{
	u32 use = rq->next_to_use;
	struct page *page;

	while (use - rq->next_to_clean <= rq->mask) {
		page = page_pool_alloc_pages(rq->pool, gfp | __GFP_NOWARN);
		if (!page) {
			ktg_ctr_add(&rq->ctrs, KTG_RQ_ALLOC_FAIL, 1);
			break;
		}
		rq->desc[use & rq->mask].page = page;
		use++;
	}
	if (use == rq->next_to_use)
		return;
	/* The engine reads next_to_use (acquire) before it writes a slot. */
	smp_store_release(&rq->next_to_use, use);
	if (wq_has_sleeper(&rq->refill_wait))
		wake_up(&rq->refill_wait);
}

/* A new skb with @len bytes of @va copied in: rx-copybreak, legacy-rx. */
static struct sk_buff *ktg_nic_copy_whole(struct ktg_nic_rq *rq, struct page *page,
					  const void *va, u32 len)
{
	struct sk_buff *skb = napi_alloc_skb(&rq->napi, len);

	if (!skb)
		return NULL;
	skb_put_data(skb, va, len);
	page_pool_recycle_direct(rq->pool, page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_COPIED, 1);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_COPIED_BYTES, len);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_PAGE_REUSE, 1);
	return skb;
}

/* legacy-rx above KTG_NIC_HDR_SIZE: headers copied, the rest a fragment. */
static struct sk_buff *ktg_nic_split(struct ktg_nic_rq *rq, struct page *page,
				     void *va, u32 len)
{
	struct sk_buff *skb = napi_alloc_skb(&rq->napi, KTG_NIC_HDR_SIZE);
	u32 hlen;

	if (!skb)
		return NULL;
	hlen = eth_get_headlen(rq->nic->dev, va, KTG_NIC_HDR_SIZE);
	skb_put_data(skb, va, hlen);
	skb_add_rx_frag(skb, 0, page, KTG_NIC_HEADROOM + hlen, len - hlen, PAGE_SIZE);
	ktg_skb_mark_for_recycle(skb, rq->pool, page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_SPLIT, 1);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_COPIED_BYTES, hlen);
	return skb;
}

static struct sk_buff *ktg_nic_build(struct ktg_nic_rq *rq, struct page *page, u32 len)
{
	struct sk_buff *skb = napi_build_skb(page_address(page), PAGE_SIZE);

	if (!skb)
		return NULL;
	skb_reserve(skb, KTG_NIC_HEADROOM);
	skb_put(skb, len);
	ktg_skb_mark_for_recycle(skb, rq->pool, page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_BUILT, 1);
	return skb;
}

static void ktg_nic_rx_meta(struct ktg_nic_rq *rq, struct sk_buff *skb, u32 hash)
{
	struct net_device *dev = rq->nic->dev;

	skb_set_hash(skb, hash, PKT_HASH_TYPE_L4);
	skb_record_rx_queue(skb, rq - rq->nic->rq);
	/* The engine computed every offloaded checksum; with rx checksumming
	 * on, the "hardware" vouches for it as a NIC that validated it.
	 */
	if (dev->features & NETIF_F_RXCSUM)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
}

/* Hand one completed buffer to the stack in the style in effect. */
static void ktg_nic_rx_one(struct ktg_nic_rq *rq, struct ktg_nic_rx_desc *d,
			   enum ktgen_nic_rx_style style, u32 copybreak)
{
	struct net_device *dev = rq->nic->dev;
	void *va = page_address(d->page) + KTG_NIC_HEADROOM;
	struct sk_buff *skb;
	u32 len = d->len;

	ktg_ctr_add(&rq->ctrs, KTG_RQ_PACKETS, 1);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_BYTES, len);

	if (style == KTGEN_NIC_RX_STYLE_LEGACY)
		skb = len <= KTG_NIC_HDR_SIZE ?
		      ktg_nic_copy_whole(rq, d->page, va, len) :
		      ktg_nic_split(rq, d->page, va, len);
	else if (len <= copybreak)
		skb = ktg_nic_copy_whole(rq, d->page, va, len);
	else if (style == KTGEN_NIC_RX_STYLE_FRAGS)
		goto frags;
	else
		skb = ktg_nic_build(rq, d->page, len);
	if (!skb)
		goto drop;
	skb->protocol = eth_type_trans(skb, dev);
	ktg_nic_rx_meta(rq, skb, d->hash);
	napi_gro_receive(&rq->napi, skb);
	return;

frags:
	skb = napi_get_frags(&rq->napi);
	if (!skb)
		goto drop;
	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, d->page, KTG_NIC_HEADROOM,
			len, PAGE_SIZE);
	ktg_skb_mark_for_recycle(skb, rq->pool, d->page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_FRAGS, 1);
	ktg_nic_rx_meta(rq, skb, d->hash);
	napi_gro_frags(&rq->napi);
	return;

drop:
	page_pool_recycle_direct(rq->pool, d->page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_DROPS, 1);
}

static int ktg_nic_poll(struct napi_struct *napi, int budget)
{
	struct ktg_nic_rq *rq = container_of(napi, struct ktg_nic_rq, napi);
	u32 flags = READ_ONCE(rq->nic->priv_flags);
	enum ktgen_nic_rx_style style = ktg_nic_style(flags);
	u32 copybreak = READ_ONCE(rq->nic->copybreak);
	struct ktg_nic_rx_desc *d;
	int done = 0;

	while (done < budget) {
		d = &rq->desc[rq->next_to_clean & rq->mask];
		if (!ktg_nic_desc_done(d))
			break;
		ktg_nic_rx_one(rq, d, style, copybreak);
		d->page = NULL;
		d->done = 0;
		rq->next_to_clean++;
		done++;
	}
	ktg_nic_refill(rq, GFP_ATOMIC);

	if (done < budget && napi_complete_done(napi, done)) {
		/* A frame completed after the loop looked: poll again. */
		d = &rq->desc[rq->next_to_clean & rq->mask];
		if (ktg_nic_desc_done(d))
			napi_schedule(napi);
	}
	return done;
}

/* The interrupt handler, on the queue's CPU. */
static void ktg_nic_irq(void *arg)
{
	struct ktg_nic_rq *rq = arg;

	napi_schedule(&rq->napi);
	clear_bit_unlock(0, &rq->irq_pending);
}

/* Raise @rq's interrupt; the caller has bottom halves disabled, so a NAPI
 * scheduled on this CPU runs when it enables them.
 */
static void ktg_nic_raise(struct ktg_nic_rq *rq)
{
	int cpu = READ_ONCE(rq->irq_cpu);

	/* The descriptors written, then the pending bit read: pairs with the
	 * handler clearing it before its NAPI looks (test_and_set_bit_lock
	 * is only an acquire, and may not even write).
	 */
	smp_mb();
	if (test_and_set_bit_lock(0, &rq->irq_pending))
		return;
	if (cpu == smp_processor_id() || !cpu_online(cpu) ||
	    smp_call_function_single_async(cpu, &rq->csd))
		ktg_nic_irq(rq);
}

/* ---- the DMA engine ---- */

/* A buffer of @rq posted and not yet filled, waiting for the peer's NAPI
 * when there is none. False when the engine must stop or park: the frame
 * is dropped.
 */
static bool ktg_nic_dma_slot(struct ktg_nic *nic, struct ktg_nic_rq *rq)
{
	while (!ktg_nic_rq_posted(rq)) {
		ktg_ctr_add(&nic->dma, KTG_DMA_PAUSE, 1);
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

	/* rx_ready and the peer's queue count change only while this engine
	 * is parked; acquire pairs with the peer's release when it came up.
	 */
	if (!smp_load_acquire(&pn->rx_ready) || len > KTG_NIC_BUF_LEN)
		return false;
	nq = pn->dev->real_num_rx_queues;
	rq = &pn->rq[reciprocal_scale(hash, nq)];
	if (!ktg_nic_dma_slot(nic, rq))
		return false;

	d = &rq->desc[rq->next_to_fill & rq->mask];
	va = page_address(d->page) + KTG_NIC_HEADROOM;
	nocache = READ_ONCE(pn->priv_flags) & BIT(KTG_NIC_PF_DMA_NOCACHE);
	ktg_nic_dma_copy(skb, va, nocache);
	if (nocache)
		ktg_ctr_add(&nic->dma, KTG_DMA_NOCACHE, 1);
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		/* The sender left the checksum to the hardware: sum from
		 * csum_start over the copy, into the field at csum_offset
		 * (which holds the pseudo-header sum), as a NIC does.
		 */
		int start = skb_checksum_start_offset(skb);
		__sum16 *field = va + start + skb->csum_offset;

		*field = csum_fold(csum_partial(va + start, len - start, 0)) ?: CSUM_MANGLED_0;
		ktg_ctr_add(&nic->dma, KTG_DMA_CSUMS, 1);
	}
	d->len = len;
	d->hash = hash;
	/* The frame, then done: the NAPI's acquire in ktg_nic_desc_done(). */
	smp_store_release(&d->done, 1);
	rq->next_to_fill++;
	nic->rx_dma_pending |= BIT_ULL(rq - pn->rq);
	if (!rq->mod_frames++)
		rq->mod_first_ns = ktime_get_ns();
	ktg_ctr_add(&nic->dma, KTG_DMA_FRAMES, 1);
	ktg_ctr_add(&nic->dma, KTG_DMA_BYTES, len);
	return true;
}

static void ktg_nic_dma_irqs(struct ktg_nic *nic, struct ktg_nic *pn)
{
	u32 usecs = READ_ONCE(pn->rx_usecs), frames = READ_ONCE(pn->rx_frames);
	u64 pending = nic->rx_dma_pending, now = usecs ? ktime_get_ns() : 0;
	int q;

	nic->irq_due_ns = 0;
	local_bh_disable();
	for (q = 0; pending; q++, pending >>= 1) {
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
		ktg_ctr_add(&nic->dma, KTG_DMA_IRQS, 1);
	}
	local_bh_enable();
}

/* Move one transmitted skb to the peer, cut into MTU frames if it is TSO. */
static void ktg_nic_dma_skb(struct ktg_nic *nic, struct ktg_nic *pn, struct sk_buff *skb)
{
	u32 hash = __skb_get_hash_symmetric(skb);
	struct sk_buff *segs, *seg, *next;
	u32 n = 0;

	if (!pn || !skb_is_gso(skb)) {
		if (!pn || !ktg_nic_dma_frame(nic, pn, skb, hash))
			ktg_ctr_add(&nic->dma, KTG_DMA_DROPS, 1);
		consume_skb(skb);
		return;
	}
	segs = skb_gso_segment(skb, NETIF_F_SG | NETIF_F_HW_CSUM);
	consume_skb(skb);
	if (IS_ERR_OR_NULL(segs)) {
		ktg_ctr_add(&nic->dma, KTG_DMA_DROPS, 1);
		return;
	}
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (!ktg_nic_dma_frame(nic, pn, seg, hash))
			ktg_ctr_add(&nic->dma, KTG_DMA_DROPS, 1);
		consume_skb(seg);
		n++;
	}
	ktg_ctr_add(&nic->dma, KTG_DMA_SEGMENTS, n);
}

static bool ktg_nic_tx_pending(struct ktg_nic *nic)
{
	unsigned int q;

	for (q = 0; q < nic->dev->real_num_tx_queues; q++)
		if (!ptr_ring_empty(&nic->sq[q].ring))
			return true;
	return false;
}

/* One pass over the transmit rings: frames moved. */
static unsigned int ktg_nic_engine_pass(struct ktg_nic *nic)
{
	struct net_device *dev = nic->dev;
	unsigned int q, i, total = 0;
	struct net_device *peer;
	struct ktg_nic *pn;

	/* The peer cannot be freed while this engine runs: its unregistration
	 * takes it down first, which parks this engine.
	 */
	rcu_read_lock();
	peer = rcu_dereference(nic->peer);
	rcu_read_unlock();
	pn = peer ? netdev_priv(peer) : NULL;

	for (q = 0; q < dev->real_num_tx_queues; q++) {
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
		ktg_nic_dma_irqs(nic, pn);
	} else if (!pn) {
		nic->rx_dma_pending = 0;
		nic->irq_due_ns = 0;
	}
	return total;
}

static int ktg_nic_engine(void *arg)
{
	struct ktg_nic *nic = arg;
	u64 t0;

	while (!kthread_should_stop()) {
		if (kthread_should_park()) {
			nic->rx_dma_pending = 0;
			nic->irq_due_ns = 0;
			kthread_parkme();
			continue;
		}
		t0 = ktime_get_ns();
		if (ktg_nic_engine_pass(nic)) {
			ktg_ctr_add(&nic->dma, KTG_DMA_BUSY_NS, ktime_get_ns() - t0);
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
	return 0;
}

/* ---- transmit ---- */

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

/* ---- bringing rings up and down ---- */

static void ktg_nic_rq_free(struct ktg_nic_rq *rq)
{
	u32 i;

	if (!rq->desc)
		return;
	for (i = 0; i <= rq->mask; i++)
		if (rq->desc[i].page)
			page_pool_put_full_page(rq->pool, rq->desc[i].page, false);
	kvfree(rq->desc);
	rq->desc = NULL;
	page_pool_destroy(rq->pool);
	rq->pool = NULL;
	ktg_nic_uncharge((u64)(rq->mask + 1) << PAGE_SHIFT);
}

/* A ring's pages (a page a descriptor, as long as the ring is up) are
 * charged to the module's budget.
 */
static int ktg_nic_rq_alloc(struct ktg_nic *nic, struct ktg_nic_rq *rq)
{
	struct page_pool_params pp = {
		.order		= 0,
		.pool_size	= nic->rx_ring,
		.nid		= NUMA_NO_NODE,
	};
	u64 bytes = (u64)nic->rx_ring << PAGE_SHIFT;
	int err;

	err = ktg_nic_charge(bytes);
	if (err)
		return err;
	ktg_page_pool_set_netdev(&pp, nic->dev);
	rq->desc = kvcalloc(nic->rx_ring, sizeof(*rq->desc), GFP_KERNEL);
	if (!rq->desc) {
		ktg_nic_uncharge(bytes);
		return -ENOMEM;
	}
	rq->pool = page_pool_create(&pp);
	if (IS_ERR(rq->pool)) {
		err = PTR_ERR(rq->pool);
		rq->pool = NULL;
		kvfree(rq->desc);
		rq->desc = NULL;
		ktg_nic_uncharge(bytes);
		return err;
	}
	rq->mask = nic->rx_ring - 1;
	rq->next_to_use = 0;
	rq->next_to_clean = 0;
	rq->next_to_fill = 0;
	/* The pool's only user until its NAPI runs: it may sleep here. */
	ktg_nic_refill(rq, GFP_KERNEL);
	if (rq->next_to_use != nic->rx_ring) {
		ktg_nic_rq_free(rq);
		return -ENOMEM;
	}
	return 0;
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

/* Apply ring or channel settings: a running device resets, so its carrier
 * drops and returns as a real NIC's does (kept with quiet-reset); each reset
 * counts in ethtool -S resets.
 */
static int ktg_nic_reconfigure(struct ktg_nic *nic, u32 channels, u32 rx_ring,
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
		netdev_err(dev, "cannot restore its rings: down until set up again\n");
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

static void ktg_nic_uninit(struct net_device *dev);

static const struct net_device_ops ktg_nic_netdev_ops = {
	.ndo_uninit		= ktg_nic_uninit,
	.ndo_open		= ktg_nic_open,
	.ndo_stop		= ktg_nic_stop,
	.ndo_start_xmit		= ktg_nic_xmit,
	.ndo_get_stats64	= ktg_nic_get_stats64,
	.ndo_get_iflink		= ktg_nic_get_iflink,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

/* ---- ethtool ---- */

static void ktg_nic_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KTG_NIC_KIND, sizeof(info->driver));
	strscpy(info->version, KTGEN_VERSION, sizeof(info->version));
	strscpy(info->bus_info, "virtual", sizeof(info->bus_info));
}

static void ktg_nic_get_ringparam(struct net_device *dev, struct ethtool_ringparam *r,
				  struct kernel_ethtool_ringparam *kr,
				  struct netlink_ext_ack *extack)
{
	struct ktg_nic *nic = netdev_priv(dev);

	r->rx_max_pending = KTG_NIC_RING_MAX;
	r->tx_max_pending = KTG_NIC_RING_MAX;
	r->rx_pending = nic->rx_ring;
	r->tx_pending = nic->tx_ring;
}

static int ktg_nic_set_ringparam(struct net_device *dev, struct ethtool_ringparam *r,
				 struct kernel_ethtool_ringparam *kr,
				 struct netlink_ext_ack *extack)
{
	struct ktg_nic *nic = netdev_priv(dev);

	if (r->rx_mini_pending || r->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "no mini or jumbo rings");
		return -EINVAL;
	}
	if (r->rx_pending < KTG_NIC_RING_MIN || !is_power_of_2(r->rx_pending)) {
		NL_SET_ERR_MSG_MOD(extack, "rx ring: a power of 2, at least 64");
		return -EINVAL;
	}
	if (r->tx_pending < KTG_NIC_RING_MIN || !is_power_of_2(r->tx_pending)) {
		NL_SET_ERR_MSG_MOD(extack, "tx ring: a power of 2, at least 64");
		return -EINVAL;
	}
	if (r->rx_pending == nic->rx_ring && r->tx_pending == nic->tx_ring)
		return 0;
	return ktg_nic_reconfigure(nic, dev->real_num_rx_queues, r->rx_pending,
				   r->tx_pending, extack);
}

static int ktg_nic_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
				struct kernel_ethtool_coalesce *kec,
				struct netlink_ext_ack *extack)
{
	struct ktg_nic *nic = netdev_priv(dev);

	ec->rx_coalesce_usecs = READ_ONCE(nic->rx_usecs);
	ec->rx_max_coalesced_frames = READ_ONCE(nic->rx_frames);
	return 0;
}

/* Taken by the peer's engine at its next pass: no reset. */
static int ktg_nic_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
				struct kernel_ethtool_coalesce *kec,
				struct netlink_ext_ack *extack)
{
	struct ktg_nic *nic = netdev_priv(dev);

	if (ec->rx_coalesce_usecs > KTG_NIC_MAX_USECS) {
		NL_SET_ERR_MSG_MOD(extack, "rx-usecs: at most 10000");
		return -EINVAL;
	}
	if (ec->rx_max_coalesced_frames > KTG_NIC_RING_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "rx-frames: at most 4096");
		return -EINVAL;
	}
	WRITE_ONCE(nic->rx_usecs, ec->rx_coalesce_usecs);
	WRITE_ONCE(nic->rx_frames, ec->rx_max_coalesced_frames);
	return 0;
}

static void ktg_nic_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	ch->max_combined = dev->num_tx_queues;
	ch->combined_count = dev->real_num_tx_queues;
}

static int ktg_nic_set_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct ktg_nic *nic = netdev_priv(dev);

	/* The core checked the counts against the maxima. */
	if (ch->rx_count || ch->tx_count || !ch->combined_count)
		return -EINVAL;
	if (ch->combined_count == dev->real_num_tx_queues)
		return 0;
	return ktg_nic_reconfigure(nic, ch->combined_count, nic->rx_ring, nic->tx_ring,
				   NULL);
}

static u32 ktg_nic_get_priv_flags(struct net_device *dev)
{
	return READ_ONCE(((struct ktg_nic *)netdev_priv(dev))->priv_flags);
}

/*
 * Receive style and DMA mode change between two polls, without a reset;
 * with flag-reset on, a change of the other flags resets a running device
 * (carrier off, rings rebuilt, carrier on), as ixgbe's legacy-rx does.
 * quiet-reset keeps the carrier through every reset (mlx5 reopens its
 * channels so): only ethtool -S resets tells.
 */
static int ktg_nic_set_priv_flags(struct net_device *dev, u32 flags)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u32 changed = flags ^ READ_ONCE(nic->priv_flags);
	int err;

	if ((flags & BIT(KTG_NIC_PF_LEGACY_RX)) && (flags & BIT(KTG_NIC_PF_RX_FRAGS))) {
		netdev_info(dev, "legacy-rx and rx-frags are two receive styles: pick one\n");
		return -EINVAL;
	}
	WRITE_ONCE(nic->priv_flags, flags);
	if (!(flags & BIT(KTG_NIC_PF_FLAG_RESET)) ||
	    !(changed & ~(BIT(KTG_NIC_PF_FLAG_RESET) | BIT(KTG_NIC_PF_QUIET_RESET))) ||
	    !netif_running(dev))
		return 0;
	err = ktg_nic_reconfigure(nic, dev->real_num_rx_queues, nic->rx_ring, nic->tx_ring,
				  NULL);
	if (err)
		WRITE_ONCE(nic->priv_flags, flags ^ changed);
	return err;
}

static int ktg_nic_get_tunable(struct net_device *dev, const struct ethtool_tunable *t,
			       void *data)
{
	struct ktg_nic *nic = netdev_priv(dev);

	if (t->id != ETHTOOL_RX_COPYBREAK)
		return -EOPNOTSUPP;
	*(u32 *)data = nic->copybreak;
	return 0;
}

static int ktg_nic_set_tunable(struct net_device *dev, const struct ethtool_tunable *t,
			       const void *data)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u32 v = *(const u32 *)data;

	if (t->id != ETHTOOL_RX_COPYBREAK)
		return -EOPNOTSUPP;
	if (v > KTG_NIC_BUF_LEN)
		return -EINVAL;
	WRITE_ONCE(nic->copybreak, v);
	return 0;
}

static int ktg_nic_get_sset_count(struct net_device *dev, int sset)
{
	switch (sset) {
	case ETH_SS_STATS:
		return KTG_RQ_COUNT + KTG_SQ_COUNT + KTG_DMA_COUNT + 1 +
		       dev->real_num_rx_queues * KTG_RQ_COUNT +
		       dev->real_num_tx_queues * KTG_SQ_COUNT;
	case ETH_SS_PRIV_FLAGS:
		return KTG_NIC_PF_COUNT;
	default:
		return -EOPNOTSUPP;
	}
}

static void ktg_nic_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int q, i;

	switch (sset) {
	case ETH_SS_STATS:
		for (i = 0; i < KTG_RQ_COUNT; i++)
			ethtool_sprintf(&data, "rx_%s", ktg_rq_names[i]);
		for (i = 0; i < KTG_SQ_COUNT; i++)
			ethtool_sprintf(&data, "tx_%s", ktg_sq_names[i]);
		for (i = 0; i < KTG_DMA_COUNT; i++)
			ethtool_sprintf(&data, "%s", ktg_dma_names[i]);
		ethtool_sprintf(&data, "resets");
		for (q = 0; q < dev->real_num_rx_queues; q++)
			for (i = 0; i < KTG_RQ_COUNT; i++)
				ethtool_sprintf(&data, "rx%u_%s", q, ktg_rq_names[i]);
		for (q = 0; q < dev->real_num_tx_queues; q++)
			for (i = 0; i < KTG_SQ_COUNT; i++)
				ethtool_sprintf(&data, "tx%u_%s", q, ktg_sq_names[i]);
		break;
	case ETH_SS_PRIV_FLAGS:
		memcpy(data, ktg_nic_pf_names, sizeof(ktg_nic_pf_names));
		break;
	}
}

/* Totals over every queue the device has had (counters survive channel
 * changes), then the queues in use.
 */
static void ktg_nic_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *st,
				      u64 *data)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u64 *rq_tot = data, *sq_tot = data + KTG_RQ_COUNT;
	u64 *out = sq_tot + KTG_SQ_COUNT, v[KTG_RQ_COUNT];
	unsigned int q, i;

	memset(data, 0, sizeof(u64) * (KTG_RQ_COUNT + KTG_SQ_COUNT));
	ktg_ctrs_read(&nic->dma, KTG_DMA_COUNT, out);
	out += KTG_DMA_COUNT;
	*out++ = nic->resets;
	for (q = 0; q < KTG_NIC_MAX_QUEUES; q++) {
		ktg_ctrs_read(&nic->rq[q].ctrs, KTG_RQ_COUNT, v);
		for (i = 0; i < KTG_RQ_COUNT; i++)
			rq_tot[i] += v[i];
		if (q < dev->real_num_rx_queues) {
			memcpy(out, v, sizeof(u64) * KTG_RQ_COUNT);
			out += KTG_RQ_COUNT;
		}
	}
	for (q = 0; q < KTG_NIC_MAX_QUEUES; q++) {
		ktg_ctrs_read(&nic->sq[q].ctrs, KTG_SQ_COUNT, v);
		for (i = 0; i < KTG_SQ_COUNT; i++)
			sq_tot[i] += v[i];
		if (q < dev->real_num_tx_queues) {
			memcpy(out, v, sizeof(u64) * KTG_SQ_COUNT);
			out += KTG_SQ_COUNT;
		}
	}
}

KTG_ETHTOOL_COMPAT_COALESCE(ktg_nic_get_coalesce, ktg_nic_set_coalesce)
KTG_ETHTOOL_COMPAT_RINGPARAM(ktg_nic_get_ringparam, ktg_nic_set_ringparam)

static const struct ethtool_ops ktg_nic_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_RX_USECS |
				     ETHTOOL_COALESCE_RX_MAX_FRAMES,
	.get_drvinfo		= ktg_nic_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	KTG_ETHTOOL_COALESCE_OPS(ktg_nic_get_coalesce, ktg_nic_set_coalesce),
	KTG_ETHTOOL_RINGPARAM_OPS(ktg_nic_get_ringparam, ktg_nic_set_ringparam),
	.get_channels		= ktg_nic_get_channels,
	.set_channels		= ktg_nic_set_channels,
	.get_priv_flags		= ktg_nic_get_priv_flags,
	.set_priv_flags		= ktg_nic_set_priv_flags,
	.get_tunable		= ktg_nic_get_tunable,
	.set_tunable		= ktg_nic_set_tunable,
	.get_sset_count		= ktg_nic_get_sset_count,
	.get_strings		= ktg_nic_get_strings,
	.get_ethtool_stats	= ktg_nic_get_ethtool_stats,
};

/* ---- rtnetlink: the pair ---- */

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
	for (q = 0; q < KTG_NIC_MAX_QUEUES; q++) {
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
		for (q = 0; q < KTG_NIC_MAX_QUEUES; q++)
			WRITE_ONCE(nic->rq[q].irq_cpu, cpus[q % n]);
	}
}

static int ktg_nic_validate(struct nlattr *tb[], struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
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
	return ktg_nic_validate_data(data, extack);
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

static void ktg_nic_init_queues(struct net_device *dev, struct nlattr *data[])
{
	struct ktg_nic *nic = netdev_priv(dev);
	unsigned int n = min_t(unsigned int, num_online_cpus(), dev->num_tx_queues);

	/* One channel per CPU, as drivers default to, unless asked. */
	n = min_t(unsigned int, n, dev->num_rx_queues);
	netif_set_real_num_queues(dev, n, n);
	ktg_nic_apply_data(nic, data);
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
	struct nlattr *peer_tb[IFLA_MAX + 1], **tbp = tb;
	struct ifinfomsg *ifmp = NULL;
	unsigned char name_assign_type;
	struct ktg_nic *nic, *pn;
	struct net_device *peer;
	char ifname[IFNAMSIZ];
	struct net *net;
	int err;

	if (!capable(CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack,
			       "ktgen-nic needs CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}
	if (data && data[KTGEN_A_NIC_PEER]) {
		struct nlattr *nla_peer = data[KTGEN_A_NIC_PEER];

		ifmp = nla_data(nla_peer);
		err = rtnl_nla_parse_ifinfomsg(peer_tb, nla_peer, extack);
		if (err < 0)
			return err;
		err = ktg_nic_validate(peer_tb, NULL, extack);
		if (err < 0)
			return err;
		tbp = peer_tb;
	}
	if (ifmp && tbp[IFLA_IFNAME]) {
		nla_strscpy(ifname, tbp[IFLA_IFNAME], IFNAMSIZ);
		name_assign_type = NET_NAME_USER;
	} else {
		snprintf(ifname, IFNAMSIZ, "ktgn%%d");
		name_assign_type = NET_NAME_ENUM;
	}

	net = rtnl_link_get_net(src_net, tbp);
	if (IS_ERR(net))
		return PTR_ERR(net);
	if (dev_net(dev)->user_ns != &init_user_ns || net->user_ns != &init_user_ns) {
		put_net(net);
		NL_SET_ERR_MSG_ATTR(extack, dev_net(dev)->user_ns != &init_user_ns || !data ?
				    NULL : data[KTGEN_A_NIC_PEER],
				    "ktgen-nic: both ends in network namespaces of the initial user namespace only");
		return -EPERM;
	}
	peer = rtnl_create_link(net, ifname, name_assign_type, &ktg_nic_link_ops, tbp,
				extack);
	if (IS_ERR(peer)) {
		put_net(net);
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot create the peer");
		return PTR_ERR(peer);
	}
	if (!ifmp || !tbp[IFLA_ADDRESS])
		eth_hw_addr_random(peer);
	if (ifmp && dev->ifindex)
		peer->ifindex = ifmp->ifi_index;
	ktg_nic_init_queues(peer, data);

	err = register_netdevice(peer);
	put_net(net);
	if (err < 0) {
		free_netdev(peer);
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot register the peer");
		return err;
	}
	netif_carrier_off(peer);
	err = ktg_rtnl_configure_link(peer, ifmp);
	if (err < 0) {
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot configure the peer");
		goto err_peer;
	}

	if (!tb[IFLA_ADDRESS])
		eth_hw_addr_random(dev);
	if (tb[IFLA_IFNAME])
		nla_strscpy(dev->name, tb[IFLA_IFNAME], IFNAMSIZ);
	else
		snprintf(dev->name, IFNAMSIZ, "ktgn%%d");
	ktg_nic_init_queues(dev, data);
	err = register_netdevice(dev);
	if (err < 0) {
		NL_SET_ERR_MSG_WEAK(extack, "ktgen-nic: cannot register the device");
		goto err_peer;
	}
	netif_carrier_off(dev);

	nic = netdev_priv(dev);
	pn = netdev_priv(peer);
	rcu_assign_pointer(nic->peer, peer);
	rcu_assign_pointer(pn->peer, dev);
	return 0;

err_peer:
	unregister_netdevice(peer);
	return err;
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

static size_t ktg_nic_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(u32)) * 2 +
	       nla_total_size(sizeof(u32) * KTG_NIC_MAX_QUEUES);
}

static int ktg_nic_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct ktg_nic *nic = netdev_priv(dev);
	u32 cpus[KTG_NIC_MAX_QUEUES];
	unsigned int q;

	for (q = 0; q < KTG_NIC_MAX_QUEUES; q++)
		cpus[q] = READ_ONCE(nic->rq[q].irq_cpu);
	if (nla_put(skb, KTGEN_A_NIC_IRQ_CPUS, sizeof(u32) * dev->real_num_rx_queues, cpus))
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

static struct rtnl_link_ops ktg_nic_link_ops = {
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

static int __init ktg_nic_init(void)
{
	ktg_nic_budget_init();
	return rtnl_link_register(&ktg_nic_link_ops);
}

/* The core deletes every pair, in every namespace, before it returns. */
static void __exit ktg_nic_exit(void)
{
	rtnl_link_unregister(&ktg_nic_link_ops);
}

module_init(ktg_nic_init);
module_exit(ktg_nic_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Virtual NIC pair with hardware drivers' receive styles, for ktgen");
MODULE_VERSION(KTGEN_VERSION);
MODULE_ALIAS_RTNL_LINK(KTG_NIC_KIND);
