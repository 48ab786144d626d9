// SPDX-License-Identifier: GPL-2.0
/*
 * Sinks: receive what ktgen (or anything else) sends, with the receive path
 * under test. One read loop serves copy, nocache, touch, discard and verify
 * (tcp_read_sock's actor for TCP, an skb walk for UDP); recvmsg is the
 * socket API's own copy, kept apart so read-path differences never mix
 * into copy comparisons; user is recvmsg into the requester's memory, by
 * workers that adopted its address space (the stack's copy_to_user).
 *
 * This file: a sink's life (its socket, workers and budget), publishing,
 * deletion and owners. The receive paths are sink-tcp.c and sink-udp.c;
 * the payload checks they share, rx.c.
 */
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "debug.h"
#include "ktgen.h"
#include "mem.h"
#include "sink.h"
#include "stats.h"
#include "worker.h"

/* The families a bound socket serves. */
static u8 ktg_sink_served(struct ktg_sink *sink, bool v6only)
{
	const struct sockaddr_storage *ss = &sink->p.addr;

	if (ss->ss_family == AF_INET)
		return KTG_FAMILY_IPV4;
	if (ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr))
		return v6only ? KTG_FAMILY_IPV6 : KTG_FAMILY_IPV4 | KTG_FAMILY_IPV6;
	if (ipv6_addr_v4mapped(&((const struct sockaddr_in6 *)ss)->sin6_addr))
		return KTG_FAMILY_IPV4;
	return KTG_FAMILY_IPV6;
}

/* The sink's socket, of its address's family; where IPv6 is not
 * available and the IPv6 wildcard was no family's choice, the IPv4
 * wildcard instead (@wild6 then false).
 */
static int ktg_sink_sock_create(struct ktg_net *kn, struct ktg_sink *sink, bool *wild6,
				struct netlink_ext_ack *extack)
{
	struct ktg_sink_params *p = &sink->p;
	bool tcp = p->proto == KTGEN_PROTO_TCP;
	int type = tcp ? SOCK_STREAM : SOCK_DGRAM, proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	int err;

	err = sock_create_kern(kn->net, p->addr.ss_family, type, proto, &sink->sock);
	if (err == -EAFNOSUPPORT && *wild6 && !p->families) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&p->addr;
		struct sockaddr_in *sin = (struct sockaddr_in *)&p->addr;
		__be16 port = sin6->sin6_port;

		memset(&p->addr, 0, sizeof(p->addr));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		*wild6 = false;
		err = sock_create_kern(kn->net, AF_INET, type, proto, &sink->sock);
	}
	if (err == -EAFNOSUPPORT)
		NL_SET_ERR_MSG(extack, "IPv6 is not available here");
	else if (err)
		NL_SET_ERR_MSG(extack, "cannot create the socket");
	return err;
}

/* The options the sink asks for before it binds. */
static int ktg_sink_sockopts(struct ktg_sink *sink, bool wild6, int v6only,
			     struct netlink_ext_ack *extack)
{
	struct ktg_sink_params *p = &sink->p;
	int err, one = 1;

	if (wild6) {
		err = sink->sock->ops->setsockopt(sink->sock, SOL_IPV6, IPV6_V6ONLY,
						  KERNEL_SOCKPTR(&v6only), sizeof(v6only));
		if (err) {
			NL_SET_ERR_MSG(extack, "the socket refused IPV6_V6ONLY");
			return err;
		}
	}
	/* TCP: a restart binds past its old connections' TIME-WAIT. Not
	 * UDP, where any local socket with SO_REUSEADDR could bind the same
	 * address and port and take the sink's datagrams.
	 */
	if (p->proto == KTGEN_PROTO_TCP)
		sock_set_reuseaddr(sink->sock->sk);
	if (p->rcvbuf)
		sock_set_rcvbuf(sink->sock->sk, p->rcvbuf);
	if (p->gro) {
		err = sink->sock->ops->setsockopt(sink->sock, SOL_UDP, UDP_GRO,
						  KERNEL_SOCKPTR(&one), sizeof(one));
		if (err) {
			NL_SET_ERR_MSG(extack, "gro: the socket refused UDP_GRO");
			return err;
		}
	}
	return 0;
}

/* Without an address the sink takes the IPv6 wildcard (p->addr says so)
 * and sets IPV6_V6ONLY itself, so that net.ipv6.bindv6only does not
 * choose its families: off unless ipv6 alone was asked for. Where IPv6 is
 * not available and no family was asked for, the IPv4 wildcard.
 */
static int ktg_sink_socket(struct ktg_net *kn, struct ktg_sink *sink,
			   struct netlink_ext_ack *extack)
{
	struct ktg_sink_params *p = &sink->p;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&p->addr;
	bool wild6 = p->addr.ss_family == AF_INET6 && ipv6_addr_any(&sin6->sin6_addr);
	int v6only = p->families == KTG_FAMILY_IPV6;
	int err;

	err = ktg_sink_sock_create(kn, sink, &wild6, extack);
	if (err)
		return err;
	err = ktg_sink_sockopts(sink, wild6, v6only, extack);
	if (err)
		goto err_release;
	err = kernel_bind(sink->sock, KTG_SOCKADDR(&p->addr), ktg_addr_len(&p->addr));
	if (err) {
		if (err == -EADDRINUSE)
			NL_SET_ERR_MSG(extack, "the port is in use");
		else
			NL_SET_ERR_MSG(extack, "cannot bind to the address");
		goto err_release;
	}
	if (p->proto == KTGEN_PROTO_TCP) {
		err = kernel_listen(sink->sock, 1024);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot listen");
			goto err_release;
		}
	}
	p->families = ktg_sink_served(sink, wild6 && v6only);
	return 0;

err_release:
	ktg_sock_release(sink->sock);
	sink->sock = NULL;
	return err;
}

/* Its workers, sockets and state go; what a reader may still look at
 * (parameters, counters) stays until the last reference.
 */
static void ktg_sink_shutdown(struct ktg_sink *sink)
{
	struct ktg_uflow *f, *tmp;
	u32 i;

	for (i = 0; i < sink->nworkers; i++)
		ktg_worker_stop(&sink->workers[i]);
	/* A worker whose first run was its stop never ran its function
	 * (kthread_stop() of a thread not yet run skips it): what worker 0
	 * handed it is closed here. For the others, nothing is left.
	 */
	if (sink->p.proto == KTGEN_PROTO_TCP) {
		for (i = 0; i < sink->nworkers; i++) {
			LIST_HEAD(left);

			ktg_conns_close_all(&sink->workers[i], &left);
		}
	}
	if (sink->sock) {
		ktg_sock_unwatch(&sink->watch);
		/* a listener's queued children are reset here (its
		 * disconnect: inet_csk_listen_stop); it has no connection
		 * of its own to linger
		 */
		kernel_sock_shutdown(sink->sock, SHUT_RDWR);
		ktg_sock_release(sink->sock);
		sink->sock = NULL;
	}
	list_for_each_entry_safe(f, tmp, &sink->uflows, node)
		ktg_uflow_free(sink, f);
	kvfree(sink->uflow_hash);
	sink->uflow_hash = NULL;
	for (i = 0; i < sink->nslots; i++)
		kvfree(sink->workers[i].buf);
	kfree(sink->workers);
	sink->workers = NULL;
	sink->nslots = 0;
	sink->nworkers = 0;
	/* the workers are gone: the address space is the owner's again */
	if (sink->mm) {
		mmput(sink->mm);
		sink->mm = NULL;
	}
}

void ktg_sink_put(struct ktg_sink *sink)
{
	if (!refcount_dec_and_test(&sink->ref))
		return;
	free_cpumask_var(sink->p.cpus);
	ktg_mem_uncharge(sink->charged);
	kfree_rcu(sink, rcu);
}

/* Its owner's socket closed: the sink goes, unless a delete took it out
 * of its table first (and then cancels this work or waits for it). Out of
 * its table, it is on the namespace's dying list until its sockets are
 * released: the namespace's pre_exit (and so rmmod) waits for that.
 */
static void ktg_sink_owner_work(struct work_struct *work)
{
	struct ktg_sink *sink = container_of(work, struct ktg_sink, owner_work);
	struct ktg_net *kn = sink->kn;
	bool listed;

	mutex_lock(&kn->lock);
	listed = xa_load(&kn->sinks, sink->id) == sink;
	if (listed) {
		ktg_net_unreserve(kn, false, sink->id);
		spin_lock(&kn->dying_lock);
		list_add_tail(&sink->node, &kn->sinks_dying);
		spin_unlock(&kn->dying_lock);
	}
	mutex_unlock(&kn->lock);
	if (listed) {
		if (unlikely(ktg_test_hook(owner_delay_ms)))
			msleep(min(ktg_test_hook(owner_delay_ms), 10000U));
		ktg_sink_shutdown(sink);
		/* The last touch of @kn: pre_exit may free it as soon as the
		 * list is empty (a mutex's unlock could still touch it then).
		 */
		spin_lock(&kn->dying_lock);
		list_del(&sink->node);
		spin_unlock(&kn->dying_lock);
		ktg_sink_put(sink);	/* the table's */
	}
	ktg_sink_put(sink);		/* the work's */
}

/* Workers of a sink: TCP a worker per CPU; UDP one socket, one worker. */
u32 ktg_sink_slots(const struct ktg_sink_params *p)
{
	return p->proto == KTGEN_PROTO_TCP ? cpumask_weight(p->cpus) : 1;
}

/*
 * rx user: the workers receive into the requester's memory, a slice each.
 * The request runs in the requester's context: hold its address space
 * until the sink goes, and clear the memory now, so that it is known to be
 * writable and faulted in before the first byte arrives. -EFAULT: it is
 * not the requester's to write.
 */
static int ktg_sink_user_mem(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	sink->mm = get_task_mm(current);
	if (!sink->mm) {
		NL_SET_ERR_MSG(extack, "rx user needs a requester with an address space");
		return -EINVAL;
	}
	if (clear_user(u64_to_user_ptr(sink->p.user_buf),
		       (u64)sink->nslots * KTG_RX_BUF))
		return -EFAULT;
	return 0;
}

/* What the sink may make the kernel hold, charged up front: its workers'
 * receive buffers and the connections or UDP senders it may track.
 */
static int ktg_sink_charge(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	const struct ktg_sink_params *p = &sink->p;
	u64 bytes = (u64)ktg_sink_slots(p) * (sizeof(struct ktg_worker) + KTG_RX_BUF);
	int err;

	if (p->proto == KTGEN_PROTO_TCP)
		bytes += (u64)p->max_conns * sizeof(struct ktg_conn);
	else
		bytes += (u64)p->max_conns * sizeof(struct ktg_uflow) +
			 ((u64)sizeof(struct hlist_head) << max(order_base_2(p->max_conns), 1));
	err = ktg_mem_charge(bytes);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "the sink's buffers and connection state exceed the module's budget (ktgen config)");
		return err;
	}
	sink->charged = bytes;
	return 0;
}

/* A sink with @p (and its cpumask) and one reference; NULL without
 * memory, the cpumask freed.
 */
static struct ktg_sink *ktg_sink_alloc(struct ktg_net *kn, struct ktg_sink_params *p)
{
	struct ktg_sink *sink = kzalloc(sizeof(*sink), GFP_KERNEL);

	if (!sink) {
		free_cpumask_var(p->cpus);	/* ours from the call on */
		return NULL;
	}
	refcount_set(&sink->ref, 1);
	INIT_WORK(&sink->owner_work, ktg_sink_owner_work);
	sink->kn = kn;
	sink->p = *p;			/* takes over the cpumask */
	INIT_LIST_HEAD(&sink->uflows);
	INIT_LIST_HEAD(&sink->pending);
	ktg_rx_stats_init(&sink->stats);
	sink->token = get_random_u64();
	return sink;
}

/* What the sink holds before its socket: its id, its budget, the workers'
 * array, a UDP sink's flow table, an rx user sink's memory. On an error
 * the caller unreserves the id and puts the sink, which releases the rest.
 */
static int ktg_sink_prepare(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	const struct ktg_sink_params *p = &sink->p;
	int err;

	err = ktg_net_reserve(sink->kn, false, &sink->id, extack);
	if (err)
		return err;
	err = ktg_sink_charge(sink, extack);
	if (err)
		return err;
	sink->nslots = ktg_sink_slots(p);
	sink->workers = kcalloc(sink->nslots, sizeof(*sink->workers), GFP_KERNEL);
	if (!sink->workers) {
		sink->nslots = 0;
		NL_SET_ERR_MSG(extack, "no memory for the sink");
		return -ENOMEM;
	}
	if (p->proto != KTGEN_PROTO_TCP) {
		/* a bucket per sender at most, so lookups stay O(1) */
		sink->uflow_bits = max(order_base_2(p->max_conns), 1);
		sink->uflow_hash = kvcalloc(BIT(sink->uflow_bits), sizeof(*sink->uflow_hash),
					    GFP_KERNEL);
		if (!sink->uflow_hash) {
			NL_SET_ERR_MSG(extack, "no memory for the sink's flow table");
			return -ENOMEM;
		}
		get_random_bytes(&sink->uflow_key, sizeof(sink->uflow_key));
	}
	if (p->rx_mode == KTGEN_RX_MODE_USER)
		return ktg_sink_user_mem(sink, extack);
	return 0;
}

/* A worker on each of the sink's CPUs, as many as it has slots. */
static int ktg_sink_workers(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	const struct ktg_sink_params *p = &sink->p;
	bool tcp = p->proto == KTGEN_PROTO_TCP;
	int cpu, err;

	for_each_cpu(cpu, p->cpus) {
		struct ktg_worker *w = &sink->workers[sink->nworkers];

		if (sink->nworkers == sink->nslots)
			break;
		ktg_worker_init(w, sink);
		w->busy_poll_ns = (u64)p->busy_poll_us * NSEC_PER_USEC;
		if (sink->mm) {
			w->mm = sink->mm;
			w->ubuf = u64_to_user_ptr(p->user_buf +
						  (u64)sink->nworkers * KTG_RX_BUF);
		}
		w->buf = kvmalloc(KTG_RX_BUF, GFP_KERNEL);
		if (!w->buf) {
			NL_SET_ERR_MSG(extack, "no memory for the sink's receive buffers");
			return -ENOMEM;
		}
		err = ktg_worker_start(w, cpu, tcp ? ktg_sink_tcp_worker :
				       ktg_sink_udp_worker, "sink", sink->id);
		if (err == -ENODEV) {
			NL_SET_ERR_MSG(extack, "a CPU of the sink went offline");
			return err;
		} else if (err) {
			NL_SET_ERR_MSG(extack, "cannot start the sink's workers");
			return err;
		}
		/* read by the TCP workers meanwhile (READ_ONCE) */
		WRITE_ONCE(sink->nworkers, sink->nworkers + 1);
	}
	return 0;
}

int ktg_sink_create(struct ktg_net *kn, struct ktg_sink_params *p,
		    struct ktg_sink **sinkp, struct netlink_ext_ack *extack)
{
	struct ktg_sink *sink;
	int err;

	sink = ktg_sink_alloc(kn, p);
	if (!sink) {
		NL_SET_ERR_MSG(extack, "no memory for the sink");
		return -ENOMEM;
	}
	err = ktg_sink_prepare(sink, extack);
	if (!err)
		err = ktg_sink_socket(kn, sink, extack);
	if (!err)
		err = ktg_sink_workers(sink, extack);
	if (err)
		goto err_free;
	ktg_sock_watch(&sink->watch, sink->sock, &sink->workers[0]);
	*sinkp = sink;
	return 0;

err_free:
	/* The workers have not seen the socket: stop them first. */
	ktg_sink_shutdown(sink);
	if (sink->id) {
		mutex_lock(&kn->lock);
		ktg_net_unreserve(kn, false, sink->id);
		mutex_unlock(&kn->lock);
	}
	ktg_sink_put(sink);
	return err;
}

/* Listed under its id; an rx user sink, unless detached, is its
 * creator's socket's: it holds that process's memory for it.
 */
void ktg_sink_publish(struct ktg_sink *sink)
{
	struct ktg_net *kn = sink->kn;

	mutex_lock(&kn->lock);
	xa_store(&kn->sinks, sink->id, sink, GFP_KERNEL);
	if (sink->p.rx_mode == KTGEN_RX_MODE_USER && !sink->p.detach) {
		ktg_net_owner_add(kn, sink->p.portid);
		sink->owned = true;
	}
	mutex_unlock(&kn->lock);
}

/* Built but never listed (its reply could not be made): it goes. */
void ktg_sink_discard(struct ktg_sink *sink)
{
	mutex_lock(&sink->kn->lock);
	ktg_net_unreserve(sink->kn, false, sink->id);
	mutex_unlock(&sink->kn->lock);
	ktg_sink_destroy(sink);
}

/* Out of its table already: the sink stops and goes with the last
 * reader. An owner's work still pending for it has nothing left to do.
 */
void ktg_sink_destroy(struct ktg_sink *sink)
{
	if (cancel_work_sync(&sink->owner_work))
		ktg_sink_put(sink);
	ktg_sink_shutdown(sink);
	ktg_sink_put(sink);
}

/* The sink @id with a reference, or NULL. */
struct ktg_sink *ktg_sink_get(struct ktg_net *kn, u32 id)
{
	struct ktg_sink *sink;

	rcu_read_lock();
	sink = xa_load(&kn->sinks, id);
	if (sink && !refcount_inc_not_zero(&sink->ref))
		sink = NULL;
	rcu_read_unlock();
	return sink;
}

/* The first sink from id @*id on, with a reference (a dump's cursor). */
struct ktg_sink *ktg_sink_get_next(struct ktg_net *kn, unsigned long *id)
{
	struct ktg_sink *sink;

	rcu_read_lock();
	for (;;) {
		sink = xa_find(&kn->sinks, id, ULONG_MAX, XA_PRESENT);
		if (!sink || refcount_inc_not_zero(&sink->ref))
			break;
		(*id)++;
	}
	rcu_read_unlock();
	return sink;
}

/* Out of its table (the caller holds kn->lock): no lookup finds it. */
static void ktg_sink_unlist(struct ktg_net *kn, struct ktg_sink *sink)
{
	ktg_net_unreserve(kn, false, sink->id);
	if (sink->owned) {
		ktg_net_owner_del(kn, sink->p.portid);
		sink->owned = false;
	}
}

int ktg_sink_del(struct ktg_net *kn, u32 id)
{
	struct ktg_sink *sink;

	mutex_lock(&kn->lock);
	sink = xa_load(&kn->sinks, id);
	if (sink)
		ktg_sink_unlist(kn, sink);
	mutex_unlock(&kn->lock);
	if (!sink)
		return -ENOENT;
	ktg_sink_destroy(sink);
	return 0;
}

void ktg_sinks_destroy_all(struct ktg_net *kn)
{
	struct ktg_sink *sink, *tmp;
	unsigned long id;
	LIST_HEAD(dead);

	mutex_lock(&kn->lock);
	xa_for_each(&kn->sinks, id, sink) {
		ktg_sink_unlist(kn, sink);
		list_add_tail(&sink->node, &dead);
	}
	mutex_unlock(&kn->lock);
	list_for_each_entry_safe(sink, tmp, &dead, node) {
		ktg_sink_destroy(sink);
		cond_resched();
	}
}

/* The namespace goes: the owner works still tearing a sink down are done
 * before its state (and the net its sockets are in) can be freed.
 */
void ktg_sinks_wait_dying(struct ktg_net *kn)
{
	struct ktg_sink *sink;

	for (;;) {
		spin_lock(&kn->dying_lock);
		sink = list_first_entry_or_null(&kn->sinks_dying, struct ktg_sink, node);
		if (sink)
			refcount_inc(&sink->ref);
		spin_unlock(&kn->dying_lock);
		if (!sink)
			return;
		flush_work(&sink->owner_work);
		ktg_sink_put(sink);
	}
}

/*
 * The socket that created these rx user sinks is gone: they go too, in a
 * work of their own (a worker may be slow to stop in user memory, and the
 * closing process need not wait for it). A socket that owns nothing
 * returns at once, without the lock.
 */
void ktg_sinks_owner_gone(struct ktg_net *kn, u32 portid)
{
	struct ktg_sink *sink;
	unsigned long id;

	if (!ktg_net_owns(kn, portid))
		return;
	mutex_lock(&kn->lock);
	xa_for_each(&kn->sinks, id, sink) {
		if (!sink->owned || sink->p.portid != portid)
			continue;
		ktg_net_owner_del(kn, portid);
		sink->owned = false;
		refcount_inc(&sink->ref);	/* the work's */
		queue_work(ktg_wq, &sink->owner_work);
	}
	mutex_unlock(&kn->lock);
}
