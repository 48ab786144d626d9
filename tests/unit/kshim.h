/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmod/hist.c and kmod/pattern.c take from the kernel, for building
 * them in the host's unit tests (forced in with -include).
 */
#ifndef KTGEN_KSHIM_H
#define KTGEN_KSHIM_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>	/* __be16, __be32, __be64 */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define __packed	__attribute__((packed))
#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#define __init
#define WARN_ON_ONCE(c)	(!!(c))
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define vmalloc(n)	malloc(n)
#define vfree(p)	free(p)

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
