/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences, decided by feature probes (kmod/probes/, run by
 * scripts/compat-probe.sh into compat-gen.h) or by the presence of a macro.
 * This is the only place that knows about them: .c files never test kernel
 * versions. A function an older kernel lacks is supplied here under its own
 * name; a call whose form changed goes through a ktg_ wrapper.
 */
#ifndef _KTG_COMPAT_H
#define _KTG_COMPAT_H

#include <linux/bvec.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/uio.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>
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

/* A port: 0 refused by its policy where lib/nlattr.c validates ranges of
 * big-endian integers (6.1; Debian's 5.10 has it backported); a plain
 * 5.10.y takes the type only, and the handlers refuse 0 themselves.
 */
#ifdef KTG_HAVE_NLA_BE16_RANGE
#define KTG_POLICY_PORT		NLA_POLICY_MIN(NLA_BE16, 1)
#else
#define KTG_POLICY_PORT		{ .type = NLA_BE16 }
#endif

/* A message unless a callee left a more precise one (6.3+ has it). Its
 * local must not be NL_SET_ERR_MSG()'s own __extack: that one would be
 * initialised with itself, and the message go nowhere (or anywhere).
 */
#ifndef NL_SET_ERR_MSG_WEAK
#define NL_SET_ERR_MSG_WEAK(extack, msg) do {			\
	struct netlink_ext_ack *__ktg_extack = (extack);	\
								\
	if (__ktg_extack && !__ktg_extack->_msg)		\
		NL_SET_ERR_MSG(__ktg_extack, msg);		\
} while (0)
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

/* Free a dequeued datagram as udp_recvmsg() does: skb_consume_udp() where
 * modules may call it (7.x no longer exports it), else consume_skb(), which
 * differs for sockets peeking with an offset (a sink never does) and in
 * where the skb is freed (skb_consume_udp defers it to the CPU that
 * received it, a cost difference only).
 */
static inline void ktg_skb_consume_udp(struct sock *sk, struct sk_buff *skb)
{
#ifdef KTG_HAVE_EXPORT_SKB_CONSUME_UDP
	skb_consume_udp(sk, skb, 0);
#else
	consume_skb(skb);
#endif
}

/* The address handed to kernel_bind() and kernel_connect(): a struct
 * sockaddr_unsized from 6.19, its size told by the length argument.
 */
#ifdef KTG_HAVE_SOCKADDR_UNSIZED
#define KTG_SOCKADDR(addr)	((struct sockaddr_unsized *)(addr))
#else
#define KTG_SOCKADDR(addr)	((struct sockaddr *)(addr))
#endif

/* Hand @n pages (@len bytes in all) of one message to the stack without
 * copying: one MSG_SPLICE_PAGES sendmsg (6.5+), or before, the first page
 * by kernel_sendpage(), the others of the call counting as more to come.
 * More pages of the same message (MSG_MORE) are what splice() marks
 * MSG_SENDPAGE_NOTLAST: TCP then leaves the skb to grow instead of trying
 * to push it after every page (6.5 folded that flag into MSG_MORE).
 * Returns the bytes taken.
 */
static inline int ktg_send_bvec(struct socket *sock, struct bio_vec *bv,
				unsigned int n, size_t len, int flags)
{
#ifdef KTG_HAVE_PROTO_OPS_SENDPAGE
	if (n > 1)
		flags |= MSG_MORE;
	if (flags & MSG_MORE)
		flags |= MSG_SENDPAGE_NOTLAST;
	return kernel_sendpage(sock, bv->bv_page, bv->bv_offset, bv->bv_len, flags);
#else
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, n, len);
	return sock_sendmsg(sock, &msg);
#endif
}

/* The same for one page. */
static inline int ktg_send_page(struct socket *sock, struct page *page,
				int offset, size_t len, int flags)
{
	struct bio_vec bv = { .bv_page = page, .bv_offset = offset, .bv_len = len };

	return ktg_send_bvec(sock, &bv, 1, len, flags);
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

/* The device a pool serves, so netdev netlink lists the pool and its
 * statistics under it (6.8); before, nothing reads it.
 */
static inline void ktg_page_pool_set_netdev(struct page_pool_params *pp,
					    struct net_device *dev)
{
#ifdef KTG_HAVE_PAGE_POOL_PARAMS_NETDEV
	pp->netdev = dev;
#endif
}

/* A driver's page_pool pages in an skb go back to their pool when the stack
 * frees it (5.15); before, the driver released each page from its pool and
 * the stack freed it as a plain page.
 */
static inline void ktg_skb_mark_for_recycle(struct sk_buff *skb, struct page_pool *pool,
					    struct page *page)
{
#ifdef KTG_HAVE_SKB_MARK_FOR_RECYCLE
	skb_mark_for_recycle(skb);
#else
	page_pool_release_page(pool, page);
#endif
}

#ifndef KTG_HAVE_NAPI_BUILD_SKB
/* build_skb() from the NAPI skb cache (5.12); plain build_skb() before. */
static inline struct sk_buff *napi_build_skb(void *data, unsigned int frag_size)
{
	return build_skb(data, frag_size);
}
#endif

/* NAPI instances all poll with the default weight: its argument went in 6.1. */
static inline void ktg_netif_napi_add(struct net_device *dev, struct napi_struct *napi,
				      int (*poll)(struct napi_struct *, int))
{
#ifdef KTG_HAVE_NETIF_NAPI_ADD_NO_WEIGHT
	netif_napi_add(dev, napi, poll);
#else
	netif_napi_add(dev, napi, poll, NAPI_POLL_WEIGHT);
#endif
}

#ifndef KTG_HAVE_NETIF_SET_REAL_NUM_QUEUES
/* Both queue counts or neither (5.14): increases first, so that undoing
 * one only ever decreases.
 */
static inline int netif_set_real_num_queues(struct net_device *dev, unsigned int txq,
					    unsigned int rxq)
{
	unsigned int old_rxq = dev->real_num_rx_queues;
	int err;

	if (txq < 1 || txq > dev->num_tx_queues || rxq < 1 || rxq > dev->num_rx_queues)
		return -EINVAL;
	if (rxq > dev->real_num_rx_queues) {
		err = netif_set_real_num_rx_queues(dev, rxq);
		if (err)
			return err;
	}
	if (txq > dev->real_num_tx_queues) {
		err = netif_set_real_num_tx_queues(dev, txq);
		if (err) {
			WARN_ON(netif_set_real_num_rx_queues(dev, old_rxq));
			return err;
		}
	}
	if (rxq < dev->real_num_rx_queues)
		WARN_ON(netif_set_real_num_rx_queues(dev, rxq));
	if (txq < dev->real_num_tx_queues)
		WARN_ON(netif_set_real_num_tx_queues(dev, txq));
	return 0;
}
#endif

/* A device that never changes network namespace (dev_change_net_namespace()
 * refuses it, a namespace going away deletes it): the feature bit
 * NETIF_F_NETNS_LOCAL before 6.12, then a flag of its own, netns_local,
 * renamed netns_immutable in 6.15. Neither probe building on a kernel that
 * has no such bit any more fails the build here, never silently.
 */
static inline void ktg_netdev_set_netns_immutable(struct net_device *dev)
{
#if defined(KTG_HAVE_NETDEV_NETNS_IMMUTABLE)
	dev->netns_immutable = true;
#elif defined(KTG_HAVE_NETDEV_NETNS_LOCAL)
	dev->netns_local = true;
#else
	dev->features |= NETIF_F_NETNS_LOCAL;
#endif
}

/* A new link configured outside a request's notification (the request's
 * portid and header were added in 6.3).
 */
static inline int ktg_rtnl_configure_link(struct net_device *dev, struct ifinfomsg *ifm)
{
#ifdef KTG_HAVE_RTNL_CONFIGURE_LINK_NLH
	return rtnl_configure_link(dev, ifm, 0, NULL);
#else
	return rtnl_configure_link(dev, ifm);
#endif
}

/* rtnl_link_ops.newlink() in the form kernels before 6.15 call (the link's
 * namespace: IFLA_LINK_NETNSID's, else the requester's); from 6.15 its
 * arguments come packed in struct rtnl_newlink_params, and
 * KTG_RTNL_COMPAT_NEWLINK() defines the caller KTG_RTNL_NEWLINK_OP() names.
 */
#ifdef KTG_HAVE_RTNL_NEWLINK_PARAMS
#define KTG_RTNL_COMPAT_NEWLINK(fn)						\
static int fn##_compat(struct net_device *dev, struct rtnl_newlink_params *p,	\
		       struct netlink_ext_ack *extack)				\
{										\
	return fn(rtnl_newlink_link_net(p), dev, p->tb, p->data, extack);	\
}

#define KTG_RTNL_NEWLINK_OP(fn)	fn##_compat
#else
#define KTG_RTNL_COMPAT_NEWLINK(fn)
#define KTG_RTNL_NEWLINK_OP(fn)	fn
#endif

#ifndef KTG_HAVE_NLA_STRSCPY
/* nla_strlcpy() renamed, returning -E2BIG on truncation (5.11). */
static inline ssize_t nla_strscpy(char *dst, const struct nlattr *nla, size_t dstsize)
{
	size_t len = nla_strlcpy(dst, nla, dstsize);

	return len >= dstsize ? -E2BIG : len;
}
#endif

#ifndef INIT_CSD
/* A call_single_data's function and argument (5.11). */
#define INIT_CSD(csd, fn, data)	(*(csd) = (call_single_data_t){ .func = (fn), .info = (data) })
#endif

#ifndef KTG_HAVE_ETHTOOL_SPRINTF
/* One string-set entry formatted in place, the cursor moved past it (5.13). */
static inline __printf(2, 3) void ethtool_sprintf(u8 **data, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(*data, ETH_GSTRING_LEN, fmt, args);
	va_end(args);
	*data += ETH_GSTRING_LEN;
}
#endif

/* ethtool's ring and coalescing callbacks gained kernel-side extensions and
 * an extack (coalesce 5.15, ringparam 5.17). A driver writes the new form;
 * on older kernels KTG_ETHTOOL_COMPAT_*() defines callers of the old form
 * (NULL for what they lack) and KTG_ETHTOOL_*_OPS() names them in the ops.
 */
#ifdef KTG_HAVE_ETHTOOL_KERNEL_RINGPARAM
#define KTG_ETHTOOL_COMPAT_RINGPARAM(get, set)
#define KTG_ETHTOOL_RINGPARAM_OPS(get, set)	.get_ringparam = get, .set_ringparam = set
#else
struct kernel_ethtool_ringparam;
#define KTG_ETHTOOL_COMPAT_RINGPARAM(get, set)					\
static void get##_compat(struct net_device *dev, struct ethtool_ringparam *r)	\
{										\
	get(dev, r, NULL, NULL);						\
}										\
static int set##_compat(struct net_device *dev, struct ethtool_ringparam *r)	\
{										\
	return set(dev, r, NULL, NULL);						\
}

#define KTG_ETHTOOL_RINGPARAM_OPS(get, set)	\
	.get_ringparam = get##_compat, .set_ringparam = set##_compat
#endif

#ifdef KTG_HAVE_ETHTOOL_KERNEL_COALESCE
#define KTG_ETHTOOL_COMPAT_COALESCE(get, set)
#define KTG_ETHTOOL_COALESCE_OPS(get, set)	.get_coalesce = get, .set_coalesce = set
#else
struct kernel_ethtool_coalesce;
#define KTG_ETHTOOL_COMPAT_COALESCE(get, set)					\
static int get##_compat(struct net_device *dev, struct ethtool_coalesce *ec)	\
{										\
	return get(dev, ec, NULL, NULL);					\
}										\
static int set##_compat(struct net_device *dev, struct ethtool_coalesce *ec)	\
{										\
	return set(dev, ec, NULL, NULL);					\
}

#define KTG_ETHTOOL_COALESCE_OPS(get, set)	\
	.get_coalesce = get##_compat, .set_coalesce = set##_compat
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

/* Kernel counters. User-Mode Linux has no perf events, and without them
 * the headers declare no stand-ins for creating or reading one: there none
 * can be created, and cpu.c measures busy time.
 */
#if IS_ENABLED(CONFIG_PERF_EVENTS)
static inline struct perf_event *ktg_perf_counter(struct perf_event_attr *attr, int cpu)
{
	return perf_event_create_kernel_counter(attr, cpu, NULL, NULL, NULL);
}

static inline u64 ktg_perf_read(struct perf_event *ev, u64 *enabled, u64 *running)
{
	return perf_event_read_value(ev, enabled, running);
}

/* What a counter takes, for the budget. */
static inline size_t ktg_perf_size(void)
{
	return sizeof(struct perf_event);
}
#else
static inline struct perf_event *ktg_perf_counter(struct perf_event_attr *attr, int cpu)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline u64 ktg_perf_read(struct perf_event *ev, u64 *enabled, u64 *running)
{
	*enabled = 0;
	*running = 0;
	return 0;
}

static inline size_t ktg_perf_size(void)
{
	return 0;
}
#endif

#endif /* _KTG_COMPAT_H */
