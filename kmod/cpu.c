// SPDX-License-Identifier: GPL-2.0
/*
 * CPU cost accounting. Cycle counters come from the PMU; where there is none
 * (most VMs) CPU cost falls back to busy time.
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/perf_event.h>

#include "ktgen.h"

static bool ktg_have_pmu;

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

/* Probe once: a hardware cycle counter on one online CPU. */
int ktg_cpu_init(void)
{
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&ktg_cycles_attr,
					      cpumask_first(cpu_online_mask),
					      NULL, NULL, NULL);
	if (IS_ERR(ev)) {
		ktg_have_pmu = false;
		return 0;
	}
	perf_event_release_kernel(ev);
	ktg_have_pmu = true;
	return 0;
}
