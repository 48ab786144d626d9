/* SPDX-License-Identifier: GPL-2.0 */
/* Workers: kthreads serving sockets (worker.c). */
#ifndef _KTG_WORKER_H
#define _KTG_WORKER_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct mm_struct;
struct msghdr;
struct socket;
struct task_struct;

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
/* A kthread bound to @cpu running @fn; -ENODEV when @cpu is offline. */
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

#endif /* _KTG_WORKER_H */
