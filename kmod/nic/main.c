// SPDX-License-Identifier: GPL-2.0
/*
 * ktgen_nic.ko: the virtual NIC pair (link kind "ktgen-nic", nic.h says how
 * it works), its module's load and unload, and the budget its receive
 * rings' pages are held against.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sizes.h>

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

static DEFINE_MUTEX(ktg_nic_mem_lock);
static u64 ktg_nic_mem_limit;		/* 0 until set or defaulted at load */
static u64 ktg_nic_mem_held;

int ktg_nic_charge(u64 bytes)
{
	int err = 0;

	mutex_lock(&ktg_nic_mem_lock);
	if (bytes > ktg_nic_mem_limit - ktg_nic_mem_held)
		err = -ENOSPC;
	else
		ktg_nic_mem_held += bytes;
	mutex_unlock(&ktg_nic_mem_lock);
	return err;
}

void ktg_nic_uncharge(u64 bytes)
{
	mutex_lock(&ktg_nic_mem_lock);
	if (!WARN_ON_ONCE(bytes > ktg_nic_mem_held))
		ktg_nic_mem_held -= bytes;
	mutex_unlock(&ktg_nic_mem_lock);
}

static int ktg_nic_budget_set(const char *val, const struct kernel_param *kp)
{
	char *end;
	u64 v = memparse(val, &end);
	int err = 0;

	if (end == val || (*end && strcmp(end, "\n")) ||
	    v < KTG_NIC_BUDGET_MIN || v > KTG_NIC_BUDGET_MAX)
		return -EINVAL;
	mutex_lock(&ktg_nic_mem_lock);
	if (v < ktg_nic_mem_held)
		err = -EBUSY;
	else
		ktg_nic_mem_limit = v;
	mutex_unlock(&ktg_nic_mem_lock);
	return err;
}

static int ktg_nic_budget_get(char *buf, const struct kernel_param *kp)
{
	u64 v;

	mutex_lock(&ktg_nic_mem_lock);
	v = *(u64 *)kp->arg;
	mutex_unlock(&ktg_nic_mem_lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static int ktg_nic_read_only(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops ktg_nic_budget_ops = {
	.set	= ktg_nic_budget_set,
	.get	= ktg_nic_budget_get,
};

static const struct kernel_param_ops ktg_nic_held_ops = {
	.set	= ktg_nic_read_only,
	.get	= ktg_nic_budget_get,
};

module_param_cb(budget, &ktg_nic_budget_ops, &ktg_nic_mem_limit, 0644);
MODULE_PARM_DESC(budget, "Bytes the receive rings of all pairs may hold (K/M/G); default 1G or a quarter of memory");

module_param_cb(budget_used, &ktg_nic_held_ops, &ktg_nic_mem_held, 0444);
MODULE_PARM_DESC(budget_used, "Bytes the receive rings hold now");

/* The default budget, unless given at load. */
static void ktg_nic_budget_init(void)
{
	u64 quarter = round_down(((u64)totalram_pages() << PAGE_SHIFT) / 4, SZ_1M);

	if (!ktg_nic_mem_limit)
		ktg_nic_mem_limit = clamp_t(u64, quarter, KTG_NIC_BUDGET_MIN, SZ_1G);
}

static int __init ktg_nic_init(void)
{
	ktg_nic_budget_init();
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
