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
 *
 * A run may also ask for PMU events (run events, cpu-event.c), made,
 * opened and closed with the account on the CPUs it brackets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kernel_stat.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "cpu.h"

static char *cpu_event = "cycles";
module_param(cpu_event, charp, 0444);
MODULE_PARM_DESC(cpu_event,
		 "CPU cost counter: cycles (PMU, else busy time) or sw (test: software events stand in for cycles and the run events)");

static bool ktg_have_pmu;
static u32 ktg_method;

/* How many times each CPU went offline. A CPU counter stops counting
 * when its CPU goes offline (5.10 to 6.12 detach it for good, and it
 * reads what it had counted until then): an account compares these
 * with the values at its counters' creation to find such CPUs. Our
 * teardown runs before perf's (CPUHP_AP_ONLINE_DYN is above
 * CPUHP_AP_PERF_ONLINE), so a count read before the comparison finds
 * the value unchanged was read from a counter still counting.
 */
static DEFINE_PER_CPU(unsigned int, ktg_cpu_downs);
static enum cpuhp_state ktg_cpuhp;

static int ktg_cpu_down(unsigned int cpu)
{
	WRITE_ONCE(per_cpu(ktg_cpu_downs, cpu), per_cpu(ktg_cpu_downs, cpu) + 1);
	return 0;
}

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
	int err;

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
	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "ktgen/cpu:online", NULL,
					ktg_cpu_down);
	if (err < 0)
		return err;
	ktg_cpuhp = err;
	return 0;
}

void ktg_cpu_exit(void)
{
	cpuhp_remove_state_nocalls(ktg_cpuhp);
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

/* Event @i summed over the CPUs of @cpus (@in) or the others, in @sum
 * with @sum->counted false when some CPU of the group never had it
 * running, or the sum passes 64 bits (no count to give). A negative
 * errno when it is absent in the group: its open's, or -ENODEV when a
 * CPU of the group went offline (its counter stopped part-way).
 */
int ktg_cpu_acct_event(const struct ktg_cpu_acct *a, int i, const struct cpumask *cpus,
		       bool in, struct ktg_cpu_evc *sum)
{
	bool counted = true;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	if (a->pmu.err[i])
		return -a->pmu.err[i];
	for_each_cpu(cpu, &a->online) {
		const struct ktg_cpu_evc *c = ktg_cpu_evc(&a->pmu, i, cpu);

		if (cpumask_test_cpu(cpu, cpus) != in)
			continue;
		if (cpumask_test_cpu(cpu, &a->gone))
			return -ENODEV;
		if (!c->counted || check_add_overflow(sum->count, c->count, &sum->count))
			counted = false;
		sum->enabled += c->enabled;
		sum->running += c->running;
	}
	sum->counted = counted;
	return 0;
}

/* @cpu's counters: its cycle counter (busy time for every CPU where one
 * cannot be had: no counter free) and its events. -ENODEV when @cpu went
 * offline since the account's CPUs were taken, -ENOMEM.
 */
static int ktg_cpu_acct_open(struct ktg_cpu_acct *a, int cpu)
{
	struct perf_event *ev;

	if (a->ev) {
		ev = ktg_perf_counter(ktg_cpu_attr(), cpu);
		if (PTR_ERR_OR_ZERO(ev) == -ENODEV && !cpu_online(cpu))
			return -ENODEV;
		if (IS_ERR(ev)) {
			ktg_cpu_acct_release(a);
			a->method = KTGEN_CPU_METHOD_BUSY_TIME;
		} else {
			a->ev[cpu] = ev;
		}
	}
	return ktg_cpu_event_open(&a->pmu, cpu, &a->online);
}

/* @cpu, offline before its counters were made, is not bracketed. */
static void ktg_cpu_acct_drop(struct ktg_cpu_acct *a, int cpu)
{
	if (a->ev && a->ev[cpu]) {
		perf_event_release_kernel(a->ev[cpu]);
		a->ev[cpu] = NULL;
	}
	ktg_cpu_event_drop(&a->pmu, cpu);
	cpumask_clear_cpu(cpu, &a->online);
}

/* Counters for every online CPU, created disabled, CPU by CPU; may
 * sleep. Fails only for want of memory. Not under cpus_read_lock():
 * creating a counter may take it (static keys). Each CPU's offlines so
 * far are kept first, to find at the window's close the CPUs that went
 * offline since; one that went offline before its counters were made
 * is left out.
 */
int ktg_cpu_acct_init(struct ktg_cpu_acct *a, u32 events)
{
	int cpu, err;

	a->method = ktg_method;
	a->busy = kcalloc(nr_cpu_ids, sizeof(*a->busy), GFP_KERNEL);
	a->count = kcalloc(nr_cpu_ids, sizeof(*a->count), GFP_KERNEL);
	a->downs = kcalloc(nr_cpu_ids, sizeof(*a->downs), GFP_KERNEL);
	if (a->method != KTGEN_CPU_METHOD_BUSY_TIME)
		a->ev = kcalloc(nr_cpu_ids, sizeof(*a->ev), GFP_KERNEL);
	err = ktg_cpu_event_alloc(&a->pmu, events, ktg_method == KTGEN_CPU_METHOD_SW_EVENT);
	if (err || !a->busy || !a->count || !a->downs ||
	    (a->method != KTGEN_CPU_METHOD_BUSY_TIME && !a->ev))
		goto free;
	cpumask_copy(&a->online, cpu_online_mask);
	for_each_cpu(cpu, &a->online)
		a->downs[cpu] = READ_ONCE(per_cpu(ktg_cpu_downs, cpu));
	smp_mb();	/* the offlines read before the counters are made */
	for_each_cpu(cpu, &a->online) {
		err = ktg_cpu_acct_open(a, cpu);
		if (err == -ENODEV)
			ktg_cpu_acct_drop(a, cpu);
		else if (err)
			goto free;
	}
	return 0;

free:
	ktg_cpu_acct_free(a);
	return -ENOMEM;
}

/* The run is over: its counters go as soon as the window has closed
 * (a finished run stays listed until deleted), what they counted stays.
 * After ktg_cpu_acct_stop(), with no start to come; may sleep.
 */
void ktg_cpu_acct_release_counters(struct ktg_cpu_acct *a)
{
	ktg_cpu_event_release(&a->pmu, &a->online);
	ktg_cpu_acct_release(a);
}

void ktg_cpu_acct_free(struct ktg_cpu_acct *a)
{
	ktg_cpu_event_free(&a->pmu, &a->online);
	ktg_cpu_acct_release(a);
	kfree(a->busy);
	kfree(a->count);
	kfree(a->downs);
	a->busy = NULL;
	a->count = NULL;
	a->downs = NULL;
}

/* The window opens: the starting values, kept to be subtracted; CPU by
 * CPU, so that each CPU's counters bracket the same interval.
 */
void ktg_cpu_acct_start(struct ktg_cpu_acct *a)
{
	int cpu;

	for_each_cpu(cpu, &a->online) {
		if (a->ev) {
			perf_event_enable(a->ev[cpu]);
			ktg_cpu_count(a->ev[cpu], &a->count[cpu]);
		}
		a->busy[cpu] = ktg_cpu_busy_ns(cpu);
		ktg_cpu_event_start(&a->pmu, cpu);
	}
	/* the starting values before the bit: ktg_cpu_acct_stop() tests it */
	smp_mb__before_atomic();
	set_bit(KTG_CPU_WINDOW_OPENED, &a->window);
}

/* The CPUs that went offline since their counters were made, read after
 * the counters (see ktg_cpu_downs): their counters stopped part-way, so
 * the cycles are busy time's and the group's events absent (ENODEV).
 */
static void ktg_cpu_acct_gone(struct ktg_cpu_acct *a)
{
	int cpu;

	smp_rmb();	/* the counters read before the offlines */
	for_each_cpu(cpu, &a->online) {
		if (READ_ONCE(per_cpu(ktg_cpu_downs, cpu)) == a->downs[cpu])
			continue;
		cpumask_set_cpu(cpu, &a->gone);
		a->counted = false;
	}
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
		ktg_cpu_event_stop(&a->pmu, cpu);
	}
	ktg_cpu_acct_gone(a);
	/* the values before the flag: a reader seeing done sees them */
	smp_store_release(&a->done, true);
}
