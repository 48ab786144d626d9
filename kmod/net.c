// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: ids, counts and owners of runs and sinks,
 * and the module's sockets' helpers. main.c registers it with each
 * namespace and tears the namespace's runs and sinks down.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "ktgen.h"

unsigned int ktg_net_id __read_mostly;

/* Work that may outlive a request: run completion. Flushed at unload. */
struct workqueue_struct *ktg_wq;

struct ktg_net *ktg_pernet(const struct net *net)
{
	return net_generic(net, ktg_net_id);
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
