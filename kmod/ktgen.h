/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktgen: in-kernel TCP/UDP traffic generator and sink.
 * The per network namespace state (net.c) and the module-wide limits on
 * what a namespace holds (mem.c).
 */
#ifndef _KTGEN_H
#define _KTGEN_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#ifndef KTGEN_VERSION
#define KTGEN_VERSION "unknown"
#endif

struct net;
struct netlink_ext_ack;
struct socket;
struct sockaddr_storage;
struct workqueue_struct;

/*
 * Per network namespace state: sinks and runs live in the namespace whose
 * sockets they use and go away with it. Each table holds a reference on
 * what it lists; lookups are RCU and take one of their own, so a reader
 * never waits for a writer. The lock orders what changes the tables (an
 * id reserved, an object published or taken out, the counts and owners)
 * and is held for no more than that: objects are built and torn down
 * outside it.
 */
struct ktg_net {
	struct net		*net;
	struct mutex		lock;		/* the tables' changes, counts, owners */
	struct xarray		sinks;		/* by id, reserved ids as zero entries */
	struct xarray		runs;
	struct xarray		owners;		/* portid -> what it owns (xa value) */
	struct list_head	sinks_dying;	/* out of sinks, torn down by owner works */
	spinlock_t		dying_lock;	/* sinks_dying (an unlock touches nothing after) */
	u32			next_sink_id;	/* the cyclic allocations' cursors */
	u32			next_run_id;
	u32			nsinks;		/* published and reserved */
	u32			nruns;
	bool			owners_lost;	/* an owner count failed: look always */
	bool			exiting;	/* pre_exit began: close abortively */
};

int ktg_net_reserve(struct ktg_net *kn, bool run, u32 *id, struct netlink_ext_ack *extack);
void ktg_net_unreserve(struct ktg_net *kn, bool run, u32 id);
void ktg_net_owner_add(struct ktg_net *kn, u32 portid);
void ktg_net_owner_del(struct ktg_net *kn, u32 portid);
bool ktg_net_owns(struct ktg_net *kn, u32 portid);

/* Work that may outlive a request: run completion. Flushed at unload. */
extern struct workqueue_struct *ktg_wq;

/* The pernet id of struct ktg_net (main.c registers it). */
extern unsigned int ktg_net_id;

/* Socket addresses, for sinks and runs. */
__be16 ktg_addr_port(const struct sockaddr_storage *ss);
int ktg_addr_len(const struct sockaddr_storage *ss);

struct ktg_net *ktg_pernet(const struct net *net);
void ktg_sock_release(struct socket *sock);

/* Runs and sinks a namespace may hold (module-wide settings). */
#define KTG_MAX_OBJECTS_DEFAULT	4096
u32 ktg_max_runs(void);
u32 ktg_max_sinks(void);
void ktg_set_max_runs(u32 n);
void ktg_set_max_sinks(u32 n);

#endif /* _KTGEN_H */
