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
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/mutex.h>

#include "ktgen.h"

static DEFINE_MUTEX(ktg_mem_lock);
static u64 ktg_mem_limit = KTG_MEM_BUDGET_DEFAULT;
static u64 ktg_mem_charged;

/* The default budget: 1 GiB, or a quarter of the memory of a smaller
 * machine (as tcp_mem's defaults scale), so that a default never lets the
 * tests take what the host needs: ktgen's pages are not reclaimable.
 */
void ktg_mem_init(void)
{
	u64 quarter = round_down(((u64)totalram_pages() << PAGE_SHIFT) / 4, SZ_1M);

	ktg_mem_limit = clamp_t(u64, quarter, KTG_MEM_BUDGET_MIN, KTG_MEM_BUDGET_DEFAULT);
}

int ktg_mem_charge(u64 bytes)
{
	int err = 0;

	mutex_lock(&ktg_mem_lock);
	if (bytes > ktg_mem_limit - ktg_mem_charged)
		err = -ENOSPC;
	else
		ktg_mem_charged += bytes;
	mutex_unlock(&ktg_mem_lock);
	return err;
}

void ktg_mem_uncharge(u64 bytes)
{
	mutex_lock(&ktg_mem_lock);
	if (!WARN_ON_ONCE(bytes > ktg_mem_charged))
		ktg_mem_charged -= bytes;
	mutex_unlock(&ktg_mem_lock);
}

u64 ktg_mem_used(void)
{
	u64 used;

	mutex_lock(&ktg_mem_lock);
	used = ktg_mem_charged;
	mutex_unlock(&ktg_mem_lock);
	return used;
}

u64 ktg_mem_budget(void)
{
	u64 limit;

	mutex_lock(&ktg_mem_lock);
	limit = ktg_mem_limit;
	mutex_unlock(&ktg_mem_lock);
	return limit;
}

/* A budget below what is charged now would strand running tests: refuse. */
int ktg_mem_set_budget(u64 bytes)
{
	int err = 0;

	mutex_lock(&ktg_mem_lock);
	if (bytes < ktg_mem_charged)
		err = -EBUSY;
	else
		ktg_mem_limit = bytes;
	mutex_unlock(&ktg_mem_lock);
	return err;
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
