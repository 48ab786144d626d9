// SPDX-License-Identifier: GPL-2.0
/*
 * Copy probes: whether the stack's own non-temporal user copy ran, seen
 * from the stack's side. A kprobe on the kernel's copy routine (x86:
 * __copy_user_nocache, reached only from copy_from_iter_nocache() on user
 * memory, i.e. tcp_sendmsg() with tx-nocache-copy; renamed
 * copy_to_nontemporal in later kernels, so each name is tried) counts its
 * calls on every CPU while any run asked for it. A probe hit is a trap:
 * runs that want clean numbers leave it off.
 */
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include "ktgen.h"

static DEFINE_PER_CPU(u64, ktg_nocache_hits);
static DEFINE_MUTEX(ktg_probe_lock);	/* users, registration */
static unsigned int ktg_probe_users;

#ifdef CONFIG_KPROBES
static const char * const ktg_nocache_syms[] = {
	"__copy_user_nocache",
	"copy_to_nontemporal",
};

static int ktg_nocache_pre(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(ktg_nocache_hits);
	return 0;
}

static struct kprobe ktg_nocache_kp;

static int ktg_probe_register(void)
{
	int i, err = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(ktg_nocache_syms) && err; i++) {
		/* a used kprobe is not registered again: start clean */
		ktg_nocache_kp = (struct kprobe) {
			.symbol_name	= ktg_nocache_syms[i],
			.pre_handler	= ktg_nocache_pre,
		};
		err = register_kprobe(&ktg_nocache_kp);
	}
	return err;
}

static void ktg_probe_unregister(void)
{
	unregister_kprobe(&ktg_nocache_kp);
}
#else	/* User-Mode Linux has no kprobes */
static int ktg_probe_register(void)
{
	return -EOPNOTSUPP;
}

static void ktg_probe_unregister(void)
{
}
#endif

/* Count from now on; -errno when this kernel cannot be probed there. */
int ktg_probe_get(struct netlink_ext_ack *extack)
{
	int err = 0;

	mutex_lock(&ktg_probe_lock);
	if (!ktg_probe_users)
		err = ktg_probe_register();
	if (!err)
		ktg_probe_users++;
	mutex_unlock(&ktg_probe_lock);
	if (err)
		NL_SET_ERR_MSG(extack, "cannot probe the kernel's nocache user copy");
	return err;
}

void ktg_probe_put(void)
{
	mutex_lock(&ktg_probe_lock);
	if (!--ktg_probe_users)
		ktg_probe_unregister();
	mutex_unlock(&ktg_probe_lock);
}

/* Calls counted so far, all CPUs: a run takes the difference. */
u64 ktg_probe_nocache_hits(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(ktg_nocache_hits, cpu);
	return sum;
}
