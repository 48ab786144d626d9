// SPDX-License-Identifier: GPL-2.0
/*
 * The payload pattern at memory speed. Pattern page p of a ring is pattern
 * page 0 with 37 * p added to each byte (mod 256: ktg_pattern_byte() keeps
 * the low 8 bits, which a u32 product's wrap leaves alone), so 256 pages
 * hold every page any ring can have: page p of a ring is kind p % 256,
 * whatever the ring's size a peer claims. The kinds are built once, at load
 * (1 MiB). A sender's ring is copied from them; a verifying sink compares
 * a word at a time against the kind its bytes should be and counts bytes
 * only where a span differs, the rare case. Before, every byte cost its
 * pattern's arithmetic and a 64-bit division: 25x rx copy's service demand
 * (bench/native.md).
 */
#ifdef __KERNEL__
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#endif

#include "pattern.h"
#include "proto.h"

#define KTG_PATTERN_KINDS	256

static u8 *ktg_pattern_kinds;

int __init ktg_pattern_init(void)
{
	size_t i, size = KTG_PATTERN_KINDS * KTG_PATTERN_SIZE;

	ktg_pattern_kinds = vmalloc(size);
	if (!ktg_pattern_kinds)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		ktg_pattern_kinds[i] = ktg_pattern_byte(i, KTG_PATTERN_KINDS);
	return 0;
}

void ktg_pattern_exit(void)
{
	vfree(ktg_pattern_kinds);
	ktg_pattern_kinds = NULL;
}

/* The kind of the pattern page that stream offset @off falls in, from its
 * offset in that page on.
 */
static const u8 *ktg_pattern_at(u64 off, u32 pages)
{
	u32 kind = ((off >> KTG_PATTERN_SHIFT) % pages) % KTG_PATTERN_KINDS;

	return ktg_pattern_kinds + kind * KTG_PATTERN_SIZE + (off & (KTG_PATTERN_SIZE - 1));
}

/* Bytes from stream offset @off to the end of its pattern page, @len at most. */
static size_t ktg_pattern_span(u64 off, size_t len)
{
	return min_t(size_t, len, KTG_PATTERN_SIZE - (off & (KTG_PATTERN_SIZE - 1)));
}

/* @len bytes of the pattern of a ring of @pages pattern pages, from stream
 * offset @off on, into @dst: a copy of a kind a pattern page.
 */
void ktg_pattern_fill(u8 *dst, u64 off, size_t len, u32 pages)
{
	if (WARN_ON_ONCE(!pages))
		return;
	while (len) {
		size_t n = ktg_pattern_span(off, len);

		memcpy(dst, ktg_pattern_at(off, pages), n);
		dst += n;
		off += n;
		len -= n;
	}
}

/* A word at @p, aligned or not: one load, get_unaligned()'s way (its header
 * moved in 6.12).
 */
struct ktg_unaligned_word {
	unsigned long w;
} __packed;

static __always_inline unsigned long ktg_word(const u8 *p)
{
	return ((const struct ktg_unaligned_word *)p)->w;
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
	return diff != 0;
}

/* The bytes of @p that differ from @ref (@len of them, at stream offset
 * @off); the first one's offset to @first unless one was @found before.
 * A byte at a time: a peer that sends nothing but wrong bytes pays for
 * this with its own bandwidth, bounded by what it sent.
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
 * sender whose ring has @pages pattern pages; the first one's offset goes
 * to @first. A pattern page at a time: its kind found with one division,
 * then compared a word at a time.
 */
u64 ktg_pattern_check(const u8 *p, u64 off, size_t len, u32 pages, u64 *first)
{
	u64 bad = 0;

	if (WARN_ON_ONCE(!pages))
		return 0;
	while (len) {
		size_t n = ktg_pattern_span(off, len);
		const u8 *ref = ktg_pattern_at(off, pages);

		if (unlikely(ktg_pattern_differs(p, ref, n)))
			bad += ktg_pattern_count(p, ref, n, off, first, bad != 0);
		p += n;
		off += n;
		len -= n;
	}
	return bad;
}
