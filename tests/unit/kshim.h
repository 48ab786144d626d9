/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmod/hist.c takes from the kernel, for building it in the host's
 * unit tests (forced in with -include).
 */
#ifndef KTGEN_KSHIM_H
#define KTGEN_KSHIM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;

#define BIT(n)		(1UL << (n))
#define U64_MAX		UINT64_MAX
#define fls64(x)	((x) ? 64 - __builtin_clzll(x) : 0)
#define div64_u64(a, b)	((a) / (b))

static inline u64 int_sqrt64(u64 x)
{
	u64 r = (u64)sqrtl((long double)x);

	while (r && r * r > x)
		r--;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

#endif
