#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tx-nocache-copy off vs on, one TCP stream, as netdev measured it when the
# feature was questioned: RUNS runs of SECS s, mean and stddev of the
# throughput and each side's service demand (cycles per byte, us per KB),
# with the generator on CPU 0, then on CPU 1. tx user: the stack's
# non-temporal copy acts on user memory only (ktgen's kernel senders hand
# it kernel pages, which it never copies that way). The NIC's interrupts
# stay on CPU 0 throughout, as in netdev's setup.
. "$(dirname "$0")/lib.sh"

peer=$(far_end tcp 5301)
irq=$(irq_pin "$CPU") || exit 4
kt sweep over cpus "$CPU,$((CPU + 1))" repeat "$RUNS" stat mean metric tx_bps \
	show run_cycles_per_byte,run_us_per_kb,other_us_per_kb \
	variant off "knob $IF feature tx-nocache-copy off $irq" \
	variant on "knob $IF feature tx-nocache-copy on $irq" \
	-- run tcp_stream to "$ADDR" port 5301 time "$SECS" tx user $peer
verdict $?
