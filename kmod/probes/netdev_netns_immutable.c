// SPDX-License-Identifier: GPL-2.0
/* net_device.netns_immutable: the device never changes network namespace
 * (6.15; netns_local before, from 6.12).
 */
#include <linux/netdevice.h>

void ktg_probe(struct net_device *dev);
void ktg_probe(struct net_device *dev)
{
	dev->netns_immutable = true;
}
