// SPDX-License-Identifier: GPL-2.0
/*
 * Runs: a test of one kind (tcp_stream, udp_stream) over a number of flows,
 * served by per-CPU workers, ending at a time, byte or message limit or on
 * request, with results that stay readable until the run is deleted.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/ktgen.h>

#include "compat.h"
#include "copy.h"
#include "cpu-event.h"
#include "cpu.h"
#include "debug.h"
#include "hist.h"
#include "ktgen.h"
#include "mem.h"
#include "netlink.h"
#include "probe.h"
#include "proto.h"
#include "run.h"
#include "stats.h"
#include "worker.h"

#define KTG_DEFAULT_TIME_MS	10000
#define KTG_RX_SETTLE		(2 * HZ)
/* how long a copy from user memory may wait once the run should end */
#define KTG_UNSTICK_GRACE	HZ

/*
 * A run's cookie names it on the wire, and a sink credits the run of its
 * own host that has it: random, so that a peer that saw one run's cookie
 * cannot tell another's and forge its counts, and never 0; unique on this
 * host, which the registry sees (it refuses a cookie taken). The run's
 * receive stats, published under it.
 */
#define KTG_COOKIE_TRIES	8

static struct ktg_rx_stats *ktg_run_cookie(struct ktg_run *run)
{
	struct ktg_rx_stats *rx = ERR_PTR(-EBUSY);
	int i;

	for (i = 0; i < KTG_COOKIE_TRIES && PTR_ERR_OR_ZERO(rx) == -EBUSY; i++) {
		run->cookie = get_random_u64();
		if (run->cookie)
			rx = ktg_rx_stats_new(run->cookie);
	}
	return rx;
}

/* Reserve the next send call against the run's limits; @len may come back
 * shorter than the message size for the last bytes of a byte limit. The
 * time limit is ktg_flow_step()'s, once a visit: a clock read per
 * datagram cost a 64-byte UDP stream 4% of its CPU (HPET under QEMU).
 */
bool ktg_run_reserve(struct ktg_run *run, u32 *len)
{
	u64 old;

	*len = run->p.size;
	if (ktg_run_stopping(run))
		return false;
	if (run->p.msgs && atomic64_inc_return(&run->msgs_started) > run->p.msgs)
		return false;
	if (run->p.bytes) {
		old = atomic64_fetch_add(*len, &run->bytes_started);
		if (old >= run->p.bytes)
			return false;
		*len = min_t(u64, *len, run->p.bytes - old);
	}
	return true;
}

/* Move @run on to @to, unless it is there or further already: true when
 * it moved. Bounded: the state only ever moves forward.
 */
static bool ktg_run_advance(struct ktg_run *run, u32 to)
{
	u32 old = READ_ONCE(run->state), prev;

	while (old < to) {
		prev = cmpxchg(&run->state, old, to);
		if (prev == old)
			return true;
		old = prev;
	}
	return false;
}

/* ... and the workers started so far see it at once. */
static void ktg_run_move(struct ktg_run *run, u32 to)
{
	u32 i, n;

	if (!ktg_run_advance(run, to))
		return;
	/* pairs with ktg_run_start()'s release of nworkers */
	n = smp_load_acquire(&run->nworkers);
	for (i = 0; i < n; i++)
		ktg_worker_kick(&run->workers[i]);
}

/* A flow failed: the first failure names the run's error, the other flows
 * stop and drain. Before the workers are gone (a worker's, or under
 * run->lock while not finished): the last state follows the error.
 */
void ktg_run_flow_failed(struct ktg_run *run, struct ktg_flow *f, int err)
{
	if (!cmpxchg(&run->error, 0, err))
		WRITE_ONCE(run->error_flow, f->id);
	ktg_run_move(run, KTG_RUN_STOPPING);
}

static int ktg_run_worker(void *arg)
{
	struct ktg_worker *w = arg;
	struct ktg_run *run = w->owner;
	struct ktg_flow *f;
	bool busy, active, blocked;

	do {
		busy = false;
		active = false;
		blocked = false;
		list_for_each_entry(f, &w->items, node) {
			if (f->state == KTG_FLOW_DONE)
				continue;
			busy |= ktg_flow_step(f) > 0;
			active |= f->state != KTG_FLOW_DONE;
			blocked |= f->stage_blocked;
			cond_resched();
		}
		/* Interrupted in user memory (ktg_run_unstick_work()): what
		 * it still had to do cannot be done.
		 */
		if (active && signal_pending(current)) {
			f = list_first_entry(&w->items, struct ktg_flow, node);
			ktg_run_flow_failed(run, f, -EINTR);
			break;
		}
		/* Woken by write space, data or a state change; a short
		 * timeout bounds how late a time limit is noticed. Staging
		 * pages come back without any wake-up: polled for.
		 */
		if (active && blocked)
			ktg_worker_poll(w, busy);
		else if (active)
			ktg_worker_idle(w, busy, max(HZ / 100, 1));
	} while (active && !kthread_should_stop());

	if (atomic_dec_and_test(&run->workers_left))
		queue_work(ktg_wq, &run->done_work);
	ktg_worker_park();
	return 0;
}

/* The workers are gone: failed when a flow set an error, stopped when it
 * was stopped before its limits were met, done otherwise (run->lock held).
 * A stop that comes now changes nothing: the run was done.
 */
static void ktg_run_finish(struct ktg_run *run)
{
	u32 last = KTG_RUN_DONE;

	if (run->error)
		last = KTG_RUN_FAILED;
	else if (ktg_run_stopping(run))
		last = KTG_RUN_STOPPED;
	ktg_run_advance(run, last);
}

/* What a reader is told of a state (enum ktg_run_state). */
u32 ktg_run_state_uapi(u32 state)
{
	static const u8 uapi[] = {
		[KTG_RUN_SENDING]	= KTGEN_RUN_STATE_RUNNING,
		[KTG_RUN_STOPPING]	= KTGEN_RUN_STATE_STOPPING,
		[KTG_RUN_ABORTING]	= KTGEN_RUN_STATE_STOPPING,
		[KTG_RUN_DONE]		= KTGEN_RUN_STATE_DONE,
		[KTG_RUN_STOPPED]	= KTGEN_RUN_STATE_STOPPED,
		[KTG_RUN_FAILED]	= KTGEN_RUN_STATE_FAILED,
	};

	return uapi[state];
}

/*
 * Same host: let the sinks finish counting what is already in flight. TCP
 * flows drained until the sink closed, so they are counted already; UDP
 * datagrams may still sit in a sink's queue: wait for every flow's closing
 * datagram, or for the counts to stand still (no ktgen sink, or closing
 * datagrams dropped).
 */
static void ktg_run_rx_settle(struct ktg_run *run)
{
	unsigned long deadline = jiffies + KTG_RX_SETTLE;
	struct ktg_rx_stats *rx = run->rx;
	u64 seen = U64_MAX;
	int quiet = 0;

	if (ktg_run_aborting(run))
		return;
	while (atomic_read(&rx->closed) < run->p.flows && quiet < 10 &&
	       time_before(jiffies, deadline)) {
		u64 now = atomic64_read(&rx->msgs);

		quiet = now == seen ? quiet + 1 : 0;
		seen = now;
		schedule_timeout_uninterruptible(max(HZ / 50, 1));
	}
}

/* probe-rx: the window opens, the receive path counts from now. */
static void ktg_run_rxp_open(struct ktg_run *run)
{
	if (!run->rx_probing)
		return;
	ktg_rxprobe_read(run->rxp0);
	/* the counts before the flag: a reader seeing it sees them */
	smp_store_release(&run->rxp_open, true);
}

/* probe-rx: the receive settled, the window's counts are final. */
static void ktg_run_rxp_close(struct ktg_run *run)
{
	u64 now[KTG_RXP_N];
	int i;

	if (!run->rx_probing)
		return;
	ktg_rxprobe_read(now);
	for (i = 0; run->rxp_open && i < KTG_RXP_N; i++)
		run->rxp[i] = now[i] - run->rxp0[i];
	ktg_rxprobe_put();
	run->rx_probing = false;
}

/* The warmup is over: what was sent and received so far is not the
 * window's, nor the CPU time spent.
 */
static void ktg_run_window_work(struct work_struct *work)
{
	struct ktg_run *run = container_of(to_delayed_work(work), struct ktg_run,
					   window_work);
	u32 i;

	if (ktg_run_stopping(run) || !atomic_read(&run->sending))
		return;
	for (i = 0; i < run->p.flows; i++) {
		run->flows[i].bytes0 = READ_ONCE(run->flows[i].bytes);
		run->flows[i].msgs0 = READ_ONCE(run->flows[i].msgs);
	}
	run->rx_bytes0 = atomic64_read(&run->rx->bytes);
	run->rx_msgs0 = atomic64_read(&run->rx->msgs);
	ktg_run_rxp_open(run);
	ktg_cpu_acct_start(&run->cpu);
	/* the snapshot before the start time: a reader seeing wstart sees it */
	smp_store_release(&run->wstart, ktime_get());
	/* The last flow finished while the window opened: close it here. */
	if (!atomic_read(&run->sending))
		ktg_cpu_acct_stop(&run->cpu);
}

/* Every interval while the run sends, on the grid from its start. */
static void ktg_run_interval_work(struct work_struct *work)
{
	struct ktg_run *run = container_of(to_delayed_work(work), struct ktg_run,
					   interval_work);
	s64 next_ms;

	if (ktg_run_stopping(run) || !atomic_read(&run->sending))
		return;
	run->intervals++;
	ktg_nl_notify_run_interval(run);
	next_ms = (s64)(run->intervals + 1) * run->p.interval_ms -
		  ktime_ms_delta(ktime_get(), run->start);
	queue_delayed_work(ktg_wq, &run->interval_work,
			   next_ms > 0 ? msecs_to_jiffies(next_ms) : 0);
}

/*
 * tx user: a worker whose copy from the requester's memory has waited
 * longer than KTG_UNSTICK_GRACE once the run should end (stopped, failed,
 * out of time) is interrupted: a fault nobody serves would otherwise keep
 * the run, and whoever waits for it (a delete of the namespace, rmmod),
 * for ever. Every KTG_UNSTICK_GRACE while workers are left; the done work
 * cancels it before the workers go.
 */
static void ktg_run_unstick_work(struct work_struct *work)
{
	struct ktg_run *run = container_of(to_delayed_work(work), struct ktg_run,
					   unstick_work);
	/* the workers started so far (pairs with ktg_run_start()'s release) */
	u32 i, n = smp_load_acquire(&run->nworkers);

	if (!atomic_read(&run->workers_left))
		return;
	if (ktg_run_stopping(run) || ktime_after(ktime_get(), run->deadline))
		for (i = 0; i < n; i++)
			ktg_worker_unstick(&run->workers[i], KTG_UNSTICK_GRACE);
	queue_delayed_work(ktg_wq, &run->unstick_work, KTG_UNSTICK_GRACE);
}

static void ktg_run_put_mm(struct ktg_run *run)
{
	if (run->mm) {
		mmput(run->mm);
		run->mm = NULL;
	}
}

static void ktg_run_done_work(struct work_struct *work)
{
	struct ktg_run *run = container_of(work, struct ktg_run, done_work);
	u32 i;

	cancel_delayed_work_sync(&run->interval_work);
	cancel_delayed_work_sync(&run->window_work);
	cancel_delayed_work_sync(&run->unstick_work);

	/* Not closed by the flows when they failed before sending. */
	ktg_cpu_acct_stop(&run->cpu);
	/* Its counts taken, no counter is needed while the run is listed. */
	ktg_cpu_acct_release_counters(&run->cpu);
	for (i = 0; i < run->nworkers; i++)
		ktg_worker_stop(&run->workers[i]);
	for (i = 0; i < run->p.flows; i++)
		ktg_flow_close(&run->flows[i]);
	ktg_pages_free(&run->src);
	/* The workers let go of the address space: the owner may have it. */
	ktg_run_put_mm(run);
	if (run->probing) {
		run->nocache = ktg_probe_nocache_hits() - run->nocache0;
		ktg_probe_put();
		run->probing = false;
	}
	ktg_run_rx_settle(run);
	ktg_run_rxp_close(run);

	mutex_lock(&run->lock);
	if (!run->end)
		run->end = ktime_get();
	ktg_run_finish(run);
	mutex_unlock(&run->lock);
	ktg_nl_notify_run_done(run);
	if (unlikely(ktg_test_hook(done_delay_ms)))
		msleep(min(ktg_test_hook(done_delay_ms), 10000U));
	/* The work's last touch of the run: a delete waits for it
	 * (ktg_run_release), and a completion may go as soon as its
	 * waiter returns.
	 */
	complete_all(&run->done);
}

static void ktg_run_free(struct ktg_run *run)
{
	u32 i;

	if (run->rx) {
		ktg_rx_stats_unpublish(run->cookie);
		ktg_rx_stats_put(run->rx);
	}
	ktg_run_put_mm(run);
	if (run->probing)
		ktg_probe_put();
	if (run->rx_probing)
		ktg_rxprobe_put();
	ktg_cpu_acct_free(&run->cpu);
	for (i = 0; run->flows && i < run->p.flows; i++)
		ktg_flow_free(&run->flows[i]);
	kvfree(run->hist_prev);
	kvfree(run->flows);
	kfree(run->workers);
	free_cpumask_var(run->p.cpus);
	ktg_mem_uncharge(run->charged);
	mutex_destroy(&run->lock);
	/* a lookup may still be looking at it */
	kfree_rcu(run, rcu);
}

void ktg_run_put(struct ktg_run *run)
{
	if (refcount_dec_and_test(&run->ref))
		ktg_run_free(run);
}

/* The workers and their flows, not started: they watch their sockets. */
static int ktg_run_workers(struct ktg_run *run)
{
	u32 i, n = min_t(u32, cpumask_weight(run->p.cpus), run->p.flows);

	run->workers = kcalloc(n, sizeof(*run->workers), GFP_KERNEL);
	if (!run->workers)
		return -ENOMEM;
	run->nslots = n;
	for (i = 0; i < n; i++) {
		ktg_worker_init(&run->workers[i], run);
		run->workers[i].mm = run->mm;
		run->workers[i].busy_poll_ns = (u64)run->p.busy_poll_us * NSEC_PER_USEC;
	}
	for (i = 0; i < run->p.flows; i++) {
		struct ktg_flow *f = &run->flows[i];
		struct ktg_worker *w = &run->workers[i % n];

		list_add_tail(&f->node, &w->items);
		f->worker = w;
		if (f->sock)
			ktg_sock_watch(&f->watch, f->sock, w);
	}
	/* A worker's pass over its flows stays about the same length
	 * whatever their number, so that every flow gets its turn well
	 * within a run: a thousand flows send a message each per pass.
	 */
	run->visit = clamp_t(u32, KTG_PASS_SENDS / DIV_ROUND_UP(run->p.flows, n),
			     1, KTG_VISIT_SENDS);
	return 0;
}

/* The clock starts and the workers with it. A worker that cannot start
 * fails the run (the ones started finish at once and complete it).
 */
void ktg_run_start(struct ktg_run *run)
{
	u32 i, n = run->nslots;
	int cpu, err;

	atomic_set(&run->workers_left, n);
	for (i = 0; i < run->p.flows; i++)
		if (run->flows[i].state != KTG_FLOW_DONE)
			atomic_inc(&run->sending);
	if (!run->p.warmup_ms) {
		ktg_run_rxp_open(run);
		ktg_cpu_acct_start(&run->cpu);
	}
	/* readers of a run published and not yet started see a start of 0 */
	WRITE_ONCE(run->start, ktime_get());
	run->deadline = run->p.time_ms ?
		ktime_add_ms(run->start, run->p.warmup_ms + run->p.time_ms) : KTIME_MAX;
	if (run->p.warmup_ms)
		queue_delayed_work(ktg_wq, &run->window_work,
				   msecs_to_jiffies(run->p.warmup_ms));
	if (run->p.interval_ms)
		queue_delayed_work(ktg_wq, &run->interval_work,
				   msecs_to_jiffies(run->p.interval_ms));
	if (run->mm)
		queue_delayed_work(ktg_wq, &run->unstick_work, KTG_UNSTICK_GRACE);
	cpu = cpumask_first(run->p.cpus);
	for (i = 0; i < n; i++) {
		/*
		 * Counted before it starts: it may be done, and the run's
		 * done work (which stops the workers counted) queued, before
		 * this returns. A stop kicks the workers counted; a kick or
		 * stop of one not started yet finds no task and does nothing.
		 */
		smp_store_release(&run->nworkers, i + 1);
		err = ktg_worker_start(&run->workers[i], cpu, ktg_run_worker,
				       "run", run->id);
		if (err) {
			ktg_run_flow_failed(run, &run->flows[i], err);
			if (atomic_sub_and_test(n - i, &run->workers_left))
				queue_work(ktg_wq, &run->done_work);
			return;
		}
		if (unlikely(ktg_test_hook(start_delay_ms)))
			msleep(min(ktg_test_hook(start_delay_ms), 60000U));
		cpu = cpumask_next(cpu, run->p.cpus);
	}
}

/*
 * tx user: the source is the requester's memory at user-buf. The request
 * runs in the requester's context: hold its address space for the workers
 * and write the payload pattern there, so a verifying sink checks what
 * the stack copied from it. -EFAULT: the memory is not the requester's to
 * write.
 */
static int ktg_run_user_src(struct ktg_run *run, struct netlink_ext_ack *extack)
{
	void __user *dst = u64_to_user_ptr(run->p.user_buf);
	u32 i;

	run->mm = get_task_mm(current);
	if (!run->mm) {
		NL_SET_ERR_MSG(extack, "tx user needs a requester with an address space");
		return -EINVAL;
	}
	for (i = 0; i < run->src.npages; i++) {
		if (copy_to_user(dst + ((size_t)i << PAGE_SHIFT),
				 page_address(run->src.pages[i]), PAGE_SIZE))
			return -EFAULT;
		cond_resched();
	}
	return 0;
}

/* What the run holds besides its page rings: flows, workers, request/
 * response histograms and buffers, event counters, charged to the
 * budget up front.
 */
static int ktg_run_charge(struct ktg_run *run, struct netlink_ext_ack *extack)
{
	const struct ktg_run_params *p = &run->p;
	u64 bytes = (u64)p->flows * sizeof(struct ktg_flow) +
		    (u64)min_t(u32, cpumask_weight(p->cpus), p->flows) * sizeof(struct ktg_worker);
	int err;

	if (ktg_test_rr(p->test))
		bytes += (u64)p->flows * (sizeof(struct ktg_hist) + KTG_RR_RBUF) +
			 (p->interval_ms ? sizeof(struct ktg_hist) : 0);
	if (p->gso)
		bytes += (u64)p->flows * p->gso *
			 (sizeof(struct ktg_dgram) + 2 * sizeof(struct kvec));
	bytes += ktg_cpu_event_size(p->events);
	err = ktg_mem_charge(bytes);
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "the run's flows, histograms and counters exceed the module's budget (ktgen config)");
		return err;
	}
	run->charged = bytes;
	return 0;
}

/* A run in its first state, sending, with @p (and its cpumask) and one
 * reference; NULL without memory, the cpumask freed.
 */
static struct ktg_run *ktg_run_alloc(struct ktg_net *kn, struct ktg_run_params *p, u32 portid)
{
	struct ktg_run *run = kzalloc(sizeof(*run), GFP_KERNEL);

	if (!run) {
		free_cpumask_var(p->cpus);	/* ours from the call on */
		return NULL;
	}
	refcount_set(&run->ref, 1);
	mutex_init(&run->lock);
	run->kn = kn;
	run->p = *p;				/* takes over the cpumask */
	run->portid = portid;
	run->state = KTG_RUN_SENDING;
	spin_lock_init(&run->end_lock);
	INIT_WORK(&run->done_work, ktg_run_done_work);
	INIT_DELAYED_WORK(&run->interval_work, ktg_run_interval_work);
	INIT_DELAYED_WORK(&run->window_work, ktg_run_window_work);
	INIT_DELAYED_WORK(&run->unstick_work, ktg_run_unstick_work);
	init_completion(&run->done);
	if (!p->time_ms && !p->bytes && !p->msgs)
		run->p.time_ms = KTG_DEFAULT_TIME_MS;
	if (!p->buffer)
		run->p.buffer = KTG_DEFAULT_BUFFER;
	return run;
}

/* What the run holds before any socket: its id, its budget, its cookie,
 * the flows' array and CPU accounting, the source pages. On an error the
 * caller unreserves the id and puts the run, which releases the rest.
 */
static int ktg_run_prepare(struct ktg_run *run, struct netlink_ext_ack *extack)
{
	u32 i, npages;
	int err;

	err = ktg_net_reserve(run->kn, true, &run->id, extack);
	if (err)
		return err;
	err = ktg_run_charge(run, extack);
	if (err)
		return err;
	run->rx = ktg_run_cookie(run);
	if (IS_ERR(run->rx)) {
		err = PTR_ERR(run->rx);
		run->rx = NULL;
		if (err == -EBUSY)
			NL_SET_ERR_MSG(extack, "no free run cookie");
		else
			NL_SET_ERR_MSG(extack, "no memory for the run");
		return err;
	}
	/* up to 1024 flows of ~600 bytes: no order-8 allocation */
	run->flows = kvcalloc(run->p.flows, sizeof(*run->flows), GFP_KERNEL);
	if (!run->flows || ktg_cpu_acct_init(&run->cpu, run->p.events)) {
		NL_SET_ERR_MSG(extack, "no memory for the run");
		return -ENOMEM;
	}
	/* each flow knows its run before anything can close it */
	for (i = 0; i < run->p.flows; i++) {
		run->flows[i].run = run;
		run->flows[i].id = i;
	}
	npages = DIV_ROUND_UP(run->p.buffer, PAGE_SIZE);
	err = ktg_pages_alloc(&run->src, npages, true);
	if (err) {
		if (err == -ENOSPC)
			NL_SET_ERR_MSG(extack,
				       "the buffer exceeds the module's budget (ktgen config)");
		else
			NL_SET_ERR_MSG(extack, "no memory for the buffer");
		return err;
	}
	run->pattern_pages = npages << (PAGE_SHIFT - KTG_PATTERN_SHIFT);
	return 0;
}

/* The run's user source, interval histogram, probe, flows' sockets and
 * workers; on an error the caller closes the flows and frees the pages.
 */
static int ktg_run_open(struct ktg_run *run, struct netlink_ext_ack *extack)
{
	const struct ktg_run_params *p = &run->p;
	int err;
	u32 i;

	if (unlikely(ktg_test_hook(build_delay_ms)))
		msleep(min(ktg_test_hook(build_delay_ms), 60000U));
	if (p->tx_mode == KTGEN_TX_MODE_USER) {
		err = ktg_run_user_src(run, extack);
		if (err)
			return err;
	}
	if (ktg_test_rr(p->test) && p->interval_ms) {
		/* each interval reports its own latencies */
		run->hist_prev = kvmalloc(sizeof(*run->hist_prev), GFP_KERNEL);
		if (!run->hist_prev) {
			NL_SET_ERR_MSG(extack, "no memory for the run");
			return -ENOMEM;
		}
		ktg_hist_reset(run->hist_prev);
	}
	if (p->probe_copies) {
		err = ktg_probe_get(extack);
		if (err)
			return err;
		run->probing = true;
		run->nocache0 = ktg_probe_nocache_hits();
	}
	if (p->probe_rx) {
		run->rxp_avail = ktg_rxprobe_get();
		run->rx_probing = true;
	}
	for (i = 0; i < p->flows; i++) {
		err = ktg_flow_open(&run->flows[i], extack);
		if (err)
			return err;
	}
	err = ktg_run_workers(run);
	if (err)
		NL_SET_ERR_MSG(extack, "no memory for the run");
	return err;
}

int ktg_run_create(struct ktg_net *kn, struct ktg_run_params *p, u32 portid,
		   struct ktg_run **runp, struct netlink_ext_ack *extack)
{
	struct ktg_run *run;
	int err;
	u32 i;

	run = ktg_run_alloc(kn, p, portid);
	if (!run) {
		NL_SET_ERR_MSG(extack, "no memory for the run");
		return -ENOMEM;
	}
	err = ktg_run_prepare(run, extack);
	if (err)
		goto err_free;
	err = ktg_run_open(run, extack);
	if (err)
		goto err_close;
	*runp = run;
	return 0;

err_close:
	for (i = 0; i < run->p.flows; i++)
		ktg_flow_close(&run->flows[i]);
	ktg_pages_free(&run->src);
err_free:
	if (run->id) {
		mutex_lock(&kn->lock);
		ktg_net_unreserve(kn, true, run->id);
		mutex_unlock(&kn->lock);
	}
	ktg_run_put(run);
	return err;
}

/* Listed under its id; an attached run is its requester's socket's. */
void ktg_run_publish(struct ktg_run *run)
{
	struct ktg_net *kn = run->kn;

	mutex_lock(&kn->lock);
	xa_store(&kn->runs, run->id, run, GFP_KERNEL);
	if (!run->p.detach) {
		ktg_net_owner_add(kn, run->portid);
		run->owned = true;
	}
	mutex_unlock(&kn->lock);
}

/* The run @id with a reference, or NULL. */
struct ktg_run *ktg_run_get(struct ktg_net *kn, u32 id)
{
	struct ktg_run *run;

	rcu_read_lock();
	run = xa_load(&kn->runs, id);
	if (run && !refcount_inc_not_zero(&run->ref))
		run = NULL;
	rcu_read_unlock();
	return run;
}

/* The first run from id @*id on, with a reference (a dump's cursor). */
struct ktg_run *ktg_run_get_next(struct ktg_net *kn, unsigned long *id)
{
	struct ktg_run *run;

	rcu_read_lock();
	for (;;) {
		run = xa_find(&kn->runs, id, ULONG_MAX, XA_PRESENT);
		if (!run || refcount_inc_not_zero(&run->ref))
			break;
		(*id)++;
	}
	rcu_read_unlock();
	return run;
}

/* A user's stop: flows drain and the run completes as stopped. */
void ktg_run_stop(struct ktg_run *run)
{
	ktg_run_move(run, KTG_RUN_STOPPING);
}

int ktg_run_stop_id(struct ktg_net *kn, u32 id)
{
	struct ktg_run *run = ktg_run_get(kn, id);

	if (!run)
		return -ENOENT;
	ktg_run_stop(run);
	ktg_run_put(run);
	return 0;
}

/* Out of its table (the caller holds kn->lock): no lookup finds it. */
static void ktg_run_unlist(struct ktg_net *kn, struct ktg_run *run)
{
	ktg_net_unreserve(kn, true, run->id);
	if (run->owned) {
		ktg_net_owner_del(kn, run->portid);
		run->owned = false;
	}
}

/* A run out of its table goes once its done work has completed and the
 * last reader has let go of it.
 */
static void ktg_run_release(struct ktg_run *run)
{
	wait_for_completion(&run->done);
	ktg_run_put(run);
}

int ktg_run_del(struct ktg_net *kn, u32 id, struct netlink_ext_ack *extack)
{
	struct ktg_run *run;
	int err = 0;

	mutex_lock(&kn->lock);
	run = xa_load(&kn->runs, id);
	if (!run) {
		err = -ENOENT;
	} else if (!ktg_run_finished(run)) {
		if (ktg_run_stopping(run))
			NL_SET_ERR_MSG(extack, "the run is stopping: delete it once it has ended");
		else
			NL_SET_ERR_MSG(extack, "the run is still running: stop it first");
		err = -EBUSY;
	} else {
		ktg_run_unlist(kn, run);
	}
	mutex_unlock(&kn->lock);
	if (!err)
		ktg_run_release(run);
	return err;
}

/* The all flag: every running run stops ... */
void ktg_runs_stop_all(struct ktg_net *kn)
{
	struct ktg_run *run;
	unsigned long id;

	mutex_lock(&kn->lock);
	xa_for_each(&kn->runs, id, run)
		ktg_run_stop(run);
	mutex_unlock(&kn->lock);
}

/*
 * Runs out of the table, each let go once its done work has completed:
 * the finished ones, or (@all: the namespace or module going away) every
 * one, stopped first without a drain.
 */
static void ktg_runs_take(struct ktg_net *kn, bool all)
{
	struct ktg_run *run, *tmp;
	unsigned long id;
	LIST_HEAD(dead);

	mutex_lock(&kn->lock);
	xa_for_each(&kn->runs, id, run) {
		if (all)
			ktg_run_move(run, KTG_RUN_ABORTING);
		else if (!ktg_run_finished(run))
			continue;
		ktg_run_unlist(kn, run);
		list_add_tail(&run->node, &dead);
	}
	mutex_unlock(&kn->lock);
	list_for_each_entry_safe(run, tmp, &dead, node) {
		ktg_run_release(run);
		cond_resched();
	}
}

/* ... every finished one goes. */
void ktg_runs_del_finished(struct ktg_net *kn)
{
	ktg_runs_take(kn, false);
}

/*
 * The socket that started these runs is gone: stop what is not detached.
 * A socket that owns no run returns at once, without the lock; one that
 * did owns none from here on (its portid may come back on another).
 */
void ktg_runs_owner_gone(struct ktg_net *kn, u32 portid)
{
	struct ktg_run *run;
	unsigned long id;

	if (!ktg_net_owns(kn, portid))
		return;
	mutex_lock(&kn->lock);
	xa_for_each(&kn->runs, id, run) {
		if (!run->owned || run->portid != portid)
			continue;
		ktg_run_stop(run);
		ktg_net_owner_del(kn, portid);
		run->owned = false;
	}
	mutex_unlock(&kn->lock);
}

/* The device runs are bound to is going away: nothing more can pass
 * there, and nothing would come back. They fail at once with ENODEV,
 * without a drain (under RTNL: kn->lock never waits for it).
 */
void ktg_runs_dev_gone(struct ktg_net *kn, int ifindex)
{
	struct ktg_run *run;
	unsigned long id;

	mutex_lock(&kn->lock);
	xa_for_each(&kn->runs, id, run) {
		if (run->p.ifindex != ifindex)
			continue;
		/* the error and the last state agree: ktg_run_finish() */
		mutex_lock(&run->lock);
		if (!ktg_run_finished(run)) {
			ktg_run_move(run, KTG_RUN_ABORTING);
			ktg_run_flow_failed(run, &run->flows[0], -ENODEV);
		}
		mutex_unlock(&run->lock);
	}
	mutex_unlock(&kn->lock);
}

/* Namespace or module going away: stop everything, wait, free. */
void ktg_runs_destroy_all(struct ktg_net *kn)
{
	ktg_runs_take(kn, true);
}
