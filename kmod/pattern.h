/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The payload pattern (proto.h's ktg_pattern_byte) at memory speed: filled
 * into a sender's ring, checked by a verifying sink. Plain C on fixed-width
 * integers: the CLI's unit tests build it too (tests/unit/kshim.h).
 */
#ifndef _KTG_PATTERN_H
#define _KTG_PATTERN_H

#ifdef __KERNEL__
#include <linux/types.h>
#endif

int ktg_pattern_init(void);
void ktg_pattern_exit(void);
/* @pages: the pattern pages of the sender's ring, never 0 (the sinks
 * refuse a peer that says 0, and verify nothing of a peer that said
 * nothing).
 */
void ktg_pattern_fill(u8 *dst, u64 off, size_t len, u32 pages);
u64 ktg_pattern_check(const u8 *p, u64 off, size_t len, u32 pages, u64 *first);

#endif /* _KTG_PATTERN_H */
