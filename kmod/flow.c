// SPDX-License-Identifier: GPL-2.0
/*
 * Flows: one socket each, driven by its run's worker. The send paths:
 *   stack     kernel_sendmsg() of kvecs over the source pages: the stack
 *             copies (its own cached copy);
 *   cached    the module memcpy()s into staging pages it owns, which go to
 *             the stack without another copy;
 *   nocache   the same with the non-temporal copy;
 *   zerocopy  the source pages themselves go to the stack;
 *   user      sock_sendmsg() of iovecs over the requester's memory, from
 *             workers that adopted its address space: the stack's own user
 *             copy, non-temporal when the route has tx-nocache-copy (TCP).
 * TCP sends the page modes a page per call; UDP builds each datagram whole
 * in one go (header, then its pages, corked).
 * Every call is MSG_DONTWAIT: a flow that cannot send leaves its worker to
 * sleep until the socket reports write space.
 */
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/dst.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "compat.h"
#include "run.h"

#define KTG_CONNECT_TIMEOUT	(30 * HZ)
#define KTG_DRAIN_TIMEOUT	(30 * HZ)
#define KTG_SEND_CHUNK		SZ_64K		/* bytes per stack send call */
/* Staging starts small and doubles when every page is in flight, up to
 * twice what the socket may hold unacked (within these bounds).
 */
#define KTG_STAGE_INIT_PAGES	(2 * KTG_TX_BATCH)
#define KTG_STAGE_MIN_PAGES	256
#define KTG_STAGE_MAX_PAGES	4096
#define KTG_UDP_CLOSES		3
#define KTG_UDP_CLOSE_GAP	(HZ / 20)
/* pages of one datagram's payload: unaligned, it spans one more */
#define KTG_DGRAM_PAGES		(DIV_ROUND_UP(KTG_MAX_UDP_SIZE, PAGE_SIZE) + 1)

static bool ktg_flow_tcp(const struct ktg_flow *f)
{
	u32 test = f->run->p.test;

	return test == KTGEN_TEST_TCP_STREAM || test == KTGEN_TEST_TCP_RR ||
	       test == KTGEN_TEST_TCP_CRR;
}

static bool ktg_flow_crr(const struct ktg_flow *f);

/* SO_SNDBUF as setsockopt() sets it (no exported helper in every kernel). */
static void ktg_set_sndbuf(struct sock *sk, u32 val)
{
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_SNDBUF_LOCK;
	WRITE_ONCE(sk->sk_sndbuf, max_t(u32, val * 2, SOCK_MIN_SNDBUF));
	sk->sk_write_space(sk);
	release_sock(sk);
}

static bool ktg_flow_crr(const struct ktg_flow *f)
{
	return f->run->p.test == KTGEN_TEST_TCP_CRR;
}

/* tcp-crr: the transaction's connection is over. */
static void ktg_crr_close(struct ktg_flow *f)
{
	if (!f->sock)
		return;
	ktg_sock_unwatch(&f->watch);
	ktg_sock_release(f->sock);
	f->sock = NULL;
}

/*
 * The flow's socket, set up and connecting without waiting. Connection
 * errors (refused, unreachable) are the flow's result, reported with the
 * run's, not a refusal of the request: they come back in @cerr.
 */
static int ktg_flow_socket(struct ktg_flow *f, struct netlink_ext_ack *extack, int *cerr)
{
	struct ktg_run_params *p = &f->run->p;
	bool tcp = ktg_flow_tcp(f);
	struct sock *sk;
	int err;

	err = sock_create_kern(f->run->kn->net, p->remote.ss_family,
			       tcp ? SOCK_STREAM : SOCK_DGRAM,
			       tcp ? IPPROTO_TCP : IPPROTO_UDP, &f->sock);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create a socket for the flow");
		return err;
	}
	sk = f->sock->sk;
	if (p->sndbuf)
		ktg_set_sndbuf(sk, p->sndbuf);
	/* request/response: no request waits for an ACK (Nagle) */
	if (tcp && (p->nodelay || ktg_test_rr(p->test)))
		tcp_sock_set_nodelay(sk);
	if (p->ifindex) {
		err = sock_bindtoindex(sk, p->ifindex, true);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot bind the flow to the device");
			return err;
		}
	}
	if (p->has_local) {
		err = kernel_bind(f->sock, KTG_SOCKADDR(&p->local),
				  ktg_addr_len(&p->local));
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot bind the flow to the local address");
			return err;
		}
	}
	f->deadline = jiffies + KTG_CONNECT_TIMEOUT;
	err = kernel_connect(f->sock, KTG_SOCKADDR(&p->remote),
			     ktg_addr_len(&p->remote), O_NONBLOCK);
	*cerr = err == -EINPROGRESS ? 0 : err;
	return 0;
}

/*
 * UDP gso: the socket's UDP_SEGMENT is the run's size, so one send of
 * several datagrams leaves as one GSO skb. The stack refuses such sends
 * (EINVAL, EIO) when a datagram does not fit the route's MTU or its device
 * does not offload checksums: both are known once connected, and refused
 * here with a reason rather than failing the first send.
 */
static int ktg_flow_gso(struct ktg_flow *f, struct netlink_ext_ack *extack)
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

int ktg_flow_open(struct ktg_flow *f, struct netlink_ext_ack *extack)
{
	struct ktg_run *run = f->run;
	struct ktg_run_params *p = &run->p;
	bool tcp = ktg_flow_tcp(f);
	int err, cerr = 0;

	if (ktg_test_rr(p->test)) {
		f->hist = kvmalloc(sizeof(*f->hist), GFP_KERNEL);
		f->rbuf = kmalloc(KTG_RR_RBUF, GFP_KERNEL);
		if (!f->hist || !f->rbuf) {
			NL_SET_ERR_MSG(extack, "no memory for the flow's latency histogram");
			return -ENOMEM;
		}
		ktg_hist_reset(f->hist);
	}
	/* tcp-crr connects for each transaction */
	if (!ktg_flow_crr(f)) {
		err = ktg_flow_socket(f, extack, &cerr);
		if (err)
			return err;
	}
	if (p->gso && !cerr) {
		err = ktg_flow_gso(f, extack);
		if (err)
			return err;
	}
	if (p->tx_mode == KTGEN_TX_MODE_CACHED || p->tx_mode == KTGEN_TX_MODE_NOCACHE) {
		u32 sndbuf = p->sndbuf ?: tcp ?
			READ_ONCE(run->kn->net->ipv4.sysctl_tcp_wmem[2]) :
			READ_ONCE(f->sock->sk->sk_sndbuf);

		f->stage_max = clamp_t(u32, 2 * (sndbuf >> PAGE_SHIFT),
				       KTG_STAGE_MIN_PAGES, KTG_STAGE_MAX_PAGES);
		err = ktg_pages_alloc(&f->stage, KTG_STAGE_INIT_PAGES, false);
		if (err) {
			if (err == -ENOSPC)
				NL_SET_ERR_MSG(extack, "staging pages exceed the buffer budget");
			else
				NL_SET_ERR_MSG(extack, "no memory for staging pages");
			return err;
		}
	}

	f->hello.magic = htonl(KTG_MAGIC_HELLO);
	f->hello.version = htons(KTG_WIRE_VERSION);
	f->hello.test = htons(p->test);
	f->hello.cookie = cpu_to_be64(run->cookie);
	f->hello.flow = htonl(f->id);
	f->hello.pattern_pages = htonl(run->pattern_pages);
	f->hello.req = htonl(ktg_test_rr(p->test) ? p->req_size : 0);
	f->hello.resp = htonl(ktg_test_rr(p->test) ? p->resp_size : 0);
	f->hello.token = cpu_to_be64(ktg_test_rr(p->test) ? p->token : 0);

	f->state = ktg_flow_crr(f) ? KTG_FLOW_SEND : KTG_FLOW_CONNECT;
	if (cerr) {
		/* The run starts and fails at once with the flow's errno. */
		f->error = cerr;
		f->state = KTG_FLOW_DONE;
		ktg_run_flow_failed(run, f, cerr);
	}
	return 0;
}

static bool ktg_tx_staged(const struct ktg_run *run)
{
	return run->p.tx_mode != KTGEN_TX_MODE_ZEROCOPY;
}

/* The batch given up (the flow drains or closes): our staging references. */
static void ktg_tx_drop(struct ktg_flow *f)
{
	u32 i;

	if (ktg_tx_staged(f->run))
		for (i = f->tx_first; i < f->tx_n; i++)
			put_page(f->tx_bv[i].bv_page);
	f->tx_first = 0;
	f->tx_n = 0;
}

/*
 * The run's end (its workers are gone): a flow's socket closes with a
 * reset. A drained flow's connection is in TIME-WAIT already, or in
 * CLOSING with everything read by the peer: the reset only spares it an
 * orphan that retransmits its FIN for minutes under loss. One cut short
 * (stopped, failed, going away) leaves nothing behind either.
 */
void ktg_flow_close(struct ktg_flow *f)
{
	if (f->sock) {
		ktg_sock_unwatch(&f->watch);
		sock_no_linger(f->sock->sk);
		ktg_sock_release(f->sock);
		f->sock = NULL;
	}
	ktg_tx_drop(f);
	ktg_pages_free(&f->stage);
	kfree(f->rbuf);
	f->rbuf = NULL;
	kfree(f->gso_hdr);
	f->gso_hdr = NULL;
	kfree(f->gso_iov);
	f->gso_iov = NULL;
}

/* After the workers are gone: the histogram stays for the results. */
void ktg_flow_free(struct ktg_flow *f)
{
	kvfree(f->hist);
	f->hist = NULL;
}

/* The flow sends no more; the last one closes the run's CPU window. */
static void ktg_flow_sent_all(struct ktg_flow *f)
{
	if (atomic_dec_and_test(&f->run->sending))
		ktg_cpu_acct_stop(&f->run->cpu);
}

static void ktg_flow_fail(struct ktg_flow *f, int err)
{
	ktg_flow_sent_all(f);
	f->error = err;
	f->state = KTG_FLOW_DONE;
	ktg_run_flow_failed(f->run, f, err);
}

static int ktg_flow_connect(struct ktg_flow *f)
{
	struct sock *sk = f->sock->sk;

	if (ktg_run_stopping(f->run)) {
		f->state = KTG_FLOW_DONE;
		ktg_flow_sent_all(f);
		return 1;
	}
	if (!ktg_flow_tcp(f) || sk->sk_state == TCP_ESTABLISHED) {
		if (ktg_flow_tcp(f)) {
			f->acked0 = READ_ONCE(tcp_sk(sk)->bytes_acked);
			/* set up with the route at connect, fixed from then on */
			WRITE_ONCE(f->nocache_route,
				   !!(sk->sk_route_caps & NETIF_F_NOCACHE_COPY));
		}
		f->state = KTG_FLOW_SEND;
		return 1;
	}
	if (sk->sk_err || sk->sk_state == TCP_CLOSE) {
		int err = sock_error(sk);

		ktg_flow_fail(f, err ?: -ECONNREFUSED);
		return 1;
	}
	if (time_after(jiffies, f->deadline)) {
		ktg_flow_fail(f, -ETIMEDOUT);
		return 1;
	}
	return 0;
}

/* Up to @len source bytes from stream offset @off as kvecs; returns count. */
static int ktg_src_kvecs(struct ktg_run *run, u64 off, u32 len, struct kvec *iov)
{
	u64 size = (u64)run->src.npages << PAGE_SHIFT;
	u64 o = off % size;
	int n = 0;

	while (len) {
		u32 pgoff = o & ~PAGE_MASK;
		u32 chunk = min_t(u32, len, PAGE_SIZE - pgoff);

		iov[n].iov_base = page_address(run->src.pages[o >> PAGE_SHIFT]) + pgoff;
		iov[n].iov_len = chunk;
		n++;
		len -= chunk;
		o = (o + chunk) % size;
	}
	return n;
}

/* The same span as iovecs over the user copy of the source (tx user). */
static int ktg_src_iovecs(struct ktg_run *run, u64 off, u32 len, struct iovec *iov)
{
	u64 size = (u64)run->src.npages << PAGE_SHIFT;
	u64 o = off % size;
	int n = 0;

	while (len) {
		u32 chunk = min_t(u64, len, size - o);

		iov[n].iov_base = u64_to_user_ptr(run->p.user_buf + o);
		iov[n].iov_len = chunk;
		n++;
		len -= chunk;
		o = 0;
	}
	return n;
}

/*
 * TCP stack and user: the stack copies in tcp_sendmsg(), from the source
 * ring (a kvec) or, for tx user, from the requester's memory (an iovec).
 */
static int ktg_send_copied(struct ktg_flow *f, u32 len)
{
	union {
		struct kvec	k[KTG_SEND_CHUNK / PAGE_SIZE + 1];
		struct iovec	u[KTG_SEND_CHUNK / PAGE_SIZE + 1];
	} iov;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	int n;

	len = min_t(u32, len, KTG_SEND_CHUNK);
	if (f->msg_left > len)
		msg.msg_flags |= MSG_MORE;
	if (f->run->p.tx_mode == KTGEN_TX_MODE_USER) {
		n = ktg_src_iovecs(f->run, f->off, len, iov.u);
		iov_iter_init(&msg.msg_iter, ITER_SOURCE, iov.u, n, len);
		ktg_worker_uaccess(f->worker, true);
		n = sock_sendmsg(f->sock, &msg);
		ktg_worker_uaccess(f->worker, false);
		return n;
	}
	n = ktg_src_kvecs(f->run, f->off, len, iov.k);
	return kernel_sendmsg(f->sock, &msg, iov.k, n, len);
}

/* A staging page the stack no longer holds, or NULL when all are in flight. */
static struct page *ktg_stage_page(struct ktg_flow *f)
{
	u32 i, n = f->stage.npages;

	for (i = 0; i < n; i++) {
		struct page *pg = f->stage.pages[f->stage_next];

		f->stage_next = (f->stage_next + 1) % n;
		if (page_ref_count(pg) == 1)
			return pg;
	}
	if (n == f->stage_max)
		return NULL;
	/* Every page in flight: the ring doubles. When the budget or the
	 * allocator says no, the flow makes do with what it has.
	 */
	if (ktg_pages_grow(&f->stage, min(2 * n, f->stage_max))) {
		f->stage_max = n;
		return NULL;
	}
	f->stage_next = (n + 1) % f->stage.npages;
	return f->stage.pages[n];
}

/* Copy @len bytes at @off of @src into the same place of @dst (cached or
 * nocache).
 */
static void ktg_stage_copy(struct ktg_run *run, struct page *dst, struct page *src,
			   u32 off, u32 len)
{
	void *to = page_address(dst) + off;
	void *from = page_address(src) + off;

	if (run->p.tx_mode == KTGEN_TX_MODE_NOCACHE)
		ktg_copy_nocache(to, from, len);
	else
		memcpy(to, from, len);
}

/* From the stack's side, after a send that returned: does it hold the page
 * it was handed (beyond our @refs), or did it copy?
 */
static void ktg_splice_account(struct ktg_run *run, struct page *pg, int refs)
{
	if (page_ref_count(pg) > refs)
		atomic_inc(&run->splice_held);
	else
		atomic_inc(&run->splice_copied);
}

/*
 * TCP cached, nocache, zerocopy: up to KTG_TX_BATCH pages of the message
 * per call, copied into staging pages first unless zerocopy. Handing TCP
 * a page per call made it push a 2-MSS skb after each (64000-byte writes
 * left at 2.5 KB a packet on a veth); a batch lets the skb grow to its
 * size goal, as a kvec does for tx stack.
 */
static int ktg_tx_fill(struct ktg_flow *f, u32 len)
{
	struct ktg_run *run = f->run;
	u64 size = (u64)run->src.npages << PAGE_SHIFT;
	u64 off = f->off;
	u32 n = 0;

	while (len && n < KTG_TX_BATCH) {
		struct page *pg = run->src.pages[(off % size) >> PAGE_SHIFT];
		u32 pgoff = off & ~PAGE_MASK;
		u32 chunk = min_t(u32, len, PAGE_SIZE - pgoff);

		if (ktg_tx_staged(run)) {
			struct page *src = pg;

			/* Ours until the stack has taken it: a page of the
			 * batch is never picked twice (that wrote one chunk
			 * over another once every other page was in flight).
			 */
			pg = ktg_stage_page(f);
			if (!pg)
				break;
			get_page(pg);
			ktg_stage_copy(run, pg, src, pgoff, chunk);
		}
		f->tx_bv[n].bv_page = pg;
		f->tx_bv[n].bv_offset = pgoff;
		f->tx_bv[n].bv_len = chunk;
		n++;
		off += chunk;
		len -= chunk;
	}
	f->stage_blocked = !n;
	if (!n)
		return -ENOBUFS;
	if (run->p.tx_mode == KTGEN_TX_MODE_NOCACHE)
		ktg_copy_fence();
	f->tx_first = 0;
	f->tx_n = n;
	return n;
}

/* @sent bytes of the batch taken: whole pages leave it, accounted. */
static void ktg_tx_advance(struct ktg_flow *f, u32 sent)
{
	while (sent) {
		struct bio_vec *bv = &f->tx_bv[f->tx_first];
		u32 n = min(sent, bv->bv_len);

		bv->bv_offset += n;
		bv->bv_len -= n;
		sent -= n;
		if (!bv->bv_len) {
			bool staged = ktg_tx_staged(f->run);

			/* the staging ring's reference and the batch's */
			ktg_splice_account(f->run, bv->bv_page, staged ? 2 : 1);
			if (staged)
				put_page(bv->bv_page);
			f->tx_first++;
		}
	}
}

static int ktg_send_pages(struct ktg_flow *f, u32 len)
{
	int flags = MSG_DONTWAIT;
	u32 left = 0, i;
	int ret;

	if (f->tx_first == f->tx_n) {
		ret = ktg_tx_fill(f, len);
		if (ret < 0)
			return ret;
	}
	for (i = f->tx_first; i < f->tx_n; i++)
		left += f->tx_bv[i].bv_len;
	if (f->msg_left > left)
		flags |= MSG_MORE;
	ret = ktg_send_bvec(f->sock, f->tx_bv + f->tx_first, f->tx_n - f->tx_first,
			    left, flags);
	if (ret > 0)
		ktg_tx_advance(f, ret);
	return ret;
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
static int ktg_send_dgram(struct ktg_flow *f, u32 len, u32 magic, u64 seq)
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
static int ktg_send_dgram_gso(struct ktg_flow *f)
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
static void ktg_gso_reserve(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;
	u32 len;

	while (f->msg_n < run->p.gso && f->msg_left == f->msg_n * run->p.size &&
	       ktg_run_reserve(run, &len)) {
		f->msg_left += len;
		f->msg_n++;
	}
}

/* The datagram's ktgen header (@hlen bytes: the header or 0) corked with
 * MSG_MORE for the payload to follow: @hlen, or -errno.
 */
static int ktg_dgram_cork_head(struct ktg_flow *f, u32 hlen)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_MORE };
	struct ktg_dgram h;
	struct kvec hv = { .iov_base = &h, .iov_len = hlen };
	int ret;

	if (!hlen)
		return 0;
	ktg_dgram_head(f, &h, KTG_MAGIC_DATA, f->seq);
	ret = kernel_sendmsg(f->sock, &msg, &hv, 1, hlen);
	return ret < 0 ? ret : hlen;
}

/*
 * UDP user: the header corked (MSG_MORE), then the payload from user
 * memory, which pushes the datagram. A failed payload send has made the
 * stack drop the corked header: the datagram starts over, or is dropped.
 */
static int ktg_send_dgram_user(struct ktg_flow *f, u32 len)
{
	struct iovec iov[KTG_DGRAM_PAGES];
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	u32 hlen = len >= sizeof(struct ktg_dgram) ? sizeof(struct ktg_dgram) : 0;
	u32 plen = len - hlen;
	int n, ret;

	ret = ktg_dgram_cork_head(f, hlen);
	if (ret < 0)
		return ret;
	n = ktg_src_iovecs(f->run, f->seq * plen, plen, iov);
	iov_iter_init(&msg.msg_iter, ITER_SOURCE, iov, n, plen);
	ret = sock_sendmsg(f->sock, &msg);
	return ret < 0 ? ret : len;
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
static int ktg_send_dgram_pages(struct ktg_flow *f, u32 len)
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

	ret = ktg_dgram_cork_head(f, hlen);
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

static void ktg_flow_drain_start(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;

	f->state = KTG_FLOW_DRAIN;
	f->deadline = jiffies + KTG_DRAIN_TIMEOUT;
	f->next_close = jiffies;
	ktg_tx_drop(f);
	/* udp-rr: the request in flight was sent, answered or not */
	if (!ktg_flow_tcp(f) && f->waiting) {
		f->seq++;
		f->waiting = false;
	}
	if (ktg_flow_crr(f)) {
		/* nothing to drain: the transaction in flight is dropped */
		ktg_crr_close(f);
		f->state = KTG_FLOW_DONE;
	} else if (ktg_flow_tcp(f)) {
		kernel_sock_shutdown(f->sock, SHUT_WR);
	}
	/* The measured window ends with the last payload byte sent. */
	spin_lock(&run->end_lock);
	run->end = ktime_get();
	spin_unlock(&run->end_lock);
	ktg_flow_sent_all(f);
}

/* What TCP says of the connection once all is sent: retransmits, RTT,
 * congestion window.
 */
static void ktg_flow_tcp_info(struct ktg_flow *f)
{
	struct tcp_info ti;

	tcp_get_info(f->sock->sk, &ti);
	f->retrans = ti.tcpi_total_retrans;
	f->srtt_us = ti.tcpi_rtt;
	f->cwnd = ti.tcpi_snd_cwnd;
	WRITE_ONCE(f->has_info, true);
}

/* TCP: all acked and the peer closed (a ktgen sink closes once it has read
 * everything), or the drain timed out. UDP: the closing datagrams went.
 */
static int ktg_flow_drain(struct ktg_flow *f)
{
	struct sock *sk = f->sock->sk;
	u64 written, acked;

	if (!ktg_flow_tcp(f)) {
		/* Spaced out, so that a receive queue full of data when the
		 * first one arrives does not drop them all.
		 */
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
	/* A stop drains too, so that acked stays exact; going away does not. */
	if (!(READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) && !sk->sk_err &&
	    !time_after(jiffies, f->deadline) && !ktg_run_aborting(f->run))
		return 0;

	/* bytes_acked (tcpi_bytes_acked) is 64-bit: snd_una wraps every 4 GiB */
	ktg_flow_tcp_info(f);
	lock_sock(sk);
	written = sizeof(f->hello) + f->bytes;
	acked = min_t(u64, tcp_sk(sk)->bytes_acked - f->acked0, written);
	release_sock(sk);
	f->acked = acked > sizeof(f->hello) ? acked - sizeof(f->hello) : 0;
	f->state = KTG_FLOW_DONE;
	return 1;
}

static int ktg_flow_hello(struct ktg_flow *f)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_MORE };
	struct kvec iov = {
		.iov_base = (u8 *)&f->hello + f->hello_sent,
		.iov_len = sizeof(f->hello) - f->hello_sent,
	};
	int ret;

	ret = kernel_sendmsg(f->sock, &msg, &iov, 1, iov.iov_len);
	if (ret > 0)
		f->hello_sent += ret;
	return ret;
}

/*
 * Pacing, a token bucket kept as a virtual clock: the next send call may
 * go at pace_next, which each call moves on by its cost (its bits at
 * pace-bps, or one packet's time at pace-pps), never more than a burst's
 * worth behind now, so an idle spell saves at most one burst. Without a
 * burst given, a flow may catch up KTG_PACE_SLACK of lateness (its
 * worker wakes a little late), else it would fall short of its rate.
 */
#define KTG_PACE_SLACK		(500 * NSEC_PER_USEC)

static bool ktg_flow_paced(struct ktg_flow *f, u32 len, u32 pkts)
{
	const struct ktg_run_params *p = &f->run->p;
	u64 cost, burst;
	ktime_t now;

	if (!p->pace_bps && !p->pace_pps)
		return true;
	now = ktime_get();
	if (ktime_before(now, f->pace_next)) {
		ktg_worker_wake_at(f->worker, f->pace_next);
		return false;
	}
	if (p->pace_bps) {
		cost = mul_u64_u64_div_u64(len, 8 * NSEC_PER_SEC, p->pace_bps);
		burst = mul_u64_u64_div_u64(p->burst, 8 * NSEC_PER_SEC, p->pace_bps);
	} else {
		cost = div_u64(NSEC_PER_SEC, p->pace_pps);
		burst = cost * p->burst;
		cost *= pkts;
	}
	burst = p->burst ? max(burst, cost) : cost + KTG_PACE_SLACK;
	/* credit for at most one burst: the burst's first call goes now */
	if (ktime_before(f->pace_next, ktime_sub_ns(now, burst - cost)))
		f->pace_next = ktime_sub_ns(now, burst - cost);
	f->pace_next = ktime_add_ns(f->pace_next, cost);
	return true;
}

/* Test hook: busy-wait this long for each message sent, a calibrated
 * slowdown for the verdict tests of ktgen ab. 0 (the default) is off.
 */
static unsigned int test_send_delay_ns;
module_param(test_send_delay_ns, uint, 0600);
MODULE_PARM_DESC(test_send_delay_ns, "test hook: busy-wait this long per message sent (0: off, at most 1 ms)");

/* A stream's data datagram: the payload at the flow's offset. */
static int ktg_send_dgram_data(struct ktg_flow *f, u32 len)
{
	return ktg_send_dgram(f, len, KTG_MAGIC_DATA, f->seq);
}

/*
 * How each tx mode sends a stream's message: over TCP, the stack's copy
 * (of the module's kvec or of user memory) or the module's pages; over
 * UDP, a datagram of either (a GSO batch apart). By mode, so that no send
 * call asks which mode it is in.
 */
static const struct ktg_tx_ops {
	int (*tcp)(struct ktg_flow *f, u32 len);
	int (*udp)(struct ktg_flow *f, u32 len);
} ktg_tx_ops[] = {
	[KTGEN_TX_MODE_STACK]		= { ktg_send_copied, ktg_send_dgram_data },
	[KTGEN_TX_MODE_CACHED]		= { ktg_send_pages, ktg_send_dgram_pages },
	[KTGEN_TX_MODE_NOCACHE]		= { ktg_send_pages, ktg_send_dgram_pages },
	[KTGEN_TX_MODE_ZEROCOPY]	= { ktg_send_pages, ktg_send_dgram_pages },
	[KTGEN_TX_MODE_USER]		= { ktg_send_copied, ktg_send_dgram_user },
};

/* One send call's worth of progress: >0 progress, 0 blocked, <0 error. */
static int ktg_flow_send_one(struct ktg_flow *f)
{
	int (*send)(struct ktg_flow *f, u32 len);
	struct ktg_run *run = f->run;
	u32 len;
	int ret;

	if (ktg_flow_tcp(f) && f->hello_sent < sizeof(f->hello))
		return ktg_flow_hello(f);
	if (!f->msg_left) {
		u32 batch = run->p.gso ?: 1;

		if (!ktg_flow_paced(f, run->p.size * batch, batch))
			return -EAGAIN;
		if (!ktg_run_reserve(run, &len)) {
			ktg_flow_drain_start(f);
			return 1;
		}
		f->msg_left = len;
		f->msg_n = 1;
		if (run->p.gso)
			ktg_gso_reserve(f);
		if (unlikely(READ_ONCE(test_send_delay_ns)))
			ndelay(min(READ_ONCE(test_send_delay_ns), 1000000U));
	}
	if (!ktg_flow_tcp(f)) {
		send = ktg_tx_ops[run->p.tx_mode].udp;
		ret = f->msg_n > 1 ? ktg_send_dgram_gso(f) :
		      INDIRECT_CALL_3(send, ktg_send_dgram_data, ktg_send_dgram_pages,
				      ktg_send_dgram_user, f, f->msg_left);
		if ((ret == -ENOBUFS && !f->stage_blocked) || ret == -ENOMEM) {
			/* Dropped before the wire: not sent, and not lost. */
			atomic64_add(f->msg_n, &run->send_errors);
			f->msg_left = 0;
			return 1;
		}
		if (ret > 0) {
			f->seq += f->msg_n;
			f->bytes += ret;
			f->msgs += f->msg_n;
			f->msg_left = 0;
		}
		return ret;
	}
	send = ktg_tx_ops[run->p.tx_mode].tcp;
	ret = INDIRECT_CALL_2(send, ktg_send_copied, ktg_send_pages, f, f->msg_left);
	if (ret > 0) {
		f->off += ret;
		f->bytes += ret;
		f->msg_left -= ret;
		if (!f->msg_left)
			f->msgs++;
	}
	return ret;
}

/* --- request/response --- */

/* A transaction done (or given up): the next one is due one period after
 * this one's slot in open loop, at once in closed loop.
 */
static void ktg_rr_next(struct ktg_flow *f)
{
	f->waiting = false;
	if (f->run->p.rate)
		f->t_due = ktime_add_ns(f->t_due, div_u64(NSEC_PER_SEC, f->run->p.rate));
}

static void ktg_rr_done(struct ktg_flow *f)
{
	/* open loop: from the slot, so a stall delays every later one */
	ktg_hist_add(f->hist, ktime_to_ns(ktime_sub(ktime_get(), f->t_due)));
	WRITE_ONCE(f->msgs, f->msgs + 1);
	ktg_rr_next(f);
}

/* Time for the next request? Open loop waits for its slot. */
static bool ktg_rr_due(struct ktg_flow *f)
{
	ktime_t now = ktime_get();

	if (!f->run->p.rate) {
		f->t_due = now;
		return true;
	}
	if (!f->t_due)
		f->t_due = now;
	if (ktime_before(now, f->t_due)) {
		ktg_worker_wake_at(f->worker, f->t_due);
		return false;
	}
	return true;
}

/* TCP: the request, then the response read whole. */
static int ktg_rr_tcp(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;
	u32 len;
	int ret;

	if (f->hello_sent < sizeof(f->hello))
		return ktg_flow_hello(f);
	if (f->waiting) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		struct kvec iov = {
			.iov_base = f->rbuf,
			.iov_len = min_t(u32, f->resp_left, KTG_RR_RBUF),
		};

		ret = kernel_recvmsg(f->sock, &msg, &iov, 1, iov.iov_len, MSG_DONTWAIT);
		if (ret <= 0)
			return ret ?: -ECONNRESET;	/* the sink went away */
		f->resp_left -= ret;
		if (!f->resp_left)
			ktg_rr_done(f);
		return ret;
	}
	if (!f->msg_left) {
		if (!ktg_rr_due(f))
			return -EAGAIN;
		if (!ktg_run_reserve(run, &len)) {
			ktg_flow_drain_start(f);
			return 1;
		}
		f->msg_left = len;
		f->t_sent = ktime_get();
	}
	ret = ktg_send_copied(f, f->msg_left);
	if (ret <= 0)
		return ret;
	f->off += ret;
	WRITE_ONCE(f->bytes, f->bytes + ret);
	f->msg_left -= ret;
	if (!f->msg_left) {
		f->waiting = true;
		f->resp_left = run->p.resp_size;
	}
	return ret;
}

/*
 * tcp-crr: each transaction connects (its slot is taken before), sends
 * the hello and the request, reads the response and closes; the latency
 * covers it all but the close.
 */
static int ktg_crr_tcp(struct ktg_flow *f)
{
	u64 done = f->msgs;
	struct sock *sk;
	int ret, cerr;
	u32 len;

	if (!f->sock) {
		if (!ktg_rr_due(f))
			return -EAGAIN;
		if (!ktg_run_reserve(f->run, &len)) {
			ktg_flow_drain_start(f);
			return 1;
		}
		ret = ktg_flow_socket(f, NULL, &cerr);
		if (ret || cerr) {
			ktg_crr_close(f);
			return ret ?: cerr;
		}
		ktg_sock_watch(&f->watch, f->sock, f->worker);
		f->msg_left = len;
		f->hello_sent = 0;
		f->off = 0;		/* each connection is a stream of its own */
		f->t_sent = ktime_get();
		return 1;
	}
	sk = f->sock->sk;
	if (!f->hello_sent && sk->sk_state != TCP_ESTABLISHED) {
		if (sk->sk_err || sk->sk_state == TCP_CLOSE)
			return sock_error(sk) ?: -ECONNREFUSED;
		if (time_after(jiffies, f->deadline))
			return -ETIMEDOUT;
		return -EAGAIN;		/* the connect's completion wakes us */
	}
	ret = ktg_rr_tcp(f);
	if (f->msgs != done)
		ktg_crr_close(f);
	return ret;
}

/* UDP, waiting: the response to request seq, or the next request after
 * the timeout; one to an earlier request is counted apart, as late.
 */
static int ktg_rr_udp_wait(struct ktg_flow *f)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec iov = { .iov_base = f->rbuf, .iov_len = KTG_RR_RBUF };
	ktime_t give_up = ktime_add_ms(f->t_sent, f->run->p.rr_timeout_ms);
	const struct ktg_dgram *h = f->rbuf;
	int ret;

	ret = kernel_recvmsg(f->sock, &msg, &iov, 1, KTG_RR_RBUF, MSG_DONTWAIT);
	if (ret == -EAGAIN) {
		if (ktime_before(ktime_get(), give_up)) {
			ktg_worker_wake_at(f->worker, give_up);
			return -EAGAIN;
		}
		WRITE_ONCE(f->timeouts, f->timeouts + 1);
		f->seq++;
		ktg_rr_next(f);
		return 1;
	}
	if (ret < 0)
		return ret == -ECONNREFUSED ? 1 : ret;	/* ICMP: time out */
	if (ret < sizeof(*h) || h->magic != htonl(KTG_MAGIC_RESP) ||
	    be64_to_cpu(h->cookie) != f->run->cookie || ntohl(h->flow) != f->id)
		return 1;
	if (be64_to_cpu(h->seq) != f->seq) {
		WRITE_ONCE(f->late, f->late + 1);
		return 1;
	}
	f->seq++;
	ktg_rr_done(f);
	return 1;
}

/* UDP: a request datagram, then its response (matched by seq) or, after
 * the timeout, the next request; a response too late is counted apart.
 */
static int ktg_rr_udp(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;
	u32 len;
	int ret;

	if (f->waiting)
		return ktg_rr_udp_wait(f);
	if (!f->msg_left) {
		if (!ktg_rr_due(f))
			return -EAGAIN;
		if (!ktg_run_reserve(run, &len)) {
			ktg_flow_drain_start(f);
			return 1;
		}
		f->msg_left = len;
		if (unlikely(READ_ONCE(test_send_delay_ns)))
			ndelay(min(READ_ONCE(test_send_delay_ns), 1000000U));
	}
	f->t_sent = ktime_get();
	ret = ktg_send_dgram(f, f->msg_left, KTG_MAGIC_REQ, f->seq);
	if (ret == -ENOBUFS || ret == -ENOMEM) {
		/* dropped before the wire: a send error, then the next */
		atomic64_inc(&run->send_errors);
		f->msg_left = 0;
		f->seq++;
		ktg_rr_next(f);
		return 1;
	}
	if (ret <= 0)
		return ret;
	WRITE_ONCE(f->bytes, f->bytes + ret);
	f->msg_left = 0;
	f->waiting = true;
	return ret;
}

/* A sending flow's step, by test: a stream's send call, a transaction's
 * next move (request, response, or for crr the connection's).
 */
static int (*const ktg_test_ops[])(struct ktg_flow *f) = {
	[KTGEN_TEST_TCP_STREAM]	= ktg_flow_send_one,
	[KTGEN_TEST_UDP_STREAM]	= ktg_flow_send_one,
	[KTGEN_TEST_TCP_RR]	= ktg_rr_tcp,
	[KTGEN_TEST_UDP_RR]	= ktg_rr_udp,
	[KTGEN_TEST_TCP_CRR]	= ktg_crr_tcp,
};

/* Work for the flow's worker: >0 when it made progress, 0 when it waits. */
int ktg_flow_step(struct ktg_flow *f)
{
	int (*step)(struct ktg_flow *f) = ktg_test_ops[f->run->p.test];
	int ret, progress = 0;
	bool expired;
	u32 i;

	switch (f->state) {
	case KTG_FLOW_CONNECT:
		return ktg_flow_connect(f);
	case KTG_FLOW_DRAIN:
		return ktg_flow_drain(f);
	case KTG_FLOW_DONE:
		return 0;
	case KTG_FLOW_SEND:
		break;
	}
	/* The clock once a visit (a visit is a few calls), the flag each call. */
	expired = ktime_after(ktime_get(), f->run->deadline);
	for (i = 0; i < f->run->visit && f->state == KTG_FLOW_SEND; i++) {
		if (expired || ktg_run_stopping(f->run)) {
			/* A stop or the time limit ends the send call too. */
			f->msg_left = 0;
			ktg_flow_drain_start(f);
			return 1;
		}
		ret = INDIRECT_CALL_4(step, ktg_flow_send_one, ktg_rr_tcp, ktg_rr_udp,
				      ktg_crr_tcp, f);
		if (ret == -EAGAIN || ret == -ENOBUFS)
			return progress;	/* write space or pages will come */
		if (ret < 0) {
			ktg_flow_fail(f, ret);
			return 1;
		}
		progress += ret > 0;
	}
	return progress;
}
