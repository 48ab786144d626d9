#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Single-stream TCP throughput with XPS off vs on, as be2net's regression
# was shown: ~30 samples each, min, P10, median, mean, P90, max (P10 and
# P90 from 10 samples on).
RUNS_DEFAULT=30
. "$(dirname "$0")/lib.sh"

peer=$(far_end tcp 5304)
kt ab repeat "$RUNS" metric tx_bps a "knob $IF xps off" b "knob $IF xps default" \
	-- run tcp_stream to "$ADDR" port 5304 time "$SECS" $peer
verdict $?
