// SPDX-License-Identifier: GPL-2.0
/*
 * Sinks: receive what ktgen (or anything else) sends, with the receive path
 * under test. One read loop serves copy, nocache, touch, discard and verify
 * (tcp_read_sock's actor for TCP, an skb walk for UDP); recvmsg is the
 * socket API's own copy, kept apart so read-path differences never mix
 * into copy comparisons; user is recvmsg into the requester's memory, by
 * workers that adopted its address space (the stack's copy_to_user).
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <net/inet_connection_sock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/udp.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "copy.h"
#include "ktgen.h"
#include "mem.h"
#include "nocache.h"
#include "policy.h"
#include "proto.h"
#include "sink.h"
#include "stats.h"
#include "worker.h"

#define KTG_RX_ROUND	SZ_1M		/* bytes per connection per round */
#define KTG_ACCEPT_ROUND	64	/* connections accepted per pass */
#define KTG_FIN_WAIT		(2 * HZ)	/* for the peer to ack the sink's FIN */
#define KTG_SWEEP		(HZ / 10)	/* TCP: deadlines looked at */

/* A TCP connection, served by one worker of its sink. */
struct ktg_conn {
	struct list_head	node;		/* pending, or its worker's own */
	struct list_head	ready;		/* on its worker's items (w->lock) */
	struct ktg_sink		*sink;
	struct socket		*sock;
	struct ktg_sock_watch	watch;		/* its wake-ups: ktg_conn_wake() */
	struct ktg_rx_stats	*rx;		/* the sending run's, same host */
	struct ktg_hello	hello;
	u32			hello_len;
	u32			pattern_pages;	/* 0: not a ktgen sender */
	u64			off;		/* payload bytes received */
	u32			req;		/* tcp-rr: request and response sizes */
	u32			resp;
	u64			answered;	/* requests answered */
	u64			resp_left;	/* response bytes not yet sent */
	bool			nodelay;	/* set for the responses */
	bool			refused;	/* its hello asked what may not be */
	bool			closing;	/* the sink's FIN sent */
	bool			placed;		/* off the pending list */
	unsigned long		deadline;	/* jiffies: the whole hello by then */
	unsigned long		heard;		/* jiffies: data last read */
	unsigned long		fin_by;		/* jiffies: closing, reset by then */
};

/* A UDP sender, by its cookie and flow id. */
struct ktg_uflow {
	struct hlist_node	hnode;		/* in the sink's hash of senders */
	struct list_head	node;		/* in its list, least recently heard first */
	u64			cookie;
	u32			flow;
	struct ktg_rx_stats	*rx;
	u64			received;
	u64			next_seq;	/* highest seen + 1 */
	u64			window;		/* bit i: seq next_seq - 1 - i seen */
	unsigned long		heard;		/* jiffies of its last datagram */
	u64			sent;		/* its closing count, once closed */
	u64			unheard;	/* counted lost at the close, not heard since */
	bool			closed;
};

/* Count on the sink and, when known, on the sending run. */
static void ktg_rx_add(struct ktg_sink *sink, struct ktg_rx_stats *rx, size_t field,
		       u64 v)
{
	atomic64_add(v, (atomic64_t *)((u8 *)&sink->stats + field));
	if (rx)
		atomic64_add(v, (atomic64_t *)((u8 *)rx + field));
}

#define KTG_RX_ADD(sink, rx, field, v) \
	ktg_rx_add(sink, rx, offsetof(struct ktg_rx_stats, field), v)

/* --- the payload, whatever read it came from --- */

/*
 * rx touch: read every byte of @data, a word at a time (a byte at a time
 * cost 4.3x a memcpy of the same bytes on a native CPU: the loop's, not
 * the memory's); the sum only keeps the loads.
 */
static unsigned long ktg_rx_touch(const u8 *data, size_t len)
{
	unsigned long sum = 0;
	size_t i = 0;

	for (; i < len && !IS_ALIGNED((unsigned long)(data + i), sizeof(long)); i++)
		sum += READ_ONCE(data[i]);
	for (; i + sizeof(long) <= len; i += sizeof(long))
		sum += READ_ONCE(*(const unsigned long *)(data + i));
	for (; i < len; i++)
		sum += READ_ONCE(data[i]);
	return sum;
}

/*
 * Process @len payload bytes at stream offset @off that sit in @data (NULL
 * when the mode reads the skb itself through @seq).
 */
static void ktg_rx_payload(struct ktg_sink *sink, struct ktg_rx_stats *rx,
			   u32 pages, u64 off, const u8 *data, size_t len,
			   struct ktg_worker *w)
{
	u64 bad, first = 0;

	switch (sink->p.rx_mode) {
	case KTGEN_RX_MODE_TOUCH:
		/* keep the loads */
		WRITE_ONCE(*(unsigned long *)w->buf, ktg_rx_touch(data, len));
		break;
	case KTGEN_RX_MODE_COPY:
		memcpy(w->buf, data, min_t(size_t, len, KTG_RX_BUF));
		break;
	case KTGEN_RX_MODE_NOCACHE:
		ktg_copy_nocache(w->buf, data, min_t(size_t, len, KTG_RX_BUF));
		break;
	case KTGEN_RX_MODE_VERIFY:
		if (!pages)
			break;
		bad = ktg_pattern_check(data, off, len, pages, &first);
		if (bad) {
			ktg_rx_verify_error(&sink->stats, bad, first);
			if (rx)
				ktg_rx_verify_error(rx, bad, first);
		}
		break;
	}
}

/*
 * May a request of @req bytes that carried @token be answered with @resp
 * bytes? Only by a sink added for request/response (rr), and with no more
 * than the request carried, or, when the request carries the sink's token
 * (never 0), up to the sink's resp-max. A peer that does not know the
 * token, whose source address may be forged, never gets more than it sent.
 */
static bool ktg_sink_resp_allowed(const struct ktg_sink *sink, u64 req, u64 resp,
				  __be64 token)
{
	if (!sink->p.rr)
		return false;
	if (resp <= req)
		return true;
	return token && be64_to_cpu(token) == sink->token && resp <= sink->p.resp_max;
}

/* --- TCP --- */

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

/* Response bytes from the zero page, up to 16 pages per call. */
static int ktg_send_zeros(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct kvec iov[16];
	size_t left = len;
	int n = 0;

	while (left && n < ARRAY_SIZE(iov)) {
		iov[n].iov_base = page_address(ZERO_PAGE(0));
		iov[n].iov_len = min_t(size_t, left, PAGE_SIZE);
		left -= iov[n].iov_len;
		n++;
	}
	return kernel_sendmsg(sock, msg, iov, n, len - left);
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
static void ktg_conns_close_all(struct ktg_worker *w, struct list_head *conns)
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

static int ktg_sink_tcp_worker(void *arg)
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

/* --- UDP --- */

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

static void ktg_uflow_free(struct ktg_sink *sink, struct ktg_uflow *f)
{
	hlist_del(&f->hnode);
	list_del(&f->node);
	sink->nuflows--;
	ktg_rx_stats_put(f->rx);
	kfree(f);
}

/* Room for one more: the least recently heard sender goes if it has
 * closed or has been silent for idle-ms (a sender heard again after that
 * starts afresh).
 */
static bool ktg_uflow_evict(struct ktg_sink *sink)
{
	struct ktg_uflow *f = list_first_entry_or_null(&sink->uflows, struct ktg_uflow, node);

	if (!f || (!f->closed &&
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
			if (!f->closed)
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
 * Datagram @seq, not a duplicate, came. One the close already counted
 * lost (the close overtook it: another tx queue, a qdisc's other flow) is
 * found again; never more than the close counted, whatever a sender's
 * close claimed.
 */
static void ktg_uflow_received(struct ktg_sink *sink, struct ktg_uflow *f, u64 seq)
{
	f->received++;
	if (f->closed && seq < f->sent && f->unheard) {
		f->unheard--;
		KTG_RX_ADD(sink, f->rx, lost, -1ULL);
	}
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

/* The sender's closing count: what never came is lost, exactly. */
static void ktg_uflow_close(struct ktg_sink *sink, struct ktg_uflow *f, u64 sent)
{
	if (f->closed)
		return;
	f->closed = true;
	/* the first to make room */
	list_move(&f->node, &sink->uflows);
	f->sent = sent;
	if (sent > f->received) {
		f->unheard = sent - f->received;
		KTG_RX_ADD(sink, f->rx, lost, f->unheard);
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

static int ktg_sink_udp_worker(void *arg)
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

/* --- life cycle --- */

/* The families a bound socket serves. */
static u8 ktg_sink_served(struct ktg_sink *sink, bool v6only)
{
	const struct sockaddr_storage *ss = &sink->p.addr;

	if (ss->ss_family == AF_INET)
		return KTG_FAMILY_IPV4;
	if (ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr))
		return v6only ? KTG_FAMILY_IPV6 : KTG_FAMILY_IPV4 | KTG_FAMILY_IPV6;
	if (ipv6_addr_v4mapped(&((const struct sockaddr_in6 *)ss)->sin6_addr))
		return KTG_FAMILY_IPV4;
	return KTG_FAMILY_IPV6;
}

/* The sink's socket, of its address's family; where IPv6 is not
 * available and the IPv6 wildcard was no family's choice, the IPv4
 * wildcard instead (@wild6 then false).
 */
static int ktg_sink_sock_create(struct ktg_net *kn, struct ktg_sink *sink, bool *wild6,
				struct netlink_ext_ack *extack)
{
	struct ktg_sink_params *p = &sink->p;
	bool tcp = p->proto == KTGEN_PROTO_TCP;
	int type = tcp ? SOCK_STREAM : SOCK_DGRAM, proto = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	int err;

	err = sock_create_kern(kn->net, p->addr.ss_family, type, proto, &sink->sock);
	if (err == -EAFNOSUPPORT && *wild6 && !p->families) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&p->addr;
		struct sockaddr_in *sin = (struct sockaddr_in *)&p->addr;
		__be16 port = sin6->sin6_port;

		memset(&p->addr, 0, sizeof(p->addr));
		sin->sin_family = AF_INET;
		sin->sin_port = port;
		*wild6 = false;
		err = sock_create_kern(kn->net, AF_INET, type, proto, &sink->sock);
	}
	if (err == -EAFNOSUPPORT)
		NL_SET_ERR_MSG(extack, "IPv6 is not available here");
	else if (err)
		NL_SET_ERR_MSG(extack, "cannot create the socket");
	return err;
}

/* The options the sink asks for before it binds. */
static int ktg_sink_sockopts(struct ktg_sink *sink, bool wild6, int v6only,
			     struct netlink_ext_ack *extack)
{
	struct ktg_sink_params *p = &sink->p;
	int err, one = 1;

	if (wild6) {
		err = sink->sock->ops->setsockopt(sink->sock, SOL_IPV6, IPV6_V6ONLY,
						  KERNEL_SOCKPTR(&v6only), sizeof(v6only));
		if (err) {
			NL_SET_ERR_MSG(extack, "the socket refused IPV6_V6ONLY");
			return err;
		}
	}
	/* TCP: a restart binds past its old connections' TIME-WAIT. Not
	 * UDP, where any local socket with SO_REUSEADDR could bind the same
	 * address and port and take the sink's datagrams.
	 */
	if (p->proto == KTGEN_PROTO_TCP)
		sock_set_reuseaddr(sink->sock->sk);
	if (p->rcvbuf)
		sock_set_rcvbuf(sink->sock->sk, p->rcvbuf);
	if (p->gro) {
		err = sink->sock->ops->setsockopt(sink->sock, SOL_UDP, UDP_GRO,
						  KERNEL_SOCKPTR(&one), sizeof(one));
		if (err) {
			NL_SET_ERR_MSG(extack, "gro: the socket refused UDP_GRO");
			return err;
		}
	}
	return 0;
}

/* Without an address the sink takes the IPv6 wildcard (p->addr says so)
 * and sets IPV6_V6ONLY itself, so that net.ipv6.bindv6only does not
 * choose its families: off unless ipv6 alone was asked for. Where IPv6 is
 * not available and no family was asked for, the IPv4 wildcard.
 */
static int ktg_sink_socket(struct ktg_net *kn, struct ktg_sink *sink,
			   struct netlink_ext_ack *extack)
{
	struct ktg_sink_params *p = &sink->p;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&p->addr;
	bool wild6 = p->addr.ss_family == AF_INET6 && ipv6_addr_any(&sin6->sin6_addr);
	int v6only = p->families == KTG_FAMILY_IPV6;
	int err;

	err = ktg_sink_sock_create(kn, sink, &wild6, extack);
	if (err)
		return err;
	err = ktg_sink_sockopts(sink, wild6, v6only, extack);
	if (err)
		goto err_release;
	err = kernel_bind(sink->sock, KTG_SOCKADDR(&p->addr), ktg_addr_len(&p->addr));
	if (err) {
		if (err == -EADDRINUSE)
			NL_SET_ERR_MSG(extack, "the port is in use");
		else
			NL_SET_ERR_MSG(extack, "cannot bind to the address");
		goto err_release;
	}
	if (p->proto == KTGEN_PROTO_TCP) {
		err = kernel_listen(sink->sock, 1024);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot listen");
			goto err_release;
		}
	}
	p->families = ktg_sink_served(sink, wild6 && v6only);
	return 0;

err_release:
	ktg_sock_release(sink->sock);
	sink->sock = NULL;
	return err;
}

/* Its workers, sockets and state go; what a reader may still look at
 * (parameters, counters) stays until the last reference.
 */
static void ktg_sink_shutdown(struct ktg_sink *sink)
{
	struct ktg_uflow *f, *tmp;
	u32 i;

	for (i = 0; i < sink->nworkers; i++)
		ktg_worker_stop(&sink->workers[i]);
	/* A worker whose first run was its stop never ran its function
	 * (kthread_stop() of a thread not yet run skips it): what worker 0
	 * handed it is closed here. For the others, nothing is left.
	 */
	if (sink->p.proto == KTGEN_PROTO_TCP) {
		for (i = 0; i < sink->nworkers; i++) {
			LIST_HEAD(left);

			ktg_conns_close_all(&sink->workers[i], &left);
		}
	}
	if (sink->sock) {
		ktg_sock_unwatch(&sink->watch);
		/* a listener's queued children are reset here (its
		 * disconnect: inet_csk_listen_stop); it has no connection
		 * of its own to linger
		 */
		kernel_sock_shutdown(sink->sock, SHUT_RDWR);
		ktg_sock_release(sink->sock);
		sink->sock = NULL;
	}
	list_for_each_entry_safe(f, tmp, &sink->uflows, node)
		ktg_uflow_free(sink, f);
	kvfree(sink->uflow_hash);
	sink->uflow_hash = NULL;
	for (i = 0; i < sink->nslots; i++)
		kvfree(sink->workers[i].buf);
	kfree(sink->workers);
	sink->workers = NULL;
	sink->nslots = 0;
	sink->nworkers = 0;
	/* the workers are gone: the address space is the owner's again */
	if (sink->mm) {
		mmput(sink->mm);
		sink->mm = NULL;
	}
}

void ktg_sink_put(struct ktg_sink *sink)
{
	if (!refcount_dec_and_test(&sink->ref))
		return;
	free_cpumask_var(sink->p.cpus);
	ktg_mem_uncharge(sink->charged);
	kfree_rcu(sink, rcu);
}

/* Test hook: an rx user sink's owner work, the sink out of its table,
 * waits this long before it tears the sink down: the window in which its
 * namespace or the module may go (life_rx_user_race). 0 (the default) is
 * off.
 */
static unsigned int test_owner_delay_ms;
module_param(test_owner_delay_ms, uint, 0600);
MODULE_PARM_DESC(test_owner_delay_ms,
		 "test hook: hold an rx user sink's owner work this long before its teardown (0: off, at most 10 s)");

/* Its owner's socket closed: the sink goes, unless a delete took it out
 * of its table first (and then cancels this work or waits for it). Out of
 * its table, it is on the namespace's dying list until its sockets are
 * released: the namespace's pre_exit (and so rmmod) waits for that.
 */
static void ktg_sink_owner_work(struct work_struct *work)
{
	struct ktg_sink *sink = container_of(work, struct ktg_sink, owner_work);
	struct ktg_net *kn = sink->kn;
	bool listed;

	mutex_lock(&kn->lock);
	listed = xa_load(&kn->sinks, sink->id) == sink;
	if (listed) {
		ktg_net_unreserve(kn, false, sink->id);
		spin_lock(&kn->dying_lock);
		list_add_tail(&sink->node, &kn->sinks_dying);
		spin_unlock(&kn->dying_lock);
	}
	mutex_unlock(&kn->lock);
	if (listed) {
		if (unlikely(READ_ONCE(test_owner_delay_ms)))
			msleep(min(READ_ONCE(test_owner_delay_ms), 10000U));
		ktg_sink_shutdown(sink);
		/* The last touch of @kn: pre_exit may free it as soon as the
		 * list is empty (a mutex's unlock could still touch it then).
		 */
		spin_lock(&kn->dying_lock);
		list_del(&sink->node);
		spin_unlock(&kn->dying_lock);
		ktg_sink_put(sink);	/* the table's */
	}
	ktg_sink_put(sink);		/* the work's */
}

/* Workers of a sink: TCP a worker per CPU; UDP one socket, one worker. */
u32 ktg_sink_slots(const struct ktg_sink_params *p)
{
	return p->proto == KTGEN_PROTO_TCP ? cpumask_weight(p->cpus) : 1;
}

/*
 * rx user: the workers receive into the requester's memory, a slice each.
 * The request runs in the requester's context: hold its address space
 * until the sink goes, and clear the memory now, so that it is known to be
 * writable and faulted in before the first byte arrives. -EFAULT: it is
 * not the requester's to write.
 */
static int ktg_sink_user_mem(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	sink->mm = get_task_mm(current);
	if (!sink->mm) {
		NL_SET_ERR_MSG(extack, "rx user needs a requester with an address space");
		return -EINVAL;
	}
	if (clear_user(u64_to_user_ptr(sink->p.user_buf),
		       (u64)sink->nslots * KTG_RX_BUF))
		return -EFAULT;
	return 0;
}

/* What the sink may make the kernel hold, charged up front: its workers'
 * receive buffers and the connections or UDP senders it may track.
 */
static int ktg_sink_charge(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	const struct ktg_sink_params *p = &sink->p;
	u64 bytes = (u64)ktg_sink_slots(p) * (sizeof(struct ktg_worker) + KTG_RX_BUF);
	int err;

	if (p->proto == KTGEN_PROTO_TCP)
		bytes += (u64)p->max_conns * sizeof(struct ktg_conn);
	else
		bytes += (u64)p->max_conns * sizeof(struct ktg_uflow) +
			 ((u64)sizeof(struct hlist_head) << max(order_base_2(p->max_conns), 1));
	err = ktg_mem_charge(bytes);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "the sink's buffers and connection state exceed the module's budget (ktgen config)");
		return err;
	}
	sink->charged = bytes;
	return 0;
}

/* A sink with @p (and its cpumask) and one reference; NULL without
 * memory, the cpumask freed.
 */
static struct ktg_sink *ktg_sink_alloc(struct ktg_net *kn, struct ktg_sink_params *p)
{
	struct ktg_sink *sink = kzalloc(sizeof(*sink), GFP_KERNEL);

	if (!sink) {
		free_cpumask_var(p->cpus);	/* ours from the call on */
		return NULL;
	}
	refcount_set(&sink->ref, 1);
	INIT_WORK(&sink->owner_work, ktg_sink_owner_work);
	sink->kn = kn;
	sink->p = *p;			/* takes over the cpumask */
	INIT_LIST_HEAD(&sink->uflows);
	INIT_LIST_HEAD(&sink->pending);
	ktg_rx_stats_init(&sink->stats);
	sink->token = get_random_u64();
	return sink;
}

/* What the sink holds before its socket: its id, its budget, the workers'
 * array, a UDP sink's flow table, an rx user sink's memory. On an error
 * the caller unreserves the id and puts the sink, which releases the rest.
 */
static int ktg_sink_prepare(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	const struct ktg_sink_params *p = &sink->p;
	int err;

	err = ktg_net_reserve(sink->kn, false, &sink->id, extack);
	if (err)
		return err;
	err = ktg_sink_charge(sink, extack);
	if (err)
		return err;
	sink->nslots = ktg_sink_slots(p);
	sink->workers = kcalloc(sink->nslots, sizeof(*sink->workers), GFP_KERNEL);
	if (!sink->workers) {
		sink->nslots = 0;
		NL_SET_ERR_MSG(extack, "no memory for the sink");
		return -ENOMEM;
	}
	if (p->proto != KTGEN_PROTO_TCP) {
		/* a bucket per sender at most, so lookups stay O(1) */
		sink->uflow_bits = max(order_base_2(p->max_conns), 1);
		sink->uflow_hash = kvcalloc(BIT(sink->uflow_bits), sizeof(*sink->uflow_hash),
					    GFP_KERNEL);
		if (!sink->uflow_hash) {
			NL_SET_ERR_MSG(extack, "no memory for the sink's flow table");
			return -ENOMEM;
		}
		get_random_bytes(&sink->uflow_key, sizeof(sink->uflow_key));
	}
	if (p->rx_mode == KTGEN_RX_MODE_USER)
		return ktg_sink_user_mem(sink, extack);
	return 0;
}

/* A worker on each of the sink's CPUs, as many as it has slots. */
static int ktg_sink_workers(struct ktg_sink *sink, struct netlink_ext_ack *extack)
{
	const struct ktg_sink_params *p = &sink->p;
	bool tcp = p->proto == KTGEN_PROTO_TCP;
	int cpu, err;

	for_each_cpu(cpu, p->cpus) {
		struct ktg_worker *w = &sink->workers[sink->nworkers];

		if (sink->nworkers == sink->nslots)
			break;
		ktg_worker_init(w, sink);
		w->busy_poll_ns = (u64)p->busy_poll_us * NSEC_PER_USEC;
		if (sink->mm) {
			w->mm = sink->mm;
			w->ubuf = u64_to_user_ptr(p->user_buf +
						  (u64)sink->nworkers * KTG_RX_BUF);
		}
		w->buf = kvmalloc(KTG_RX_BUF, GFP_KERNEL);
		if (!w->buf) {
			NL_SET_ERR_MSG(extack, "no memory for the sink's receive buffers");
			return -ENOMEM;
		}
		err = ktg_worker_start(w, cpu, tcp ? ktg_sink_tcp_worker :
				       ktg_sink_udp_worker, "sink", sink->id);
		if (err) {
			NL_SET_ERR_MSG(extack, "cannot start the sink's workers");
			return err;
		}
		sink->nworkers++;
	}
	return 0;
}

int ktg_sink_create(struct ktg_net *kn, struct ktg_sink_params *p,
		    struct ktg_sink **sinkp, struct netlink_ext_ack *extack)
{
	struct ktg_sink *sink;
	int err;

	sink = ktg_sink_alloc(kn, p);
	if (!sink) {
		NL_SET_ERR_MSG(extack, "no memory for the sink");
		return -ENOMEM;
	}
	err = ktg_sink_prepare(sink, extack);
	if (!err)
		err = ktg_sink_socket(kn, sink, extack);
	if (!err)
		err = ktg_sink_workers(sink, extack);
	if (err)
		goto err_free;
	ktg_sock_watch(&sink->watch, sink->sock, &sink->workers[0]);
	*sinkp = sink;
	return 0;

err_free:
	/* The workers have not seen the socket: stop them first. */
	ktg_sink_shutdown(sink);
	if (sink->id) {
		mutex_lock(&kn->lock);
		ktg_net_unreserve(kn, false, sink->id);
		mutex_unlock(&kn->lock);
	}
	ktg_sink_put(sink);
	return err;
}

/* Listed under its id; an rx user sink, unless detached, is its
 * creator's socket's: it holds that process's memory for it.
 */
void ktg_sink_publish(struct ktg_sink *sink)
{
	struct ktg_net *kn = sink->kn;

	mutex_lock(&kn->lock);
	xa_store(&kn->sinks, sink->id, sink, GFP_KERNEL);
	if (sink->p.rx_mode == KTGEN_RX_MODE_USER && !sink->p.detach) {
		ktg_net_owner_add(kn, sink->p.portid);
		sink->owned = true;
	}
	mutex_unlock(&kn->lock);
}

/* Built but never listed (its reply could not be made): it goes. */
void ktg_sink_discard(struct ktg_sink *sink)
{
	mutex_lock(&sink->kn->lock);
	ktg_net_unreserve(sink->kn, false, sink->id);
	mutex_unlock(&sink->kn->lock);
	ktg_sink_destroy(sink);
}

/* Out of its table already: the sink stops and goes with the last
 * reader. An owner's work still pending for it has nothing left to do.
 */
void ktg_sink_destroy(struct ktg_sink *sink)
{
	if (cancel_work_sync(&sink->owner_work))
		ktg_sink_put(sink);
	ktg_sink_shutdown(sink);
	ktg_sink_put(sink);
}

/* The sink @id with a reference, or NULL. */
struct ktg_sink *ktg_sink_get(struct ktg_net *kn, u32 id)
{
	struct ktg_sink *sink;

	rcu_read_lock();
	sink = xa_load(&kn->sinks, id);
	if (sink && !refcount_inc_not_zero(&sink->ref))
		sink = NULL;
	rcu_read_unlock();
	return sink;
}

/* The first sink from id @*id on, with a reference (a dump's cursor). */
struct ktg_sink *ktg_sink_get_next(struct ktg_net *kn, unsigned long *id)
{
	struct ktg_sink *sink;

	rcu_read_lock();
	for (;;) {
		sink = xa_find(&kn->sinks, id, ULONG_MAX, XA_PRESENT);
		if (!sink || refcount_inc_not_zero(&sink->ref))
			break;
		(*id)++;
	}
	rcu_read_unlock();
	return sink;
}

/* Out of its table (the caller holds kn->lock): no lookup finds it. */
static void ktg_sink_unlist(struct ktg_net *kn, struct ktg_sink *sink)
{
	ktg_net_unreserve(kn, false, sink->id);
	if (sink->owned) {
		ktg_net_owner_del(kn, sink->p.portid);
		sink->owned = false;
	}
}

int ktg_sink_del(struct ktg_net *kn, u32 id)
{
	struct ktg_sink *sink;

	mutex_lock(&kn->lock);
	sink = xa_load(&kn->sinks, id);
	if (sink)
		ktg_sink_unlist(kn, sink);
	mutex_unlock(&kn->lock);
	if (!sink)
		return -ENOENT;
	ktg_sink_destroy(sink);
	return 0;
}

void ktg_sinks_destroy_all(struct ktg_net *kn)
{
	struct ktg_sink *sink, *tmp;
	unsigned long id;
	LIST_HEAD(dead);

	mutex_lock(&kn->lock);
	xa_for_each(&kn->sinks, id, sink) {
		ktg_sink_unlist(kn, sink);
		list_add_tail(&sink->node, &dead);
	}
	mutex_unlock(&kn->lock);
	list_for_each_entry_safe(sink, tmp, &dead, node) {
		ktg_sink_destroy(sink);
		cond_resched();
	}
}

/* The namespace goes: the owner works still tearing a sink down are done
 * before its state (and the net its sockets are in) can be freed.
 */
void ktg_sinks_wait_dying(struct ktg_net *kn)
{
	struct ktg_sink *sink;

	for (;;) {
		spin_lock(&kn->dying_lock);
		sink = list_first_entry_or_null(&kn->sinks_dying, struct ktg_sink, node);
		if (sink)
			refcount_inc(&sink->ref);
		spin_unlock(&kn->dying_lock);
		if (!sink)
			return;
		flush_work(&sink->owner_work);
		ktg_sink_put(sink);
	}
}

/*
 * The socket that created these rx user sinks is gone: they go too, in a
 * work of their own (a worker may be slow to stop in user memory, and the
 * closing process need not wait for it). A socket that owns nothing
 * returns at once, without the lock.
 */
void ktg_sinks_owner_gone(struct ktg_net *kn, u32 portid)
{
	struct ktg_sink *sink;
	unsigned long id;

	if (!ktg_net_owns(kn, portid))
		return;
	mutex_lock(&kn->lock);
	xa_for_each(&kn->sinks, id, sink) {
		if (!sink->owned || sink->p.portid != portid)
			continue;
		ktg_net_owner_del(kn, portid);
		sink->owned = false;
		refcount_inc(&sink->ref);	/* the work's */
		queue_work(ktg_wq, &sink->owner_work);
	}
	mutex_unlock(&kn->lock);
}
