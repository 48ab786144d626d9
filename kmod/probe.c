// SPDX-License-Identifier: GPL-2.0
/*
 * Copy probes: whether the stack's own non-temporal user copy ran, seen
 * from the stack's side. A kprobe on the kernel's copy routine (x86:
 * __copy_user_nocache, reached only from copy_from_iter_nocache() on user
 * memory, i.e. tcp_sendmsg() with tx-nocache-copy; renamed
 * copy_to_nontemporal in later kernels, so each name is tried) counts its
 * calls on every CPU while any run asked for it. A probe hit is a trap:
 * runs that want clean numbers leave it off. The receive path probes
 * (probe-rx) follow.
 */
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <net/netlink.h>

#include "probe.h"

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

/*
 * Receive path probes (a run's probe-rx): how drivers build the skbs they
 * receive, by kprobes on the kernel's skb-building functions, counted per
 * CPU on every CPU while any run asked for them. Each counter has its
 * slots (a function, under one of the names it had), registered one by
 * one: a counter is available when every slot it needs was placed. A
 * function this kernel inlines or lacks cannot be probed, and its counter
 * is then reported as not available rather than as 0.
 */
static DEFINE_PER_CPU(u64 [KTG_RXP_N], ktg_rxp_hits);
static DEFINE_MUTEX(ktg_rxp_lock);	/* users, registration */
static unsigned int ktg_rxp_users;
static u32 ktg_rxp_avail;

#ifdef CONFIG_KPROBES
/* Inside napi_get_frags(): its own skb allocation is not a copy path's. */
static DEFINE_PER_CPU(unsigned int, ktg_rxp_in_frags);

struct ktg_rxp_slot {
	const char	*names[2];	/* as this kernel may call it */
	u8		counter;	/* enum ktg_rxp */
	bool		optional;	/* absent before its kernel: no loss */
	bool		ret;		/* a kretprobe */
	bool		placed;
	union {
		struct kprobe		kp;
		struct kretprobe	rp;
	};
};

static struct ktg_rxp_slot ktg_rxp_slots[] = {
	{ { "build_skb" },			KTG_RXP_BUILD },
	{ { "napi_build_skb" },			KTG_RXP_BUILD, .optional = true },	/* 5.12 */
	{ { "build_skb_around" },		KTG_RXP_BUILD },
	{ { "__netdev_alloc_skb" },		KTG_RXP_ALLOC },
	{ { "__napi_alloc_skb", "napi_alloc_skb" }, KTG_RXP_ALLOC },	/* renamed in 6.x */
	{ { "napi_get_frags" },			KTG_RXP_GET_FRAGS, .ret = true },
	{ { "skb_add_rx_frag", "skb_add_rx_frag_netmem" }, KTG_RXP_ADD_FRAG },
	{ { "skb_gro_receive" },		KTG_RXP_GRO_MERGED, .ret = true },
	{ { "skb_gro_receive_list" },		KTG_RXP_GRO_MERGED, .ret = true,
						.optional = true },
};

static int ktg_rxp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct ktg_rxp_slot *s = container_of(kp, struct ktg_rxp_slot, kp);

	if (s->counter != KTG_RXP_ALLOC || !this_cpu_read(ktg_rxp_in_frags))
		this_cpu_inc(ktg_rxp_hits[s->counter]);
	return 0;
}

/* napi_get_frags() enters, and returns on the CPU it entered (NAPI). */
static int ktg_rxp_frags_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_inc(ktg_rxp_hits[KTG_RXP_GET_FRAGS]);
	this_cpu_inc(ktg_rxp_in_frags);
	return 0;
}

static int ktg_rxp_frags_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_dec(ktg_rxp_in_frags);
	return 0;
}

/* A GRO merge attempt returns: 0 is a merge. */
static int ktg_rxp_gro_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!regs_return_value(regs))
		this_cpu_inc(ktg_rxp_hits[KTG_RXP_GRO_MERGED]);
	return 0;
}

static int ktg_rxp_place(struct ktg_rxp_slot *s, const char *name)
{
	if (!s->ret) {
		/* a used kprobe is not registered again: start clean */
		s->kp = (struct kprobe) {
			.symbol_name	= name,
			.pre_handler	= ktg_rxp_pre,
		};
		return register_kprobe(&s->kp);
	}
	s->rp = (struct kretprobe) {
		.kp.symbol_name	= name,
		.handler	= s->counter == KTG_RXP_GET_FRAGS ?
				  ktg_rxp_frags_ret : ktg_rxp_gro_ret,
		.entry_handler	= s->counter == KTG_RXP_GET_FRAGS ?
				  ktg_rxp_frags_entry : NULL,
	};
	return register_kretprobe(&s->rp);
}

/* Every slot that can be placed; the counters whose slots all were. */
static u32 ktg_rxp_register(void)
{
	u32 placed = 0, missing = 0;
	unsigned int i, k;
	int cpu;

	/* a napi_get_frags() that returned after the last unregistration
	 * left its CPU marked: nothing runs the handlers now
	 */
	for_each_possible_cpu(cpu)
		per_cpu(ktg_rxp_in_frags, cpu) = 0;
	for (i = 0; i < ARRAY_SIZE(ktg_rxp_slots); i++) {
		struct ktg_rxp_slot *s = &ktg_rxp_slots[i];
		int err = -ENOENT;

		for (k = 0; k < ARRAY_SIZE(s->names) && s->names[k] && err; k++)
			err = ktg_rxp_place(s, s->names[k]);
		s->placed = !err;
		if (s->placed)
			placed |= BIT(s->counter);
		else if (!s->optional)
			missing |= BIT(s->counter);
	}
	return placed & ~missing;
}

static void ktg_rxp_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ktg_rxp_slots); i++) {
		struct ktg_rxp_slot *s = &ktg_rxp_slots[i];

		if (!s->placed)
			continue;
		if (s->ret)
			unregister_kretprobe(&s->rp);
		else
			unregister_kprobe(&s->kp);
		s->placed = false;
	}
}
#else	/* User-Mode Linux has no kprobes: nothing is available */
static u32 ktg_rxp_register(void)
{
	return 0;
}

static void ktg_rxp_unregister(void)
{
}
#endif

/* Count from now on; the counters this kernel could probe (BIT(enum ktg_rxp)). */
u32 ktg_rxprobe_get(void)
{
	u32 avail;

	mutex_lock(&ktg_rxp_lock);
	if (!ktg_rxp_users++)
		ktg_rxp_avail = ktg_rxp_register();
	avail = ktg_rxp_avail;
	mutex_unlock(&ktg_rxp_lock);
	return avail;
}

void ktg_rxprobe_put(void)
{
	mutex_lock(&ktg_rxp_lock);
	if (!--ktg_rxp_users)
		ktg_rxp_unregister();
	mutex_unlock(&ktg_rxp_lock);
}

/* Calls counted so far, all CPUs, into @n[KTG_RXP_N]: a run takes the difference. */
void ktg_rxprobe_read(u64 *n)
{
	int cpu, i;

	memset(n, 0, KTG_RXP_N * sizeof(*n));
	for_each_possible_cpu(cpu)
		for (i = 0; i < KTG_RXP_N; i++)
			n[i] += per_cpu(ktg_rxp_hits[i], cpu);
}
