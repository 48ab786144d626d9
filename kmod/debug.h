/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test hooks, each 0 (flip_byte -1) when off: delays and faults that let
 * the VM tests hold the module in a window a slow machine would open, or
 * corrupt what a check must find. They are built only with
 * KTGEN_TEST_HOOKS=1 on make's command line (the test lanes' build) and set
 * under debugfs, ktgen/<name>, as netdevsim's knobs are; a production build
 * has none, and every hook reads as its "off" value (a compound literal's
 * member: folded away, though not an integer constant expression).
 */
#ifndef _KTG_DEBUG_H
#define _KTG_DEBUG_H

#include <linux/compiler.h>
#include <linux/types.h>

struct ktg_test_hooks {
	/* flip this byte of each pattern ring, so that rx verify is seen to
	 * find what it is meant to find (-1: off)
	 */
	s32	flip_byte;
	/* a flow's drain gives up after this long instead of 30 s, for the
	 * tests that wait one out (at most 30 s)
	 */
	u32	drain_timeout_ms;
	/* busy-wait this long per message sent: a calibrated slowdown for
	 * the verdict tests of ktgen ab (at most 1 ms)
	 */
	u32	send_delay_ns;
	/* a run's reply waits this long once its flows' histograms are
	 * merged, as a merge of 1024 flows on a slow machine does (at most
	 * 60 s)
	 */
	u32	fill_delay_ms;
	/* the done work waits this long between publishing the run as
	 * finished and completing run->done, the window in which a delete
	 * could free it (at most 10 s)
	 */
	u32	done_delay_ms;
	/* the starter pauses this long after each worker's wake-up, as a
	 * preempted one would, so that a short run's worker is done first
	 * (at most 60 s)
	 */
	u32	start_delay_ms;
	/* run-new holds each run this long once its buffer is filled, a
	 * build that others must not wait for (at most 60 s)
	 */
	u32	build_delay_ms;
	/* an rx user sink's owner work, the sink out of its table, waits
	 * this long before its teardown: the window in which its namespace
	 * or the module may go (at most 10 s)
	 */
	u32	owner_delay_ms;
};

#define KTG_TEST_HOOKS_OFF	{ .flip_byte = -1 }

#ifdef KTGEN_TEST_HOOKS
extern struct ktg_test_hooks ktg_test;
#define ktg_test_hook(name)	READ_ONCE(ktg_test.name)
void ktg_debug_init(void);
void ktg_debug_exit(void);
#else
#define ktg_test_hook(name)	(((struct ktg_test_hooks)KTG_TEST_HOOKS_OFF).name)
static inline void ktg_debug_init(void) { }
static inline void ktg_debug_exit(void) { }
#endif

#endif /* _KTG_DEBUG_H */
