// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: the rings of page-pool pages a device posts for its peer's DMA
 * engine, the NAPI poll that turns filled buffers into skbs in the chosen
 * style (build_skb, legacy-rx copy, rx-frags through GRO, copybreak), and
 * the "interrupt" that schedules it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "nic.h"

static void ktg_nic_refill(struct ktg_nic_rq *rq, gfp_t gfp)
{
	u32 use = rq->next_to_use;
	struct page *page;

	while (use - rq->next_to_clean <= rq->ring.mask) {
		page = page_pool_alloc_pages(rq->ring.pool, gfp | __GFP_NOWARN);
		if (!page) {
			ktg_ctr_add(&rq->ctrs, KTG_RQ_ALLOC_FAIL, 1);
			break;
		}
		rq->ring.desc[use & rq->ring.mask].page = page;
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
	page_pool_recycle_direct(rq->ring.pool, page);
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
	ktg_skb_mark_for_recycle(skb, rq->ring.pool, page);
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
	ktg_skb_mark_for_recycle(skb, rq->ring.pool, page);
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
	ktg_skb_mark_for_recycle(skb, rq->ring.pool, d->page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_FRAGS, 1);
	ktg_nic_rx_meta(rq, skb, d->hash);
	napi_gro_frags(&rq->napi);
	return;

drop:
	page_pool_recycle_direct(rq->ring.pool, d->page);
	ktg_ctr_add(&rq->ctrs, KTG_RQ_DROPS, 1);
}

int ktg_nic_poll(struct napi_struct *napi, int budget)
{
	struct ktg_nic_rq *rq = container_of(napi, struct ktg_nic_rq, napi);
	u32 flags = READ_ONCE(rq->nic->priv_flags);
	enum ktgen_nic_rx_style style = ktg_nic_style(flags);
	u32 copybreak = READ_ONCE(rq->nic->copybreak);
	struct ktg_nic_rx_desc *d;
	int done = 0;

	while (done < budget) {
		d = &rq->ring.desc[rq->next_to_clean & rq->ring.mask];
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
		d = &rq->ring.desc[rq->next_to_clean & rq->ring.mask];
		if (ktg_nic_desc_done(d))
			napi_schedule(napi);
	}
	return done;
}

/* The interrupt handler, on the queue's CPU. */
void ktg_nic_irq(void *arg)
{
	struct ktg_nic_rq *rq = arg;

	napi_schedule(&rq->napi);
	clear_bit_unlock(0, &rq->irq_pending);
}

/* Raise @rq's interrupt; the caller has bottom halves disabled, so a NAPI
 * scheduled on this CPU runs when it enables them.
 */
void ktg_nic_raise(struct ktg_nic_rq *rq)
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

/* A ring's buffers back to its pool, the pool destroyed (it waits for
 * the pages still in skbs), the pages given back to the budget.
 */
void ktg_nic_rxr_free(struct ktg_nic_rxr *r)
{
	u32 i;

	if (!r->desc)
		return;
	for (i = 0; i <= r->mask; i++)
		if (r->desc[i].page)
			page_pool_put_full_page(r->pool, r->desc[i].page, false);
	kvfree(r->desc);
	page_pool_destroy(r->pool);
	ktg_nic_uncharge((u64)(r->mask + 1) << PAGE_SHIFT);
	memset(r, 0, sizeof(*r));
}

/* A receive ring of @size buffers for @nic, every one posted (a page a
 * descriptor, as long as the ring lives, charged to the module's budget):
 * built whole before it replaces the ring in use (ktg_nic_rq_swap()).
 */
int ktg_nic_rxr_alloc(struct ktg_nic *nic, u32 size, struct ktg_nic_rxr *r)
{
	struct page_pool_params pp = {
		.order		= 0,
		.pool_size	= size,
		.nid		= NUMA_NO_NODE,
	};
	u64 bytes = (u64)size << PAGE_SHIFT;
	struct page_pool *pool;
	u32 i;
	int err;

	err = ktg_nic_charge(bytes);
	if (err)
		return err;
	ktg_page_pool_set_netdev(&pp, nic->dev);
	pool = page_pool_create(&pp);
	if (IS_ERR(pool)) {
		ktg_nic_uncharge(bytes);
		return PTR_ERR(pool);
	}
	r->desc = kvcalloc(size, sizeof(*r->desc), GFP_KERNEL);
	if (!r->desc) {
		page_pool_destroy(pool);
		ktg_nic_uncharge(bytes);
		return -ENOMEM;
	}
	r->pool = pool;
	r->mask = size - 1;
	/* Nobody else uses the pool before its NAPI: it may sleep here. */
	for (i = 0; i < size; i++) {
		r->desc[i].page = page_pool_alloc_pages(pool, GFP_KERNEL | __GFP_NOWARN);
		if (!r->desc[i].page) {
			ktg_nic_rxr_free(r);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Exchange @rq's ring and @r, with its NAPI off and the peer's engine
 * parked: every buffer of a ring coming in is posted, none filled.
 */
void ktg_nic_rq_swap(struct ktg_nic_rq *rq, struct ktg_nic_rxr *r)
{
	swap(rq->ring, *r);
	rq->next_to_clean = 0;
	rq->next_to_fill = 0;
	rq->next_to_use = rq->ring.desc ? rq->ring.mask + 1 : 0;
}
