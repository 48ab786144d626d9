// SPDX-License-Identifier: GPL-2.0
/* page_pool's inline helpers moved to <net/page_pool/helpers.h> (6.6). */
#include <net/page_pool/helpers.h>

struct page *ktg_probe(struct page_pool *pool);
struct page *ktg_probe(struct page_pool *pool)
{
	return page_pool_dev_alloc_pages(pool);
}
