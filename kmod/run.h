/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Runs and their flows: what a run is asked for and its life (run.c), for
 * the netlink handlers and the namespace; what run.c (life cycle, results)
 * and flow.c (connection and send paths) share.
 */
#ifndef _KTG_RUN_H
#define _KTG_RUN_H

#include <linux/bvec.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/socket.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "copy.h"
#include "cpu.h"
#include "hist.h"
#include "ktgen.h"
#include "policy.h"
#include "probe.h"
#include "proto.h"
#include "stats.h"
#include "worker.h"

#define KTG_DEFAULT_BUFFER	SZ_64K
struct ktg_run_params {
	u32			test;
	struct sockaddr_storage	remote;
	struct sockaddr_storage	local;
	bool			has_local;
	u32			ifindex;
	u32			size;
	u32			flows;
	cpumask_var_t		cpus;
	u32			time_ms;
	u64			bytes;
	u64			msgs;
	u32			tx_mode;
	u64			buffer;
	u32			sndbuf;
	bool			nodelay;
	bool			detach;
	u32			interval_ms;
	u32			warmup_ms;
	u64			user_buf;	/* tx user */
	bool			probe_copies;
	bool			probe_rx;
	u32			events;		/* enum ktgen_cpu_event bits */
	u32			req_size;	/* tcp-rr, udp-rr */
	u32			resp_size;
	u32			rate;		/* transactions/s per flow, 0: closed loop */
	u32			rr_timeout_ms;
	u64			pace_bps;	/* streams: per flow */
	u32			pace_pps;
	u32			burst;
	u32			busy_poll_us;
	u32			gso;		/* udp_stream: datagrams per call */
	u64			token;		/* the sink's, in every request */
	u32			npercentiles;
	u32			percentiles[KTG_MAX_PERCENTILES];	/* ppm */
};

static inline bool ktg_test_rr(u32 test)
{
	return test == KTGEN_TEST_TCP_RR || test == KTGEN_TEST_UDP_RR ||
	       test == KTGEN_TEST_TCP_CRR;
}

#define KTG_TX_BATCH	16	/* pages per send call on the TCP page paths */
#define KTG_VISIT_SENDS	16	/* send calls per flow per visit, at most */
#define KTG_PASS_SENDS	256	/* ... and per worker pass over its flows */
#define KTG_RR_RBUF	SZ_16K	/* an rr flow reads its responses into this */

enum ktg_flow_state {
	KTG_FLOW_CONNECT,	/* connect in progress */
	KTG_FLOW_SEND,		/* hello, then payload */
	KTG_FLOW_DRAIN,		/* all sent: waiting for acks and the peer's close */
	KTG_FLOW_DONE,
};

struct ktg_flow {
	struct list_head	node;		/* in its worker's list */
	struct ktg_run		*run;
	u32			id;
	struct socket		*sock;
	struct ktg_sock_watch	watch;
	enum ktg_flow_state	state;
	unsigned long		deadline;	/* connect or drain, jiffies */
	int			error;

	struct ktg_hello	hello;
	u32			hello_sent;
	u64			off;		/* payload bytes sent */
	u32			msg_left;	/* bytes left of the current send call */
	u32			msg_n;		/* UDP: datagrams in it (gso: up to p.gso) */
	u64			acked0;		/* TCP bytes_acked once connected */
	u64			seq;		/* UDP datagrams sent */
	u32			closes;		/* UDP closing datagrams sent */
	unsigned long		next_close;

	/* cached/nocache: pages the module copies into, then splices */
	struct ktg_pages	stage;
	u32			stage_next;
	u32			stage_max;	/* pages it may grow to */
	/* TCP page paths: the pages of one send call, not yet all taken */
	struct bio_vec		tx_bv[KTG_TX_BATCH];
	u8			tx_first;
	u8			tx_n;

	bool			stage_blocked;	/* every staging page in flight */

	/* UDP gso: the headers and kvecs of one send call's datagrams */
	struct ktg_dgram	*gso_hdr;
	struct kvec		*gso_iov;

	/* written by the flow's worker only (WRITE_ONCE), read by fills */
	u64			bytes;
	u64			msgs;
	u64			acked;
	u64			bytes0;		/* at the window's start */
	u64			msgs0;
	bool			nocache_route;	/* TCP: tx-nocache-copy at connect */

	/* tcp-rr, udp-rr: one transaction outstanding */
	struct ktg_worker	*worker;
	struct ktg_hist		*hist;		/* latencies, ns */
	void			*rbuf;		/* the response is read into it */
	bool			waiting;	/* the request went: a response is due */
	u32			resp_left;	/* TCP: response bytes still to come */
	ktime_t			t_due;		/* the request's time (open loop: its slot) */
	ktime_t			t_sent;
	u64			timeouts;
	u64			late;
	ktime_t			pace_next;	/* paced: when the next send may go */
	bool			has_info;	/* TCP: the figures below, at the end */
	u32			retrans;
	u32			srtt_us;
	u32			cwnd;
};

/*
 * A run's life, one way only: it sends until its limits are met (then it
 * is done), a user stops it or a flow fails (stopping: the flows drain so
 * that acked stays exact), or it goes away with its namespace, the module
 * or its device (aborting: nothing drains). Once its workers are gone the
 * done work sets the last state (failed when a flow set an error). The
 * send path reads the state without a lock; moves go by cmpxchg, never
 * back (ktg_run_advance()).
 */
enum ktg_run_state {
	KTG_RUN_SENDING,
	KTG_RUN_STOPPING,
	KTG_RUN_ABORTING,
	KTG_RUN_DONE,		/* the last three: finished, results final */
	KTG_RUN_STOPPED,
	KTG_RUN_FAILED,
};

struct ktg_run {
	refcount_t		ref;		/* kn->runs' and each reader's */
	struct rcu_head		rcu;		/* lookups are RCU */
	struct list_head	node;		/* on a list of runs being deleted */
	struct ktg_net		*kn;
	u32			id;
	u64			cookie;
	u32			portid;		/* owner, unless detached */
	bool			owned;		/* counted in kn->owners (kn->lock) */
	struct ktg_run_params	p;
	u64			charged;	/* budget bytes besides page rings */
	struct mutex		lock;		/* the last state, end, error: what a
						 * reply reads together (taken under
						 * RTNL: ktg_runs_dev_gone(); nothing
						 * slow is done under it)
						 */
	u32			state;		/* enum ktg_run_state */

	int			error;
	u32			error_flow;
	ktime_t			start;
	spinlock_t		end_lock;	/* end, set by any flow */
	ktime_t			end;		/* the last payload byte was sent */
	ktime_t			deadline;

	atomic64_t		msgs_started;	/* limits, reserved per send call */
	atomic64_t		bytes_started;
	atomic64_t		send_errors;
	atomic_t		splice_held;
	atomic_t		splice_copied;
	atomic_t		workers_left;
	atomic_t		sending;	/* flows not yet done sending */
	struct ktg_cpu_acct	cpu;

	struct ktg_rx_stats	*rx;
	struct ktg_pages	src;
	u32			pattern_pages;
	struct mm_struct	*mm;		/* tx user: the requester's */
	bool			probing;	/* holds the copy probe */
	u64			nocache0;	/* probe hits at the start */
	u64			nocache;	/* during the run, once finished */
	bool			rx_probing;	/* holds the receive path probes */
	bool			rxp_open;	/* rxp0 taken (release: rxp0) */
	u32			rxp_avail;	/* BIT(enum ktg_rxp): probed */
	u64			rxp0[KTG_RXP_N];	/* at the window's start */
	u64			rxp[KTG_RXP_N];	/* over the window, once finished */
	struct ktg_hist		*hist_prev;	/* rr with intervals: at the last one */
	u64			timeouts_prev;
	u64			late_prev;
	struct ktg_flow		*flows;
	struct ktg_worker	*workers;
	u32			nslots;		/* workers allocated */
	u32			nworkers;	/* started */
	u32			visit;		/* sends per flow per worker pass */
	struct work_struct	done_work;
	struct delayed_work	interval_work;
	struct delayed_work	window_work;	/* opens it after the warmup */
	struct delayed_work	unstick_work;	/* tx user: see run.c */
	ktime_t			wstart;		/* the window opened (0: not yet) */
	u64			rx_bytes0;
	u64			rx_msgs0;
	u32			intervals;	/* run-interval notifications sent */
	struct completion	done;
};

/* No more sends: a stop, a failure or going away. */
static inline bool ktg_run_stopping(const struct ktg_run *run)
{
	return READ_ONCE(run->state) != KTG_RUN_SENDING;
}

/* Going away: flows do not drain, sinks are not waited for. */
static inline bool ktg_run_aborting(const struct ktg_run *run)
{
	return READ_ONCE(run->state) == KTG_RUN_ABORTING;
}

/* The workers are gone and the results final. */
static inline bool ktg_run_finished(const struct ktg_run *run)
{
	return READ_ONCE(run->state) >= KTG_RUN_DONE;
}

/* Another reference, for a holder of one already. */
static inline void ktg_run_hold(struct ktg_run *run)
{
	refcount_inc(&run->ref);
}

/* Takes over p->cpus, and frees it when it fails. The run is built, not
 * listed and not started: ktg_run_publish(), then (after the reply, which
 * so comes before any notification of the run) ktg_run_start().
 */
int ktg_run_create(struct ktg_net *kn, struct ktg_run_params *p, u32 portid,
		   struct ktg_run **runp, struct netlink_ext_ack *extack);
void ktg_run_publish(struct ktg_run *run);
void ktg_run_start(struct ktg_run *run);
struct ktg_run *ktg_run_get(struct ktg_net *kn, u32 id);
struct ktg_run *ktg_run_get_next(struct ktg_net *kn, unsigned long *id);
void ktg_run_put(struct ktg_run *run);
void ktg_run_stop(struct ktg_run *run);
int ktg_run_stop_id(struct ktg_net *kn, u32 id);
int ktg_run_del(struct ktg_net *kn, u32 id, struct netlink_ext_ack *extack);
void ktg_runs_stop_all(struct ktg_net *kn);
void ktg_runs_del_finished(struct ktg_net *kn);
void ktg_runs_owner_gone(struct ktg_net *kn, u32 portid);
void ktg_runs_dev_gone(struct ktg_net *kn, int ifindex);
void ktg_runs_destroy_all(struct ktg_net *kn);

u32 ktg_run_state_uapi(u32 state);
int ktg_flow_open(struct ktg_flow *f, struct netlink_ext_ack *extack);
int ktg_flow_step(struct ktg_flow *f);
void ktg_flow_close(struct ktg_flow *f);
void ktg_flow_free(struct ktg_flow *f);
bool ktg_run_reserve(struct ktg_run *run, u32 *len);
void ktg_run_flow_failed(struct ktg_run *run, struct ktg_flow *f, int err);

#endif /* _KTG_RUN_H */
