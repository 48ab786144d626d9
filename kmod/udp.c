// SPDX-License-Identifier: GPL-2.0
/*
 * A flow over UDP: each datagram built whole in one go (its ktgen header,
 * then its payload from the source ring, staging pages or user memory, by
 * tx mode as over TCP), GSO batches (UDP_SEGMENT), and the closing
 * datagrams that end a flow.
 */
#include <net/dst.h>
#include <net/ipv6.h>
#include <linux/highmem.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "flow.h"
#include "nocache.h"
#include "proto.h"
#include "run.h"
#include "worker.h"

#define KTG_UDP_CLOSES		3
#define KTG_UDP_CLOSE_GAP	(HZ / 20)

/*
 * UDP gso: the socket's UDP_SEGMENT is the run's size, so one send of
 * several datagrams leaves as one GSO skb. The stack refuses such sends
 * (EINVAL, EIO) when a datagram does not fit the route's MTU or its device
 * does not offload checksums: both are known once connected, and refused
 * here with a reason rather than failing the first send.
 */
int ktg_flow_gso(struct ktg_flow *f, struct netlink_ext_ack *extack)
{
	struct ktg_run_params *p = &f->run->p;
	struct sock *sk = f->sock->sk;
	bool v6 = sk->sk_family == AF_INET6;
	u32 hdrs = sizeof(struct udphdr) + (v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
	netdev_features_t csum = NETIF_F_HW_CSUM | (v6 ? NETIF_F_IPV6_CSUM : NETIF_F_IP_CSUM);
	struct dst_entry *dst;
	int gso_size = p->size, err = 0;

	dst = sk_dst_get(sk);
	if (dst) {
		if (p->size + hdrs > dst_mtu(dst)) {
			NL_SET_ERR_MSG(extack, "gso: a datagram this size exceeds the route's MTU");
			err = -EMSGSIZE;
		} else if (!dst->dev || !(dst->dev->features & csum)) {
			NL_SET_ERR_MSG(extack,
				       "gso: the route's device does not offload checksums");
			err = -EOPNOTSUPP;
		}
		dst_release(dst);
		if (err)
			return err;
	}
	err = f->sock->ops->setsockopt(f->sock, SOL_UDP, UDP_SEGMENT,
				       KERNEL_SOCKPTR(&gso_size), sizeof(gso_size));
	if (err) {
		NL_SET_ERR_MSG(extack, "gso: the socket refused UDP_SEGMENT");
		return err;
	}
	/* each datagram a header and its payload's pieces of the source ring */
	f->gso_hdr = kmalloc_array(p->gso, sizeof(*f->gso_hdr), GFP_KERNEL);
	f->gso_iov = kmalloc_array(2 * p->gso + KTG_DGRAM_PAGES, sizeof(*f->gso_iov),
				   GFP_KERNEL);
	if (!f->gso_hdr || !f->gso_iov) {
		NL_SET_ERR_MSG(extack, "no memory for the flow's gso batch");
		return -ENOMEM;
	}
	return 0;
}

static void ktg_dgram_head(struct ktg_flow *f, struct ktg_dgram *h, u32 magic, u64 seq)
{
	*h = (struct ktg_dgram) {
		.magic		= htonl(magic),
		.flow		= htonl(f->id),
		.cookie		= cpu_to_be64(f->run->cookie),
		.seq		= cpu_to_be64(seq),
		.pattern_pages	= htonl(f->run->pattern_pages),
		.resp		= htonl(magic == KTG_MAGIC_REQ ? f->run->p.resp_size : 0),
		.token		= cpu_to_be64(magic == KTG_MAGIC_REQ ? f->run->p.token : 0),
	};
}

/*
 * Datagram @seq of @len bytes as kvecs: its header in @h when it fits,
 * then its payload from stream offset seq * (payload length) of the
 * source ring, which is where a verifying sink looks for it. The count.
 */
static int ktg_dgram_kvecs(struct ktg_flow *f, struct ktg_dgram *h, u32 magic,
			   u64 seq, u32 len, struct kvec *iov)
{
	int n = 0;

	if (len >= sizeof(*h)) {
		ktg_dgram_head(f, h, magic, seq);
		iov[n].iov_base = h;
		iov[n].iov_len = sizeof(*h);
		n++;
		len -= sizeof(*h);
	}
	return n + ktg_src_kvecs(f->run, seq * len, len, iov + n);
}

/* UDP stack: one kernel_sendmsg() of the header and the payload's kvecs. */
int ktg_send_dgram(struct ktg_flow *f, u32 len, u32 magic, u64 seq)
{
	struct kvec iov[KTG_DGRAM_PAGES + 1];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct ktg_dgram h;
	int n;

	n = ktg_dgram_kvecs(f, &h, magic, seq, len, iov);
	return kernel_sendmsg(f->sock, &msg, iov, n, len);
}

/*
 * UDP stack with gso: the call's msg_n datagrams as one kvec list, each
 * with its header, in one kernel_sendmsg(); UDP_SEGMENT makes the stack
 * build one GSO skb of them. All but the last are the run's size (a byte
 * limit can shorten the last).
 */
int ktg_send_dgram_gso(struct ktg_flow *f)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	u32 size = f->run->p.size, left = f->msg_left, i, len;
	int n = 0;

	for (i = 0; i < f->msg_n; i++, left -= len) {
		len = min(left, size);
		n += ktg_dgram_kvecs(f, &f->gso_hdr[i], KTG_MAGIC_DATA, f->seq + i, len,
				     f->gso_iov + n);
	}
	return kernel_sendmsg(f->sock, &msg, f->gso_iov, n, f->msg_left);
}

/* gso: more datagrams for the call while the run's limits allow them. */
void ktg_gso_reserve(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;
	u32 len;

	while (f->msg_n < run->p.gso && f->msg_left == f->msg_n * run->p.size &&
	       ktg_run_reserve(run, &len)) {
		f->msg_left += len;
		f->msg_n++;
	}
}

/* The ktgen header (@hlen bytes: the header or 0) of datagram @seq corked
 * with MSG_MORE for the payload to follow: @hlen, or -errno.
 */
static int ktg_dgram_cork_head(struct ktg_flow *f, u32 hlen, u32 magic, u64 seq)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_MORE };
	struct ktg_dgram h;
	struct kvec hv = { .iov_base = &h, .iov_len = hlen };
	int ret;

	if (!hlen)
		return 0;
	ktg_dgram_head(f, &h, magic, seq);
	ret = kernel_sendmsg(f->sock, &msg, &hv, 1, hlen);
	return ret < 0 ? ret : hlen;
}

/*
 * UDP user: the header corked (MSG_MORE), then the payload from user
 * memory, which pushes the datagram. A failed payload send has made the
 * stack drop the corked header: the datagram starts over, or is dropped.
 */
static int ktg_send_dgram_umem(struct ktg_flow *f, u32 len, u32 magic, u64 seq)
{
	struct iovec iov[KTG_DGRAM_PAGES];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	u32 hlen = len >= sizeof(struct ktg_dgram) ? sizeof(struct ktg_dgram) : 0;
	u32 plen = len - hlen;
	int n, ret;

	ret = ktg_dgram_cork_head(f, hlen, magic, seq);
	if (ret < 0)
		return ret;
	n = ktg_src_iovecs(f->run, seq * plen, plen, iov);
	iov_iter_init(&msg.msg_iter, ITER_SOURCE, iov, n, plen);
	ret = ktg_worker_user_msg(f->worker, f->sock, &msg);
	return ret < 0 ? ret : len;
}

/* A stream's data datagram from user memory. */
int ktg_send_dgram_user(struct ktg_flow *f, u32 len)
{
	return ktg_send_dgram_umem(f, len, KTG_MAGIC_DATA, f->seq);
}

/* udp-rr: the request datagram @f->seq, from the memory of its tx mode. */
int ktg_send_dgram_req(struct ktg_flow *f, u32 len)
{
	if (f->run->p.tx_mode == KTGEN_TX_MODE_USER)
		return ktg_send_dgram_umem(f, len, KTG_MAGIC_REQ, f->seq);
	return ktg_send_dgram(f, len, KTG_MAGIC_REQ, f->seq);
}

/*
 * UDP cached, nocache, zerocopy: the whole datagram in one call. Its pages
 * are copied (or picked) first, so nothing can block once it is started;
 * then the header and each page go corked (MSG_MORE) and an empty send
 * pushes the datagram. The corked skb holds every page spliced into it, so
 * each page's count tells spliced from copied. A send that fails has made
 * the stack drop what was corked: the datagram starts over or is dropped,
 * never sent in part. Staging pages picked for the datagram hold a
 * reference of ours until it is sent, so one is never picked twice.
 */
int ktg_send_dgram_pages(struct ktg_flow *f, u32 len)
{
	struct kvec iov[KTG_DGRAM_PAGES];
	struct page *pages[KTG_DGRAM_PAGES];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct ktg_run *run = f->run;
	bool staged = ktg_tx_staged(run);
	u32 hlen = len >= sizeof(struct ktg_dgram) ? sizeof(struct ktg_dgram) : 0;
	u32 plen = len - hlen;
	int i, n, picked = 0, ret;

	n = ktg_src_kvecs(run, f->seq * plen, plen, iov);
	for (i = 0; i < n; i++) {
		struct page *src = virt_to_page(iov[i].iov_base);

		if (!staged) {
			pages[i] = src;
			continue;
		}
		pages[i] = ktg_stage_page(f);
		f->stage_blocked = !pages[i];
		if (!pages[i]) {
			ret = -ENOBUFS;		/* nothing sent yet */
			goto out;
		}
		get_page(pages[i]);
		picked++;
		ktg_stage_copy(run, pages[i], src, offset_in_page(iov[i].iov_base),
			       iov[i].iov_len);
	}
	if (n && run->p.tx_mode == KTGEN_TX_MODE_NOCACHE)
		ktg_copy_fence();

	ret = ktg_dgram_cork_head(f, hlen, KTG_MAGIC_DATA, f->seq);
	if (ret < 0)
		goto out;
	for (i = 0; i < n; i++) {
		ret = ktg_send_page(f->sock, pages[i], offset_in_page(iov[i].iov_base),
				    iov[i].iov_len, MSG_DONTWAIT | MSG_MORE);
		if (ret < 0)
			goto out;
		/* ours, and the stack's if it kept the page */
		if (page_ref_count(pages[i]) > 1 + staged)
			atomic_inc(&run->splice_held);
		else
			atomic_inc(&run->splice_copied);
	}
	ret = kernel_sendmsg(f->sock, &msg, NULL, 0, 0);
	if (ret >= 0)
		ret = len;
out:
	for (i = 0; i < picked; i++)
		put_page(pages[i]);
	return ret;
}

/* A stream's data datagram: the payload at the flow's offset. */
int ktg_send_dgram_data(struct ktg_flow *f, u32 len)
{
	return ktg_send_dgram(f, len, KTG_MAGIC_DATA, f->seq);
}

/* UDP: the closing datagrams went (or the drain timed out, or the run is
 * going away). Spaced out, so that a receive queue full of data when the
 * first one arrives does not drop them all.
 */
int ktg_udp_drain(struct ktg_flow *f)
{
	while (f->closes < KTG_UDP_CLOSES && !ktg_run_aborting(f->run)) {
		int ret;

		if (time_before(jiffies, f->next_close))
			return 0;
		ret = ktg_send_dgram(f, sizeof(struct ktg_dgram),
				     KTG_MAGIC_CLOSE, f->seq);
		if (ret == -EAGAIN && !time_after(jiffies, f->deadline))
			return 0;
		f->closes++;
		f->next_close = jiffies + KTG_UDP_CLOSE_GAP;
	}
	f->state = KTG_FLOW_DONE;
	return 1;
}
