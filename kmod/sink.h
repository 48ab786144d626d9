/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sinks (sink.c): what one is asked for, what it holds, and its life.
 */
#ifndef _KTG_SINK_H
#define _KTG_SINK_H

#include <linux/cpumask.h>
#include <linux/refcount.h>
#include <linux/siphash.h>
#include <linux/socket.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "ktgen.h"
#include "proto.h"
#include "stats.h"
#include "worker.h"

struct ktg_sink_params {
	u32			proto;
	u32			rx_mode;
	struct sockaddr_storage	addr;
	cpumask_var_t		cpus;
	u32			rcvbuf;
	u64			user_buf;	/* rx user */
	u64			user_len;
	u32			busy_poll_us;
	bool			gro;		/* UDP_GRO: batches read whole */
	bool			rr;		/* answers requests */
	u32			resp_max;	/* larger than the request: token only */
	u32			max_conns;	/* TCP connections, UDP flows tracked */
	u32			idle_ms;	/* hello deadline, UDP flow idle time */
	u32			portid;		/* the creator's socket */
	bool			detach;		/* rx user: outlives that socket */
	u8			families;	/* asked, then served: KTG_FAMILY_* */
};

#define KTG_FAMILY_IPV4		BIT(0)
#define KTG_FAMILY_IPV6		BIT(1)

#define KTG_RX_BUF	SZ_64K		/* a worker's copy target or user slice */
#define KTG_DEFAULT_MAX_CONNS	4096
#define KTG_DEFAULT_IDLE_MS	30000

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

/* Takes over p->cpus, and frees it when it fails. The sink runs but is
 * not listed until ktg_sink_publish().
 */
int ktg_sink_create(struct ktg_net *kn, struct ktg_sink_params *p,
		    struct ktg_sink **sinkp, struct netlink_ext_ack *extack);
void ktg_sink_publish(struct ktg_sink *sink);
void ktg_sink_discard(struct ktg_sink *sink);
void ktg_sink_destroy(struct ktg_sink *sink);
struct ktg_sink *ktg_sink_get(struct ktg_net *kn, u32 id);
struct ktg_sink *ktg_sink_get_next(struct ktg_net *kn, unsigned long *id);
void ktg_sink_put(struct ktg_sink *sink);
int ktg_sink_del(struct ktg_net *kn, u32 id);
u32 ktg_sink_slots(const struct ktg_sink_params *p);
void ktg_sinks_destroy_all(struct ktg_net *kn);
void ktg_sinks_wait_dying(struct ktg_net *kn);
void ktg_sinks_owner_gone(struct ktg_net *kn, u32 portid);

/* The receive paths (sink-tcp.c, sink-udp.c), for a sink's life. */
/* A TCP connection, served by one worker of its sink. */
struct ktg_conn {
	struct list_head	node;		/* pending, or its worker's own */
	struct list_head	ready;		/* on its worker's items (w->lock) */
	struct ktg_sink		*sink;
	struct socket		*sock;
	struct ktg_sock_watch	watch;		/* its wake-ups: ktg_conn_wake() */
	struct ktg_rx_stats	*rx;		/* the sending run's, same host */
	struct ktg_hello	hello;
	u32			hello_len;
	u32			pattern_pages;	/* 0: not a ktgen sender */
	u64			off;		/* payload bytes received */
	u32			req;		/* tcp-rr: request and response sizes */
	u32			resp;
	u64			answered;	/* requests answered */
	u64			resp_left;	/* response bytes not yet sent */
	bool			nodelay;	/* set for the responses */
	bool			refused;	/* its hello asked what may not be */
	bool			closing;	/* the sink's FIN sent */
	bool			placed;		/* off the pending list */
	unsigned long		deadline;	/* jiffies: the whole hello by then */
	unsigned long		heard;		/* jiffies: data last read */
	unsigned long		fin_by;		/* jiffies: closing, reset by then */
};

/* A UDP sender, by its cookie and flow id. */
struct ktg_uflow {
	struct hlist_node	hnode;		/* in the sink's hash of senders */
	struct list_head	node;		/* in its list, least recently heard first */
	u64			cookie;
	u32			flow;
	struct ktg_rx_stats	*rx;
	u64			received;
	u64			next_seq;	/* highest seen + 1 */
	u64			window;		/* bit i: seq next_seq - 1 - i seen */
	unsigned long		heard;		/* jiffies of its last datagram */
	u64			sent;		/* its closing count, once closed */
	u64			unheard;	/* counted lost at the close, not heard since */
	bool			closed;
};

int ktg_sink_tcp_worker(void *arg);
void ktg_conns_close_all(struct ktg_worker *w, struct list_head *conns);
int ktg_sink_udp_worker(void *arg);
void ktg_uflow_free(struct ktg_sink *sink, struct ktg_uflow *f);

#endif /* _KTG_SINK_H */
