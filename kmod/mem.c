// SPDX-License-Identifier: GPL-2.0
/*
 * Module-wide memory budget for what runs and sinks make the kernel hold:
 * the pages runs send from (each run's source ring, the staging pages of
 * tx cached and nocache), latency histograms and response buffers,
 * sinks' receive buffers and the connection and flow state they may
 * track. A working set of 256 MiB per flow is a legitimate test, a
 * thousand of them is not. And how many runs and sinks one namespace
 * may hold.
 */
#include "budget.h"
#include "ktgen.h"
#include "mem.h"
#include "policy.h"

static struct ktg_budget ktg_mem = KTG_BUDGET_INIT(ktg_mem, KTG_MEM_BUDGET_DEFAULT);

void ktg_mem_init(void)
{
	ktg_budget_set(&ktg_mem, ktg_budget_default(KTG_MEM_BUDGET_MIN));
}

int ktg_mem_charge(u64 bytes)
{
	return ktg_budget_charge(&ktg_mem, bytes);
}

void ktg_mem_uncharge(u64 bytes)
{
	ktg_budget_uncharge(&ktg_mem, bytes);
}

u64 ktg_mem_used(void)
{
	return ktg_budget_held(&ktg_mem);
}

u64 ktg_mem_budget(void)
{
	return ktg_budget_limit(&ktg_mem);
}

int ktg_mem_set_budget(u64 bytes)
{
	return ktg_budget_set(&ktg_mem, bytes);
}

static u32 ktg_runs_limit = KTG_MAX_OBJECTS_DEFAULT;
static u32 ktg_sinks_limit = KTG_MAX_OBJECTS_DEFAULT;

u32 ktg_max_runs(void)
{
	return READ_ONCE(ktg_runs_limit);
}

u32 ktg_max_sinks(void)
{
	return READ_ONCE(ktg_sinks_limit);
}

/* A limit below what a namespace holds now refuses new ones only. */
void ktg_set_max_runs(u32 n)
{
	WRITE_ONCE(ktg_runs_limit, n);
}

void ktg_set_max_sinks(u32 n)
{
	WRITE_ONCE(ktg_sinks_limit, n);
}
