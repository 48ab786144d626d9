// SPDX-License-Identifier: GPL-2.0
/* napi_build_skb(): build_skb() from the NAPI skb cache (5.12) */
#include <linux/skbuff.h>

struct sk_buff *ktg_probe(void *data);
struct sk_buff *ktg_probe(void *data)
{
	return napi_build_skb(data, PAGE_SIZE);
}
