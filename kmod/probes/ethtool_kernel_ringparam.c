// SPDX-License-Identifier: GPL-2.0
/* ethtool_ops.{get,set}_ringparam with kernel_ethtool_ringparam and extack (5.17) */
#include <linux/ethtool.h>

static void ktg_probe_get(struct net_device *dev, struct ethtool_ringparam *r,
			  struct kernel_ethtool_ringparam *kr, struct netlink_ext_ack *extack)
{
}

const struct ethtool_ops ktg_probe_ops = { .get_ringparam = ktg_probe_get };
