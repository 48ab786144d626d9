// SPDX-License-Identifier: GPL-2.0
/* ethtool_ops.{get,set}_coalesce with kernel_ethtool_coalesce and extack (5.15) */
#include <linux/ethtool.h>

static int ktg_probe_get(struct net_device *dev, struct ethtool_coalesce *ec,
			 struct kernel_ethtool_coalesce *kec, struct netlink_ext_ack *extack)
{
	return 0;
}

const struct ethtool_ops ktg_probe_ops = { .get_coalesce = ktg_probe_get };
