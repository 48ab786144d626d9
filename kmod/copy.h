/* SPDX-License-Identifier: GPL-2.0 */
/* Copy engines, page rings (copy.c). */
#ifndef _KTG_COPY_H
#define _KTG_COPY_H

#include <linux/types.h>
#include <linux/ktgen.h>

struct page;

struct ktg_pages {
	struct page	**pages;
	u32		npages;
};

enum ktgen_nocache_impl ktg_copy_nocache_impl(void);
enum ktgen_page_send ktg_page_send_method(void);
int ktg_pages_alloc(struct ktg_pages *r, u32 npages, bool pattern);
int ktg_pages_grow(struct ktg_pages *r, u32 npages);
/* What the stack did with a page handed to it at load (KTGEN_SPLICE_*). */
enum ktg_splice_test {
	KTG_SPLICE_TCP,
	KTG_SPLICE_UDP,
	KTG_SPLICE_UDP6,
	KTG_SPLICE_TESTS
};

void ktg_splice_selftest(void);
u32 ktg_splice_selftest_result(enum ktg_splice_test test);
void ktg_pages_free(struct ktg_pages *r);

#endif /* _KTG_COPY_H */
