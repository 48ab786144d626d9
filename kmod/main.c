// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen: in-kernel TCP/UDP traffic generator and sink with selectable copy
 * paths, configured over generic netlink (family "ktgen").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/genetlink.h>
#include <linux/ktgen.h>

#include "copy.h"
#include "cpu.h"
#include "ktgen.h"
#include "mem.h"
#include "netlink.h"

struct workqueue_struct *ktg_wq;

static int __init ktg_init(void)
{
	int err;

	ktg_mem_init();
	err = ktg_cpu_init();
	if (err)
		return err;
	ktg_splice_selftest();

	ktg_wq = alloc_workqueue("ktgen", WQ_UNBOUND, 0);
	if (!ktg_wq)
		return -ENOMEM;

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
}

module_init(ktg_init);
module_exit(ktg_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel TCP/UDP traffic generator and sink");
MODULE_VERSION(KTGEN_VERSION);
MODULE_ALIAS_GENL_FAMILY(KTGEN_FAMILY_NAME);
