// SPDX-License-Identifier: GPL-2.0
/* netif_set_real_num_queues(): rx and tx counts in one call (5.14) */
#include <linux/netdevice.h>

int ktg_probe(struct net_device *dev);
int ktg_probe(struct net_device *dev)
{
	return netif_set_real_num_queues(dev, 1, 1);
}
