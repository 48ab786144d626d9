/* SPDX-License-Identifier: GPL-2.0 */
/* Receive statistics and their registry by run cookie (stats.c). */
#ifndef _KTG_STATS_H
#define _KTG_STATS_H

#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>

/* What a receiver counted; shared between a sink and, on the same host,
 * the run that sent the traffic (found through the run's cookie).
 */
struct ktg_rx_stats {
	refcount_t	ref;
	struct rcu_head	rcu;
	atomic64_t	bytes;
	atomic64_t	msgs;
	atomic64_t	conns;
	atomic64_t	verify_errors;
	atomic64_t	verify_first;	/* U64_MAX until a mismatch */
	atomic64_t	lost;
	atomic64_t	late;
	atomic64_t	dup;
	atomic64_t	bad_headers;
	atomic64_t	responses;	/* tcp-rr, udp-rr */
	atomic64_t	reads;		/* UDP: datagram reads; TCP sinks: conn reads */
	atomic64_t	refused;	/* requests, connections, flows not served */
	atomic64_t	csum_errors;	/* UDP: bad checksums, dropped */
	atomic_t	closed;		/* senders that finished (same host) */
};

struct ktg_rx_stats *ktg_rx_stats_new(u64 cookie);
struct ktg_rx_stats *ktg_rx_stats_find(u64 cookie);
void ktg_rx_stats_unpublish(u64 cookie);
void ktg_rx_stats_put(struct ktg_rx_stats *rx);
void ktg_rx_stats_init(struct ktg_rx_stats *rx);
void ktg_rx_verify_error(struct ktg_rx_stats *rx, u64 bad, u64 first);

#endif
