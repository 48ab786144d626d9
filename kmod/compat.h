/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, decided by feature probes (kmod/probes/, run by
 * scripts/compat-probe.sh into compat-gen.h) or by the presence of a macro.
 * This is the only place that knows about them: .c files never test kernel
 * versions.
 */
#ifndef _KTG_COMPAT_H
#define _KTG_COMPAT_H

#include <linux/bvec.h>
#include <linux/hrtimer.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <net/genetlink.h>
#include <net/udp.h>
#include "compat-gen.h"

/* Ops numbered from @op on are validated strictly, unknown attributes and
 * reserved header bits refused (6.1+); older kernels are strict per op.
 */
#ifdef KTG_HAVE_GENL_RESV_START_OP
#define KTG_GENL_RESV_START_OP(op)	.resv_start_op = (op),
#else
#define KTG_GENL_RESV_START_OP(op)
#endif

/* True, with the attribute reported missing, when @attr is absent; the
 * missing-attribute extack (GENL_REQ_ATTR_CHECK) arrived in 6.0.
 */
static inline bool ktg_req_attr_missing(struct genl_info *info, int attr)
{
#ifdef GENL_REQ_ATTR_CHECK
	return GENL_REQ_ATTR_CHECK(info, attr);
#else
	if (info->attrs[attr])
		return false;
	NL_SET_ERR_MSG(info->extack, "missing attribute");
	return true;
#endif
}

/* A dump request's parsed attributes: genl_dumpit_info's own before 6.2,
 * its genl_info's since.
 */
static inline struct nlattr **ktg_dump_attrs(struct netlink_callback *cb)
{
#ifdef KTG_HAVE_GENL_DUMPIT_INFO_ATTRS
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_dumpit_info(cb)->info.attrs;
#endif
}

/* Dequeue one UDP datagram; @flags carries MSG_DONTWAIT. */
static inline struct sk_buff *ktg_skb_recv_udp(struct sock *sk, unsigned int flags,
					       int *err)
{
#ifdef KTG_HAVE_SKB_RECV_UDP_NOBLOCK
	return skb_recv_udp(sk, flags, flags & MSG_DONTWAIT, err);
#else
	return skb_recv_udp(sk, flags, err);
#endif
}

/* Hand a page to the stack without copying it: kernel_sendpage() where it
 * exists, else MSG_SPLICE_PAGES (6.5+).
 */
static inline int ktg_send_page(struct socket *sock, struct page *page,
				int offset, size_t len, int flags)
{
#ifdef KTG_HAVE_PROTO_OPS_SENDPAGE
	return kernel_sendpage(sock, page, offset, len, flags);
#else
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bv;

	bvec_set_page(&bv, page, len, offset);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bv, 1, len);
	return sock_sendmsg(sock, &msg);
#endif
}

/* A timer and its callback in one call: hrtimer_setup() from 6.13. */
static inline void ktg_hrtimer_setup(struct hrtimer *t,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef KTG_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

/* iov_iter directions named by what the memory is to the copy: its
 * source (sending) or its destination (receiving); the names came in 6.2.
 */
#ifndef ITER_SOURCE
#define ITER_SOURCE	WRITE
#define ITER_DEST	READ
#endif

/* page_pool's helpers (allocation, recycling) and skb_gso_segment(). */
#ifdef KTG_HAVE_PAGE_POOL_HELPERS_H
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif
#ifdef KTG_HAVE_NET_GSO_H
#include <net/gso.h>
#endif

/* The TSC rate in kHz, to estimate cycles from busy time; 0 where the
 * architecture has no such constant rate.
 */
#ifdef CONFIG_X86
#include <asm/tsc.h>
static inline u32 ktg_tsc_khz(void)
{
	return tsc_khz;
}
#else
static inline u32 ktg_tsc_khz(void)
{
	return 0;
}
#endif

#endif /* _KTG_COMPAT_H */
