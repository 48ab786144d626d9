// SPDX-License-Identifier: GPL-2.0
/*
 * Worker kthreads: one per CPU of a run or sink, each serving a list of
 * sockets. A worker sleeps on its own wait queue; an entry on each of its
 * sockets' wait queues (as poll and vhost do) wakes it on data, write
 * space or a state change, so a sender blocks the way a socket sender
 * blocks and never spins on EAGAIN.
 *
 * A worker given an address space (tx/rx user) adopts it for its whole
 * life, as vhost workers do, so that its sockets copy from or to user
 * memory with the stack's own user copies. Its owner holds the address
 * space (mm_users) until the worker has stopped. A fault on that memory
 * may wait for ever (a userfaultfd nobody reads, a FUSE server that does
 * not answer): such a worker takes SIGKILL, the one thing that ends the
 * wait (the copy fails with EFAULT), from its stop or its owner's
 * ktg_worker_unstick().
 */
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <net/sock.h>

#include "compat.h"
#include "worker.h"

/* Before anything can kick the worker: sockets are watched before their
 * workers start.
 */
static enum hrtimer_restart ktg_worker_timer(struct hrtimer *t)
{
	ktg_worker_kick(container_of(t, struct ktg_worker, timer));
	return HRTIMER_NORESTART;
}

void ktg_worker_init(struct ktg_worker *w, void *owner)
{
	init_waitqueue_head(&w->wq);
	atomic_set(&w->kick, 0);
	spin_lock_init(&w->lock);
	INIT_LIST_HEAD(&w->items);
	w->owner = owner;
	w->cpu = -1;
	ktg_hrtimer_setup(&w->timer, ktg_worker_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
}

/* From the worker itself: be kicked at @t at the latest. */
void ktg_worker_wake_at(struct ktg_worker *w, ktime_t t)
{
	if (hrtimer_active(&w->timer) && ktime_before(hrtimer_get_expires(&w->timer), t))
		return;
	hrtimer_start(&w->timer, t, HRTIMER_MODE_ABS);
}

static int ktg_worker_main(void *arg)
{
	struct ktg_worker *w = arg;
	int ret;

	if (w->mm) {
		allow_signal(SIGKILL);
		kthread_use_mm(w->mm);
	}
	ret = w->fn(w);
	if (w->mm)
		kthread_unuse_mm(w->mm);
	return ret;
}

int ktg_worker_start(struct ktg_worker *w, int cpu, int (*fn)(void *),
		     const char *what, u32 id)
{
	struct task_struct *t;

	w->cpu = cpu;
	w->fn = fn;
	/* The CPU was online when the request was checked; it must still be
	 * when the worker is bound and woken there (the hotplug lock held
	 * across both, as smpboot does), or the worker would run wherever
	 * the scheduler falls back to and its run claim a CPU it never had.
	 * One going offline later takes its bound kthreads elsewhere, and
	 * the run's accounting says so (ktg_cpu_down()).
	 */
	cpus_read_lock();
	if (!cpu_online(cpu)) {
		cpus_read_unlock();
		return -ENODEV;
	}
	t = kthread_create_on_node(ktg_worker_main, w, cpu_to_node(cpu), "ktgen/%s%u:%d",
				   what, id, cpu);
	if (IS_ERR(t)) {
		cpus_read_unlock();
		return PTR_ERR(t);
	}
	kthread_bind(t, cpu);
	get_task_struct(t);
	WRITE_ONCE(w->task, t);		/* ktg_worker_interrupt() may look */
	wake_up_process(t);
	cpus_read_unlock();
	return 0;
}

/* Interrupts a wait in user memory. The worker's task is its owner's
 * until ktg_worker_stop() has returned.
 */
static void ktg_worker_interrupt(struct ktg_worker *w)
{
	struct task_struct *t = READ_ONCE(w->task);

	if (w->mm && t)
		send_sig(SIGKILL, t, 1);
}

/* A worker in user memory for longer than @grace jiffies is interrupted. */
void ktg_worker_unstick(struct ktg_worker *w, unsigned long grace)
{
	unsigned long since = READ_ONCE(w->uaccess_since);

	if (since && time_after(jiffies, since + grace))
		ktg_worker_interrupt(w);
}

/*
 * The one way a worker sends from or receives into the adopted user
 * memory: @msg's iterator is over it, a source (a send, msg_flags its
 * flags) or a destination (a receive). Marked as in user memory for as
 * long as it takes: a fault there may never be served (a userfaultfd
 * nobody reads, FUSE behind the mapping), and only a signal ends its wait
 * (ktg_worker_unstick()). A run's path that copied without the mark could
 * never be interrupted, and the run never end. (A sink is interrupted at
 * its stop whether marked or not; its read-back of a UDP header with
 * copy_from_user() needs no mark.)
 */
int ktg_worker_user_msg(struct ktg_worker *w, struct socket *sock, struct msghdr *msg)
{
	int ret;

	WRITE_ONCE(w->uaccess_since, jiffies | 1);
	if (iov_iter_rw(&msg->msg_iter) == WRITE)
		ret = sock_sendmsg(sock, msg);
	else
		ret = sock_recvmsg(sock, msg, msg->msg_flags);
	WRITE_ONCE(w->uaccess_since, 0);
	return ret;
}

/* Waits for the worker to leave its loop (it parks until told to stop);
 * one in user memory is interrupted first.
 */
void ktg_worker_stop(struct ktg_worker *w)
{
	if (!w->task)
		return;
	ktg_worker_interrupt(w);
	kthread_stop(w->task);
	/* only the worker arms it: it stays off now */
	hrtimer_cancel(&w->timer);
	put_task_struct(w->task);
	w->task = NULL;
}

/*
 * Called for every datagram queued to a watched socket and every skb its
 * sender frees: a kick already pending, or a worker not sleeping, costs no
 * wait-queue lock. A pending kick is one the worker has yet to consume,
 * and it looks at its sockets after consuming it: the barrier orders what
 * the caller queued before the read, against the worker's atomic_xchg()
 * before its look. One on its way to sleep is on the queue before it
 * checks the kick (wq_has_sleeper()'s barrier pairs with the one in
 * prepare_to_wait()).
 */
void ktg_worker_kick(struct ktg_worker *w)
{
	smp_mb();	/* the caller's queueing before the read of the kick */
	if (atomic_read(&w->kick))
		return;
	atomic_set(&w->kick, 1);
	if (wq_has_sleeper(&w->wq))
		wake_up(&w->wq);
}

/* Sleep until kicked, told to stop or @timeout jiffies passed. The kick
 * is consumed here: a wake-up between the caller's last attempt and this
 * call is not lost.
 */
void ktg_worker_sleep(struct ktg_worker *w, long timeout)
{
	wait_event_interruptible_timeout(w->wq,
					 atomic_xchg(&w->kick, 0) || kthread_should_stop(),
					 timeout);
}

/*
 * The end of a pass over the worker's sockets, @busy if it did anything.
 * Idle, it sleeps (ktg_worker_sleep()); with a busy-poll budget it first
 * spins that long after the last thing it did, its caller's loop polling
 * the sockets, as the stack's own busy polling trades a CPU for the
 * wake-up it saves. Only work starts a new budget: a worker that slept
 * with nothing to do sleeps again.
 *
 * A task woken on its CPU that the scheduler prefers (an RCU kthread,
 * ksoftirqd, a kworker) runs first, the worker staying runnable; one that
 * still waits after that makes the worker sleep (as KVM's halt polling
 * does): another spinner, the other end of a transaction on the same CPU,
 * say, would otherwise wait for the worker's time slice to end, a tick a
 * transaction.
 */
void ktg_worker_idle(struct ktg_worker *w, bool busy, long timeout)
{
	ktime_t now;

	w->poll_us = 0;
	if (busy) {
		w->idle_since = 0;
		return;
	}
	if (w->busy_poll_ns) {
		cond_resched();
		now = ktime_get();
		if (!w->idle_since)
			w->idle_since = now;
		if (single_task_running() &&
		    ktime_to_ns(ktime_sub(now, w->idle_since)) < w->busy_poll_ns)
			return;
	}
	ktg_worker_sleep(w, timeout);
}

/*
 * The end of a pass that found something it waits for with no wake-up to
 * come (a flow's staging pages, all in the stack's hands: nothing tells
 * when one comes back). It polls: from 16 us, doubling while nothing came
 * back, to a tick; any work starts over. A tick at once capped a flow at
 * its ring per tick (8 MiB a tick: 16 Gbit/s at HZ=250, 6.7 at UML's 100)
 * wherever the receiver holds the pages, as over veth.
 */
void ktg_worker_poll(struct ktg_worker *w, bool busy)
{
	u32 tick_us = jiffies_to_usecs(1);

	w->idle_since = 0;
	if (busy) {
		w->poll_us = 0;
		return;
	}
	w->poll_us = w->poll_us ? min(2 * w->poll_us, tick_us) : min(16U, tick_us);
	wait_event_interruptible_hrtimeout(w->wq,
					   atomic_xchg(&w->kick, 0) || kthread_should_stop(),
					   ns_to_ktime((u64)w->poll_us * NSEC_PER_USEC));
}

/* The end of a worker's loop: wait for ktg_worker_stop(), deaf to a
 * signal already taken.
 */
void ktg_worker_park(void)
{
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int ktg_sock_wake(wait_queue_entry_t *entry, unsigned int mode,
			 int sync, void *key)
{
	struct ktg_sock_watch *sw = container_of(entry, struct ktg_sock_watch, entry);

	/* Softirq context: only a kick. */
	ktg_worker_kick(sw->worker);
	return 0;
}

void ktg_sock_watch(struct ktg_sock_watch *sw, struct socket *sock,
		    struct ktg_worker *w)
{
	sw->worker = w;
	sw->head = sk_sleep(sock->sk);
	init_waitqueue_func_entry(&sw->entry, ktg_sock_wake);
	add_wait_queue(sw->head, &sw->entry);
}

void ktg_sock_unwatch(struct ktg_sock_watch *sw)
{
	if (!sw->head)
		return;
	remove_wait_queue(sw->head, &sw->entry);
	sw->head = NULL;
}
