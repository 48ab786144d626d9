#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 200 concurrent TCP_RR transactions at netperf's 1400/1 and 14000/14000,
# tx-nocache-copy off vs on, as it was first justified: transactions/s and
# 50/90/95/99 % latency, mean and stddev over RUNS runs (tx user: the knob
# acts on user memory only).
. "$(dirname "$0")/lib.sh"

FLOWS=${FLOWS_OPT:-200}
[ $VM = 1 ] && FLOWS=${FLOWS_OPT:-20}
peer=$(far_end tcp 5305 rr)
kt sweep over req,resp 1400:1,14000:14000 repeat "$RUNS" stat mean metric tps \
	show p50,p90,p95,p99 \
	variant off "knob $IF feature tx-nocache-copy off" \
	variant on "knob $IF feature tx-nocache-copy on" \
	-- run tcp_rr to "$ADDR" port 5305 time "$SECS" flows "$FLOWS" tx user \
	percentiles 50,90,95,99 $peer
verdict $?
