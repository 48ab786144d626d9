#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 64-byte UDP_STREAM receive throughput, build_skb vs copy-style (legacy)
# receive on the receiving NIC (ixgbe's legacy-rx private flag), as the
# build_skb patch was measured: datagrams sent and received, Mbit/s, and
# the verdict on the receive side. netperf's -s/-S 32768 socket buffers
# are the sink's rcvbuf here.
. "$(dirname "$0")/lib.sh"

peer=$(far_end udp 5302 "rcvbuf 32768")
kt ab repeat "$RUNS" metric rx_bps show tx_pps,rx_pps,lost \
	a "$(rx_knob priv-flag legacy-rx off)" b "$(rx_knob priv-flag legacy-rx on)" \
	-- run udp_stream to "$ADDR" port 5302 time "$SECS" size 64 $peer
verdict $?
