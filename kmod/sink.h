/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sink, for sink.c and the netlink handlers that list them.
 */
#ifndef _KTG_SINK_H
#define _KTG_SINK_H

#include <linux/siphash.h>

#include "ktgen.h"

struct ktg_sink {
	refcount_t		ref;		/* kn->sinks' and each reader's */
	struct rcu_head		rcu;		/* lookups are RCU */
	struct list_head	node;		/* on a list of sinks being deleted */
	struct ktg_net		*kn;
	u32			id;
	struct ktg_sink_params	p;
	u64			charged;	/* budget bytes */
	struct socket		*sock;		/* listening (TCP) or bound (UDP) */
	struct ktg_sock_watch	watch;
	struct ktg_worker	*workers;
	u32			nslots;		/* workers allocated */
	u32			nworkers;	/* workers started */
	u32			next_worker;
	struct list_head	pending;	/* TCP: accepted, not yet placed */
	atomic_t		nconns;		/* TCP: connections held */
	struct ktg_rx_stats	stats;
	struct list_head	uflows;		/* UDP senders tracked, LRU first */
	u32			nuflows;
	struct hlist_head	*uflow_hash;	/* them by cookie and flow */
	u32			uflow_bits;	/* log2 of its buckets */
	siphash_key_t		uflow_key;
	struct mm_struct	*mm;		/* rx user: the requester's */
	bool			owned;		/* counted in kn->owners (kn->lock) */
	struct work_struct	owner_work;	/* its owner is gone: delete it */
	u64			token;		/* answers above the request's size */
};

#endif /* _KTG_SINK_H */
