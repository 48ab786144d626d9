/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktgen: in-kernel TCP/UDP traffic generator and sink.
 * Objects shared between the files of the module.
 */
#ifndef _KTGEN_H
#define _KTGEN_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <linux/ktgen.h>

#include "nocache.h"
#include "policy.h"
#include "stats.h"

#ifndef KTGEN_VERSION
#define KTGEN_VERSION "unknown"
#endif

/*
 * Per network namespace state: sinks and runs live in the namespace whose
 * sockets they use and go away with it. Each table holds a reference on
 * what it lists; lookups are RCU and take one of their own, so a reader
 * never waits for a writer. The lock orders what changes the tables (an
 * id reserved, an object published or taken out, the counts and owners)
 * and is held for no more than that: objects are built and torn down
 * outside it.
 */
struct ktg_net {
	struct net		*net;
	struct mutex		lock;		/* the tables' changes, counts, owners */
	struct xarray		sinks;		/* by id, reserved ids as zero entries */
	struct xarray		runs;
	struct xarray		owners;		/* portid -> what it owns (xa value) */
	struct list_head	sinks_dying;	/* out of sinks, torn down by owner works */
	spinlock_t		dying_lock;	/* sinks_dying (an unlock touches nothing after) */
	u32			next_sink_id;	/* the cyclic allocations' cursors */
	u32			next_run_id;
	u32			nsinks;		/* published and reserved */
	u32			nruns;
	bool			owners_lost;	/* an owner count failed: look always */
	bool			exiting;	/* pre_exit began: close abortively */
};

int ktg_net_reserve(struct ktg_net *kn, bool run, u32 *id, struct netlink_ext_ack *extack);
void ktg_net_unreserve(struct ktg_net *kn, bool run, u32 id);
void ktg_net_owner_add(struct ktg_net *kn, u32 portid);
void ktg_net_owner_del(struct ktg_net *kn, u32 portid);
bool ktg_net_owns(struct ktg_net *kn, u32 portid);

/* Work that may outlive a request: run completion. Flushed at unload. */
extern struct workqueue_struct *ktg_wq;

/* Socket addresses, for sinks and runs. */
__be16 ktg_addr_port(const struct sockaddr_storage *ss);
int ktg_addr_len(const struct sockaddr_storage *ss);

/* A kthread bound to one CPU serving a list of sockets; it sleeps until one
 * of its sockets wakes it (data, write space, state change) or a timeout.
 */
struct ktg_worker {
	struct task_struct	*task;
	wait_queue_head_t	wq;
	atomic_t		kick;
	int			cpu;
	void			*owner;
	spinlock_t		lock;	/* items, for sinks adding connections */
	struct list_head	items;
	void			*buf;	/* receive buffer of sink workers */
	struct mm_struct	*mm;	/* adopted while it runs (tx/rx user) */
	void __user		*ubuf;	/* its slice of the user memory */
	unsigned long		uaccess_since;	/* jiffies | 1; 0: not in it */
	int			(*fn)(void *arg);
	struct hrtimer		timer;	/* kicks it at a time (open loop) */
	u64			busy_poll_ns;	/* spins this long before sleeping */
	ktime_t			idle_since;	/* 0: it did something last pass */
	u32			poll_us;	/* ktg_worker_poll()'s last wait */
};

void ktg_worker_init(struct ktg_worker *w, void *owner);
int ktg_worker_start(struct ktg_worker *w, int cpu, int (*fn)(void *),
		     const char *what, u32 id);
void ktg_worker_stop(struct ktg_worker *w);
void ktg_worker_unstick(struct ktg_worker *w, unsigned long grace);
void ktg_worker_kick(struct ktg_worker *w);
void ktg_worker_sleep(struct ktg_worker *w, long timeout);
void ktg_worker_idle(struct ktg_worker *w, bool busy, long timeout);
void ktg_worker_poll(struct ktg_worker *w, bool busy);
void ktg_worker_park(void);
void ktg_worker_wake_at(struct ktg_worker *w, ktime_t t);
int ktg_worker_user_msg(struct ktg_worker *w, struct socket *sock, struct msghdr *msg);

/* A worker's wait entry on a socket's wait queue (the way poll does it):
 * no socket callback is replaced.
 */
struct ktg_sock_watch {
	wait_queue_entry_t	entry;
	wait_queue_head_t	*head;
	struct ktg_worker	*worker;
};

void ktg_sock_watch(struct ktg_sock_watch *sw, struct socket *sock,
		    struct ktg_worker *w);
void ktg_sock_unwatch(struct ktg_sock_watch *sw);

struct ktg_net *ktg_pernet(const struct net *net);
void ktg_sock_release(struct socket *sock);
int ktg_pernet_init(void);
void ktg_pernet_exit(void);

int ktg_netlink_init(void);
void ktg_netlink_exit(void);

/* Module-wide memory budget: everything a run or sink makes the kernel
 * hold (page rings, histograms, buffers, connection and flow state), but
 * socket buffers, which tcp_mem and udp_mem bound.
 */
#define KTG_MEM_BUDGET_DEFAULT	SZ_1G	/* at most a quarter of the memory */
void ktg_mem_init(void);
int ktg_mem_charge(u64 bytes);
void ktg_mem_uncharge(u64 bytes);
u64 ktg_mem_used(void);
u64 ktg_mem_budget(void);
int ktg_mem_set_budget(u64 bytes);

/* Runs and sinks a namespace may hold (module-wide settings). */
#define KTG_MAX_OBJECTS_DEFAULT	4096
u32 ktg_max_runs(void);
u32 ktg_max_sinks(void);
void ktg_set_max_runs(u32 n);
void ktg_set_max_sinks(u32 n);

/* Copy engines, the payload pattern, page rings (copy.c). */
struct ktg_pages {
	struct page	**pages;
	u32		npages;
};

enum ktgen_nocache_impl ktg_copy_nocache_impl(void);
enum ktgen_page_send ktg_page_send_method(void);
void ktg_pattern_fill(u8 *dst, u64 off, size_t len, u32 pages);
u64 ktg_pattern_check(const u8 *p, u64 off, size_t len, u32 pages, u64 *first);
int ktg_pages_alloc(struct ktg_pages *r, u32 npages, bool pattern);
int ktg_pages_grow(struct ktg_pages *r, u32 npages);
/* What the stack did with a page handed to it at load (KTGEN_SPLICE_*). */
enum ktg_splice_test {
	KTG_SPLICE_TCP,
	KTG_SPLICE_UDP,
	KTG_SPLICE_UDP6,
	KTG_SPLICE_TESTS
};

void ktg_splice_selftest(void);
u32 ktg_splice_selftest_result(enum ktg_splice_test test);
void ktg_pages_free(struct ktg_pages *r);

/* Copy probes (probe.c): the stack's nocache user copy, counted. */
int ktg_probe_get(struct netlink_ext_ack *extack);
void ktg_probe_put(void);
u64 ktg_probe_nocache_hits(void);

/* Receive path probes (probe.c): how drivers built their skbs, counted.
 * The order of enum ktgen_rx_path_counter's bits.
 */
enum ktg_rxp {
	KTG_RXP_BUILD,
	KTG_RXP_ALLOC,
	KTG_RXP_GET_FRAGS,
	KTG_RXP_ADD_FRAG,
	KTG_RXP_GRO_MERGED,
	KTG_RXP_N
};

u32 ktg_rxprobe_get(void);
void ktg_rxprobe_put(void);
void ktg_rxprobe_read(u64 *n);

/* Sinks (sink.c). */
struct ktg_sink;
struct ktg_sink_params {
	u32			proto;
	u32			rx_mode;
	struct sockaddr_storage	addr;
	cpumask_var_t		cpus;
	u32			rcvbuf;
	u64			user_buf;	/* rx user */
	u64			user_len;
	u32			busy_poll_us;
	bool			gro;		/* UDP_GRO: batches read whole */
	bool			rr;		/* answers requests */
	u32			resp_max;	/* larger than the request: token only */
	u32			max_conns;	/* TCP connections, UDP flows tracked */
	u32			idle_ms;	/* hello deadline, UDP flow idle time */
	u32			portid;		/* the creator's socket */
	bool			detach;		/* rx user: outlives that socket */
	u8			families;	/* asked, then served: KTG_FAMILY_* */
};

#define KTG_FAMILY_IPV4		BIT(0)
#define KTG_FAMILY_IPV6		BIT(1)

#define KTG_RX_BUF	SZ_64K		/* a worker's copy target or user slice */
#define KTG_DEFAULT_MAX_CONNS	4096
#define KTG_DEFAULT_IDLE_MS	30000

/* Takes over p->cpus, and frees it when it fails. The sink runs but is
 * not listed until ktg_sink_publish().
 */
int ktg_sink_create(struct ktg_net *kn, struct ktg_sink_params *p,
		    struct ktg_sink **sinkp, struct netlink_ext_ack *extack);
void ktg_sink_publish(struct ktg_sink *sink);
void ktg_sink_discard(struct ktg_sink *sink);
void ktg_sink_destroy(struct ktg_sink *sink);
struct ktg_sink *ktg_sink_get(struct ktg_net *kn, u32 id);
struct ktg_sink *ktg_sink_get_next(struct ktg_net *kn, unsigned long *id);
void ktg_sink_put(struct ktg_sink *sink);
int ktg_sink_del(struct ktg_net *kn, u32 id);
u32 ktg_sink_slots(const struct ktg_sink_params *p);
void ktg_sinks_destroy_all(struct ktg_net *kn);
void ktg_sinks_wait_dying(struct ktg_net *kn);
void ktg_sinks_owner_gone(struct ktg_net *kn, u32 portid);

/* Runs (run.c) and their flows (flow.c). */
#define KTG_DEFAULT_BUFFER	SZ_64K
struct ktg_run;
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
void ktg_nl_notify_run_done(struct ktg_run *run);
void ktg_nl_notify_run_interval(struct ktg_run *run);

/* CPU accounting (cpu.c): every online CPU over a run's measured window,
 * by cycle counters where the CPU has a PMU, else by busy time.
 */
struct perf_event;

/* A CPU account's window: opened (its start values taken), then closed. */
#define KTG_CPU_WINDOW_OPENED	0
#define KTG_CPU_WINDOW_CLOSED	1

struct ktg_cpu_acct {
	u32			method;		/* enum ktgen_cpu_method */
	struct cpumask		online;		/* the CPUs bracketed */
	struct perf_event	**ev;		/* per CPU, counter methods */
	u64			*busy;		/* per CPU: at start, then used */
	u64			*count;		/* per CPU: at start, then used */
	unsigned long		window;		/* KTG_CPU_WINDOW_* bits */
	bool			done;		/* the values are final */
	bool			counted;	/* counters ran all the window: cycles
						 * are theirs (else busy time's)
						 */
};

int ktg_cpu_init(void);
bool ktg_cpu_have_pmu(void);
int ktg_cpu_acct_init(struct ktg_cpu_acct *a);
void ktg_cpu_acct_free(struct ktg_cpu_acct *a);
void ktg_cpu_acct_start(struct ktg_cpu_acct *a);
void ktg_cpu_acct_stop(struct ktg_cpu_acct *a);

#endif /* _KTGEN_H */
