// SPDX-License-Identifier: GPL-2.0
/*
 * A UDP sink's receive path: datagrams read from the skb or by recvmsg,
 * the table of senders (struct ktg_uflow) and their sequence windows
 * (lost, late, duplicate), udp-rr responses.
 */
#include <linux/kthread.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "policy.h"
#include "proto.h"
#include "rx.h"
#include "sink.h"
#include "stats.h"
#include "worker.h"

/*
 * The senders a UDP sink tracks: at most max-conns, found by a hash of
 * (cookie, flow) keyed per sink (a peer choosing cookies cannot aim them
 * at one bucket), on a list least recently heard first with the closed
 * ones before them. The sink's one worker is their only user.
 */
static struct hlist_head *ktg_uflow_bucket(struct ktg_sink *sink, u64 cookie, u32 flow)
{
	u64 h = siphash_2u64(cookie, flow, &sink->uflow_key);

	return &sink->uflow_hash[h & (BIT(sink->uflow_bits) - 1)];
}

void ktg_uflow_free(struct ktg_sink *sink, struct ktg_uflow *f)
{
	hlist_del(&f->hnode);
	list_del(&f->node);
	sink->nuflows--;
	ktg_rx_stats_put(f->rx);
	kfree(f);
}

/* Room for one more: the least recently heard sender goes if it has
 * closed with nothing it sent still on its way, or has been silent for
 * idle-ms (a sender heard again after that starts afresh).
 */
static bool ktg_uflow_evict(struct ktg_sink *sink)
{
	struct ktg_uflow *f = list_first_entry_or_null(&sink->uflows, struct ktg_uflow, node);

	if (!f || ((!f->closed || f->unheard) &&
		   time_before(jiffies, f->heard + msecs_to_jiffies(sink->p.idle_ms))))
		return false;
	ktg_uflow_free(sink, f);
	return true;
}

/* The sender's entry, heard now; NULL when there is no room for it. */
static struct ktg_uflow *ktg_uflow_get(struct ktg_sink *sink, u64 cookie, u32 flow)
{
	struct hlist_head *head = ktg_uflow_bucket(sink, cookie, flow);
	struct ktg_uflow *f;

	hlist_for_each_entry(f, head, hnode) {
		if (f->cookie == cookie && f->flow == flow) {
			f->heard = jiffies;
			if (!f->closed || f->unheard)
				list_move_tail(&f->node, &sink->uflows);
			return f;
		}
	}
	if (sink->nuflows >= sink->p.max_conns && !ktg_uflow_evict(sink))
		return NULL;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return NULL;
	f->cookie = cookie;
	f->flow = flow;
	f->heard = jiffies;
	f->rx = ktg_rx_stats_find(cookie);
	if (f->rx)
		atomic64_inc(&f->rx->conns);
	atomic64_inc(&sink->stats.conns);
	hlist_add_head(&f->hnode, head);
	list_add_tail(&f->node, &sink->uflows);
	sink->nuflows++;
	return f;
}

/*
 * Datagram @seq, not a known duplicate, came. One the close already
 * counted lost (the close overtook it: another tx queue, a qdisc's other
 * flow) is found again; never more than the close counted, whatever a
 * sender's close claimed. (A duplicate more than 64 behind the highest
 * seen is not known as one, before the close or after it.) The last one
 * found, the entry is the first to make room.
 */
static void ktg_uflow_received(struct ktg_sink *sink, struct ktg_uflow *f, u64 seq)
{
	f->received++;
	if (!f->closed || seq >= f->sent || !f->unheard)
		return;
	KTG_RX_SUB(sink, f->rx, lost, 1);
	if (!--f->unheard)
		list_move(&f->node, &sink->uflows);
}

/* Sequence bookkeeping: in order, late (reordered) or duplicate. */
static void ktg_uflow_seq(struct ktg_sink *sink, struct ktg_uflow *f, u64 seq)
{
	u64 behind;

	if (seq >= f->next_seq) {
		u64 shift = seq - f->next_seq + 1;

		f->window = shift >= 64 ? 0 : f->window << shift;
		f->window |= 1;
		f->next_seq = seq + 1;
		ktg_uflow_received(sink, f, seq);
		return;
	}
	behind = f->next_seq - 1 - seq;
	if (behind < 64 && (f->window & BIT_ULL(behind))) {
		KTG_RX_ADD(sink, f->rx, dup, 1);
		return;
	}
	if (behind < 64)
		f->window |= BIT_ULL(behind);
	ktg_uflow_received(sink, f, seq);
	KTG_RX_ADD(sink, f->rx, late, 1);
}

/* The sender's closing count: what has not come is lost, until
 * ktg_uflow_received() finds it. An entry with nothing still on its way
 * is the first to make room.
 */
static void ktg_uflow_close(struct ktg_sink *sink, struct ktg_uflow *f, u64 sent)
{
	if (f->closed)
		return;
	f->closed = true;
	f->sent = sent;
	if (sent > f->received) {
		f->unheard = sent - f->received;
		KTG_RX_ADD(sink, f->rx, lost, f->unheard);
	} else {
		list_move(&f->node, &sink->uflows);
	}
	if (f->rx)
		atomic_inc(&f->rx->closed);
}

/* Payload bytes [start, len) of a datagram in @skb, or in @buf when the
 * socket API already copied it out (recvmsg).
 */
static void ktg_dgram_payload(struct ktg_sink *sink, struct ktg_rx_stats *rx,
			      u32 pages, u64 off, struct sk_buff *skb,
			      const u8 *buf, u32 start, u32 len,
			      struct ktg_worker *w)
{
	struct skb_seq_state st;
	unsigned int n, done = 0;
	const u8 *data;

	if (!skb) {
		/* recvmsg copied it; user: only the header is in @buf */
		if (sink->p.rx_mode != KTGEN_RX_MODE_USER)
			ktg_rx_payload(sink, rx, pages, off, buf + start, len - start, w);
		return;
	}
	if (sink->p.rx_mode == KTGEN_RX_MODE_DISCARD || start >= len)
		return;
	skb_prepare_seq_read(skb, start, len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		/* a block may run on past @len, into a batch's next datagram */
		n = min(n, len - start - done);
		ktg_rx_payload(sink, rx, pages, off + done, data, n, w);
		done += n;
	}
	skb_abort_seq_read(&st);
}

/* Where a datagram came from, as the sink's socket addresses it. */
static int ktg_skb_source(struct ktg_sink *sink, struct sk_buff *skb,
			  struct sockaddr_storage *ss)
{
	bool v6sock = sink->sock->sk->sk_family == AF_INET6;

	memset(ss, 0, sizeof(*ss));
	if (skb->protocol == htons(ETH_P_IP) && !v6sock) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = ip_hdr(skb)->saddr;
		sin->sin_port = udp_hdr(skb)->source;
		return sizeof(*sin);
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (v6sock) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = udp_hdr(skb)->source;
		if (skb->protocol == htons(ETH_P_IP)) {
			ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &sin6->sin6_addr);
		} else {
			sin6->sin6_addr = ipv6_hdr(skb)->saddr;
			sin6->sin6_scope_id = ipv6_iface_scope_id(&sin6->sin6_addr,
								  inet6_iif(skb));
		}
		return sizeof(*sin6);
	}
#endif
	return 0;
}

/* udp-rr: the response to a request datagram of @reqlen bytes, the
 * request's header turned round, padded with zeros to the size asked for,
 * when that may be given (a header at least); else it is refused. A
 * response that cannot go is the requester's timeout.
 */
static void ktg_sink_respond(struct ktg_sink *sink, struct ktg_rx_stats *rx,
			     const struct ktg_dgram *req, u32 reqlen,
			     struct sockaddr_storage *to, int tolen)
{
	struct msghdr msg = { .msg_name = to, .msg_namelen = tolen,
			      .msg_flags = MSG_DONTWAIT };
	struct msghdr more = { .msg_flags = MSG_DONTWAIT };
	u32 len = min_t(u32, ntohl(req->resp), KTG_MAX_UDP_SIZE);
	struct ktg_dgram h = *req;
	struct kvec hv = { .iov_base = &h, .iov_len = sizeof(h) };

	if (ntohl(req->resp) < sizeof(h) ||
	    !ktg_sink_resp_allowed(sink, reqlen, ntohl(req->resp), req->token)) {
		KTG_RX_ADD(sink, rx, refused, 1);
		return;
	}
	if (!tolen)
		return;
	h.magic = htonl(KTG_MAGIC_RESP);
	h.resp = 0;
	h.token = 0;
	/* the header corked when zeros follow; they push the datagram */
	if (len > sizeof(h))
		msg.msg_flags |= MSG_MORE;
	if (kernel_sendmsg(sink->sock, &msg, &hv, 1, sizeof(h)) < 0)
		return;
	if (len > sizeof(h) && ktg_send_zeros(sink->sock, &more, len - sizeof(h)) < 0)
		return;
	KTG_RX_ADD(sink, rx, responses, 1);
}

/*
 * The datagram at [@off, @off + @len) of a read: in @skb, or in @buf when
 * the socket API copied it out (recvmsg; user: its header only). Returns
 * the sending run's counters, NULL when it is not known.
 */
static struct ktg_rx_stats *ktg_sink_dgram(struct ktg_sink *sink, struct sk_buff *skb,
					   const u8 *buf, u32 off, u32 len,
					   struct ktg_worker *w,
					   struct sockaddr_storage *from, int fromlen)
{
	struct ktg_uflow *f = NULL;
	struct ktg_dgram h;
	u32 plen;
	u64 seq;

	if (len < sizeof(h) ||
	    (skb ? skb_copy_bits(skb, off, &h, sizeof(h)) :
		   (memcpy(&h, buf + off, sizeof(h)), 0)) ||
	    (h.magic != htonl(KTG_MAGIC_DATA) && h.magic != htonl(KTG_MAGIC_CLOSE) &&
	     h.magic != htonl(KTG_MAGIC_REQ)) ||
	    !h.pattern_pages) {
		/* Not from ktgen: counted, and read per the mode. */
		atomic64_inc(&sink->stats.msgs);
		atomic64_add(len, &sink->stats.bytes);
		if (len >= sizeof(h))
			atomic64_inc(&sink->stats.bad_headers);
		ktg_dgram_payload(sink, NULL, 0, 0, skb, buf, off, off + len, w);
		return NULL;
	}
	f = ktg_uflow_get(sink, be64_to_cpu(h.cookie), ntohl(h.flow));
	if (!f) {
		/* no room to track its sender: not counted */
		atomic64_inc(&sink->stats.refused);
		return NULL;
	}
	seq = be64_to_cpu(h.seq);
	if (h.magic == htonl(KTG_MAGIC_CLOSE)) {
		ktg_uflow_close(sink, f, seq);
		return f->rx;
	}
	KTG_RX_ADD(sink, f->rx, msgs, 1);
	KTG_RX_ADD(sink, f->rx, bytes, len);
	ktg_uflow_seq(sink, f, seq);
	/* The payload of datagram @seq starts at stream offset seq * plen. */
	plen = len - sizeof(h);
	ktg_dgram_payload(sink, f->rx, ntohl(h.pattern_pages), seq * plen,
			  skb, buf, off + sizeof(h), off + len, w);
	if (h.magic == htonl(KTG_MAGIC_REQ)) {
		if (skb)
			fromlen = ktg_skb_source(sink, skb, from);
		ktg_sink_respond(sink, f->rx, &h, len, from, fromlen);
	}
	return f->rx;
}

/*
 * recvmsg and user: a read through the socket API into w->buf or the
 * user slice, with gro the batch's datagram size from its UDP_GRO cmsg.
 */
static int ktg_sink_udp_recvmsg(struct ktg_sink *sink, struct ktg_worker *w,
				struct sockaddr_storage *from, int *fromlen, u32 *seg)
{
	union {
		struct cmsghdr	hdr;
		u8		buf[CMSG_SPACE(sizeof(int))];
	} cmsg;
	struct msghdr msg = {
		.msg_name	= from,
		.msg_flags	= MSG_DONTWAIT,
		.msg_control	= sink->p.gro ? &cmsg : NULL,
		.msg_controllen	= sink->p.gro ? sizeof(cmsg) : 0,
	};
	int len;

	if (sink->p.rx_mode == KTGEN_RX_MODE_USER) {
		struct iovec iov = { .iov_base = w->ubuf, .iov_len = KTG_RX_BUF };

		iov_iter_init(&msg.msg_iter, ITER_DEST, &iov, 1, KTG_RX_BUF);
		len = ktg_worker_user_msg(w, sink->sock, &msg);
	} else {
		struct kvec iov = { .iov_base = w->buf, .iov_len = KTG_RX_BUF };

		len = kernel_recvmsg(sink->sock, &msg, &iov, 1, KTG_RX_BUF, MSG_DONTWAIT);
	}
	if (len < 0)
		return len;
	*fromlen = msg.msg_namelen;
	/* put_cmsg() moved msg_controllen on by what it wrote */
	if (sink->p.gro && msg.msg_controllen < sizeof(cmsg) &&
	    cmsg.hdr.cmsg_len == CMSG_LEN(sizeof(int)) &&
	    cmsg.hdr.cmsg_level == SOL_UDP && cmsg.hdr.cmsg_type == UDP_GRO)
		*seg = *(int *)CMSG_DATA(&cmsg.hdr);
	return len;
}

/*
 * A datagram whose checksum nobody has checked yet (the device did not,
 * and the stack leaves all but short ones to the reader) is checked as
 * udp_recvmsg() checks it. A wrong one is counted on the sink and where
 * the stack counts its own, InCsumErrors and InErrors of Udp or Udp6 (as
 * UDP_INC_STATS would, whose UDP-Lite argument is not in every kernel).
 */
static bool ktg_skb_csum_bad(struct ktg_sink *sink, struct sk_buff *skb)
{
	struct net *net = sock_net(sink->sock->sk);

	if (!udp_lib_checksum_complete(skb))
		return false;
	atomic64_inc(&sink->stats.csum_errors);
#if IS_ENABLED(CONFIG_IPV6)
	if (skb->protocol != htons(ETH_P_IP)) {
		SNMP_INC_STATS(net->mib.udp_stats_in6, UDP_MIB_CSUMERRORS);
		SNMP_INC_STATS(net->mib.udp_stats_in6, UDP_MIB_INERRORS);
		return true;
	}
#endif
	SNMP_INC_STATS(net->mib.udp_statistics, UDP_MIB_CSUMERRORS);
	SNMP_INC_STATS(net->mib.udp_statistics, UDP_MIB_INERRORS);
	return true;
}

/*
 * One read: a datagram, or with gro a batch of them, @seg bytes each but
 * the last. 0 when none was queued. The skb modes check the checksum and
 * drop a wrong one; recvmsg and user read through udp_recvmsg(), which
 * does (and never hands such a datagram over).
 */
static int ktg_sink_udp_read(struct ktg_sink *sink, struct ktg_worker *w)
{
	bool api = sink->p.rx_mode == KTGEN_RX_MODE_RECVMSG ||
		   sink->p.rx_mode == KTGEN_RX_MODE_USER;
	struct ktg_rx_stats *rx, *first = NULL;
	struct sockaddr_storage from;
	struct sock *sk = sink->sock->sk;
	u32 off = 0, n, seg = 0, hlen = sizeof(struct ktg_dgram);
	struct sk_buff *skb = NULL;
	int err, len, fromlen = 0;

	if (api) {
		len = ktg_sink_udp_recvmsg(sink, w, &from, &fromlen, &seg);
		if (len < 0)
			return 0;
	} else {
		skb = ktg_skb_recv_udp(sk, MSG_DONTWAIT, &err);
		if (!skb)
			return 0;
		if (ktg_skb_csum_bad(sink, skb)) {
			kfree_skb(skb);
			return 1;
		}
		len = skb->len;
		if (skb_is_gso(skb))
			seg = skb_shinfo(skb)->gso_size;
	}
	if (!seg)
		seg = len;
	do {
		n = min_t(u32, seg, len - off);
		/* user: each datagram's header, read back from where the
		 * stack put it; one that cannot be is no ktgen header
		 */
		if (sink->p.rx_mode == KTGEN_RX_MODE_USER &&
		    copy_from_user(w->buf + off, w->ubuf + off, min_t(u32, n, hlen)))
			memset(w->buf + off, 0, min_t(u32, n, hlen));
		rx = ktg_sink_dgram(sink, skb, api ? w->buf : NULL, off, n, w,
				    &from, fromlen);
		if (!first)
			first = rx;
		off += n;
	} while (off < len);
	KTG_RX_ADD(sink, first, reads, 1);
	if (skb)
		ktg_skb_consume_udp(sk, skb);
	return 1;
}

int ktg_sink_udp_worker(void *arg)
{
	struct ktg_worker *w = arg;
	struct ktg_sink *sink = w->owner;
	int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < 64; i++)
			if (!ktg_sink_udp_read(sink, w))
				break;
		ktg_worker_idle(w, i > 0, HZ / 10);
		cond_resched();
	}
	return 0;
}
