// SPDX-License-Identifier: GPL-2.0
/*
 * Copy engines and page-send primitives.
 */
#include "compat.h"
#include "ktgen.h"

/* The nocache copy is a model of the kernel's __copy_user_nocache: movnti
 * through memcpy_flushcache() where the architecture has it, else memcpy.
 */
enum ktgen_nocache_impl ktg_copy_nocache_impl(void)
{
	if (IS_ENABLED(CONFIG_ARCH_HAS_UACCESS_FLUSHCACHE))
		return KTGEN_NOCACHE_IMPL_MOVNTI;
	return KTGEN_NOCACHE_IMPL_MEMCPY;
}

enum ktgen_page_send ktg_page_send_method(void)
{
#ifdef KTG_HAVE_PROTO_OPS_SENDPAGE
	return KTGEN_PAGE_SEND_SENDPAGE;
#else
	return KTGEN_PAGE_SEND_SPLICE_PAGES;
#endif
}
