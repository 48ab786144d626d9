/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PMU events a run asks for (run events, cpu-event.c): a counter per
 * CPU per event, not pinned, so that the PMU multiplexes what it cannot
 * hold at once, each count scaled from the time it ran.
 */
#ifndef _KTG_CPU_EVENT_H
#define _KTG_CPU_EVENT_H

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/types.h>

struct perf_event;

/* PMU events a run may ask (enum ktgen_cpu_event): a counter per CPU each */
#define KTG_CPU_EVENTS		5

/* One PMU event on one CPU: its counter, then what it counted in the
 * window (the count scaled to the enabled time when multiplexed; none
 * when it never ran).
 */
struct ktg_cpu_evc {
	struct perf_event	*ev;
	u64			count;
	u64			enabled;
	u64			running;
	bool			counted;
};

struct ktg_cpu_events {
	u32			mask;		/* enum ktgen_cpu_event bits asked */
	bool			stand_in;	/* software events count for them
						 * (cpu_event=sw)
						 */
	int			err[KTG_CPU_EVENTS];	/* errno of an event's
							 * failed open: absent
							 */
	struct ktg_cpu_evc	*evc;		/* [cpu][event asked] */
};

/* Event @i (bit i of enum ktgen_cpu_event, one asked) on @cpu: a row
 * per CPU, of the events asked only.
 */
static inline struct ktg_cpu_evc *ktg_cpu_evc(const struct ktg_cpu_events *e, int i, int cpu)
{
	return &e->evc[cpu * hweight32(e->mask) + hweight32(e->mask & (BIT(i) - 1))];
}

u32 ktg_cpu_event_stand_in(int i);
u64 ktg_cpu_event_size(u32 events);
int ktg_cpu_event_alloc(struct ktg_cpu_events *e, u32 events, bool stand_in);
int ktg_cpu_event_open(struct ktg_cpu_events *e, int cpu, const struct cpumask *cpus);
void ktg_cpu_event_drop(struct ktg_cpu_events *e, int cpu);
void ktg_cpu_event_start(struct ktg_cpu_events *e, int cpu);
void ktg_cpu_event_stop(struct ktg_cpu_events *e, int cpu);
void ktg_cpu_event_release(struct ktg_cpu_events *e, const struct cpumask *cpus);
void ktg_cpu_event_free(struct ktg_cpu_events *e, const struct cpumask *cpus);

#endif /* _KTG_CPU_EVENT_H */
