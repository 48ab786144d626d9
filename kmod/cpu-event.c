// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU events a run asks for (run events): a counter per CPU per
 * event, created with the run's CPU account (cpu.c) on the CPUs it
 * brackets, opened and closed with it CPU by CPU, not pinned, so that the
 * PMU multiplexes what it cannot hold at once and each count is scaled
 * from the time it ran. An event this host cannot open is absent with
 * the errno, never a 0. With cpu_event=sw a software event stands in
 * for each.
 */
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "cpu-event.h"
#include "cpu-scale.h"
#include "policy.h"

#define KTG_LLC_READ_MISS	(PERF_COUNT_HW_CACHE_LL |			\
				 PERF_COUNT_HW_CACHE_OP_READ << 8 |		\
				 PERF_COUNT_HW_CACHE_RESULT_MISS << 16)

/* The run events, bit i of enum ktgen_cpu_event at i, and the software
 * event that stands in for each with cpu_event=sw (the uapi says which).
 */
static const struct {
	u32	type;
	u64	config;
	u32	sw;
} ktg_cpu_events[] = {
	{ PERF_TYPE_HARDWARE,	PERF_COUNT_HW_CPU_CYCLES,	PERF_COUNT_SW_CPU_CLOCK },
	{ PERF_TYPE_HARDWARE,	PERF_COUNT_HW_INSTRUCTIONS,	PERF_COUNT_SW_TASK_CLOCK },
	{ PERF_TYPE_HARDWARE,	PERF_COUNT_HW_CACHE_REFERENCES,	PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ PERF_TYPE_HARDWARE,	PERF_COUNT_HW_CACHE_MISSES,	PERF_COUNT_SW_CPU_MIGRATIONS },
	{ PERF_TYPE_HW_CACHE,	KTG_LLC_READ_MISS,		PERF_COUNT_SW_PAGE_FAULTS },
};

/* A row for each event the policy lets through, no more. */
static_assert(ARRAY_SIZE(ktg_cpu_events) == KTG_CPU_EVENTS);
static_assert(BIT(KTG_CPU_EVENTS) == KTG_CPU_EVENT_MASK + 1);

u32 ktg_cpu_event_stand_in(int i)
{
	return ktg_cpu_events[i].sw;
}

/* What the events @events take, charged to the budget with the run: a
 * row and a counter per event per CPU.
 */
u64 ktg_cpu_event_size(u32 events)
{
	return (u64)hweight32(events) * nr_cpu_ids *
	       (sizeof(struct ktg_cpu_evc) + ktg_perf_size());
}

/* Event @i's counters, on every CPU of @cpus that has one. */
static void ktg_cpu_event_put(struct ktg_cpu_events *e, int i, const struct cpumask *cpus)
{
	int cpu;

	if (!(e->mask & BIT(i)))
		return;
	for_each_cpu(cpu, cpus) {
		struct ktg_cpu_evc *c = ktg_cpu_evc(e, i, cpu);

		if (c->ev)
			perf_event_release_kernel(c->ev);
		c->ev = NULL;
	}
}

/* Every event's counters; what they counted stays. */
void ktg_cpu_event_release(struct ktg_cpu_events *e, const struct cpumask *cpus)
{
	int i;

	for (i = 0; e->evc && i < KTG_CPU_EVENTS; i++)
		ktg_cpu_event_put(e, i, cpus);
}

void ktg_cpu_event_free(struct ktg_cpu_events *e, const struct cpumask *cpus)
{
	ktg_cpu_event_release(e, cpus);
	kvfree(e->evc);
	e->evc = NULL;
}

/* Event @i on @cpu, created disabled and not pinned (multiplexed where
 * the PMU has too few counters).
 */
static struct perf_event *ktg_cpu_event_create(struct ktg_cpu_events *e, int i, int cpu)
{
	struct perf_event_attr attr = {
		.type		= ktg_cpu_events[i].type,
		.config		= ktg_cpu_events[i].config,
		.size		= sizeof(attr),
		.disabled	= 1,
	};

	if (e->stand_in) {
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = ktg_cpu_events[i].sw;
	}
	return ktg_perf_counter(&attr, cpu);
}

/* The rows of @events (none without), to be opened CPU by CPU. */
int ktg_cpu_event_alloc(struct ktg_cpu_events *e, u32 events, bool stand_in)
{
	e->mask = events;
	e->stand_in = stand_in;
	if (!events)
		return 0;
	e->evc = kvcalloc(array_size(hweight32(events), nr_cpu_ids), sizeof(*e->evc),
			  GFP_KERNEL);
	return e->evc ? 0 : -ENOMEM;
}

/* Is event @i asked for and openable here (its counters kept)? */
static bool ktg_cpu_event_live(const struct ktg_cpu_events *e, int i)
{
	return (e->mask & BIT(i)) && !e->err[i];
}

/* A counter on @cpu for each event asked. An event that cannot be opened
 * there (no PMU, no such event: ENOENT, EOPNOTSUPP) keeps the errno and no
 * counter on any CPU of @cpus. -ENODEV when @cpu went offline (the caller
 * drops it), -ENOMEM.
 */
int ktg_cpu_event_open(struct ktg_cpu_events *e, int cpu, const struct cpumask *cpus)
{
	int i;

	for (i = 0; e->evc && i < KTG_CPU_EVENTS; i++) {
		struct perf_event *ev;

		if (!ktg_cpu_event_live(e, i))
			continue;
		ev = ktg_cpu_event_create(e, i, cpu);
		if (PTR_ERR_OR_ZERO(ev) == -ENOMEM)
			return -ENOMEM;
		if (PTR_ERR_OR_ZERO(ev) == -ENODEV && !cpu_online(cpu))
			return -ENODEV;
		if (IS_ERR(ev)) {
			e->err[i] = -PTR_ERR(ev);
			ktg_cpu_event_put(e, i, cpus);
			continue;
		}
		ktg_cpu_evc(e, i, cpu)->ev = ev;
	}
	return 0;
}

/* @cpu's counters, its CPU gone before the window: none left there. */
void ktg_cpu_event_drop(struct ktg_cpu_events *e, int cpu)
{
	int i;

	for (i = 0; e->evc && i < KTG_CPU_EVENTS; i++) {
		struct ktg_cpu_evc *c;

		if (!(e->mask & BIT(i)))
			continue;
		c = ktg_cpu_evc(e, i, cpu);
		if (c->ev)
			perf_event_release_kernel(c->ev);
		c->ev = NULL;
	}
}

/* The window opens for @cpu's events: enabled, their starting values
 * kept.
 */
void ktg_cpu_event_start(struct ktg_cpu_events *e, int cpu)
{
	int i;

	for (i = 0; e->evc && i < KTG_CPU_EVENTS; i++) {
		struct ktg_cpu_evc *c;

		if (!ktg_cpu_event_live(e, i))
			continue;
		c = ktg_cpu_evc(e, i, cpu);
		perf_event_enable(c->ev);
		c->count = ktg_perf_read(c->ev, &c->enabled, &c->running);
	}
}

/* The window closes for @cpu's events: what each counted in it, scaled
 * to its enabled time where it was multiplexed; a counter that never ran
 * (running 0) has no count to scale (counted false).
 */
void ktg_cpu_event_stop(struct ktg_cpu_events *e, int cpu)
{
	int i;

	for (i = 0; e->evc && i < KTG_CPU_EVENTS; i++) {
		struct ktg_cpu_evc *c;
		u64 count, enabled, running;

		if (!ktg_cpu_event_live(e, i))
			continue;
		c = ktg_cpu_evc(e, i, cpu);
		count = ktg_perf_read(c->ev, &enabled, &running);
		perf_event_disable(c->ev);
		c->enabled = enabled - c->enabled;
		c->running = running - c->running;
		c->counted = ktg_cpu_scale(count - c->count, c->enabled, c->running, &c->count);
	}
}
