/* SPDX-License-Identifier: GPL-2.0 */
/* The module-wide memory budget (mem.c). */
#ifndef _KTG_MEM_H
#define _KTG_MEM_H

#include <linux/sizes.h>
#include <linux/types.h>

/* Module-wide memory budget: everything a run or sink makes the kernel
 * hold (page rings, histograms, buffers, connection and flow state), but
 * socket buffers, which tcp_mem and udp_mem bound.
 */
#define KTG_MEM_BUDGET_DEFAULT	SZ_1G	/* at most a quarter of the memory */
void ktg_mem_init(void);
int ktg_mem_charge(u64 bytes);
void ktg_mem_uncharge(u64 bytes);
u64 ktg_mem_used(void);
u64 ktg_mem_budget(void);
int ktg_mem_set_budget(u64 bytes);

#endif /* _KTG_MEM_H */
