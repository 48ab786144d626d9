// SPDX-License-Identifier: GPL-2.0
/* skb_gso_segment() is declared in <net/gso.h> (6.4), not netdevice.h. */
#include <net/gso.h>

struct sk_buff *ktg_probe(struct sk_buff *skb);
struct sk_buff *ktg_probe(struct sk_buff *skb)
{
	return skb_gso_segment(skb, 0);
}
