// SPDX-License-Identifier: GPL-2.0
/*
 * A TCP sink's receive path: the listening socket's accepts, connections
 * spread over the workers, their hellos, tcp-rr responses, and the close
 * of what a sink held when it goes.
 */
#include <linux/kthread.h>
#include <linux/slab.h>
#include <net/inet_connection_sock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "ktgen.h"
#include "proto.h"
#include "rx.h"
#include "sink.h"
#include "stats.h"
#include "worker.h"

#define KTG_RX_ROUND	SZ_1M		/* bytes per connection per round */
#define KTG_ACCEPT_ROUND	64	/* connections accepted per pass */
#define KTG_FIN_WAIT		(2 * HZ)	/* for the peer to ack the sink's FIN */
#define KTG_SWEEP		(HZ / 10)	/* TCP: deadlines looked at */

/* A hello asking for responses the sink may not give is refused: counted
 * once for the connection, which is reset without an answer.
 */
static void ktg_conn_hello(struct ktg_conn *c)
{
	const struct ktg_hello *h = &c->hello;

	if (h->magic != htonl(KTG_MAGIC_HELLO) ||
	    ntohs(h->version) != KTG_WIRE_VERSION || !h->pattern_pages) {
		KTG_RX_ADD(c->sink, c->rx, bad_headers, 1);
		return;
	}
	c->pattern_pages = ntohl(h->pattern_pages);
	c->req = ntohl(h->req);
	c->resp = ntohl(h->resp);
	if (!c->req)
		c->resp = 0;
	c->rx = ktg_rx_stats_find(be64_to_cpu(h->cookie));
	if (c->rx)
		atomic64_inc(&c->rx->conns);
	if (c->resp && !ktg_sink_resp_allowed(c->sink, c->req, c->resp, h->token)) {
		KTG_RX_ADD(c->sink, c->rx, refused, 1);
		c->refused = true;
	}
}

/* Bytes @data[0..len) of the stream: the hello first, then payload. */
static void ktg_conn_data(struct ktg_conn *c, const u8 *data, size_t len,
			  struct ktg_worker *w)
{
	if (c->hello_len < sizeof(c->hello)) {
		size_t n = min_t(size_t, len, sizeof(c->hello) - c->hello_len);

		memcpy((u8 *)&c->hello + c->hello_len, data, n);
		c->hello_len += n;
		data += n;
		len -= n;
		if (c->hello_len == sizeof(c->hello))
			ktg_conn_hello(c);
	}
	if (!len || c->refused)
		return;
	ktg_rx_payload(c->sink, c->rx, c->pattern_pages, c->off, data, len, w);
	c->off += len;
	KTG_RX_ADD(c->sink, c->rx, bytes, len);
}

struct ktg_read_ctx {
	struct ktg_conn		*conn;
	struct ktg_worker	*worker;
};

/*
 * tcp_read_sock() actor, in the sink worker's process context with the
 * socket owned (lock_sock): the skb stays on the receive queue until it
 * returns how much it took.
 */
static int ktg_tcp_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int offset, size_t len)
{
	struct ktg_read_ctx *ctx = desc->arg.data;
	struct ktg_conn *c = ctx->conn;
	struct skb_seq_state st;
	unsigned int consumed = 0;
	const u8 *data;
	unsigned int n;

	if (c->refused)		/* nothing more is read */
		return 0;
	len = min_t(size_t, len, desc->count);
	if (c->sink->p.rx_mode == KTGEN_RX_MODE_DISCARD &&
	    c->hello_len == sizeof(c->hello)) {
		c->off += len;
		KTG_RX_ADD(c->sink, c->rx, bytes, len);
		consumed = len;
		goto out;
	}
	skb_prepare_seq_read(skb, offset, offset + len, &st);
	while ((n = skb_seq_read(consumed, &data, &st)) != 0) {
		/* a block may run on past the bound desc->count set */
		n = min_t(unsigned int, n, len - consumed);
		ktg_conn_data(c, data, n, ctx->worker);
		consumed += n;
	}
	skb_abort_seq_read(&st);
out:
	desc->count -= consumed;
	return consumed;
}

/* rx user, after the hello: the payload straight into user memory. */
static int ktg_conn_recv_user(struct ktg_conn *c, struct ktg_worker *w)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct iovec iov = { .iov_base = w->ubuf, .iov_len = KTG_RX_BUF };
	int n;

	iov_iter_init(&msg.msg_iter, ITER_DEST, &iov, 1, KTG_RX_BUF);
	n = ktg_worker_user_msg(w, c->sock, &msg);
	if (n > 0) {
		KTG_RX_ADD(c->sink, c->rx, msgs, 1);
		KTG_RX_ADD(c->sink, c->rx, bytes, n);
		c->off += n;
		return n;
	}
	return n == -EAGAIN ? 0 : (n ? n : -ESHUTDOWN);
}

/* tcp-rr: answer every whole request received, a round's worth a pass
 * at most, so that a peer that keeps reading cannot keep the worker: 1
 * when more is due then (the worker comes back to it at once). What cannot
 * go now goes when the socket has room (its write space wakes the worker).
 */
static int ktg_conn_answer(struct ktg_conn *c)
{
	size_t sent = 0;
	u64 due;
	int n;

	if (!c->resp)
		return 0;
	/* here, not where the hello is read: the actor must not sleep */
	if (!c->nodelay) {
		tcp_sock_set_nodelay(c->sock->sk);
		c->nodelay = true;
	}
	due = div_u64(c->off, c->req) - c->answered;
	if (due) {
		c->answered += due;
		c->resp_left += due * c->resp;
		KTG_RX_ADD(c->sink, c->rx, responses, due);
	}
	while (c->resp_left) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

		if (sent >= KTG_RX_ROUND || kthread_should_stop())
			return 1;
		n = ktg_send_zeros(c->sock, &msg, min_t(u64, c->resp_left, 16 * PAGE_SIZE));
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		c->resp_left -= n;
		sent += n;
	}
	return 0;
}

/* Read what is queued; 0 when nothing was, <0 when the connection is over. */
static int ktg_conn_read_data(struct ktg_conn *c, struct ktg_worker *w)
{
	struct ktg_read_ctx ctx = { .conn = c, .worker = w };
	read_descriptor_t desc = { .arg.data = &ctx, .count = KTG_RX_ROUND };
	struct sock *sk = c->sock->sk;
	int n;

	if (c->sink->p.rx_mode == KTGEN_RX_MODE_USER &&
	    c->hello_len == sizeof(c->hello))
		return ktg_conn_recv_user(c, w);
	if (c->sink->p.rx_mode == KTGEN_RX_MODE_RECVMSG ||
	    c->sink->p.rx_mode == KTGEN_RX_MODE_USER) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
		/* user: the hello alone, into the kernel */
		size_t len = c->sink->p.rx_mode == KTGEN_RX_MODE_USER ?
			     sizeof(c->hello) - c->hello_len : KTG_RX_BUF;
		struct kvec iov = { .iov_base = w->buf, .iov_len = len };

		n = kernel_recvmsg(c->sock, &msg, &iov, 1, len, MSG_DONTWAIT);
		if (n > 0) {
			KTG_RX_ADD(c->sink, c->rx, msgs, 1);
			ktg_conn_data(c, w->buf, n, w);
			return n;
		}
		return n == -EAGAIN ? 0 : (n ? n : -ESHUTDOWN);
	}

	lock_sock(sk);
	n = tcp_read_sock(sk, &desc, ktg_tcp_actor);
	if (n > 0)
		KTG_RX_ADD(c->sink, c->rx, msgs, 1);
	else if (!n && (sk->sk_err || (sk->sk_shutdown & RCV_SHUTDOWN) ||
			sk->sk_state == TCP_CLOSE))
		n = sk->sk_err ? -sk->sk_err : -ESHUTDOWN;
	release_sock(sk);
	return n;
}

/* ... and answer what is due (tcp-rr): >0 while there is more to do. */
static int ktg_conn_read(struct ktg_conn *c, struct ktg_worker *w)
{
	int n = ktg_conn_read_data(c, w);

	atomic64_inc(&c->sink->stats.reads);	/* the sink's: ready ones only */
	if (n > 0)
		c->heard = jiffies;
	if (c->refused)
		return -ECONNREFUSED;
	if (n >= 0 || n == -ESHUTDOWN) {
		int err = ktg_conn_answer(c);

		if (err < 0 && n >= 0)
			n = err;
		else if (err > 0 && !n)
			n = err;
	}
	return n;
}

static void ktg_conn_free(struct ktg_conn *c)
{
	ktg_sock_release(c->sock);
	atomic_dec(&c->sink->nconns);
	if (c->rx) {
		atomic_inc(&c->rx->closed);
		ktg_rx_stats_put(c->rx);
	}
	kfree(c);
}

/*
 * A connection's wait entry (its socket's wake-ups: data, write space, a
 * state change) puts it on its worker's ready list, once, and kicks the
 * worker: a pass reads only the connections that have something, however
 * many sit idle.
 */
static void ktg_conn_ready(struct ktg_conn *c)
{
	struct ktg_worker *w = c->watch.worker;
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (list_empty(&c->ready))
		list_add_tail(&c->ready, &w->items);
	spin_unlock_irqrestore(&w->lock, flags);
}

static int ktg_conn_wake(struct wait_queue_entry *entry, unsigned int mode, int sync,
			 void *key)
{
	struct ktg_conn *c = container_of(entry, struct ktg_conn, watch.entry);

	/* softirq context, the wait queue's lock held */
	ktg_conn_ready(c);
	ktg_worker_kick(c->watch.worker);
	return 0;
}

/* Its wake-ups go to its worker's ready list from now on. */
static void ktg_conn_arm(struct ktg_conn *c)
{
	c->watch.head = sk_sleep(c->sock->sk);
	init_waitqueue_func_entry(&c->watch.entry, ktg_conn_wake);
	add_wait_queue(c->watch.head, &c->watch.entry);
}

/*
 * Handed to @w (worker 0 at accept, then the worker it is placed on): on
 * its ready list, unarmed, and not touched again here, since @w may serve
 * and free it at once; @w arms it before it looks at it (ktg_conn_serve()),
 * so what comes before is seen and what comes after wakes it.
 */
static void ktg_conn_hand(struct ktg_conn *c, struct ktg_worker *w)
{
	c->watch.worker = w;
	c->watch.head = NULL;
	ktg_conn_ready(c);
	ktg_worker_kick(w);
}

/* No wake-up runs for it after this, and it is on no ready list. */
static void ktg_conn_unwatch(struct ktg_conn *c)
{
	struct ktg_worker *w = c->watch.worker;

	if (!w)
		return;
	ktg_sock_unwatch(&c->watch);
	spin_lock_bh(&w->lock);
	list_del_init(&c->ready);
	spin_unlock_bh(&w->lock);
}

/* The next connection on a pass's ready list, off it. */
static struct ktg_conn *ktg_conn_next(struct ktg_worker *w, struct list_head *ready)
{
	struct ktg_conn *c;

	spin_lock_bh(&w->lock);
	c = list_first_entry_or_null(ready, struct ktg_conn, ready);
	if (c)
		list_del_init(&c->ready);
	spin_unlock_bh(&w->lock);
	return c;
}

/*
 * Every connection goes with linger 0: a reset where it is still open
 * (refused: its sender learns it at once; the sink going away), nothing
 * where it has ended (ktg_conn_fin()). Since 151c9c724d05 (6.9, 6.1.84,
 * 5.15.154) tcp_close() stops a kernel socket's timers: an orphan whose
 * FIN was lost would stay in FIN-WAIT-1, CLOSING or LAST-ACK for ever,
 * holding its port, an ehash slot and an orphan count.
 */
static void ktg_conn_close(struct ktg_conn *c)
{
	ktg_conn_unwatch(c);
	sock_no_linger(c->sock->sk);
	ktg_conn_free(c);
}

/*
 * The peer closed and everything is read: the sink's FIN goes now, and the
 * connection stays the sink's while the stack retransmits it, until the
 * peer acked it (the socket closed) or KTG_FIN_WAIT passed: 0 till then,
 * -ESHUTDOWN after. The FIN also carries the ACK of the peer's (TCP delays
 * that one for it), which a reset at once would not.
 */
static int ktg_conn_fin(struct ktg_conn *c)
{
	if (!c->closing) {
		c->closing = true;
		c->fin_by = jiffies + KTG_FIN_WAIT;
		kernel_sock_shutdown(c->sock, SHUT_WR);
	}
	if (READ_ONCE(c->sock->sk->sk_state) == TCP_CLOSE || time_after_eq(jiffies, c->fin_by))
		return -ESHUTDOWN;
	return 0;
}

/* A socket closed with a reset (linger 0: no FIN_WAIT, no TIME_WAIT, no
 * state left for the peer to hold), and counted refused.
 */
static void ktg_sock_refuse(struct ktg_sink *sink, struct socket *sock)
{
	sock_no_linger(sock->sk);
	ktg_sock_release(sock);
	atomic64_inc(&sink->stats.refused);
}

/* A connection whose whole hello has not come within idle-ms of its
 * accept, or that has sent nothing for idle-ms since: a peer holding the
 * sink's state for nothing.
 */
static bool ktg_conn_late(const struct ktg_conn *c)
{
	const struct sock *sk = c->sock->sk;

	if (c->closing)
		return false;
	if (c->hello_len < sizeof(c->hello) && time_after_eq(jiffies, c->deadline))
		return true;
	/* not idle while it is answered or has data unread or unacked */
	if (c->resp_left || !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
	    READ_ONCE(sk->sk_wmem_queued))
		return false;
	return time_after_eq(jiffies, c->heard + msecs_to_jiffies(c->sink->p.idle_ms));
}

/* Counted refused here, then reset as a refused hello is. */
static void ktg_conn_refuse(struct ktg_conn *c)
{
	KTG_RX_ADD(c->sink, c->rx, refused, 1);
	c->refused = true;
	ktg_conn_close(c);
}

/*
 * The worker for a connection whose data has begun to arrive: the next one
 * round the list whose CPU is not the one the receive softirq ran on
 * (sk_incoming_cpu: the device queue's IRQ CPU, or the sender's on
 * loopback and veth), so that reading the data does not compete with
 * receiving it; any worker when the list has no other CPU. The handshake
 * does not tell: a connect() may run anywhere.
 */
static struct ktg_worker *ktg_sink_pick(struct ktg_sink *sink, struct sock *sk)
{
	int rx_cpu = READ_ONCE(sk->sk_incoming_cpu);
	struct ktg_worker *w = &sink->workers[0];
	u32 i, n = READ_ONCE(sink->nworkers);

	for (i = 0; i < n; i++) {
		w = &sink->workers[sink->next_worker++ % n];
		if (w->cpu != rx_cpu)
			break;
	}
	return w;
}

/* Accept what is pending on the listening socket: worker 0 does this,
 * every pass, up to KTG_ACCEPT_ROUND connections (true: there may be
 * more). kernel_accept() allocates a socket (an inode) before it looks at
 * the queue, so an empty queue is seen first, as poll sees it. Beyond
 * max-conns held, a connection is reset as soon as it is accepted.
 */
static bool ktg_sink_accept(struct ktg_sink *sink)
{
	struct request_sock_queue *queue = &inet_csk(sink->sock->sk)->icsk_accept_queue;
	struct socket *newsock;
	struct ktg_conn *c;
	u32 n;

	for (n = 0; n < KTG_ACCEPT_ROUND; n++) {
		if (reqsk_queue_empty(queue) ||
		    kernel_accept(sink->sock, &newsock, O_NONBLOCK))
			return false;
		if (atomic_read(&sink->nconns) >= sink->p.max_conns) {
			ktg_sock_refuse(sink, newsock);
			continue;
		}
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c) {
			ktg_sock_refuse(sink, newsock);
			continue;
		}
		c->sink = sink;
		c->sock = newsock;
		INIT_LIST_HEAD(&c->ready);
		c->heard = jiffies;
		c->deadline = c->heard + msecs_to_jiffies(sink->p.idle_ms);
		if (sink->p.rcvbuf)
			sock_set_rcvbuf(newsock->sk, sink->p.rcvbuf);
		atomic_inc(&sink->nconns);
		atomic64_inc(&sink->stats.conns);
		list_add_tail(&c->node, &sink->pending);
		ktg_conn_hand(c, &sink->workers[0]);
	}
	return true;
}

/* Whether a woken connection has something for a read: data, its end, an
 * error, responses that waited for room (tcp-rr), a FIN sent (closing).
 * A wake-up that came while the last read took what it was for has none.
 */
static bool ktg_conn_due(const struct ktg_conn *c)
{
	const struct sock *sk = c->sock->sk;

	return !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) || READ_ONCE(sk->sk_err) ||
	       c->resp_left || c->closing;
}

/* A pending connection woken: handed to its worker once data (or the
 * end) says where it is received; until then worker 0 watches it. It
 * goes on that worker's ready list, off the pending one.
 */
static void ktg_sink_place(struct ktg_sink *sink, struct ktg_conn *c)
{
	struct sock *sk = c->sock->sk;

	if (!ktg_conn_due(c))
		return;
	list_del_init(&c->node);
	c->placed = true;
	ktg_conn_unwatch(c);
	ktg_conn_hand(c, ktg_sink_pick(sink, sk));
}

/* A connection on @w's ready list: true while it has more to do (it is
 * ready again then). A placed one becomes @w's own (@conns).
 */
static bool ktg_conn_serve(struct ktg_conn *c, struct ktg_worker *w,
			   struct list_head *conns)
{
	int n;

	if (!c->watch.head)
		ktg_conn_arm(c);	/* handed over (ktg_conn_hand()) */
	if (!c->placed) {
		ktg_sink_place(c->sink, c);
		return false;
	}
	if (list_empty(&c->node))
		list_add_tail(&c->node, conns);
	if (!ktg_conn_due(c))
		return false;
	n = c->closing ? -ESHUTDOWN : ktg_conn_read(c, w);
	if (n == -ESHUTDOWN)
		n = ktg_conn_fin(c);
	if (n < 0) {
		list_del(&c->node);
		ktg_conn_close(c);
		return false;
	}
	if (n > 0)
		ktg_conn_ready(c);
	return n > 0;
}

/*
 * What no wake-up tells, looked at every KTG_SWEEP at most: a connection
 * late with its hello or silent for idle-ms after it (reset and counted
 * refused: from a remote peer, max-conns idle connections would otherwise
 * hold the sink's slots for ever), a FIN the peer has not acked in time.
 */
static void ktg_conns_sweep(struct list_head *conns)
{
	struct ktg_conn *c, *tmp;

	list_for_each_entry_safe(c, tmp, conns, node) {
		if (c->closing && ktg_conn_fin(c) < 0) {
			list_del(&c->node);
			ktg_conn_close(c);
		} else if (ktg_conn_late(c)) {
			list_del(&c->node);
			ktg_conn_refuse(c);
		}
		cond_resched();
	}
}

/* The sink goes: what @w still holds, or was handed, is reset. */
void ktg_conns_close_all(struct ktg_worker *w, struct list_head *conns)
{
	struct ktg_sink *sink = w->owner;
	struct ktg_conn *c, *tmp;
	LIST_HEAD(ready);

	spin_lock_bh(&w->lock);
	list_splice_tail_init(&w->items, &ready);
	spin_unlock_bh(&w->lock);
	while ((c = ktg_conn_next(w, &ready)))
		if (list_empty(&c->node))
			list_add_tail(&c->node, conns);
	if (w == &sink->workers[0])
		list_splice_tail_init(&sink->pending, conns);
	list_for_each_entry_safe(c, tmp, conns, node) {
		list_del(&c->node);
		ktg_conn_close(c);
		cond_resched();
	}
}

int ktg_sink_tcp_worker(void *arg)
{
	struct ktg_worker *w = arg;
	struct ktg_sink *sink = w->owner;
	bool first = w == &sink->workers[0];
	unsigned long sweep = jiffies;
	LIST_HEAD(conns);	/* this worker's own: no lock */
	LIST_HEAD(ready);	/* a pass's, under w->lock */
	struct ktg_conn *c;
	bool busy;

	while (!kthread_should_stop()) {
		busy = first && ktg_sink_accept(sink);
		spin_lock_bh(&w->lock);
		list_splice_tail_init(&w->items, &ready);
		spin_unlock_bh(&w->lock);
		while ((c = ktg_conn_next(w, &ready))) {
			busy |= ktg_conn_serve(c, w, &conns);
			cond_resched();
		}
		if (time_after_eq(jiffies, sweep)) {
			ktg_conns_sweep(&conns);
			if (first)
				ktg_conns_sweep(&sink->pending);
			sweep = jiffies + KTG_SWEEP;
		}
		ktg_worker_idle(w, busy, KTG_SWEEP);
	}
	ktg_conns_close_all(w, &conns);
	return 0;
}
