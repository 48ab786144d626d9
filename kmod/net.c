// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "ktgen.h"
#include "run.h"
#include "sink.h"

static unsigned int ktg_net_id __read_mostly;

struct ktg_net *ktg_pernet(const struct net *net)
{
	return net_generic(net, ktg_net_id);
}

static int __net_init ktg_net_init(struct net *net)
{
	struct ktg_net *kn = ktg_pernet(net);

	kn->net = net;
	mutex_init(&kn->lock);
	xa_init_flags(&kn->sinks, XA_FLAGS_ALLOC1);
	xa_init_flags(&kn->runs, XA_FLAGS_ALLOC1);
	xa_init(&kn->owners);
	INIT_LIST_HEAD(&kn->sinks_dying);
	spin_lock_init(&kn->dying_lock);
	return 0;
}

/*
 * An id for a run or sink being built, within the namespace's limit on
 * them: a zero entry that lookups do not see until the object is
 * published there, and ids that do not come back soon (cyclic), so that
 * a stale id names nothing rather than a newer object.
 */
int ktg_net_reserve(struct ktg_net *kn, bool run, u32 *id, struct netlink_ext_ack *extack)
{
	u32 *n = run ? &kn->nruns : &kn->nsinks;
	u32 limit = run ? ktg_max_runs() : ktg_max_sinks();
	int err;

	mutex_lock(&kn->lock);
	if (*n >= limit) {
		if (run)
			NL_SET_ERR_MSG(extack,
				       "this namespace holds as many runs as it may (ktgen config max-runs)");
		else
			NL_SET_ERR_MSG(extack,
				       "this namespace holds as many sinks as it may (ktgen config max-sinks)");
		err = -ENOSPC;
		goto out;
	}
	err = xa_alloc_cyclic(run ? &kn->runs : &kn->sinks, id, NULL, xa_limit_32b,
			      run ? &kn->next_run_id : &kn->next_sink_id, GFP_KERNEL);
	if (err < 0) {
		NL_SET_ERR_MSG(extack, "no free id");
		goto out;
	}
	err = 0;
	(*n)++;
out:
	mutex_unlock(&kn->lock);
	return err;
}

/* An id reserved, or an object taken out of its table: its count. */
void ktg_net_unreserve(struct ktg_net *kn, bool run, u32 id)
{
	lockdep_assert_held(&kn->lock);
	xa_erase(run ? &kn->runs : &kn->sinks, id);
	if (run)
		kn->nruns--;
	else
		kn->nsinks--;
}

/*
 * What each generic netlink socket owns (runs that stop when it closes):
 * a count by portid, so that the close of a socket that owns nothing, the
 * common case and other tools' sockets too, takes no lock.
 */
void ktg_net_owner_add(struct ktg_net *kn, u32 portid)
{
	unsigned long n;

	lockdep_assert_held(&kn->lock);
	n = xa_to_value(xa_load(&kn->owners, portid) ?: xa_mk_value(0));
	/* no memory: every close takes the lock and looks from now on */
	if (xa_is_err(xa_store(&kn->owners, portid, xa_mk_value(n + 1), GFP_KERNEL)))
		WRITE_ONCE(kn->owners_lost, true);
}

void ktg_net_owner_del(struct ktg_net *kn, u32 portid)
{
	void *v;

	lockdep_assert_held(&kn->lock);
	v = xa_load(&kn->owners, portid);
	if (!v)
		return;
	/* replacing an entry allocates nothing */
	if (xa_to_value(v) <= 1)
		xa_erase(&kn->owners, portid);
	else
		xa_store(&kn->owners, portid, xa_mk_value(xa_to_value(v) - 1), GFP_KERNEL);
}

bool ktg_net_owns(struct ktg_net *kn, u32 portid)
{
	return READ_ONCE(kn->owners_lost) || xa_load(&kn->owners, portid);
}

/*
 * Release a module socket. In a namespace on its way out the close is
 * abortive (linger 0: a reset, no state left behind): a kernel socket does
 * not pin its namespace, and an orderly close would leave the connection
 * retransmitting its FIN from timers that outlive the namespace (a
 * use-after-free of the net, seen when a peer's namespace went first).
 */
void ktg_sock_release(struct socket *sock)
{
	if (READ_ONCE(ktg_pernet(sock_net(sock->sk))->exiting))
		sock_no_linger(sock->sk);
	sock_release(sock);
}

int ktg_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

__be16 ktg_addr_port(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port :
		((const struct sockaddr_in *)ss)->sin_port;
}

/* Kernel sockets do not pin their namespace: runs and sinks go before it
 * does (and before the module, which unregisters this on unload), those
 * an owner's work is tearing down too.
 */
static void __net_exit ktg_net_pre_exit(struct net *net)
{
	struct ktg_net *kn = ktg_pernet(net);

	WRITE_ONCE(kn->exiting, true);
	ktg_runs_destroy_all(kn);
	ktg_sinks_destroy_all(kn);
	ktg_sinks_wait_dying(kn);
}

static void __net_exit ktg_net_exit(struct net *net)
{
	struct ktg_net *kn = ktg_pernet(net);

	WARN_ON_ONCE(!xa_empty(&kn->sinks) || !xa_empty(&kn->runs) ||
		     !xa_empty(&kn->owners) || !list_empty(&kn->sinks_dying));
	xa_destroy(&kn->owners);
	mutex_destroy(&kn->lock);
}

static struct pernet_operations ktg_net_ops = {
	.init		= ktg_net_init,
	.pre_exit	= ktg_net_pre_exit,
	.exit		= ktg_net_exit,
	.id		= &ktg_net_id,
	.size		= sizeof(struct ktg_net),
};

/* A device going away ends the runs bound to it. */
static int ktg_net_dev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_UNREGISTER)
		ktg_runs_dev_gone(ktg_pernet(dev_net(dev)), dev->ifindex);
	return NOTIFY_DONE;
}

static struct notifier_block ktg_net_dev_notifier = {
	.notifier_call = ktg_net_dev_event,
};

int ktg_pernet_init(void)
{
	int err;

	err = register_pernet_subsys(&ktg_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&ktg_net_dev_notifier);
	if (err)
		unregister_pernet_subsys(&ktg_net_ops);
	return err;
}

void ktg_pernet_exit(void)
{
	unregister_netdevice_notifier(&ktg_net_dev_notifier);
	unregister_pernet_subsys(&ktg_net_ops);
}
