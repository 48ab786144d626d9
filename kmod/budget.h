/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A budget of bytes a module makes the kernel hold that it cannot reclaim:
 * ktgen.ko's runs and sinks (mem.c), ktgen_nic.ko's receive rings
 * (nic/main.c). Header-only, so that the two modules share no symbol. A
 * charge beyond the limit is refused (ENOSPC), a limit below what is held
 * (EBUSY).
 */
#ifndef _KTG_BUDGET_H
#define _KTG_BUDGET_H

#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sizes.h>

struct ktg_budget {
	struct mutex	lock;	/* limit and held */
	u64		limit;
	u64		held;
};

#define KTG_BUDGET_INIT(name, bytes) \
	{ .lock = __MUTEX_INITIALIZER((name).lock), .limit = (bytes) }

/* The default: 1 GiB, or a quarter of the memory of a smaller machine (as
 * tcp_mem's defaults scale), so that a default never lets the tests take
 * what the host needs; never below @min.
 */
static inline u64 ktg_budget_default(u64 min)
{
	u64 quarter = round_down(((u64)totalram_pages() << PAGE_SHIFT) / 4, SZ_1M);

	return clamp_t(u64, quarter, min, SZ_1G);
}

static inline int ktg_budget_charge(struct ktg_budget *b, u64 bytes)
{
	int err = 0;

	mutex_lock(&b->lock);
	if (bytes > b->limit - b->held)
		err = -ENOSPC;
	else
		b->held += bytes;
	mutex_unlock(&b->lock);
	return err;
}

static inline void ktg_budget_uncharge(struct ktg_budget *b, u64 bytes)
{
	mutex_lock(&b->lock);
	if (!WARN_ON_ONCE(bytes > b->held))
		b->held -= bytes;
	mutex_unlock(&b->lock);
}

/* A limit below what is held would strand what holds it: refused. */
static inline int ktg_budget_set(struct ktg_budget *b, u64 limit)
{
	int err = 0;

	mutex_lock(&b->lock);
	if (limit < b->held)
		err = -EBUSY;
	else
		b->limit = limit;
	mutex_unlock(&b->lock);
	return err;
}

static inline u64 ktg_budget_limit(struct ktg_budget *b)
{
	u64 v;

	mutex_lock(&b->lock);
	v = b->limit;
	mutex_unlock(&b->lock);
	return v;
}

static inline u64 ktg_budget_held(struct ktg_budget *b)
{
	u64 v;

	mutex_lock(&b->lock);
	v = b->held;
	mutex_unlock(&b->lock);
	return v;
}

#endif
