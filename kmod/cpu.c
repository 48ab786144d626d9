// SPDX-License-Identifier: GPL-2.0
/*
 * CPU cost of a run: every online CPU bracketed over the run's measured
 * window, reported for the run's CPUs and for the others apart.
 *
 * Cycles come from a pinned hardware counter per CPU where there is a PMU.
 * Where there is none (most VMs: the counter's creation fails with ENOENT)
 * the cost is busy time from the kernel's per-CPU accounting, with cycles
 * estimated from the TSC rate. The module parameter cpu_event=sw runs the
 * counter path with a software event (cpu-clock) standing in, so that the
 * path is tested where no PMU exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "cpu.h"

static char *cpu_event = "cycles";
module_param(cpu_event, charp, 0444);
MODULE_PARM_DESC(cpu_event, "CPU cost counter: cycles (PMU, else busy time) or sw (test)");

static bool ktg_have_pmu;
static u32 ktg_method;

bool ktg_cpu_have_pmu(void)
{
	return ktg_have_pmu;
}

static struct perf_event_attr ktg_cycles_attr = {
	.type		= PERF_TYPE_HARDWARE,
	.config		= PERF_COUNT_HW_CPU_CYCLES,
	.size		= sizeof(struct perf_event_attr),
	.pinned		= 1,
	.disabled	= 1,
};

static struct perf_event_attr ktg_sw_attr = {
	.type		= PERF_TYPE_SOFTWARE,
	.config		= PERF_COUNT_SW_CPU_CLOCK,
	.size		= sizeof(struct perf_event_attr),
	.pinned		= 1,
	.disabled	= 1,
};

static struct perf_event_attr *ktg_cpu_attr(void)
{
	return ktg_method == KTGEN_CPU_METHOD_SW_EVENT ? &ktg_sw_attr : &ktg_cycles_attr;
}

/* Probe once: a hardware cycle counter on one online CPU. */
int ktg_cpu_init(void)
{
	struct perf_event *ev;

	ev = ktg_perf_counter(&ktg_cycles_attr, cpumask_first(cpu_online_mask));
	ktg_have_pmu = !IS_ERR(ev);
	if (ktg_have_pmu)
		perf_event_release_kernel(ev);

	if (!strcmp(cpu_event, "sw") && !IS_ENABLED(CONFIG_PERF_EVENTS)) {
		pr_err("cpu_event=sw: this kernel has no perf events\n");
		return -EOPNOTSUPP;
	} else if (!strcmp(cpu_event, "sw")) {
		ktg_method = KTGEN_CPU_METHOD_SW_EVENT;
	} else if (!strcmp(cpu_event, "cycles")) {
		ktg_method = ktg_have_pmu ? KTGEN_CPU_METHOD_PMU_CYCLES :
					    KTGEN_CPU_METHOD_BUSY_TIME;
	} else {
		pr_err("cpu_event=%s: expected cycles or sw\n", cpu_event);
		return -EINVAL;
	}
	return 0;
}

/* Busy time of @cpu in ns: what /proc/stat calls user, nice, system, irq
 * and softirq (guest time is inside user); idle, iowait and steal are not.
 */
static u64 ktg_cpu_busy_ns(int cpu)
{
	struct kernel_cpustat kcs;

	kcpustat_cpu_fetch(&kcs, cpu);
	return kcs.cpustat[CPUTIME_USER] + kcs.cpustat[CPUTIME_NICE] +
	       kcs.cpustat[CPUTIME_SYSTEM] + kcs.cpustat[CPUTIME_IRQ] +
	       kcs.cpustat[CPUTIME_SOFTIRQ];
}

/* The counter's value; false when it did not count all the time it was
 * enabled (a pinned event the PMU could not schedule reads 0).
 */
static bool ktg_cpu_count(struct perf_event *ev, u64 *count)
{
	u64 enabled, running;

	*count = ktg_perf_read(ev, &enabled, &running);
	return running == enabled;
}

static void ktg_cpu_acct_release(struct ktg_cpu_acct *a)
{
	int cpu;

	if (!a->ev)
		return;
	for_each_cpu(cpu, &a->online)
		if (a->ev[cpu])
			perf_event_release_kernel(a->ev[cpu]);
	kfree(a->ev);
	a->ev = NULL;
}

/* Counters for every online CPU, created disabled; may sleep. */
int ktg_cpu_acct_init(struct ktg_cpu_acct *a)
{
	int cpu;

	a->method = ktg_method;
	cpumask_copy(&a->online, cpu_online_mask);
	a->busy = kcalloc(nr_cpu_ids, sizeof(*a->busy), GFP_KERNEL);
	a->count = kcalloc(nr_cpu_ids, sizeof(*a->count), GFP_KERNEL);
	if (a->method != KTGEN_CPU_METHOD_BUSY_TIME)
		a->ev = kcalloc(nr_cpu_ids, sizeof(*a->ev), GFP_KERNEL);
	if (!a->busy || !a->count || (a->method != KTGEN_CPU_METHOD_BUSY_TIME && !a->ev)) {
		ktg_cpu_acct_free(a);
		return -ENOMEM;
	}
	if (!a->ev)
		return 0;
	for_each_cpu(cpu, &a->online) {
		struct perf_event *ev;

		ev = ktg_perf_counter(ktg_cpu_attr(), cpu);
		if (IS_ERR(ev)) {
			/* Offline since, or no counter free: busy time. */
			ktg_cpu_acct_release(a);
			a->method = KTGEN_CPU_METHOD_BUSY_TIME;
			return 0;
		}
		a->ev[cpu] = ev;
	}
	return 0;
}

void ktg_cpu_acct_free(struct ktg_cpu_acct *a)
{
	ktg_cpu_acct_release(a);
	kfree(a->busy);
	kfree(a->count);
	a->busy = NULL;
	a->count = NULL;
}

/* The window opens: the starting values, kept to be subtracted. */
void ktg_cpu_acct_start(struct ktg_cpu_acct *a)
{
	int cpu;

	for_each_cpu(cpu, &a->online) {
		if (a->ev) {
			perf_event_enable(a->ev[cpu]);
			ktg_cpu_count(a->ev[cpu], &a->count[cpu]);
		}
		a->busy[cpu] = ktg_cpu_busy_ns(cpu);
	}
	/* the starting values before the bit: ktg_cpu_acct_stop() tests it */
	smp_mb__before_atomic();
	set_bit(KTG_CPU_WINDOW_OPENED, &a->window);
}

/* The window closes: the values become what the window used. Once, and
 * only after it opened (a run may end in its warmup).
 */
void ktg_cpu_acct_stop(struct ktg_cpu_acct *a)
{
	int cpu;

	if (!test_bit(KTG_CPU_WINDOW_OPENED, &a->window) ||
	    test_and_set_bit(KTG_CPU_WINDOW_CLOSED, &a->window))
		return;
	smp_mb__after_atomic();	/* pairs with the barrier in ktg_cpu_acct_start() */
	a->counted = !!a->ev;
	for_each_cpu(cpu, &a->online) {
		u64 busy = ktg_cpu_busy_ns(cpu);

		a->busy[cpu] = busy > a->busy[cpu] ? busy - a->busy[cpu] : 0;
		if (a->ev) {
			u64 count;

			if (!ktg_cpu_count(a->ev[cpu], &count))
				a->counted = false;
			a->count[cpu] = count - a->count[cpu];
			perf_event_disable(a->ev[cpu]);
		}
	}
	/* the values before the flag: a reader seeing done sees them */
	smp_store_release(&a->done, true);
}
