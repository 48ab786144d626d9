// SPDX-License-Identifier: GPL-2.0
/*
 * Receive statistics: what a sink counted, shared with the run that sent
 * the traffic when both are on this host. A run publishes its stats under
 * its cookie (the wire header carries it); a sink's connection or UDP flow
 * finds them by the cookie it reads and counts there too.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "stats.h"

static DEFINE_XARRAY(ktg_cookies);

void ktg_rx_stats_init(struct ktg_rx_stats *rx)
{
	memset(rx, 0, sizeof(*rx));
	refcount_set(&rx->ref, 1);
	atomic64_set(&rx->verify_first, U64_MAX);
}

/* The stats of a new run, published under @cookie: ERR_PTR(-EBUSY) when
 * another run has it, or -ENOMEM.
 */
struct ktg_rx_stats *ktg_rx_stats_new(u64 cookie)
{
	struct ktg_rx_stats *rx;
	int err;

	rx = kzalloc(sizeof(*rx), GFP_KERNEL);
	if (!rx)
		return ERR_PTR(-ENOMEM);
	ktg_rx_stats_init(rx);
	err = xa_insert(&ktg_cookies, cookie, rx, GFP_KERNEL);
	if (err) {
		kfree(rx);
		return ERR_PTR(err);
	}
	return rx;
}

/* The run's stats for @cookie with a reference, or NULL. */
struct ktg_rx_stats *ktg_rx_stats_find(u64 cookie)
{
	struct ktg_rx_stats *rx;

	rcu_read_lock();
	rx = xa_load(&ktg_cookies, cookie);
	if (rx && !refcount_inc_not_zero(&rx->ref))
		rx = NULL;
	rcu_read_unlock();
	return rx;
}

/* No new reference from here on; a lookup under way may still take one
 * (the stats go an RCU grace period after the last is put).
 */
void ktg_rx_stats_unpublish(u64 cookie)
{
	xa_erase(&ktg_cookies, cookie);
}

void ktg_rx_stats_put(struct ktg_rx_stats *rx)
{
	if (rx && refcount_dec_and_test(&rx->ref))
		kfree_rcu(rx, rcu);
}

void ktg_rx_verify_error(struct ktg_rx_stats *rx, u64 bad, u64 first)
{
	u64 old = atomic64_read(&rx->verify_first);

	atomic64_add(bad, &rx->verify_errors);
	while (first < old) {
		u64 seen = atomic64_cmpxchg(&rx->verify_first, old, first);

		if (seen == old)
			break;
		old = seen;
	}
}
