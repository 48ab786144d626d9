/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The non-temporal copy, shared by ktgen.ko's copy engines and
 * ktgen_nic.ko's DMA engine: a model of the kernel's __copy_user_nocache,
 * movnti through memcpy_flushcache() where the architecture has it, else
 * memcpy. Header-only, so that the two modules share no symbol.
 */
#ifndef _KTG_NOCACHE_H
#define _KTG_NOCACHE_H

#include <linux/string.h>
#include <asm/barrier.h>

/* Destinations are page-aligned pieces of module pages, so the body is
 * movnti; the caller fences once per batch as the kernel's own nocache
 * user copy does once per call.
 */
static inline void ktg_copy_nocache(void *dst, const void *src, size_t len)
{
#ifdef CONFIG_ARCH_HAS_UACCESS_FLUSHCACHE
	memcpy_flushcache(dst, src, len);
#else
	memcpy(dst, src, len);
#endif
}

static inline void ktg_copy_fence(void)
{
	/* Non-temporal stores are weakly ordered: order them before the
	 * page is handed on, as __copy_user_nocache's sfence does.
	 */
	wmb();
}

#endif
