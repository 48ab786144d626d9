// SPDX-License-Identifier: GPL-2.0
/*
 * A flow over TCP: its send paths by tx mode, and its drain.
 *   stack     kernel_sendmsg() of kvecs over the source pages: the stack
 *             copies (its own cached copy);
 *   cached    the module memcpy()s into staging pages it owns, which go to
 *             the stack without another copy;
 *   nocache   the same with the non-temporal copy;
 *   zerocopy  the source pages themselves go to the stack;
 *   user      sock_sendmsg() of iovecs over the requester's memory, from
 *             workers that adopted its address space: the stack's own user
 *             copy, non-temporal when the route has tx-nocache-copy.
 * The page modes hand TCP a batch of pages per call.
 */
#include <linux/highmem.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "flow.h"
#include "nocache.h"
#include "run.h"
#include "worker.h"

#define KTG_SEND_CHUNK		SZ_64K		/* bytes per stack send call */

/*
 * TCP stack and user: the stack copies in tcp_sendmsg(), from the source
 * ring (a kvec) or, for tx user, from the requester's memory (an iovec).
 */
int ktg_send_copied(struct ktg_flow *f, u32 len)
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
		return ktg_worker_user_msg(f->worker, f->sock, &msg);
	}
	n = ktg_src_kvecs(f->run, f->off, len, iov.k);
	return kernel_sendmsg(f->sock, &msg, iov.k, n, len);
}

/* The batch given up (the flow drains or closes): our staging references. */
void ktg_tx_drop(struct ktg_flow *f)
{
	u32 i;

	if (ktg_tx_staged(f->run))
		for (i = f->tx_first; i < f->tx_n; i++)
			put_page(f->tx_bv[i].bv_page);
	f->tx_first = 0;
	f->tx_n = 0;
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

int ktg_send_pages(struct ktg_flow *f, u32 len)
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

/* All sent: the FIN goes after it. */
void ktg_tcp_drain_start(struct ktg_flow *f)
{
	kernel_sock_shutdown(f->sock, SHUT_WR);
}

/* What the peer has acknowledged of what the flow wrote (its hello too):
 * bytes_acked (tcpi_bytes_acked) is 64-bit, where snd_una wraps every 4 GiB.
 */
static u64 ktg_tcp_acked(struct ktg_flow *f, u64 written)
{
	struct sock *sk = f->sock->sk;
	u64 acked;

	lock_sock(sk);
	acked = min_t(u64, tcp_sk(sk)->bytes_acked - f->acked0, written);
	release_sock(sk);
	return acked;
}

/*
 * TCP: all acked and the peer closed (a ktgen sink closes once it has read
 * everything); or the socket failed, or the drain timed out, or the run
 * goes away. A flow that ends with bytes the peer never acknowledged, in a
 * run nobody stopped, failed: with the socket's error, or ETIMEDOUT. What
 * it wrote is the hello as far as it went (a run may end between the
 * connect and the hello) and the payload after it.
 */
int ktg_tcp_drain(struct ktg_flow *f)
{
	u64 written = f->hello_sent + f->bytes, acked;
	struct sock *sk = f->sock->sk;
	bool closed, ended;

	/* A stop drains too, so that acked stays exact; going away does not. */
	closed = READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN;
	ended = READ_ONCE(sk->sk_err) || time_after(jiffies, f->deadline) ||
		ktg_run_aborting(f->run);
	if (!closed && !ended)
		return 0;
	acked = ktg_tcp_acked(f, written);
	if (acked < written && !ended)
		return 0;	/* the peer closed: its last acks are coming */

	ktg_flow_tcp_info(f);
	WRITE_ONCE(f->acked, acked > f->hello_sent ? acked - f->hello_sent : 0);
	f->state = KTG_FLOW_DONE;
	if (acked < written && !ktg_run_stopping(f->run)) {
		f->error = sock_error(sk) ?: -ETIMEDOUT;
		ktg_run_flow_failed(f->run, f, f->error);
	}
	return 1;
}
