// SPDX-License-Identifier: GPL-2.0
/* skb_mark_for_recycle(skb): page_pool pages go back to their pool when the
 * stack frees the skb (5.15); before, a driver unmapped them from the pool.
 */
#include <linux/skbuff.h>

void ktg_probe(struct sk_buff *skb);
void ktg_probe(struct sk_buff *skb)
{
	skb_mark_for_recycle(skb);
}
