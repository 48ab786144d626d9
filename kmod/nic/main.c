// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen_nic.ko: the virtual NIC pair (link kind "ktgen-nic", nic.h says how
 * it works), its module's load and unload, and the budget its receive
 * rings' pages are held against.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "budget.h"
#include "nic.h"

/*
 * The receive rings of every pair hold a page a descriptor while their
 * device is up: not reclaimable, so held against a budget as ktgen.ko's
 * runs and sinks are against its own. 1 GiB, or a quarter of the memory
 * of a smaller machine; root changes it at
 * /sys/module/ktgen_nic/parameters/budget (bytes, K/M/G; never below what
 * is held) and reads what is held at budget_used.
 */
#define KTG_NIC_BUDGET_MIN	SZ_1M
#define KTG_NIC_BUDGET_MAX	(64ULL * SZ_1G)

static struct ktg_budget ktg_nic_budget = KTG_BUDGET_INIT(ktg_nic_budget, 0);

int ktg_nic_charge(u64 bytes)
{
	return ktg_budget_charge(&ktg_nic_budget, bytes);
}

void ktg_nic_uncharge(u64 bytes)
{
	ktg_budget_uncharge(&ktg_nic_budget, bytes);
}

static int ktg_nic_budget_set(const char *val, const struct kernel_param *kp)
{
	char *end;
	u64 v = memparse(val, &end);

	if (end == val || (*end && strcmp(end, "\n")) ||
	    v < KTG_NIC_BUDGET_MIN || v > KTG_NIC_BUDGET_MAX)
		return -EINVAL;
	return ktg_budget_set(&ktg_nic_budget, v);
}

static int ktg_nic_budget_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", ktg_budget_limit(&ktg_nic_budget));
}

static int ktg_nic_held_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int ktg_nic_held_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", ktg_budget_held(&ktg_nic_budget));
}

static const struct kernel_param_ops ktg_nic_budget_ops = {
	.set	= ktg_nic_budget_set,
	.get	= ktg_nic_budget_get,
};

static const struct kernel_param_ops ktg_nic_held_ops = {
	.set	= ktg_nic_held_set,
	.get	= ktg_nic_held_get,
};

module_param_cb(budget, &ktg_nic_budget_ops, NULL, 0644);
MODULE_PARM_DESC(budget, "Bytes the receive rings of all pairs may hold (K/M/G); default 1G or a quarter of memory");
module_param_cb(budget_used, &ktg_nic_held_ops, NULL, 0444);
MODULE_PARM_DESC(budget_used, "Bytes the receive rings hold now");

static int __init ktg_nic_init(void)
{
	/* The default, unless given at load. */
	if (!ktg_budget_limit(&ktg_nic_budget))
		ktg_budget_set(&ktg_nic_budget, ktg_budget_default(KTG_NIC_BUDGET_MIN));
	return rtnl_link_register(&ktg_nic_link_ops);
}

/* The core deletes every pair, in every namespace, before it returns. */
static void __exit ktg_nic_exit(void)
{
	rtnl_link_unregister(&ktg_nic_link_ops);
}

module_init(ktg_nic_init);
module_exit(ktg_nic_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Virtual NIC pair with hardware drivers' receive styles, for ktgen");
MODULE_VERSION(KTGEN_VERSION);
MODULE_ALIAS_RTNL_LINK(KTG_NIC_KIND);
