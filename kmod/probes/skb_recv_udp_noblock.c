// SPDX-License-Identifier: GPL-2.0
/* skb_recv_udp() with a separate noblock argument (before 5.19). */
#include <net/udp.h>

struct sk_buff *ktg_probe(struct sock *sk)
{
	int err;

	return skb_recv_udp(sk, 0, 1, &err);
}
