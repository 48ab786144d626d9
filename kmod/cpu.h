/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU accounting (cpu.c): every online CPU over a run's measured window,
 * by cycle counters where the CPU has a PMU, else by busy time; and the
 * PMU events a run asks for (run events, cpu-event.h) on the same CPUs.
 */
#ifndef _KTG_CPU_H
#define _KTG_CPU_H

#include <linux/cpumask.h>
#include <linux/types.h>

#include "cpu-event.h"

struct perf_event;

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
	struct ktg_cpu_events	pmu;		/* the run events */
};

int ktg_cpu_init(void);
void ktg_cpu_exit(void);
bool ktg_cpu_have_pmu(void);
int ktg_cpu_acct_init(struct ktg_cpu_acct *a, u32 events);
void ktg_cpu_acct_release_counters(struct ktg_cpu_acct *a);
void ktg_cpu_acct_free(struct ktg_cpu_acct *a);
int ktg_cpu_acct_event(const struct ktg_cpu_acct *a, int i, const struct cpumask *cpus,
		       bool in, struct ktg_cpu_evc *sum);
void ktg_cpu_acct_start(struct ktg_cpu_acct *a);
void ktg_cpu_acct_stop(struct ktg_cpu_acct *a);

#endif /* _KTG_CPU_H */
