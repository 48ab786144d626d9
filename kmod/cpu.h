/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU accounting (cpu.c): every online CPU over a run's measured window,
 * by cycle counters where the CPU has a PMU, else by busy time; and the
 * PMU events a run asks for (run events), a counter per CPU each.
 */
#ifndef _KTG_CPU_H
#define _KTG_CPU_H

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

/* A CPU account's window: opened (its start values taken), then closed. */
#define KTG_CPU_WINDOW_OPENED	0
#define KTG_CPU_WINDOW_CLOSED	1

struct ktg_cpu_acct {
	u32			method;		/* enum ktgen_cpu_method */
	struct cpumask		online;		/* the CPUs bracketed */
	struct perf_event	**ev;		/* per CPU, counter methods */
	u64			*busy;		/* per CPU: at start, then used */
	u64			*count;		/* per CPU: at start, then used */
	unsigned int		*downs;		/* per CPU: offlines before */
	struct cpumask		gone;		/* went offline in the window */
	unsigned long		window;		/* KTG_CPU_WINDOW_* bits */
	bool			done;		/* the values are final */
	bool			counted;	/* counters ran all the window: cycles
						 * are theirs (else busy time's)
						 */
	bool			stand_in;	/* software events count for the
						 * events asked (cpu_event=sw)
						 */
	u32			events;		/* enum ktgen_cpu_event bits */
	int			ev_err[KTG_CPU_EVENTS];	/* errno of an event's
							 * failed open: absent
							 */
	struct ktg_cpu_evc	*evc;		/* [cpu][event asked] */
};

/* Event @i (bit i of enum ktgen_cpu_event, one asked) on @cpu: a row
 * per CPU, of the events asked only.
 */
static inline struct ktg_cpu_evc *ktg_cpu_evc(const struct ktg_cpu_acct *a, int i, int cpu)
{
	return &a->evc[cpu * hweight32(a->events) + hweight32(a->events & (BIT(i) - 1))];
}

int ktg_cpu_init(void);
void ktg_cpu_exit(void);
bool ktg_cpu_have_pmu(void);
u32 ktg_cpu_event_stand_in(int i);
u64 ktg_cpu_events_size(u32 events);
int ktg_cpu_acct_init(struct ktg_cpu_acct *a, u32 events);
void ktg_cpu_acct_release_counters(struct ktg_cpu_acct *a);
void ktg_cpu_acct_free(struct ktg_cpu_acct *a);
int ktg_cpu_event_group(const struct ktg_cpu_acct *a, int i, const struct cpumask *cpus,
			bool in, struct ktg_cpu_evc *sum);
void ktg_cpu_acct_start(struct ktg_cpu_acct *a);
void ktg_cpu_acct_stop(struct ktg_cpu_acct *a);

#endif /* _KTG_CPU_H */
