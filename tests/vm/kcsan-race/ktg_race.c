// SPDX-License-Identifier: GPL-2.0
/*
 * The KCSAN lane's positive control (tests/vm: kcsan_control), never part
 * of ktgen: two kthreads, one on each of two CPUs, add to one plain
 * counter until the module goes, a data race KCSAN must report (a plain
 * read and write of ktg_race_count whose value changes) in a module built
 * the way ktgen.ko is. A lane whose kernel or build did not instrument
 * modules would pass every case while seeing nothing; this one fails.
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static unsigned long ktg_race_count;
static struct task_struct *ktg_race_threads[2];

static noinline void ktg_race_add(void)
{
	ktg_race_count++;
}

static int ktg_race_run(void *unused)
{
	while (!kthread_should_stop()) {
		ktg_race_add();
		cond_resched();
	}
	return 0;
}

static void ktg_race_stop(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ktg_race_threads); i++) {
		if (ktg_race_threads[i])
			kthread_stop(ktg_race_threads[i]);
		ktg_race_threads[i] = NULL;
	}
}

static int __init ktg_race_init(void)
{
	unsigned int cpu = cpumask_first(cpu_online_mask);
	struct task_struct *t;
	int i;

	for (i = 0; i < ARRAY_SIZE(ktg_race_threads); i++) {
		if (cpu >= nr_cpu_ids) {
			ktg_race_stop();
			return -ENODEV;		/* one CPU: no race to see */
		}
		t = kthread_create(ktg_race_run, NULL, "ktg_race/%u", cpu);
		if (IS_ERR(t)) {
			ktg_race_stop();
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		ktg_race_threads[i] = t;
		wake_up_process(t);
		cpu = cpumask_next(cpu, cpu_online_mask);
	}
	return 0;
}

static void __exit ktg_race_exit(void)
{
	ktg_race_stop();
}

module_init(ktg_race_init);
module_exit(ktg_race_exit);
MODULE_DESCRIPTION("ktgen's KCSAN lane: a seeded data race");
MODULE_LICENSE("GPL");
