/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A multiplexed counter's count scaled to the time it was enabled, as perf
 * scales it: count * enabled / running, exactly, in 128 bits. Plain C on
 * fixed-width integers (mul_u64_u64_div_u64() is not exported everywhere,
 * User-Mode Linux among them): the CLI's unit tests build it too, with
 * tests/unit/kshim.h standing in for the kernel's headers.
 */
#ifndef _KTG_CPU_SCALE_H
#define _KTG_CPU_SCALE_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

/* @a * @b as two halves, from 32-bit limbs. */
static inline void ktg_mul_u64_u128(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 al = (u32)a, ah = a >> 32, bl = (u32)b, bh = b >> 32;
	u64 ll = al * bl, lh = al * bh, hl = ah * bl;
	u64 mid = (ll >> 32) + (u32)lh + (u32)hl;

	*lo = mid << 32 | (u32)ll;
	*hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* @count * @enabled / @running, truncated, as perf scales a count that
 * ran @running of the @enabled ns (multiplexed). False, and no count,
 * when it never ran (@running 0) or the scaled count passes 64 bits.
 */
static inline bool ktg_cpu_scale(u64 count, u64 enabled, u64 running, u64 *scaled)
{
	u64 hi, lo, q = 0;
	int i;

	if (!running)
		return false;
	if (running == enabled) {
		*scaled = count;
		return true;
	}
	ktg_mul_u64_u128(count, enabled, &hi, &lo);
	if (hi >= running)
		return false;
	/* restoring division, a bit a step; the remainder stays below running */
	for (i = 0; i < 64; i++) {
		u64 top = hi >> 63;

		hi = hi << 1 | lo >> 63;
		lo <<= 1;
		q <<= 1;
		if (top || hi >= running) {
			hi -= running;
			q |= 1;
		}
	}
	*scaled = q;
	return true;
}

#endif /* _KTG_CPU_SCALE_H */
