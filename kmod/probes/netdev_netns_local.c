// SPDX-License-Identifier: GPL-2.0
/* net_device.netns_local: the device never changes network namespace
 * (6.12 to 6.14; the feature bit NETIF_F_NETNS_LOCAL before).
 */
#include <linux/netdevice.h>

void ktg_probe(struct net_device *dev);
void ktg_probe(struct net_device *dev)
{
	dev->netns_local = true;
}
