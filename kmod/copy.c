// SPDX-License-Identifier: GPL-2.0
/*
 * Copy engines and the page rings senders send from (filled with the payload
 * pattern, pattern.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "copy.h"
#include "debug.h"
#include "ktgen.h"
#include "mem.h"
#include "pattern.h"
#include "proto.h"

/* The nocache copy itself is nocache.h's, shared with ktgen_nic.ko. */
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

/*
 * Grow a ring of order-0 pages (alloc_pages() memory, as splicing needs) to
 * @npages, the new pages charged to the buffer budget. On failure the ring
 * is as it was.
 */
int ktg_pages_grow(struct ktg_pages *r, u32 npages)
{
	u32 i, old = r->npages;
	struct page **pages;
	int err;

	if (npages <= old)
		return 0;
	err = ktg_mem_charge((u64)(npages - old) << PAGE_SHIFT);
	if (err)
		return err;
	pages = kvcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		goto err_uncharge;
	/* Many pages at once: fail rather than wake the OOM killer. */
	for (i = old; i < npages; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
		if (!pages[i])
			goto err_free;
		cond_resched();
	}
	if (old)
		memcpy(pages, r->pages, old * sizeof(*pages));
	kvfree(r->pages);
	r->pages = pages;
	r->npages = npages;
	return 0;

err_free:
	while (i-- > old)
		put_page(pages[i]);
	kvfree(pages);
err_uncharge:
	ktg_mem_uncharge((u64)(npages - old) << PAGE_SHIFT);
	return -ENOMEM;
}

/* A new ring of @npages, filled with the payload pattern if @pattern. */
int ktg_pages_alloc(struct ktg_pages *r, u32 npages, bool pattern)
{
	int err, flip;
	u32 i;

	err = ktg_pages_grow(r, npages);
	if (err || !pattern)
		return err;
	/* up to 1 GiB: a request that others need not wait for, preemptible */
	for (i = 0; i < npages; i++) {
		ktg_pattern_fill(page_address(r->pages[i]), (u64)i << PAGE_SHIFT, PAGE_SIZE,
				 npages << (PAGE_SHIFT - KTG_PATTERN_SHIFT));
		cond_resched();
	}
	flip = ktg_test_hook(flip_byte);
	if (flip >= 0 && flip < (npages << PAGE_SHIFT)) {
		u8 *p = page_address(r->pages[flip >> PAGE_SHIFT]);

		p[flip & ~PAGE_MASK] ^= 0xff;
	}
	return 0;
}

void ktg_pages_free(struct ktg_pages *r)
{
	u32 i;

	if (!r->pages)
		return;
	for (i = 0; i < r->npages; i++) {
		if (r->pages[i])
			put_page(r->pages[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(r->pages);
	ktg_mem_uncharge((u64)r->npages << PAGE_SHIFT);
	r->pages = NULL;
	r->npages = 0;
}

/*
 * Does the stack keep a page handed to it, or copy it? Over loopback in the
 * initial namespace, for TCP (the receiver has not read yet, so a spliced
 * page is still referenced by the queued skb when the send returns) and for
 * UDP (a page corked into a datagram not yet pushed).
 */
static u32 ktg_splice[KTG_SPLICE_TESTS];

u32 ktg_splice_selftest_result(enum ktg_splice_test test)
{
	return ktg_splice[test];
}

static u32 ktg_splice_held(struct page *page)
{
	return page_ref_count(page) > 1 ? KTGEN_SPLICE_SPLICED : KTGEN_SPLICE_COPIED;
}

static u32 ktg_splice_selftest_tcp(struct page *page)
{
	struct sockaddr_in addr = {
		.sin_family	= AF_INET,
		.sin_addr	= { htonl(INADDR_LOOPBACK) },
	};
	struct socket *lsock, *csock, *asock = NULL;
	u32 result = KTGEN_SPLICE_NONE;

	if (sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &lsock))
		return result;
	if (sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &csock))
		goto out_lsock;
	if (kernel_bind(lsock, KTG_SOCKADDR(&addr), sizeof(addr)) ||
	    kernel_listen(lsock, 1) ||
	    kernel_getsockname(lsock, (struct sockaddr *)&addr) < 0 ||
	    kernel_connect(csock, KTG_SOCKADDR(&addr), sizeof(addr), 0) ||
	    kernel_accept(lsock, &asock, 0))
		goto out_csock;	/* no loopback here: nothing to say */

	if (ktg_send_page(csock, page, 0, PAGE_SIZE, 0) == PAGE_SIZE)
		result = ktg_splice_held(page);
	sock_release(asock);
out_csock:
	sock_release(csock);
out_lsock:
	sock_release(lsock);
	return result;
}

/* Over loopback of @family: 127.0.0.1 or ::1. */
static u32 ktg_splice_selftest_dgram(struct page *page, int family)
{
	struct sockaddr_storage addr = { .ss_family = family };
	int len = ktg_addr_len(&addr);
	struct socket *rsock, *ssock;
	u32 result = KTGEN_SPLICE_NONE;

	if (family == AF_INET6)
		((struct sockaddr_in6 *)&addr)->sin6_addr = in6addr_loopback;
	else
		((struct sockaddr_in *)&addr)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sock_create_kern(&init_net, family, SOCK_DGRAM, IPPROTO_UDP, &rsock))
		return result;
	if (sock_create_kern(&init_net, family, SOCK_DGRAM, IPPROTO_UDP, &ssock))
		goto out_rsock;
	if (kernel_bind(rsock, KTG_SOCKADDR(&addr), len) ||
	    kernel_getsockname(rsock, (struct sockaddr *)&addr) < 0 ||
	    kernel_connect(ssock, KTG_SOCKADDR(&addr), len, 0))
		goto out_ssock;

	/* Corked, never pushed: the release drops the datagram. */
	if (ktg_send_page(ssock, page, 0, PAGE_SIZE, MSG_MORE) == PAGE_SIZE)
		result = ktg_splice_held(page);
out_ssock:
	sock_release(ssock);
out_rsock:
	sock_release(rsock);
	return result;
}

void ktg_splice_selftest(void)
{
	static const char * const names[KTG_SPLICE_TESTS] = {
		[KTG_SPLICE_TCP]	= "TCP",
		[KTG_SPLICE_UDP]	= "UDP",
		[KTG_SPLICE_UDP6]	= "UDP over IPv6",
	};
	enum ktg_splice_test t;
	struct page *page;

	for (t = 0; t < KTG_SPLICE_TESTS; t++) {
		/* A page each: TCP may still hold its own. */
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return;
		memset(page_address(page), 0x5a, PAGE_SIZE);
		if (t == KTG_SPLICE_TCP)
			ktg_splice[t] = ktg_splice_selftest_tcp(page);
		else
			ktg_splice[t] = ktg_splice_selftest_dgram(page, t == KTG_SPLICE_UDP6 ?
								  AF_INET6 : AF_INET);
		put_page(page);
		if (ktg_splice[t] == KTGEN_SPLICE_COPIED)
			pr_info("the splice self-test found %s copying pages\n", names[t]);
	}
}
