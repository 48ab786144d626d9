// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool: rings, channels, coalescing, the private flags that choose the
 * receive style, the rx-copybreak tunable, and the counters of every
 * queue and of the DMA engine.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ethtool.h>

#include "nic.h"

static const char ktg_nic_pf_names[KTG_NIC_PF_COUNT][ETH_GSTRING_LEN] = {
	[KTG_NIC_PF_LEGACY_RX]		= "legacy-rx",
	[KTG_NIC_PF_RX_FRAGS]		= "rx-frags",
	[KTG_NIC_PF_DMA_NOCACHE]	= "dma-nocache",
	[KTG_NIC_PF_FLAG_RESET]		= "flag-reset",
	[KTG_NIC_PF_QUIET_RESET]	= "quiet-reset",
};

static const char * const ktg_rq_names[KTG_RQ_COUNT] = {
	"packets", "bytes", "built", "copied", "split", "frags",
	"copied_bytes", "page_reuse", "alloc_fail", "drops",
};

static const char * const ktg_sq_names[KTG_SQ_COUNT] = {
	"packets", "bytes", "stops",
};

static const char * const ktg_dma_names[KTG_DMA_COUNT] = {
	"dma_frames", "dma_bytes", "dma_segments", "dma_nocache", "dma_csums", "dma_busy_ns",
	"dma_pause", "dma_drops", "dma_irqs",
};

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
	return ktg_nic_reconfigure(nic, ktg_nic_rxqs(nic), r->rx_pending,
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

/* A channel is a queue each way, with its rings: no more than the device
 * has queues of either kind, nor than it has rings.
 */
static void ktg_nic_get_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct ktg_nic *nic = netdev_priv(dev);

	ch->max_combined = min3(dev->num_tx_queues, dev->num_rx_queues,
				(unsigned int)ARRAY_SIZE(nic->rq));
	ch->combined_count = ktg_nic_txqs(nic);
}

static int ktg_nic_set_channels(struct net_device *dev, struct ethtool_channels *ch)
{
	struct ktg_nic *nic = netdev_priv(dev);

	/* The core checked the counts against the maxima. */
	if (ch->rx_count || ch->tx_count || !ch->combined_count)
		return -EINVAL;
	if (ch->combined_count == ktg_nic_txqs(nic))
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

	/* The ioctl (ETHTOOL_SPFLAGS) passes its u32 as given; only the
	 * netlink path masks it to the flags' count.
	 */
	if (flags & ~GENMASK(KTG_NIC_PF_COUNT - 1, 0))
		return -EINVAL;
	if ((flags & BIT(KTG_NIC_PF_LEGACY_RX)) && (flags & BIT(KTG_NIC_PF_RX_FRAGS))) {
		netdev_info(dev, "legacy-rx and rx-frags are two receive styles: pick one\n");
		return -EINVAL;
	}
	WRITE_ONCE(nic->priv_flags, flags);
	if (!(flags & BIT(KTG_NIC_PF_FLAG_RESET)) ||
	    !(changed & ~(BIT(KTG_NIC_PF_FLAG_RESET) | BIT(KTG_NIC_PF_QUIET_RESET))) ||
	    !netif_running(dev))
		return 0;
	err = ktg_nic_reconfigure(nic, ktg_nic_rxqs(nic), nic->rx_ring, nic->tx_ring,
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
	struct ktg_nic *nic = netdev_priv(dev);

	switch (sset) {
	case ETH_SS_STATS:
		return KTG_RQ_COUNT + KTG_SQ_COUNT + KTG_DMA_COUNT + 1 +
		       ktg_nic_rxqs(nic) * KTG_RQ_COUNT + ktg_nic_txqs(nic) * KTG_SQ_COUNT;
	case ETH_SS_PRIV_FLAGS:
		return KTG_NIC_PF_COUNT;
	default:
		return -EOPNOTSUPP;
	}
}

static void ktg_nic_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct ktg_nic *nic = netdev_priv(dev);
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
		for (q = 0; q < ktg_nic_rxqs(nic); q++)
			for (i = 0; i < KTG_RQ_COUNT; i++)
				ethtool_sprintf(&data, "rx%u_%s", q, ktg_rq_names[i]);
		for (q = 0; q < ktg_nic_txqs(nic); q++)
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
	for (q = 0; q < ARRAY_SIZE(nic->rq); q++) {
		ktg_ctrs_read(&nic->rq[q].ctrs, KTG_RQ_COUNT, v);
		for (i = 0; i < KTG_RQ_COUNT; i++)
			rq_tot[i] += v[i];
		if (q < ktg_nic_rxqs(nic)) {
			memcpy(out, v, sizeof(u64) * KTG_RQ_COUNT);
			out += KTG_RQ_COUNT;
		}
	}
	for (q = 0; q < ARRAY_SIZE(nic->sq); q++) {
		ktg_ctrs_read(&nic->sq[q].ctrs, KTG_SQ_COUNT, v);
		for (i = 0; i < KTG_SQ_COUNT; i++)
			sq_tot[i] += v[i];
		if (q < ktg_nic_txqs(nic)) {
			memcpy(out, v, sizeof(u64) * KTG_SQ_COUNT);
			out += KTG_SQ_COUNT;
		}
	}
}

KTG_ETHTOOL_COMPAT_COALESCE(ktg_nic_get_coalesce, ktg_nic_set_coalesce)

KTG_ETHTOOL_COMPAT_RINGPARAM(ktg_nic_get_ringparam, ktg_nic_set_ringparam)

const struct ethtool_ops ktg_nic_ethtool_ops = {
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
