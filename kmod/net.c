// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state.
 */
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "ktgen.h"

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
	INIT_LIST_HEAD(&kn->sinks);
	INIT_LIST_HEAD(&kn->runs);
	return 0;
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

/* Kernel sockets do not pin their namespace: runs and sinks go before it
 * does (and before the module, which unregisters this on unload).
 */
static void __net_exit ktg_net_pre_exit(struct net *net)
{
	struct ktg_net *kn = ktg_pernet(net);

	WRITE_ONCE(kn->exiting, true);
	ktg_runs_destroy_all(kn);
	mutex_lock(&kn->lock);
	ktg_sinks_destroy_all(kn);
	mutex_unlock(&kn->lock);
}

static void __net_exit ktg_net_exit(struct net *net)
{
	struct ktg_net *kn = ktg_pernet(net);

	WARN_ON_ONCE(!list_empty(&kn->sinks) || !list_empty(&kn->runs));
	mutex_destroy(&kn->lock);
}

static struct pernet_operations ktg_net_ops = {
	.init		= ktg_net_init,
	.pre_exit	= ktg_net_pre_exit,
	.exit		= ktg_net_exit,
	.id		= &ktg_net_id,
	.size		= sizeof(struct ktg_net),
};

int ktg_pernet_init(void)
{
	return register_pernet_subsys(&ktg_net_ops);
}

void ktg_pernet_exit(void)
{
	unregister_pernet_subsys(&ktg_net_ops);
}
