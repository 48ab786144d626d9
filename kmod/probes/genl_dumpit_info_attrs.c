// SPDX-License-Identifier: GPL-2.0
/* genl_dumpit_info.attrs: a dump's parsed request (in its genl_info from 6.2) */
#include <net/genetlink.h>

struct nlattr **ktg_probe(struct netlink_callback *cb);
struct nlattr **ktg_probe(struct netlink_callback *cb)
{
	return genl_dumpit_info(cb)->attrs;
}
