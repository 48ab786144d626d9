// SPDX-License-Identifier: GPL-2.0
/*
 * A flow's life: its socket opened and connected, its step in the run's
 * worker (a stream's send call, a transaction's next move), its drain and
 * its close. What differs by test comes from ktg_test_ops[], by tx mode
 * from ktg_tx_ops[]; the send paths are in tcp.c and udp.c, the
 * transactions in rr.c, shared pieces (the source ring, staging pages,
 * pacing) here. Every call is MSG_DONTWAIT: a flow that cannot send leaves
 * its worker to sleep until the socket reports write space.
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
#include <linux/ktgen.h>

#include "compat.h"
#include "copy.h"
#include "cpu.h"
#include "debug.h"
#include "flow.h"
#include "hist.h"
#include "ktgen.h"
#include "nocache.h"
#include "proto.h"
#include "run.h"
#include "worker.h"

#define KTG_CONNECT_TIMEOUT	(30 * HZ)
#define KTG_DRAIN_TIMEOUT	(30 * HZ)
/* Staging starts small and doubles when every page is in flight, up to
 * twice what the socket may hold unacked (within these bounds).
 */
#define KTG_STAGE_INIT_PAGES	(2 * KTG_TX_BATCH)
#define KTG_STAGE_MIN_PAGES	256
#define KTG_STAGE_MAX_PAGES	4096

/*
 * What a flow does, by test: whether it runs over TCP, whether it
 * connects once (the streams, tcp-rr and udp-rr) or for each transaction
 * (tcp-crr), its step while it sends, what is left to do once all is sent
 * (drain_start: TCP's FIN, a transaction in flight dropped) and its drain
 * (TCP: acked and closed; UDP: closing datagrams sent; tcp-crr: none).
 * The close is every test's: ktg_flow_close().
 */
static const struct ktg_test_ops {
	bool	tcp;
	bool	connect_each;
	int	(*step)(struct ktg_flow *f);
	void	(*drain_start)(struct ktg_flow *f);
	int	(*drain)(struct ktg_flow *f);
} ktg_test_ops[] = {
	[KTGEN_TEST_TCP_STREAM]	= { true, false, ktg_flow_send_one, ktg_tcp_drain_start,
				    ktg_tcp_drain },
	[KTGEN_TEST_UDP_STREAM]	= { false, false, ktg_flow_send_one, NULL, ktg_udp_drain },
	[KTGEN_TEST_TCP_RR]	= { true, false, ktg_rr_tcp, ktg_tcp_drain_start, ktg_tcp_drain },
	[KTGEN_TEST_UDP_RR]	= { false, false, ktg_rr_udp, ktg_rr_udp_drain_start,
				    ktg_udp_drain },
	[KTGEN_TEST_TCP_CRR]	= { true, true, ktg_crr_tcp, ktg_crr_drain_start, NULL },
};

static const struct ktg_test_ops *ktg_flow_ops(const struct ktg_flow *f)
{
	return &ktg_test_ops[f->run->p.test];
}

static bool ktg_flow_tcp(const struct ktg_flow *f)
{
	return ktg_flow_ops(f)->tcp;
}

/* SO_SNDBUF as setsockopt() sets it (no exported helper in every kernel). */
static void ktg_set_sndbuf(struct sock *sk, u32 val)
{
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_SNDBUF_LOCK;
	WRITE_ONCE(sk->sk_sndbuf, max_t(u32, val * 2, SOCK_MIN_SNDBUF));
	sk->sk_write_space(sk);
	release_sock(sk);
}

/*
 * The flow's socket, set up and connecting without waiting. Connection
 * errors (refused, unreachable) are the flow's result, reported with the
 * run's, not a refusal of the request: they come back in @cerr.
 */
int ktg_flow_socket(struct ktg_flow *f, struct netlink_ext_ack *extack, int *cerr)
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

/* cached, nocache: staging pages, a ring that may grow to twice the
 * socket's send buffer.
 */
static int ktg_flow_stage(struct ktg_flow *f, struct netlink_ext_ack *extack)
{
	struct ktg_run_params *p = &f->run->p;
	u32 sndbuf = p->sndbuf ?: ktg_flow_tcp(f) ?
		READ_ONCE(f->run->kn->net->ipv4.sysctl_tcp_wmem[2]) :
		READ_ONCE(f->sock->sk->sk_sndbuf);
	int err;

	f->stage_max = clamp_t(u32, 2 * (sndbuf >> PAGE_SHIFT),
			       KTG_STAGE_MIN_PAGES, KTG_STAGE_MAX_PAGES);
	err = ktg_pages_alloc(&f->stage, KTG_STAGE_INIT_PAGES, false);
	if (err == -ENOSPC)
		NL_SET_ERR_MSG(extack, "staging pages exceed the buffer budget");
	else if (err)
		NL_SET_ERR_MSG(extack, "no memory for staging pages");
	return err;
}

/* The hello a TCP flow's stream starts with (UDP: its fields in each
 * datagram's header).
 */
static void ktg_flow_hello_init(struct ktg_flow *f)
{
	const struct ktg_run *run = f->run;
	const struct ktg_run_params *p = &run->p;
	bool rr = ktg_test_rr(p->test);

	f->hello.magic = htonl(KTG_MAGIC_HELLO);
	f->hello.version = htons(KTG_WIRE_VERSION);
	f->hello.test = htons(p->test);
	f->hello.cookie = cpu_to_be64(run->cookie);
	f->hello.flow = htonl(f->id);
	f->hello.pattern_pages = htonl(run->pattern_pages);
	f->hello.req = htonl(rr ? p->req_size : 0);
	f->hello.resp = htonl(rr ? p->resp_size : 0);
	f->hello.token = cpu_to_be64(rr ? p->token : 0);
}

int ktg_flow_open(struct ktg_flow *f, struct netlink_ext_ack *extack)
{
	struct ktg_run *run = f->run;
	struct ktg_run_params *p = &run->p;
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
	if (!ktg_flow_ops(f)->connect_each) {
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
		err = ktg_flow_stage(f, extack);
		if (err)
			return err;
	}
	ktg_flow_hello_init(f);
	f->state = ktg_flow_ops(f)->connect_each ? KTG_FLOW_SEND : KTG_FLOW_CONNECT;
	if (cerr) {
		/* The run starts and fails at once with the flow's errno. */
		f->error = cerr;
		f->state = KTG_FLOW_DONE;
		ktg_run_flow_failed(run, f, cerr);
	}
	return 0;
}

bool ktg_tx_staged(const struct ktg_run *run)
{
	return run->p.tx_mode != KTGEN_TX_MODE_ZEROCOPY;
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
void ktg_flow_sent_all(struct ktg_flow *f)
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
int ktg_src_kvecs(struct ktg_run *run, u64 off, u32 len, struct kvec *iov)
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
int ktg_src_iovecs(struct ktg_run *run, u64 off, u32 len, struct iovec *iov)
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

/* A staging page the stack no longer holds, or NULL when all are in flight. */
struct page *ktg_stage_page(struct ktg_flow *f)
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
void ktg_stage_copy(struct ktg_run *run, struct page *dst, struct page *src,
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
void ktg_splice_account(struct ktg_run *run, struct page *pg, int refs)
{
	if (page_ref_count(pg) > refs)
		atomic_inc(&run->splice_held);
	else
		atomic_inc(&run->splice_copied);
}

static unsigned long ktg_drain_timeout(void)
{
	unsigned int ms = ktg_test_hook(drain_timeout_ms);

	return ms ? msecs_to_jiffies(min(ms, 30000U)) : KTG_DRAIN_TIMEOUT;
}

void ktg_flow_drain_start(struct ktg_flow *f)
{
	struct ktg_run *run = f->run;

	f->state = KTG_FLOW_DRAIN;
	f->deadline = jiffies + ktg_drain_timeout();
	f->next_close = jiffies;
	ktg_tx_drop(f);
	if (ktg_flow_ops(f)->drain_start)
		ktg_flow_ops(f)->drain_start(f);
	/* The measured window ends with the last payload byte sent. */
	spin_lock(&run->end_lock);
	run->end = ktime_get();
	spin_unlock(&run->end_lock);
	ktg_flow_sent_all(f);
}

int ktg_flow_hello(struct ktg_flow *f)
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

void ktg_flow_send_delay(void)
{
	if (unlikely(ktg_test_hook(send_delay_ns)))
		ndelay(min(ktg_test_hook(send_delay_ns), 1000000U));
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
int ktg_flow_send_one(struct ktg_flow *f)
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
		ktg_flow_send_delay();
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
			/* one writer; fills read them while it runs */
			WRITE_ONCE(f->bytes, f->bytes + ret);
			WRITE_ONCE(f->msgs, f->msgs + f->msg_n);
			f->msg_left = 0;
		}
		return ret;
	}
	send = ktg_tx_ops[run->p.tx_mode].tcp;
	ret = INDIRECT_CALL_2(send, ktg_send_copied, ktg_send_pages, f, f->msg_left);
	if (ret > 0) {
		f->off += ret;
		WRITE_ONCE(f->bytes, f->bytes + ret);
		f->msg_left -= ret;
		if (!f->msg_left)
			WRITE_ONCE(f->msgs, f->msgs + 1);
	}
	return ret;
}

/* Work for the flow's worker: >0 when it made progress, 0 when it waits. */
int ktg_flow_step(struct ktg_flow *f)
{
	const struct ktg_test_ops *ops = ktg_flow_ops(f);
	int ret, progress = 0;
	bool expired;
	u32 i;

	switch (f->state) {
	case KTG_FLOW_CONNECT:
		return ktg_flow_connect(f);
	case KTG_FLOW_DRAIN:
		return ops->drain(f);
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
		ret = INDIRECT_CALL_4(ops->step, ktg_flow_send_one, ktg_rr_tcp, ktg_rr_udp,
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
