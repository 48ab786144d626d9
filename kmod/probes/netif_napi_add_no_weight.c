// SPDX-License-Identifier: GPL-2.0
/* netif_napi_add() without a weight argument (6.1) */
#include <linux/netdevice.h>

static int ktg_probe_poll(struct napi_struct *napi, int budget)
{
	return 0;
}

void ktg_probe(struct net_device *dev, struct napi_struct *napi);
void ktg_probe(struct net_device *dev, struct napi_struct *napi)
{
	netif_napi_add(dev, napi, ktg_probe_poll);
}
