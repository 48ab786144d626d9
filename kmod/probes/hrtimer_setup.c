// SPDX-License-Identifier: GPL-2.0
/* hrtimer_setup(): timer and callback in one call (6.13; hrtimer_init goes) */
#include <linux/hrtimer.h>

static enum hrtimer_restart ktg_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void ktg_probe(struct hrtimer *t);
void ktg_probe(struct hrtimer *t)
{
	hrtimer_setup(t, ktg_probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
}
