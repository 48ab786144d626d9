// SPDX-License-Identifier: GPL-2.0
/* rtnl_link_ops.newlink() takes its arguments in struct rtnl_newlink_params (6.15) */
#include <net/rtnetlink.h>

static int ktg_probe_newlink(struct net_device *dev, struct rtnl_newlink_params *params,
			     struct netlink_ext_ack *extack)
{
	return 0;
}

struct rtnl_link_ops ktg_probe_ops = { .newlink = ktg_probe_newlink };
