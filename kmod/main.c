// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen: in-kernel TCP/UDP traffic generator and sink with selectable copy
 * paths, configured over generic netlink (family "ktgen"). The module's
 * and each network namespace's init and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <linux/ktgen.h>

#include "copy.h"
#include "cpu.h"
#include "debug.h"
#include "ktgen.h"
#include "mem.h"
#include "netlink.h"
#include "pattern.h"
#include "run.h"
#include "sink.h"

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

static int ktg_pernet_init(void)
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

static void ktg_pernet_exit(void)
{
	unregister_netdevice_notifier(&ktg_net_dev_notifier);
	unregister_pernet_subsys(&ktg_net_ops);
}

static int __init ktg_init(void)
{
	int err;

	ktg_debug_init();
	ktg_mem_init();
	err = ktg_cpu_init();
	if (err)
		goto err_debug;
	ktg_splice_selftest();

	err = ktg_pattern_init();
	if (err)
		goto err_cpu;

	ktg_wq = alloc_workqueue("ktgen", WQ_UNBOUND, 0);
	if (!ktg_wq) {
		err = -ENOMEM;
		goto err_pattern;
	}

	err = ktg_pernet_init();
	if (err)
		goto err_wq;

	err = ktg_netlink_init();
	if (err)
		goto err_pernet;

	pr_info("version %s loaded\n", KTGEN_VERSION);
	return 0;

err_pernet:
	ktg_pernet_exit();
err_wq:
	destroy_workqueue(ktg_wq);
err_pattern:
	ktg_pattern_exit();
err_cpu:
	ktg_cpu_exit();
err_debug:
	ktg_debug_exit();
	return err;
}

static void __exit ktg_exit(void)
{
	/* No new requests once the family is gone; then every namespace's
	 * runs and sinks are torn down (pernet pre_exit), and their
	 * completions flushed with the workqueue.
	 */
	ktg_netlink_exit();
	ktg_pernet_exit();
	destroy_workqueue(ktg_wq);
	ktg_pattern_exit();
	ktg_cpu_exit();
	ktg_debug_exit();
}

module_init(ktg_init);
module_exit(ktg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel TCP/UDP traffic generator and sink");
MODULE_VERSION(KTGEN_VERSION);
MODULE_ALIAS_GENL_FAMILY(KTGEN_FAMILY_NAME);
