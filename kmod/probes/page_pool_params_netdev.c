// SPDX-License-Identifier: GPL-2.0
/* page_pool_params.netdev: the pool is listed, with its statistics, under
 * its device in netdev netlink (page-pool-get, page-pool-stats-get; 6.8).
 */
#include <linux/netdevice.h>
#include <net/page_pool/types.h>

void ktg_probe(struct page_pool_params *pp, struct net_device *dev);
void ktg_probe(struct page_pool_params *pp, struct net_device *dev)
{
	pp->netdev = dev;
}
