// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histograms (see hist.h). A value's bucket: below 2 * SUB its
 * own; above, with e the bits beyond the top SUB_BITS + 1, bucket
 * e * SUB + (v >> e), which keeps v >> e in [SUB, 2 * SUB).
 */
#include "hist.h"

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
#endif

static inline u64 ktg_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 ktg_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

void ktg_hist_reset(struct ktg_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = U64_MAX;
}

u32 ktg_hist_index(u64 ns)
{
	u32 e;

	if (ns >= 1ULL << KTG_HIST_MAX_BITS)
		ns = (1ULL << KTG_HIST_MAX_BITS) - 1;
	if (ns < 2 * KTG_HIST_SUB)
		return ns;
	e = fls64(ns) - KTG_HIST_SUB_BITS - 1;
	return e * KTG_HIST_SUB + (u32)(ns >> e);
}

/* The smallest value of bucket @idx, and how many values it spans. */
u64 ktg_hist_low(u32 idx)
{
	u32 e;

	if (idx < 2 * KTG_HIST_SUB)
		return idx;
	e = idx / KTG_HIST_SUB - 1;
	return (u64)(idx - e * KTG_HIST_SUB) << e;
}

u64 ktg_hist_width(u32 idx)
{
	return idx < 2 * KTG_HIST_SUB ? 1 : 1ULL << (idx / KTG_HIST_SUB - 1);
}

/* By the flow's worker only; read meanwhile by ktg_hist_merge() (a
 * RUN_GET, an interval's report): each field written once, whole.
 */
void ktg_hist_add(struct ktg_hist *h, u64 ns)
{
	u32 i = ktg_hist_index(ns);

	WRITE_ONCE(h->bucket[i], h->bucket[i] + 1);
	WRITE_ONCE(h->count, h->count + 1);
	WRITE_ONCE(h->sum, h->sum + ns);
	WRITE_ONCE(h->min, ktg_min_u64(h->min, ns));
	WRITE_ONCE(h->max, ktg_max_u64(h->max, ns));
}

/* @from may be a live flow's (ktg_hist_add() meanwhile): each field read
 * once; the sum of a snapshot taken while values come may be a value or
 * two ahead of its count, never torn.
 */
void ktg_hist_merge(struct ktg_hist *to, const struct ktg_hist *from)
{
	u32 i;

	if (!READ_ONCE(from->count))
		return;
	for (i = 0; i < KTG_HIST_BUCKETS; i++)
		to->bucket[i] += READ_ONCE(from->bucket[i]);
	to->count += READ_ONCE(from->count);
	to->sum += READ_ONCE(from->sum);
	to->min = ktg_min_u64(to->min, READ_ONCE(from->min));
	to->max = ktg_max_u64(to->max, READ_ONCE(from->max));
}

/*
 * What was added since @then (an earlier state of the same histogram):
 * counts exact; min and max become the bounds of the first and last
 * bucket that grew.
 */
void ktg_hist_sub(struct ktg_hist *to, const struct ktg_hist *then)
{
	u32 i, first = KTG_HIST_BUCKETS, last = 0;

	for (i = 0; i < KTG_HIST_BUCKETS; i++) {
		to->bucket[i] -= then->bucket[i];
		if (to->bucket[i]) {
			first = first < i ? first : i;
			last = i;
		}
	}
	to->count -= then->count;
	to->sum -= then->sum;
	if (first == KTG_HIST_BUCKETS)
		return;
	to->min = ktg_max_u64(to->min, ktg_hist_low(first));
	to->max = ktg_min_u64(to->max, ktg_hist_low(last) + ktg_hist_width(last) - 1);
}

/* A bucket's value: its middle, within what was seen. */
static u64 ktg_hist_value(const struct ktg_hist *h, u32 idx)
{
	u64 v = ktg_hist_low(idx) + ktg_hist_width(idx) / 2;

	return ktg_min_u64(ktg_max_u64(v, h->min), h->max);
}

/* Nearest rank: the value below which @ppm parts per million of the
 * values lie (ppm 0: the minimum, 1000000: the maximum).
 */
u64 ktg_hist_percentile(const struct ktg_hist *h, u32 ppm)
{
	u64 rank, seen = 0;
	u32 i;

	if (!h->count)
		return 0;
	if (!ppm)
		return h->min;
	if (ppm >= 1000000)
		return h->max;
	/* ceil(count * ppm / 10^6), at least 1 */
	rank = div64_u64(h->count * ppm + 999999, 1000000);
	for (i = 0; i < KTG_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return ktg_hist_value(h, i);
	}
	return h->max;
}

u64 ktg_hist_mean(const struct ktg_hist *h)
{
	return h->count ? div64_u64(h->sum, h->count) : 0;
}

/* From the buckets' values around the exact mean, in 128-bit sums. */
u64 ktg_hist_stddev(const struct ktg_hist *h)
{
	unsigned __int128 acc = 0;
	u64 mean = ktg_hist_mean(h);
	u32 i, s = 0;

	if (h->count < 2)
		return 0;
	for (i = 0; i < KTG_HIST_BUCKETS; i++) {
		u64 v, d;

		if (!h->bucket[i])
			continue;
		v = ktg_hist_value(h, i);
		d = v > mean ? v - mean : mean - v;
		acc += (unsigned __int128)d * d * h->bucket[i];
	}
	/* No 128-bit division in the kernel: scale by 4^s into 64 bits. */
	while (acc >> 64) {
		acc >>= 2;
		s++;
	}
	return int_sqrt64(div64_u64((u64)acc, h->count)) << s;
}
