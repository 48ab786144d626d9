// SPDX-License-Identifier: GPL-2.0
/* rtnl_configure_link() told the request's portid and header (6.3) */
#include <net/rtnetlink.h>

int ktg_probe(struct net_device *dev);
int ktg_probe(struct net_device *dev)
{
	return rtnl_configure_link(dev, NULL, 0, NULL);
}
