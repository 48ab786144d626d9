/* SPDX-License-Identifier: GPL-2.0 */
/* What a sink's receive paths share (rx.c). */
#ifndef _KTG_RX_H
#define _KTG_RX_H

#include <linux/atomic.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include "stats.h"

struct ktg_sink;
struct ktg_worker;
struct msghdr;
struct socket;

/* Count on the sink (@total) and, when known, on the sending run: inline,
 * since every datagram and read of the receive paths counts.
 */
static inline void ktg_rx_add(struct ktg_rx_stats *total, struct ktg_rx_stats *rx,
			      size_t field, u64 v)
{
	atomic64_add(v, (atomic64_t *)((u8 *)total + field));
	if (rx)
		atomic64_add(v, (atomic64_t *)((u8 *)rx + field));
}

#define KTG_RX_ADD(sink, rx, field, v) \
	ktg_rx_add(&(sink)->stats, rx, offsetof(struct ktg_rx_stats, field), v)
/* Take back what was counted (a datagram counted lost, found again). */
#define KTG_RX_SUB(sink, rx, field, v) \
	ktg_rx_add(&(sink)->stats, rx, offsetof(struct ktg_rx_stats, field), -(u64)(v))

void ktg_rx_payload(struct ktg_sink *sink, struct ktg_rx_stats *rx,
		    u32 pages, u64 off, const u8 *data, size_t len,
		    struct ktg_worker *w);
bool ktg_sink_resp_allowed(const struct ktg_sink *sink, u64 req, u64 resp,
			   __be64 token);
int ktg_send_zeros(struct socket *sock, struct msghdr *msg, size_t len);

#endif /* _KTG_RX_H */
