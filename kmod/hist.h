/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histograms: log-linear buckets over nanoseconds, every bucket at
 * most 1/128 of its value wide (percentiles within 0.8 %), fixed memory.
 * Values below 256 ns have a bucket each; from there each power of two has
 * 128. Plain C on fixed-width integers: the CLI's unit tests build it too,
 * with tests/unit/kshim.h standing in for the kernel's headers.
 */
#ifndef _KTG_HIST_H
#define _KTG_HIST_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#endif

#define KTG_HIST_SUB_BITS	7
#define KTG_HIST_SUB		BIT(KTG_HIST_SUB_BITS)
#define KTG_HIST_MAX_BITS	36	/* 2^36 ns = 68.7 s; larger values clamp */
#define KTG_HIST_BUCKETS	((KTG_HIST_MAX_BITS - KTG_HIST_SUB_BITS + 1) * KTG_HIST_SUB)

struct ktg_hist {
	u64	count;
	u64	sum;		/* ns, for the exact mean */
	u64	min;
	u64	max;
	u32	bucket[KTG_HIST_BUCKETS];
};

void ktg_hist_reset(struct ktg_hist *h);
void ktg_hist_add(struct ktg_hist *h, u64 ns);
void ktg_hist_merge(struct ktg_hist *to, const struct ktg_hist *from);
void ktg_hist_sub(struct ktg_hist *to, const struct ktg_hist *then);
u64 ktg_hist_percentile(const struct ktg_hist *h, u32 ppm);
u64 ktg_hist_mean(const struct ktg_hist *h);
u64 ktg_hist_stddev(const struct ktg_hist *h);
u32 ktg_hist_index(u64 ns);
u64 ktg_hist_low(u32 idx);
u64 ktg_hist_width(u32 idx);

#endif /* _KTG_HIST_H */
