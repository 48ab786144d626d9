// SPDX-License-Identifier: GPL-2.0
/*
 * Request/response flows: tcp-rr, udp-rr and tcp-crr, one transaction
 * outstanding per flow, closed loop or open loop at a rate, each timed
 * into the flow's histogram.
 */
#include <linux/highmem.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "compat.h"
#include "flow.h"
#include "hist.h"
#include "ktgen.h"
#include "proto.h"
#include "run.h"
#include "worker.h"

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

/* The next transaction: 0 once its request may go (its length in
 * f->msg_left), -EAGAIN before its slot, 1 when the run's limits are met
 * (the flow drains).
 */
static int ktg_rr_next_request(struct ktg_flow *f)
{
	u32 len;

	if (!ktg_rr_due(f))
		return -EAGAIN;
	if (!ktg_run_reserve(f->run, &len)) {
		ktg_flow_drain_start(f);
		return 1;
	}
	f->msg_left = len;
	return 0;
}

/* TCP: the request, then the response read whole. */
int ktg_rr_tcp(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;
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
		ret = ktg_rr_next_request(f);
		if (ret)
			return ret;
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
 * tcp-crr: the transaction's connection is over, closed with a reset (the
 * latency excludes the close) as ktg_flow_close() closes. An orderly
 * close left an orphan behind for each FIN lost: tcp_close() stops the
 * timers of a kernel socket (151c9c724d05, 6.9 and stable), so the FIN
 * never goes again and the socket stays in FIN-WAIT-1, CLOSING or
 * LAST-ACK for ever, holding its port.
 */
static void ktg_crr_close(struct ktg_flow *f)
{
	if (!f->sock)
		return;
	ktg_sock_unwatch(&f->watch);
	sock_no_linger(f->sock->sk);
	ktg_sock_release(f->sock);
	f->sock = NULL;
}

/*
 * tcp-crr: each transaction connects (its slot is taken before), sends
 * the hello and the request, reads the response and closes; the latency
 * covers it all but the close.
 */
int ktg_crr_tcp(struct ktg_flow *f)
{
	u64 done = f->msgs;
	struct sock *sk;
	int ret, cerr;

	if (!f->sock) {
		ret = ktg_rr_next_request(f);
		if (ret)
			return ret;
		ret = ktg_flow_socket(f, NULL, &cerr);
		if (ret || cerr) {
			ktg_crr_close(f);
			return ret ?: cerr;
		}
		ktg_sock_watch(&f->watch, f->sock, f->worker);
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
int ktg_rr_udp(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;
	int ret;

	if (f->waiting)
		return ktg_rr_udp_wait(f);
	if (!f->msg_left) {
		ret = ktg_rr_next_request(f);
		if (ret)
			return ret;
		ktg_flow_send_delay();
	}
	f->t_sent = ktime_get();
	ret = ktg_send_dgram_req(f, f->msg_left);
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

/* tcp-crr: nothing to drain, the transaction in flight is dropped. */
void ktg_crr_drain_start(struct ktg_flow *f)
{
	ktg_crr_close(f);
	f->state = KTG_FLOW_DONE;
}

/* udp-rr: the request in flight was sent, answered or not. */
void ktg_rr_udp_drain_start(struct ktg_flow *f)
{
	if (f->waiting) {
		f->seq++;
		f->waiting = false;
	}
}
