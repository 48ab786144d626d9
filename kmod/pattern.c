// SPDX-License-Identifier: GPL-2.0
/*
 * The payload pattern at memory speed. Pattern page p of a ring is pattern
 * page 0 with 37 * p added to each byte (mod 256), so 256 pages hold every
 * page any ring can have: page p of a ring is kind p % 256. The kinds are
 * built once, at load (1 MiB); a verifying sink compares a word at a time
 * against the kind its bytes should be, and counts bytes only where a word
 * differs, the rare case (ktg_pattern_count). Before, every byte cost its
 * pattern's arithmetic and a 64-bit division: 25x rx copy's service demand
 * (bench/native.md).
 */
#include "pattern.h"
#include "proto.h"

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/vmalloc.h>
#endif

#define KTG_PATTERN_KINDS	256

static u8 *ktg_pattern_kinds;

int ktg_pattern_init(void)
{
	u32 k;

	ktg_pattern_kinds = vmalloc(KTG_PATTERN_KINDS * KTG_PATTERN_SIZE);
	if (!ktg_pattern_kinds)
		return -ENOMEM;
	for (k = 0; k < KTG_PATTERN_KINDS; k++)
		ktg_pattern_fill(ktg_pattern_kinds + k * KTG_PATTERN_SIZE,
				 (u64)k << KTG_PATTERN_SHIFT, KTG_PATTERN_SIZE, KTG_PATTERN_KINDS);
	return 0;
}

void ktg_pattern_exit(void)
{
	vfree(ktg_pattern_kinds);
	ktg_pattern_kinds = NULL;
}

void ktg_pattern_fill(u8 *dst, u64 off, size_t len, u32 pages)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = ktg_pattern_byte(off + i, pages);
}

/* A word at @p, aligned or not: one load (get_unaligned()'s way, whose
 * header moved in 6.12).
 */
struct ktg_word {
	unsigned long w;
} __packed;

static __always_inline unsigned long ktg_word(const u8 *p)
{
	return ((const struct ktg_word *)p)->w;
}

/* Do @len bytes of @a and @b differ? Four words a step, no branch on data. */
static bool ktg_pattern_differs(const u8 *a, const u8 *b, size_t len)
{
	const size_t w = sizeof(unsigned long);
	unsigned long diff = 0;
	size_t i = 0;

	for (; i + 4 * w <= len; i += 4 * w)
		diff |= (ktg_word(a + i) ^ ktg_word(b + i)) |
			(ktg_word(a + i + w) ^ ktg_word(b + i + w)) |
			(ktg_word(a + i + 2 * w) ^ ktg_word(b + i + 2 * w)) |
			(ktg_word(a + i + 3 * w) ^ ktg_word(b + i + 3 * w));
	for (; i + w <= len; i += w)
		diff |= ktg_word(a + i) ^ ktg_word(b + i);
	for (; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff;
}

/* The bytes of @p that differ from @ref (@len of them, at stream offset
 * @off); the first one's offset to @first unless one was found before.
 */
static u64 ktg_pattern_count(const u8 *p, const u8 *ref, size_t len, u64 off,
			     u64 *first, bool found)
{
	u64 bad = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] == ref[i])
			continue;
		if (!found && !bad)
			*first = off + i;
		bad++;
	}
	return bad;
}

/*
 * Bytes of @p that differ from the pattern at stream offset @off of a
 * sender whose ring has @pages pattern pages (not 0); the first one's
 * offset goes to @first. A pattern page at a time: its kind found with one
 * division, then compared a word at a time.
 */
u64 ktg_pattern_check(const u8 *p, u64 off, size_t len, u32 pages, u64 *first)
{
	u64 bad = 0;

	while (len) {
		u32 pos = off & (KTG_PATTERN_SIZE - 1);
		size_t n = min_t(size_t, len, KTG_PATTERN_SIZE - pos);
		u32 kind = ((off >> KTG_PATTERN_SHIFT) % pages) % KTG_PATTERN_KINDS;
		const u8 *ref = ktg_pattern_kinds + kind * KTG_PATTERN_SIZE + pos;

		if (unlikely(ktg_pattern_differs(p, ref, n)))
			bad += ktg_pattern_count(p, ref, n, off, first, bad);
		p += n;
		off += n;
		len -= n;
	}
	return bad;
}
