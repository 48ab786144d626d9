#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 16 threads of 64000-byte TCP writes (uperf's profile), before and after
# a driver patch: Gbit/s and the packets the NIC sent. Between hosts the
# two builds are loaded by the commands in $BUILD_A and $BUILD_B (run
# before each of their runs; e.g. BUILD_A="./load ixgbe-old.ko"); in the
# VM two receive styles of ktgen-nic stand in for them (whole pages, as
# mlx4's patch did, against page fragments).
. "$(dirname "$0")/lib.sh"

if [ $VM = 1 ]; then
	BUILD_A="ip netns exec $NS_B $KTGEN dev set kex1 priv-flag rx-frags on"
	BUILD_B="ip netns exec $NS_B $KTGEN dev set kex1 priv-flag rx-frags off"
	FLOWS=4
else
	: "${BUILD_A:?the command that loads the old build}" "${BUILD_B:?and the new one}"
	FLOWS=${FLOWS_OPT:-16}
fi
peer=$(far_end tcp 5303)
kt ab repeat "$RUNS" metric tx_bps show "counters.devices.$IF.stats.tx_packets:higher" \
	a "pre '$BUILD_A'" b "pre '$BUILD_B'" \
	-- run tcp_stream to "$ADDR" port 5303 time "$SECS" size 64000 flows "$FLOWS" $peer
verdict $?
